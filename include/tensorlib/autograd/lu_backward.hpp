#pragma once
/// \file
/// The recording forms of linalg.lu_factor_ex and linalg.lu_solve (declared
/// in ops/lu.hpp; Note [one LU node] there). With A = P L U, k = min(m, n),
/// gL the gradient of L's strict lower triangle (m, k) and gU that of U's
/// upper triangle (k, n), from dA = P (dL U + L dU):
///
///     square:       gA = P L^-H M U^-H,  M = tril(L^H gL, -1) + triu(gU U^H)
///     wide, m < n:  U = [U1 | U2], gU = [gU1 | gU2] (U1 square),
///                   M = tril(L^H gL - gU2 U2^H, -1) + triu(gU1 U1^H),
///                   gA = P L^-H [M U1^-H | gU2]
///     tall, m > n:  L = [L1; L2], gL = [gL1; gL2] (L1 square),
///                   M = tril(L1^H gL1, -1) + triu(gU U^H - L2^H gL2),
///                   gA = P [L1^-H M; gL2] U^-H
///
/// (the wide and tall cases are the square one for [U1 | U2]'s first block,
/// plus U2 = L^-1 P^T A2, resp. L2 = (P^T A)_2 U^-1). These are PyTorch's
/// linalg_lu backward values; lu_factor's gradient is the same with gL =
/// tril(gLU, -1) and gU = triu(gLU). lu_solve, for A X = B (A^H X = B with
/// `adjoint`):
///
///     gB = lu_solve(LU, pivots, gX, adjoint = !adjoint)
///     gA = -gB X^H  (adjoint: -X gB^H)
///     gLU = tril(P^T gA U^H, -1) + triu(L^H P^T gA)   (A = P L U)
///
/// U^-H and L^-H are triangular solves; a zero on U's diagonal makes the
/// gradient inf or NaN, as in PyTorch. The formulas use the public ops, so
/// they record under create_graph; lu_factor's saved output gets its history
/// back when unpacked (a `Function`), so second derivatives flow through it.

#include <algorithm>
#include <any>
#include <array>
#include <cstdint>
#include <vector>

#include "tensorlib/autograd/function.hpp"
#include "tensorlib/autograd/op_backward.hpp"
#include "tensorlib/autograd/solve_backward.hpp"
#include "tensorlib/core/tensor.hpp"
#include "tensorlib/expr/operators.hpp"
#include "tensorlib/ops/join.hpp"
#include "tensorlib/ops/linalg.hpp"
#include "tensorlib/ops/lu.hpp"
#include "tensorlib/ops/triangular.hpp"
#include "tensorlib/ops/triangular_solve.hpp"

