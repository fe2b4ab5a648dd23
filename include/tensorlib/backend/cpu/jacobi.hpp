#pragma once
/// \file
/// Jacobi methods for one matrix on the CPU, in `double`: the one-sided
/// (Hestenes) SVD and the cyclic two-sided eigen-decomposition of a
/// symmetric matrix. Jacobi is slower than bidiagonal / tridiagonal QR for
/// large matrices but simple and at least as accurate (Note [jacobi
/// accuracy]); tensorlib's linear algebra targets small and medium matrices.
///
/// Shapes: (m, n) the input with m >= n for the SVD (callers transpose
/// otherwise), k = n singular values; (n, n) symmetric input for eigh.
///
/// Note [jacobi accuracy]
/// One-sided Jacobi orthogonalizes the columns of A by plane rotations
/// (A V = W, V orthogonal), until every pair satisfies |w_p . w_q| <= eps
/// ||w_p|| ||w_q||. Then the singular values are ||w_i|| and U's columns
/// w_i / ||w_i|| are orthonormal to working precision even for tiny
/// singular values. A column that is exactly zero gets a unit vector
/// orthogonal to the others (from a Householder QR of the others), which is
/// also how U is completed to m columns for full_matrices. The symmetric
/// eigen-solver rotates until no off-diagonal entry exceeds eps times the
/// geometric mean of its two diagonal entries or eps^2 ||A||_F, which gives
/// eigenvalues with absolute error O(eps ||A||), as LAPACK's. Both scale the
/// matrix by a power of two first, so that entries near the overflow or
/// underflow thresholds do not overflow sums of squares.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <vector>

#include "tensorlib/backend/cpu/factorizations.hpp"

