#pragma once
/// \file
/// `Pickler`: writes a `PickleValue` as a protocol-2 pickle, the object
/// stream of the `torch.save` files `io::pt::save` writes. Containers are
/// written as Python builds them (EMPTY_DICT, BINPUT, MARK, items,
/// SETITEMS), each once: a container reached again is a BINGET of the
/// first, so shared references stay shared (and a DAG of n containers is n
/// writes, not exponentially many). Tensors are handed to the caller's
/// hook, which writes them with the public emitters below.

#include <bit>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "tensorlib/core/error.hpp"
#include "tensorlib/io/pickle_value.hpp"

namespace tensorlib::io {

class Pickler {
 public:
  using TensorHook = std::function<void(Pickler&, const AnyTensor&)>;

  explicit Pickler(TensorHook tensor) : tensor_(std::move(tensor)) {
    tensorlib::detail::check<ValueError>(static_cast<bool>(tensor_), "pickle: no tensor writer");
    out_ += "\x80\x02";
  }

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
      case K::Bytes:
        op('B');  // BINBYTES (protocol 3; Python reads it in any stream)
        append_le(checked_length(v.to_bytes()), 4);
        out_ += v.to_bytes();
        return;
      case K::Tuple:
        if (memo_get(v)) return;
        tensorlib::detail::check<ValueError>(!on_path(v), "pickle: a tuple that contains itself");
        mark();
        for (const PickleValue& item : v.items()) value(item, depth + 1);
        op('t');
        memo_put(v);
        return;
      case K::List:
        if (memo_get(v)) return;
        op(']');
        memo_put(v);
        if (v.items().empty()) return;
        mark();
        for (const PickleValue& item : v.items()) value(item, depth + 1);
        op('e');
        return;
      case K::Dict:
        if (memo_get(v)) return;
        op('}');
        memo_put(v);
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
    op('X');
    append_le(checked_length(s), 4);
    out_ += s;
  }
  /// GLOBAL module.name; both must be dotted Python identifiers, so that
  /// no name can end the line early and inject opcodes.
  void global(std::string_view module, std::string_view name) {
    for (std::string_view part : {module, name}) {
      bool ok = !part.empty();
      for (const char c : part)
        ok = ok && ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.');
      tensorlib::detail::check<ValueError>(ok, "pickle: '", module, ".", name, "' is not a global's name");
    }
    op('c');
    out_.append(module).append("\n").append(name).append("\n");
  }

 private:
  static uint64_t checked_length(std::string_view s) {
    tensorlib::detail::check<ValueError>(s.size() <= UINT32_MAX, "pickle: a string of 4 GiB or more");
    return s.size();
  }
  // The memo: containers written so far, by identity.
  bool memo_get(const PickleValue& v) {
    const auto it = memo_.find(v.id());
    if (it == memo_.end()) return false;
    op('j');  // LONG_BINGET
    append_le(it->second, 4);
    return true;
  }
  void memo_put(const PickleValue& v) {
    const auto n = static_cast<uint32_t>(memo_.size());
    memo_.emplace(v.id(), n);
    op('r');  // LONG_BINPUT
    append_le(n, 4);
  }
  // A tuple is memoized after its items, so one that reaches itself (through
  // a list) would recurse: the tuples being written are tracked.
  bool on_path(const PickleValue& v) { return !tuples_.insert(v.id()).second; }

  void append_le(uint64_t v, int bytes) {
    for (int i = 0; i < bytes; ++i) out_ += static_cast<char>((v >> (8 * i)) & 0xFF);
  }

  std::string out_;
  TensorHook tensor_;
  std::unordered_map<const void*, uint32_t> memo_;
  std::unordered_set<const void*> tuples_;
};

}  // namespace tensorlib::io
