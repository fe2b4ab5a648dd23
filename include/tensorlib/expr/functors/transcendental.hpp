#pragma once
/// \file
/// Floating functors: exponentials, logarithms, roots, trigonometric and
/// hyperbolic functions. Integral and bool operands compute in float
/// (`promotion::CommonFloating`), as in PyTorch. Each calls the math kernel of
/// the same name through a using-declaration, so argument-dependent lookup
/// picks the packet or dual-number overload when T is one.

#include <limits>
#include <string_view>

#include "tensorlib/core/config.hpp"
#include "tensorlib/expr/math/exp_log.hpp"
#include "tensorlib/expr/math/hyperbolic.hpp"
#include "tensorlib/expr/math/inverse_trig.hpp"
#include "tensorlib/expr/math/primitives.hpp"
#include "tensorlib/expr/math/trig.hpp"
#include "tensorlib/expr/promotion.hpp"

namespace tensorlib::fn {

/// e^x.
struct Exp {
  static constexpr std::string_view name = "exp";
  using promotion = promotion::CommonFloating;
  template <class T>
  TENSORLIB_HOST_DEVICE T operator()(T x) const {
    using math::exp;
    return exp(x);
  }
};

/// 2^x.
struct Exp2 {
  static constexpr std::string_view name = "exp2";
  using promotion = promotion::CommonFloating;
  template <class T>
  TENSORLIB_HOST_DEVICE T operator()(T x) const {
    using math::exp2;
    return exp2(x);
  }
};

/// e^x - 1, accurate near 0.
struct Expm1 {
  static constexpr std::string_view name = "expm1";
  using promotion = promotion::CommonFloating;
  template <class T>
  TENSORLIB_HOST_DEVICE T operator()(T x) const {
    using math::expm1;
    return expm1(x);
  }
};

/// Natural logarithm.
struct Log {
  static constexpr std::string_view name = "log";
  using promotion = promotion::CommonFloating;
  template <class T>
  TENSORLIB_HOST_DEVICE T operator()(T x) const {
    using math::log;
    return log(x);
  }
};

/// Base-2 logarithm.
struct Log2 {
  static constexpr std::string_view name = "log2";
  using promotion = promotion::CommonFloating;
  template <class T>
  TENSORLIB_HOST_DEVICE T operator()(T x) const {
    using math::log2;
    return log2(x);
  }
};

/// Base-10 logarithm.
struct Log10 {
  static constexpr std::string_view name = "log10";
  using promotion = promotion::CommonFloating;
  template <class T>
  TENSORLIB_HOST_DEVICE T operator()(T x) const {
    using math::log10;
    return log10(x);
  }
};

/// log(1 + x), accurate near 0.
struct Log1p {
  static constexpr std::string_view name = "log1p";
  using promotion = promotion::CommonFloating;
  template <class T>
  TENSORLIB_HOST_DEVICE T operator()(T x) const {
    using math::log1p;
    return log1p(x);
  }
};

/// Square root.
struct Sqrt {
  static constexpr std::string_view name = "sqrt";
  using promotion = promotion::CommonFloating;
  template <class T>
  TENSORLIB_HOST_DEVICE T operator()(T x) const {
    using math::sqrt;
    return sqrt(x);
  }
};

/// Sine.
struct Sin {
  static constexpr std::string_view name = "sin";
  using promotion = promotion::CommonFloating;
  template <class T>
  TENSORLIB_HOST_DEVICE T operator()(T x) const {
    using math::sin;
    return sin(x);
  }
};

/// Cosine.
struct Cos {
  static constexpr std::string_view name = "cos";
  using promotion = promotion::CommonFloating;
  template <class T>
  TENSORLIB_HOST_DEVICE T operator()(T x) const {
    using math::cos;
    return cos(x);
  }
};

/// Tangent.
struct Tan {
  static constexpr std::string_view name = "tan";
  using promotion = promotion::CommonFloating;
  template <class T>
  TENSORLIB_HOST_DEVICE T operator()(T x) const {
    using math::tan;
    return tan(x);
  }
};

/// Arcsine.
struct Asin {
  static constexpr std::string_view name = "asin";
  using promotion = promotion::CommonFloating;
  template <class T>
  TENSORLIB_HOST_DEVICE T operator()(T x) const {
    using math::asin;
    return asin(x);
  }
};

/// Arccosine.
struct Acos {
  static constexpr std::string_view name = "acos";
  using promotion = promotion::CommonFloating;
  template <class T>
  TENSORLIB_HOST_DEVICE T operator()(T x) const {
    using math::acos;
    return acos(x);
  }
};

/// Arctangent.
struct Atan {
  static constexpr std::string_view name = "atan";
  using promotion = promotion::CommonFloating;
  template <class T>
  TENSORLIB_HOST_DEVICE T operator()(T x) const {
    using math::atan;
    return atan(x);
  }
};

/// Hyperbolic sine.
struct Sinh {
  static constexpr std::string_view name = "sinh";
  using promotion = promotion::CommonFloating;
  template <class T>
  TENSORLIB_HOST_DEVICE T operator()(T x) const {
    using math::sinh;
    return sinh(x);
  }
};

/// Hyperbolic cosine.
struct Cosh {
  static constexpr std::string_view name = "cosh";
  using promotion = promotion::CommonFloating;
  template <class T>
  TENSORLIB_HOST_DEVICE T operator()(T x) const {
    using math::cosh;
    return cosh(x);
  }
};

/// Hyperbolic tangent.
struct Tanh {
  static constexpr std::string_view name = "tanh";
  using promotion = promotion::CommonFloating;
  template <class T>
  TENSORLIB_HOST_DEVICE T operator()(T x) const {
    using math::tanh;
    return tanh(x);
  }
};

/// Inverse hyperbolic sine.
struct Asinh {
  static constexpr std::string_view name = "asinh";
  using promotion = promotion::CommonFloating;
  template <class T>
  TENSORLIB_HOST_DEVICE T operator()(T x) const {
    using math::asinh;
    return asinh(x);
  }
};

/// Inverse hyperbolic cosine (NaN below 1).
struct Acosh {
  static constexpr std::string_view name = "acosh";
  using promotion = promotion::CommonFloating;
  template <class T>
  TENSORLIB_HOST_DEVICE T operator()(T x) const {
    using math::acosh;
    return acosh(x);
  }
};

/// Inverse hyperbolic tangent (+-inf at +-1, NaN beyond).
struct Atanh {
  static constexpr std::string_view name = "atanh";
  using promotion = promotion::CommonFloating;
  template <class T>
  TENSORLIB_HOST_DEVICE T operator()(T x) const {
    using math::atanh;
    return atanh(x);
  }
};

/// 1 / sqrt(x).
struct Rsqrt {
  static constexpr std::string_view name = "rsqrt";
  using promotion = promotion::CommonFloating;
  template <class T>
  TENSORLIB_HOST_DEVICE T operator()(T x) const {
    using math::sqrt;
    return T(1) / sqrt(x);
  }
};

/// Angle of the point (x, y), from atan2(y, x).
struct Atan2 {
  static constexpr std::string_view name = "atan2";
  using promotion = promotion::CommonFloating;
  template <class T>
  TENSORLIB_HOST_DEVICE T operator()(T y, T x) const {
    using math::atan2;
    return atan2(y, x);
  }
};

/// sqrt(a^2 + b^2) without overflow or underflow: big * sqrt(1 + (small /
/// big)^2), 0 where both are 0, +inf where either is infinite (even with a
/// NaN, as std::hypot), NaN where either is NaN otherwise.
struct Hypot {
  static constexpr std::string_view name = "hypot";
  using promotion = promotion::CommonFloating;
  template <class T>
  TENSORLIB_HOST_DEVICE T operator()(T a, T b) const {
    using math::abs;
    using math::isinf;
    using math::select;
    using math::sqrt;
    const T x = abs(a), y = abs(b);
    const T big = select(x < y, y, x), small = select(x < y, x, y);  // a NaN reaches the ratio either way
    const T ratio = small / big;
    const T h = select(small == T(0), big, big * sqrt(T(1) + ratio * ratio));  // 0/0 at the origin
    return select(isinf(x) || isinf(y), T(std::numeric_limits<double>::infinity()), h);
  }
  /// PyTorch's a / hypot and b / hypot: NaN at the origin and for an
  /// infinite operand, 0 for the finite one beside it or where the result
  /// overflows.
  template <class T>
  TENSORLIB_HOST_DEVICE T partial_a(T a, T b) const {
    return a / (*this)(a, b);
  }
  template <class T>
  TENSORLIB_HOST_DEVICE T partial_b(T a, T b) const {
    return b / (*this)(a, b);
  }
};

}  // namespace tensorlib::fn
