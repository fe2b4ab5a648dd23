#pragma once
/// \file
/// Visiting the tensor leaves of an expression tree in a fixed (left to
/// right, depth first) order: executors use it to collect operands, the
/// alias check to find storage shared with a destination.

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
