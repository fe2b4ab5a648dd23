#pragma once
/// \file
/// Integer functors: gcd and lcm (torch.gcd, torch.lcm) and the bit shifts
/// (torch.bitwise_left_shift, bitwise_right_shift). Integral operands only
/// (the free functions refuse floating and bool ones at compile time, as
/// PyTorch's kernels do at run time); results wrap as PyTorch's do, without
/// signed overflow in C++ (the arithmetic is unsigned).

#include <string_view>
#include <type_traits>

#include "tensorlib/core/config.hpp"
#include "tensorlib/expr/functors/arithmetic.hpp"
#include "tensorlib/expr/promotion.hpp"

namespace tensorlib::fn {
namespace detail {

/// The unsigned type arithmetic on T happens in: T's own, but at least
/// `unsigned` (uint8 would otherwise promote to a signed int).
template <class T>
using unsigned_arithmetic_t = std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, std::make_unsigned_t<T>>;

/// |x| in T's unsigned type (exact for T's most negative value).
template <class T>
TENSORLIB_HOST_DEVICE std::make_unsigned_t<T> unsigned_abs(T x) {
  using U = std::make_unsigned_t<T>;
  if constexpr (std::is_unsigned_v<T>)
    return x;
  else
    return x < 0 ? static_cast<U>(U(0) - static_cast<U>(x)) : static_cast<U>(x);
}

/// x < 0, without a warning for unsigned T.
template <class T>
TENSORLIB_HOST_DEVICE constexpr bool is_negative(T x) {
  if constexpr (std::is_signed_v<T>)
    return x < T(0);
  else
    return false;
}

}  // namespace detail

/// The greatest common divisor of |a| and |b|; gcd(0, 0) = 0. Euclid's
/// algorithm on the unsigned magnitudes, so gcd(INT64_MIN, 0) is 2^63, which
/// wraps to INT64_MIN as PyTorch's result does.
struct Gcd {
  static constexpr std::string_view name = "gcd";
  using promotion = promotion::Common;
  template <class T>
  TENSORLIB_HOST_DEVICE T operator()(T a, T b) const {
    using W = detail::unsigned_arithmetic_t<T>;
    W x = detail::unsigned_abs(a), y = detail::unsigned_abs(b);
    while (x != 0) {
      const W rest = y % x;
      y = x;
      x = rest;
    }
    return static_cast<T>(y);
  }
};

/// The least common multiple |a / gcd(a, b) * b|, 0 where the gcd is 0;
/// PyTorch's formula, wrapping where the product overflows as PyTorch's does.
struct Lcm {
  static constexpr std::string_view name = "lcm";
  using promotion = promotion::Common;
  template <class T>
  TENSORLIB_HOST_DEVICE T operator()(T a, T b) const {
    const T g = Gcd{}(a, b);  // never -1, so a / g cannot overflow
    if (g == 0) return T(0);
    const T product = detail::wrap_mul(static_cast<T>(a / g), b);
    return static_cast<T>(detail::unsigned_abs(product));
  }
};

/// a << b, 0 where b is negative or at least T's width (current PyTorch;
/// 1.13 shifted by b modulo the width, the hardware's undefined behaviour).
struct BitwiseLeftShift {
  static constexpr std::string_view name = "bitwise_left_shift";
  using promotion = promotion::Common;
  template <class T>
  TENSORLIB_HOST_DEVICE T operator()(T a, T b) const {
    using W = detail::unsigned_arithmetic_t<T>;
    constexpr T width = T(8 * sizeof(T));
    if (detail::is_negative(b) || b >= width) return T(0);
    return static_cast<T>(static_cast<W>(static_cast<std::make_unsigned_t<T>>(a)) << b);
  }
};

/// a >> b, arithmetic for signed types; where b is negative or at least T's
/// width (less the sign bit), the sign fill: -1 for a negative a, else 0
/// (PyTorch's `a >> max_shift`).
struct BitwiseRightShift {
  static constexpr std::string_view name = "bitwise_right_shift";
  using promotion = promotion::Common;
  template <class T>
  TENSORLIB_HOST_DEVICE T operator()(T a, T b) const {
    constexpr T max_shift = T(8 * sizeof(T) - (std::is_signed_v<T> ? 1 : 0));
    if (detail::is_negative(b) || b >= max_shift) return detail::is_negative(a) ? T(-1) : T(0);
    return static_cast<T>(a >> b);
  }
};

}  // namespace tensorlib::fn
