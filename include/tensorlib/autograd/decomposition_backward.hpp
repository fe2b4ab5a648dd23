#pragma once
/// \file
/// The recording forms of linalg.cholesky, linalg.qr, linalg.eigh / eigvalsh
/// and linalg.svd / svdvals (declared in ops/decompositions.hpp, ops/eigh.hpp
/// and ops/svd.hpp), with PyTorch's
/// formulas (real matrices, batched over leading dimensions; both gradients
/// are symmetric, as PyTorch's):
///
///     cholesky: P = tril(L^T gL),  gA = L^-T (P + tril(P, -1)^T) / 2 L^-1
///               (upper: L = U^T, gL = gU^T)
///     qr:       m >= n: gA = [gQ + Q sym(gR R^T - Q^T gQ)] R^-T, sym(K) the
///               symmetric matrix with K's upper triangle (triu(K) +
///               triu(K, 1)^T); m < n: A = [X | Y], R = [U | V] with X = Q U,
///               gX from the square formula with gQ + Y gV^T and gU, gY = Q gV.
///               Not differentiable in mode "r" (no Q) or "complete" with
///               m > n (Q's last columns are arbitrary), as in PyTorch.
///     eigh:     gA = V (diag(g_lambda) + F o skew(V^T gV)) V^T,
///               skew(K) = (K - K^T) / 2, F_ij = 1 / (lambda_j - lambda_i)
///               off the diagonal and 0 on it
///     svd:      gA = U [skew(U^T gU) / E S + S skew(V^T gV) / E + diag(gS)] V^T
///               + (I - U U^T) gU S^-1 V^T + U S^-1 gV^T (I - V V^T),
///               skew(K) = K - K^T, E_ij = S_j^2 - S_i^2 (1 on the diagonal);
///               with only gS, U diag(gS) V^T (no 1 / S); full_matrices
///               uses the first k = min(m, n) singular vectors
///
/// eigh's and svd's vector gradients are infinite where eigenvalues or
/// singular values repeat, and svd's where one is zero (as in PyTorch, which
/// documents it). pinv has PyTorch's closed form (PinvFunction), finite
/// there; lstsq's solution records as pinv(A) B. The formulas use the public
/// ops, so they record under create_graph; qr, eigh, svd and pinv are
/// `tl::autograd::Function`s, whose saved outputs get their history back when
/// unpacked, so second derivatives flow through the factors too.

#include <algorithm>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tensorlib/autograd/function.hpp"
#include "tensorlib/autograd/op_backward.hpp"
#include "tensorlib/autograd/solve_backward.hpp"
#include "tensorlib/core/grad_mode.hpp"
#include "tensorlib/core/tensor.hpp"
#include "tensorlib/expr/functions.hpp"
#include "tensorlib/expr/operators.hpp"
#include "tensorlib/ops/compare.hpp"
#include "tensorlib/ops/decompositions.hpp"
#include "tensorlib/ops/eigh.hpp"
#include "tensorlib/ops/factories.hpp"
#include "tensorlib/ops/join.hpp"
#include "tensorlib/ops/linalg.hpp"
#include "tensorlib/ops/reduce.hpp"
#include "tensorlib/ops/solve.hpp"
#include "tensorlib/ops/svd.hpp"
#include "tensorlib/ops/triangular.hpp"

