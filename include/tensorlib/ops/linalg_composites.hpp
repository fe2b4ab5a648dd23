#pragma once
/// \file
/// Linear algebra composed of the other ops: `addr` and `ger`, `chain_matmul`
/// and `linalg::multi_dot` (the cheapest multiplication order),
/// `linalg::vecdot`, `cholesky_inverse`, `pinverse`, `linalg::tensorinv`,
/// `linalg::tensorsolve`, `linalg::inv_ex`, `linalg::solve_ex`,
/// `linalg::cholesky_ex`, `linalg::cond`, `linalg::householder_product`
/// (`orgqr`) and `ormqr`. Each is built
/// from matmul, the LU and Cholesky solvers, svdvals, norms, reductions and
/// views, so it differentiates through them and runs where they run.
///
/// Shapes: n, p matrix sizes; * batch dimensions.

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string_view>
#include <type_traits>
#include <vector>

#include "tensorlib/core/error.hpp"
#include "tensorlib/core/shape.hpp"
#include "tensorlib/core/tensor.hpp"
#include "tensorlib/expr/composites.hpp"
#include "tensorlib/expr/functions.hpp"
#include "tensorlib/ops/evaluate.hpp"
#include "tensorlib/ops/factories.hpp"
#include "tensorlib/ops/join.hpp"
#include "tensorlib/ops/linalg.hpp"
#include "tensorlib/ops/linalg_batch.hpp"
#include "tensorlib/ops/lu.hpp"
#include "tensorlib/ops/norms.hpp"
#include "tensorlib/ops/reduce.hpp"
#include "tensorlib/ops/solve.hpp"
#include "tensorlib/ops/svd.hpp"
#include "tensorlib/ops/triangular_solve.hpp"
#include "tensorlib/ops/views.hpp"

