#pragma once
/// \file
/// Arithmetic functors: + - * / and unary -, abs, sign, reciprocal, square,
/// rounding, frac, fmod, remainder, pow, maximum, minimum, clamp, lerp.
/// Each is written once, generic in T: a scalar, a SIMD packet or a dual
/// number (DESIGN 3.3). Integer arithmetic wraps (two's complement), as
/// PyTorch's does in practice, without C++ signed-overflow UB.

#include <string_view>
#include <type_traits>

#include "tensorlib/core/config.hpp"
#include "tensorlib/core/error.hpp"
#include "tensorlib/expr/math/power.hpp"
#include "tensorlib/expr/math/primitives.hpp"
#include "tensorlib/expr/promotion.hpp"

namespace tensorlib::fn {
namespace detail {

template <class T>
TENSORLIB_HOST_DEVICE constexpr T wrap_add(T a, T b) {
  if constexpr (std::is_same_v<T, bool>)
    return a || b;
  else if constexpr (std::is_integral_v<T>)
    return static_cast<T>(static_cast<std::make_unsigned_t<T>>(a) + static_cast<std::make_unsigned_t<T>>(b));
  else
    return a + b;
}
template <class T>
TENSORLIB_HOST_DEVICE constexpr T wrap_sub(T a, T b) {
  if constexpr (std::is_integral_v<T>)
    return static_cast<T>(static_cast<std::make_unsigned_t<T>>(a) - static_cast<std::make_unsigned_t<T>>(b));
  else
    return a - b;
}
template <class T>
TENSORLIB_HOST_DEVICE constexpr T wrap_mul(T a, T b) {
  if constexpr (std::is_same_v<T, bool>)
    return a && b;
  else if constexpr (std::is_same_v<T, uint8_t>)
    return static_cast<T>(static_cast<unsigned>(a) * static_cast<unsigned>(b));
  else if constexpr (std::is_integral_v<T>)
    return static_cast<T>(static_cast<std::make_unsigned_t<T>>(a) * static_cast<std::make_unsigned_t<T>>(b));
  else
    return a * b;
}

/// Raises on the host; CUDA kernels cannot throw and keep the value.
[[noreturn]] inline void throw_zero_division(const char* op) {
  throw ValueError(std::string(op) + ": ZeroDivisionError (integer division by zero)");
}

}  // namespace detail

/// a + b.
struct Add {
  static constexpr std::string_view name = "add";
  using promotion = promotion::Common;
  template <class T>
  TENSORLIB_HOST_DEVICE T operator()(T a, T b) const {
    return detail::wrap_add(a, b);
  }
};

/// a - b.
struct Sub {
  static constexpr std::string_view name = "sub";
  using promotion = promotion::Common;
  template <class T>
  TENSORLIB_HOST_DEVICE T operator()(T a, T b) const {
    return detail::wrap_sub(a, b);
  }
};

/// a * b.
struct Mul {
  static constexpr std::string_view name = "mul";
  using promotion = promotion::Common;
  template <class T>
  TENSORLIB_HOST_DEVICE T operator()(T a, T b) const {
    return detail::wrap_mul(a, b);
  }
};

/// True division a / b, always in a floating type.
struct Div {
  static constexpr std::string_view name = "div";
  using promotion = promotion::CommonFloating;
  template <class T>
  TENSORLIB_HOST_DEVICE T operator()(T a, T b) const {
    return a / b;
  }
};

/// a / b rounded towards zero or, with `round_down`, down:
/// torch.div's rounding modes "trunc" and "floor", in the operands' common
/// type. Integers divide exactly (INT_MIN / -1 wraps); division by zero
/// throws on the host, as PyTorch's does. Floats: trunc(a / b); and for
/// "floor" Python's floor division, which rounds the exact quotient of
/// a - fmod(a, b) by b (so 1 // 0.1 is 9, not floor(1 / 0.1) = 10), with
/// the sign of a / b on a zero result and IEEE's a / b where b is 0. The
/// gradient is 0 in both operands, also for an infinite incoming gradient
/// (masked, as PyTorch's zeros).
struct DivRounded {
  static constexpr std::string_view name = "div";
  static constexpr bool masks_gradient = true;  // Note [masked adjoints]
  using promotion = promotion::Common;
  bool round_down = false;
  template <class T>
  TENSORLIB_HOST_DEVICE T operator()(T a, T b) const {
    if constexpr (std::is_integral_v<T>) {
#if !defined(__CUDA_ARCH__)
      if (b == 0) detail::throw_zero_division("div");
#endif
      if constexpr (std::is_signed_v<T>) {
        if (b == T(-1)) return detail::wrap_sub(T(0), a);  // INT_MIN / -1 would trap
        const T q = static_cast<T>(a / b);
        return round_down && q * b != a && ((a < 0) != (b < 0)) ? static_cast<T>(q - 1) : q;
      } else {
        return static_cast<T>(a / b);
      }
    } else {
      using math::copysign;
      using math::floor;
      using math::fmod;
      using math::select;
      using math::trunc;
      const T quotient = a / b;
      if (!round_down) return trunc(quotient);
      const T r = fmod(a, b);
      T q = (a - r) / b;
      q = select(r != T(0) && ((b < T(0)) != (r < T(0))), q - T(1), q);
      T down = floor(q);
      down = select(q - down > T(0.5), down + T(1), down);  // q is an integer up to rounding
      return select(b == T(0), quotient, select(q == T(0), copysign(T(0), quotient), down));
    }
  }
  template <class T>
  TENSORLIB_HOST_DEVICE T partial_a(T, T) const {
    return T(0);
  }
  template <class T>
  TENSORLIB_HOST_DEVICE T partial_b(T, T) const {
    return T(0);
  }
};

/// -x (-0.0 for 0.0, as in PyTorch).
struct Neg {
  static constexpr std::string_view name = "neg";
  using promotion = promotion::Common;
  template <class T>
  TENSORLIB_HOST_DEVICE T operator()(T x) const {
    if constexpr (std::is_integral_v<T>)
      return detail::wrap_sub(T(0), x);
    else
      return -x;
  }
};

/// |x|.
struct Abs {
  static constexpr std::string_view name = "abs";
  using promotion = promotion::Common;
  template <class T>
  TENSORLIB_HOST_DEVICE T operator()(T x) const {
    if constexpr (std::is_unsigned_v<T>)
      return x;
    else if constexpr (std::is_integral_v<T>)
      return x < 0 ? detail::wrap_sub(T(0), x) : x;
    else {
      using math::abs;
      return abs(x);
    }
  }
};

/// -1, 0 or 1 (0 for NaN and for both zeros).
struct Sign {
  static constexpr std::string_view name = "sign";
  static constexpr bool masks_gradient = true;  // Note [masked adjoints]
  using promotion = promotion::Common;
  template <class T>
  TENSORLIB_HOST_DEVICE T operator()(T x) const {
    if constexpr (std::is_same_v<T, bool>)
      return x;
    else if constexpr (std::is_unsigned_v<T>)
      return static_cast<T>(x != T(0));
    else if constexpr (std::is_integral_v<T>)
      return static_cast<T>((T(0) < x) - (x < T(0)));
    else {
      using math::select;
      return select(x > T(0), T(1), select(x < T(0), T(-1), T(0)));
    }
  }
};

/// 1 / x.
struct Reciprocal {
  static constexpr std::string_view name = "reciprocal";
  using promotion = promotion::CommonFloating;
  template <class T>
  TENSORLIB_HOST_DEVICE T operator()(T x) const {
    return T(1) / x;
  }
};

/// x * x.
struct Square {
  static constexpr std::string_view name = "square";
  using promotion = promotion::Common;
  template <class T>
  TENSORLIB_HOST_DEVICE T operator()(T x) const {
    return detail::wrap_mul(x, x);
  }
};

/// Largest integer not above x (identity on integers).
struct Floor {
  static constexpr std::string_view name = "floor";
  static constexpr bool masks_gradient = true;  // Note [masked adjoints]
  using promotion = promotion::Common;
  template <class T>
  TENSORLIB_HOST_DEVICE T operator()(T x) const {
    if constexpr (std::is_integral_v<T>)
      return x;
    else {
      using math::floor;
      return floor(x);
    }
  }
};

/// Smallest integer not below x (identity on integers).
struct Ceil {
  static constexpr std::string_view name = "ceil";
  static constexpr bool masks_gradient = true;  // Note [masked adjoints]
  using promotion = promotion::Common;
  template <class T>
  TENSORLIB_HOST_DEVICE T operator()(T x) const {
    if constexpr (std::is_integral_v<T>)
      return x;
    else {
      using math::ceil;
      return ceil(x);
    }
  }
};

/// Nearest integer, ties to even (PyTorch's round; identity on integers).
struct Round {
  static constexpr std::string_view name = "round";
  static constexpr bool masks_gradient = true;  // Note [masked adjoints]
  using promotion = promotion::Common;
  template <class T>
  TENSORLIB_HOST_DEVICE T operator()(T x) const {
    if constexpr (std::is_integral_v<T>)
      return x;
    else {
      using math::rint;
      return rint(x);
    }
  }
};

/// x rounded toward zero (identity on integers).
struct Trunc {
  static constexpr std::string_view name = "trunc";
  static constexpr bool masks_gradient = true;  // Note [masked adjoints]
  using promotion = promotion::Common;
  template <class T>
  TENSORLIB_HOST_DEVICE T operator()(T x) const {
    if constexpr (std::is_integral_v<T>)
      return x;
    else {
      using math::trunc;
      return trunc(x);
    }
  }
};

/// Fractional part x - trunc(x) (floating only).
struct Frac {
  static constexpr std::string_view name = "frac";
  using promotion = promotion::Common;
  template <class T>
  TENSORLIB_HOST_DEVICE T operator()(T x) const {
    using math::trunc;
    return x - trunc(x);
  }
};

/// C's fmod: the remainder has the sign of the dividend.
struct Fmod {
  static constexpr std::string_view name = "fmod";
  using promotion = promotion::Common;
  template <class T>
  TENSORLIB_HOST_DEVICE T operator()(T a, T b) const {
    if constexpr (std::is_integral_v<T>) {
#if !defined(__CUDA_ARCH__)
      if (b == 0) detail::throw_zero_division("fmod");
#endif
      if constexpr (std::is_signed_v<T>) {
        if (b == T(-1)) return T(0);  // INT_MIN % -1 would trap
      }
      return static_cast<T>(a % b);
    } else {
      using math::fmod;
      return fmod(a, b);
    }
  }
};

/// Python's modulus: the remainder has the sign of the divisor.
struct Remainder {
  static constexpr std::string_view name = "remainder";
  using promotion = promotion::Common;
  template <class T>
  TENSORLIB_HOST_DEVICE T operator()(T a, T b) const {
    if constexpr (std::is_integral_v<T>) {
      const T r = Fmod{}(a, b);
      if constexpr (std::is_signed_v<T>) {
        if (r != 0 && ((r < 0) != (b < 0))) return static_cast<T>(r + b);
      }
      return r;
    } else {
      using math::fmod;
      using math::select;
      const T r = fmod(a, b);
      return select((r != T(0)) && ((r < T(0)) != (b < T(0))), r + b, r);
    }
  }
};

/// a raised to b. Integers follow PyTorch's powi: a negative exponent gives
/// 1 for a == 1, +-1 for a == -1 and 0 otherwise.
struct Pow {
  static constexpr std::string_view name = "pow";
  using promotion = promotion::Common;
  template <class T>
  TENSORLIB_HOST_DEVICE T operator()(T a, T b) const {
    if constexpr (std::is_integral_v<T>) {
      if constexpr (std::is_signed_v<T>) {
        if (b < 0) {
          if (a == 1) return T(1);
          if (a == -1) return b % 2 == 0 ? T(1) : T(-1);
          return T(0);
        }
      }
      T r = 1;
      while (b) {
        if (b & 1) r = detail::wrap_mul(r, a);
        b = static_cast<T>(b >> 1);
        a = detail::wrap_mul(a, a);
      }
      return r;
    } else {
      using math::pow;
      return pow(a, b);
    }
  }
};

/// Elementwise maximum; NaN if either is NaN; `a` when they compare equal
/// (so maximum(-0., 0.) is -0., as in PyTorch).
struct Maximum {
  static constexpr std::string_view name = "maximum";
  static constexpr bool masks_gradient = true;  // Note [masked adjoints]
  using promotion = promotion::Common;
  template <class T>
  TENSORLIB_HOST_DEVICE T operator()(T a, T b) const {
    if constexpr (std::is_integral_v<T>)
      return a < b ? b : a;
    else {
      using math::isnan;
      using math::select;
      return select(isnan(a) || isnan(b), a + b, select(a < b, b, a));
    }
  }
  /// d/da and d/db: ties share the gradient equally, and a NaN gives both
  /// the full gradient, as PyTorch's.
  template <class T>
  TENSORLIB_HOST_DEVICE T partial_a(T a, T b) const {
    using math::select;
    return select(a == b, T(0.5), select(a < b, T(0), T(1)));
  }
  template <class T>
  TENSORLIB_HOST_DEVICE T partial_b(T a, T b) const {
    using math::select;
    return select(a == b, T(0.5), select(a > b, T(0), T(1)));
  }
};

/// Elementwise minimum; NaN if either is NaN; `a` when they compare equal.
struct Minimum {
  static constexpr std::string_view name = "minimum";
  static constexpr bool masks_gradient = true;  // Note [masked adjoints]
  using promotion = promotion::Common;
  template <class T>
  TENSORLIB_HOST_DEVICE T operator()(T a, T b) const {
    if constexpr (std::is_integral_v<T>)
      return b < a ? b : a;
    else {
      using math::isnan;
      using math::select;
      return select(isnan(a) || isnan(b), a + b, select(b < a, b, a));
    }
  }
  /// d/da and d/db: ties share the gradient equally, and a NaN gives both
  /// the full gradient, as PyTorch's.
  template <class T>
  TENSORLIB_HOST_DEVICE T partial_a(T a, T b) const {
    using math::select;
    return select(a == b, T(0.5), select(a > b, T(0), T(1)));
  }
  template <class T>
  TENSORLIB_HOST_DEVICE T partial_b(T a, T b) const {
    using math::select;
    return select(a == b, T(0.5), select(a < b, T(0), T(1)));
  }
};

/// min(max(x, lo), hi) with optional bounds; a NaN operand or bound gives NaN
/// (PyTorch). The operand is cast to S by the builder (the bounds take part
/// in promotion).
template <class S>
struct Clamp {
  static constexpr std::string_view name = "clamp";
  static constexpr bool masks_gradient = true;  // Note [masked adjoints]
  using promotion = promotion::None;
  S lo{};
  S hi{};
  bool has_lo = false;
  bool has_hi = false;
  template <class T>
  TENSORLIB_HOST_DEVICE T operator()(T x) const {
    if constexpr (std::is_integral_v<T>) {
      if (has_lo && x < lo) x = lo;
      if (has_hi && x > hi) x = hi;
      return x;
    } else {
      using math::select;
      if ((has_lo && lo != lo) || (has_hi && hi != hi)) return T(has_lo && lo != lo ? lo : hi);
      if (has_lo) x = select(x < T(lo), T(lo), x);
      if (has_hi) x = select(x > T(hi), T(hi), x);
      return x;
    }
  }
  /// 1 inside [lo, hi] (bounds included), else 0, and 0 for NaN (PyTorch's
  /// clamp_backward).
  template <class T>
  TENSORLIB_HOST_DEVICE T derivative(T x, T) const {
    using math::select;
    T d(1);
    if (has_lo) d = select(x >= T(lo), d, T(0));
    if (has_hi) d = select(x <= T(hi), d, T(0));
    if (!has_lo && !has_hi) d = select(x == x, d, T(0));
    return d;
  }
};

/// start + weight * (end - start), evaluated from the nearer end (PyTorch).
struct Lerp {
  static constexpr std::string_view name = "lerp";
  using promotion = promotion::CommonFloating;
  template <class T>
  TENSORLIB_HOST_DEVICE T operator()(T start, T end, T weight) const {
    using math::abs;
    using math::select;
    const T diff = end - start;
    return select(abs(weight) < T(0.5), start + weight * diff, end - diff * (T(1) - weight));
  }
};

}  // namespace tensorlib::fn
