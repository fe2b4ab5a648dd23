#pragma once
/// \file
/// Everything built on LU with partial pivoting (backend/cpu/factorizations.hpp):
/// `linalg::solve`, `linalg::inv`, `linalg::det`, `linalg::slogdet`, and the
/// top-level `tl::det`, `tl::inverse`. Float and double (a static_assert
/// rejects other element types; PyTorch rejects them at run time). Results are
/// new contiguous tensors (Note [linalg working precision]).
///
/// Shapes: (*) batch dimensions, broadcast between A and B in `solve`;
/// (n, n) A; (n, k) right-hand sides.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <utility>
#include <vector>

#include "tensorlib/backend/cpu/factorizations.hpp"
#include "tensorlib/core/error.hpp"
#include "tensorlib/core/expression.hpp"
#include "tensorlib/core/tensor.hpp"
#include "tensorlib/expr/broadcast.hpp"
#include "tensorlib/expr/functions.hpp"
#include "tensorlib/expr/operators.hpp"
#include "tensorlib/ops/evaluate.hpp"
#include "tensorlib/ops/factories.hpp"
#include "tensorlib/ops/linalg.hpp"
#include "tensorlib/ops/linalg_batch.hpp"
#include "tensorlib/ops/views.hpp"

namespace tensorlib {
namespace linalg {

/// `torch.linalg.slogdet`'s result: the sign (-1, 0 or 1) of the
/// determinant and the log of its absolute value (-inf when it is 0).
/// An aggregate: `auto [sign, logabsdet] = tl::linalg::slogdet(A);`.
template <Element T>
struct SignLogAbsDet {
  Tensor<T> sign;
  Tensor<T> logabsdet;
};

}  // namespace linalg
namespace autograd {

// The recording forms (autograd/solve_backward.hpp).
template <Element T>
Tensor<T> inv(const Tensor<T>& a);
template <Element T>
Tensor<T> det(const Tensor<T>& a);
template <Element T>
linalg::SignLogAbsDet<T> slogdet(const Tensor<T>& a);
template <Element T>
Tensor<T> solve(const Tensor<T>& a, const Tensor<T>& b, bool left);

}  // namespace autograd
namespace detail {

// Note [LU of the transpose]
// PyTorch hands its row-major matrices to LAPACK, which reads them as
// column-major: the LU that inv and solve compute is that of A^T. Which pivot
// is first found to be exactly zero (the index in inv's error message)
// depends on it, so inv and solve factor A^T too and solve with
// lu_solve_transposed; det and slogdet factor A (the value is the same).

/// Sign and log|det| of the LU-factored (n, n) `lu` with pivots `piv`.
inline std::pair<double, double> lu_slogdet(const double* lu, const int64_t* piv, int64_t n) {
  double sign = 1, logabs = 0;
  for (int64_t i = 0; i < n; ++i) {
    const double d = lu[i * n + i];
    if (piv[i] != i) sign = -sign;
    if (d < 0) sign = -sign;
    if (d == 0) return {0.0, -std::numeric_limits<double>::infinity()};
    if (std::isnan(d)) return {std::nan(""), std::nan("")};
    logabs += std::log(std::fabs(d));
  }
  return {sign, logabs};
}

/// det or slogdet of every matrix of a (*, n, n) tensor: f(lu, piv, n) -> value(s).
template <Element T, class F>
void lu_determinants(const Tensor<T>& a, const char* op, F f) {
  const Tensor<T> mats = as_matrix_batch(a);
  const int64_t n = a.size(-1);
  const T* src = mats.data_ptr();
  for_each_matrix(a.device(), op, mats.size(0), n * n * n, [&](int64_t b) {
    std::vector<double> lu(static_cast<std::size_t>(n * n));
    std::vector<int64_t> piv(static_cast<std::size_t>(n));
    load_matrix(src + b * n * n, n, n, lu.data());
    cpu::lu_factor(lu.data(), n, piv.data());
    f(b, lu.data(), piv.data(), n);
    return int64_t{0};
  });
}

}  // namespace detail

namespace linalg {

/// The solution X of A X = B, or of X A = B when `left` is false
/// (`torch.linalg.solve`). B is a vector when it is 1-D or has A's shape
/// without its last dimension (with left = false that is an error, as in
/// PyTorch); otherwise (*, n, k) matrices, (*, k, n) when not `left`. Batch dimensions broadcast. A singular A (an
/// exactly zero pivot) is a LinAlgError.
template <Expression EA, Expression EB, class T = value_type_t<EA>>
Tensor<T> solve(const EA& A_expr, const EB& B_expr, bool left = true) {
  static_assert(std::is_same_v<T, value_type_t<EB>>,
                "linalg.solve: A and B must have the same element type; convert one with .to<T>()");
  static_assert(detail::linalg_float<T>,
                "linalg.solve: expected a float or double tensor; convert it with .to<float>()");
  const Tensor<T> A = detail::materialize(A_expr);
  const Tensor<T> B = detail::materialize(B_expr);
  detail::check_same_device("linalg.solve", A, B);
  if (!A.is_cpu())
    return linalg::solve(A.cpu(), B.cpu(), left).to(A.device());  // Note [decompositions of CUDA tensors]
  if (detail::records_grad(A, B)) return autograd::solve(A, B, left);
  const char* op = "linalg.solve";
  detail::check_square(A, op);
  detail::check<ShapeError>(B.dim() >= 1, op, ": The input tensor B must have at least 1 dimension.");
  const int64_t n = A.size(-1);
  Shape a_but_last = A.sizes();
  a_but_last.resize(A.dim() - 1);
  const bool vector_case = B.dim() == 1 || (B.dim() == A.dim() - 1 && B.sizes() == a_but_last);
  const Tensor<T> B2 = vector_case ? B.unsqueeze(-1) : B;
  detail::check_equation_shapes(B2, n, left, op);
  detail::check<ShapeError>(left || !vector_case, op,
                            ": Vector broadcasting of the left hand side is not supported for left=False. In this "
                            "case linalg.solve is equivalent to B / A.squeeze(-1)");
  // X A = B is A^T X^T = B^T.
  const Tensor<T> Al = left ? A : A.transpose(-1, -2), Bl = left ? B2 : B2.transpose(-1, -2);
  const int64_t k = Bl.size(-1);
  const Shape batch = broadcast_shapes(detail::batch_of(Al.sizes()), detail::batch_of(Bl.sizes()), op);
  const Tensor<T> As = detail::as_matrix_batch(Al.expand(detail::batch_with(batch, {n, n})));
  const Tensor<T> Bs = detail::as_matrix_batch(Bl.expand(detail::batch_with(batch, {n, k})));
  auto out = empty<T>(detail::batch_with(batch, {n, k}), {.device = A.device()});
  const T *pa = As.data_ptr(), *pb = Bs.data_ptr();
  T* po = out.data_ptr();
  const auto [bad, info] = detail::for_each_matrix(A.device(), op, As.size(0), n * n * (n + k), [&](int64_t b) {
    std::vector<double> lu(static_cast<std::size_t>(n * n)), x(static_cast<std::size_t>(n * k));
    std::vector<int64_t> piv(static_cast<std::size_t>(n));
    detail::load_matrix(pa + b * n * n, n, n, lu.data(), true);  // Note [LU of the transpose]
    const int64_t code = cpu::lu_factor(lu.data(), n, piv.data());
    if (code != 0) return code;
    detail::load_matrix(pb + b * n * k, n, k, x.data());
    cpu::lu_solve_transposed(lu.data(), piv.data(), n, x.data(), k);
    detail::store_matrix(x.data(), n, k, po + b * n * k);
    return int64_t{0};
  });
  if (info != 0)
    detail::throw_linalg_error("torch.linalg.solve", !batch.empty(), bad,
                               "The solver failed because the input matrix is singular.");
  const Tensor<T> X = left ? out : out.transpose(-1, -2).contiguous();
  return vector_case ? X.squeeze(-1) : X;
}

/// The inverse of each square matrix (`torch.linalg.inv`); a singular
/// matrix (an exactly zero pivot) is a LinAlgError.
template <Expression E, class T = value_type_t<E>>
Tensor<T> inv(const E& A_expr) {
  static_assert(detail::linalg_float<T>, "linalg.inv: expected a float or double tensor; convert it with .to<float>()");
  const Tensor<T> A = detail::materialize(A_expr);
  if (!A.is_cpu()) return linalg::inv(A.cpu()).to(A.device());  // Note [decompositions of CUDA tensors]
  if (detail::records_grad(A)) return autograd::inv(A);
  const char* op = "linalg.inv";
  detail::check_square(A, op);
  const int64_t n = A.size(-1);
  // The LU of A^T (Note [LU of the transpose]) is formed in place of the
  // loaded matrix's copy; the loaded matrix becomes I and then A^-1.
  const auto [out, bad, info] =
      detail::map_square_matrices(A, op, 2 * n * n * n, true, false, [](double* m, int64_t size) {
        const auto count = static_cast<std::size_t>(size * size);
        std::vector<double> lu(m, m + count);
        std::vector<int64_t> piv(static_cast<std::size_t>(size));
        const int64_t code = cpu::lu_factor(lu.data(), size, piv.data());
        if (code != 0) return code;
        std::fill(m, m + count, 0.0);
        for (int64_t i = 0; i < size; ++i) m[i * size + i] = 1.0;
        cpu::lu_solve_transposed(lu.data(), piv.data(), size, m, size);
        return int64_t{0};
      });
  if (info != 0)
    detail::throw_linalg_error(op, A.dim() > 2, bad,
                               detail::concat("The diagonal element ", info,
                                              " is zero, the inversion could not be completed because the input "
                                              "matrix is singular."));
  return out;
}

/// The determinant of each square matrix, shape (*) (`torch.linalg.det`);
/// 1 for 0 x 0 matrices.
template <Expression E, class T = value_type_t<E>>
Tensor<T> det(const E& A_expr) {
  static_assert(detail::linalg_float<T>, "linalg.det: expected a float or double tensor; convert it with .to<float>()");
  const Tensor<T> A = detail::materialize(A_expr);
  if (!A.is_cpu()) return linalg::det(A.cpu()).to(A.device());  // Note [decompositions of CUDA tensors]
  if (detail::records_grad(A)) return autograd::det(A);
  detail::check_square(A, "linalg.det");
  auto out = empty<T>(detail::batch_of(A.sizes()), {.device = A.device()});
  T* po = out.data_ptr();
  detail::lu_determinants(A, "linalg.det", [&](int64_t b, const double* lu, const int64_t* piv, int64_t n) {
    double d = 1;
    for (int64_t i = 0; i < n; ++i) d *= piv[i] != i ? -lu[i * n + i] : lu[i * n + i];
    po[b] = static_cast<T>(d);
  });
  return out;
}

/// Sign and log|det| of each square matrix (`torch.linalg.slogdet`): sign 0
/// and logabsdet -inf for a singular matrix; (1, 0) for 0 x 0.
template <Expression E, class T = value_type_t<E>>
SignLogAbsDet<T> slogdet(const E& A_expr) {
  static_assert(detail::linalg_float<T>,
                "linalg.slogdet: expected a float or double tensor; convert it with .to<float>()");
  const Tensor<T> A = detail::materialize(A_expr);
  if (!A.is_cpu()) {  // Note [decompositions of CUDA tensors]
    const auto [sign, logabsdet] = linalg::slogdet(A.cpu());
    return {sign.to(A.device()), logabsdet.to(A.device())};
  }
  if (detail::records_grad(A)) return autograd::slogdet(A);
  detail::check_square(A, "linalg.slogdet");
  auto sign = empty<T>(detail::batch_of(A.sizes()), {.device = A.device()});
  auto logabs = empty<T>(detail::batch_of(A.sizes()), {.device = A.device()});
  T *ps = sign.data_ptr(), *pl = logabs.data_ptr();
  detail::lu_determinants(A, "linalg.slogdet", [&](int64_t b, const double* lu, const int64_t* piv, int64_t n) {
    const auto [s, l] = detail::lu_slogdet(lu, piv, n);
    ps[b] = static_cast<T>(s);
    pl[b] = static_cast<T>(l);
  });
  return {sign, logabs};
}

}  // namespace linalg

/// `torch.det`: the same as `linalg::det`.
template <Expression E, class T = value_type_t<E>>
Tensor<T> det(const E& A_expr) {
  const Tensor<T> A = detail::materialize(A_expr);
  return linalg::det(A);
}

/// `torch.inverse`: the same as `linalg::inv`.
template <Expression E, class T = value_type_t<E>>
Tensor<T> inverse(const E& A_expr) {
  const Tensor<T> A = detail::materialize(A_expr);
  return linalg::inv(A);
}

/// `torch.logdet`: log(det(A)) of each square matrix: NaN where the
/// determinant is negative, -inf where it is 0. From slogdet, so it records
/// with slogdet's gradient.
template <Expression E, class T = value_type_t<E>>
Tensor<T> logdet(const E& A_expr) {
  const auto [sign, logabsdet] = linalg::slogdet(A_expr);
  return where(sign < T(0), std::numeric_limits<T>::quiet_NaN(), logabsdet);
}

template <class Derived>
auto PointwiseMethods<Derived>::det() const {
  return tensorlib::det(self());
}
template <class Derived>
auto PointwiseMethods<Derived>::logdet() const {
  return tensorlib::logdet(self());
}
template <class Derived>
auto PointwiseMethods<Derived>::slogdet() const {
  return linalg::slogdet(self());
}
template <class Derived>
auto PointwiseMethods<Derived>::inverse() const {
  return tensorlib::inverse(self());
}

}  // namespace tensorlib
