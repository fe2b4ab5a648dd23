#pragma once
/// \file
/// `PickleValue`: a Python object read from a `torch.save` file (io/pt.hpp):
/// None, bool, int, float, str (bytes too), tuple, list, dict, tensor, or a
/// global (a class or function named by module and name, such as
/// `torch.float32`). Like a Python
/// reference, a copy shares the object: the pickle's shared references
/// (one dict reached twice) stay shared.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tensorlib/core/any_tensor.hpp"
#include "tensorlib/core/error.hpp"
#include "tensorlib/nn/state_dict.hpp"

namespace tensorlib::io {

class PickleValue {
 public:
  enum class Kind { None, Bool, Int, Float, String, Tuple, List, Dict, Tensor, Global };

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

  Kind kind() const noexcept { return data_->kind; }
  bool is_none() const noexcept { return kind() == Kind::None; }

  bool to_bool() const { return expect(Kind::Bool, "bool").integer != 0; }
  int64_t to_int() const { return expect(Kind::Int, "int").integer; }
  /// A float, or an int as a float (as Python accepts either).
  double to_double() const {
    if (kind() == Kind::Int) return static_cast<double>(data_->integer);
    return expect(Kind::Float, "float").floating;
  }
  const std::string& to_string() const { return expect(Kind::String, "str").string; }
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
    constexpr std::string_view names[] = {"NoneType", "bool", "int",  "float",  "str",
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
  /// SETITEM); keys compare as Python's would for str, int and bool.
  void set_item(PickleValue key, PickleValue value) {
    auto& pairs = expect(Kind::Dict, "dict").pairs;
    for (auto& [k, v] : pairs) {
      if (same_key(k, key)) {
        v = std::move(value);
        return;
      }
    }
    pairs.emplace_back(std::move(key), std::move(value));
  }
  /// Empties a tuple, list or dict (the unpickler's iterative teardown).
  void clear() noexcept {
    data_->items.clear();
    data_->pairs.clear();
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
    AnyTensor tensor;
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
  static bool same_key(const PickleValue& a, const PickleValue& b) {
    const bool a_int = a.kind() == Kind::Int || a.kind() == Kind::Bool;
    const bool b_int = b.kind() == Kind::Int || b.kind() == Kind::Bool;
    if (a_int && b_int) return a.data_->integer == b.data_->integer;
    if (a.kind() == Kind::String && b.kind() == Kind::String) return a.data_->string == b.data_->string;
    return a.is(b);
  }

  std::shared_ptr<Data> data_;
};

}  // namespace tensorlib::io
