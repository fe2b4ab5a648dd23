#pragma once
/// \file
/// The recording forms of linalg.inv, det, slogdet and solve (declared in
/// ops/solve.hpp), solve_triangular and cholesky_solve (ops/triangular_solve.hpp),
/// with PyTorch's formulas (A^-T is the inverse transposed, batched over
/// leading dimensions; X the saved solution; broadcast batch dimensions are
/// summed back):
///
///     inv:      dA = -Y^T g Y^T                    (Y = A^-1, saved output)
///     det:      dA = g det(A) A^-T                 (invertible A)
///     slogdet:  dA = g_logabsdet A^-T              (sign has no gradient)
///     solve:    dB = solve(A^T, g)   dA = -dB X^T
///     solve_triangular: dB = solve_triangular(A^T, g) (the other triangle),
///               dA = -dB X^T restricted to A's triangle (without the
///               diagonal when unitriangular)
///     cholesky_solve: dB = cholesky_solve(g, L), C = dB X^T + X dB^T,
///               dL = -C L (lower) or -L C (upper), on every element of L
///
/// det's gradient at a singular matrix (PyTorch takes it from an SVD) is
/// not implemented: backward raises NotImplementedError there. The
/// formulas use the public ops, so they record under create_graph.

#include <array>
#include <vector>

#include "tensorlib/autograd/op_backward.hpp"
#include "tensorlib/core/error.hpp"
#include "tensorlib/core/tensor.hpp"
#include "tensorlib/expr/functions.hpp"
#include "tensorlib/expr/operators.hpp"
#include "tensorlib/ops/linalg.hpp"
#include "tensorlib/ops/reduce.hpp"
#include "tensorlib/ops/solve.hpp"
#include "tensorlib/ops/triangular_solve.hpp"

