#pragma once
/// \file
/// Containers: `Sequential<Modules...>`, modules run in order with the types
/// fixed at compile time (so the chain of forwards is one inlined call
/// sequence), and `ModuleList<M>`, a list of modules of one type. Both name
/// their entries "0", "1", ... in state dicts, as PyTorch does.

#include <cstddef>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "tensorlib/core/error.hpp"
#include "tensorlib/nn/module.hpp"

namespace tensorlib::nn {

namespace detail {

/// The parameter type of the first module that has parameters (float when
/// none has): a container's element type.
template <class... Ms>
struct FirstParameterType {
  using type = float;
};
template <class M, class... Ms>
struct FirstParameterType<M, Ms...> {
  using type = std::conditional_t<std::is_void_v<typename M::parameter_type>, typename FirstParameterType<Ms...>::type,
                                  typename M::parameter_type>;
};

/// Entries of a tuple named by their positions.
template <class Tuple>
struct IndexedFields {
  Tuple& entries;
  template <class F>
  void for_each(F&& f) const {
    std::size_t i = 0;
    std::apply([&](auto&... m) { ((f(std::to_string(i++), m)), ...); }, entries);
  }
};

/// Entries of a vector named by their positions.
template <class Vector>
struct ListFields {
  Vector& entries;
  template <class F>
  void for_each(F&& f) const {
    for (std::size_t i = 0; i < entries.size(); ++i) f(std::to_string(i), entries[i]);
  }
};

/// Note [compile-time model shapes]
/// Layers whose sizes are template arguments (`StaticLinear<In, Out>`)
/// declare `static_in_features` / `static_out_features`; layers that keep
/// the feature count (activations, dropouts, Identity) declare
/// `preserves_features`. `Sequential` walks its modules at compile time with
/// the feature count known so far, and a layer whose static in_features
/// differs from it stops the build in `LayerSizesAgree<layer, features
/// before, in_features>`, whose arguments the compiler prints (a C++20
/// static_assert message cannot hold numbers). A layer of run-time sizes
/// makes the count unknown, so it is checked at run time by its forward.
template <std::size_t Layer, int64_t FeaturesBefore, int64_t InFeatures>
struct LayerSizesAgree {
  static_assert(FeaturesBefore == InFeatures,
                "nn::Sequential: a layer's in_features differs from the features of the layer before it "
                "(LayerSizesAgree<layer index, features before, in_features>)");
  static constexpr bool value = true;
};

/// The feature count after module M, given the count before (-1: unknown).
template <class M>
constexpr int64_t features_after(int64_t before) {
  if constexpr (requires { M::static_out_features; }) {
    return M::static_out_features;
  } else if constexpr (requires { requires M::preserves_features; }) {
    return before;
  } else {
    return -1;
  }
}

template <std::size_t I, int64_t Features, class... Ms>
struct SizesAgree : std::true_type {};
template <std::size_t I, int64_t Features, class M, class... Ms>
struct SizesAgree<I, Features, M, Ms...> {
  static constexpr bool here() {
    if constexpr (Features >= 0 && requires { M::static_in_features; }) {
      return LayerSizesAgree<I, Features, M::static_in_features>::value;
    } else {
      return true;
    }
  }
  static constexpr bool value = here() && SizesAgree<I + 1, features_after<M>(Features), Ms...>::value;
};

}  // namespace detail

/// `nn.Sequential(m0, m1, ...)`: forward runs each module on the result of
/// the one before. The module types are template arguments (deduced:
/// `nn::Sequential seq{nn::Linear(4, 8), nn::ReLU(), nn::Linear(8, 2)}`).
template <ModuleType... Ms>
class Sequential : public Module<Sequential<Ms...>, typename detail::FirstParameterType<Ms...>::type> {
 public:
  static_assert(sizeof...(Ms) > 0, "nn::Sequential: needs at least one module");
  // Note [compile-time model shapes]
  static_assert(detail::SizesAgree<0, -1, Ms...>::value);

  explicit Sequential(Ms... modules) : modules_(std::move(modules)...) {}

  /// The i-th module, as its own type (`seq[0]` in PyTorch).
  template <std::size_t I>
  auto& get() {
    return std::get<I>(modules_);
  }
  template <std::size_t I>
  const auto& get() const {
    return std::get<I>(modules_);
  }
  static constexpr std::size_t size() noexcept { return sizeof...(Ms); }

  template <class Input>
  decltype(auto) forward(Input&& input) {
    return std::apply([&](auto&... m) { return chain(std::forward<Input>(input), m...); }, modules_);
  }
  template <class Input>
  decltype(auto) forward(Input&& input) const {
    return std::apply([&](const auto&... m) { return chain(std::forward<Input>(input), m...); }, modules_);
  }

  auto tensorlib_modules() { return detail::IndexedFields<std::tuple<Ms...>>{modules_}; }
  auto tensorlib_modules() const { return detail::IndexedFields<const std::tuple<Ms...>>{modules_}; }

 private:
  template <class X, class M, class... Rest>
  static decltype(auto) chain(X&& x, M& m, Rest&... rest) {
    if constexpr (sizeof...(Rest) == 0) {
      return m(std::forward<X>(x));
    } else {
      return chain(m(std::forward<X>(x)), rest...);
    }
  }

  std::tuple<Ms...> modules_;
};

/// `nn.ModuleList`: modules of one type M, indexed and iterated; it has no
/// forward of its own.
template <ModuleType M>
class ModuleList : public Module<ModuleList<M>, typename detail::FirstParameterType<M>::type> {
 public:
  ModuleList() = default;
  ModuleList(std::initializer_list<M> modules) : modules_(modules) {}
  explicit ModuleList(std::vector<M> modules) : modules_(std::move(modules)) {}

  /// Appends a module (`append`).
  ModuleList& append(M module) {
    modules_.push_back(std::move(module));
    return *this;
  }
  /// The i-th module; negative i counts from the end. An `IndexError` past
  /// either end.
  M& operator[](int64_t i) { return modules_[position(i)]; }
  const M& operator[](int64_t i) const { return modules_[position(i)]; }
  std::size_t size() const noexcept { return modules_.size(); }
  bool empty() const noexcept { return modules_.empty(); }
  auto begin() noexcept { return modules_.begin(); }
  auto end() noexcept { return modules_.end(); }
  auto begin() const noexcept { return modules_.begin(); }
  auto end() const noexcept { return modules_.end(); }

  auto tensorlib_modules() { return detail::ListFields<std::vector<M>>{modules_}; }
  auto tensorlib_modules() const { return detail::ListFields<const std::vector<M>>{modules_}; }

 private:
  std::size_t position(int64_t i) const {
    const auto n = static_cast<int64_t>(modules_.size());
    tensorlib::detail::check<IndexError>(i >= -n && i < n, "ModuleList: index ", i, " is out of range");
    return static_cast<std::size_t>(i < 0 ? i + n : i);
  }

  std::vector<M> modules_;
};

}  // namespace tensorlib::nn
