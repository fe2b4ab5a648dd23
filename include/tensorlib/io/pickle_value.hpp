#pragma once
/// \file
/// `PickleValue`: a Python object read from a `torch.save` file (io/pt.hpp):
/// None, bool, int, float, str, bytes, tuple, list, dict, tensor, or a
/// global (a class or function named by module and name, such as
/// `torch.float32`). Like a Python
/// reference, a copy shares the object: the pickle's shared references
/// (one dict reached twice) stay shared.

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "tensorlib/core/any_tensor.hpp"
#include "tensorlib/core/error.hpp"
#include "tensorlib/nn/state_dict.hpp"

namespace tensorlib::io {

class PickleValue {
 public:
  enum class Kind { None, Bool, Int, Float, String, Bytes, Tuple, List, Dict, Tensor, Global };

  /// None.
  PickleValue() : data_(std::make_shared<Data>()) {}
  static PickleValue boolean(bool b) {
    return make(Kind::Bool, [&](Data& d) { d.integer = b; });
  }
  static PickleValue integer(int64_t i) {
    return make(Kind::Int, [&](Data& d) { d.integer = i; });
  }
  static PickleValue floating(double x) {
    return make(Kind::Float, [&](Data& d) { d.floating = x; });
  }
  static PickleValue string(std::string s) {
    return make(Kind::String, [&](Data& d) { d.string = std::move(s); });
  }
  /// Python bytes (pickle's BINBYTES).
  static PickleValue bytes(std::string b) {
    return make(Kind::Bytes, [&](Data& d) { d.string = std::move(b); });
  }
  static PickleValue tuple(std::vector<PickleValue> items) {
    return make(Kind::Tuple, [&](Data& d) { d.items = std::move(items); });
  }
  static PickleValue list(std::vector<PickleValue> items = {}) {
    return make(Kind::List, [&](Data& d) { d.items = std::move(items); });
  }
  static PickleValue dict() {
    return make(Kind::Dict, [](Data&) {});
  }
  static PickleValue tensor(AnyTensor t) {
    return make(Kind::Tensor, [&](Data& d) { d.tensor = std::move(t); });
  }
  /// The global `module.name` (pickle's GLOBAL).
  static PickleValue global(std::string qualified_name) {
    return make(Kind::Global, [&](Data& d) { d.string = std::move(qualified_name); });
  }

  /// A moved-from handle reads as None.
  Kind kind() const noexcept { return data_ ? data_->kind : Kind::None; }
  bool is_none() const noexcept { return kind() == Kind::None; }

  bool to_bool() const { return expect(Kind::Bool, "bool").integer != 0; }
  int64_t to_int() const { return expect(Kind::Int, "int").integer; }
  /// A float, or an int as a float (as Python accepts either).
  double to_double() const {
    if (kind() == Kind::Int) return static_cast<double>(data_->integer);
    return expect(Kind::Float, "float").floating;
  }
  const std::string& to_string() const { return expect(Kind::String, "str").string; }
  const std::string& to_bytes() const { return expect(Kind::Bytes, "bytes").string; }
  const AnyTensor& to_tensor() const { return expect(Kind::Tensor, "tensor").tensor; }
  /// A global's `module.name` ("torch.float32").
  const std::string& global_name() const { return expect(Kind::Global, "global").string; }
  /// The items of a tuple or list.
  const std::vector<PickleValue>& items() const {
    tensorlib::detail::check<TypeError>(kind() == Kind::Tuple || kind() == Kind::List, "PickleValue: expected a ",
                                        "tuple or list, got ", kind_name());
    return data_->items;
  }
  /// The (key, value) pairs of a dict, in insertion order.
  const std::vector<std::pair<PickleValue, PickleValue>>& dict_items() const {
    return expect(Kind::Dict, "dict").pairs;
  }

  /// The value of dict key `key` (a str), or null when absent.
  const PickleValue* find(std::string_view key) const {
    for (const auto& [k, v] : dict_items())
      if (k.kind() == Kind::String && k.data_->string == key) return &v;
    return nullptr;
  }
  /// The value of dict key `key`; a `KeyError` when absent.
  const PickleValue& operator[](std::string_view key) const {
    const PickleValue* v = find(key);
    tensorlib::detail::check<KeyError>(v != nullptr, "PickleValue: no key '", key, "'");
    return *v;
  }
  /// A dict of str to tensor as a state dict (the form `model.state_dict()`
  /// is saved in); a `TypeError` naming the first entry that is not one.
  nn::StateDict to_state_dict() const {
    nn::StateDict out;
    for (const auto& [k, v] : dict_items()) {
      tensorlib::detail::check<TypeError>(k.kind() == Kind::String, "PickleValue: a state dict's keys are str, got ",
                                          k.kind_name());
      tensorlib::detail::check<TypeError>(v.kind() == Kind::Tensor, "PickleValue: state dict entry '", k.to_string(),
                                          "' is a ", v.kind_name(), ", not a tensor");
      out.insert(k.to_string(), v.to_tensor());
    }
    return out;
  }

