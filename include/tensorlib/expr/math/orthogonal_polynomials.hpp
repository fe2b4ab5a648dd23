#pragma once
/// \file
/// The classical orthogonal polynomials of torch.special, p_n(x) for a degree
/// tensor n: Chebyshev T, U, V, W and their shifted forms (x -> 2x - 1),
/// Hermite H (physicists') and He (probabilists'), Laguerre L and Legendre P.
/// In double (floats round once), on host and device.
///
/// Note [orthogonal polynomials]
/// Each is its three-term recurrence from p_0 = 1 and p_1, as PyTorch
/// computes it, with PyTorch's conventions for the degree: n is truncated
/// toward zero (2.7 is 2, -0.5 is 0), a negative degree gives 0, and p_0 = 1
/// whatever x is (NaN included); a degree of 2^63 or more (inf included)
/// gives 0 too, as PyTorch's cast makes it negative; a NaN degree gives NaN
/// (PyTorch's cast is undefined there and gives 0). Shortcuts keep large
/// degrees cheap where PyTorch has them: the Chebyshev families at |x| = 1
/// are exact integers, and inside (-1, 1) past PyTorch's degree (6 for T,
/// 8 for U, V, W; shifted: 6 for T, U, V, 4 for W) they are trigonometric:
/// with x = cos t, T_n = cos(n t), U_n = sin((n+1) t) / sin t,
/// V_n = cos((n + 1/2) t) / cos(t/2), W_n = sin((n + 1/2) t) / sin(t/2).
/// Elsewhere the recurrence runs n steps, stopping early once its value is
/// NaN (after an overflow, inf - inf), which it then stays; so, as in
/// PyTorch, Hermite short of overflow, Laguerre for x > 0 and Legendre inside
/// (-1, 1) cost n steps (seconds per element at n = 1e9).

#include <cmath>
#include <cstdint>
#include <limits>

#include "tensorlib/core/config.hpp"

