#pragma once
/// \file
/// The modified Bessel functions of the first kind of orders 0 and 1, plain
/// (i0, i1) and exponentially scaled (i0e(x) = e^-|x| I0(x), i1e), computed
/// in double (floats round the double result once), on host and device.
///
/// Note [modified Bessel functions]
/// Two expansions, each of positive terms (so no cancellation) where used:
///   - for |x| <= 30 the power series I_n(x) = (x/2)^n sum_k (x^2/4)^k / (k! (k+n)!),
///     summed until a term no longer changes the sum (about |x|/2 + 20 terms);
///   - above, Hankel's asymptotic series
///         I_n(x) = e^x / sqrt(2 pi x) sum_k t_k,  t_0 = 1,
///         t_k = t_(k-1) ((2k-1)^2 - 4n^2) / (8 k x),
///     whose terms fall below 2^-53 within about fifteen steps for x > 30 (the
///     smallest term is near e^-2x). e^x is applied as e^(x/2) e^(x/2), so
///     I0 and I1 overflow where their values do (x ~ 714), not where e^x does.
/// The power series keeps its relative accuracy at every |x| <= 30 (all terms
/// positive); i0e and i1e multiply it by e^-|x| there.

#include <cmath>
#include <limits>

#include "tensorlib/core/config.hpp"

namespace tensorlib::math {
namespace detail {

inline constexpr double kBesselSeriesLimit = 30;

/// sum_k (x^2/4)^k / (k! (k+n)!) for n = 0, 1 (the power series without its
/// (x/2)^n factor).
TENSORLIB_HOST_DEVICE inline double bessel_i_series(int n, double x) {
  const double q = x * x / 4;
  double term = 1, sum = 1;
  for (int k = 1; k < 200; ++k) {
    term *= q / (static_cast<double>(k) * static_cast<double>(k + n));
    sum += term;
    if (term <= 1.1102230246251565e-16 * sum) break;
  }
  return sum;
}

/// sqrt(2 pi a) e^-a I_n(a) for a > kBesselSeriesLimit (Hankel's series).
TENSORLIB_HOST_DEVICE inline double bessel_i_asymptotic(int n, double a) {
  const double mu = 4.0 * n * n;
  double term = 1, sum = 1;
  for (int k = 1; k < 60; ++k) {
    const double odd = 2.0 * k - 1;
    term *= (odd * odd - mu) / (8.0 * k * a);
    sum += term;
    if (std::fabs(term) <= 1.1102230246251565e-16 * std::fabs(sum)) break;
  }
  return sum;
}

/// e^-|x| I_n(|x|) for n = 0, 1 (the scaled function of |x|; finite x).
TENSORLIB_HOST_DEVICE inline double bessel_ie_abs(int n, double a) {
  constexpr double two_pi = 6.283185307179586477;
  if (a <= kBesselSeriesLimit) return std::exp(-a) * (n == 0 ? 1.0 : a / 2) * bessel_i_series(n, a);
  return bessel_i_asymptotic(n, a) / (std::sqrt(two_pi) * std::sqrt(a));  // 2 pi a overflows past 2.8e307
}

/// I_n(|x|) for n = 0, 1 (finite x).
TENSORLIB_HOST_DEVICE inline double bessel_i_abs(int n, double a) {
  constexpr double two_pi = 6.283185307179586477;
  if (a <= kBesselSeriesLimit) return (n == 0 ? 1.0 : a / 2) * bessel_i_series(n, a);
  const double half = std::exp(a / 2);
  return half * (half * (bessel_i_asymptotic(n, a) / (std::sqrt(two_pi) * std::sqrt(a))));
}

}  // namespace detail

/// I0(x), the modified Bessel function of the first kind of order 0 (even;
/// +inf at +-inf and once it overflows).
TENSORLIB_HOST_DEVICE inline double i0(double x) {
  constexpr double inf = std::numeric_limits<double>::infinity();
  if (x != x || std::fabs(x) == inf) return std::fabs(x);
  return detail::bessel_i_abs(0, std::fabs(x));
}
TENSORLIB_HOST_DEVICE inline float i0(float x) { return static_cast<float>(i0(static_cast<double>(x))); }

/// e^-|x| I0(x) (even; 0 at +-inf).
TENSORLIB_HOST_DEVICE inline double i0e(double x) {
  if (x != x) return x;
  if (std::fabs(x) == std::numeric_limits<double>::infinity()) return 0;
  return detail::bessel_ie_abs(0, std::fabs(x));
}
TENSORLIB_HOST_DEVICE inline float i0e(float x) { return static_cast<float>(i0e(static_cast<double>(x))); }

/// I1(x), the modified Bessel function of the first kind of order 1 (odd;
/// +-inf at +-inf).
TENSORLIB_HOST_DEVICE inline double i1(double x) {
  if (x != x || x == 0 || std::fabs(x) == std::numeric_limits<double>::infinity()) return x;
  const double value = detail::bessel_i_abs(1, std::fabs(x));
  return x < 0 ? -value : value;
}
TENSORLIB_HOST_DEVICE inline float i1(float x) { return static_cast<float>(i1(static_cast<double>(x))); }

/// e^-|x| I1(x) (odd; +-0 at +-inf).
TENSORLIB_HOST_DEVICE inline double i1e(double x) {
  if (x != x || x == 0) return x;
  if (std::fabs(x) == std::numeric_limits<double>::infinity()) return x < 0 ? -0.0 : 0.0;
  const double value = detail::bessel_ie_abs(1, std::fabs(x));
  return x < 0 ? -value : value;
}
TENSORLIB_HOST_DEVICE inline float i1e(float x) { return static_cast<float>(i1e(static_cast<double>(x))); }

}  // namespace tensorlib::math