namespace tensorlib::autograd {
namespace detail {

template <Element T>
Tensor<T> mT(const Tensor<T>& a) {
  return a.transpose(-1, -2);
}

/// A^-T for the gradients of det and slogdet.
template <Element T>
Tensor<T> inverse_transposed(const Tensor<T>& a, const char* node) {
  try {
    return mT(linalg::inv(a));
  } catch (const LinAlgError&) {
    throw NotImplementedError(::tensorlib::detail::concat(
        node, ": the derivative of the determinant at a singular matrix is not implemented yet"));
  }
}

}  // namespace detail

template <Element T>
Tensor<T> inv(const Tensor<T>& a) {
  auto formula = [](const std::vector<Tensor<T>>& g, const std::array<Tensor<T>, 1>& s, const std::vector<bool>&) {
    const Tensor<T> yt = detail::mT(s[0]);
    return std::vector<Tensor<T>>{Tensor<T>(-tensorlib::matmul(tensorlib::matmul(yt, g[0]), yt))};
  };
  return record_with_output<T>(
      "LinalgInvBackward", [&] { return linalg::inv(a); }, formula, std::array<SavedTensor<T>, 0>{}, a);
}

template <Element T>
Tensor<T> det(const Tensor<T>& a) {
  auto formula = [](const std::vector<Tensor<T>>& g, const std::array<Tensor<T>, 2>& s, const std::vector<bool>&) {
    const Tensor<T> scale = Tensor<T>(g[0] * s[1]).unsqueeze(-1).unsqueeze(-1);
    return std::vector<Tensor<T>>{Tensor<T>(scale * detail::inverse_transposed(s[0], "LinalgDetBackward"))};
  };
  return record_with_output<T>(
      "LinalgDetBackward", [&] { return linalg::det(a); }, formula, save<T>(a), a);
}

template <Element T>
linalg::SignLogAbsDet<T> slogdet(const Tensor<T>& a) {
  linalg::SignLogAbsDet<T> r;
  auto formula = [](const std::vector<Tensor<T>>& g, const std::array<Tensor<T>, 1>& s, const std::vector<bool>&) {
    const Tensor<T> scale = g[0].unsqueeze(-1).unsqueeze(-1);
    return std::vector<Tensor<T>>{Tensor<T>(scale * detail::inverse_transposed(s[0], "LinalgSlogdetBackward"))};
  };
  r.logabsdet = record<T>(
      "LinalgSlogdetBackward",
      [&] {
        r = linalg::slogdet(a);
        return r.logabsdet;
      },
      formula, save<T>(a), a);
  return r;
}

template <Element T>
Tensor<T> solve(const Tensor<T>& a, const Tensor<T>& b, bool left) {
  if (!left)  // X A = B is A^T X^T = B^T: the transposes record too
    return detail::mT(tensorlib::linalg::solve(detail::mT(a), detail::mT(b), true));
  Shape a_but_last = a.sizes();
  a_but_last.resize(a.dim() - 1);
  const bool vector_case = b.dim() == 1 || (b.dim() == a.dim() - 1 && b.sizes() == a_but_last);
  auto formula = [vector_case](const std::vector<Tensor<T>>& g, const std::array<Tensor<T>, 3>& s,
                               const std::vector<bool>& needs) {
    const Tensor<T>&A = s[0], &B = s[1];
    const Tensor<T> X = vector_case ? s[2].unsqueeze(-1) : s[2];
    const Tensor<T> G = vector_case ? g[0].unsqueeze(-1) : g[0];
    const Tensor<T> gb = linalg::solve(detail::mT(A), G);
    Tensor<T> da, db;
    if (needs[0]) da = Tensor<T>(-tensorlib::matmul(gb, detail::mT(X))).sum_to_size(A.sizes());
    if (needs[1]) db = (vector_case ? gb.squeeze(-1) : gb).sum_to_size(B.sizes());
    return std::vector<Tensor<T>>{da, db};
  };
  return record_with_output<T>(
      "LinalgSolveBackward", [&] { return linalg::solve(a, b, true); }, formula, save<T>(a, b), a, b);
}

template <Element T>
Tensor<T> solve_triangular(const Tensor<T>& a, const Tensor<T>& b, bool upper, bool unitriangular) {
  auto formula = [upper, unitriangular](const std::vector<Tensor<T>>& g, const std::array<Tensor<T>, 3>& s,
                                        const std::vector<bool>& needs) {
    const Tensor<T>&A = s[0], &B = s[1], &X = s[2];
    const Tensor<T> gb = linalg::solve_triangular(detail::mT(A), g[0], !upper, true, unitriangular);
    Tensor<T> da, db;
    if (needs[0]) {
      const Tensor<T> full = -tensorlib::matmul(gb, detail::mT(X));
      const int64_t skip = unitriangular ? 1 : 0;
      da = (upper ? full.triu(skip) : full.tril(-skip)).sum_to_size(A.sizes());
    }
    if (needs[1]) db = gb.sum_to_size(B.sizes());
    return std::vector<Tensor<T>>{da, db};
  };
  return record_with_output<T>(
      "LinalgSolveTriangularBackward", [&] { return linalg::solve_triangular(a, b, upper, true, unitriangular); },
      formula, save<T>(a, b), a, b);
}

template <Element T>
Tensor<T> cholesky_solve(const Tensor<T>& b, const Tensor<T>& factor, bool upper) {
  auto formula = [upper](const std::vector<Tensor<T>>& g, const std::array<Tensor<T>, 3>& s,
                         const std::vector<bool>& needs) {
    const Tensor<T>&B = s[0], &L = s[1], &X = s[2];
    const Tensor<T> gb = tensorlib::cholesky_solve(g[0], L, upper);
    Tensor<T> db, dl;
    if (needs[0]) db = gb.sum_to_size(B.sizes());
    if (needs[1]) {
      const Tensor<T> half = tensorlib::matmul(gb, detail::mT(X));
      const Tensor<T> common = half + detail::mT(half);
      dl = Tensor<T>(-(upper ? tensorlib::matmul(L, common) : tensorlib::matmul(common, L))).sum_to_size(L.sizes());
    }
    return std::vector<Tensor<T>>{db, dl};
  };
  return record_with_output<T>(
      "CholeskySolveBackward", [&] { return tensorlib::cholesky_solve(b, factor, upper); }, formula, save<T>(b, factor),
      b, factor);
}

}  // namespace tensorlib::autograd
