#pragma once
/// \file
/// The matrix exponential of one row-major (n, n) double matrix, in place:
/// scaling and squaring with the degree-13 Pade approximant (Higham, "The
/// scaling and squaring method for the matrix exponential revisited", 2005).
///
/// Note [matrix exponential]
/// exp(A) = (exp(A / 2^s))^(2^s). With s the least power that brings
/// ||A / 2^s||_1 under theta_13 = 5.37 (Higham's bound for a backward error
/// of at most 2^-53 from the [13/13] approximant), the approximant
/// r(X) = (V - U)^-1 (V + U) is taken at X = A / 2^s and squared s times.
/// U holds the odd and V the even terms of the numerator p(X) =
/// sum_k c_k X^k, c_k = (2m - k)! m! / ((2m)! k! (m - k)!) for m = 13, whose
/// denominator is p(-X); both are built from X^2, X^4 and X^6 with six
/// products in all. One degree for every norm (Higham picks 3 to 13 by norm
/// to save products): smaller norms only make the approximant more accurate.
/// Everything is computed in double (Note [linalg working precision]). A
/// matrix with an infinite or NaN element gives NaN everywhere.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "tensorlib/backend/cpu/factorizations.hpp"

namespace tensorlib::cpu {
namespace detail {

/// c = a b for row-major (n, n) matrices (c distinct from a and b).
inline void square_product(const double* a, const double* b, double* c, int64_t n) {
  std::fill(c, c + n * n, 0.0);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t k = 0; k < n; ++k) {
      const double aik = a[i * n + k];
      if (aik == 0.0) continue;
      const double* row_b = b + k * n;
      double* row_c = c + i * n;
      for (int64_t j = 0; j < n; ++j) row_c[j] += aik * row_b[j];
    }
}

}  // namespace detail

/// exp(a) in place for the row-major (n, n) `a` (Note [matrix exponential]).
inline void matrix_exp(double* a, int64_t n) {
  if (n == 0) return;
  const auto nn = static_cast<std::size_t>(n * n);
  // ||A||_1, the largest column sum, scaled by 2^-512 so that the sum of
  // finite elements cannot overflow (it only picks s).
  double norm = 0;
  bool finite = true;
  for (int64_t j = 0; j < n; ++j) {
    double column = 0;
    for (int64_t i = 0; i < n; ++i) {
      finite = finite && std::isfinite(a[i * n + j]);
      column += std::ldexp(std::fabs(a[i * n + j]), -512);
    }
    norm = std::max(norm, column);
  }
  if (!finite) {
    std::fill(a, a + nn, std::numeric_limits<double>::quiet_NaN());
    return;
  }
  constexpr double kTheta13 = 5.371920351148152;
  const double excess = std::log2(norm / kTheta13) + 512;  // log2(||A||_1 / theta_13)
  const int s = excess > 0 ? static_cast<int>(std::ceil(excess)) : 0;
  for (std::size_t i = 0; i < nn; ++i) a[i] = std::ldexp(a[i], -s);

  constexpr int m = 13;
  double c[m + 1];
  c[0] = 1;
  for (int k = 1; k <= m; ++k) c[k] = c[k - 1] * (m - k + 1) / (static_cast<double>(k) * (2 * m - k + 1));

  std::vector<double> x2(nn), x4(nn), x6(nn), odd(nn), even(nn), t(nn);
  detail::square_product(a, a, x2.data(), n);
  detail::square_product(x2.data(), x2.data(), x4.data(), n);
  detail::square_product(x4.data(), x2.data(), x6.data(), n);
  // odd = X6 (c13 X6 + c11 X4 + c9 X2) + c7 X6 + c5 X4 + c3 X2 + c1 I, then U = X odd;
  // even = X6 (c12 X6 + c10 X4 + c8 X2) + c6 X6 + c4 X4 + c2 X2 + c0 I = V.
  for (std::size_t i = 0; i < nn; ++i) t[i] = c[13] * x6[i] + c[11] * x4[i] + c[9] * x2[i];
  detail::square_product(x6.data(), t.data(), odd.data(), n);
  for (std::size_t i = 0; i < nn; ++i) t[i] = c[12] * x6[i] + c[10] * x4[i] + c[8] * x2[i];
  detail::square_product(x6.data(), t.data(), even.data(), n);
  for (std::size_t i = 0; i < nn; ++i) {
    odd[i] += c[7] * x6[i] + c[5] * x4[i] + c[3] * x2[i];
    even[i] += c[6] * x6[i] + c[4] * x4[i] + c[2] * x2[i];
  }
  for (int64_t i = 0; i < n; ++i) {
    odd[static_cast<std::size_t>(i * n + i)] += c[1];
    even[static_cast<std::size_t>(i * n + i)] += c[0];
  }
  double* u = x2.data();  // X2, X4 and X6 are no longer needed
  detail::square_product(a, odd.data(), u, n);
  double* lhs = x4.data();  // V - U, factored; a becomes V + U, then r(X)
  for (std::size_t i = 0; i < nn; ++i) {
    lhs[i] = even[i] - u[i];
    a[i] = even[i] + u[i];
  }
  std::vector<int64_t> piv(static_cast<std::size_t>(n));
  lu_factor(lhs, n, piv.data());
  lu_solve(lhs, piv.data(), n, a, n);
  for (int i = 0; i < s; ++i) {
    detail::square_product(a, a, t.data(), n);
    std::copy(t.begin(), t.end(), a);
  }
}

}  // namespace tensorlib::cpu
