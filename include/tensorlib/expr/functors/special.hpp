#pragma once
/// \file
/// Special-function functors: erf, erfc, erfinv, erfcx, lgamma, digamma,
/// polygamma, entr, the modified Bessel functions i0, i0e, i1, i1e, the
/// normal distribution's log_ndtr and ndtri, sigmoid, logit, and the binary
/// zeta, igamma and igammac. Integral operands compute in float.

#include <cstdint>
#include <limits>
#include <string_view>

#include "tensorlib/core/config.hpp"
#include "tensorlib/expr/math/bessel.hpp"
#include "tensorlib/expr/math/exp_log.hpp"
#include "tensorlib/expr/math/incomplete_gamma.hpp"
#include "tensorlib/expr/math/normal_cdf.hpp"
#include "tensorlib/expr/math/primitives.hpp"
#include "tensorlib/expr/math/special.hpp"
#include "tensorlib/expr/promotion.hpp"

namespace tensorlib::fn {

/// Error function.
struct Erf {
  static constexpr std::string_view name = "erf";
  using promotion = promotion::CommonFloating;
  template <class T>
  TENSORLIB_HOST_DEVICE T operator()(T x) const {
    using math::erf;
    return erf(x);
  }
};

/// Complementary error function 1 - erf(x), accurate in the tail.
struct Erfc {
  static constexpr std::string_view name = "erfc";
  using promotion = promotion::CommonFloating;
  template <class T>
  TENSORLIB_HOST_DEVICE T operator()(T x) const {
    using math::erfc;
    return erfc(x);
  }
};

/// Inverse of erf on (-1, 1).
struct Erfinv {
  static constexpr std::string_view name = "erfinv";
  using promotion = promotion::CommonFloating;
  template <class T>
  TENSORLIB_HOST_DEVICE T operator()(T x) const {
    using math::erfinv;
    return erfinv(x);
  }
};

/// Scaled complementary error function e^(x^2) erfc(x) (torch.special.erfcx).
struct Erfcx {
  static constexpr std::string_view name = "erfcx";
  using promotion = promotion::CommonFloating;
  template <class T>
  TENSORLIB_HOST_DEVICE T operator()(T x) const {
    using math::erfcx;
    return erfcx(x);
  }
};

/// log|Gamma(x)|.
struct Lgamma {
  static constexpr std::string_view name = "lgamma";
  using promotion = promotion::CommonFloating;
  template <class T>
  TENSORLIB_HOST_DEVICE T operator()(T x) const {
    using math::lgamma;
    return lgamma(x);
  }
};

/// Digamma, the derivative of lgamma.
struct Digamma {
  static constexpr std::string_view name = "digamma";
  using promotion = promotion::CommonFloating;
  template <class T>
  TENSORLIB_HOST_DEVICE T operator()(T x) const {
    using math::digamma;
    return digamma(x);
  }
};

/// The n-th derivative of digamma (n >= 0; tl::polygamma checks it).
struct Polygamma {
  static constexpr std::string_view name = "polygamma";
  using promotion = promotion::CommonFloating;
  int64_t n = 0;
  template <class T>
  TENSORLIB_HOST_DEVICE T operator()(T x) const {
    using math::polygamma;
    return polygamma(n, x);
  }
};

/// Elementwise entropy -x log(x) (torch.special.entr): 0 at 0, -inf below,
/// NaN for NaN.
struct Entr {
  static constexpr std::string_view name = "entr";
  using promotion = promotion::CommonFloating;
  template <class T>
  TENSORLIB_HOST_DEVICE T operator()(T x) const {
    using math::log;
    using math::select;
    const T minus_inf(-std::numeric_limits<double>::infinity());
    const T y = select(x > T(0), -x * log(x), x);  // a NaN x stays NaN
    return select(x < T(0), minus_inf, select(x == T(0), T(0), y));
  }
  /// PyTorch's -(1 + log x) everywhere: +inf at 0, NaN below (the formula
  /// would give the selected constants' 0 there).
  template <class T>
  TENSORLIB_HOST_DEVICE T derivative(T x, T) const {
    using math::log;
    return -(T(1) + log(x));
  }
};

/// The Hurwitz zeta function zeta(x, q) = sum_k (q + k)^-x
/// (torch.special.zeta). PyTorch implements its derivative in q only, -x
/// zeta(x + 1, q); a backward that needs d/dx throws NotImplementedError, as
/// PyTorch's (Note [derivatives PyTorch does not implement] in
/// autograd/fused.hpp).
struct Zeta {
  static constexpr std::string_view name = "zeta";
  static constexpr std::string_view no_derivative_in_a = "zeta";
  using promotion = promotion::CommonFloating;
  template <class T>
  TENSORLIB_HOST_DEVICE T operator()(T x, T q) const {
    using math::zeta;
    return zeta(x, q);
  }
  template <class T>
  TENSORLIB_HOST_DEVICE T partial_a(T, T) const {
    return T(std::numeric_limits<double>::quiet_NaN());
  }
  template <class T>
  TENSORLIB_HOST_DEVICE T partial_b(T x, T q) const {
    using math::zeta;
    return -x * zeta(x + T(1), q);
  }
};

/// The regularized lower incomplete gamma function P(a, x) (torch.igamma,
/// special.gammainc). PyTorch implements its derivative in x only,
/// x^(a-1) e^-x / Gamma(a); d/da throws, as PyTorch's.
struct Igamma {
  static constexpr std::string_view name = "igamma";
  static constexpr std::string_view no_derivative_in_a = "igamma: input";
  using promotion = promotion::CommonFloating;
  template <class T>
  TENSORLIB_HOST_DEVICE T operator()(T a, T x) const {
    using math::gammainc;
    return gammainc(a, x);
  }
  template <class T>
  TENSORLIB_HOST_DEVICE T partial_a(T, T) const {
    return T(std::numeric_limits<double>::quiet_NaN());
  }
  /// PyTorch's exp((a - 1) log x - x - lgamma(a)).
  template <class T>
  TENSORLIB_HOST_DEVICE T partial_b(T a, T x) const {
    using math::exp;
    using math::lgamma;
    using math::log;
    return exp((a - T(1)) * log(x) - x - lgamma(a));
  }
};

/// The regularized upper incomplete gamma function Q(a, x) = 1 - P(a, x)
/// (torch.igammac, special.gammaincc); derivative in x only, as Igamma's.
struct Igammac {
  static constexpr std::string_view name = "igammac";
  static constexpr std::string_view no_derivative_in_a = "igammac: input";
  using promotion = promotion::CommonFloating;
  template <class T>
  TENSORLIB_HOST_DEVICE T operator()(T a, T x) const {
    using math::gammaincc;
    return gammaincc(a, x);
  }
  template <class T>
  TENSORLIB_HOST_DEVICE T partial_a(T, T) const {
    return T(std::numeric_limits<double>::quiet_NaN());
  }
  template <class T>
  TENSORLIB_HOST_DEVICE T partial_b(T a, T x) const {
    return -Igamma{}.partial_b(a, x);
  }
};

/// Modified Bessel function of the first kind of order 0 (torch.i0).
struct I0 {
  static constexpr std::string_view name = "i0";
  using promotion = promotion::CommonFloating;
  template <class T>
  TENSORLIB_HOST_DEVICE T operator()(T x) const {
    using math::i0;
    return i0(x);
  }
};

/// Exponentially scaled I0: e^-|x| I0(x) (torch.special.i0e).
struct I0e {
  static constexpr std::string_view name = "i0e";
  using promotion = promotion::CommonFloating;
  template <class T>
  TENSORLIB_HOST_DEVICE T operator()(T x) const {
    using math::i0e;
    return i0e(x);
  }
};

/// Modified Bessel function of the first kind of order 1 (torch.special.i1).
struct I1 {
  static constexpr std::string_view name = "i1";
  using promotion = promotion::CommonFloating;
  template <class T>
  TENSORLIB_HOST_DEVICE T operator()(T x) const {
    using math::i1;
    return i1(x);
  }
};

/// Exponentially scaled I1: e^-|x| I1(x) (torch.special.i1e).
struct I1e {
  static constexpr std::string_view name = "i1e";
  using promotion = promotion::CommonFloating;
  template <class T>
  TENSORLIB_HOST_DEVICE T operator()(T x) const {
    using math::i1e;
    return i1e(x);
  }
};

/// log of the standard normal CDF (torch.special.log_ndtr).
struct LogNdtr {
  static constexpr std::string_view name = "log_ndtr";
  using promotion = promotion::CommonFloating;
  template <class T>
  TENSORLIB_HOST_DEVICE T operator()(T x) const {
    using math::log_ndtr;
    return log_ndtr(x);
  }
};

/// Quantile (inverse CDF) of the standard normal distribution (torch.special.ndtri).
struct Ndtri {
  static constexpr std::string_view name = "ndtri";
  using promotion = promotion::CommonFloating;
  template <class T>
  TENSORLIB_HOST_DEVICE T operator()(T x) const {
    using math::ndtri;
    return ndtri(x);
  }
};

/// Logistic function 1 / (1 + e^-x).
struct Sigmoid {
  static constexpr std::string_view name = "sigmoid";
  using promotion = promotion::CommonFloating;
  template <class T>
  TENSORLIB_HOST_DEVICE T operator()(T x) const {
    using math::exp;
    return T(1) / (T(1) + exp(-x));
  }
  /// d/dx from the result: y (1 - y) (the quotient rule on the formula gives
  /// inf/inf for x << 0).
  template <class T>
  TENSORLIB_HOST_DEVICE T derivative(T, T y) const {
    return y * (T(1) - y);
  }
};

/// log(x / (1 - x)), with x first clamped to [eps, 1 - eps] when eps >= 0.
struct Logit {
  static constexpr std::string_view name = "logit";
  using promotion = promotion::CommonFloating;
  // PyTorch's backward: with eps, 0 outside [eps, 1 - eps] whatever the
  // gradient, as masking gives; without, NaN outside [0, 1] (x is made NaN
  // there, value and derivative), inf at 0 and 1 (log(x) - log1p(-x) has
  // the derivative 1/x + 1/(1 - x), never 0 inside).
  static constexpr bool masks_gradient = true;
  double eps = -1;
  template <class T>
  TENSORLIB_HOST_DEVICE T operator()(T x) const {
    using math::log;
    using math::log1p;
    using math::select;
    if (eps >= 0) {
      x = select(x < T(eps), T(eps), x);
      x = select(x > T(1 - eps), T(1 - eps), x);
    } else {
      // A product, so that a dual's tangent becomes NaN too.
      const T nan(std::numeric_limits<double>::quiet_NaN());
      x = x * select(x < T(0), nan, T(1));
      x = x * select(x > T(1), nan, T(1));
    }
    return log(x) - log1p(-x);
  }
};

}  // namespace tensorlib::fn
