#pragma once
/// \file
/// sin, cos, tan: a generic float kernel (written in the vocabulary of
/// primitives.hpp, so scalars and SIMD lanes give bit-identical results) and
/// the scalar entry points. Double precision calls the C library on the host.
///
/// Note [trig reduction]
/// x = n pi/2 + r with |r| <= pi/4 (Cody-Waite): n = rint(x 2/pi), and
/// r = ((x - n c1) - n c2) - n c3 with pi/2 = c1 + c2 + c3 + tail. Floats come
/// within ~1e-8 of multiples of pi/2, so r needs ~60 bits of pi/2 to keep 24
/// correct bits. Where mul_add is fused each step rounds only once, relative
/// to its own result, so c1, c2, c3 are three consecutive floats of pi/2 (72
/// bits); measured exhaustively, the error stays at 1.6 ulp up to |x| = 2^19
/// and the fast range ends at 2^18. Without FMA the products must be exact
/// instead: c1 has 12 significant bits and c2 17, so n c1 and n c2 are exact
/// for n < 219 (|x| < 344); the fast range ends at 256. Beyond it, lanes fall
/// back to the C library in double, whose reduction is exact; inf and nan give
/// nan either way. The polynomials are minimax in relative error on
/// |r| <= pi/4 (tools/fit_math.py): 2^-28 (sin, degree 7), 2^-33 (cos,
/// degree 8), 2^-29.5 (tan, degree 15), below the final rounding.
/// Measured max error (tests/expr/math_accuracy_test.cpp, exhaustive over the
/// fast range): sin 1.5 ulp, cos 1.5 ulp, tan 3.0 ulp (tan(n pi/2 + r)
/// magnifies the rounding of r by 2r / sin(2r), up to 1.6 at |r| = pi/4).

#include <cmath>
#include <type_traits>

#include "tensorlib/expr/math/primitives.hpp"

