#pragma once
/// \file
/// Scalar math primitives: the vocabulary that the generic math kernels
/// (expr/math/*.hpp) and the functors are written in. The same names exist for
/// the CPU SIMD packet `simd::Vec<T>` (backend/cpu/simd.hpp, found by ADL) and
/// for dual numbers, so each kernel is written once and runs on a scalar, a
/// SIMD packet, a dual number or a CUDA thread.
///
/// The vocabulary: `V(s)`, arithmetic, comparisons giving a mask M
/// (`bool` here), `&&`/`||`/`!` on masks, `select(m, a, b)`, `mul_add`,
/// `abs`, `floor`, `ceil`, `trunc`, `rint` (round half to even), `sqrt`,
/// `copysign`, `isnan`, `isinf`, `isfinite`, `any`, `all`, `pow2i` (2^n for an
/// integral n in the normal exponent range), `exponent_of`/`mantissa_of`, and
/// `map_lanes(v, f)` (apply a scalar function to each lane).

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "tensorlib/core/config.hpp"

namespace tensorlib::math {

/// Scalar element type of a math argument (float for float and for packets of floats).
template <class V>
struct ScalarOf {
  using type = V;
};
template <class V>
using scalar_of_t = typename ScalarOf<V>::type;

template <class T>
TENSORLIB_HOST_DEVICE inline T select(bool m, const T& a, const T& b) {
  return m ? a : b;
}
TENSORLIB_HOST_DEVICE inline bool any(bool m) { return m; }
TENSORLIB_HOST_DEVICE inline bool all(bool m) { return m; }

/// a * b + c, fused when the target has FMA, so scalar and SIMD lanes agree.
template <class T>
requires std::is_floating_point_v<T> TENSORLIB_HOST_DEVICE inline T mul_add(T a, T b, T c) {
#if defined(__CUDA_ARCH__) || defined(__FMA__)
  return std::fma(a, b, c);
#else
  return a * b + c;
#endif
}

template <class T>
requires std::is_floating_point_v<T> TENSORLIB_HOST_DEVICE inline bool isnan(T x) { return x != x; }
template <class T>
requires std::is_floating_point_v<T> TENSORLIB_HOST_DEVICE inline bool isinf(T x) {
  return x == std::numeric_limits<T>::infinity() || x == -std::numeric_limits<T>::infinity();
}
template <class T>
requires std::is_floating_point_v<T> TENSORLIB_HOST_DEVICE inline bool isfinite(T x) { return !isnan(x) && !isinf(x); }

// Rounding, sqrt and friends: the C library on the host, CUDA's on the device.
TENSORLIB_HOST_DEVICE inline float floor(float x) { return std::floor(x); }
TENSORLIB_HOST_DEVICE inline double floor(double x) { return std::floor(x); }
TENSORLIB_HOST_DEVICE inline float ceil(float x) { return std::ceil(x); }
TENSORLIB_HOST_DEVICE inline double ceil(double x) { return std::ceil(x); }
TENSORLIB_HOST_DEVICE inline float trunc(float x) { return std::trunc(x); }
TENSORLIB_HOST_DEVICE inline double trunc(double x) { return std::trunc(x); }
TENSORLIB_HOST_DEVICE inline float rint(float x) { return std::rint(x); }
TENSORLIB_HOST_DEVICE inline double rint(double x) { return std::rint(x); }
TENSORLIB_HOST_DEVICE inline float sqrt(float x) { return std::sqrt(x); }
TENSORLIB_HOST_DEVICE inline double sqrt(double x) { return std::sqrt(x); }

TENSORLIB_HOST_DEVICE inline float abs(float x) { return std::fabs(x); }
TENSORLIB_HOST_DEVICE inline double abs(double x) { return std::fabs(x); }
TENSORLIB_HOST_DEVICE inline float copysign(float m, float s) { return std::copysign(m, s); }
TENSORLIB_HOST_DEVICE inline double copysign(double m, double s) { return std::copysign(m, s); }

/// Whether the sign bit is set (-0 and NaNs with the bit included).
TENSORLIB_HOST_DEVICE inline bool signbit(float x) { return (std::bit_cast<uint32_t>(x) >> 31) != 0; }
TENSORLIB_HOST_DEVICE inline bool signbit(double x) { return (std::bit_cast<uint64_t>(x) >> 63) != 0; }

/// The next representable value after `from` towards `to` (C's nextafter):
/// `to` where they are equal, NaN where either is; from +-0 the smallest
/// subnormal of `to`'s sign. Computed on the bits: one more or one less unit
/// of the magnitude.
template <class F, class Bits>
TENSORLIB_HOST_DEVICE inline F next_after_bits(F from, F to) {
  if (from != from || to != to) return from + to;
  if (from == to) return to;
  if (from == F(0)) return std::bit_cast<F>(Bits(1)) * (to > F(0) ? F(1) : F(-1));
  Bits bits = std::bit_cast<Bits>(from);
  bits = (from < to) == (from > F(0)) ? bits + 1 : bits - 1;  // away from 0 or towards it
  return std::bit_cast<F>(bits);
}
TENSORLIB_HOST_DEVICE inline float nextafter(float from, float to) {
  return next_after_bits<float, uint32_t>(from, to);
}
TENSORLIB_HOST_DEVICE inline double nextafter(double from, double to) {
  return next_after_bits<double, uint64_t>(from, to);
}

/// 2^n for integral n with -126 <= n <= 127 (float) / -1022 <= n <= 1023 (double).
TENSORLIB_HOST_DEVICE inline float pow2i(float n) {
  return std::bit_cast<float>(static_cast<uint32_t>(static_cast<int32_t>(n) + 127) << 23);
}
TENSORLIB_HOST_DEVICE inline double pow2i(double n) {
  return std::bit_cast<double>(static_cast<uint64_t>(static_cast<int64_t>(n) + 1023) << 52);
}

/// Unbiased exponent of a positive normal number, as a floating value.
TENSORLIB_HOST_DEVICE inline float exponent_of(float x) {
  return static_cast<float>(static_cast<int32_t>((std::bit_cast<uint32_t>(x) >> 23) & 0xff) - 127);
}
TENSORLIB_HOST_DEVICE inline double exponent_of(double x) {
  return static_cast<double>(static_cast<int64_t>((std::bit_cast<uint64_t>(x) >> 52) & 0x7ff) - 1023);
}
/// Mantissa of a positive normal number, scaled into [1, 2).
TENSORLIB_HOST_DEVICE inline float mantissa_of(float x) {
  return std::bit_cast<float>((std::bit_cast<uint32_t>(x) & 0x007fffffu) | 0x3f800000u);
}
TENSORLIB_HOST_DEVICE inline double mantissa_of(double x) {
  return std::bit_cast<double>((std::bit_cast<uint64_t>(x) & 0x000fffffffffffffull) | 0x3ff0000000000000ull);
}

/// Applies a scalar function (the fallback for rare functions on packets).
template <class T, class F>
requires std::is_arithmetic_v<T> TENSORLIB_HOST_DEVICE inline T map_lanes(T x, F f) { return f(x); }
template <class T, class F>
requires std::is_arithmetic_v<T> TENSORLIB_HOST_DEVICE inline T map_lanes(T x, T y, F f) { return f(x, y); }

/// x * 2^n for integral n, correct into the subnormal range (two steps so each
/// factor stays a normal number).
template <class V>
inline V ldexp_integral(V x, V n) {
  using S = scalar_of_t<V>;
  constexpr S kMaxStep = std::is_same_v<S, float> ? S(127) : S(1023);
  constexpr S kMinStep = std::is_same_v<S, float> ? S(-126) : S(-1022);
  const V half = floor(n * V(S(0.5)));
  V a = select(half > V(kMaxStep), V(kMaxStep), half);
  a = select(a < V(kMinStep), V(kMinStep), a);
  V b = n - a;
  b = select(b > V(kMaxStep), V(kMaxStep), b);
  b = select(b < V(kMinStep), V(kMinStep), b);
  return x * pow2i(a) * pow2i(b);
}

/// Evaluates the polynomial c[0] + c[1] x + ... + c[N-1] x^(N-1) (Horner, fused).
template <class V, class S, int N>
TENSORLIB_HOST_DEVICE inline V polynomial(V x, const S (&c)[N]) {
  V r(c[N - 1]);
  for (int i = N - 2; i >= 0; --i) r = mul_add(r, x, V(c[i]));
  return r;
}

}  // namespace tensorlib::math
