#pragma once
/// \file
/// Everything built on the singular value decomposition (one-sided Jacobi,
/// backend/cpu/jacobi.hpp): `linalg::svd`, `svdvals`, `lstsq`, `pinv`,
/// `matrix_rank`. Float and double only (static_assert). Singular vectors
/// are unique up to sign (and rotations within repeated singular values), so
/// U and Vh may differ from PyTorch's by those; A = U diag(S) Vh holds either
/// way (Note [linalg working precision]). `svd`, `svdvals` (and the norms
/// built on them) reject NaN and inf inputs with PyTorch's LinAlgError.
///
/// Shapes: (*) batch dimensions, (m, n) A, k = min(m, n), (m, r) right-hand
/// sides of lstsq.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <type_traits>
#include <vector>

#include "tensorlib/backend/cpu/jacobi.hpp"
#include "tensorlib/core/error.hpp"
#include "tensorlib/core/expression.hpp"
#include "tensorlib/core/tensor.hpp"
#include "tensorlib/expr/broadcast.hpp"
#include "tensorlib/ops/eigh.hpp"
#include "tensorlib/ops/factories.hpp"
#include "tensorlib/ops/linalg.hpp"
#include "tensorlib/ops/linalg_batch.hpp"

namespace tensorlib {
namespace linalg {

/// `torch.linalg.svd`'s result. An aggregate: `auto [U, S, Vh] = tl::linalg::svd(A);`.
template <Element T>
struct SVD {
  Tensor<T> U;   // (*, m, m) or (*, m, k)
  Tensor<T> S;   // (*, k), descending
  Tensor<T> Vh;  // (*, n, n) or (*, k, n)
};

/// `torch.linalg.lstsq`'s result, as PyTorch's default CPU driver 'gelsy'
/// fills it: the solution and the rank; residuals and singular_values are
/// empty (shape [0]), as gelsy leaves them.
template <Element T>
struct Lstsq {
  Tensor<T> solution;
  Tensor<T> residuals;
  Tensor<int64_t> rank;
  Tensor<T> singular_values;
};

}  // namespace linalg

namespace detail {

/// Whether every entry of a loaded matrix is finite (the SVD's precondition).
inline bool all_finite(const std::vector<double>& a) {
  return std::all_of(a.begin(), a.end(), [](double v) { return std::isfinite(v); });
}

/// Loads matrix `src` of a matrix_rank/pinv input into `a` (the lower
/// triangle mirrored when `hermitian`, as eigh reads it). False when a general
/// matrix holds a non-finite entry, which PyTorch's SVD refuses; its
/// hermitian path does not check.
template <Element T>
bool load_spectrum_input(const T* src, int64_t m, int64_t n, bool hermitian, std::vector<double>& a) {
  a.resize(static_cast<std::size_t>(m * n));
  if (hermitian) {
    load_symmetric(src, n, true, a.data());
    return true;
  }
  load_matrix(src, m, n, a.data());
  return all_finite(a);
}

/// The error of an SVD whose input matrix `bad` held non-finite values
/// (`info` nonzero), in PyTorch's words.
template <Element T>
void check_svd_input(const char* op, const Tensor<T>& A, int64_t bad, int64_t info) {
  if (info != 0)
    throw_linalg_error(op, A.dim() > 2, bad,
                       "The algorithm failed to converge because the input matrix contained non-finite values.");
}

/// The SVD of one (m, n) matrix as rows: s (k), u (ucount, m) whose rows are
/// U's columns, v (vcount, n) whose rows are V's columns (ucount = m or k,
/// vcount = n or k with `full`).
struct SvdRows {
  std::vector<double> s, u, v;
  int64_t ucount = 0, vcount = 0;
};

/// SVD of the row-major (m, n) working matrix `a` (overwritten). Jacobi
/// wants at least as many rows as columns, so a wide A is decomposed as A^T
/// with the roles of U and V swapped.
inline SvdRows svd_rows(std::vector<double>& a, int64_t m, int64_t n, bool full, bool vectors) {
  const int64_t k = std::min(m, n);
  SvdRows r;
  r.s.resize(static_cast<std::size_t>(k));
  if (m >= n) {
    std::vector<double> cols(static_cast<std::size_t>(m * n));  // A's columns as rows
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j)
        cols[static_cast<std::size_t>(j * m + i)] = a[static_cast<std::size_t>(i * n + j)];
    r.ucount = full ? m : n;
    r.vcount = n;
    if (vectors) {
      r.u.resize(static_cast<std::size_t>(r.ucount * m));
      r.v.resize(static_cast<std::size_t>(n * n));
    }
    cpu::jacobi_svd(cols.data(), m, n, r.s.data(), r.u.data(), r.ucount, r.v.data(), vectors);
  } else {
    r.ucount = m;
    r.vcount = full ? n : m;
    if (vectors) {
      r.u.resize(static_cast<std::size_t>(m * m));
      r.v.resize(static_cast<std::size_t>(r.vcount * n));
    }
    cpu::jacobi_svd(a.data(), n, m, r.s.data(), r.v.data(), r.vcount, r.u.data(), vectors);
  }
  return r;
}

/// The singular-value cutoff of matrix_rank / pinv (PyTorch 1.13): max(atol,
/// rtol * largest), rtol defaulting to eps * max(m, n), or to 0 when only a
/// positive atol is given.
template <class T>
double rank_tolerance(std::optional<double> atol, std::optional<double> rtol, int64_t m, int64_t n, double largest) {
  const double eps = std::numeric_limits<T>::epsilon();
  const double r = rtol ? *rtol : (atol && *atol > 0 ? 0.0 : eps * static_cast<double>(std::max(m, n)));
  return std::max(atol.value_or(0.0), r * largest);
}

/// The spectrum whose cutoff decides rank and pseudo-inverse: singular values
/// (descending) and rows of U and V, or, for `hermitian`, |eigenvalues| with
/// the eigenvectors as both U and V and the signs kept in `sign`.
struct Spectrum {
  SvdRows rows;
  std::vector<double> sign;
};

inline Spectrum spectrum_of(std::vector<double>& a, int64_t m, int64_t n, bool hermitian, bool vectors) {
  Spectrum sp;
  if (!hermitian) {
    sp.rows = svd_rows(a, m, n, false, vectors);
    sp.sign.assign(sp.rows.s.size(), 1.0);
    return sp;
  }
  std::vector<double> w(static_cast<std::size_t>(n)), vecs(static_cast<std::size_t>(vectors ? n * n : 0));
  cpu::jacobi_eigh(a.data(), n, w.data(), vecs.data(), vectors);
  sp.rows.s.resize(w.size());
  sp.sign.resize(w.size());
  sp.rows.ucount = sp.rows.vcount = n;
  if (vectors) sp.rows.u.resize(static_cast<std::size_t>(n * n));
  for (int64_t i = 0; i < n; ++i) {
    sp.rows.s[static_cast<std::size_t>(i)] = std::fabs(w[static_cast<std::size_t>(i)]);
    sp.sign[static_cast<std::size_t>(i)] = w[static_cast<std::size_t>(i)] < 0 ? -1.0 : 1.0;
    for (int64_t r = 0; vectors && r < n; ++r)
      sp.rows.u[static_cast<std::size_t>(i * n + r)] = vecs[static_cast<std::size_t>(r * n + i)];
  }
  sp.rows.v = sp.rows.u;
  return sp;
}

template <Element T>
linalg::SVD<T> svd_impl(const Tensor<T>& A, bool full, bool vectors, const char* op) {
  check_at_least_matrix(A, op);
  const int64_t m = A.size(-2), n = A.size(-1), k = std::min(m, n);
  const Shape batch = batch_of(A.sizes());
  const Tensor<T> As = as_matrix_batch(A);
  const int64_t uc = full ? m : k, vc = full ? n : k;
  auto S = empty<T>(batch_with(batch, {k}), {.device = A.device()});
  Tensor<T> U, Vh;
  if (vectors) {
    U = empty<T>(batch_with(batch, {m, uc}), {.device = A.device()});
    Vh = empty<T>(batch_with(batch, {vc, n}), {.device = A.device()});
  }
  const T* pa = As.data_ptr();
  T* ps = S.data_ptr();
  const auto [bad, info] = for_each_matrix(A.device(), op, As.size(0), 8 * m * n * k + 1, [&](int64_t b) {
    std::vector<double> a(static_cast<std::size_t>(m * n));
    load_matrix(pa + b * m * n, m, n, a.data());
    if (!all_finite(a)) return int64_t{1};
    const SvdRows r = svd_rows(a, m, n, full, vectors);
    for (int64_t i = 0; i < k; ++i) ps[b * k + i] = static_cast<T>(r.s[static_cast<std::size_t>(i)]);
    if (vectors) {
      store_matrix(r.u.data(), uc, m, U.data_ptr() + b * m * uc, true);
      store_matrix(r.v.data(), vc, n, Vh.data_ptr() + b * vc * n);
    }
    return int64_t{0};
  });
  check_svd_input(op, A, bad, info);
  return {U, S, Vh};
}

}  // namespace detail

