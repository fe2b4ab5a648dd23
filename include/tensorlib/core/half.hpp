#pragma once
/// \file
/// The 16-bit floating element types `tl::Half` (IEEE binary16, PyTorch's
/// float16) and `tl::BFloat16` (bfloat16: float's exponent, 8 significand
/// bits): storage types whose arithmetic happens in float.
///
/// Note [reduced floats]
/// A `Half` or `BFloat16` holds only its 16 bits. It converts implicitly to
/// float (exactly) and from float (rounding to nearest, ties to even; NaN
/// becomes a quiet NaN: of its sign for Half, 0x7fc0 for BFloat16, as in
/// PyTorch's c10), so generic
/// code such as `T(0)` or `static_cast<double>(x)` works. Pointwise
/// functors never see a reduced float: `invoke_functor` (expr/map.hpp)
/// converts every such operand to float, applies the functor, and rounds a
/// result of the operand's type back (PyTorch's "opmath": each op computes
/// in float and rounds once, so a fused chain rounds at every node, exactly
/// as the same ops do eagerly in PyTorch). A weak C++ scalar operand keeps
/// its float value (`make_map`, expr/build.hpp), as current PyTorch's
/// opmath scalars do; PyTorch 1.13's CPU kernels rounded it to 16 bits first. The conversions are plain integer
/// code, one definition for the host and the device, so the CPU and the GPU
/// give bit-identical results. Reductions accumulate in double and GEMMs in
/// float (ops/reducers.hpp, ops/dispatch.hpp).

#include <bit>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "tensorlib/core/config.hpp"

