#pragma once
/// \file
/// The Bessel functions of the first and second kinds of orders 0 and 1
/// (J0, J1, Y0, Y1: torch.special.bessel_j0, ...) and the spherical Bessel
/// functions j0 = sin(x)/x and j1 (its derivative's building block), in
/// double (floats round the double result once), on host and device.
///
/// Note [Bessel functions J and Y]
/// Three regions of x >= 0 (J0 is even and J1 odd; Y is real for x >= 0 only):
///   - x <= 2: the power series, whose largest term is 1 there (so no
///     cancellation worth the name):
///         J0 = sum_k (-q)^k / k!^2,  J1 = (x/2) sum_k (-q)^k / (k! (k+1)!),  q = x^2/4,
///         Y0 = (2/pi) (log(x/2) + gamma) J0 + (2/pi) sum_{k>=1} (-1)^(k+1) H_k q^k / k!^2,
///         Y1 = -2/(pi x) + (2/pi) log(x/2) J1
///              - (x / 2pi) sum_k (psi(k+1) + psi(k+2)) (-q)^k / (k! (k+1)!),
///     H_k the harmonic numbers, psi(k+1) = H_k - gamma (Abramowitz & Stegun
///     9.1.13, 9.1.11);
///   - 2 < x < 25: Miller's backward recurrence J_(k-1) = (2k/x) J_k - J_(k+1)
///     from an order N where J_N(x) is below 1e-19 of J0 (N = 1.4 x + 30),
///     normalized by 1 = J0 + 2 sum J_2k; the same sweep sums Neumann's series
///         Y0 = (2/pi) ((log(x/2) + gamma) J0 - 2 sum_{k>=1} (-1)^k J_2k / k)   (A&S 9.1.88)
///     and its derivative Y1 = -Y0' (J_2k' = (J_(2k-1) - J_(2k+1)) / 2). The
///     recurrence only divides, and its start is far enough that no rescaling
///     is needed (J0/J_N < 1e36 here);
///   - x >= 25: Hankel's expansion with chi = x - (2n+1) pi/4,
///         J_n = sqrt(2/(pi x)) (P cos chi - Q sin chi),  Y_n = sqrt(2/(pi x)) (P sin chi + Q cos chi),
///     P and Q the even and odd terms of t_k = t_(k-1) (4n^2 - (2k-1)^2) / (8 k x)
///     with alternating signs, summed until they fall below 2^-53 (the
///     smallest term is near e^-2x, 2e-22 at 25). cos chi and sin chi come
///     from cos x and sin x (x - pi/4 would round pi/4 to x's ulp).
/// Each region is accurate to a few ulps of the function's envelope; near a
/// zero the relative error grows as for every absolute-error method
/// (PyTorch's Cephes kernels too). J and Y are 0 at +-inf (the limits;
/// PyTorch 1.13 gives NaN), Y is -inf at 0 and NaN below.

#include <cmath>
#include <limits>

#include "tensorlib/core/config.hpp"

