#pragma once
/// \file
/// Activation functors: relu, gelu (exact and tanh), silu, softplus,
/// hardtanh, leaky_relu, elu, hardshrink, and the step function heaviside. Parameters are stored as double and
/// converted to the element type at the call (the conversion is hoisted out of loops).

#include <string_view>
#include <type_traits>

#include "tensorlib/core/config.hpp"
#include "tensorlib/expr/math/exp_log.hpp"
#include "tensorlib/expr/math/hyperbolic.hpp"
#include "tensorlib/expr/math/primitives.hpp"
#include "tensorlib/expr/math/special.hpp"
#include "tensorlib/expr/promotion.hpp"

namespace tensorlib::fn {

/// max(x, 0); NaN and -0 pass through (PyTorch).
struct Relu {
  static constexpr std::string_view name = "relu";
  static constexpr bool masks_gradient = true;  // Note [masked adjoints]
  using promotion = promotion::Common;
  template <class T>
  TENSORLIB_HOST_DEVICE T operator()(T x) const {
    if constexpr (std::is_integral_v<T>)
      return x > 0 ? x : T(0);
    else {
      using math::select;
      return select(x < T(0), T(0), x);
    }
  }
  /// 0 where the result is at most 0, else 1: 0 at 0, 1 at NaN (PyTorch's
  /// threshold_backward, `x <= 0 ? 0 : grad`; the formula's own derivative
  /// is 1 at 0).
  template <class T>
  TENSORLIB_HOST_DEVICE T derivative(T, T y) const {
    using math::select;
    return select(y <= T(0), T(0), T(1));
  }
};

/// x * Phi(x); with `tanh_approximation`, PyTorch's approximate='tanh' form.
struct Gelu {
  static constexpr std::string_view name = "gelu";
  using promotion = promotion::CommonFloating;
  bool tanh_approximation = false;
  template <class T>
  TENSORLIB_HOST_DEVICE T operator()(T x) const {
    using math::erf;
    using math::tanh;
    if (tanh_approximation) {
      const T inner = T(0.79788456080286535588) * (x + T(0.044715) * x * x * x);  // sqrt(2/pi)
      return T(0.5) * x * (T(1) + tanh(inner));
    }
    return T(0.5) * x * (T(1) + erf(x * T(0.70710678118654752440)));  // 1/sqrt(2)
  }
};

/// x * sigmoid(x).
struct Silu {
  static constexpr std::string_view name = "silu";
  using promotion = promotion::CommonFloating;
  template <class T>
  TENSORLIB_HOST_DEVICE T operator()(T x) const {
    using math::exp;
    return x / (T(1) + exp(-x));
  }
  /// d/dx at x (y = silu(x)): s (1 + x (1 - s)), s = sigmoid(x) (PyTorch's
  /// form; the quotient rule on the formula above gives inf/inf for x << 0).
  template <class T>
  TENSORLIB_HOST_DEVICE T derivative(T x, T) const {
    using math::exp;
    const T s = T(1) / (T(1) + exp(-x));
    return s * (T(1) + x * (T(1) - s));
  }
};

/// log(1 + e^(beta x)) / beta, linear above `threshold` (PyTorch).
struct Softplus {
  static constexpr std::string_view name = "softplus";
  using promotion = promotion::CommonFloating;
  double beta = 1;
  double threshold = 20;
  template <class T>
  TENSORLIB_HOST_DEVICE T operator()(T x) const {
    using math::exp;
    using math::log1p;
    using math::select;
    const T bx = x * T(beta);
    return select(bx > T(threshold), x, log1p(exp(bx)) / T(beta));
  }
};

/// Clamp to [min_val, max_val].
struct Hardtanh {
  static constexpr std::string_view name = "hardtanh";
  static constexpr bool masks_gradient = true;  // Note [masked adjoints]
  using promotion = promotion::CommonFloating;
  double min_val = -1;
  double max_val = 1;
  template <class T>
  TENSORLIB_HOST_DEVICE T operator()(T x) const {
    using math::select;
    x = select(x < T(min_val), T(min_val), x);
    return select(x > T(max_val), T(max_val), x);
  }
  /// 0 at and beyond the bounds, else 1; NaN passes (PyTorch's hardtanh_backward).
  template <class T>
  TENSORLIB_HOST_DEVICE T derivative(T x, T) const {
    using math::select;
    return select(x <= T(min_val) || x >= T(max_val), T(0), T(1));
  }
};

/// x where it lies outside [-lambd, lambd], else 0 (torch.hardshrink; NaN
/// passes). Its gradient is 1 outside and 0 inside, masked as PyTorch's
/// hardshrink_backward (`inside ? 0 : grad`).
struct Hardshrink {
  static constexpr std::string_view name = "hardshrink";
  static constexpr bool masks_gradient = true;  // Note [masked adjoints]
  using promotion = promotion::CommonFloating;
  double lambd = 0.5;
  template <class T>
  TENSORLIB_HOST_DEVICE T operator()(T x) const {
    using math::select;
    return select(x >= T(-lambd) && x <= T(lambd), T(0), x);
  }
  template <class T>
  TENSORLIB_HOST_DEVICE T derivative(T x, T) const {
    using math::select;
    return select(x >= T(-lambd) && x <= T(lambd), T(0), T(1));
  }
};

/// The step function (torch.heaviside): 0 for x < 0, `values` where x == 0
/// (either zero), 1 for x > 0, and 0 for a NaN x (PyTorch's `x == 0 ? values :
/// x > 0`). PyTorch implements no derivative in either operand: a backward
/// that needs one throws (Note [derivatives PyTorch does not implement] in
/// autograd/fused.hpp).
struct Heaviside {
  static constexpr std::string_view name = "heaviside";
  static constexpr std::string_view no_derivative_in_a = "heaviside";
  static constexpr std::string_view no_derivative_in_b = "heaviside";
  using promotion = promotion::Common;
  template <class T>
  TENSORLIB_HOST_DEVICE T operator()(T x, T values) const {
    if constexpr (std::is_integral_v<T>) {
      return x == T(0) ? values : static_cast<T>(x > T(0));
    } else {
      using math::select;
      return select(x == T(0), values, select(x > T(0), T(1), T(0)));
    }
  }
};

/// x for x > 0, else negative_slope * x.
struct LeakyRelu {
  static constexpr std::string_view name = "leaky_relu";
  using promotion = promotion::CommonFloating;
  double negative_slope = 0.01;
  template <class T>
  TENSORLIB_HOST_DEVICE T operator()(T x) const {
    using math::select;
    return select(x > T(0), x, x * T(negative_slope));
  }
};

/// x for x > 0, else alpha * (e^x - 1).
struct Elu {
  static constexpr std::string_view name = "elu";
  using promotion = promotion::CommonFloating;
  double alpha = 1;
  template <class T>
  TENSORLIB_HOST_DEVICE T operator()(T x) const {
    using math::expm1;
    using math::select;
    return select(x > T(0), x, T(alpha) * expm1(x));
  }
};

}  // namespace tensorlib::fn