namespace tensorlib::autograd {

template <Element T>
Tensor<T> cholesky(const Tensor<T>& a, bool upper) {
  auto formula = [upper](const std::vector<Tensor<T>>& g, const std::array<Tensor<T>, 1>& s, const std::vector<bool>&) {
    const Tensor<T> L = upper ? detail::mT(s[0]) : s[0];
    const Tensor<T> gL = upper ? detail::mT(g[0]) : g[0];
    const Tensor<T> P = tensorlib::tril(tensorlib::matmul(detail::mT(L), gL));
    const Tensor<T> sym = Tensor<T>((P + detail::mT(tensorlib::tril(P, -1))) * T(0.5));
    const Tensor<T> l_inv = linalg::inv(L);
    return std::vector<Tensor<T>>{tensorlib::matmul(tensorlib::matmul(detail::mT(l_inv), sym), l_inv)};
  };
  return record_with_output<T>(
      "LinalgCholeskyBackward", [&] { return linalg::cholesky(a, upper); }, formula, std::array<SavedTensor<T>, 0>{},
      a);
}

namespace detail {

/// Whether a cotangent the custom-function machinery handed over can carry
/// a gradient: not all zeros, or (under create_graph, as in functional::jvp,
/// whose cotangent is a zero that requires grad) part of a graph. PyTorch
/// tests whether it is defined; zeros stand for undefined here.
template <Element T>
bool carries_gradient(const Tensor<T>& t) {
  if (t.requires_grad()) return true;
  NoGradGuard no_grad;
  return t.numel() > 0 && tensorlib::any(t != T(0)).item();
}

/// eigh as a two-output custom function (file comment).
template <Element T>
struct EighFunction : Function<EighFunction<T>> {
  static std::vector<Tensor<T>> forward(FunctionCtx& ctx, const Tensor<T>& a, std::string_view uplo) {
    linalg::Eigh<T> r = linalg::eigh(a, uplo);
    ctx.save_for_backward(r.eigenvalues, r.eigenvectors);
    return {r.eigenvalues, r.eigenvectors};
  }
  static std::vector<Tensor<T>> backward(FunctionCtx& ctx, const std::vector<Tensor<T>>& g) {
    const variable_list saved = ctx.saved_tensors();
    const Tensor<T> lambda = saved[0].as<T>(), V = saved[1].as<T>();
    const int64_t n = lambda.size(-1);
    if (!carries_gradient(g[1]))  // eigenvalues only: no 1 / (lambda_j - lambda_i)
      return {tensorlib::matmul(Tensor<T>(V * g[0].unsqueeze(-2)), mT(V))};
    const Tensor<T> eye = tensorlib::eye<T>(n);
    const Tensor<T> K = tensorlib::matmul(mT(V), g[1]);
    // E_ij = lambda_j - lambda_i, with 1 on the diagonal so no inf appears
    // even in a graph recorded for create_graph; F is 0 there.
    const Tensor<T> E = Tensor<T>(lambda.unsqueeze(-2) - lambda.unsqueeze(-1) + eye);
    const Tensor<T> inner = Tensor<T>((K - mT(K)) * T(0.5) / E * (T(1) - eye)) + tensorlib::diag_embed(g[0]);
    return {tensorlib::matmul(tensorlib::matmul(V, inner), mT(V))};
  }
};

/// qr as a two-output custom function (file comment).
template <Element T>
struct QrFunction : Function<QrFunction<T>> {
  static std::vector<Tensor<T>> forward(FunctionCtx& ctx, const Tensor<T>& a, std::string_view mode) {
    linalg::QR<T> r = linalg::qr(a, mode);
    ctx.save_for_backward(r.Q, r.R);
    ctx.saved_data["mode"] = std::string(mode);
    return {r.Q, r.R};
  }
  static std::vector<Tensor<T>> backward(FunctionCtx& ctx, const std::vector<Tensor<T>>& g) {
    const auto mode = std::any_cast<std::string>(ctx.saved_data.at("mode"));
    const variable_list saved = ctx.saved_tensors();
    const Tensor<T> Q = saved[0].as<T>(), R = saved[1].as<T>();
    ::tensorlib::detail::check<AutogradError>(
        mode != "r",
        "The derivative of linalg.qr depends on Q, which is not computed when mode='r'. Please use "
        "linalg.qr(A, mode='reduced') if you are going to differentiate through linalg.qr.");
    const int64_t m = Q.size(-2), n = R.size(-1);
    ::tensorlib::detail::check<AutogradError>(
        mode != "complete" || m <= n,
        "The QR decomposition is not differentiable when mode='complete' and nrows > ncols.");
    if (m >= n) return {square_qr_grad(Q, R, g[0], g[1])};
    // Y = Q V, so Y gV^T = Q V gV^T: A itself is not needed.
    const Tensor<T> U = R.narrow(-1, 0, m), V = R.narrow(-1, m, n - m);
    const Tensor<T> gU = g[1].narrow(-1, 0, m), gV = g[1].narrow(-1, m, n - m);
    const Tensor<T> gQ = Tensor<T>(g[0] + tensorlib::matmul(Q, tensorlib::matmul(V, mT(gV))));
    return {tensorlib::cat({square_qr_grad(Q, U, gQ, gU), tensorlib::matmul(Q, gV)}, -1)};
  }
  /// gA for A = Q R with R square (m >= n): [gQ + Q sym(gR R^T - Q^T gQ)] R^-T.
  static Tensor<T> square_qr_grad(const Tensor<T>& Q, const Tensor<T>& R, const Tensor<T>& gQ, const Tensor<T>& gR) {
    const Tensor<T> M = Tensor<T>(tensorlib::matmul(gR, mT(R)) - tensorlib::matmul(mT(Q), gQ));
    const Tensor<T> sym = Tensor<T>(tensorlib::triu(M) + mT(tensorlib::triu(M, 1)));
    return linalg::solve(mT(R), Tensor<T>(gQ + tensorlib::matmul(Q, sym)), /*left=*/false);
  }
};

/// svd as a three-output custom function (file comment).
template <Element T>
struct SvdFunction : Function<SvdFunction<T>> {
  static std::vector<Tensor<T>> forward(FunctionCtx& ctx, const Tensor<T>& a, bool full_matrices) {
    linalg::SVD<T> r = linalg::svd(a, full_matrices);
    ctx.save_for_backward(r.U, r.S, r.Vh);
    return {r.U, r.S, r.Vh};
  }
  static std::vector<Tensor<T>> backward(FunctionCtx& ctx, const std::vector<Tensor<T>>& g) {
    const variable_list saved = ctx.saved_tensors();
    const Tensor<T> S = saved[1].as<T>();
    const int64_t k = S.size(-1);
    // full_matrices: only the first k singular vectors enter (PyTorch).
    const Tensor<T> U = saved[0].as<T>().narrow(-1, 0, k), Vh = saved[2].as<T>().narrow(-2, 0, k);
    const Tensor<T> gU = g[0].narrow(-1, 0, k), gS = g[1], gV = mT(g[2].narrow(-2, 0, k));
    const Tensor<T> V = mT(Vh);
    const int64_t m = U.size(-2), n = V.size(-2);
    if (!carries_gradient(gU) && !carries_gradient(gV))  // only the singular values: no 1 / S
      return {tensorlib::matmul(Tensor<T>(U * gS.unsqueeze(-2)), Vh)};
    const Tensor<T> eye = tensorlib::eye<T>(k);
    const Tensor<T> S2 = Tensor<T>(S * S);
    const Tensor<T> E = Tensor<T>(S2.unsqueeze(-2) - S2.unsqueeze(-1) + eye);  // S_j^2 - S_i^2, 1 on the diagonal
    const Tensor<T> UtgU = tensorlib::matmul(mT(U), gU), VtgV = tensorlib::matmul(mT(V), gV);
    const Tensor<T> core =
        Tensor<T>((UtgU - mT(UtgU)) / E * S.unsqueeze(-2) + S.unsqueeze(-1) * ((VtgV - mT(VtgV)) / E)) +
        tensorlib::diag_embed(gS);
    Tensor<T> gA = tensorlib::matmul(tensorlib::matmul(U, core), Vh);
    const Tensor<T> s_inv = Tensor<T>(T(1) / S);
    if (m > k) {  // (I - U U^T) gU S^-1 V^T
      const Tensor<T> gU_perp = Tensor<T>(gU - tensorlib::matmul(U, UtgU));
      gA = Tensor<T>(gA + tensorlib::matmul(Tensor<T>(gU_perp * s_inv.unsqueeze(-2)), Vh));
    }
    if (n > k) {  // U S^-1 gV^T (I - V V^T)
      const Tensor<T> gV_perp = Tensor<T>(gV - tensorlib::matmul(V, VtgV));
      gA = Tensor<T>(gA + tensorlib::matmul(U, Tensor<T>(s_inv.unsqueeze(-1) * mT(gV_perp))));
    }
    return {gA};
  }
};

}  // namespace detail

template <Element T>
linalg::SVD<T> svd(const Tensor<T>& a, bool full_matrices) {
  const std::vector<Tensor<T>> out = detail::SvdFunction<T>::apply(a, full_matrices);
  return {out[0], out[1], out[2]};
}

template <Element T>
linalg::QR<T> qr(const Tensor<T>& a, std::string_view mode) {
  const std::vector<Tensor<T>> out = detail::QrFunction<T>::apply(a, mode);
  return {out[0], out[1]};
}

namespace detail {

/// pinv as a custom function with PyTorch's closed form (pinv_backward; the
/// derivative of P = A+ at constant rank):
///     gA = -P^T G P^T + (I - A P) G^T P P^T + P^T P G^T (I - P A)
/// finite where singular values repeat or vanish (differentiating through
/// the SVD would divide by their differences).
template <Element T>
struct PinvFunction : Function<PinvFunction<T>> {
  static Tensor<T> forward(FunctionCtx& ctx, const Tensor<T>& a, std::optional<double> atol, std::optional<double> rtol,
                           bool hermitian) {
    Tensor<T> p = linalg::pinv(a, atol, rtol, hermitian);
    ctx.save_for_backward(a, p);
    return p;
  }
  static std::vector<Tensor<T>> backward(FunctionCtx& ctx, const std::vector<Tensor<T>>& g) {
    const variable_list saved = ctx.saved_tensors();
    const Tensor<T> A = saved[0].as<T>(), P = saved[1].as<T>();
    const Tensor<T> Pt = mT(P), Gt = mT(g[0]);
    const Tensor<T> X = tensorlib::matmul(tensorlib::matmul(Gt, P), Pt);  // G^T P P^T
    const Tensor<T> Y = tensorlib::matmul(tensorlib::matmul(Pt, P), Gt);  // P^T P G^T
    const Tensor<T> first = tensorlib::matmul(tensorlib::matmul(Pt, g[0]), Pt);
    return {Tensor<T>(X - tensorlib::matmul(tensorlib::matmul(A, P), X) + Y -
                      tensorlib::matmul(Y, tensorlib::matmul(P, A)) - first)};
  }
};

}  // namespace detail

template <Element T>
Tensor<T> pinv(const Tensor<T>& a, std::optional<double> atol, std::optional<double> rtol, bool hermitian) {
  return detail::PinvFunction<T>::apply(a, atol, rtol, hermitian);
}

template <Element T>
linalg::Eigh<T> eigh(const Tensor<T>& a, std::string_view uplo) {
  const std::vector<Tensor<T>> out = detail::EighFunction<T>::apply(a, uplo);
  return {out[0], out[1]};
}

}  // namespace tensorlib::autograd
