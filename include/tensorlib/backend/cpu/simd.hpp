#pragma once
/// \file
/// `simd::Vec<T>`: a packet of float or double lanes for the CPU executor,
/// built on GCC/Clang vector extensions (portable across x86 and ARM) with
/// x86 intrinsics where the generic form would be slow (sqrt, rounding, FMA).
/// It implements the math vocabulary of expr/math/primitives.hpp, so every
/// functor and math kernel written once in terms of that vocabulary runs on
/// packets unchanged.
///
/// Note [packet width]
/// The width follows the instruction set the translation unit is compiled
/// for: 32 bytes when AVX is enabled (8 floats), otherwise 16 bytes (4 floats,
/// SSE2/NEON). A wider packet without AVX would change the function-call ABI
/// (GCC's -Wpsabi) and be split in two by the compiler anyway. The library
/// imposes no flags: `-march=native` (or `-mavx2 -mfma`) simply makes it wider.

#include <bit>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include "tensorlib/core/config.hpp"
#include "tensorlib/expr/math/primitives.hpp"

#if defined(__SSE2__)
#include <immintrin.h>
#endif

namespace tensorlib::simd {

#if defined(__AVX__)
inline constexpr int kBytes = 32;
#else
inline constexpr int kBytes = 16;
#endif

/// Element types that have packets.
template <class T>
concept Lane = std::same_as<T, float> || std::same_as<T, double>;

namespace detail {
// GCC ignores vector attributes on dependent alias templates, so the native
// vector types are spelled out per element type.
template <class T>
struct Native;
// `unaligned` is the same vector with element alignment, for loads and
// stores: unlike memcpy, such an access aliases only its element type, so
// the compiler may keep unrelated pointers in registers across stores.
template <>
struct Native<float> {
  typedef float type __attribute__((vector_size(kBytes)));
  typedef float unaligned __attribute__((vector_size(kBytes), aligned(4)));
};
template <>
struct Native<double> {
  typedef double type __attribute__((vector_size(kBytes)));
  typedef double unaligned __attribute__((vector_size(kBytes), aligned(8)));
};
template <>
struct Native<int32_t> {
  typedef int32_t type __attribute__((vector_size(kBytes)));
};
template <>
struct Native<int64_t> {
  typedef int64_t type __attribute__((vector_size(kBytes)));
};
}  // namespace detail

template <Lane T>
using native_t = typename detail::Native<T>::type;
template <Lane T>
using int_lane_t = std::conditional_t<sizeof(T) == 4, int32_t, int64_t>;
template <Lane T>
using native_int_t = typename detail::Native<int_lane_t<T>>::type;

/// Per-lane truth values of a comparison of two `Vec<T>`.
template <Lane T>
struct Mask {
  native_int_t<T> m;
  friend Mask operator&&(Mask a, Mask b) { return {a.m & b.m}; }
  friend Mask operator||(Mask a, Mask b) { return {a.m | b.m}; }
  friend Mask operator!(Mask a) { return {~a.m}; }
  friend Mask operator!=(Mask a, Mask b) { return {a.m ^ b.m}; }
  friend Mask operator==(Mask a, Mask b) { return {~(a.m ^ b.m)}; }
};

/// A packet of `size` lanes of T.
template <Lane T>
struct Vec {
  static constexpr int size = kBytes / static_cast<int>(sizeof(T));
  using native = native_t<T>;
  native v;

  Vec() = default;
  /// Broadcasts a scalar to every lane (implicit, like a scalar operand).
  /// `s - 0` rather than `0 + s`, which would turn -0.0 into +0.0.
  Vec(T s) : v(s - native{}) {}  // NOLINT
  explicit Vec(native n) : v(n) {}

  static Vec load(const T* p) { return Vec(*reinterpret_cast<const typename detail::Native<T>::unaligned*>(p)); }
  /// Loads `n < size` lanes; the rest are 0.
  static Vec load_partial(const T* p, int n) {
    Vec r(T(0));
    std::memcpy(&r.v, p, static_cast<std::size_t>(n) * sizeof(T));
    return r;
  }
  void store(T* p) const { *reinterpret_cast<typename detail::Native<T>::unaligned*>(p) = v; }
  void store_partial(T* p, int n) const { std::memcpy(p, &v, static_cast<std::size_t>(n) * sizeof(T)); }
  T operator[](int i) const { return v[i]; }

