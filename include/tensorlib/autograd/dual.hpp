#pragma once
/// \file
/// `Dual<T, K>`: a value with K tangents, forward-mode differentiation of the
/// pointwise functor catalogue (DESIGN 3.3, 3.5). A functor written once for
/// `T` runs unchanged on `Dual<T, K>` and returns the value and its K
/// directional derivatives, so pointwise derivatives come from the functors
/// themselves, not from hand-written backward formulas. `T` is a scalar
/// (float, double) or a CPU SIMD packet (`simd::Vec<float>`), so a fused
/// backward pass runs on packets of duals.
///
/// Note [dual derivatives at special points]
/// Where a function is not differentiable, the tangent is PyTorch's choice
/// (derivatives.yaml): abs'(0) = 0; floor, ceil, trunc, round and sign have
/// zero derivative; sqrt'(0) = +inf; pow(a, b) has d/da = 0 where b == 0 and
/// d/db = 0 where a == 0 and b >= 0. The generic math kernels (expr/math)
/// never see a dual: each function below computes its value with the kernel
/// and its derivative from a closed form, so derivatives are as accurate as
/// the values.

#include <cmath>
#include <numbers>
#include <type_traits>

#include "tensorlib/core/config.hpp"
#include "tensorlib/expr/math/exp_log.hpp"
#include "tensorlib/expr/math/hyperbolic.hpp"
#include "tensorlib/expr/math/inverse_trig.hpp"
#include "tensorlib/expr/math/power.hpp"
#include "tensorlib/expr/math/primitives.hpp"
#include "tensorlib/expr/math/special.hpp"
#include "tensorlib/expr/math/trig.hpp"

namespace tensorlib {

/// A value and `K` tangents (one per input direction being differentiated).
template <class T, int K>
struct Dual {
  static_assert(K >= 1, "Dual: needs at least one tangent");
  T value{};
  T tangent[K]{};

  TENSORLIB_HOST_DEVICE constexpr Dual() = default;
  /// A constant: every tangent is zero. Implicit, so functors' `T(0.5) * x`
  /// and mixed arithmetic with scalars read as they do on plain numbers.
  template <class S>
  requires std::is_arithmetic_v<S> TENSORLIB_HOST_DEVICE constexpr Dual(S v)  // NOLINT
      : value(static_cast<math::scalar_of_t<T>>(v)) {}
  TENSORLIB_HOST_DEVICE constexpr Dual(const T& v) : value(v) {}  // NOLINT
  TENSORLIB_HOST_DEVICE static constexpr Dual variable(const T& v, int k) {
    Dual d(v);
    d.tangent[k] = T(1);
    return d;
  }

  /// The dual of f(x) for f with derivative `slope` at x (chain rule).
  TENSORLIB_HOST_DEVICE Dual chain(const T& fx, const T& slope) const {
    Dual r(fx);
    for (int k = 0; k < K; ++k) r.tangent[k] = slope * tangent[k];
    return r;
  }

  TENSORLIB_HOST_DEVICE friend Dual operator+(const Dual& a, const Dual& b) {
    Dual r(a.value + b.value);
    for (int k = 0; k < K; ++k) r.tangent[k] = a.tangent[k] + b.tangent[k];
    return r;
  }
  TENSORLIB_HOST_DEVICE friend Dual operator-(const Dual& a, const Dual& b) {
    Dual r(a.value - b.value);
    for (int k = 0; k < K; ++k) r.tangent[k] = a.tangent[k] - b.tangent[k];
    return r;
  }
  TENSORLIB_HOST_DEVICE friend Dual operator-(const Dual& a) {
    Dual r(-a.value);
    for (int k = 0; k < K; ++k) r.tangent[k] = -a.tangent[k];
    return r;
  }
  TENSORLIB_HOST_DEVICE friend Dual operator*(const Dual& a, const Dual& b) {
    Dual r(a.value * b.value);
    for (int k = 0; k < K; ++k) r.tangent[k] = a.tangent[k] * b.value + a.value * b.tangent[k];
    return r;
  }
  TENSORLIB_HOST_DEVICE friend Dual operator/(const Dual& a, const Dual& b) {
    const T q = a.value / b.value;
    Dual r(q);
    for (int k = 0; k < K; ++k) r.tangent[k] = (a.tangent[k] - q * b.tangent[k]) / b.value;
    return r;
  }
  TENSORLIB_HOST_DEVICE Dual& operator+=(const Dual& b) { return *this = *this + b; }
  TENSORLIB_HOST_DEVICE Dual& operator-=(const Dual& b) { return *this = *this - b; }
  TENSORLIB_HOST_DEVICE Dual& operator*=(const Dual& b) { return *this = *this * b; }
  TENSORLIB_HOST_DEVICE Dual& operator/=(const Dual& b) { return *this = *this / b; }

