#pragma once
/// \file
/// Functions of the standard normal distribution and of erfc that lose
/// accuracy when written with erf/erfc/exp/log directly: erfcx(x) =
/// e^(x^2) erfc(x), log_ndtr(x) = log Phi(x) and ndtri(p) = Phi^-1(p).
/// Computed in double (floats round the double result once), host and device.
///
/// Note [erfcx, log_ndtr, ndtri]
///   - erfcx: e^(x^2) erfc(x) with x^2 split exactly (x^2 = h + l, l by a
///     fused multiply-add), so e^(x^2) = e^h (1 + l) carries no rounding of
///     x^2 (which would cost x^2 ulp); above x = 25 erfc nears the subnormal
///     range and the asymptotic series 1 / (x sqrt(pi)) sum (-1)^k (2k-1)!! /
///     (2x^2)^k takes over (its terms fall by 1/1250 each step there).
///   - log_ndtr: log1p(-erfc(x/sqrt2)/2) for x >= -1 (Phi near 1), and
///     log(erfcx(-x/sqrt2)/2) - x^2/2 below, so that it stays finite far past
///     where Phi(x) underflows (PyTorch's formulas).
///   - ndtri: by symmetry only the lower half p <= 1/2 is solved (1 - p is
///     exact for p >= 1/2). For p >= 1/4, sqrt2 erfinv(2p - 1) with 2p - 1
///     exact. Below, Halley's iteration on Phi(x) = p (Phi'' = -x Phi', so
///     each step is x -= d / (1 + x d / 2), d = (Phi(x) - p) / phi(x)) from
///     an estimate (erfinv's, or sqrt(L - log L - log 2pi), L = -2 log p, in
///     the far tail). d is formed as sqrt(2 pi) (erfcx(-x/sqrt2)/2 -
///     e^(x^2/2 + log p)), both terms scaled by e^(x^2/2), so neither
///     underflows down to the smallest subnormal p.

#include <cmath>
#include <limits>

#include "tensorlib/core/config.hpp"
#include "tensorlib/expr/math/special.hpp"

namespace tensorlib::math {

/// The scaled complementary error function e^(x^2) erfc(x); +inf once it
/// overflows (x < -26.6), 0 at +inf.
TENSORLIB_HOST_DEVICE inline double erfcx(double x) {
  constexpr double inv_sqrt_pi = 0.56418958354775628695;
  constexpr double inf = std::numeric_limits<double>::infinity();
  if (x != x) return x;
  if (x == -inf) return inf;
  if (x < 25) {
    const double h = x * x;
    const double l = std::fma(x, x, -h);
    return std::exp(h) * (1 + l) * erfc(x);
  }
  const double z = 1 / (2 * x * x);  // 0 at +inf
  double term = 1, sum = 1;
  for (int k = 1; k < 30; ++k) {
    term *= -(2.0 * k - 1) * z;
    sum += term;
    if (std::fabs(term) <= 1.1102230246251565e-16 * sum) break;
  }
  return inv_sqrt_pi / x * sum;
}
TENSORLIB_HOST_DEVICE inline float erfcx(float x) { return static_cast<float>(erfcx(static_cast<double>(x))); }

/// log Phi(x), the log of the standard normal CDF; -inf at -inf.
TENSORLIB_HOST_DEVICE inline double log_ndtr(double x) {
  constexpr double sqrt_half = 0.70710678118654752440;
  const double t = x * sqrt_half;
  if (x < -1) return std::log(erfcx(-t) / 2) - t * t;
  return std::log1p(-erfc(t) / 2);
}
TENSORLIB_HOST_DEVICE inline float log_ndtr(float x) { return static_cast<float>(log_ndtr(static_cast<double>(x))); }

/// Phi^-1(p), the quantile of the standard normal distribution: -inf at 0,
/// +inf at 1, NaN outside [0, 1].
TENSORLIB_HOST_DEVICE inline double ndtri(double p) {
  constexpr double inf = std::numeric_limits<double>::infinity();
  constexpr double sqrt2 = 1.41421356237309504880;
  constexpr double sqrt_half = 0.70710678118654752440;
  constexpr double sqrt_2pi = 2.50662827463100050242;
  constexpr double log_2pi = 1.83787706640934548356;
  if (!(p >= 0 && p <= 1)) return std::numeric_limits<double>::quiet_NaN();
  if (p == 0) return -inf;
  if (p == 1) return inf;
  if (p >= 0.25 && p <= 0.75) return sqrt2 * erfinv(2 * p - 1);
  const bool upper = p > 0.5;
  const double q = upper ? 1 - p : p;  // the lower tail's p, q < 1/4
  double x;
  if (q > 1e-10) {
    x = -sqrt2 * erfinv(1 - 2 * q);
  } else {
    const double l = -2 * std::log(q);
    x = -std::sqrt(l - std::log(l) - log_2pi);
  }
  const double log_q = std::log(q);
  for (int i = 0; i < 8; ++i) {
    // (Phi(x) - q) / phi(x) with both scaled by e^(x^2/2), which stays finite
    // down to the smallest q; x^2 split exactly as in erfcx.
    const double h = x * x, l = std::fma(x, x, -h);
    const double d = sqrt_2pi * (erfcx(-x * sqrt_half) / 2 - std::exp(h / 2 + log_q) * (1 + l / 2));
    const double step = d / (1 + x * d / 2);
    x -= step;
    // Cubic convergence: a step of 1e-9 |x| leaves an error far below an ulp.
    if (!(std::fabs(step) > 1e-9 * std::fabs(x))) break;
  }
  return upper ? -x : x;
}
TENSORLIB_HOST_DEVICE inline float ndtri(float x) { return static_cast<float>(ndtri(static_cast<double>(x))); }

}  // namespace tensorlib::math
