#pragma once
/// \file
/// `nn::Module<Derived, T>`: torch.nn.Module for modules written as plain C++
/// classes. A module lists its members once (Note [module members]) and gets
/// PyTorch's traversal from that list: `parameters()`, `named_parameters()`,
/// `buffers()`, `state_dict()` / `load_state_dict()` with PyTorch's keys,
/// `train()` / `eval()`, `zero_grad()`, `to(device)`, `apply()`, and
/// `operator()` calling the module's `forward`.
///
///     struct Net : tl::nn::Module<Net> {
///       tl::nn::Linear<> fc1{784, 128}, fc2{128, 10};
///       TENSORLIB_MODULES(fc1, fc2)
///       tl::Tensor<float> forward(const tl::Tensor<float>& x) { return fc2(tl::relu(fc1(x))); }
///     };
///
/// Note [module members]
/// C++20 cannot list a class's members, and PyTorch's alternative, strings
/// passed to `register_parameter("weight", weight)`, writes every name twice.
/// Here a module names each member once, by kind, with a macro
/// (core/config.hpp): `TENSORLIB_PARAMETERS(weight, bias)` defines
/// `tensorlib_parameters()`, returning the text "weight, bias" and a tuple
/// of references to the members; the names of the state dict are cut from
/// that text. `TENSORLIB_BUFFERS` and `TENSORLIB_MODULES` do the same for
/// buffers and submodules. Containers (nn/modules/container.hpp) define
/// `tensorlib_modules()` themselves, naming their entries "0", "1", ....
/// The traversal is a template over these lists, so the order of a state
/// dict is PyTorch's: a module's parameters, then its buffers, then each
/// submodule's, depth first. Aggregate-reflection tricks (counting fields
/// by brace initialization, reading names from `__PRETTY_FUNCTION__`) were
/// not taken: they forbid constructors and base classes and depend on each
/// compiler's spelling of names.
///
/// Parameters are `Tensor<T>` members that require grad; an undefined one
/// (`bias=False`) is skipped, as PyTorch skips a `None` parameter. All
/// parameters of a module tree have the root's element type T (checked at
/// compile time); buffers may have any element type. Copying a module copies
/// tensor handles, so the copy shares its parameters; `clone()` is the deep
/// copy.

#include <concepts>
#include <cstddef>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "tensorlib/autograd/tensor_methods.hpp"
#include "tensorlib/core/any_tensor.hpp"
#include "tensorlib/core/error.hpp"
#include "tensorlib/core/grad_mode.hpp"
#include "tensorlib/core/tensor.hpp"
#include "tensorlib/nn/module_detail.hpp"
#include "tensorlib/nn/state_dict.hpp"
#include "tensorlib/ops/copy.hpp"
#include "tensorlib/ops/inplace.hpp"

namespace tensorlib::nn {

/// What `load_state_dict` reports when it is not strict (PyTorch's
/// `_IncompatibleKeys`).
struct IncompatibleKeys {
  std::vector<std::string> missing_keys;
  std::vector<std::string> unexpected_keys;
};

/// A module of parameters of element type T (`void`: a module with no
/// parameters of its own, such as an activation). Derived lists its members
/// with the TENSORLIB_PARAMETERS / _BUFFERS / _MODULES macros and defines
/// `forward`.
template <class Derived, class T = float>
class Module : public ModuleBase {
 public:
  /// The element type of the parameters (float for a module without any).
  using parameter_type = T;
  using value_type = std::conditional_t<std::is_void_v<T>, float, T>;

  /// `module(args...)` is `module.forward(args...)` (PyTorch's __call__).
  template <class... Args>
  decltype(auto) operator()(Args&&... args) {
    return self().forward(std::forward<Args>(args)...);
  }
  /// The same on a const module, whose forward must then be const.
  template <class... Args>
  decltype(auto) operator()(Args&&... args) const {
    return self().forward(std::forward<Args>(args)...);
  }

