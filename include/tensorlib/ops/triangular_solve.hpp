#pragma once
/// \file
/// Triangular systems: `linalg::solve_triangular` (A X = B or X A = B, with
/// A upper or lower triangular and only that triangle read) and
/// `tl::cholesky_solve` (A X = B given a Cholesky factor of A). They solve
/// each matrix by substitution in double and round the result once (Note
/// [linalg working precision]). A zero on the diagonal gives inf or NaN,
/// not an error, as LAPACK's trsm does in PyTorch. Float and double only.
///
/// Shapes: (*) batch dimensions, broadcast between A and B; (n, n) A;
/// (n, k) B, or (k, n) when not `left`.

#include <cstdint>
#include <type_traits>
#include <vector>

#include "tensorlib/core/error.hpp"
#include "tensorlib/core/expression.hpp"
#include "tensorlib/core/tensor.hpp"
#include "tensorlib/expr/broadcast.hpp"
#include "tensorlib/ops/evaluate.hpp"
#include "tensorlib/ops/factories.hpp"
#include "tensorlib/ops/linalg.hpp"
#include "tensorlib/ops/linalg_batch.hpp"
#include "tensorlib/ops/views.hpp"

namespace tensorlib {
namespace autograd {

// The recording forms (autograd/solve_backward.hpp); `left` only.
template <Element T>
Tensor<T> solve_triangular(const Tensor<T>& a, const Tensor<T>& b, bool upper, bool unitriangular);
template <Element T>
Tensor<T> cholesky_solve(const Tensor<T>& b, const Tensor<T>& factor, bool upper);

}  // namespace autograd
namespace detail {

/// Solves the row-major (n, n) triangular `a` against the (n, k) right-hand
/// sides `x`, in place, reading only a's `upper` (or lower) triangle, and
/// not its diagonal when `unit`.
inline void substitute(const double* a, int64_t n, double* x, int64_t k, bool upper, bool unit) {
  for (int64_t step = 0; step < n; ++step) {
    const int64_t i = upper ? n - 1 - step : step;
    const int64_t j0 = upper ? i + 1 : 0, j1 = upper ? n : i;
    for (int64_t c = 0; c < k; ++c) {
      double s = x[i * k + c];
      for (int64_t j = j0; j < j1; ++j) s -= a[i * n + j] * x[j * k + c];
      x[i * k + c] = unit ? s : s / a[i * n + i];
    }
  }
}

}  // namespace detail
namespace linalg {

/// The solution X of A X = B (X A = B when not `left`) for triangular A
/// (`torch.linalg.solve_triangular`): `upper` says which triangle of A is
/// read; `unitriangular` takes its diagonal as ones without reading it. B is
/// at least 2-D (no vector case, as in PyTorch); batch dimensions broadcast.
template <Expression EA, Expression EB, class T = value_type_t<EA>>
Tensor<T> solve_triangular(const EA& A_expr, const EB& B_expr, bool upper, bool left = true,
                           bool unitriangular = false) {
  static_assert(std::is_same_v<T, value_type_t<EB>>,
                "linalg.solve_triangular: A and B must have the same element type; convert one with .to<T>()");
  static_assert(detail::linalg_float<T>,
                "linalg.solve_triangular: expected a float or double tensor; convert it with .to<float>()");
  const char* op = "linalg.solve_triangular";
  const Tensor<T> A = detail::materialize(A_expr);
  const Tensor<T> B = detail::materialize(B_expr);
  detail::check_same_device(op, A, B);
  if (!A.is_cpu())  // Note [decompositions of CUDA tensors]
    return linalg::solve_triangular(A.cpu(), B.cpu(), upper, left, unitriangular).to(A.device());
  detail::check_square(A, op);
  detail::check<ShapeError>(B.dim() >= 2, op, ": The input tensor B must have at least 2 dimensions.");
  const int64_t n = A.size(-1);
  detail::check_equation_shapes(B, n, left, op);
  // X A = B is A^T X^T = B^T, and A^T has the other triangle.
  if (!left) return linalg::solve_triangular(A.mT(), B.mT(), !upper, true, unitriangular).mT().contiguous();
  if (detail::records_grad(A, B)) return autograd::solve_triangular(A, B, upper, unitriangular);
  const int64_t k = B.size(-1);
  const Shape batch = broadcast_shapes(detail::batch_of(A.sizes()), detail::batch_of(B.sizes()), op);
  const Tensor<T> As = detail::as_matrix_batch(A.expand(detail::batch_with(batch, {n, n})));
  const Tensor<T> Bs = detail::as_matrix_batch(B.expand(detail::batch_with(batch, {n, k})));
  auto out = empty<T>(detail::batch_with(batch, {n, k}), {.device = A.device()});
  const T *pa = As.data_ptr(), *pb = Bs.data_ptr();
  T* po = out.data_ptr();
  detail::for_each_matrix(A.device(), op, As.size(0), n * n * k, [&](int64_t b) {
    std::vector<double> a(static_cast<std::size_t>(n * n)), x(static_cast<std::size_t>(n * k));
    detail::load_matrix(pa + b * n * n, n, n, a.data());
    detail::load_matrix(pb + b * n * k, n, k, x.data());
    detail::substitute(a.data(), n, x.data(), k, upper, unitriangular);
    detail::store_matrix(x.data(), n, k, po + b * n * k);
    return int64_t{0};
  });
  return out;
}

}  // namespace linalg

/// The solution X of A X = B given the Cholesky factor `factor` of A
/// (`torch.cholesky_solve(B, factor, upper)`): A = L L^T for a lower factor,
/// U^T U for an upper one. Two triangular solves; batch dimensions
/// broadcast. Its gradient is PyTorch's, which differentiates A = L L^T
/// through every element of the factor, not only its triangle.
template <Expression EB, Expression EL, class T = value_type_t<EB>>
Tensor<T> cholesky_solve(const EB& B_expr, const EL& factor_expr, bool upper = false) {
  static_assert(std::is_same_v<T, value_type_t<EL>>,
                "cholesky_solve: B and the factor must have the same element type; convert one with .to<T>()");
  static_assert(detail::linalg_float<T>,
                "cholesky_solve: expected a float or double tensor; convert it with .to<float>()");
  const Tensor<T> B = detail::materialize(B_expr);
  const Tensor<T> L = detail::materialize(factor_expr);
  detail::check<ShapeError>(B.dim() >= 2, "b should have at least 2 dimensions, but has ", B.dim(),
                            " dimensions instead");
  detail::check<ShapeError>(L.dim() >= 2, "u should have at least 2 dimensions, but has ", L.dim(),
                            " dimensions instead");
  detail::check<ShapeError>(L.size(-1) == L.size(-2), "A must be batches of square matrices, but they are ", L.size(-2),
                            " by ", L.size(-1), " matrices");
  detail::check<ShapeError>(L.size(-1) == B.size(-2), "Incompatible matrix sizes for cholesky_solve: each A matrix is ",
                            L.size(-1), " by ", L.size(-1), " but each b matrix is ", B.size(-2), " by ", B.size(-1));
  detail::check_same_device("cholesky_solve", B, L);
  if (detail::records_grad(B, L)) return autograd::cholesky_solve(B, L, upper);
  // L L^T X = B: L Y = B, then L^T X = Y (U^T U X = B: U^T Y = B, U X = Y).
  const Tensor<T> Y = linalg::solve_triangular(upper ? L.mT() : L, B, false);
  return linalg::solve_triangular(upper ? L : L.mT(), Y, true);
}

}  // namespace tensorlib