namespace tensorlib::math {
namespace detail {

// sin(r) = r + r^3 P(r^2); relative error 2^-27.9 on |r| <= pi/4.
inline constexpr float kSinF32[] = {-0.16666655f, 0.008332187f, -0.00019517897f};
// cos(r) = 1 - r^2/2 + r^4 P(r^2); relative error 2^-33.0.
inline constexpr float kCosF32[] = {0.041666646f, -0.001388731f, 2.4432327e-05f};
// tan(r) = r + r^3 P(r^2); relative error 2^-29.5.
inline constexpr float kTanF32[] = {0.3333335f,   0.13332672f,    0.054059442f, 0.021282809f,
                                    0.010837557f, 8.4096355e-05f, 0.00438023f};

/// pi/2 in three parts and the range where they reduce accurately (Note [trig reduction]).
struct PiOver2F32 {
  static constexpr float two_over_pi = 0.636619747f;
#if defined(__CUDA_ARCH__) || defined(__FMA__)
  static constexpr float c1 = 0x1.921fb6p+0f;
  static constexpr float c2 = -0x1.777a5cp-25f;
  static constexpr float c3 = -0x1.ee59dap-50f;
  static constexpr float limit = 262144.0f;
#else
  static constexpr float c1 = 0x1.922p+0f;
  static constexpr float c2 = -0x1.2aefp-18f;
  static constexpr float c3 = 0x1.68c234p-39f;
  static constexpr float limit = 256.0f;
#endif
};

/// r = a - n pi/2 with |r| <= pi/4, for 0 <= a <= PiOver2F32::limit.
template <class V>
inline V reduce_pi_over_2(V a, V& n) {
  using C = PiOver2F32;
  n = rint(a * V(C::two_over_pi));
  V r = mul_add(n, V(-C::c1), a);
  r = mul_add(n, V(-C::c2), r);
  return mul_add(n, V(-C::c3), r);
}

template <class V>
inline V sin_poly(V r) {
  const V z = r * r;
  return mul_add(r * z, polynomial(z, kSinF32), r);
}

template <class V>
inline V cos_poly(V r) {
  const V z = r * r;
  const V hz = V(0.5f) * z;
  const V w = V(1.0f) - hz;
  // (1 - w) - hz recovers the rounding error of w exactly.
  return w + mul_add(z * z, polynomial(z, kCosF32), (V(1.0f) - w) - hz);
}

template <class V>
inline V tan_poly(V r) {
  const V z = r * r;
  return mul_add(r * z, polynomial(z, kTanF32), r);
}

/// Lanes with |x| beyond the reduction's range get f(x) from the C library in double.
template <class V, class F>
inline V trig_large(V x, V y, F f) {
  const auto large = abs(x) > V(PiOver2F32::limit);
  if (any(large)) y = select(large, map_lanes(x, f), y);
  return y;
}

template <class V>
inline V sin(V x) {
  static_assert(std::is_same_v<scalar_of_t<V>, float>, "detail::sin: the generic kernel is float-only");
  V n;
  const V r = reduce_pi_over_2(abs(x), n);
  const V half = V(0.5f) * n;
  const auto odd = floor(half) != half;
  const V quarter = V(0.25f) * n;
  const auto lower = quarter - floor(quarter) >= V(0.5f);
  const V y = select(odd, cos_poly(r), sin_poly(r));
  // sin is odd: the sign of x (including -0) times the sign of the quadrant.
  const V one = copysign(V(1.0f), x);
  return trig_large(x, y * select(lower, -one, one),
                    [](float v) { return static_cast<float>(std::sin(static_cast<double>(v))); });
}

template <class V>
inline V cos(V x) {
  static_assert(std::is_same_v<scalar_of_t<V>, float>, "detail::cos: the generic kernel is float-only");
  V n;
  const V r = reduce_pi_over_2(abs(x), n);
  const V half = V(0.5f) * n;
  const auto odd = floor(half) != half;
  // cos(n pi/2 + r) is negative for n mod 4 in {1, 2}.
  const V shifted = V(0.25f) * (n + V(1.0f));
  const auto negative = shifted - floor(shifted) >= V(0.5f);
  const V y = select(odd, sin_poly(r), cos_poly(r));
  return trig_large(x, select(negative, -y, y),
                    [](float v) { return static_cast<float>(std::cos(static_cast<double>(v))); });
}

template <class V>
inline V tan(V x) {
  static_assert(std::is_same_v<scalar_of_t<V>, float>, "detail::tan: the generic kernel is float-only");
  V n;
  const V r = reduce_pi_over_2(abs(x), n);
  const V half = V(0.5f) * n;
  const auto odd = floor(half) != half;
  const V t = tan_poly(r);
  // tan(n pi/2 + r) = -1 / tan(r) for odd n; tan is odd in x.
  const V y = select(odd, V(-1.0f) / t, t);
  return trig_large(x, y * copysign(V(1.0f), x),
                    [](float v) { return static_cast<float>(std::tan(static_cast<double>(v))); });
}

}  // namespace detail

#if defined(__CUDA_ARCH__)
TENSORLIB_HOST_DEVICE inline float sin(float x) { return ::sinf(x); }
TENSORLIB_HOST_DEVICE inline double sin(double x) { return ::sin(x); }
TENSORLIB_HOST_DEVICE inline float cos(float x) { return ::cosf(x); }
TENSORLIB_HOST_DEVICE inline double cos(double x) { return ::cos(x); }
TENSORLIB_HOST_DEVICE inline float tan(float x) { return ::tanf(x); }
TENSORLIB_HOST_DEVICE inline double tan(double x) { return ::tan(x); }
#else
/// Sine (float: the generic kernel; double: the C library).
inline float sin(float x) { return detail::sin(x); }
inline double sin(double x) { return std::sin(x); }
/// Cosine.
inline float cos(float x) { return detail::cos(x); }
inline double cos(double x) { return std::cos(x); }
/// Tangent.
inline float tan(float x) { return detail::tan(x); }
inline double tan(double x) { return std::tan(x); }
#endif

}  // namespace tensorlib::math
