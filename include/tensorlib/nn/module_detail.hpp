#pragma once
/// \file
/// The machinery behind `nn::Module` (nn/module.hpp): `ModuleBase`, the
/// `ModuleType` concept, the member lists the TENSORLIB_PARAMETERS /
/// _BUFFERS / _MODULES macros build (Note [module members]), the traversal
/// over them, and the pieces of `load_state_dict`, `to` and printing.

#include <cxxabi.h>
#include <charconv>
#include <cmath>
#include <concepts>
#include <cstddef>
#include <cstdlib>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <typeinfo>
#include <utility>
#include <vector>

#include "tensorlib/autograd/tensor_methods.hpp"
#include "tensorlib/core/any_tensor.hpp"
#include "tensorlib/core/device.hpp"
#include "tensorlib/core/grad_mode.hpp"
#include "tensorlib/core/named_fields.hpp"
#include "tensorlib/core/tensor.hpp"
#include "tensorlib/ops/copy.hpp"

namespace tensorlib::nn {

/// What every module has whatever its type: the training flag.
class ModuleBase {
 public:
  /// True in training mode (PyTorch's `module.training`); set by `train()`
  /// and `eval()` on the whole tree.
  bool training = true;

 protected:
  ModuleBase() = default;
  ~ModuleBase() = default;
  ModuleBase(const ModuleBase&) = default;
  ModuleBase(ModuleBase&&) = default;
  ModuleBase& operator=(const ModuleBase&) = default;
  ModuleBase& operator=(ModuleBase&&) = default;
};

/// A type derived from `nn::Module`.
template <class M>
concept ModuleType = std::derived_from<std::remove_cvref_t<M>, ModuleBase>;

namespace detail {

/// A visitor that does nothing.
inline constexpr auto ignore = [](const auto&...) {};

/// What a traversal does on parameters, buffers and submodules.
template <class P, class B, class M>
struct Visitor {
  P parameter;
  B buffer;
  M module;
  Visitor(P p, B b, M m) : parameter(std::move(p)), buffer(std::move(b)), module(std::move(m)) {}
};

template <class M>
inline constexpr bool is_optional_v = false;
template <class M>
inline constexpr bool is_optional_v<std::optional<M>> = true;

/// Calls f(module) for a submodule member, which may be a
/// `std::optional` of a module (absent: skipped, as PyTorch skips a None
/// submodule).
template <class Member, class F>
void with_module(Member& member, F&& f) {
  if constexpr (is_optional_v<std::remove_cv_t<Member>>) {
    if (member) f(*member);
  } else {
    static_assert(ModuleType<Member>, "TENSORLIB_MODULES: every member it names must be an nn::Module");
    f(member);
  }
}

/// Visits `m`'s parameters and buffers (defined ones) with their dotted
/// names under `prefix`, then, when `recurse`, each submodule (before its
/// own members), depth first: the order of PyTorch's state dicts.
template <class M, class V>
void visit_module(M& m, const std::string& prefix, bool recurse, V&& v) {
  if constexpr (requires { m.tensorlib_parameters(); }) {
    m.tensorlib_parameters().for_each([&](std::string_view name, auto& p) {
      if (p.defined()) v.parameter(prefix + std::string(name), p);
    });
  }
  if constexpr (requires { m.tensorlib_buffers(); }) {
    m.tensorlib_buffers().for_each([&](std::string_view name, auto& b) {
      if (b.defined()) v.buffer(prefix + std::string(name), b);
    });
  }
  if constexpr (requires { m.tensorlib_modules(); }) {
    if (!recurse) return;
    m.tensorlib_modules().for_each([&](std::string_view name, auto& member) {
      with_module(member, [&](auto& child) {
        const std::string path = prefix + std::string(name);
        v.module(path, child);
        visit_module(child, path + ".", true, v);
      });
    });
  }
}

/// Calls f on every submodule of `m`, children before parents, then on `m`.
template <class M, class F>
void visit_children_first(M& m, F& f) {
  if constexpr (requires { m.tensorlib_modules(); }) {
    m.tensorlib_modules().for_each([&](std::string_view, auto& member) {
      with_module(member, [&](auto& child) { visit_children_first(child, f); });
    });
  }
  f(m);
}

/// Moves a module's tensor to `device` in place: the handle's state is
/// replaced, so every handle of it (an optimizer's) sees the move.
template <class U>
void move_to(const Tensor<U>& t, Device device) {
  if (t.device() == device) return;
  Tensor<U> grad;
  if constexpr (differentiable<U>) grad = t.grad();
  {
    NoGradGuard no_grad;
    const Tensor<U> moved = t.detach().to(device);
    TensorImpl& impl = *t.impl();
    const TensorImpl& source = *moved.impl();
    impl.storage = source.storage;
    impl.sizes = source.sizes;
    impl.strides = source.strides;
    impl.offset = source.offset;
  }
  if constexpr (differentiable<U>) {
    if (grad.defined()) t.set_grad(grad.to(device));
  }
}

/// A copy of a module's tensor with storage of its own, keeping
/// `requires_grad` and copying the gradient.
template <class U>
Tensor<U> deep_copy(const Tensor<U>& t) {
  NoGradGuard no_grad;
  Tensor<U> copy = t.detach().clone();
  if constexpr (differentiable<U>) {
    if (t.requires_grad()) copy.requires_grad_();
    if (const Tensor<U> g = t.grad(); g.defined()) copy.set_grad(g.detach().clone());
  }
  return copy;
}

/// True for the key of a batch norm's `num_batches_tracked` buffer.
inline bool is_num_batches_tracked(std::string_view key) {
  constexpr std::string_view leaf = "num_batches_tracked";
  return key == leaf || (key.size() > leaf.size() && key.substr(key.size() - leaf.size()) == leaf &&
                         key[key.size() - leaf.size() - 1] == '.');
}

/// Copies `src` into `dst` without recording, converting element type and
/// device (the shapes are already checked).
template <class U>
void copy_from(const Tensor<U>& dst, const AnyTensor& src) {
  NoGradGuard no_grad;
  src.visit([&](const auto& s) {
    Tensor<U> target = dst;
    target.copy_(s.template to<U>().to(dst.device()));
  });
}

inline std::string size_text(const Shape& s) {
  std::ostringstream os;
  os << "torch.Size([";
  for (int64_t i = 0; i < s.size(); ++i) os << (i ? ", " : "") << s[i];
  os << "])";
  return os.str();
}

/// `load_state_dict`'s message for a shape mismatch (PyTorch's words).
inline std::string size_mismatch(const std::string& key, const Shape& from, const Shape& to) {
  return "size mismatch for " + key + ": copying a param with shape " + size_text(from) +
         " from checkpoint, the shape in current model is " + size_text(to) + ".";
}

/// `"a", "b"`.
inline std::string quoted(const std::vector<std::string>& keys) {
  std::string out;
  for (const auto& k : keys) out += (out.empty() ? "\"" : ", \"") + k + "\"";
  return out;
}

/// The unqualified name of a type without its template arguments
/// ("tensorlib::nn::Linear<float>" -> "Linear"), PyTorch's class name.
inline std::string unqualified(std::string name) {
  if (!name.empty() && name.back() == '>') {
    int depth = 0;
    for (std::size_t i = name.size(); i-- > 0;) {
      depth += name[i] == '>' ? 1 : name[i] == '<' ? -1 : 0;
      if (depth == 0) {
        name.resize(i);
        break;
      }
    }
  }
  const std::size_t colon = name.rfind("::");
  return colon == std::string::npos ? name : name.substr(colon + 2);
}

/// A module's name in messages and printing: its `name` member when it has
/// one (layers whose class is shared, Conv2d), else its class name.
template <class M>
std::string module_name() {
  if constexpr (requires { std::string(M::name); }) {
    return std::string(M::name);
  } else {
    int status = 0;
    std::unique_ptr<char, void (*)(void*)> demangled(abi::__cxa_demangle(typeid(M).name(), nullptr, nullptr, &status),
                                                     std::free);
    return unqualified(status == 0 && demangled ? demangled.get() : typeid(M).name());
  }
}

/// "True" / "False", as Python prints them.
inline const char* python_bool(bool b) { return b ? "True" : "False"; }

/// A double as Python's repr() writes it: the shortest digits that round
/// trip, positional for exponents in [-4, 16), else d.ddde-XX.
inline std::string python_float(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  char buf[64];
  const auto end = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific).ptr;
  const std::string sci(buf, end);  // [-]d[.ddd]e[+-]XX
  const std::size_t e = sci.find('e');
  const int exponent = std::stoi(sci.substr(e + 1));
  const bool negative = sci[0] == '-';
  std::string digits;
  for (std::size_t i = negative ? 1 : 0; i < e; ++i) {
    if (sci[i] != '.') digits += sci[i];
  }
  std::string out = negative ? "-" : "";
  if (exponent >= -4 && exponent < 16) {
    if (exponent < 0) {
      out += "0." + std::string(static_cast<std::size_t>(-exponent - 1), '0') + digits;
    } else {
      const auto whole = static_cast<std::size_t>(exponent) + 1;
      if (digits.size() <= whole) {
        out += digits + std::string(whole - digits.size(), '0') + ".0";
      } else {
        out += digits.substr(0, whole) + "." + digits.substr(whole);
      }
    }
    return out;
  }
  out += digits.substr(0, 1);
  if (digits.size() > 1) out += "." + digits.substr(1);
  const int magnitude = exponent < 0 ? -exponent : exponent;
  return out + (exponent < 0 ? "e-" : "e+") + (magnitude < 10 ? "0" : "") + std::to_string(magnitude);
}

/// A Python tuple of sizes: "(5, 5)", "(5,)".
inline std::string python_tuple(const Shape& s) {
  std::string out = "(";
  for (int64_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
  return out + (s.size() == 1 ? ",)" : ")");
}
/// A size given as an int or a tuple, printed as given: one value as the
/// int ("2"), more as a tuple.
inline std::string python_int_or_tuple(const Shape& s) {
  return s.size() == 1 ? std::to_string(s[0]) : python_tuple(s);
}

/// Indents every line after the first by two spaces (PyTorch's _addindent).
inline std::string add_indent(const std::string& s) {
  std::string out;
  for (char c : s) {
    out += c;
    if (c == '\n') out += "  ";
  }
  return out;
}

/// PyTorch's `repr(module)`: the name, the module's `extra_repr()` and its
/// submodules.
template <class M>
std::string repr(const M& m) {
  std::vector<std::string> lines;
  std::size_t extra_lines = 0;
  if constexpr (requires { std::string(m.extra_repr()); }) {
    const std::string extra = m.extra_repr();
    std::size_t start = 0;
    while (!extra.empty()) {
      const std::size_t end = extra.find('\n', start);
      lines.push_back(extra.substr(start, end == std::string::npos ? std::string::npos : end - start));
      ++extra_lines;
      if (end == std::string::npos) break;
      start = end + 1;
    }
  }
  bool children = false;
  if constexpr (requires { m.tensorlib_modules(); }) {
    m.tensorlib_modules().for_each([&](std::string_view name, const auto& member) {
      with_module(member, [&](const auto& child) {
        lines.push_back("(" + std::string(name) + "): " + add_indent(repr(child)));
        children = true;
      });
    });
  }
  std::string out = module_name<M>() + "(";
  if (extra_lines == 1 && !children) {
    out += lines[0];
  } else if (!lines.empty()) {
    for (const auto& line : lines) out += "\n  " + line;
    out += "\n";
  }
  return out + ")";
}

}  // namespace detail
}  // namespace tensorlib::nn
