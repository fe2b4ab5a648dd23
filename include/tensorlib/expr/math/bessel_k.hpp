#pragma once
/// \file
/// The modified Bessel functions of the second kind of orders 0 and 1, plain
/// (K0, K1: torch.special.modified_bessel_k0, _k1) and exponentially scaled
/// (e^x K0, e^x K1: scaled_modified_bessel_k0, _k1), in double (floats round
/// the double result once), on host and device.
///
/// Note [modified Bessel functions K]
/// Three regions of x > 0 (K is real for x >= 0 only):
///   - x <= 1: the power series (Abramowitz & Stegun 9.6.13, 9.6.11), q = x^2/4,
///         K0 = -(log(x/2) + gamma) I0(x) + sum_{k>=1} H_k q^k / k!^2,
///         K1 = 1/x + log(x/2) I1(x) - (x/4) sum_k (psi(k+1) + psi(k+2)) q^k / (k! (k+1)!),
///     with I0 and I1 summed in the same loop (no cancellation below 1; at 2
///     the first would lose a factor 12);
///   - 1 < x <= 30: the trapezoidal rule on
///         e^x K_n(x) = int_0^inf e^(-x (cosh t - 1)) cosh(n t) dt,
///     whose integrand is analytic in the strip |Im t| < pi/2, where it stays
///     below e^x: the error is about e^(x - pi^2/h), so a step h = pi^2 / (x + 40)
///     leaves e^-40 (11 to 19 nodes, summed until the integrand is below 2^-60
///     of the sum). cosh t - 1 is 2 sinh^2(t/2), exact near 0. This rule and
///     the asymptotic series below hold for any real order: the Airy function
///     uses them for orders 1/3 and 2/3 from x = 0.23 on (about 25 nodes there;
///     Note [Airy function]);
///   - x > 30: the asymptotic series e^x K_n(x) = sqrt(pi / 2x) sum_k t_k,
///     t_k = t_(k-1) (4n^2 - (2k-1)^2) / (8 k x), whose smallest term is near
///     e^-2x.
/// The scaled functions come out of the last two directly; K itself is
/// e^-x times them (0 once that underflows, past x = 745). K is +inf at 0,
/// NaN below; e^x K is 0 at +inf.

#include <cmath>
#include <limits>

#include "tensorlib/core/config.hpp"
#include "tensorlib/expr/math/bessel_jy.hpp"

namespace tensorlib::math {
namespace detail {

/// {K0, K1} for 0 < x <= 1 (Note [modified Bessel functions K]).
TENSORLIB_HOST_DEVICE inline void bessel_k_series(double x, double& k0, double& k1) {
  const double q = x * x / 4;
  double t0 = 1, t1 = 1, harmonic = 0;  // q^k / k!^2 and q^k / (k! (k+1)!)
  double i0 = 1, i1 = 1, k0_sum = 0, k1_sum = 1 - 2 * kEulerGamma;
  for (int k = 1; k < 40; ++k) {
    const double kd = k;
    t0 *= q / (kd * kd);
    t1 *= q / (kd * (kd + 1));
    harmonic += 1 / kd;
    i0 += t0;
    i1 += t1;
    k0_sum += harmonic * t0;
    k1_sum += (2 * harmonic + 1 / (kd + 1) - 2 * kEulerGamma) * t1;
    if (t0 < 1e-18 * i0) break;
  }
  i1 *= x / 2;
  const double log_half = std::log(x / 2);
  k0 = -(log_half + kEulerGamma) * i0 + k0_sum;
  k1 = 1 / x + log_half * i1 - x / 4 * k1_sum;
}

/// e^x K_nu(x) for real order nu (Note [modified Bessel functions K]; both of
/// its forms hold for any order): K0 and K1 for x > 1, and the Airy
/// function's K_(1/3) and K_(2/3) for x > 0.23 (Note [Airy function]).
TENSORLIB_HOST_DEVICE inline double bessel_k_scaled(double nu, double x) {
  constexpr double pi = 3.14159265358979323846;
  if (x > 30) {
    const double mu = 4.0 * nu * nu;
    double term = 1, sum = 1;
    for (int k = 1; k < 60; ++k) {
      const double odd = 2.0 * k - 1;
      term *= (mu - odd * odd) / (8.0 * k * x);
      sum += term;
      if (std::fabs(term) <= 1.1102230246251565e-16 * std::fabs(sum)) break;
    }
    return std::sqrt(pi / 2) / std::sqrt(x) * sum;
  }
  const double h = pi * pi / (x + 40);
  double sum = 0.5;  // the node at 0, halved (the integrand is 1 there)
  for (int j = 1; j < 64; ++j) {
    const double t = j * h, s = std::sinh(t / 2);
    const double cosh_nu_t = nu == 0 ? 1.0 : nu == 1 ? 1 + 2 * s * s : std::cosh(nu * t);
    const double value = std::exp(-2 * x * s * s) * cosh_nu_t;
    sum += value;
    if (value < 8.7e-19 * sum) break;
  }
  return h * sum;
}

/// K_n(x) (scaled: e^x K_n(x)) for n = 0 or 1 and any x: +inf at 0, NaN below, 0 at +inf.
TENSORLIB_HOST_DEVICE inline double bessel_k(int n, bool scaled, double x) {
  if (x != x) return x;
  if (x == 0) return std::numeric_limits<double>::infinity();
  if (x < 0) return std::numeric_limits<double>::quiet_NaN();
  if (x == std::numeric_limits<double>::infinity()) return 0;
  if (x <= 1) {
    double k0, k1;
    bessel_k_series(x, k0, k1);
    return (scaled ? std::exp(x) : 1.0) * (n == 0 ? k0 : k1);
  }
  return (scaled ? 1.0 : std::exp(-x)) * bessel_k_scaled(n, x);
}

}  // namespace detail

/// K0(x), the modified Bessel function of the second kind of order 0: +inf
/// at 0, NaN below, 0 at +inf.
TENSORLIB_HOST_DEVICE inline double modified_bessel_k0(double x) { return detail::bessel_k(0, false, x); }
TENSORLIB_HOST_DEVICE inline float modified_bessel_k0(float x) {
  return static_cast<float>(modified_bessel_k0(static_cast<double>(x)));
}

/// K1(x), of order 1: +inf at 0 (and where 1/x overflows), NaN below, 0 at +inf.
TENSORLIB_HOST_DEVICE inline double modified_bessel_k1(double x) { return detail::bessel_k(1, false, x); }
TENSORLIB_HOST_DEVICE inline float modified_bessel_k1(float x) {
  return static_cast<float>(modified_bessel_k1(static_cast<double>(x)));
}

/// e^x K0(x): +inf at 0, NaN below, 0 at +inf.
TENSORLIB_HOST_DEVICE inline double scaled_modified_bessel_k0(double x) { return detail::bessel_k(0, true, x); }
TENSORLIB_HOST_DEVICE inline float scaled_modified_bessel_k0(float x) {
  return static_cast<float>(scaled_modified_bessel_k0(static_cast<double>(x)));
}

/// e^x K1(x): +inf at 0, NaN below, 0 at +inf.
TENSORLIB_HOST_DEVICE inline double scaled_modified_bessel_k1(double x) { return detail::bessel_k(1, true, x); }
TENSORLIB_HOST_DEVICE inline float scaled_modified_bessel_k1(float x) {
  return static_cast<float>(scaled_modified_bessel_k1(static_cast<double>(x)));
}

}  // namespace tensorlib::math
