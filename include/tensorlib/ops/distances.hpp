#pragma once
/// \file
/// Similarities and distances between vectors, PyTorch's torch-level forms
/// of the `nn.functional` ones: `cosine_similarity`, `pairwise_distance` and
/// `pdist` (every pair of rows; `cdist` and `dist` are in ops/norms.hpp).
/// Compositions of fused expressions, vector norms and index_select, so they
/// differentiate and run on any device. Floating-point inputs only.
///
/// Shapes: N rows of M features.

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "tensorlib/core/error.hpp"
#include "tensorlib/core/shape.hpp"
#include "tensorlib/core/tensor.hpp"
#include "tensorlib/expr/broadcast.hpp"
#include "tensorlib/expr/functions.hpp"
#include "tensorlib/expr/operators.hpp"
#include "tensorlib/ops/evaluate.hpp"
#include "tensorlib/ops/factories.hpp"
#include "tensorlib/ops/index_ops.hpp"
#include "tensorlib/ops/norms.hpp"
#include "tensorlib/ops/reduce.hpp"
#include "tensorlib/ops/triangular.hpp"

namespace tensorlib {

/// The cosine of the angle between x1 and x2 along `dim`, after broadcasting
/// them (`torch.cosine_similarity`): sum((x1 / |x1|) * (x2 / |x2|)), each
/// squared norm raised to eps^2 when smaller. As PyTorch 1.13's, the raise is
/// not recorded: the gradient is x / max(|x|, eps) where the chain meets the
/// norm.
template <Expression A, Expression B, class T = value_type_t<A>>
Tensor<T> cosine_similarity(const A& x1_expr, const B& x2_expr, int64_t dim = 1, double eps = 1e-8) {
  static_assert(std::is_same_v<T, value_type_t<B>>,
                "cosine_similarity: x1 and x2 must have the same element type; convert one with .to<T>()");
  static_assert(std::is_floating_point_v<T>, "cosine_similarity: expected floating-point inputs");
  const Tensor<T> a = x1_expr, b = x2_expr;
  const Shape shape = broadcast_shapes(a.sizes(), b.sizes(), "cosine_similarity");
  const Tensor<T> x1 = a.expand(shape), x2 = b.expand(shape);
  const int64_t d = wrap_dim(dim, std::max<int64_t>(x1.dim(), 1), "cosine_similarity");
  auto norm_of = [d, eps](const Tensor<T>& x) {
    const Tensor<T> squares = (x * x).sum(d, true);
    const Tensor<T> raise = clamp_min(squares, eps * eps) - squares;
    return Tensor<T>(sqrt(squares + raise.detach()));  // the value raised, the gradient not
  };
  return ((x1 / norm_of(x1)) * (x2 / norm_of(x2))).sum(d);
}

/// The p-norm of x1 - x2 + eps along the last dimension of the broadcast
/// operands (`torch.pairwise_distance`).
template <Expression A, Expression B, class T = value_type_t<A>>
Tensor<T> pairwise_distance(const A& x1_expr, const B& x2_expr, double p = 2, double eps = 1e-6, bool keepdim = false) {
  static_assert(std::is_same_v<T, value_type_t<B>>,
                "pairwise_distance: x1 and x2 must have the same element type; convert one with .to<T>()");
  static_assert(std::is_floating_point_v<T>, "pairwise_distance: expected floating-point inputs");
  const Tensor<T> a = x1_expr, b = x2_expr;
  const Tensor<T> difference = a - b + eps;
  return linalg::vector_norm(difference, p, {std::max<int64_t>(difference.dim(), 1) - 1}, keepdim);
}

/// The p-norm distance of every pair of rows i < j of a (N, M) input, in
/// row-major pair order: (N (N - 1) / 2) (`torch.pdist`).
template <Expression E, class T = value_type_t<E>>
Tensor<T> pdist(const E& input_expr, double p = 2) {
  static_assert(std::is_floating_point_v<T>, "pdist: expected floating-point input");
  const Tensor<T> x = input_expr;
  detail::check<ShapeError>(x.dim() == 2, "pdist: only supports 2D tensors, got: ", x.dim(), "D");
  detail::check<ValueError>(p >= 0, "pdist: only supports non-negative p values, got ", p);
  const int64_t n = x.size(0);
  if (n < 2) return empty<T>({0}, {.device = x.device()});
  if (x.size(1) == 0) return zeros<T>({n * (n - 1) / 2}, {.device = x.device()});  // every norm of nothing
  // The pairs' rows, gathered; the diagonal's zero distances are never formed.
  const Tensor<int64_t> pairs = triu_indices(n, n, 1, {.device = x.device()});
  const Tensor<T> difference = x.index_select(0, pairs.select(0, 0)) - x.index_select(0, pairs.select(0, 1));
  return linalg::vector_norm(difference, p, {1});
}

}  // namespace tensorlib