namespace tensorlib {

/// `outer` (torch.ger, its old name).
template <Expression A, Expression B>
auto ger(const A& self, const B& vec2) {
  return outer(self, vec2);
}

/// beta * input + alpha * outer(vec1, vec2), input broadcast to (n, p)
/// (`torch.addr`). With beta == 0 `input` is not read (NaNs ignored).
template <Element T>
Tensor<T> addr(const Tensor<T>& input, const Tensor<T>& vec1, const Tensor<T>& vec2,
               std::type_identity_t<T> beta = T(1), std::type_identity_t<T> alpha = T(1)) {
  detail::check<ShapeError>(vec1.dim() == 1, "addr: Expected 1-D argument vec1, but got ", vec1.dim(), "-D");
  detail::check<ShapeError>(vec2.dim() == 1, "addr: Expected 1-D argument vec2, but got ", vec2.dim(), "-D");
  return addmm(input, vec1.unsqueeze(1), vec2.unsqueeze(0), beta, alpha);
}

namespace detail {

/// The batch shape (*) of a (*, m, n) tensor.
template <Element T>
Shape batch_shape(const Tensor<T>& A) {
  Shape batch;
  for (int64_t d = 0; d + 2 < A.dim(); ++d) batch.push_back(A.size(d));
  return batch;
}

/// The product of matrices[i..j] in the order `split` chose (split[i][j]:
/// the last matrix of the left factor).
template <Element T>
Tensor<T> chain_product(const std::vector<Tensor<T>>& matrices, const std::vector<std::vector<std::size_t>>& split,
                        std::size_t i, std::size_t j) {
  if (i == j) return matrices[i];
  const std::size_t k = split[i][j];
  return mm(chain_product(matrices, split, i, k), chain_product(matrices, split, k + 1, j));
}

/// The product of a chain of 2-d matrices (checked) in the order that needs
/// the fewest scalar multiplications: the classic O(k^3) dynamic programme
/// over the chain's k + 1 sizes.
template <Element T>
Tensor<T> multiply_chain(const std::vector<Tensor<T>>& matrices, const char* op) {
  const std::size_t k = matrices.size();
  for (std::size_t i = 0; i + 1 < k; ++i)
    check<ShapeError>(matrices[i].size(1) == matrices[i + 1].size(0), op, ": tensors ", i, " and ", i + 1,
                      " with shapes ", matrices[i].sizes(), " and ", matrices[i + 1].sizes(), " cannot be multiplied");
  check_same_device(matrices, op);
  std::vector<double> dims{static_cast<double>(matrices[0].size(0))};
  for (const auto& m : matrices) dims.push_back(static_cast<double>(m.size(1)));
  std::vector<std::vector<double>> cost(k, std::vector<double>(k, 0.0));
  std::vector<std::vector<std::size_t>> split(k, std::vector<std::size_t>(k, 0));
  for (std::size_t len = 1; len < k; ++len)
    for (std::size_t i = 0; i + len < k; ++i) {
      const std::size_t j = i + len;
      cost[i][j] = std::numeric_limits<double>::infinity();
      for (std::size_t s = i; s < j; ++s) {
        const double c = cost[i][s] + cost[s + 1][j] + dims[i] * dims[s + 1] * dims[j + 1];
        if (c < cost[i][j]) {
          cost[i][j] = c;
          split[i][j] = s;
        }
      }
    }
  return chain_product(matrices, split, 0, k - 1);
}

}  // namespace detail

/// The product of two or more 2-d matrices (`torch.chain_matmul`, which
/// PyTorch deprecates for `linalg::multi_dot`); one matrix gives a copy.
template <Element T>
Tensor<T> chain_matmul(const std::vector<Tensor<T>>& matrices) {
  detail::check<ValueError>(!matrices.empty(), "chain_matmul: Expected one or more matrices");
  for (std::size_t i = 0; i < matrices.size(); ++i)
    detail::check<ShapeError>(matrices[i].dim() == 2, "chain_matmul: Tensor dimension is ", matrices[i].dim(),
                              ", expected 2 instead.");
  if (matrices.size() == 1) return matrices.front().clone();
  return detail::multiply_chain(matrices, "chain_matmul");
}
/// `chain_matmul` of a braced list.
template <Element T>
Tensor<T> chain_matmul(std::initializer_list<Tensor<T>> matrices) {
  return chain_matmul(std::vector<Tensor<T>>(matrices));
}

/// The inverse of A = L L^T (U^T U with `upper`) from its Cholesky factor
/// (`torch.cholesky_inverse`): cholesky_solve of the identity.
template <Expression E, class T = value_type_t<E>>
Tensor<T> cholesky_inverse(const E& factor_expr, bool upper = false) {
  const Tensor<T> L = detail::materialize(factor_expr);
  detail::check<ShapeError>(L.dim() >= 2 && L.size(-1) == L.size(-2),
                            "cholesky_inverse: A must be batches of square matrices, but they are ",
                            L.dim() >= 2 ? L.size(-2) : 0, " by ", L.dim() >= 1 ? L.size(-1) : 0, " matrices");
  return cholesky_solve(eye<T>(L.size(-1), std::nullopt, {.device = L.device()}).expand(L.sizes()), L, upper);
}

/// `linalg::pinv` with `rcond` as the relative tolerance (`torch.pinverse`).
template <Expression E>
auto pinverse(const E& input, double rcond = 1e-15) {
  return linalg::pinv(input, std::nullopt, rcond);
}

namespace linalg {

/// The product of a chain of tensors in the cheapest order
/// (`torch.linalg.multi_dot`): 2-d matrices, except that the first may be a
/// 1-d row vector and the last a 1-d column vector, whose dimension the
/// result then lacks.
template <Element T>
Tensor<T> multi_dot(const std::vector<Tensor<T>>& tensors) {
  const char* op = "multi_dot";
  const std::size_t k = tensors.size();
  detail::check<ValueError>(k >= 2, op, ": expected at least 2 tensors but got ", k);
  std::vector<Tensor<T>> matrices(tensors);
  detail::check<ShapeError>(tensors.front().dim() == 1 || tensors.front().dim() == 2, op,
                            ": the first tensor must be 1D or 2D but got ", tensors.front().dim(), "D");
  detail::check<ShapeError>(tensors.back().dim() == 1 || tensors.back().dim() == 2, op,
                            ": the last tensor must be 1D or 2D but got ", tensors.back().dim(), "D");
  for (std::size_t i = 1; i + 1 < k; ++i)
    detail::check<ShapeError>(tensors[i].dim() == 2, op, ": tensor ", i, " must be 2D but got ", tensors[i].dim(), "D");
  const bool row = tensors.front().dim() == 1, column = tensors.back().dim() == 1;
  if (row) matrices.front() = tensors.front().unsqueeze(0);
  if (column) matrices.back() = tensors.back().unsqueeze(1);
  Tensor<T> out = detail::multiply_chain(matrices, op);
  if (column) out = out.squeeze(1);
  if (row) out = out.squeeze(0);
  return out;
}
/// `multi_dot` of a braced list.
template <Element T>
Tensor<T> multi_dot(std::initializer_list<Tensor<T>> tensors) {
  return multi_dot(std::vector<Tensor<T>>(tensors));
}

/// The dot product of x and y along `dim` after broadcasting them
/// (`torch.linalg.vecdot`): one fused sum of the product.
template <Expression A, Expression B>
auto vecdot(const A& x, const B& y, int64_t dim = -1) {
  static_assert(std::is_same_v<value_type_t<A>, value_type_t<B>>,
                "linalg.vecdot: x and y must have the same element type; convert one with .to<T>()");
  static_assert(is_floating<value_type_t<A>>, "linalg.vecdot: expected floating-point inputs (as PyTorch)");
  return (x * y).sum(dim);
}

/// The inverse of A viewed as a square matrix of its first `ind` dimensions
/// by the others (`torch.linalg.tensorinv`): the result has shape
/// A.shape[ind:] + A.shape[:ind], and tensordot(result, A, ind) is the identity.
template <Expression E, class T = value_type_t<E>>
Tensor<T> tensorinv(const E& A_expr, int64_t ind = 2) {
  const Tensor<T> A = detail::materialize(A_expr);
  detail::check<ValueError>(ind > 0, "linalg.tensorinv: Expected a strictly positive integer for 'ind', but got ", ind);
  detail::check<ShapeError>(ind <= A.dim(), "linalg.tensorinv: 'ind' (", ind, ") exceeds the ", A.dim(),
                            " dimensions of the input");
  Shape out_sizes;
  int64_t rows = 1, cols = 1;
  for (int64_t d = ind; d < A.dim(); ++d) {
    out_sizes.push_back(A.size(d));
    cols *= A.size(d);
  }
  for (int64_t d = 0; d < ind; ++d) {
    out_sizes.push_back(A.size(d));
    rows *= A.size(d);
  }
  detail::check<ShapeError>(rows == cols,
                            "linalg.tensorinv: Expected self to satisfy the requirement "
                            "prod(self.shape[ind:]) == prod(self.shape[:ind]), but got ",
                            cols, " != ", rows);
  return inv(A.reshape({rows, cols})).reshape(out_sizes);
}

/// The X with tensordot(A, X, X.dim()) == B (`torch.linalg.tensorsolve`):
/// A's trailing dimensions (after moving `dims` to the end) are X's shape;
/// they and A's first B.dim() must hold as many elements as B (NumPy's rule).
template <Expression EA, Expression EB, class T = value_type_t<EA>>
Tensor<T> tensorsolve(const EA& A_expr, const EB& B_expr, std::optional<std::vector<int64_t>> dims = std::nullopt) {
  static_assert(std::is_same_v<T, value_type_t<EB>>,
                "linalg.tensorsolve: A and B must have the same element type; convert one with .to<T>()");
  Tensor<T> A = detail::materialize(A_expr);
  const Tensor<T> B = detail::materialize(B_expr);
  if (dims && !dims->empty()) {
    Shape source, destination;
    for (std::size_t i = 0; i < dims->size(); ++i) {
      source.push_back((*dims)[i]);
      destination.push_back(A.dim() - static_cast<int64_t>(dims->size()) + static_cast<int64_t>(i));
    }
    A = A.movedim(source, destination);
  }
  detail::check<ShapeError>(B.dim() <= A.dim(), "linalg.tensorsolve: B has ", B.dim(), " dimensions, more than A's ",
                            A.dim());
  Shape x_sizes;
  int64_t lead = 1, rest = 1;
  for (int64_t d = 0; d < B.dim(); ++d) lead *= A.size(d);
  for (int64_t d = B.dim(); d < A.dim(); ++d) {
    x_sizes.push_back(A.size(d));
    rest *= A.size(d);
  }
  for (const int64_t other : {B.numel(), lead})
    detail::check<ShapeError>(rest == other,
                              "linalg.tensorsolve: Expected self to satisfy the requirement "
                              "prod(self.shape[other.ndim:]) == prod(self.shape[:other.ndim]), but got ",
                              rest, " != ", other);
  return solve(A.reshape({lead, rest}), B.reshape({-1})).reshape(x_sizes);
}

/// `torch.linalg.inv_ex`'s result: the inverses and, per matrix, `info`: 0,
/// or the 1-based index of the first zero on U's diagonal (where the inverse
/// holds inf or NaN).
template <Element T>
struct InvEx {
  Tensor<T> inverse;
  Tensor<int32_t> info;
};

/// The inverse of each square matrix without an error for a singular one
/// (`torch.linalg.inv_ex`), unless `check_errors`: lu_factor_ex of A^T, then
/// lu_solve of the identity with the adjoint. Factoring the transpose, as
/// `inv` and PyTorch's column-major LAPACK call do, gives PyTorch's `info`
/// (Note [LU of the transpose] in ops/solve.hpp).
template <Expression E, class T = value_type_t<E>>
InvEx<T> inv_ex(const E& A_expr, bool check_errors = false) {
  const Tensor<T> A = detail::materialize(A_expr);
  detail::check_square(A, "linalg.inv_ex");
  const LUFactorEx<T> f = lu_factor_ex(A.mT());
  if (check_errors) {
    const auto info = f.info.cpu().contiguous();
    for (int64_t i = 0; i < info.numel(); ++i)
      if (info.data_ptr()[i] != 0)
        detail::throw_linalg_error("linalg.inv_ex", A.dim() > 2, i,
                                   detail::concat("The diagonal element ", info.data_ptr()[i],
                                                  " is zero, the inversion could not be completed because the input "
                                                  "matrix is singular."));
  }
  const auto identity = eye<T>(A.size(-1), std::nullopt, {.device = A.device()}).expand(A.sizes());
  return {lu_solve(f.LU, f.pivots, identity, true, true), f.info};
}

/// `torch.linalg.solve_ex`'s result: the solution and, per matrix, `info`
/// (0, or the 1-based index of U's first zero pivot).
template <Element T>
struct SolveEx {
  Tensor<T> result;
  Tensor<int32_t> info;
};

/// The solution of A X = B (X A = B when not `left`) without an error for a
/// singular A (`torch.linalg.solve_ex`), unless `check_errors`: lu_factor_ex
/// of A^T (PyTorch's factorization of a contiguous A, so its `info`), then
/// lu_solve. B is a vector when 1-d or shaped like A without its last
/// dimension, as in `solve`.
template <Expression EA, Expression EB, class T = value_type_t<EA>>
SolveEx<T> solve_ex(const EA& A_expr, const EB& B_expr, bool left = true, bool check_errors = false) {
  static_assert(std::is_same_v<T, value_type_t<EB>>,
                "linalg.solve_ex: A and B must have the same element type; convert one with .to<T>()");
  const Tensor<T> A = detail::materialize(A_expr);
  const Tensor<T> B = detail::materialize(B_expr);
  detail::check_square(A, "linalg.solve_ex");
  const Shape batch_rows = [&] {
    Shape s = A.sizes();
    s.resize(A.dim() - 1);
    return s;
  }();
  const bool vector = B.dim() == 1 || (B.dim() == A.dim() - 1 && B.sizes() == batch_rows);
  const LUFactorEx<T> f = lu_factor_ex(A.mT());
  if (check_errors) {
    const auto info = f.info.cpu().contiguous();
    for (int64_t i = 0; i < info.numel(); ++i)
      if (info.data_ptr()[i] != 0)
        detail::throw_linalg_error("linalg.solve_ex", A.dim() > 2, i,
                                   "The solver failed because the input matrix is singular.");
  }
  const Tensor<T> Bm = vector ? (left ? B.unsqueeze(-1) : B.unsqueeze(-2)) : B;
  const Tensor<T> X = lu_solve(f.LU, f.pivots, Bm, left, true);
  return {vector ? X.squeeze(left ? -1 : -2) : X, f.info};
}

/// `torch.linalg.cholesky_ex`'s result: the factor and, per matrix, `info`
/// (0, or the order of the first leading minor that is not positive-definite).
template <Element T>
struct CholeskyEx {
  Tensor<T> L;
  Tensor<int32_t> info;
};

/// The Cholesky factor of each matrix without an error for one that is not
/// positive-definite (`torch.linalg.cholesky_ex`), unless `check_errors`.
/// Such a matrix's factor is zeros; when any matrix fails the result does not
/// record a gradient (with none failing it records as `cholesky`).
template <Expression E, class T = value_type_t<E>>
CholeskyEx<T> cholesky_ex(const E& A_expr, bool upper = false, bool check_errors = false) {
  static_assert(detail::linalg_float<T>,
                "linalg.cholesky_ex: expected a float or double tensor; convert it with .to<float>()");
  const Tensor<T> A = detail::materialize(A_expr);
  if (!A.is_cpu()) {  // Note [decompositions of CUDA tensors]
    const CholeskyEx<T> r = cholesky_ex(A.cpu(), upper, check_errors);
    return {r.L.to(A.device()), r.info.to(A.device())};
  }
  const char* op = "linalg.cholesky_ex";
  detail::check_square(A, op);
  const int64_t n = A.size(-1);
  const Tensor<T> As = detail::as_matrix_batch(A);
  const int64_t count = As.size(0);
  auto factor = zeros<T>(A.sizes());
  auto info = zeros<int32_t>(detail::batch_shape(A));
  const T* pa = As.data_ptr();
  T* po = factor.data_ptr();
  int32_t* pi = info.data_ptr();
  // upper: the lower factor of A^T (which reads A's upper triangle), transposed back.
  detail::for_each_matrix(A.device(), op, count, n * n * n / 3 + 1, [&](int64_t b) {
    std::vector<double> m(static_cast<std::size_t>(n * n));
    detail::load_matrix(pa + b * n * n, n, n, m.data(), upper);
    pi[b] = static_cast<int32_t>(cpu::cholesky_lower(m.data(), n));
    if (pi[b] == 0) detail::store_matrix(m.data(), n, n, po + b * n * n, upper);
    return int64_t{0};
  });
  int64_t failed = -1;
  for (int64_t b = 0; b < count && failed < 0; ++b)
    if (pi[b] != 0) failed = b;
  if (check_errors && failed >= 0)
    detail::throw_linalg_error(op, A.dim() > 2, failed,
                               detail::concat("The factorization could not be completed because the input is not "
                                              "positive-definite (the leading minor of order ",
                                              pi[failed], " is not positive-definite)."));
  if (failed < 0 && detail::records_grad(A)) return {linalg::cholesky(A, upper), info};
  return {factor, info};
}

}  // namespace linalg

namespace detail {

/// H_1 H_2 ... H_k applied to the first `columns` columns of the identity,
/// H_i = I - tau_i v_i v_i^T with v_i column i of A below the diagonal and 1
/// on it (LAPACK's elementary reflectors), applied from the last.
template <Element T>
Tensor<T> reflectors_times_identity(const Tensor<T>& A, const Tensor<T>& tau, int64_t columns, const char* op) {
  check<ShapeError>(A.dim() >= 2, op, ": input must have at least 2 dimensions, got ", A.dim());
  const int64_t m = A.size(-2), n = A.size(-1), k = tau.dim() >= 1 ? tau.size(-1) : 0;
  check<ShapeError>(m >= n, op,
                    ": input.shape[-2] must be greater than or equal to "
                    "input.shape[-1], got ",
                    A.sizes());
  check<ShapeError>(tau.dim() == A.dim() - 1 && n >= k, op,
                    ": tau must have one dimension less than input and at most input.shape[-1] "
                    "elements, got input ",
                    A.sizes(), " and tau ", tau.sizes());
  for (int64_t d = 0; d + 2 < A.dim(); ++d)
    check<ShapeError>(A.size(d) == tau.size(d), op,
                      ": expected batch dimensions of tau to match those of input, got input ", A.sizes(), " and tau ",
                      tau.sizes());
  const TensorOptions on{.device = A.device()};
  const Tensor<T> V = tril(A, -1) + eye<T>(m, n, on);
  Shape q_shape = A.sizes();
  q_shape[q_shape.size() - 1] = columns;
  Tensor<T> Q = eye<T>(m, columns, on).expand(q_shape);
  for (int64_t i = k - 1; i >= 0; --i) {
    const Tensor<T> v = V.narrow(-1, i, 1);                  // (*, m, 1)
    const Tensor<T> t = tau.narrow(-1, i, 1).unsqueeze(-1);  // (*, 1, 1)
    Q = Q - t * matmul(v, matmul(v.mT(), Q));
  }
  return Q;
}

}  // namespace detail

namespace linalg {

/// The first n columns of the product of k Householder reflectors (*, m, n)
/// from LAPACK's representation: v_i below the diagonal of `A`'s column i,
/// scale tau_i (`torch.linalg.householder_product`, alias `orgqr`).
template <Expression E, Expression Tau, class T = value_type_t<E>>
Tensor<T> householder_product(const E& A_expr, const Tau& tau_expr) {
  static_assert(std::is_same_v<T, value_type_t<Tau>>,
                "linalg.householder_product: input and tau must have the same element type");
  const Tensor<T> A = detail::materialize(A_expr), tau = detail::materialize(tau_expr);
  return detail::reflectors_times_identity(A, tau, A.dim() >= 1 ? A.size(-1) : 0, "linalg.householder_product");
}

}  // namespace linalg

namespace detail {

/// norm(A, p) * norm(A^-1, p), PyTorch's _linalg_cond_helper: a singular
/// matrix's inverse is taken as all inf, and the product's NaNs (0 * inf, a
/// NaN input) become inf.
template <Element T, class Ord>
Tensor<T> cond_by_inverse(const Tensor<T>& A, Ord ord) {
  check_square(A, "linalg.cond");
  const linalg::InvEx<T> r = linalg::inv_ex(A);
  const Tensor<T> inverse =
      where(r.info.unsqueeze(-1).unsqueeze(-1) != 0, std::numeric_limits<T>::infinity(), r.inverse);
  const double inf = std::numeric_limits<double>::infinity();
  return nan_to_num(linalg::matrix_norm(A, ord) * linalg::matrix_norm(inverse, ord), inf, inf, -inf);
}

}  // namespace detail

namespace linalg {

/// The condition number of each matrix in the norm `p` (`torch.linalg.cond`):
/// by default (and for 2 and -2) the ratio of its extreme singular values,
/// for any (*, m, n); for "fro", "nuc", inf, -inf, 1 and -1,
/// norm(A, p) * norm(inv(A), p) of square matrices, inf where A is singular
/// or the product is NaN. Empty matrices give 0, as PyTorch.
template <Expression E, class T = value_type_t<E>>
Tensor<T> cond(const E& A_expr, std::optional<double> p = std::nullopt) {
  const Tensor<T> A = detail::materialize(A_expr);
  detail::check<ShapeError>(A.dim() >= 2, "linalg.cond: The input tensor A must have at least 2 dimensions.");
  const double ord = p.value_or(2.0);
  detail::check<ValueError>(ord == 2.0 || ord == -2.0 || std::isinf(ord) || ord == 1.0 || ord == -1.0,
                            "linalg.cond: got an invalid norm type: ", ord);
  if (A.numel() == 0) return zeros<T>(detail::batch_shape(A), {.device = A.device()});
  if (ord == 2.0 || ord == -2.0) {
    const Tensor<T> s = svdvals(A);  // (*, k), descending
    const int64_t k = s.size(-1);
    const auto largest = s.narrow(-1, 0, 1).squeeze(-1), smallest = s.narrow(-1, k - 1, 1).squeeze(-1);
    return ord == 2.0 ? Tensor<T>(largest / smallest) : Tensor<T>(smallest / largest);
  }
  return detail::cond_by_inverse(A, ord);
}
/// `cond` in the Frobenius ("fro") or nuclear ("nuc") norm.
template <Expression E, class T = value_type_t<E>>
Tensor<T> cond(const E& A_expr, std::string_view p) {
  const Tensor<T> A = detail::materialize(A_expr);
  detail::check<ValueError>(p == "fro" || p == "nuc", "linalg.cond: got an invalid norm type: ", p);
  detail::check<ShapeError>(A.dim() >= 2, "linalg.cond: The input tensor A must have at least 2 dimensions.");
  detail::check_square(A, "linalg.cond");
  if (A.numel() == 0) return zeros<T>(detail::batch_shape(A), {.device = A.device()});
  return detail::cond_by_inverse(A, p);
}

}  // namespace linalg

/// `linalg::householder_product` (`torch.orgqr`).
template <Expression E, Expression Tau>
auto orgqr(const E& A, const Tau& tau) {
  return linalg::householder_product(A, tau);
}

/// Q C, Q^T C, C Q or C Q^T for Q the (*, m, m) product of the reflectors of
/// (A, tau) (`torch.ormqr(input, tau, other, left, transpose)`).
template <Expression E, Expression Tau, Expression C, class T = value_type_t<E>>
Tensor<T> ormqr(const E& A_expr, const Tau& tau_expr, const C& other_expr, bool left = true, bool transpose = false) {
  const Tensor<T> A = detail::materialize(A_expr), tau = detail::materialize(tau_expr);
  const Tensor<T> other = detail::materialize(other_expr);
  const Tensor<T> Q = detail::reflectors_times_identity(A, tau, A.dim() >= 2 ? A.size(-2) : 0, "ormqr");
  const Tensor<T> q = transpose ? Q.mT() : Q;
  return left ? matmul(q, other) : matmul(other, q);
}

template <Element T>
Tensor<T> Tensor<T>::addmm(const Tensor& mat1, const Tensor& mat2, T beta, T alpha) const {
  return tensorlib::addmm(*this, mat1, mat2, beta, alpha);
}
template <Element T>
Tensor<T>& Tensor<T>::addmm_(const Tensor& mat1, const Tensor& mat2, T beta, T alpha) {
  detail::write_into(*this, tensorlib::addmm(*this, mat1, mat2, beta, alpha), "addmm_");
  return *this;
}

template <Element T>
Tensor<T> Tensor<T>::addmv(const Tensor& mat, const Tensor& vec, T beta, T alpha) const {
  return tensorlib::addmv(*this, mat, vec, beta, alpha);
}
template <Element T>
Tensor<T>& Tensor<T>::addmv_(const Tensor& mat, const Tensor& vec, T beta, T alpha) {
  detail::write_into(*this, tensorlib::addmv(*this, mat, vec, beta, alpha), "addmv_");
  return *this;
}

template <Element T>
Tensor<T> Tensor<T>::addbmm(const Tensor& batch1, const Tensor& batch2, T beta, T alpha) const {
  return tensorlib::addbmm(*this, batch1, batch2, beta, alpha);
}
template <Element T>
Tensor<T>& Tensor<T>::addbmm_(const Tensor& batch1, const Tensor& batch2, T beta, T alpha) {
  detail::write_into(*this, tensorlib::addbmm(*this, batch1, batch2, beta, alpha), "addbmm_");
  return *this;
}

template <Element T>
Tensor<T> Tensor<T>::baddbmm(const Tensor& batch1, const Tensor& batch2, T beta, T alpha) const {
  return tensorlib::baddbmm(*this, batch1, batch2, beta, alpha);
}
template <Element T>
Tensor<T>& Tensor<T>::baddbmm_(const Tensor& batch1, const Tensor& batch2, T beta, T alpha) {
  detail::write_into(*this, tensorlib::baddbmm(*this, batch1, batch2, beta, alpha), "baddbmm_");
  return *this;
}

template <Element T>
Tensor<T> Tensor<T>::addr(const Tensor& vec1, const Tensor& vec2, T beta, T alpha) const {
  return tensorlib::addr(*this, vec1, vec2, beta, alpha);
}
template <Element T>
Tensor<T>& Tensor<T>::addr_(const Tensor& vec1, const Tensor& vec2, T beta, T alpha) {
  detail::write_into(*this, tensorlib::addr(*this, vec1, vec2, beta, alpha), "addr_");
  return *this;
}

}  // namespace tensorlib
