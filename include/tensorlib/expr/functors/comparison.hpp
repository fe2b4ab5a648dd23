#pragma once
/// \file
/// Comparison functors giving bool: == != < <= > >=, isnan, isinf, isposinf,
/// isneginf, isfinite,
/// and isclose (used by allclose). Operands compare in their common type.

#include <string_view>
#include <type_traits>

#include "tensorlib/core/config.hpp"
#include "tensorlib/expr/math/primitives.hpp"
#include "tensorlib/expr/promotion.hpp"

namespace tensorlib::fn {

/// a == b.
struct Eq {
  static constexpr std::string_view name = "eq";
  using promotion = promotion::Common;
  template <class T>
  TENSORLIB_HOST_DEVICE auto operator()(T a, T b) const {
    return a == b;
  }
};
/// a != b.
struct Ne {
  static constexpr std::string_view name = "ne";
  using promotion = promotion::Common;
  template <class T>
  TENSORLIB_HOST_DEVICE auto operator()(T a, T b) const {
    return a != b;
  }
};
/// a < b.
struct Lt {
  static constexpr std::string_view name = "lt";
  using promotion = promotion::Common;
  template <class T>
  TENSORLIB_HOST_DEVICE auto operator()(T a, T b) const {
    return a < b;
  }
};
/// a <= b.
struct Le {
  static constexpr std::string_view name = "le";
  using promotion = promotion::Common;
  template <class T>
  TENSORLIB_HOST_DEVICE auto operator()(T a, T b) const {
    return a <= b;
  }
};
/// a > b.
struct Gt {
  static constexpr std::string_view name = "gt";
  using promotion = promotion::Common;
  template <class T>
  TENSORLIB_HOST_DEVICE auto operator()(T a, T b) const {
    return a > b;
  }
};
/// a >= b.
struct Ge {
  static constexpr std::string_view name = "ge";
  using promotion = promotion::Common;
  template <class T>
  TENSORLIB_HOST_DEVICE auto operator()(T a, T b) const {
    return a >= b;
  }
};

/// True for NaN (never for integers).
struct IsNan {
  static constexpr std::string_view name = "isnan";
  using promotion = promotion::None;
  template <class T>
  TENSORLIB_HOST_DEVICE bool operator()(T x) const {
    if constexpr (std::is_integral_v<T>)
      return false;
    else
      return x != x;
  }
};
/// True for +-inf (never for integers).
struct IsInf {
  static constexpr std::string_view name = "isinf";
  using promotion = promotion::None;
  template <class T>
  TENSORLIB_HOST_DEVICE bool operator()(T x) const {
    if constexpr (std::is_integral_v<T>) {
      return false;
    } else {
      using math::isinf;
      return isinf(x);
    }
  }
};
/// True for +inf (never for integers).
struct IsPosInf {
  static constexpr std::string_view name = "isposinf";
  using promotion = promotion::None;
  template <class T>
  TENSORLIB_HOST_DEVICE bool operator()(T x) const {
    if constexpr (std::is_integral_v<T>) {
      return false;
    } else {
      using math::isinf;
      return isinf(x) && x > T(0);
    }
  }
};
/// True for -inf (never for integers).
struct IsNegInf {
  static constexpr std::string_view name = "isneginf";
  using promotion = promotion::None;
  template <class T>
  TENSORLIB_HOST_DEVICE bool operator()(T x) const {
    if constexpr (std::is_integral_v<T>) {
      return false;
    } else {
      using math::isinf;
      return isinf(x) && x < T(0);
    }
  }
};
/// True unless NaN or +-inf.
struct IsFinite {
  static constexpr std::string_view name = "isfinite";
  using promotion = promotion::None;
  template <class T>
  TENSORLIB_HOST_DEVICE bool operator()(T x) const {
    if constexpr (std::is_integral_v<T>) {
      return true;
    } else {
      using math::isfinite;
      return isfinite(x);
    }
  }
};

/// |a - b| <= atol + rtol * |b|; equal infinities are close; NaNs are close
/// only with `equal_nan` (PyTorch's isclose).
struct IsClose {
  static constexpr std::string_view name = "isclose";
  using promotion = promotion::Common;
  double rtol = 1e-5;
  double atol = 1e-8;
  bool equal_nan = false;
  template <class T>
  TENSORLIB_HOST_DEVICE bool operator()(T a, T b) const {
    if (a == b) return true;
    if constexpr (std::is_integral_v<T>) {
      const double d = static_cast<double>(a) - static_cast<double>(b);
      return (d < 0 ? -d : d) <= atol + rtol * (b < 0 ? -static_cast<double>(b) : static_cast<double>(b));
    } else {
      if (a != a || b != b) return equal_nan && a != a && b != b;
      if (math::isinf(a) || math::isinf(b)) return false;
      const double d = static_cast<double>(a) - static_cast<double>(b);
      const double mb = static_cast<double>(b);
      return (d < 0 ? -d : d) <= atol + rtol * (mb < 0 ? -mb : mb);
    }
  }
};

}  // namespace tensorlib::fn