namespace tensorlib::math {
namespace detail {

inline constexpr double kEulerGamma = 0.57721566490153286061;
inline constexpr double kTwoOverPi = 0.63661977236758134308;

/// J0, J1, Y0 and Y1 at one x > 0 (finite).
struct BesselJY {
  double j0, j1, y0, y1;
};

/// Note [Bessel functions J and Y], x <= 2.
TENSORLIB_HOST_DEVICE inline BesselJY bessel_jy_series(double x) {
  const double q = x * x / 4;
  double j0 = 1, j1 = 1, y0_sum = 0, y1_sum = 0;
  double t0 = 1, t1 = 1, harmonic = 0;  // t0 = (-q)^k / k!^2, t1 = (-q)^k / (k! (k+1)!)
  y1_sum = (1 - 2 * kEulerGamma) * t1;  // psi(1) + psi(2) = 1 - 2 gamma
  for (int k = 1; k < 40; ++k) {
    const double kd = k;
    t0 *= -q / (kd * kd);
    t1 *= -q / (kd * (kd + 1));
    harmonic += 1 / kd;
    j0 += t0;
    j1 += t1;
    y0_sum -= harmonic * t0;  // (-1)^(k+1) H_k q^k / k!^2
    y1_sum += (2 * harmonic + 1 / (kd + 1) - 2 * kEulerGamma) * t1;
    if (std::fabs(t0) < 1e-18) break;
  }
  j1 *= x / 2;
  const double log_half = std::log(x / 2);
  return {j0, j1, kTwoOverPi * ((log_half + kEulerGamma) * j0 + y0_sum),
          -kTwoOverPi / x + kTwoOverPi * log_half * j1 - x / 2 * (kTwoOverPi / 2) * y1_sum};
}

/// Note [Bessel functions J and Y], 2 < x < 25.
TENSORLIB_HOST_DEVICE inline BesselJY bessel_jy_miller(double x) {
  const int start = 2 * static_cast<int>((1.4 * x + 30) / 2);  // even
  double above = 0, here = 1;                                  // J_(k+1), J_k, unnormalized
  double norm = 0, y0_sum = 0, y1_sum = 0, j1 = 0;
  double odd_above = 0;  // J_(2m+1) once the sweep passed it
  for (int k = start; k > 0; --k) {
    const double below = 2 * k / x * here - above;  // J_(k-1)
    const int lower = k - 1;
    if (lower % 2 == 0 && lower > 0) {
      const int m = lower / 2;
      const double sign = m % 2 ? -1 : 1;
      norm += 2 * below;
      y0_sum += sign * below / m;
      // Y1's term (-1)^m (J_(2m-1) - J_(2m+1)) / m: J_(2m+1) (`odd_above`)
      // here, J_(2m-1) on the next step.
      y1_sum -= sign * odd_above / m;
    } else if (lower % 2 == 1) {
      const int m = (lower + 1) / 2;  // J_(2m-1) with m >= 1
      y1_sum += (m % 2 ? -1.0 : 1.0) * below / m;
      odd_above = below;
    }
    if (lower == 1) j1 = below;
    above = here;
    here = below;
  }
  norm += here;  // J0
  const double j0 = here / norm;
  j1 /= norm;
  y0_sum /= norm;
  y1_sum /= norm;
  const double log_term = std::log(x / 2) + kEulerGamma;
  return {j0, j1, kTwoOverPi * (log_term * j0 - 2 * y0_sum), kTwoOverPi * (-j0 / x + log_term * j1 + y1_sum)};
}

/// Note [Bessel functions J and Y], x >= 25, for n = 0 or 1: {J_n, Y_n}.
TENSORLIB_HOST_DEVICE inline void bessel_jy_asymptotic(int n, double x, double& j, double& y) {
  const double mu = 4.0 * n * n;
  double p = 1, q = 0, term = 1;
  for (int k = 1; k < 100; ++k) {
    const double odd = 2.0 * k - 1;
    term *= (mu - odd * odd) / (8.0 * k * x);
    // t_k enters P (k even) or Q (k odd) with sign (-1)^floor(k/2).
    const double signed_term = (k / 2) % 2 ? -term : term;
    if (k % 2)
      q += signed_term;
    else
      p += signed_term;
    if (std::fabs(term) <= 1.1102230246251565e-16 * 1e-2) break;
  }
  constexpr double inv_sqrt2 = 0.70710678118654752440;
  const double c = std::cos(x), s = std::sin(x);
  // chi = x - pi/4 (n = 0) or x - 3pi/4 (n = 1).
  const double cos_chi = n == 0 ? (c + s) * inv_sqrt2 : (s - c) * inv_sqrt2;
  const double sin_chi = n == 0 ? (s - c) * inv_sqrt2 : -(c + s) * inv_sqrt2;
  const double scale = std::sqrt(kTwoOverPi / x);
  j = scale * (p * cos_chi - q * sin_chi);
  y = scale * (p * sin_chi + q * cos_chi);
}

inline constexpr double kBesselSeriesEnd = 2, kBesselAsymptoticStart = 25;

/// J_n(x) and Y_n(x) for finite x > 0, n = 0 or 1.
TENSORLIB_HOST_DEVICE inline void bessel_jy(int n, double x, double& j, double& y) {
  if (x >= kBesselAsymptoticStart) return bessel_jy_asymptotic(n, x, j, y);
  const BesselJY r = x <= kBesselSeriesEnd ? bessel_jy_series(x) : bessel_jy_miller(x);
  j = n == 0 ? r.j0 : r.j1;
  y = n == 0 ? r.y0 : r.y1;
}

}  // namespace detail

/// J0(x), the Bessel function of the first kind of order 0 (even; 0 at +-inf).
TENSORLIB_HOST_DEVICE inline double bessel_j0(double x) {
  if (x != x) return x;
  const double a = std::fabs(x);
  if (a == std::numeric_limits<double>::infinity()) return 0;
  if (a == 0) return 1;
  double j, y;
  detail::bessel_jy(0, a, j, y);
  return j;
}
TENSORLIB_HOST_DEVICE inline float bessel_j0(float x) { return static_cast<float>(bessel_j0(static_cast<double>(x))); }

/// J1(x), of order 1 (odd, so J1(-0) = -0; 0 at +-inf).
TENSORLIB_HOST_DEVICE inline double bessel_j1(double x) {
  if (x != x || x == 0) return x;
  const double a = std::fabs(x);
  if (a == std::numeric_limits<double>::infinity()) return 0;
  double j, y;
  detail::bessel_jy(1, a, j, y);
  return x < 0 ? -j : j;
}
TENSORLIB_HOST_DEVICE inline float bessel_j1(float x) { return static_cast<float>(bessel_j1(static_cast<double>(x))); }

/// Y0(x), the Bessel function of the second kind of order 0: -inf at 0,
/// NaN below, 0 at +inf.
TENSORLIB_HOST_DEVICE inline double bessel_y0(double x) {
  if (x != x) return x;
  if (x == 0) return -std::numeric_limits<double>::infinity();
  if (x < 0) return std::numeric_limits<double>::quiet_NaN();
  if (x == std::numeric_limits<double>::infinity()) return 0;
  double j, y;
  detail::bessel_jy(0, x, j, y);
  return y;
}
TENSORLIB_HOST_DEVICE inline float bessel_y0(float x) { return static_cast<float>(bessel_y0(static_cast<double>(x))); }

/// Y1(x), of order 1: -inf at 0 (and once -2/(pi x) overflows), NaN below, 0 at +inf.
TENSORLIB_HOST_DEVICE inline double bessel_y1(double x) {
  if (x != x) return x;
  if (x == 0) return -std::numeric_limits<double>::infinity();
  if (x < 0) return std::numeric_limits<double>::quiet_NaN();
  if (x == std::numeric_limits<double>::infinity()) return 0;
  double j, y;
  detail::bessel_jy(1, x, j, y);
  return y;
}
TENSORLIB_HOST_DEVICE inline float bessel_y1(float x) { return static_cast<float>(bessel_y1(static_cast<double>(x))); }

/// j0(x) = sin(x) / x, the spherical Bessel function of order 0: 1 at 0, 0 at +-inf.
TENSORLIB_HOST_DEVICE inline double spherical_bessel_j0(double x) {
  if (x != x) return x;
  if (std::fabs(x) == std::numeric_limits<double>::infinity()) return 0;
  return x == 0 ? 1.0 : std::sin(x) / x;
}
TENSORLIB_HOST_DEVICE inline float spherical_bessel_j0(float x) {
  return static_cast<float>(spherical_bessel_j0(static_cast<double>(x)));
}

/// j1(x) = sin(x)/x^2 - cos(x)/x, the spherical Bessel function of order 1
/// (odd; j0' = -j1). Below |x| = 1 the difference cancels (3/x^2 of it), so
/// there the series x sum_k (-x^2/2)^k / (k! (2k+3)!!) is summed instead.
TENSORLIB_HOST_DEVICE inline double spherical_bessel_j1(double x) {
  if (x != x || x == 0) return x;
  if (std::fabs(x) == std::numeric_limits<double>::infinity()) return x > 0 ? 0.0 : -0.0;
  if (std::fabs(x) >= 1) return (std::sin(x) / x - std::cos(x)) / x;
  const double h = -x * x / 2;
  double term = 1.0 / 3, sum = term;
  for (int k = 1; k < 20 && std::fabs(term) > 1e-18; ++k) {
    term *= h / (k * (2.0 * k + 3));
    sum += term;
  }
  return x * sum;
}
TENSORLIB_HOST_DEVICE inline float spherical_bessel_j1(float x) {
  return static_cast<float>(spherical_bessel_j1(static_cast<double>(x)));
}

}  // namespace tensorlib::math
