#pragma once
/// \file
/// `StateDict`: a module's parameters and buffers by name, in PyTorch's order
/// (an `OrderedDict` of `str` to tensor). Values are type-erased handles
/// (`AnyTensor`), because a module's buffers need not share its parameters'
/// element type (BatchNorm's `num_batches_tracked` is int64).

#include <cstddef>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "tensorlib/core/any_tensor.hpp"
#include "tensorlib/core/error.hpp"

namespace tensorlib::nn {

/// Tensors by name, kept in insertion order.
class StateDict {
 public:
  using value_type = std::pair<std::string, AnyTensor>;

  StateDict() = default;
  StateDict(std::initializer_list<value_type> items) {
    for (const auto& [key, value] : items) insert(key, value);
  }

  /// Adds `key`, or replaces its value where it is already present (keeping
  /// its place, as assigning to a Python dict key does).
  void insert(std::string key, AnyTensor value) {
    if (auto it = index_.find(key); it != index_.end()) {
      items_[it->second].second = std::move(value);
      return;
    }
    items_.emplace_back(key, std::move(value));
    try {
      index_.emplace(std::move(key), items_.size() - 1);
    } catch (...) {
      items_.pop_back();
      throw;
    }
  }
  /// Removes `key`; a `KeyError` when it is absent.
  void erase(std::string_view key) {
    const std::size_t i = position(key);
    items_.erase(items_.begin() + static_cast<std::ptrdiff_t>(i));
    index_.clear();
    for (std::size_t j = 0; j < items_.size(); ++j) index_.emplace(items_[j].first, j);
  }
  bool contains(std::string_view key) const { return index_.find(std::string(key)) != index_.end(); }
  /// The value of `key`; a `KeyError` naming it when it is absent.
  const AnyTensor& at(std::string_view key) const { return items_[position(key)].second; }
  /// The value of `key` as a `Tensor<T>`; a `TypeError` when it holds another
  /// element type.
  template <class T>
  Tensor<T> get(std::string_view key) const {
    return at(key).as<T>();
  }

  std::size_t size() const noexcept { return items_.size(); }
  bool empty() const noexcept { return items_.empty(); }
  auto begin() const noexcept { return items_.begin(); }
  auto end() const noexcept { return items_.end(); }
  /// The keys in order.
  std::vector<std::string> keys() const {
    std::vector<std::string> out;
    out.reserve(items_.size());
    for (const auto& item : items_) out.push_back(item.first);
    return out;
  }

 private:
  std::size_t position(std::string_view key) const {
    const auto it = index_.find(std::string(key));
    tensorlib::detail::check<KeyError>(it != index_.end(), "StateDict: no key '", key, "'");
    return it->second;
  }

  std::vector<value_type> items_;
  std::unordered_map<std::string, std::size_t> index_;
};

}  // namespace tensorlib::nn
