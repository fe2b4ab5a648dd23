#pragma once
/// \file
/// Visiting the tensor leaves of an expression tree in a fixed (left to
/// right, depth first) order: executors use it to collect operands, the
/// alias check to find storage shared with a destination.

#include <initializer_list>
#include <string_view>
#include <type_traits>

#include "tensorlib/core/tensor.hpp"
#include "tensorlib/core/tuple.hpp"
#include "tensorlib/expr/map.hpp"

namespace tensorlib {

template <class N>
inline constexpr bool is_tensor_v = false;
template <Element T>
inline constexpr bool is_tensor_v<Tensor<T>> = true;

template <class N>
inline constexpr bool is_map_v = false;
template <class F, class... Cs>
inline constexpr bool is_map_v<Map<F, Cs...>> = true;

namespace detail {

/// F's `no_derivative_in_a` (Note [derivatives PyTorch does not implement]
/// in autograd/fused.hpp), or empty. (A function, not an `if constexpr` in a
/// lambda: nvcc's front end instantiates that branch for every F.)
template <class F>
constexpr std::string_view no_derivative_in_a() {
  if constexpr (requires { F::no_derivative_in_a; })
    return F::no_derivative_in_a;
  else
    return {};
}
/// The same for F's second operand (`no_derivative_in_b`).
template <class F>
constexpr std::string_view no_derivative_in_b() {
  if constexpr (requires { F::no_derivative_in_b; })
    return F::no_derivative_in_b;
  else
    return {};
}

/// The message name of F's refusal in operand `i` (0 or 1), or empty.
template <class F>
constexpr std::string_view no_derivative_in(int i) {
  return i == 0 ? no_derivative_in_a<F>() : i == 1 ? no_derivative_in_b<F>() : std::string_view{};
}

constexpr std::string_view first_non_empty(std::initializer_list<std::string_view> names) {
  for (const std::string_view name : names)
    if (!name.empty()) return name;
  return {};
}

/// Whether a subtree carries tangents (forward mode): its value is a dual
/// and so is a tensor leaf it reaches through duals only. (A plain operand
/// cast to a dual by promotion carries none.)
template <class N>
inline constexpr bool carries_tangents = false;
template <Element T>
inline constexpr bool carries_tangents<Tensor<T>> = is_dual_tag(scalar_type_of<T>);
template <class F, class... Cs>
inline constexpr bool carries_tangents<Map<F, Cs...>> =
    is_dual_tag(scalar_type_of<typename Map<F, Cs...>::value_type>) && (carries_tangents<Cs> || ...);

/// Forward mode: the message name of the first functor of expression type N
/// with an operand that carries tangents and in which it implements no
/// derivative, or empty.
template <class N>
inline constexpr std::string_view refused_forward_derivative{};
template <class F, class... Cs>
inline constexpr std::string_view refused_forward_derivative<Map<F, Cs...>> = [] {
  std::string_view found = first_non_empty({std::string_view{}, refused_forward_derivative<Cs>...});
  int i = 0;
  ((found = found.empty() && carries_tangents<Cs> ? no_derivative_in<F>(i) : found, ++i), ...);
  return found;
}();

}  // namespace detail

/// Calls f(leaf) for every `Tensor` leaf of the expression, in tree order.
template <class N, class F>
void for_each_tensor(const N& node, F&& f) {
  if constexpr (is_tensor_v<N>) {
    f(node);
  } else if constexpr (is_map_v<N>) {
    tensorlib::detail::apply([&](const auto&... c) { (for_each_tensor(c, f), ...); }, node.children());
  }
}

}  // namespace tensorlib
