#pragma once
/// \file
/// erf, erfc, erfinv, lgamma, digamma: scalar entry points (host and device).

#include <cmath>
#include <limits>

#include "tensorlib/expr/math/primitives.hpp"

namespace tensorlib::math {

TENSORLIB_HOST_DEVICE inline float erf(float x) { return std::erf(x); }
TENSORLIB_HOST_DEVICE inline double erf(double x) { return std::erf(x); }
TENSORLIB_HOST_DEVICE inline float erfc(float x) { return std::erfc(x); }
TENSORLIB_HOST_DEVICE inline double erfc(double x) { return std::erfc(x); }
TENSORLIB_HOST_DEVICE inline float lgamma(float x) { return std::lgamma(x); }
TENSORLIB_HOST_DEVICE inline double lgamma(double x) { return std::lgamma(x); }

/// Inverse error function: an initial estimate refined by Newton steps on erf.
TENSORLIB_HOST_DEVICE inline double erfinv(double x) {
  constexpr double inf = std::numeric_limits<double>::infinity();
  if (x != x || x < -1 || x > 1) return std::numeric_limits<double>::quiet_NaN();
  if (x == 1) return inf;
  if (x == -1) return -inf;
  const double l = std::log((1 - x) * (1 + x));
  const double a = 0.147, b = 2 / (3.14159265358979323846 * a) + l / 2;
  double y = std::copysign(std::sqrt(std::sqrt(b * b - l / a) - b), x);
  for (int i = 0; i < 3; ++i) {
    const double err = (std::fabs(x) > 0.5) ? -(std::erfc(std::fabs(y)) - (1 - std::fabs(x))) * (x < 0 ? -1 : 1)
                                             : std::erf(y) - x;
    y -= err / (1.12837916709551257390 * std::exp(-y * y));
  }
  return y;
}
TENSORLIB_HOST_DEVICE inline float erfinv(float x) { return static_cast<float>(erfinv(static_cast<double>(x))); }

/// Digamma (psi): reflection below 0, recurrence up to 10, asymptotic series.
TENSORLIB_HOST_DEVICE inline double digamma(double x) {
  constexpr double pi = 3.14159265358979323846;
  if (x == 0) return std::copysign(std::numeric_limits<double>::infinity(), -x);
  if (x < 0) {
    if (x == std::trunc(x)) return std::numeric_limits<double>::quiet_NaN();
    return digamma(1 - x) - pi / std::tan(pi * x);
  }
  double result = 0;
  while (x < 10) {
    result -= 1 / x;
    x += 1;
  }
  const double z = 1 / (x * x);
  // Bernoulli terms B_2k / (2k x^2k), k = 1..6.
  const double series =
      z * (1.0 / 12 - z * (1.0 / 120 - z * (1.0 / 252 - z * (1.0 / 240 - z * (1.0 / 132 - z * (691.0 / 32760))))));
  return result + std::log(x) - 0.5 / x - series;
}
TENSORLIB_HOST_DEVICE inline float digamma(float x) { return static_cast<float>(digamma(static_cast<double>(x))); }

}  // namespace tensorlib::math