namespace tensorlib {

namespace detail {

/// float -> binary16 bits, rounding to nearest even.
TENSORLIB_HOST_DEVICE constexpr uint16_t float_to_half_bits(float f) noexcept {
  const uint32_t x = std::bit_cast<uint32_t>(f);
  const uint32_t sign = (x >> 16) & 0x8000u;
  uint32_t ax = x & 0x7fffffffu;
  if (ax > 0x7f800000u) return static_cast<uint16_t>(sign | 0x7e00u);   // NaN
  if (ax >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // >= 65520 (and inf) round to inf
  if (ax < 0x38800000u) {
    // Below 2^-14: a subnormal or zero. Adding 0.5 puts the value's 2^-24
    // units in the low bits of float's significand, rounded by float itself.
    const float shifted = std::bit_cast<float>(ax) + 0.5f;
    return static_cast<uint16_t>(sign | (std::bit_cast<uint32_t>(shifted) - 0x3f000000u));
  }
  const uint32_t odd = (ax >> 13) & 1u;
  ax += 0xc8000fffu + odd;  // rebias the exponent (-112 << 23, mod 2^32), round half to even
  return static_cast<uint16_t>(sign | (ax >> 13));
}

/// binary16 bits -> float (exact).
TENSORLIB_HOST_DEVICE constexpr float half_bits_to_float(uint16_t h) noexcept {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exponent = (h >> 10) & 0x1fu;
  const uint32_t mantissa = h & 0x3ffu;
  if (exponent == 0x1fu) return std::bit_cast<float>(sign | 0x7f800000u | (mantissa << 13));
  if (exponent == 0) {
    const float magnitude = static_cast<float>(mantissa) * 5.9604644775390625e-8f;  // mantissa * 2^-24
    return sign ? -magnitude : magnitude;
  }
  return std::bit_cast<float>(sign | ((exponent + 112u) << 23) | (mantissa << 13));
}

/// float -> bfloat16 bits, rounding to nearest even.
TENSORLIB_HOST_DEVICE constexpr uint16_t float_to_bfloat16_bits(float f) noexcept {
  const uint32_t x = std::bit_cast<uint32_t>(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return 0x7fc0u;  // NaN: PyTorch's one bfloat16 NaN, whatever the sign
  return static_cast<uint16_t>((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
}

/// bfloat16 bits -> float (exact).
TENSORLIB_HOST_DEVICE constexpr float bfloat16_bits_to_float(uint16_t b) noexcept {
  return std::bit_cast<float>(static_cast<uint32_t>(b) << 16);
}

}  // namespace detail

/// IEEE binary16 (PyTorch's float16 / half); Note [reduced floats].
struct Half {
  uint16_t bits;  // indeterminate after default-initialisation, as a float's value

  Half() = default;
  TENSORLIB_HOST_DEVICE constexpr Half(float f) noexcept : bits(detail::float_to_half_bits(f)) {}
  TENSORLIB_HOST_DEVICE constexpr operator float() const noexcept { return detail::half_bits_to_float(bits); }
  /// Compound assignment computes in float and rounds once.
  TENSORLIB_HOST_DEVICE constexpr Half& operator+=(float v) noexcept { return *this = Half(float(*this) + v); }
  TENSORLIB_HOST_DEVICE constexpr Half& operator-=(float v) noexcept { return *this = Half(float(*this) - v); }
  TENSORLIB_HOST_DEVICE constexpr Half& operator*=(float v) noexcept { return *this = Half(float(*this) * v); }
  TENSORLIB_HOST_DEVICE constexpr Half& operator/=(float v) noexcept { return *this = Half(float(*this) / v); }
  /// The element with these bits.
  TENSORLIB_HOST_DEVICE static constexpr Half from_bits(uint16_t b) noexcept {
    Half h{};
    h.bits = b;
    return h;
  }
};

/// bfloat16 (PyTorch's bfloat16); Note [reduced floats].
struct BFloat16 {
  uint16_t bits;

  BFloat16() = default;
  TENSORLIB_HOST_DEVICE constexpr BFloat16(float f) noexcept : bits(detail::float_to_bfloat16_bits(f)) {}
  TENSORLIB_HOST_DEVICE constexpr operator float() const noexcept { return detail::bfloat16_bits_to_float(bits); }
  /// Compound assignment computes in float and rounds once.
  TENSORLIB_HOST_DEVICE constexpr BFloat16& operator+=(float v) noexcept { return *this = BFloat16(float(*this) + v); }
  TENSORLIB_HOST_DEVICE constexpr BFloat16& operator-=(float v) noexcept { return *this = BFloat16(float(*this) - v); }
  TENSORLIB_HOST_DEVICE constexpr BFloat16& operator*=(float v) noexcept { return *this = BFloat16(float(*this) * v); }
  TENSORLIB_HOST_DEVICE constexpr BFloat16& operator/=(float v) noexcept { return *this = BFloat16(float(*this) / v); }
  /// The element with these bits.
  TENSORLIB_HOST_DEVICE static constexpr BFloat16 from_bits(uint16_t b) noexcept {
    BFloat16 h{};
    h.bits = b;
    return h;
  }
};

/// True for `Half` and `BFloat16`.
template <class T>
inline constexpr bool is_reduced_float = std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>;

/// The type an element computes in: float for a reduced float, else itself.
template <class T>
using opmath_t = std::conditional_t<is_reduced_float<T>, float, T>;

/// A value as its compute type (Note [reduced floats]).
template <class T>
TENSORLIB_HOST_DEVICE constexpr opmath_t<T> to_opmath(const T& v) noexcept {
  return static_cast<opmath_t<T>>(v);
}

}  // namespace tensorlib

namespace tensorlib::detail {

/// What the limits of the two 16-bit types share (binary floating point,
/// signed, with infinities and NaNs, rounding to nearest).
struct ReducedFloatLimits {
  static constexpr bool is_specialized = true;
  static constexpr bool is_signed = true;
  static constexpr bool is_integer = false;
  static constexpr bool is_exact = false;
  static constexpr bool has_infinity = true;
  static constexpr bool has_quiet_NaN = true;
  static constexpr bool has_signaling_NaN = true;
  static constexpr bool is_bounded = true;
  static constexpr bool is_modulo = false;
  static constexpr bool traps = false;
  static constexpr bool tinyness_before = false;
  static constexpr std::float_round_style round_style = std::round_to_nearest;
  static constexpr int radix = 2;
};

}  // namespace tensorlib::detail

namespace std {

/// Limits of binary16: max 65504, epsilon 2^-10, smallest normal 2^-14.
template <>
class numeric_limits<tensorlib::Half> : public tensorlib::detail::ReducedFloatLimits {
  using H = tensorlib::Half;

 public:
  static constexpr bool is_iec559 = true;
  static constexpr int digits = 11;
  static constexpr int digits10 = 3;
  static constexpr int max_digits10 = 5;
  static constexpr int max_exponent = 16;
  static constexpr int min_exponent = -13;
  static constexpr int max_exponent10 = 4;
  static constexpr int min_exponent10 = -4;
  static constexpr H round_error() noexcept { return H::from_bits(0x3800); }
  static constexpr H min() noexcept { return H::from_bits(0x0400); }
  static constexpr H max() noexcept { return H::from_bits(0x7bff); }
  static constexpr H lowest() noexcept { return H::from_bits(0xfbff); }
  static constexpr H epsilon() noexcept { return H::from_bits(0x1400); }
  static constexpr H infinity() noexcept { return H::from_bits(0x7c00); }
  static constexpr H quiet_NaN() noexcept { return H::from_bits(0x7e00); }
  static constexpr H signaling_NaN() noexcept { return H::from_bits(0x7d00); }
  static constexpr H denorm_min() noexcept { return H::from_bits(0x0001); }
};

/// Limits of bfloat16: float's range, epsilon 2^-7.
template <>
class numeric_limits<tensorlib::BFloat16> : public tensorlib::detail::ReducedFloatLimits {
  using B = tensorlib::BFloat16;

 public:
  static constexpr bool is_iec559 = false;
  static constexpr int digits = 8;
  static constexpr int digits10 = 2;
  static constexpr int max_digits10 = 4;
  static constexpr int max_exponent = 128;
  static constexpr int min_exponent = -125;
  static constexpr int max_exponent10 = 38;
  static constexpr int min_exponent10 = -37;
  static constexpr B round_error() noexcept { return B::from_bits(0x3f00); }
  static constexpr B min() noexcept { return B::from_bits(0x0080); }
  static constexpr B max() noexcept { return B::from_bits(0x7f7f); }
  static constexpr B lowest() noexcept { return B::from_bits(0xff7f); }
  static constexpr B epsilon() noexcept { return B::from_bits(0x3c00); }
  static constexpr B infinity() noexcept { return B::from_bits(0x7f80); }
  static constexpr B quiet_NaN() noexcept { return B::from_bits(0x7fc0); }
  static constexpr B signaling_NaN() noexcept { return B::from_bits(0x7fa0); }
  static constexpr B denorm_min() noexcept { return B::from_bits(0x0001); }
};

}  // namespace std
