#pragma once
/// \file
/// `Pickler`: writes a `PickleValue` as a protocol-2 pickle, the object
/// stream of the `torch.save` files `io::pt::save` writes. Containers are
/// written as Python builds them (EMPTY_DICT, MARK, items, SETITEMS; no
/// memo, so a shared container is written once per reference); tensors are
/// handed to the caller's hook, which writes them with the public emitters
/// below.

#include <bit>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <utility>

#include "tensorlib/core/error.hpp"
#include "tensorlib/io/pickle_value.hpp"

namespace tensorlib::io {

class Pickler {
 public:
  using TensorHook = std::function<void(Pickler&, const AnyTensor&)>;

  explicit Pickler(TensorHook tensor) : tensor_(std::move(tensor)) { out_ += "\x80\x02"; }

  /// Writes `v` (containers nested at most 1000 deep).
  void value(const PickleValue& v, int depth = 0) {
    tensorlib::detail::check<ValueError>(depth <= 1000, "pickle: objects nested more than 1000 deep");
    using K = PickleValue::Kind;
    switch (v.kind()) {
      case K::None:
        op('N');
        return;
      case K::Bool:
        op(v.to_bool() ? '\x88' : '\x89');
        return;
      case K::Int:
        integer(v.to_int());
        return;
      case K::Float: {
        op('G');
        const auto u = std::bit_cast<uint64_t>(v.to_double());
        for (int i = 7; i >= 0; --i) out_ += static_cast<char>((u >> (8 * i)) & 0xFF);
        return;
      }
      case K::String:
        string(v.to_string());
        return;
      case K::Tuple:
        mark();
        for (const PickleValue& item : v.items()) value(item, depth + 1);
        op('t');
        return;
      case K::List:
        op(']');
        if (v.items().empty()) return;
        mark();
        for (const PickleValue& item : v.items()) value(item, depth + 1);
        op('e');
        return;
      case K::Dict:
        op('}');
        if (v.dict_items().empty()) return;
        mark();
        for (const auto& [key, item] : v.dict_items()) {
          value(key, depth + 1);
          value(item, depth + 1);
        }
        op('u');
        return;
      case K::Tensor:
        tensor_(*this, v.to_tensor());
        return;
      case K::Global: {
        const std::string& name = v.global_name();
        const auto dot = name.rfind('.');
        tensorlib::detail::check<ValueError>(dot != std::string::npos, "pickle: global '", name, "' has no module");
        global(name.substr(0, dot), name.substr(dot + 1));
        return;
      }
    }
  }

  /// The pickle, ended by STOP.
  std::string finish() {
    op('.');
    return std::move(out_);
  }

  // Emitters, for the tensor hook.
  void op(char c) { out_ += c; }
  void mark() { op('('); }
  void integer(int64_t i) {
    if (i >= INT32_MIN && i <= INT32_MAX) {
      op('J');
      append_le(static_cast<uint64_t>(static_cast<uint32_t>(static_cast<int32_t>(i))), 4);
    } else {
      op('\x8a');  // LONG1, 8 bytes of two's complement
      out_ += '\x08';
      append_le(static_cast<uint64_t>(i), 8);
    }
  }
  void string(std::string_view s) {
    tensorlib::detail::check<ValueError>(s.size() <= UINT32_MAX, "pickle: a string of 4 GiB or more");
    op('X');
    append_le(s.size(), 4);
    out_ += s;
  }
  void global(std::string_view module, std::string_view name) {
    op('c');
    out_.append(module).append("\n").append(name).append("\n");
  }

 private:
  void append_le(uint64_t v, int bytes) {
    for (int i = 0; i < bytes; ++i) out_ += static_cast<char>((v >> (8 * i)) & 0xFF);
  }

  std::string out_;
  TensorHook tensor_;
};

}  // namespace tensorlib::io