  friend Vec operator+(Vec a, Vec b) { return Vec(a.v + b.v); }
  friend Vec operator-(Vec a, Vec b) { return Vec(a.v - b.v); }
  friend Vec operator*(Vec a, Vec b) { return Vec(a.v * b.v); }
  friend Vec operator/(Vec a, Vec b) { return Vec(a.v / b.v); }
  friend Vec operator-(Vec a) { return Vec(-a.v); }
  Vec& operator+=(Vec b) { return *this = *this + b; }
  Vec& operator-=(Vec b) { return *this = *this - b; }
  Vec& operator*=(Vec b) { return *this = *this * b; }
  Vec& operator/=(Vec b) { return *this = *this / b; }
  friend Mask<T> operator==(Vec a, Vec b) { return {a.v == b.v}; }
  friend Mask<T> operator!=(Vec a, Vec b) { return {a.v != b.v}; }
  friend Mask<T> operator<(Vec a, Vec b) { return {a.v < b.v}; }
  friend Mask<T> operator<=(Vec a, Vec b) { return {a.v <= b.v}; }
  friend Mask<T> operator>(Vec a, Vec b) { return {a.v > b.v}; }
  friend Mask<T> operator>=(Vec a, Vec b) { return {a.v >= b.v}; }
};

template <Lane T>
inline Vec<T> select(Mask<T> m, Vec<T> a, Vec<T> b) {
  return Vec<T>(m.m ? a.v : b.v);
}
namespace detail {
// One bit per lane (the lane's sign bit), as movemask gives it.
template <Lane T>
inline int lane_bits(Mask<T> m) {
#if defined(__AVX__)
  if constexpr (sizeof(T) == 4)
    return _mm256_movemask_ps(std::bit_cast<__m256>(m.m));
  else
    return _mm256_movemask_pd(std::bit_cast<__m256d>(m.m));
#elif defined(__SSE2__)
  if constexpr (sizeof(T) == 4)
    return _mm_movemask_ps(std::bit_cast<__m128>(m.m));
  else
    return _mm_movemask_pd(std::bit_cast<__m128d>(m.m));
#else
  int bits = 0;
  for (int i = 0; i < Vec<T>::size; ++i) bits |= (m.m[i] != 0) << i;
  return bits;
#endif
}
}  // namespace detail

template <Lane T>
inline bool any(Mask<T> m) {
  return detail::lane_bits(m) != 0;
}
template <Lane T>
inline bool all(Mask<T> m) {
  return detail::lane_bits(m) == (1 << Vec<T>::size) - 1;
}

template <Lane T>
inline Mask<T> isnan(Vec<T> x) {
  return x != x;
}
template <Lane T>
inline Mask<T> isinf(Vec<T> x) {
  return abs(x) == Vec<T>(std::numeric_limits<T>::infinity());
}
template <Lane T>
inline Mask<T> isfinite(Vec<T> x) {
  return abs(x) < Vec<T>(std::numeric_limits<T>::infinity());
}

namespace detail {
template <Lane T>
inline native_int_t<T> bits(Vec<T> x) {
  return std::bit_cast<native_int_t<T>>(x.v);
}
template <Lane T>
inline Vec<T> from_bits(native_int_t<T> b) {
  return Vec<T>(std::bit_cast<native_t<T>>(b));
}
template <Lane T>
inline constexpr int_lane_t<T> kSignBit = sizeof(T) == 4 ? int_lane_t<T>(INT32_MIN) : int_lane_t<T>(INT64_MIN);
}  // namespace detail

template <Lane T>
inline Vec<T> abs(Vec<T> x) {
  return detail::from_bits<T>(detail::bits(x) & ~detail::kSignBit<T>);
}
template <Lane T>
inline Vec<T> copysign(Vec<T> mag, Vec<T> sgn) {
  return detail::from_bits<T>((detail::bits(mag) & ~detail::kSignBit<T>) | (detail::bits(sgn) & detail::kSignBit<T>));
}

template <Lane T>
inline Vec<T> mul_add(Vec<T> a, Vec<T> b, Vec<T> c) {
#if defined(__FMA__) && defined(__AVX__)
  if constexpr (std::is_same_v<T, float>)
    return Vec<T>(_mm256_fmadd_ps(a.v, b.v, c.v));
  else
    return Vec<T>(_mm256_fmadd_pd(a.v, b.v, c.v));
#elif defined(__FMA__)
  if constexpr (std::is_same_v<T, float>)
    return Vec<T>(_mm_fmadd_ps(a.v, b.v, c.v));
  else
    return Vec<T>(_mm_fmadd_pd(a.v, b.v, c.v));
#else
  return a * b + c;
#endif
}

template <Lane T>
inline Vec<T> sqrt(Vec<T> x) {
#if defined(__AVX__)
  if constexpr (std::is_same_v<T, float>)
    return Vec<T>(_mm256_sqrt_ps(x.v));
  else
    return Vec<T>(_mm256_sqrt_pd(x.v));
#elif defined(__SSE2__)
  if constexpr (std::is_same_v<T, float>)
    return Vec<T>(_mm_sqrt_ps(x.v));
  else
    return Vec<T>(_mm_sqrt_pd(x.v));
#else
  Vec<T> r;
  for (int i = 0; i < Vec<T>::size; ++i) r.v[i] = math::sqrt(x.v[i]);
  return r;
#endif
}

namespace detail {
// Rounding without SSE4.1: adding and subtracting 2^(mantissa bits) rounds to
// an integer in the current (nearest-even) mode; larger magnitudes are
// already integers.
template <Lane T>
inline Vec<T> rint_generic(Vec<T> x) {
  const Vec<T> big(sizeof(T) == 4 ? T(8388608.0) : T(4503599627370496.0));
  const Vec<T> t = copysign(big, x);
  const Vec<T> r = (x + t) - t;
  return select(abs(x) < big, copysign(r, x), x);
}
}  // namespace detail

template <Lane T>
inline Vec<T> rint(Vec<T> x) {
#if defined(__AVX__)
  if constexpr (std::is_same_v<T, float>)
    return Vec<T>(_mm256_round_ps(x.v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
  else
    return Vec<T>(_mm256_round_pd(x.v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
#elif defined(__SSE4_1__)
  if constexpr (std::is_same_v<T, float>)
    return Vec<T>(_mm_round_ps(x.v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
  else
    return Vec<T>(_mm_round_pd(x.v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
#else
  return detail::rint_generic(x);
#endif
}
template <Lane T>
inline Vec<T> floor(Vec<T> x) {
#if defined(__AVX__)
  if constexpr (std::is_same_v<T, float>)
    return Vec<T>(_mm256_round_ps(x.v, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC));
  else
    return Vec<T>(_mm256_round_pd(x.v, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC));
#elif defined(__SSE4_1__)
  if constexpr (std::is_same_v<T, float>)
    return Vec<T>(_mm_round_ps(x.v, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC));
  else
    return Vec<T>(_mm_round_pd(x.v, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC));
#else
  const Vec<T> r = detail::rint_generic(x);
  return select(r > x, r - Vec<T>(T(1)), r);
#endif
}
template <Lane T>
inline Vec<T> ceil(Vec<T> x) {
#if defined(__AVX__)
  if constexpr (std::is_same_v<T, float>)
    return Vec<T>(_mm256_round_ps(x.v, _MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC));
  else
    return Vec<T>(_mm256_round_pd(x.v, _MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC));
#elif defined(__SSE4_1__)
  if constexpr (std::is_same_v<T, float>)
    return Vec<T>(_mm_round_ps(x.v, _MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC));
  else
    return Vec<T>(_mm_round_pd(x.v, _MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC));
#else
  const Vec<T> r = detail::rint_generic(x);
  return copysign(select(r < x, r + Vec<T>(T(1)), r), x);
#endif
}
template <Lane T>
inline Vec<T> trunc(Vec<T> x) {
#if defined(__AVX__)
  if constexpr (std::is_same_v<T, float>)
    return Vec<T>(_mm256_round_ps(x.v, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC));
  else
    return Vec<T>(_mm256_round_pd(x.v, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC));
#elif defined(__SSE4_1__)
  if constexpr (std::is_same_v<T, float>)
    return Vec<T>(_mm_round_ps(x.v, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC));
  else
    return Vec<T>(_mm_round_pd(x.v, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC));
#else
  return copysign(floor(abs(x)), x);
#endif
}

/// 2^n for integral n in the normal exponent range.
template <Lane T>
inline Vec<T> pow2i(Vec<T> n) {
  using I = native_int_t<T>;
  constexpr int kMantissa = sizeof(T) == 4 ? 23 : 52;
  constexpr int_lane_t<T> kBias = sizeof(T) == 4 ? 127 : 1023;
  const I e = __builtin_convertvector(n.v, I) + kBias;
  return detail::from_bits<T>(e << kMantissa);
}
/// Unbiased exponent of positive normal numbers.
template <Lane T>
inline Vec<T> exponent_of(Vec<T> x) {
  constexpr int kMantissa = sizeof(T) == 4 ? 23 : 52;
  constexpr int_lane_t<T> kMask = sizeof(T) == 4 ? 0xff : 0x7ff;
  constexpr int_lane_t<T> kBias = sizeof(T) == 4 ? 127 : 1023;
  const native_int_t<T> e = ((detail::bits(x) >> kMantissa) & kMask) - kBias;
  return Vec<T>(__builtin_convertvector(e, native_t<T>));
}
/// Mantissa of positive normal numbers, in [1, 2).
template <Lane T>
inline Vec<T> mantissa_of(Vec<T> x) {
  constexpr int_lane_t<T> kMantissaMask =
      sizeof(T) == 4 ? int_lane_t<T>(0x007fffff) : int_lane_t<T>(0x000fffffffffffffLL);
  constexpr int_lane_t<T> kOne = sizeof(T) == 4 ? int_lane_t<T>(0x3f800000) : int_lane_t<T>(0x3ff0000000000000LL);
  return detail::from_bits<T>((detail::bits(x) & kMantissaMask) | kOne);
}

/// Applies a scalar function to each lane: the fallback for rare functions.
template <Lane T, class F>
inline Vec<T> map_lanes(Vec<T> x, F f) {
  Vec<T> r;
  for (int i = 0; i < Vec<T>::size; ++i) r.v[i] = f(x.v[i]);
  return r;
}
template <Lane T, class F>
inline Vec<T> map_lanes(Vec<T> x, Vec<T> y, F f) {
  Vec<T> r;
  for (int i = 0; i < Vec<T>::size; ++i) r.v[i] = f(x.v[i], y.v[i]);
  return r;
}

}  // namespace tensorlib::simd

template <tensorlib::simd::Lane T>
struct tensorlib::math::ScalarOf<tensorlib::simd::Vec<T>> {
  using type = T;
};