  /// Python's name of the kind ("NoneType", "int", ...).
  std::string_view kind_name() const noexcept {
    constexpr std::string_view names[] = {"NoneType", "bool", "int",  "float",  "str",   "bytes",
                                          "tuple",    "list", "dict", "Tensor", "global"};
    return names[static_cast<int>(kind())];
  }

  /// A dict of `sd`'s entries, in order (what `torch.save` writes for
  /// `model.state_dict()`).
  static PickleValue state_dict(const nn::StateDict& sd) {
    PickleValue out = dict();
    for (const auto& [name, t] : sd) out.set_item(string(name), tensor(t));
    return out;
  }
  /// Sets str key `key` of a dict.
  void set(std::string key, PickleValue value) { set_item(string(std::move(key)), std::move(value)); }

  /// Appends to a list (the unpickler's APPEND).
  void append(PickleValue v) { expect(Kind::List, "list").items.push_back(std::move(v)); }
  /// Sets a dict key, keeping its place when present (the unpickler's
  /// SETITEM); keys compare as Python's would for str, bytes, int and bool
  /// (hashed, so a dict of n keys takes O(n) to build), other keys by
  /// identity.
  void set_item(PickleValue key, PickleValue value) {
    Data& d = expect(Kind::Dict, "dict");
    const std::string hashed = key_hash(key);
    if (const auto it = d.index.find(hashed); it != d.index.end()) {
      d.pairs[it->second].second = std::move(value);
      return;
    }
    d.pairs.emplace_back(std::move(key), std::move(value));
    d.index.emplace(hashed, d.pairs.size() - 1);
  }
  /// Empties a tuple, list or dict (the unpickler's teardown of cycles).
  void clear() noexcept {
    if (!data_) return;
    data_->items.clear();
    data_->pairs.clear();
    data_->index.clear();
  }
  /// True when both handles refer to one object.
  bool is(const PickleValue& other) const noexcept { return data_ == other.data_; }
  /// The object's identity (Python's `id`).
  const void* id() const noexcept { return data_.get(); }

 private:
  struct Data {
    Kind kind = Kind::None;
    int64_t integer = 0;
    double floating = 0;
    std::string string;
    std::vector<PickleValue> items;
    std::vector<std::pair<PickleValue, PickleValue>> pairs;
    std::unordered_map<std::string, std::size_t> index;  // key_hash -> position in pairs
    AnyTensor tensor;

    Data() = default;
    Data(const Data&) = delete;
    Data& operator=(const Data&) = delete;
    // Iterative: the containers this one alone holds are emptied one by
    // one, so releasing a million nested lists does not recurse a million
    // deep.
    ~Data() {
      std::vector<std::shared_ptr<Data>> pending;
      take_children(*this, pending);
      while (!pending.empty()) {
        std::shared_ptr<Data> d = std::move(pending.back());
        pending.pop_back();
        if (d.use_count() == 1) take_children(*d, pending);
      }
    }
    static void take_children(Data& d, std::vector<std::shared_ptr<Data>>& out) {
      for (PickleValue& v : d.items)
        if (v.data_) out.push_back(std::move(v.data_));
      for (auto& [k, v] : d.pairs) {
        if (k.data_) out.push_back(std::move(k.data_));
        if (v.data_) out.push_back(std::move(v.data_));
      }
      d.items.clear();
      d.pairs.clear();
    }
  };

  template <class F>
  static PickleValue make(Kind kind, F&& fill) {
    PickleValue v;
    v.data_->kind = kind;
    fill(*v.data_);
    return v;
  }
  Data& expect(Kind k, const char* name) const {
    tensorlib::detail::check<TypeError>(kind() == k, "PickleValue: expected a ", name, ", got ", kind_name());
    return *data_;
  }
  /// Equal for keys Python finds equal: int and bool by value (True == 1),
  /// str and bytes by content, None as None; others by identity.
  static std::string key_hash(const PickleValue& k) {
    switch (k.kind()) {
      case Kind::Bool:
      case Kind::Int:
        return "i" + std::to_string(k.data_->integer);
      case Kind::String:
        return "s" + k.data_->string;
      case Kind::Bytes:
        return "b" + k.data_->string;
      case Kind::None:
        return "n";
      case Kind::Float: {
        const double x = k.data_->floating;
        if (x > -9.2e18 && x < 9.2e18 && x == static_cast<double>(static_cast<int64_t>(x)))  // range first: no UB
          return "i" + std::to_string(static_cast<int64_t>(x));                              // 1.0 is the key 1
        return "f" + std::to_string(std::bit_cast<uint64_t>(x));
      }
      default: {
        char id[2 + sizeof(void*)] = "o";
        const void* p = k.id();
        std::memcpy(id + 1, &p, sizeof p);
        return std::string(id, sizeof id);
      }
    }
  }

  std::shared_ptr<Data> data_;
};

}  // namespace tensorlib::io