  /// Parameters with their dotted names, each once (a parameter shared by
  /// two submodules keeps its first name), as `named_parameters()`.
  std::vector<std::pair<std::string, Tensor<value_type>>> named_parameters(bool recurse = true) const {
    std::vector<std::pair<std::string, Tensor<value_type>>> out;
    std::unordered_set<const TensorImpl*> seen;
    detail::visit_module(self(), std::string(), recurse,
                         detail::Visitor{[&](const std::string& name, const auto& p) {
                                           check_parameter_type(p);
                                           if (seen.insert(p.impl().get()).second) out.emplace_back(name, p);
                                         },
                                         detail::ignore, detail::ignore});
    return out;
  }
  /// The parameters, each once, as `parameters()`: what an optimizer takes.
  std::vector<Tensor<value_type>> parameters(bool recurse = true) const {
    std::vector<Tensor<value_type>> out;
    for (auto& [name, p] : named_parameters(recurse)) out.push_back(p);
    return out;
  }
  /// Buffers with their dotted names, each once.
  std::vector<std::pair<std::string, AnyTensor>> named_buffers(bool recurse = true) const {
    std::vector<std::pair<std::string, AnyTensor>> out;
    std::unordered_set<const TensorImpl*> seen;
    detail::visit_module(self(), std::string(), recurse,
                         detail::Visitor{detail::ignore,
                                         [&](const std::string& name, const auto& b) {
                                           if (seen.insert(b.impl().get()).second) out.emplace_back(name, b);
                                         },
                                         detail::ignore});
    return out;
  }
  std::vector<AnyTensor> buffers(bool recurse = true) const {
    std::vector<AnyTensor> out;
    for (auto& [name, b] : named_buffers(recurse)) out.push_back(b);
    return out;
  }
  /// The dotted names of every submodule, depth first, as the keys of
  /// `named_modules()` (the module itself is "").
  std::vector<std::string> module_names() const {
    std::vector<std::string> out{""};
    detail::visit_module(self(), std::string(), true,
                         detail::Visitor{detail::ignore, detail::ignore,
                                         [&](const std::string& name, const auto&) { out.push_back(name); }});
    return out;
  }
  /// Calls f(name, module) on this module ("") and every submodule, depth
  /// first, with each module as its own type.
  template <class F>
  void for_each_module(F&& f) {
    f(std::string(), self());
    detail::visit_module(
        self(), std::string(), true,
        detail::Visitor{detail::ignore, detail::ignore, [&f](const std::string& name, auto& m) { f(name, m); }});
  }
  /// Calls f(module) on every submodule and then on this one (`apply`, used
  /// to initialize weights).
  template <class F>
  Derived& apply(F&& f) {
    detail::visit_children_first(self(), f);
    return self();
  }

  /// A deep copy (`copy.deepcopy(module)`): the same structure and values in
  /// tensors of its own, gradients included. A plain C++ copy shares them.
  /// Tensors shared within the module (tied weights) stay shared in the copy.
  Derived clone() const {
    Derived copy = self();
    std::unordered_map<const TensorImpl*, AnyTensor> copies;
    const auto deep = [&](const std::string&, auto& t) {
      using U = typename std::remove_cvref_t<decltype(t)>::value_type;
      const auto [it, fresh] = copies.try_emplace(t.impl().get());
      if (fresh) it->second = detail::deep_copy(t);
      t = it->second.template as<U>();
    };
    detail::visit_module(copy, std::string(), true, detail::Visitor{deep, deep, detail::ignore});
    return copy;
  }

  /// Sets training mode on this module and every submodule (`train`); it
  /// changes what Dropout and BatchNorm do.
  Derived& train(bool mode = true) {
    training = mode;
    detail::visit_module(
        self(), std::string(), true,
        detail::Visitor{detail::ignore, detail::ignore, [&](const std::string&, ModuleBase& m) { m.training = mode; }});
    return self();
  }
  /// `train(false)`.
  Derived& eval() { return train(false); }

  /// Sets `requires_grad` of every parameter (`requires_grad_`).
  Derived& requires_grad_(bool requires_grad = true) {
    for (auto& p : parameters()) p.requires_grad_(requires_grad);
    return self();
  }
  /// Clears the parameters' gradients: to undefined, or to zeros in place.
  void zero_grad(bool set_to_none = true) {
    for (auto& p : parameters()) {
      if (set_to_none) {
        p.set_grad({});
      } else if (Tensor<value_type> g = p.grad(); g.defined()) {
        NoGradGuard no_grad;
        g.detach_();
        g.zero_();
      }
    }
  }