namespace tensorlib::autograd {
namespace detail {

/// L^-H Z for a unit lower triangular square L.
template <Element T>
Tensor<T> unit_lower_inv_h(const Tensor<T>& L, const Tensor<T>& Z) {
  return linalg::solve_triangular(mT(L), Z, /*upper=*/true, /*left=*/true, /*unitriangular=*/true);
}

/// Z U^-H for an upper triangular square U.
template <Element T>
Tensor<T> times_upper_inv_h(const Tensor<T>& Z, const Tensor<T>& U) {
  return linalg::solve_triangular(mT(U), Z, /*upper=*/false, /*left=*/false);
}

/// P^T gA for A = P L U (file comment): gL (m, k) and gU (k, n) hold only
/// the triangles that are free in L and U.
template <Element T>
Tensor<T> lu_backward(const Tensor<T>& L, const Tensor<T>& U, const Tensor<T>& gL, const Tensor<T>& gU) {
  using tensorlib::matmul;
  const int64_t m = L.size(-2), n = U.size(-1);
  if (m == n) {
    const Tensor<T> M = Tensor<T>(tril(matmul(mT(L), gL), -1) + triu(matmul(gU, mT(U))));
    return unit_lower_inv_h(L, times_upper_inv_h(M, U));
  }
  if (m < n) {
    const Tensor<T> U1 = U.narrow(-1, 0, m), U2 = U.narrow(-1, m, n - m);
    const Tensor<T> gU1 = gU.narrow(-1, 0, m), gU2 = gU.narrow(-1, m, n - m);
    const Tensor<T> M = Tensor<T>(tril(matmul(mT(L), gL) - matmul(gU2, mT(U2)), -1) + triu(matmul(gU1, mT(U1))));
    return unit_lower_inv_h(L, tensorlib::cat({times_upper_inv_h(M, U1), gU2}, -1));
  }
  const Tensor<T> L1 = L.narrow(-2, 0, n), L2 = L.narrow(-2, n, m - n);
  const Tensor<T> gL1 = gL.narrow(-2, 0, n), gL2 = gL.narrow(-2, n, m - n);
  const Tensor<T> M = Tensor<T>(tril(matmul(mT(L1), gL1), -1) + triu(matmul(gU, mT(U)) - matmul(mT(L2), gL2)));
  return times_upper_inv_h(tensorlib::cat({unit_lower_inv_h(L1, M), gL2}, -2), U);
}

/// lu_factor_ex as a custom function of A whose output is the packed LU;
/// the pivots and info come back through `result` (file comment).
template <Element T>
struct LuFactorFunction : Function<LuFactorFunction<T>> {
  static Tensor<T> forward(FunctionCtx& ctx, const Tensor<T>& a, bool pivot, linalg::LUFactorEx<T>* result) {
    *result = tensorlib::detail::lu_factor_values(a, pivot, "linalg.lu_factor_ex");
    ctx.save_for_backward(result->LU, result->pivots);
    ctx.saved_data["pivot"] = pivot;
    return result->LU;
  }
  static std::vector<Tensor<T>> backward(FunctionCtx& ctx, const std::vector<Tensor<T>>& g) {
    const variable_list saved = ctx.saved_tensors();
    const Tensor<T> LU = saved[0].as<T>();
    const Tensor<int32_t> pivots = saved[1].as<int32_t>();
    const bool pivot = std::any_cast<bool>(ctx.saved_data.at("pivot"));
    const int64_t m = LU.size(-2), n = LU.size(-1), k = std::min(m, n);
    const linalg::PLU<T> f = lu_unpack(LU, pivots, true, pivot);
    const Tensor<T> gA = lu_backward(f.L, f.U, tril(g[0], -1).narrow(-1, 0, k), triu(g[0]).narrow(-2, 0, k));
    return {pivot ? tensorlib::matmul(f.P, gA) : gA};
  }
};

}  // namespace detail

/// lu_factor_ex recording one LuFactorFunction node (Note [one LU node]).
template <Element T>
linalg::LUFactorEx<T> lu_factor_ex(const Tensor<T>& a, bool pivot) {
  linalg::LUFactorEx<T> r;
  Tensor<T> LU = detail::LuFactorFunction<T>::apply(a, pivot, &r);
  r.LU = std::move(LU);
  return r;
}

/// lu_solve (left) recording its node: gradients for the packed factor and B.
template <Element T>
Tensor<T> lu_solve(const Tensor<T>& LU, const Tensor<int32_t>& pivots, const Tensor<T>& B, bool adjoint) {
  const Tensor<int32_t> piv = pivots.clone();  // the values the forward saw
  auto formula = [piv, adjoint, b_sizes = B.sizes()](const std::vector<Tensor<T>>& g, const std::array<Tensor<T>, 2>& s,
                                                     const std::vector<bool>& needs) {
    using tensorlib::matmul;
    const Tensor<T>&A = s[0], &X = s[1];
    const Tensor<T> gB = linalg::lu_solve(A, piv, g[0], true, !adjoint);
    Tensor<T> gLU, gb;
    if (needs[0]) {
      const Tensor<T> gA = adjoint ? Tensor<T>(-matmul(X, detail::mT(gB))) : Tensor<T>(-matmul(gB, detail::mT(X)));
      const linalg::PLU<T> f = lu_unpack(A, piv);
      const Tensor<T> PtgA = matmul(detail::mT(f.P), gA);
      gLU = Tensor<T>(tril(matmul(PtgA, detail::mT(f.U)), -1) + triu(matmul(detail::mT(f.L), PtgA)))
                .sum_to_size(A.sizes());
    }
    if (needs[1]) gb = gB.sum_to_size(b_sizes);
    return std::vector<Tensor<T>>{gLU, gb};
  };
  return record_with_output<T>(
      "LinalgLuSolveBackward", [&] { return linalg::lu_solve(LU, piv, B, true, adjoint); }, formula, save<T>(LU), LU,
      B);
}

}  // namespace tensorlib::autograd
