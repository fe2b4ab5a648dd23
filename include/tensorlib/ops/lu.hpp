#pragma once
/// \file
/// The LU family: `linalg::lu_factor`, `linalg::lu_factor_ex`, `linalg::lu`,
/// `linalg::lu_solve` and `tl::lu_unpack`, PyTorch's names, results and
/// errors. The factorization is backend/cpu/factorizations.hpp's partial
/// pivoting on a double copy of each matrix (Note [linalg working
/// precision]); pivots are int32 and 1-based, LAPACK's (and PyTorch's)
/// convention: at step i, row i was swapped with row pivots[i] - 1. Float and
/// double only.
///
/// Note [one LU node]
/// Only `lu_factor_ex` records a node of its own (autograd/lu_backward.hpp,
/// PyTorch's linalg_lu backward). `lu_unpack` reads L and U out of the packed
/// factor with tril, triu and narrow, which record, so `linalg::lu` (factor,
/// then unpack) differentiates through the two with PyTorch's gradient, and
/// so does a user's own `lu_unpack(lu_factor(A))`. `lu_solve` has its own
/// node, whose gradient reaches the packed factor the same way.
///
/// Shapes: (*) batch dimensions; (m, n) A, k = min(m, n); P (m, m), L (m, k),
/// U (k, n); pivots (*, k); (n, r) right-hand sides B (r, n when not `left`).

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "tensorlib/backend/cpu/factorizations.hpp"
#include "tensorlib/core/error.hpp"
#include "tensorlib/core/expression.hpp"
#include "tensorlib/core/tensor.hpp"
#include "tensorlib/expr/broadcast.hpp"
#include "tensorlib/expr/operators.hpp"
#include "tensorlib/ops/evaluate.hpp"
#include "tensorlib/ops/factories.hpp"
#include "tensorlib/ops/linalg.hpp"
#include "tensorlib/ops/linalg_batch.hpp"
#include "tensorlib/ops/triangular.hpp"
#include "tensorlib/ops/views.hpp"

