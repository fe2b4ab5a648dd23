#pragma once
/// \file
/// Floating functors: exponentials, logarithms, roots, trigonometric and
/// hyperbolic functions. Integral and bool operands compute in float
/// (`promotion::CommonFloating`), as in PyTorch. Each calls the math kernel of
/// the same name through a using-declaration, so argument-dependent lookup
/// picks the packet or dual-number overload when T is one.

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

}  // namespace tensorlib::fn