namespace linalg {}  // namespace linalg
namespace autograd {

// The recording forms (autograd/decomposition_backward.hpp).
template <Element T>
linalg::SVD<T> svd(const Tensor<T>& a, bool full_matrices);
template <Element T>
Tensor<T> pinv(const Tensor<T>& a, std::optional<double> atol, std::optional<double> rtol, bool hermitian);

}  // namespace autograd
namespace linalg {

/// The singular value decomposition A = U diag(S) Vh of each matrix
/// (`torch.linalg.svd`), singular values descending. `full_matrices`: U is
/// (*, m, m) and Vh (*, n, n); otherwise (*, m, k) and (*, k, n).
template <Expression E, class T = value_type_t<E>>
SVD<T> svd(const E& A_expr, bool full_matrices = true) {
  static_assert(detail::linalg_float<T>, "linalg.svd: expected a float or double tensor; convert it with .to<float>()");
  const Tensor<T> A = detail::materialize(A_expr);
  if (!A.is_cpu()) {  // Note [decompositions of CUDA tensors]
    const auto [U, S, Vh] = linalg::svd(A.cpu(), full_matrices);
    return {U.to(A.device()), S.to(A.device()), Vh.to(A.device())};
  }
  if (detail::records_grad(A)) return autograd::svd(A, full_matrices);
  return detail::svd_impl(A, full_matrices, true, "linalg.svd");
}

/// The singular values of each matrix, descending, (*, k) (`torch.linalg.svdvals`).
template <Expression E, class T = value_type_t<E>>
Tensor<T> svdvals(const E& A_expr) {
  static_assert(detail::linalg_float<T>,
                "linalg.svdvals: expected a float or double tensor; convert it with .to<float>()");
  const Tensor<T> A = detail::materialize(A_expr);
  if (!A.is_cpu()) return linalg::svdvals(A.cpu()).to(A.device());  // Note [decompositions of CUDA tensors]
  if (detail::records_grad(A)) return autograd::svd(A, false).S;
  return detail::svd_impl(A, false, false, "linalg.svd").S;  // PyTorch names svd in its errors
}

/// The number of singular values (absolute eigenvalues with `hermitian`)
/// above max(atol, rtol * largest) for each matrix, as int64 of shape (*)
/// (`torch.linalg.matrix_rank`; default tolerances in detail::rank_tolerance).
template <Expression E, class T = value_type_t<E>>
Tensor<int64_t> matrix_rank(const E& A_expr, std::optional<double> atol = std::nullopt,
                            std::optional<double> rtol = std::nullopt, bool hermitian = false) {
  static_assert(detail::linalg_float<T>,
                "linalg.matrix_rank: expected a float or double tensor; convert it with .to<float>()");
  const Tensor<T> A = detail::materialize(A_expr);
  if (!A.is_cpu())  // Note [decompositions of CUDA tensors]
    return linalg::matrix_rank(A.cpu(), atol, rtol, hermitian).to(A.device());
  const char* op = "torch.linalg.matrix_rank";
  detail::check<ShapeError>(A.dim() >= 2, op, ": The input tensor input must have at least 2 dimensions.");
  if (hermitian) detail::check_square(A, "linalg.eigh");
  const int64_t m = A.size(-2), n = A.size(-1);
  const Tensor<T> As = detail::as_matrix_batch(A);
  auto out = empty<int64_t>(detail::batch_of(A.sizes()), {.device = A.device()});
  const T* pa = As.data_ptr();
  int64_t* po = out.data_ptr();
  const auto [bad, info] =
      detail::for_each_matrix(A.device(), op, As.size(0), 8 * m * n * std::min(m, n) + 1, [&](int64_t b) {
        std::vector<double> a;
        if (!detail::load_spectrum_input(pa + b * m * n, m, n, hermitian, a)) return int64_t{1};
        const detail::Spectrum sp = detail::spectrum_of(a, m, n, hermitian, false);
        const auto& s = sp.rows.s;
        const double largest = s.empty() ? 0.0 : *std::max_element(s.begin(), s.end());
        const double tol = detail::rank_tolerance<T>(atol, rtol, m, n, largest);
        po[b] = std::count_if(s.begin(), s.end(), [tol](double x) { return x > tol; });
        return int64_t{0};
      });
  detail::check_svd_input(op, A, bad, info);
  return out;
}

/// The pseudo-inverse of each matrix, (*, n, m) (`torch.linalg.pinv`):
/// V diag(1/S) U^T over the singular values above max(atol, rtol * largest);
/// with `hermitian`, from the eigen-decomposition of the lower triangle.
/// Differentiable through svd (eigh when `hermitian`), as PyTorch's composite.
template <Expression E, class T = value_type_t<E>>
Tensor<T> pinv(const E& A_expr, std::optional<double> atol = std::nullopt, std::optional<double> rtol = std::nullopt,
               bool hermitian = false) {
  static_assert(detail::linalg_float<T>,
                "linalg.pinv: expected a float or double tensor; convert it with .to<float>()");
  const Tensor<T> A = detail::materialize(A_expr);
  if (!A.is_cpu())  // Note [decompositions of CUDA tensors]
    return linalg::pinv(A.cpu(), atol, rtol, hermitian).to(A.device());
  const char* op = "linalg.pinv";
  detail::check_at_least_matrix(A, op);
  if (hermitian) detail::check_square(A, "linalg.eigh");
  if (detail::records_grad(A)) return autograd::pinv(A, atol, rtol, hermitian);
  const int64_t m = A.size(-2), n = A.size(-1);
  const Tensor<T> As = detail::as_matrix_batch(A);
  auto out = empty<T>(detail::batch_with(detail::batch_of(A.sizes()), {n, m}), {.device = A.device()});
  const T* pa = As.data_ptr();
  T* po = out.data_ptr();
  const auto [bad, info] =
      detail::for_each_matrix(A.device(), op, As.size(0), 10 * m * n * std::min(m, n) + 1, [&](int64_t b) {
        std::vector<double> a, x(static_cast<std::size_t>(n * m), 0.0);
        if (!detail::load_spectrum_input(pa + b * m * n, m, n, hermitian, a)) return int64_t{1};
        const detail::Spectrum sp = detail::spectrum_of(a, m, n, hermitian, true);
        const auto& s = sp.rows.s;
        const double largest = s.empty() ? 0.0 : *std::max_element(s.begin(), s.end());
        const double tol = detail::rank_tolerance<T>(atol, rtol, m, n, largest);
        for (std::size_t i = 0; i < s.size(); ++i) {
          if (!(s[i] > tol)) continue;
          const double inv = sp.sign[i] / s[i];
          const double* u = sp.rows.u.data() + i * static_cast<std::size_t>(m);
          const double* v = sp.rows.v.data() + i * static_cast<std::size_t>(n);
          for (int64_t r = 0; r < n; ++r)
            for (int64_t c = 0; c < m; ++c) x[static_cast<std::size_t>(r * m + c)] += v[r] * inv * u[c];
        }
        detail::store_matrix(x.data(), n, m, po + b * n * m);
        return int64_t{0};
      });
  detail::check_svd_input(op, A, bad, info);
  return out;
}

/// The least-squares solution X minimizing ||A X - B|| (the minimum-norm one
/// when A is rank-deficient) for each matrix (`torch.linalg.lstsq`). B has
/// as many dimensions as A, or one fewer (then it is a vector); batch
/// dimensions broadcast; `rank` has A's batch shape. Singular values at or below rcond * largest are treated as 0;
/// rcond defaults to eps * max(m, n). Computed from the SVD (PyTorch's
/// default CPU driver 'gelsy' uses QR with column pivoting: the same
/// solution up to rounding whenever the numerical rank is clear-cut). Only
/// the solution is differentiable, as in PyTorch.
template <Expression EA, Expression EB, class T = value_type_t<EA>>
Lstsq<T> lstsq(const EA& A_expr, const EB& B_expr, std::optional<double> rcond = std::nullopt) {
  static_assert(std::is_same_v<T, value_type_t<EB>>,
                "linalg.lstsq: A and B must have the same element type; convert one with .to<T>()");
  static_assert(detail::linalg_float<T>,
                "linalg.lstsq: expected a float or double tensor; convert it with .to<float>()");
  const Tensor<T> A = detail::materialize(A_expr);
  const Tensor<T> B = detail::materialize(B_expr);
  const char* op = "torch.linalg.lstsq";
  detail::check<ShapeError>(A.dim() >= 2, op, ": input must have at least 2 dimensions.");
  detail::check<ShapeError>(B.dim() >= 1, op, ": other must have at least 1 dimension.");
  detail::check_same_device(op, A, B);
  if (!A.is_cpu()) {  // Note [decompositions of CUDA tensors]
    const auto [X, residuals, rank, singular_values] = linalg::lstsq(A.cpu(), B.cpu(), rcond);
    return {X.to(A.device()), residuals.to(A.device()), rank.to(A.device()), singular_values.to(A.device())};
  }
  detail::check<ShapeError>(
      A.dim() >= B.dim() && A.dim() - B.dim() <= 1, op,
      ": input.dim() must be greater or equal to other.dim() and (input.dim() - other.dim()) <= 1");
  const bool vector_case = B.dim() == A.dim() - 1;
  const Tensor<T> B2 = vector_case ? B.unsqueeze(-1) : B;
  detail::check<ShapeError>(A.size(-2) == B2.size(-2), op, ": input.size(-2) should match other.size(",
                            vector_case ? -1 : -2, ")");
  const int64_t m = A.size(-2), n = A.size(-1), k = B2.size(-1);
  const Shape batch = broadcast_shapes(detail::batch_of(A.sizes()), detail::batch_of(B2.sizes()), op);
  const Tensor<T> As = detail::as_matrix_batch(A.expand(detail::batch_with(batch, {m, n})));
  const Tensor<T> Bs = detail::as_matrix_batch(B2.expand(detail::batch_with(batch, {m, k})));
  auto X = empty<T>(detail::batch_with(batch, {n, k}), {.device = A.device()});
  auto rank = empty<int64_t>(batch, {.device = A.device()});
  const double cut = rcond ? *rcond : std::numeric_limits<T>::epsilon() * static_cast<double>(std::max(m, n));
  const T *pa = As.data_ptr(), *pb = Bs.data_ptr();
  T* px = X.data_ptr();
  int64_t* pr = rank.data_ptr();
  detail::for_each_matrix(A.device(), op, As.size(0), 8 * m * n * std::min(m, n) + m * n * k + 1, [&](int64_t b) {
    std::vector<double> a(static_cast<std::size_t>(m * n)), rhs(static_cast<std::size_t>(m * k));
    std::vector<double> x(static_cast<std::size_t>(n * k), 0.0), proj(static_cast<std::size_t>(k));
    detail::load_matrix(pa + b * m * n, m, n, a.data());
    detail::load_matrix(pb + b * m * k, m, k, rhs.data());
    const detail::SvdRows r = detail::svd_rows(a, m, n, false, true);
    const double largest = r.s.empty() ? 0.0 : r.s[0];
    int64_t rk = 0;
    for (std::size_t i = 0; i < r.s.size(); ++i) {
      if (!(r.s[i] > cut * largest)) continue;
      ++rk;
      const double* u = r.u.data() + i * static_cast<std::size_t>(m);
      const double* v = r.v.data() + i * static_cast<std::size_t>(n);
      std::fill(proj.begin(), proj.end(), 0.0);  // u_i^T B / s_i
      for (int64_t row = 0; row < m; ++row)
        for (int64_t c = 0; c < k; ++c)
          proj[static_cast<std::size_t>(c)] += u[row] * rhs[static_cast<std::size_t>(row * k + c)];
      for (int64_t row = 0; row < n; ++row)
        for (int64_t c = 0; c < k; ++c)
          x[static_cast<std::size_t>(row * k + c)] += v[row] * proj[static_cast<std::size_t>(c)] / r.s[i];
    }
    pr[b] = rk;
    detail::store_matrix(x.data(), n, k, px + b * n * k);
    return int64_t{0};
  });
  // PyTorch's rank has A's own batch shape (A.dim() >= B.dim(), so A has every batch dimension).
  Tensor<int64_t> a_rank = rank;
  for (int64_t d = 0; d < a_rank.dim(); ++d)
    if (A.size(d) == 1) a_rank = a_rank.narrow(d, 0, 1);
  // Recording: PyTorch's linalg_lstsq_backward is the derivative of pinv(A) B,
  // so the solution is computed that way (the same values up to rounding).
  if (detail::records_grad(A, B)) X = matmul(autograd::pinv(A, std::nullopt, cut, false), B2);
  return {vector_case ? X.squeeze(-1) : X, empty<T>({0}, {.device = A.device()}), a_rank.contiguous(),
          empty<T>({0}, {.device = A.device()})};
}

}  // namespace linalg
}  // namespace tensorlib