namespace tensorlib {
namespace linalg {

/// `torch.linalg.lu_factor`'s result: L and U packed in one (*, m, n) tensor
/// (L's unit diagonal implied) and the (*, k) pivots.
template <Element T>
struct LUFactor {
  Tensor<T> LU;
  Tensor<int32_t> pivots;
};

/// `torch.linalg.lu_factor_ex`'s result: LUFactor and, per matrix, `info`: 0,
/// or the 1-based index of the first zero on U's diagonal.
template <Element T>
struct LUFactorEx {
  Tensor<T> LU;
  Tensor<int32_t> pivots;
  Tensor<int32_t> info;
};

/// `torch.linalg.lu`'s and `torch.lu_unpack`'s result: A = P L U.
template <Element T>
struct PLU {
  Tensor<T> P;
  Tensor<T> L;
  Tensor<T> U;
};

}  // namespace linalg
namespace autograd {

// The recording forms (autograd/lu_backward.hpp); lu_solve with `left` only.
template <Element T>
linalg::LUFactorEx<T> lu_factor_ex(const Tensor<T>& a, bool pivot);
template <Element T>
Tensor<T> lu_solve(const Tensor<T>& LU, const Tensor<int32_t>& pivots, const Tensor<T>& B, bool adjoint);

}  // namespace autograd
namespace detail {

/// PyTorch's check of the LU ops' input rank ("torch.lu_factor: Expected
/// tensor with 2 or more dimensions. Got size: [3] instead").
template <Element T>
void check_lu_input(const Tensor<T>& a, const char* op) {
  check<ShapeError>(a.dim() >= 2, op, ": Expected tensor with 2 or more dimensions. Got size: ", a.sizes(), " instead");
}

/// `pivots` on `like`'s device, else PyTorch's device-mismatch error.
template <Element T>
void check_pivots_device(const char* op, const Tensor<T>& like, const Tensor<int32_t>& pivots) {
  if (like.device() != pivots.device()) throw_device_mismatch(op, like.device(), pivots.device());
}

/// Every pivot of the contiguous `piv` in [1, rows], with lu_solve's wording
/// in PyTorch (a pivot outside would swap rows that do not exist).
inline void check_pivot_range(const int32_t* piv, int64_t count, int64_t rows) {
  for (int64_t i = 0; i < count; ++i) {
    check<ValueError>(piv[i] >= 1,
                      "Pivots given to lu_solve must all be greater or equal to 1. Did you properly pass "
                      "the result of lu_factor?");
    check<ValueError>(piv[i] <= rows,
                      "Pivots given to lu_solve must all be smaller or equal to LU.size(-2). Did you "
                      "properly pass the result of lu_factor?");
  }
}

/// The factorization of every matrix of the CPU tensor `a`, without
/// recording: LU, 1-based pivots and info per matrix.
template <Element T>
linalg::LUFactorEx<T> lu_factor_values(const Tensor<T>& a, bool pivot, const char* op) {
  const int64_t m = a.size(-2), n = a.size(-1), k = std::min(m, n);
  const Shape batch = batch_of(a.sizes());
  const Tensor<T> as = as_matrix_batch(a);
  linalg::LUFactorEx<T> r{empty<T>(a.sizes()), empty<int32_t>(batch_with(batch, {k})), empty<int32_t>(batch)};
  const T* src = as.data_ptr();
  T* lu_out = r.LU.data_ptr();
  int32_t *piv_out = r.pivots.data_ptr(), *info_out = r.info.data_ptr();
  for_each_matrix(a.device(), op, as.size(0), m * n * k, [&](int64_t b) {
    std::vector<double> lu(static_cast<std::size_t>(m * n));
    std::vector<int64_t> piv(static_cast<std::size_t>(k));
    load_matrix(src + b * m * n, m, n, lu.data());
    const int64_t info = cpu::lu_factor(lu.data(), m, n, piv.data(), pivot);
    store_matrix(lu.data(), m, n, lu_out + b * m * n);
    for (int64_t j = 0; j < k; ++j) piv_out[b * k + j] = static_cast<int32_t>(piv[static_cast<std::size_t>(j)] + 1);
    info_out[b] = static_cast<int32_t>(info);
    return info;
  });
  return r;
}

/// PyTorch's error for the first matrix whose U has a zero on its diagonal.
template <Element T>
void check_lu_info(const linalg::LUFactorEx<T>& r, const char* op) {
  const Tensor<int32_t> info = r.info.cpu().contiguous();
  const int32_t* p = info.data_ptr();
  for (int64_t b = 0; b < info.numel(); ++b)
    if (p[b] != 0)
      throw_linalg_error(op, info.dim() > 0, b,
                         concat("U[", p[b], ",", p[b],
                                "] is zero and using it on lu_solve would result in a division by zero. If you still "
                                "want to perform the factorization, consider calling linalg.lu(A, pivot) or "
                                "linalg.lu_factor_ex(A, pivot)"));
}

/// The (*, m, m) permutation matrices P of 1-based `pivots` (*, k): P[perm[i], i]
/// = 1, where perm applies the swaps in order to 0, ..., m - 1. Pivots
/// outside [1, m] are an error with lu_unpack's wording in PyTorch.
template <Element T>
Tensor<T> permutation_matrices(const Tensor<int32_t>& pivots, int64_t m) {
  const Tensor<int32_t> piv = pivots.contiguous();
  const int64_t k = piv.size(-1);
  for (int64_t i = 0; i < piv.numel(); ++i)
    check<ValueError>(piv.data_ptr()[i] >= 1 && piv.data_ptr()[i] <= m,
                      "pivots passed to lu_unpack must be between 1 and LU.size(-2) inclusive. Did you properly pass "
                      "the result of lu_factor?");
  Shape batch = piv.sizes();
  batch.resize(batch.size() - 1);
  auto P = zeros<T>(batch_with(batch, {m, m}));
  T* out = P.data_ptr();
  std::vector<int64_t> perm(static_cast<std::size_t>(m));
  for (int64_t b = 0; b < batch.numel(); ++b) {
    for (int64_t i = 0; i < m; ++i) perm[static_cast<std::size_t>(i)] = i;
    for (int64_t i = 0; i < k; ++i)
      std::swap(perm[static_cast<std::size_t>(i)], perm[static_cast<std::size_t>(piv.data_ptr()[b * k + i] - 1)]);
    for (int64_t i = 0; i < m; ++i) out[b * m * m + perm[static_cast<std::size_t>(i)] * m + i] = T(1);
  }
  return P;
}

}  // namespace detail

/// Unpacks `lu_factor`'s result into A = P L U (`torch.lu_unpack`): P (*, m, m),
/// L (*, m, k) unit lower triangular, U (*, k, n) upper triangular.
/// `unpack_data = false` leaves L and U empty, `unpack_pivots = false` P.
/// Differentiable in LU (Note [one LU node]).
template <Expression E, class T = value_type_t<E>>
linalg::PLU<T> lu_unpack(const E& LU_expr, const Tensor<int32_t>& pivots, bool unpack_data = true,
                         bool unpack_pivots = true) {
  static_assert(detail::linalg_float<T>, "lu_unpack: expected a float or double tensor; convert it with .to<float>()");
  const char* op = "torch.lu_unpack";
  const Tensor<T> LU = detail::materialize(LU_expr);
  detail::check_lu_input(LU, op);
  const int64_t m = LU.size(-2), n = LU.size(-1), k = std::min(m, n);
  if (unpack_pivots) {
    detail::check_pivots_device(op, LU, pivots);
    const Shape expected = detail::batch_with(detail::batch_of(LU.sizes()), {k});
    detail::check<ShapeError>(pivots.sizes() == expected, op, ": Expected LU_pivots of shape ", expected,
                              " (LU's batch dimensions and min(m, n)), but got ", pivots.sizes());
  }
  linalg::PLU<T> r{empty<T>({0}, {.device = LU.device()}), empty<T>({0}, {.device = LU.device()}),
                   empty<T>({0}, {.device = LU.device()})};
  if (unpack_data) {
    r.L = Tensor<T>(tril(LU.narrow(-1, 0, k), -1) + eye<T>(m, k, {.device = LU.device()}));
    r.U = triu(LU.narrow(-2, 0, k));
  }
  if (unpack_pivots) r.P = detail::permutation_matrices<T>(pivots.cpu(), m).to(LU.device());
  return r;
}

namespace linalg {

/// The LU factorization with partial pivoting of each (m, n) matrix
/// (`torch.linalg.lu_factor_ex`): packed LU, pivots and info, without an
/// error for a singular matrix unless `check_errors`. `pivot = false`
/// factors without row swaps (pivots 1..k), as PyTorch does on a GPU
/// (PyTorch's CPU refuses it); a zero pivot then gives inf or NaN.
template <Expression E, class T = value_type_t<E>>
LUFactorEx<T> lu_factor_ex(const E& A_expr, bool pivot = true, bool check_errors = false) {
  static_assert(detail::linalg_float<T>,
                "linalg.lu_factor_ex: expected a float or double tensor; convert it with .to<float>()");
  const Tensor<T> A = detail::materialize(A_expr);
  if (!A.is_cpu()) {  // Note [decompositions of CUDA tensors]
    const LUFactorEx<T> r = linalg::lu_factor_ex(A.cpu(), pivot, check_errors);
    return {r.LU.to(A.device()), r.pivots.to(A.device()), r.info.to(A.device())};
  }
  detail::check_lu_input(A, "torch.lu_factor");
  LUFactorEx<T> r = detail::records_grad(A) ? autograd::lu_factor_ex(A, pivot)
                                            : detail::lu_factor_values(A, pivot, "linalg.lu_factor_ex");
  if (check_errors) detail::check_lu_info(r, "torch.linalg.lu_factor_ex");
  return r;
}

/// `torch.linalg.lu_factor`: lu_factor_ex, and a LinAlgError naming the
/// first zero on U's diagonal (use lu or lu_factor_ex for singular matrices).
template <Expression E, class T = value_type_t<E>>
LUFactor<T> lu_factor(const E& A_expr, bool pivot = true) {
  LUFactorEx<T> r = linalg::lu_factor_ex(A_expr, pivot);
  detail::check_lu_info(r, "torch.linalg.lu_factor");
  return {std::move(r.LU), std::move(r.pivots)};
}

/// A = P L U for each (m, n) matrix (`torch.linalg.lu`), singular ones too.
/// With `pivot = false`, P is empty (no row swaps).
template <Expression E, class T = value_type_t<E>>
PLU<T> lu(const E& A_expr, bool pivot = true) {
  static_assert(detail::linalg_float<T>, "linalg.lu: expected a float or double tensor; convert it with .to<float>()");
  const Tensor<T> A = detail::materialize(A_expr);
  detail::check_lu_input(A, "linalg.lu");
  const LUFactorEx<T> r = linalg::lu_factor_ex(A, pivot);
  return lu_unpack(r.LU, r.pivots, true, pivot);
}

/// The solution X of A X = B given `lu_factor(A)` (`torch.linalg.lu_solve`):
/// of A^H X = B with `adjoint`, of X A = B (X A^H = B) when not `left`. B is
/// at least 2-D; batch dimensions of LU and B broadcast, the pivots have
/// LU's. A zero on U's diagonal gives inf or NaN, not an error.
template <Expression EL, Expression EB, class T = value_type_t<EL>>
Tensor<T> lu_solve(const EL& LU_expr, const Tensor<int32_t>& pivots, const EB& B_expr, bool left = true,
                   bool adjoint = false) {
  static_assert(std::is_same_v<T, value_type_t<EB>>,
                "linalg.lu_solve: LU and B must have the same element type; convert one with .to<T>()");
  static_assert(detail::linalg_float<T>,
                "linalg.lu_solve: expected a float or double tensor; convert it with .to<float>()");
  const char* op = "linalg.lu_solve";
  const Tensor<T> LU = detail::materialize(LU_expr);
  const Tensor<T> B = detail::materialize(B_expr);
  detail::check_same_device(op, LU, B);
  detail::check_pivots_device(op, LU, pivots);
  if (!LU.is_cpu())  // Note [decompositions of CUDA tensors]
    return linalg::lu_solve(LU.cpu(), pivots.cpu(), B.cpu(), left, adjoint).to(LU.device());
  detail::check_square(LU, "torch.linalg.lu_solve");
  detail::check<ShapeError>(B.dim() >= 2, op, ": The input tensor B must have at least 2 dimensions.");
  const int64_t n = LU.size(-1);
  detail::check_equation_shapes(B, n, left, op);
  detail::check<ShapeError>(pivots.dim() >= 1 && pivots.size(-1) == n, op,
                            ": Number of pivots per batch should be same as the dimension of the matrix");
  Shape lu_but_last = LU.sizes();
  lu_but_last.resize(LU.dim() - 1);
  detail::check<ShapeError>(pivots.sizes() == lu_but_last, op,
                            ": Expected LU.shape[:-1] and pivots.shape to be the same, but got pivots with shape ",
                            pivots.sizes(), " instead");
  // X A = B is A^H X^H = B^H, and X A^H = B is A X^H = B^H.
  if (!left) return linalg::lu_solve(LU, pivots, B.mT(), true, !adjoint).mT().contiguous();
  if (detail::records_grad(LU, B)) return autograd::lu_solve(LU, pivots, B, adjoint);
  const int64_t r = B.size(-1);
  const Shape batch = broadcast_shapes(detail::batch_of(LU.sizes()), detail::batch_of(B.sizes()), op);
  const Tensor<T> LUs = detail::as_matrix_batch(LU.expand(detail::batch_with(batch, {n, n})));
  const Tensor<T> Bs = detail::as_matrix_batch(B.expand(detail::batch_with(batch, {n, r})));
  const Tensor<int32_t> pivs = pivots.expand(detail::batch_with(batch, {n})).contiguous();
  detail::check_pivot_range(pivs.data_ptr(), pivs.numel(), n);
  auto out = empty<T>(detail::batch_with(batch, {n, r}));
  const T *plu = LUs.data_ptr(), *pb = Bs.data_ptr();
  const int32_t* pp = pivs.data_ptr();
  T* po = out.data_ptr();
  detail::for_each_matrix(LU.device(), op, LUs.size(0), 2 * n * n * r, [&](int64_t b) {
    std::vector<double> lu(static_cast<std::size_t>(n * n)), x(static_cast<std::size_t>(n * r));
    std::vector<int64_t> piv(static_cast<std::size_t>(n));
    for (int64_t j = 0; j < n; ++j) piv[static_cast<std::size_t>(j)] = pp[b * n + j] - 1;
    detail::load_matrix(plu + b * n * n, n, n, lu.data());
    detail::load_matrix(pb + b * n * r, n, r, x.data());
    // P A = L U, so A^T = U^T L^T P: lu_solve_transposed's case.
    if (adjoint)
      cpu::lu_solve_transposed(lu.data(), piv.data(), n, x.data(), r);
    else
      cpu::lu_solve(lu.data(), piv.data(), n, x.data(), r);
    detail::store_matrix(x.data(), n, r, po + b * n * r);
    return int64_t{0};
  });
  return out;
}

}  // namespace linalg
}  // namespace tensorlib