namespace tensorlib::cpu {

namespace detail {

inline double dot(const double* x, const double* y, int64_t n) {
  double s = 0;
  for (int64_t i = 0; i < n; ++i) s += x[i] * y[i];
  return s;
}

/// Rows r0..r1-1 of the row-major (rows, len) `q` made an orthonormal
/// completion of rows 0..r0-1 (themselves orthonormal): the Householder QR
/// of the matrix with those rows as columns gives an orthogonal Q whose
/// first r0 columns span them, so its next columns are orthogonal to them.
inline void complete_orthonormal_rows(double* q, int64_t r0, int64_t r1, int64_t len) {
  if (r1 <= r0) return;
  std::vector<double> m(static_cast<std::size_t>(len * r0)), tau(static_cast<std::size_t>(r0));
  for (int64_t r = 0; r < r0; ++r)
    for (int64_t i = 0; i < len; ++i) m[static_cast<std::size_t>(i * r0 + r)] = q[r * len + i];
  householder_qr(m.data(), len, r0, tau.data());
  std::vector<double> full(static_cast<std::size_t>(len * r1));
  householder_q(m.data(), len, r0, tau.data(), full.data(), r1);
  for (int64_t r = r0; r < r1; ++r)
    for (int64_t i = 0; i < len; ++i) q[r * len + i] = full[static_cast<std::size_t>(i * r1 + r)];
}

/// Scales x[0..len) by a power of two (exactly) so that its largest
/// magnitude lies in [0.5, 1): sums of squares then neither overflow nor
/// underflow. Returns the exponent e to undo it with (values * 2^e); 0 when x
/// is zero or not finite.
inline int scale_to_unit(double* x, int64_t len) {
  double big = 0;
  for (int64_t i = 0; i < len; ++i) big = std::max(big, std::fabs(x[i]));
  if (!(big > 0) || !std::isfinite(big)) return 0;
  int e = 0;
  std::frexp(big, &e);
  for (int64_t i = 0; i < len; ++i) x[i] = std::ldexp(x[i], -e);
  return e;
}

}  // namespace detail

/// SVD of the (m, n) matrix given as its n columns, the rows of the
/// row-major (n, m) `cols` (overwritten), m >= n. Writes the n singular
/// values in descending order to `s`; with vectors, the rows of the
/// row-major (ucols, m) `ut` become U's columns (ucols = n or m) and the
/// row-major (n, n) `vt` becomes V^T.
inline void jacobi_svd(double* cols, int64_t m, int64_t n, double* s, double* ut, int64_t ucols, double* vt,
                       bool vectors) {
  constexpr double eps = std::numeric_limits<double>::epsilon();
  std::vector<double> v;  // rows: V's columns
  if (vectors) {
    v.assign(static_cast<std::size_t>(n * n), 0.0);
    for (int64_t i = 0; i < n; ++i) v[static_cast<std::size_t>(i * n + i)] = 1.0;
  }
  bool has_nan = false;
  for (int64_t i = 0; i < n * m; ++i) has_nan = has_nan || std::isnan(cols[i]);
  const int exponent = detail::scale_to_unit(cols, n * m);
  // Squared column norms: recomputed at the start of each sweep, updated by
  // each rotation (alpha' = alpha - t gamma, beta' = beta + t gamma), which
  // saves two of the three dot products per pair.
  std::vector<double> sq(static_cast<std::size_t>(n));
  for (int sweep = 0; sweep < 80 && !has_nan; ++sweep) {
    bool rotated = false;
    for (int64_t i = 0; i < n; ++i) sq[static_cast<std::size_t>(i)] = detail::dot(cols + i * m, cols + i * m, m);
    for (int64_t p = 0; p + 1 < n; ++p) {
      for (int64_t q = p + 1; q < n; ++q) {
        double* wp = cols + p * m;
        double* wq = cols + q * m;
        const double alpha = sq[static_cast<std::size_t>(p)], beta = sq[static_cast<std::size_t>(q)];
        const double gamma = detail::dot(wp, wq, m);
        if (alpha == 0.0 || beta == 0.0 || std::fabs(gamma) <= eps * std::sqrt(alpha) * std::sqrt(beta)) continue;
        rotated = true;
        // The rotation that zeroes the off-diagonal of [[alpha, gamma], [gamma, beta]].
        const double zeta = (beta - alpha) / (2.0 * gamma);
        const double t = std::copysign(1.0, zeta) / (std::fabs(zeta) + std::sqrt(1.0 + zeta * zeta));
        const double c = 1.0 / std::sqrt(1.0 + t * t), sn = c * t;
        for (int64_t i = 0; i < m; ++i) {
          const double x = wp[i], y = wq[i];
          wp[i] = c * x - sn * y;
          wq[i] = sn * x + c * y;
        }
        sq[static_cast<std::size_t>(p)] = std::max(0.0, alpha - t * gamma);
        sq[static_cast<std::size_t>(q)] = beta + t * gamma;
        if (vectors) {
          double* vp = v.data() + p * n;
          double* vq = v.data() + q * n;
          for (int64_t i = 0; i < n; ++i) {
            const double x = vp[i], y = vq[i];
            vp[i] = c * x - sn * y;
            vq[i] = sn * x + c * y;
          }
        }
      }
    }
    if (!rotated) break;
  }
  std::vector<double> norms(static_cast<std::size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    const double* w = cols + i * m;
    double scale = 0;
    for (int64_t r = 0; r < m; ++r) scale = std::max(scale, std::fabs(w[r]));
    double ss = 0;
    if (scale > 0)
      for (int64_t r = 0; r < m; ++r) ss += (w[r] / scale) * (w[r] / scale);
    norms[static_cast<std::size_t>(i)] = has_nan ? std::nan("") : scale * std::sqrt(ss);
  }
  std::vector<int64_t> order(static_cast<std::size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int64_t x, int64_t y) {
    return norms[static_cast<std::size_t>(x)] > norms[static_cast<std::size_t>(y)];
  });
  for (int64_t i = 0; i < n; ++i) s[i] = norms[static_cast<std::size_t>(order[static_cast<std::size_t>(i)])];
  if (vectors) {
    int64_t nonzero = 0;  // columns of U from W; the rest are completed
    for (int64_t i = 0; i < n; ++i) {
      const int64_t src = order[static_cast<std::size_t>(i)];
      std::copy(v.begin() + src * n, v.begin() + src * n + n, vt + i * n);
      if (s[i] > std::numeric_limits<double>::min() || has_nan) {
        for (int64_t r = 0; r < m; ++r) ut[i * m + r] = cols[src * m + r] / s[i];
        nonzero = i + 1;
      }
    }
    if (!has_nan) detail::complete_orthonormal_rows(ut, nonzero, ucols, m);
  }
  for (int64_t i = 0; i < n; ++i) s[i] = std::ldexp(s[i], exponent);
}

