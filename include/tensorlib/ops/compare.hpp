#pragma once
/// \file
/// Whole-tensor comparisons: `allclose` and `equal`.

#include <type_traits>

#include "tensorlib/core/expression.hpp"
#include "tensorlib/core/tensor.hpp"
#include "tensorlib/expr/functions.hpp"
#include "tensorlib/ops/evaluate.hpp"

namespace tensorlib {

/// True when every pair (broadcast) satisfies isclose(a, b, rtol, atol, equal_nan).
template <Expression A, Expression B>
bool allclose(const A& a, const B& b, double rtol = 1e-5, double atol = 1e-8, bool equal_nan = false) {
  static_assert(std::is_same_v<value_type_t<A>, value_type_t<B>>,
                "tl::allclose: both tensors must have the same element type (PyTorch rejects mixed dtypes too)");
  const Tensor<bool> close = isclose(a, b, rtol, atol, equal_nan);
  for (bool c : close.to_vector())
    if (!c) return false;
  return true;
}

/// True when both have the same shape and equal elements (NaN is never equal).
template <Expression A, Expression B>
bool equal(const A& a, const B& b) {
  static_assert(std::is_same_v<value_type_t<A>, value_type_t<B>>,
                "tl::equal: both tensors must have the same element type");
  if (!(a.shape() == b.shape())) return false;
  const Tensor<bool> same = a == b;
  for (bool s : same.to_vector())
    if (!s) return false;
  return true;
}

}  // namespace tensorlib