  // Comparisons look at values only; on packets they give the packet's mask.
  TENSORLIB_HOST_DEVICE friend auto operator<(const Dual& a, const Dual& b) { return a.value < b.value; }
  TENSORLIB_HOST_DEVICE friend auto operator<=(const Dual& a, const Dual& b) { return a.value <= b.value; }
  TENSORLIB_HOST_DEVICE friend auto operator>(const Dual& a, const Dual& b) { return a.value > b.value; }
  TENSORLIB_HOST_DEVICE friend auto operator>=(const Dual& a, const Dual& b) { return a.value >= b.value; }
  TENSORLIB_HOST_DEVICE friend auto operator==(const Dual& a, const Dual& b) { return a.value == b.value; }
  TENSORLIB_HOST_DEVICE friend auto operator!=(const Dual& a, const Dual& b) { return a.value != b.value; }
};

/// True for `Dual<T, K>`.
template <class T>
inline constexpr bool is_dual = false;
template <class T, int K>
inline constexpr bool is_dual<Dual<T, K>> = true;

}  // namespace tensorlib

namespace tensorlib::math {
template <class T, int K>
struct ScalarOf<Dual<T, K>> {
  using type = scalar_of_t<T>;
};
}  // namespace tensorlib::math

namespace tensorlib {

// The math vocabulary on duals, found by argument-dependent lookup from the
// functors' unqualified calls (`using math::exp; return exp(x);`). Inside,
// the value is computed by the math kernels: math's scalar overloads, or the
// packet's own (simd_math.hpp) through argument-dependent lookup.

// ---- the primitives vocabulary (primitives.hpp) on duals ----

/// Lane-wise choice on packet masks (scalar masks use the generic select).
template <class M, class T, int K>
requires(!std::is_same_v<M, bool>) TENSORLIB_HOST_DEVICE Dual<T, K> select(const M& m, const Dual<T, K>& a,
                                                                           const Dual<T, K>& b) {
  using namespace math;
  Dual<T, K> r(select(m, a.value, b.value));
  for (int k = 0; k < K; ++k) r.tangent[k] = select(m, a.tangent[k], b.tangent[k]);
  return r;
}
template <class T, int K>
TENSORLIB_HOST_DEVICE Dual<T, K> mul_add(const Dual<T, K>& a, const Dual<T, K>& b, const Dual<T, K>& c) {
  return a * b + c;
}
template <class T, int K>
TENSORLIB_HOST_DEVICE auto isnan(const Dual<T, K>& x) {
  using namespace math;
  return isnan(x.value);
}
template <class T, int K>
TENSORLIB_HOST_DEVICE auto isinf(const Dual<T, K>& x) {
  using namespace math;
  return isinf(x.value);
}
template <class T, int K>
TENSORLIB_HOST_DEVICE auto isfinite(const Dual<T, K>& x) {
  using namespace math;
  return isfinite(x.value);
}

namespace dual_detail {
/// -1, 0 or 1 as a value of T (0 for NaN and zeros).
template <class T>
TENSORLIB_HOST_DEVICE T sign_of(const T& x) {
  using namespace math;
  return select(x > T(0), T(1), select(x < T(0), T(-1), T(0)));
}
template <class T>
using scalar_t = math::scalar_of_t<T>;
}  // namespace dual_detail

template <class T, int K>
TENSORLIB_HOST_DEVICE Dual<T, K> abs(const Dual<T, K>& x) {
  using namespace math;
  return x.chain(abs(x.value), dual_detail::sign_of(x.value));
}
template <class T, int K>
TENSORLIB_HOST_DEVICE Dual<T, K> floor(const Dual<T, K>& x) {
  using namespace math;
  return Dual<T, K>(floor(x.value));
}
template <class T, int K>
TENSORLIB_HOST_DEVICE Dual<T, K> ceil(const Dual<T, K>& x) {
  using namespace math;
  return Dual<T, K>(ceil(x.value));
}
template <class T, int K>
TENSORLIB_HOST_DEVICE Dual<T, K> trunc(const Dual<T, K>& x) {
  using namespace math;
  return Dual<T, K>(trunc(x.value));
}
template <class T, int K>
TENSORLIB_HOST_DEVICE Dual<T, K> rint(const Dual<T, K>& x) {
  using namespace math;
  return Dual<T, K>(rint(x.value));
}
template <class T, int K>
TENSORLIB_HOST_DEVICE Dual<T, K> sqrt(const Dual<T, K>& x) {
  using namespace math;
  const T y = sqrt(x.value);
  return x.chain(y, T(0.5) / y);
}
/// |m| with the sign of s; d/dm = sign(m) * sign(result), d/ds = 0 (PyTorch).
template <class T, int K>
TENSORLIB_HOST_DEVICE Dual<T, K> copysign(const Dual<T, K>& m, const Dual<T, K>& s) {
  using namespace math;
  const T y = copysign(m.value, s.value);
  return m.chain(y, dual_detail::sign_of(m.value) * dual_detail::sign_of(y));
}

// ---- exponentials and logarithms ----

template <class T, int K>
TENSORLIB_HOST_DEVICE Dual<T, K> exp(const Dual<T, K>& x) {
  using namespace math;
  const T y = exp(x.value);
  return x.chain(y, y);
}
template <class T, int K>
TENSORLIB_HOST_DEVICE Dual<T, K> exp2(const Dual<T, K>& x) {
  using namespace math;
  const T y = exp2(x.value);
  return x.chain(y, y * T(std::numbers::ln2_v<dual_detail::scalar_t<T>>));
}
template <class T, int K>
TENSORLIB_HOST_DEVICE Dual<T, K> expm1(const Dual<T, K>& x) {
  using namespace math;
  const T y = expm1(x.value);
  return x.chain(y, y + T(1));
}
template <class T, int K>
TENSORLIB_HOST_DEVICE Dual<T, K> log(const Dual<T, K>& x) {
  using namespace math;
  return x.chain(log(x.value), T(1) / x.value);
}
template <class T, int K>
TENSORLIB_HOST_DEVICE Dual<T, K> log2(const Dual<T, K>& x) {
  using namespace math;
  return x.chain(log2(x.value), T(1) / (x.value * T(std::numbers::ln2_v<dual_detail::scalar_t<T>>)));
}
template <class T, int K>
TENSORLIB_HOST_DEVICE Dual<T, K> log10(const Dual<T, K>& x) {
  using namespace math;
  return x.chain(log10(x.value), T(1) / (x.value * T(std::numbers::ln10_v<dual_detail::scalar_t<T>>)));
}
template <class T, int K>
TENSORLIB_HOST_DEVICE Dual<T, K> log1p(const Dual<T, K>& x) {
  using namespace math;
  return x.chain(log1p(x.value), T(1) / (x.value + T(1)));
}

// ---- trigonometric and hyperbolic ----

template <class T, int K>
TENSORLIB_HOST_DEVICE Dual<T, K> sin(const Dual<T, K>& x) {
  using namespace math;
  return x.chain(sin(x.value), cos(x.value));
}
template <class T, int K>
TENSORLIB_HOST_DEVICE Dual<T, K> cos(const Dual<T, K>& x) {
  using namespace math;
  return x.chain(cos(x.value), -sin(x.value));
}
template <class T, int K>
TENSORLIB_HOST_DEVICE Dual<T, K> tan(const Dual<T, K>& x) {
  using namespace math;
  const T y = tan(x.value);
  return x.chain(y, T(1) + y * y);
}
template <class T, int K>
TENSORLIB_HOST_DEVICE Dual<T, K> asin(const Dual<T, K>& x) {
  using namespace math;
  return x.chain(asin(x.value), T(1) / sqrt(T(1) - x.value * x.value));
}
template <class T, int K>
TENSORLIB_HOST_DEVICE Dual<T, K> acos(const Dual<T, K>& x) {
  using namespace math;
  return x.chain(acos(x.value), T(-1) / sqrt(T(1) - x.value * x.value));
}
template <class T, int K>
TENSORLIB_HOST_DEVICE Dual<T, K> atan(const Dual<T, K>& x) {
  using namespace math;
  return x.chain(atan(x.value), T(1) / (T(1) + x.value * x.value));
}
/// atan2(y, x): d/dy = x / (x^2 + y^2), d/dx = -y / (x^2 + y^2).
template <class T, int K>
TENSORLIB_HOST_DEVICE Dual<T, K> atan2(const Dual<T, K>& y, const Dual<T, K>& x) {
  using namespace math;
  const T r2 = x.value * x.value + y.value * y.value;
  Dual<T, K> r(atan2(y.value, x.value));
  for (int k = 0; k < K; ++k) r.tangent[k] = (x.value * y.tangent[k] - y.value * x.tangent[k]) / r2;
  return r;
}
template <class T, int K>
TENSORLIB_HOST_DEVICE Dual<T, K> sinh(const Dual<T, K>& x) {
  using namespace math;
  return x.chain(sinh(x.value), cosh(x.value));
}
template <class T, int K>
TENSORLIB_HOST_DEVICE Dual<T, K> cosh(const Dual<T, K>& x) {
  using namespace math;
  return x.chain(cosh(x.value), sinh(x.value));
}
template <class T, int K>
TENSORLIB_HOST_DEVICE Dual<T, K> tanh(const Dual<T, K>& x) {
  using namespace math;
  const T y = tanh(x.value);
  return x.chain(y, T(1) - y * y);
}

// ---- special functions ----

template <class T, int K>
TENSORLIB_HOST_DEVICE Dual<T, K> erf(const Dual<T, K>& x) {
  using namespace math;
  constexpr auto two_over_sqrt_pi = dual_detail::scalar_t<T>(2) * std::numbers::inv_sqrtpi_v<dual_detail::scalar_t<T>>;
  return x.chain(erf(x.value), T(two_over_sqrt_pi) * exp(-x.value * x.value));
}
template <class T, int K>
TENSORLIB_HOST_DEVICE Dual<T, K> erfc(const Dual<T, K>& x) {
  using namespace math;
  constexpr auto two_over_sqrt_pi = dual_detail::scalar_t<T>(2) * std::numbers::inv_sqrtpi_v<dual_detail::scalar_t<T>>;
  return x.chain(erfc(x.value), T(-two_over_sqrt_pi) * exp(-x.value * x.value));
}
template <class T, int K>
TENSORLIB_HOST_DEVICE Dual<T, K> erfinv(const Dual<T, K>& x) {
  using namespace math;
  constexpr auto sqrt_pi_over_2 = dual_detail::scalar_t<T>(0.5) / std::numbers::inv_sqrtpi_v<dual_detail::scalar_t<T>>;
  const T y = erfinv(x.value);
  return x.chain(y, T(sqrt_pi_over_2) * exp(y * y));
}
template <class T, int K>
TENSORLIB_HOST_DEVICE Dual<T, K> lgamma(const Dual<T, K>& x) {
  using namespace math;
  return x.chain(lgamma(x.value), digamma(x.value));
}
template <class T, int K>
TENSORLIB_HOST_DEVICE Dual<T, K> digamma(const Dual<T, K>& x) {
  using namespace math;
  return x.chain(digamma(x.value), map_lanes(x.value, [](dual_detail::scalar_t<T> v) { return trigamma(v); }));
}

// ---- powers and remainders ----

/// a^b; d/da = b a^(b-1) (0 where b == 0), d/db = a^b log(a) (0 where
/// a == 0 and b >= 0), as PyTorch's pow_backward.
template <class T, int K>
TENSORLIB_HOST_DEVICE Dual<T, K> pow(const Dual<T, K>& a, const Dual<T, K>& b) {
  using namespace math;
  const T y = pow(a.value, b.value);
  const T da = select(b.value == T(0), T(0), b.value * pow(a.value, b.value - T(1)));
  const T db = select(a.value == T(0) && b.value >= T(0), T(0), y * log(a.value));
  Dual<T, K> r(y);
  for (int k = 0; k < K; ++k) r.tangent[k] = da * a.tangent[k] + db * b.tangent[k];
  return r;
}
/// fmod(a, b) = a - trunc(a / b) * b: d/da = 1, d/db = -trunc(a / b).
template <class T, int K>
TENSORLIB_HOST_DEVICE Dual<T, K> fmod(const Dual<T, K>& a, const Dual<T, K>& b) {
  using namespace math;
  const T q = trunc(a.value / b.value);
  Dual<T, K> r(fmod(a.value, b.value));
  for (int k = 0; k < K; ++k) r.tangent[k] = a.tangent[k] - q * b.tangent[k];
  return r;
}

// ---- functors on duals ----

/// A pointwise functor applied to duals: the functor's own formula on duals,
/// except where it declares its derivative because differentiating the
/// formula is numerically poor (`derivative(x, y)` of a unary functor, e.g.
/// sigmoid) or picks a different subgradient than PyTorch (`partial_a(a, b)`
/// of a binary functor whose partials sum to 1, e.g. maximum at ties).
template <class F, class T, int K, class... Rest>
TENSORLIB_HOST_DEVICE Dual<T, K> apply_dual(const F& f, const Dual<T, K>& x, const Rest&... rest) {
  if constexpr (sizeof...(Rest) == 0 && requires { f.derivative(x.value, x.value); }) {
    const T y = f(x.value);
    return x.chain(y, f.derivative(x.value, y));
  } else if constexpr (sizeof...(Rest) == 1 && requires { f.partial_a(x.value, x.value); }) {
    const Dual<T, K>& b = (rest, ...);
    const T da = f.partial_a(x.value, b.value), db = T(1) - da;
    Dual<T, K> r(f(x.value, b.value));
    for (int k = 0; k < K; ++k) r.tangent[k] = da * x.tangent[k] + db * b.tangent[k];
    return r;
  } else {
    return f(x, rest...);
  }
}

}  // namespace tensorlib