  /// Moves every parameter, gradient and buffer to `device` in place: the
  /// tensors keep their identity, so an optimizer made before still holds
  /// them (PyTorch's `module.to(device)`).
  Derived& to(Device device) {
    detail::visit_module(
        self(), std::string(), true,
        detail::Visitor{[&](const std::string&, auto& p) { detail::move_to(p, device); },
                        [&](const std::string&, auto& b) { detail::move_to(b, device); }, detail::ignore});
    return self();
  }

  /// Parameters and buffers by dotted name, in PyTorch's order. The values
  /// are detached handles of the module's own tensors (no copies), as in
  /// PyTorch; `io` saves them.
  StateDict state_dict() const {
    StateDict out;
    detail::visit_module(
        self(), std::string(), true,
        detail::Visitor{[&](const std::string& name, const auto& p) {
                          check_parameter_type(p);
                          out.insert(name, p.detach());
                        },
                        [&](const std::string& name, const auto& b) { out.insert(name, b.detach()); }, detail::ignore});
    return out;
  }
  /// Copies the values of `state` into the module's parameters and buffers
  /// (converting element type and device). Strict: every key must match,
  /// else an `Error` listing the missing and unexpected keys in PyTorch's
  /// words; not strict: the keys are returned. A shape mismatch is an error
  /// either way, and nothing is copied when there is one.
  IncompatibleKeys load_state_dict(const StateDict& state, bool strict = true) {
    IncompatibleKeys keys;
    std::vector<std::string> errors;
    std::unordered_set<std::string> own;
    const auto check = [&](const std::string& name, const auto& dst) {
      own.insert(name);
      if (!state.contains(name)) {
        // A batch norm's step count may be absent (state dicts without
        // PyTorch's version metadata, such as safetensors files): kept, as
        // PyTorch keeps it.
        if (detail::is_num_batches_tracked(name)) return;
        keys.missing_keys.push_back(name);
      } else if (const AnyTensor& src = state.at(name); src.sizes() != dst.sizes()) {
        errors.push_back(detail::size_mismatch(name, src.sizes(), dst.sizes()));
      }
    };
    detail::visit_module(self(), std::string(), true, detail::Visitor{check, check, detail::ignore});
    for (const auto& [name, value] : state) {
      if (!own.count(name)) keys.unexpected_keys.push_back(name);
    }
    if (strict) {
      if (!keys.unexpected_keys.empty()) {
        errors.insert(errors.begin(),
                      "Unexpected key(s) in state_dict: " + detail::quoted(keys.unexpected_keys) + ". ");
      }
      if (!keys.missing_keys.empty()) {
        errors.insert(errors.begin(), "Missing key(s) in state_dict: " + detail::quoted(keys.missing_keys) + ". ");
      }
    }
    if (!errors.empty()) {
      std::string message = "Error(s) in loading state_dict for " + detail::module_name<Derived>() + ":";
      for (const auto& e : errors) message += "\n\t" + e;
      throw Error(message);
    }
    const auto copy = [&](const std::string& name, auto& dst) {
      if (state.contains(name)) detail::copy_from(dst, state.at(name));
    };
    detail::visit_module(self(), std::string(), true, detail::Visitor{copy, copy, detail::ignore});
    return keys;
  }

 protected:
  Derived& self() { return static_cast<Derived&>(*this); }
  const Derived& self() const { return static_cast<const Derived&>(*this); }

 private:
  template <class U>
  static void check_parameter_type(const Tensor<U>&) {
    static_assert(std::is_same_v<U, value_type>,
                  "nn::Module: every parameter of a module tree must have the root module's element type "
                  "(Module<Derived, T>'s T)");
  }
};

/// Prints the module as PyTorch's repr: `Linear(in_features=4, ...)`, or its
/// name and its submodules, one per line, indented.
template <ModuleType M>
std::ostream& operator<<(std::ostream& os, const M& module) {
  return os << detail::repr(module);
}

}  // namespace tensorlib::nn