/// Eigen-decomposition of the symmetric row-major (n, n) `a` (both
/// triangles filled; overwritten): eigenvalues ascending in `w` and, with
/// vectors, the row-major (n, n) `vecs` holding the eigenvectors as columns.
inline void jacobi_eigh(double* a, int64_t n, double* w, double* vecs, bool vectors) {
  constexpr double eps = std::numeric_limits<double>::epsilon();
  std::vector<double> v(static_cast<std::size_t>(vectors ? n * n : 0), 0.0);  // row-major, columns are vectors
  for (int64_t i = 0; vectors && i < n; ++i) v[static_cast<std::size_t>(i * n + i)] = 1.0;
  const int exponent = detail::scale_to_unit(a, n * n);
  double fro = 0;
  bool has_nan = false;
  for (int64_t i = 0; i < n * n; ++i) {
    fro += a[i] * a[i];
    has_nan = has_nan || std::isnan(a[i]);
  }
  const double floor_tol = eps * eps * std::sqrt(fro);
  for (int sweep = 0; sweep < 80 && !has_nan; ++sweep) {
    bool rotated = false;
    for (int64_t p = 0; p + 1 < n; ++p) {
      for (int64_t q = p + 1; q < n; ++q) {
        const double apq = a[p * n + q];
        const double app = a[p * n + p], aqq = a[q * n + q];
        if (std::fabs(apq) <= floor_tol ||
            std::fabs(apq) <= eps * std::sqrt(std::fabs(app)) * std::sqrt(std::fabs(aqq)))
          continue;
        rotated = true;
        // J = [[c, s], [-s, c]] in rows/columns p, q; A <- J^T A J zeroes a_pq.
        const double theta = (aqq - app) / (2.0 * apq);
        const double t = std::copysign(1.0, theta) / (std::fabs(theta) + std::sqrt(theta * theta + 1.0));
        const double c = 1.0 / std::sqrt(t * t + 1.0), s = t * c;
        for (int64_t k = 0; k < n; ++k) {  // columns p and q
          const double x = a[k * n + p], y = a[k * n + q];
          a[k * n + p] = c * x - s * y;
          a[k * n + q] = s * x + c * y;
        }
        for (int64_t k = 0; k < n; ++k) {  // rows p and q
          const double x = a[p * n + k], y = a[q * n + k];
          a[p * n + k] = c * x - s * y;
          a[q * n + k] = s * x + c * y;
        }
        a[p * n + q] = a[q * n + p] = 0.0;
        if (vectors)
          for (int64_t k = 0; k < n; ++k) {
            double* row = v.data() + k * n;
            const double x = row[p], y = row[q];
            row[p] = c * x - s * y;
            row[q] = s * x + c * y;
          }
      }
    }
    if (!rotated) break;
  }
  std::vector<int64_t> order(static_cast<std::size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int64_t x, int64_t y) { return a[x * n + x] < a[y * n + y]; });
  for (int64_t i = 0; i < n; ++i) {
    const int64_t src = order[static_cast<std::size_t>(i)];
    w[i] = has_nan ? std::nan("") : std::ldexp(a[src * n + src], exponent);
    if (vectors)
      for (int64_t k = 0; k < n; ++k)
        vecs[k * n + i] = has_nan ? std::nan("") : v[static_cast<std::size_t>(k * n + src)];
  }
}

}  // namespace tensorlib::cpu