namespace tensorlib::math {
namespace detail {

/// PyTorch's degree handling (Note [orthogonal polynomials]): true with the
/// result in `early` for a NaN, negative or zero degree; else the degree in `k`.
TENSORLIB_HOST_DEVICE inline bool polynomial_degree(double n, int64_t& k, double& early) {
  if (n != n) {
    early = n;
    return true;
  }
  const double t = std::trunc(n);
  if (t < 0 || t >= 0x1p63) {
    early = 0;
    return true;
  }
  if (t == 0) {
    early = 1;
    return true;
  }
  k = static_cast<int64_t>(t);
  return false;
}

/// (-1)^k.
TENSORLIB_HOST_DEVICE inline double alternating(int64_t k) { return k % 2 ? -1.0 : 1.0; }

/// p_k for the Chebyshev-type recurrence p_(j+1) = 2x p_j - p_(j-1) from p_0 = 1 and p_1.
TENSORLIB_HOST_DEVICE inline double chebyshev_recurrence(double x, double p1, int64_t k) {
  double p = 1, q = p1;
  for (int64_t j = 1; j < k && q == q; ++j) {
    const double r = 2 * x * q - p;
    p = q;
    q = r;
  }
  return q;
}

/// Chebyshev polynomial of kind 1 (T), 2 (U), 3 (V) or 4 (W) at x, degree
/// k >= 1; trigonometric inside (-1, 1) past degree `trigonometric_after`.
TENSORLIB_HOST_DEVICE inline double chebyshev(int kind, double x, int64_t k, int64_t trigonometric_after) {
  const double kd = static_cast<double>(k);
  if (std::fabs(x) == 1) {  // exact, whatever the degree
    const double sign = x > 0 ? 1.0 : alternating(k);
    switch (kind) {
      case 1:
        return sign;
      case 2:
        return sign * (kd + 1);
      case 3:
        return x > 0 ? 1.0 : sign * (2 * kd + 1);
      default:
        return x > 0 ? 2 * kd + 1 : sign;
    }
  }
  if (std::fabs(x) < 1 && k > trigonometric_after) {
    const double t = std::acos(x);
    switch (kind) {
      case 1:
        return std::cos(kd * t);
      case 2:
        return std::sin((kd + 1) * t) / std::sin(t);
      case 3:
        return std::cos((kd + 0.5) * t) / std::cos(t / 2);
      default:
        return std::sin((kd + 0.5) * t) / std::sin(t / 2);
    }
  }
  // p_1: T_1 = x, U_1 = 2x, V_1 = 2x - 1, W_1 = 2x + 1.
  const double p1 = kind == 1 ? x : kind == 2 ? 2 * x : kind == 3 ? 2 * x - 1 : 2 * x + 1;
  return chebyshev_recurrence(x, p1, k);
}

/// Physicists' Hermite polynomial H_n(x): H_(k+1) = 2x H_k - 2k H_(k-1).
TENSORLIB_HOST_DEVICE inline double hermite_h(double x, int64_t k) {
  double p = 1, q = 2 * x;
  for (int64_t j = 1; j < k && q == q; ++j) {
    const double r = 2 * x * q - 2 * static_cast<double>(j) * p;
    p = q;
    q = r;
  }
  return q;
}

/// Probabilists' Hermite polynomial He_n(x): He_(k+1) = x He_k - k He_(k-1).
TENSORLIB_HOST_DEVICE inline double hermite_he(double x, int64_t k) {
  double p = 1, q = x;
  for (int64_t j = 1; j < k && q == q; ++j) {
    const double r = x * q - static_cast<double>(j) * p;
    p = q;
    q = r;
  }
  return q;
}

/// Laguerre polynomial L_n(x): (k+1) L_(k+1) = (2k + 1 - x) L_k - k L_(k-1); 1 at x = 0.
TENSORLIB_HOST_DEVICE inline double laguerre_l(double x, int64_t k) {
  if (x == 0) return 1;
  double p = 1, q = 1 - x;
  for (int64_t j = 1; j < k && q == q; ++j) {
    const double jd = static_cast<double>(j);
    const double r = ((2 * jd + 1 - x) * q - jd * p) / (jd + 1);
    p = q;
    q = r;
  }
  return q;
}

/// Legendre polynomial P_n(x): (k+1) P_(k+1) = (2k + 1) x P_k - k P_(k-1); +-1 at +-1.
TENSORLIB_HOST_DEVICE inline double legendre_p(double x, int64_t k) {
  if (std::fabs(x) == 1) return x > 0 ? 1.0 : alternating(k);
  double p = 1, q = x;
  for (int64_t j = 1; j < k && q == q; ++j) {
    const double jd = static_cast<double>(j);
    const double r = ((2 * jd + 1) * x * q - jd * p) / (jd + 1);
    p = q;
    q = r;
  }
  return q;
}

}  // namespace detail

/// The families of torch.special's orthogonal polynomials.
enum class Polynomial {
  chebyshev_t,
  chebyshev_u,
  chebyshev_v,
  chebyshev_w,
  shifted_chebyshev_t,
  shifted_chebyshev_u,
  shifted_chebyshev_v,
  shifted_chebyshev_w,
  hermite_h,
  hermite_he,
  laguerre_l,
  legendre_p,
};

/// p_n(x) of the family `kind`, with PyTorch's degree handling (Note
/// [orthogonal polynomials]). The shifted Chebyshev polynomials are
/// T*_n(x) = T_n(2x - 1), and U*, V*, W* likewise.
TENSORLIB_HOST_DEVICE inline double orthogonal_polynomial(Polynomial kind, double x, double n) {
  int64_t k = 0;
  double early = 0;
  if (detail::polynomial_degree(n, k, early)) return early;
  switch (kind) {
    case Polynomial::chebyshev_t:
      return detail::chebyshev(1, x, k, 6);
    case Polynomial::chebyshev_u:
      return detail::chebyshev(2, x, k, 8);
    case Polynomial::chebyshev_v:
      return detail::chebyshev(3, x, k, 8);
    case Polynomial::chebyshev_w:
      return detail::chebyshev(4, x, k, 8);
    case Polynomial::shifted_chebyshev_t:
      return detail::chebyshev(1, 2 * x - 1, k, 6);
    case Polynomial::shifted_chebyshev_u:
      return detail::chebyshev(2, 2 * x - 1, k, 6);
    case Polynomial::shifted_chebyshev_v:
      return detail::chebyshev(3, 2 * x - 1, k, 6);
    case Polynomial::shifted_chebyshev_w:
      return detail::chebyshev(4, 2 * x - 1, k, 4);
    case Polynomial::hermite_h:
      return detail::hermite_h(x, k);
    case Polynomial::hermite_he:
      return detail::hermite_he(x, k);
    case Polynomial::laguerre_l:
      return detail::laguerre_l(x, k);
    case Polynomial::legendre_p:
      return detail::legendre_p(x, k);
  }
  return std::numeric_limits<double>::quiet_NaN();  // not reached: every family is named above
}
TENSORLIB_HOST_DEVICE inline float orthogonal_polynomial(Polynomial kind, float x, float n) {
  return static_cast<float>(orthogonal_polynomial(kind, static_cast<double>(x), static_cast<double>(n)));
}

}  // namespace tensorlib::math
