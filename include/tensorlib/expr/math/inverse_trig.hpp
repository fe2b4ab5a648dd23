#pragma once
/// \file
/// atan, asin, acos, atan2: generic float kernels (written in the vocabulary
/// of primitives.hpp, so scalars and SIMD lanes give bit-identical results)
/// and the scalar entry points. Double precision calls the C library on the host.
///
/// Note [quarter turns]
/// Each result is m pi/4 + p for an integral 0 <= m <= 4 and a small p that
/// comes from one polynomial. m pi/4 is kept as a float plus its rounding
/// error (hi + lo, tools/fit_math.py), and p and lo are added before hi so
/// that the constant is effectively carried with ~48 bits.
/// Measured max error (exhaustive over all floats; atan2 over a 573 x 573 grid
/// of magnitudes and special values): atan 2.1 ulp, asin 1.9 ulp, acos 1.1 ulp,
/// atan2 1.9 ulp. atan and asin are worst just past their reduction points,
/// where the rounding of (a - 1) / (a + 1), or of sqrt((1 - a) / 2), is
/// carried into a result of half the size.

#include <cmath>
#include <limits>
#include <type_traits>

#include "tensorlib/expr/math/primitives.hpp"

namespace tensorlib::math {
namespace detail {

// atan(t) = t + t^3 P(t^2); relative error 2^-30.4 on |t| <= tan(pi/8).
inline constexpr float kAtanF32[] = {-0.33333316f, 0.19998528f, -0.1424439f, 0.105991445f, -0.0608996f};
// asin(s) = s + s^3 P(s^2); relative error 2^-31.7 on |s| <= 1/2.
inline constexpr float kAsinF32[] = {0.1666666f, 0.07500522f, 0.044513382f, 0.031838845f, 0.014316916f, 0.03769178f};

/// Multiples of pi/4 as float + rounding error, and the atan reduction thresholds.
struct QuarterTurnsF32 {
  static constexpr float pi_4_hi = 0.785398185f, pi_4_lo = -2.18556941e-08f;
  static constexpr float pi_2_hi = 1.57079637f, pi_2_lo = -4.37113883e-08f;
  static constexpr float pi3_4_hi = 2.3561945f, pi3_4_lo = -5.96244032e-09f;
  static constexpr float pi_hi = 3.14159274f, pi_lo = -8.74227766e-08f;
  static constexpr float tan_pi_8 = 0.414213568f;
  static constexpr float tan_3pi_8 = 2.41421366f;
};

/// m pi/4 + p for integral 0 <= m <= 4 (Note [quarter turns]).
template <class V>
inline V add_quarter_turns(V m, V p) {
  using C = QuarterTurnsF32;
  const auto m1 = m == V(1.0f), m2 = m == V(2.0f), m3 = m == V(3.0f), m4 = m == V(4.0f);
  const V zero(0.0f);
  const V hi =
      select(m1, V(C::pi_4_hi), select(m2, V(C::pi_2_hi), select(m3, V(C::pi3_4_hi), select(m4, V(C::pi_hi), zero))));
  const V lo =
      select(m1, V(C::pi_4_lo), select(m2, V(C::pi_2_lo), select(m3, V(C::pi3_4_lo), select(m4, V(C::pi_lo), zero))));
  return hi + (p + lo);
}

/// For a >= 0: atan(a) = m pi/4 + atan(t) with |t| <= tan(pi/8), by
/// atan(a) = pi/4 + atan((a - 1) / (a + 1)) and atan(a) = pi/2 - atan(1 / a).
/// On that interval a degree-11 odd polynomial reaches 2^-30 (tools/fit_math.py).
template <class V>
inline V atan_reduce(V a, V& m) {
  using C = QuarterTurnsF32;
  const auto big = a > V(C::tan_3pi_8);
  const auto mid = a > V(C::tan_pi_8);
  const V one(1.0f);
  const V num = select(big, -one, select(mid, a - one, a));
  const V den = select(big, a, select(mid, a + one, one));
  m = select(big, V(2.0f), select(mid, one, V(0.0f)));
  return num / den;
}

template <class V>
inline V atan_poly(V t) {
  const V z = t * t;
  return mul_add(t * z, polynomial(z, kAtanF32), t);
}

template <class V>
inline V atan(V x) {
  static_assert(std::is_same_v<scalar_of_t<V>, float>, "detail::atan: the generic kernel is float-only");
  V m;
  const V t = atan_reduce(abs(x), m);
  return copysign(add_quarter_turns(m, atan_poly(t)), x);
}

/// atan2 from atan(q), q = min(|x|, |y|) / max(|x|, |y|) in [0, 1], moved to
/// the right octant; IEEE special cases: 0/0 gives q = 0 and inf/inf q = 1,
/// after which the octant logic yields +-0, +-pi, +-pi/4, +-3pi/4 as C does.
template <class V>
inline V atan2(V y, V x) {
  static_assert(std::is_same_v<scalar_of_t<V>, float>, "detail::atan2: the generic kernel is float-only");
  constexpr float inf = std::numeric_limits<float>::infinity();
  const V ax = abs(x), ay = abs(y);
  const auto swap = ay > ax;
  const V num = select(swap, ax, ay), den = select(swap, ay, ax);
  V q = num / den;
  q = select(den == V(0.0f), V(0.0f), q);
  q = select(ax == V(inf) && ay == V(inf), V(1.0f), q);
  V m0;
  const V p = atan_poly(atan_reduce(q, m0));
  // x >= 0 (sign bit clear): m0 or pi/2 - (.); x < 0: pi - (.) or pi/2 + (.).
  const auto negative_x = copysign(V(1.0f), x) < V(0.0f);
  const V two(2.0f), four(4.0f);
  const V m = select(negative_x, select(swap, two + m0, four - m0), select(swap, two - m0, m0));
  const auto minus = (swap && !negative_x) || (negative_x && !swap);
  const V r = copysign(add_quarter_turns(m, select(minus, -p, p)), y);
  return select(isnan(x) || isnan(y), x + y, r);
}

/// asin(s) for |s| <= 1/2.
template <class V>
inline V asin_poly(V s, V z) {
  return mul_add(s * z, polynomial(z, kAsinF32), s);
}

/// For |x| > 1/2 both asin and acos use asin(|x|) = pi/2 - 2 asin(s) with
/// s = sqrt((1 - |x|) / 2) <= 1/2, where 1 - |x| is exact; so one polynomial
/// on |s| <= 1/2 (degree 13, 2^-31) serves the whole domain.
template <class V>
inline V asin(V x) {
  static_assert(std::is_same_v<scalar_of_t<V>, float>, "detail::asin: the generic kernel is float-only");
  using C = QuarterTurnsF32;
  const V a = abs(x);
  const auto small = a <= V(0.5f);
  const V z = select(small, a * a, V(0.5f) * (V(1.0f) - a));
  const V p = asin_poly(select(small, a, sqrt(z)), z);
  const V large = (V(C::pi_2_hi) - V(2.0f) * p) + V(C::pi_2_lo);
  return copysign(select(small, p, large), x);
}

template <class V>
inline V acos(V x) {
  static_assert(std::is_same_v<scalar_of_t<V>, float>, "detail::acos: the generic kernel is float-only");
  using C = QuarterTurnsF32;
  const V a = abs(x);
  const auto small = a <= V(0.5f);
  const V z = select(small, x * x, V(0.5f) * (V(1.0f) - a));
  // Small |x|: acos(x) = pi/2 - asin(x); otherwise 2 asin(s) or pi - 2 asin(s).
  const V p = asin_poly(select(small, x, sqrt(z)), z);
  const V twice = V(2.0f) * p;
  const V y = select(small, V(C::pi_2_hi) - (p - V(C::pi_2_lo)),
                     select(x > V(0.0f), twice, V(C::pi_hi) - (twice - V(C::pi_lo))));
  return select(isnan(x), x, y);
}

}  // namespace detail

#if defined(__CUDA_ARCH__)
TENSORLIB_HOST_DEVICE inline float asin(float x) { return ::asinf(x); }
TENSORLIB_HOST_DEVICE inline double asin(double x) { return ::asin(x); }
TENSORLIB_HOST_DEVICE inline float acos(float x) { return ::acosf(x); }
TENSORLIB_HOST_DEVICE inline double acos(double x) { return ::acos(x); }
TENSORLIB_HOST_DEVICE inline float atan(float x) { return ::atanf(x); }
TENSORLIB_HOST_DEVICE inline double atan(double x) { return ::atan(x); }
TENSORLIB_HOST_DEVICE inline float atan2(float y, float x) { return ::atan2f(y, x); }
TENSORLIB_HOST_DEVICE inline double atan2(double y, double x) { return ::atan2(y, x); }
#else
/// Arc sine (float: the generic kernel; double: the C library).
inline float asin(float x) { return detail::asin(x); }
inline double asin(double x) { return std::asin(x); }
/// Arc cosine.
inline float acos(float x) { return detail::acos(x); }
inline double acos(double x) { return std::acos(x); }
/// Arc tangent.
inline float atan(float x) { return detail::atan(x); }
inline double atan(double x) { return std::atan(x); }
/// Angle of the point (x, y), in [-pi, pi].
inline float atan2(float y, float x) { return detail::atan2(y, x); }
inline double atan2(double y, double x) { return std::atan2(y, x); }
#endif

}  // namespace tensorlib::math
