#pragma once
/// \file
/// `linalg::cholesky` and `linalg::qr` (and the top-level `tl::cholesky`):
/// Cholesky and Householder QR of every matrix of a batch
/// (backend/cpu/factorizations.hpp). Float and double only (static_assert).
/// Results are new contiguous tensors (Note [linalg working precision]).
///
/// Shapes: (*) batch dimensions, (m, n) A, k = min(m, n).

#include <algorithm>
#include <cstdint>
#include <string_view>
#include <type_traits>
#include <vector>

#include "tensorlib/backend/cpu/factorizations.hpp"
#include "tensorlib/core/error.hpp"
#include "tensorlib/core/expression.hpp"
#include "tensorlib/core/tensor.hpp"
#include "tensorlib/ops/factories.hpp"
#include "tensorlib/ops/linalg.hpp"
#include "tensorlib/ops/linalg_batch.hpp"

namespace tensorlib {
namespace linalg {

/// `torch.linalg.qr`'s result (Q, R). An aggregate: `auto [Q, R] = tl::linalg::qr(A);`.
template <Element T>
struct QR {
  Tensor<T> Q;
  Tensor<T> R;
};

}  // namespace linalg
namespace autograd {

// The recording form (autograd/decomposition_backward.hpp).
template <Element T>
Tensor<T> cholesky(const Tensor<T>& a, bool upper);
template <Element T>
linalg::QR<T> qr(const Tensor<T>& a, std::string_view mode);

}  // namespace autograd
namespace linalg {

/// The Cholesky factor of each symmetric positive-definite matrix
/// (`torch.linalg.cholesky`): lower triangular L with A = L L^T, reading
/// only A's lower triangle; with `upper`, U = L^T with A = U^T U, reading
/// only the upper triangle. A matrix that is not positive-definite is a
/// LinAlgError naming the first leading minor that is not.
template <Expression E, class T = value_type_t<E>>
Tensor<T> cholesky(const E& A_expr, bool upper = false) {
  static_assert(detail::linalg_float<T>,
                "linalg.cholesky: expected a float or double tensor; convert it with .to<float>()");
  const Tensor<T> A = detail::materialize(A_expr);
  if (!A.is_cpu()) return linalg::cholesky(A.cpu(), upper).to(A.device());  // Note [decompositions of CUDA tensors]
  if (detail::records_grad(A)) return autograd::cholesky(A, upper);
  const char* op = "linalg.cholesky";
  detail::check_square(A, op);
  const int64_t n = A.size(-1);
  // upper: the lower factor of A^T (which reads A's upper triangle), transposed back.
  const auto [out, bad, info] = detail::map_square_matrices(
      A, op, n * n * n / 3 + 1, upper, upper, [](double* l, int64_t size) { return cpu::cholesky_lower(l, size); });
  if (info != 0)
    detail::throw_linalg_error(op, A.dim() > 2, bad,
                               detail::concat("The factorization could not be completed because the input is not "
                                              "positive-definite (the leading minor of order ",
                                              info, " is not positive-definite)."));
  return out;
}

/// The QR decomposition A = Q R of each matrix (`torch.linalg.qr`), by
/// Householder reflections (Note [householder convention]: R's diagonal may
/// be negative, as with LAPACK). mode "reduced": Q (*, m, k), R (*, k, n);
/// "complete": Q (*, m, m), R (*, m, n); "r": R (*, k, n) and an empty Q.
/// Differentiable except in mode "r" and in "complete" with m > n.
template <Expression E, class T = value_type_t<E>>
QR<T> qr(const E& A_expr, std::string_view mode = "reduced") {
  static_assert(detail::linalg_float<T>, "linalg.qr: expected a float or double tensor; convert it with .to<float>()");
  const Tensor<T> A = detail::materialize(A_expr);
  const char* op = "linalg.qr";
  detail::check<ValueError>(mode == "reduced" || mode == "complete" || mode == "r", "qr received unrecognized mode '",
                            mode, "' but expected one of 'reduced' (default), 'r', or 'complete'");
  if (!A.is_cpu()) {  // Note [decompositions of CUDA tensors]
    const auto [Q, R] = linalg::qr(A.cpu(), mode);
    return {Q.to(A.device()), R.to(A.device())};
  }
  if (detail::records_grad(A)) return autograd::qr(A, mode);
  detail::check_at_least_matrix(A, op);
  const int64_t m = A.size(-2), n = A.size(-1), k = std::min(m, n);
  const bool want_q = mode != "r";
  const int64_t qcols = mode == "complete" ? m : k, rrows = mode == "complete" ? m : k;
  const Shape batch = detail::batch_of(A.sizes());
  const Tensor<T> As = detail::as_matrix_batch(A);
  auto Q = want_q ? empty<T>(detail::batch_with(batch, {m, qcols}), {.device = A.device()})
                  : empty<T>({0}, {.device = A.device()});
  auto R = empty<T>(detail::batch_with(batch, {rrows, n}), {.device = A.device()});
  const T* pa = As.data_ptr();
  T *pq = Q.data_ptr(), *pr = R.data_ptr();
  detail::for_each_matrix(A.device(), op, As.size(0), 2 * m * n * k + 1, [&](int64_t b) {
    std::vector<double> a(static_cast<std::size_t>(m * n)), tau(static_cast<std::size_t>(k));
    detail::load_matrix(pa + b * m * n, m, n, a.data());
    cpu::householder_qr(a.data(), m, n, tau.data());
    T* r = pr + b * rrows * n;
    for (int64_t i = 0; i < rrows; ++i)
      for (int64_t j = 0; j < n; ++j)
        r[i * n + j] = j >= i ? static_cast<T>(a[static_cast<std::size_t>(i * n + j)]) : T(0);
    if (want_q) {
      std::vector<double> q(static_cast<std::size_t>(m * qcols));
      cpu::householder_q(a.data(), m, n, tau.data(), q.data(), qcols);
      detail::store_matrix(q.data(), m, qcols, pq + b * m * qcols);
    }
    return int64_t{0};
  });
  return {Q, R};
}

}  // namespace linalg

/// `torch.cholesky`: the same as `linalg::cholesky`.
template <Expression E, class T = value_type_t<E>>
Tensor<T> cholesky(const E& A_expr, bool upper = false) {
  const Tensor<T> A = detail::materialize(A_expr);
  return linalg::cholesky(A, upper);
}

}  // namespace tensorlib
