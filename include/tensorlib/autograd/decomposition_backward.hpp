#pragma once
/// \file
/// The recording forms of linalg.cholesky and linalg.eigh / eigvalsh
/// (declared in ops/decompositions.hpp and ops/eigh.hpp), with PyTorch's
/// formulas (real matrices, batched over leading dimensions; both gradients
/// are symmetric, as PyTorch's):
///
///     cholesky: P = tril(L^T gL),  gA = L^-T (P + tril(P, -1)^T) / 2 L^-1
///               (upper: L = U^T, gL = gU^T)
///     eigh:     gA = V (diag(g_lambda) + F o skew(V^T gV)) V^T,
///               skew(K) = (K - K^T) / 2, F_ij = 1 / (lambda_j - lambda_i)
///               off the diagonal and 0 on it
///
/// eigh's eigenvector gradient is infinite where eigenvalues repeat (as in
/// PyTorch, which documents it). The formulas use the public ops, so they
/// record under create_graph; eigh, a two-output op, is a
/// `tl::autograd::Function`, whose saved outputs are detached: a second
/// derivative does not flow through the saved eigenvectors and eigenvalues.

#include <string_view>
#include <vector>

#include "tensorlib/autograd/function.hpp"
#include "tensorlib/autograd/op_backward.hpp"
#include "tensorlib/autograd/solve_backward.hpp"
#include "tensorlib/core/tensor.hpp"
#include "tensorlib/expr/functions.hpp"
#include "tensorlib/expr/operators.hpp"
#include "tensorlib/ops/decompositions.hpp"
#include "tensorlib/ops/eigh.hpp"
#include "tensorlib/ops/factories.hpp"
#include "tensorlib/ops/linalg.hpp"
#include "tensorlib/ops/solve.hpp"
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
    const Tensor<T> eye = tensorlib::eye<T>(n);
    const Tensor<T> K = tensorlib::matmul(mT(V), g[1]);
    // E_ij = lambda_j - lambda_i, with 1 on the diagonal so no inf appears
    // even in a graph recorded for create_graph; F is 0 there.
    const Tensor<T> E = Tensor<T>(lambda.unsqueeze(-2) - lambda.unsqueeze(-1) + eye);
    const Tensor<T> inner = Tensor<T>((K - mT(K)) * T(0.5) / E * (T(1) - eye)) + tensorlib::diag_embed(g[0]);
    return {tensorlib::matmul(tensorlib::matmul(V, inner), mT(V))};
  }
};

}  // namespace detail

template <Element T>
linalg::Eigh<T> eigh(const Tensor<T>& a, std::string_view uplo) {
  const std::vector<Tensor<T>> out = detail::EighFunction<T>::apply(a, uplo);
  return {out[0], out[1]};
}

}  // namespace tensorlib::autograd
