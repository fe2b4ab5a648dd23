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
/// Dual and its math live in `tl::autograd` (found by argument-dependent
/// lookup from the functors' `using math::exp; return exp(x);`); `tl::Dual`
/// names the type.
///
/// Note [dual derivatives at special points]
/// Where a function is not differentiable, the tangent is PyTorch's choice
/// (derivatives.yaml): abs'(0) = 0; floor, ceil, trunc, round and sign have
/// zero derivative; sqrt'(0) = +inf; pow(a, b) has d/da = 0 where b == 0 and
/// d/db = 0 where a == 0 and b >= 0. The generic math kernels (expr/math)
/// never see a dual: each function below computes its value with the kernel
/// and its derivative from a closed form, so derivatives are as accurate as
/// the values.
///
/// Note [zero tangents stay zero]
/// A tangent lane belongs to one input; every other input carries 0 in it.
/// slope * 0 must stay 0 even where the slope is inf or NaN (pow's d/db =
/// y log(a) for a < 0, sqrt'(0), a divisor of 0), or the gradient of one
/// input would be poisoned by another's singularity: PyTorch never computes
/// the partial of an input that needs no gradient. So every product of a
/// slope and a tangent goes through `scaled`.

#include <cmath>
#include <numbers>
#include <string_view>
#include <type_traits>

#include "tensorlib/core/config.hpp"
#include "tensorlib/core/dtype.hpp"
#include "tensorlib/expr/math/exp_log.hpp"
#include "tensorlib/expr/math/hyperbolic.hpp"
#include "tensorlib/expr/math/inverse_trig.hpp"
#include "tensorlib/expr/math/power.hpp"
#include "tensorlib/expr/math/primitives.hpp"
#include "tensorlib/expr/math/trig.hpp"

namespace tensorlib::autograd {

template <class T, int K>
struct Dual;

namespace detail {

/// `t == 0` as a mask (a bool for scalars).
template <class T>
TENSORLIB_HOST_DEVICE auto is_zero(const T& t) {
  return t == T(0);
}
/// For a (nested, scalar) dual: every component zero.
template <class T, int K>
TENSORLIB_HOST_DEVICE bool is_zero(const Dual<T, K>& d);

/// slope * t, and 0 where t is 0 (Note [zero tangents stay zero]). A nested
/// dual (second derivatives) is zero only when its tangents are too: a first
/// derivative of 0 can have a second derivative that is not.
template <class T>
TENSORLIB_HOST_DEVICE T scaled(const T& slope, const T& t) {
  using math::select;
  return select(is_zero(t), T(0), slope * t);
}

/// -1, 0 or 1 as a value of T (0 for NaN and zeros).
template <class T>
TENSORLIB_HOST_DEVICE T sign_of(const T& x) {
  using math::select;
  return select(x > T(0), T(1), select(x < T(0), T(-1), T(0)));
}

template <class T>
using scalar_t = math::scalar_of_t<T>;

}  // namespace detail

/// A value and `K` tangents (one per input direction being differentiated).
template <class T, int K>
struct Dual {
  static_assert(K >= 1, "Dual: needs at least one tangent");
  T value{};
  T tangent[K]{};

  constexpr Dual() = default;
  /// A constant: every tangent is zero. Implicit, so functors' `T(0.5) * x`
  /// and mixed arithmetic with scalars read as they do on plain numbers.
  template <class S>
  requires std::is_arithmetic_v<S> TENSORLIB_HOST_DEVICE constexpr Dual(S v)  // NOLINT
      : value(static_cast<detail::scalar_t<T>>(v)) {}
  /// A constant of the value type (a scalar or a packet).
  TENSORLIB_HOST_DEVICE constexpr Dual(const T& v) : value(v) {}  // NOLINT
  /// Input number `k`: tangent k is 1, the others 0.
  TENSORLIB_HOST_DEVICE static constexpr Dual variable(const T& v, int k) {
    Dual d(v);
    d.tangent[k] = T(1);
    return d;
  }

  /// The dual of f(x) for f with derivative `slope` at x (chain rule).
  TENSORLIB_HOST_DEVICE Dual chain(const T& fx, const T& slope) const {
    Dual r(fx);
    for (int k = 0; k < K; ++k) r.tangent[k] = detail::scaled(slope, tangent[k]);
    return r;
  }
  /// The dual of f(*this, b) with partial derivatives `da` and `db`.
  TENSORLIB_HOST_DEVICE Dual chain2(const Dual& b, const T& fab, const T& da, const T& db) const {
    Dual r(fab);
    for (int k = 0; k < K; ++k) r.tangent[k] = detail::scaled(da, tangent[k]) + detail::scaled(db, b.tangent[k]);
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
    return a.chain2(b, a.value * b.value, b.value, a.value);
  }
  TENSORLIB_HOST_DEVICE friend Dual operator/(const Dual& a, const Dual& b) {
    const T q = a.value / b.value;
    return a.chain2(b, q, T(1) / b.value, -q / b.value);
  }
  TENSORLIB_HOST_DEVICE Dual& operator+=(const Dual& b) { return *this = *this + b; }
  TENSORLIB_HOST_DEVICE Dual& operator-=(const Dual& b) { return *this = *this - b; }
  TENSORLIB_HOST_DEVICE Dual& operator*=(const Dual& b) { return *this = *this * b; }
  TENSORLIB_HOST_DEVICE Dual& operator/=(const Dual& b) { return *this = *this / b; }

  /// The truth value of a scalar dual, nested ones included, is its value's
  /// (logical functors).
  TENSORLIB_HOST_DEVICE explicit constexpr operator bool()
      const requires std::is_convertible_v<decltype(std::declval<const T&>() != std::declval<const T&>()), bool> {
    return static_cast<bool>(value != T(0));
  }

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

namespace detail {
template <class T, int K>
TENSORLIB_HOST_DEVICE bool is_zero(const Dual<T, K>& d) {
  static_assert(std::is_arithmetic_v<T>, "is_zero: nested duals of packets are not used");
  bool zero = d.value == T(0);
  for (int k = 0; k < K; ++k) zero = zero && d.tangent[k] == T(0);
  return zero;
}
}  // namespace detail

// ---- the primitives vocabulary (expr/math/primitives.hpp) on duals ----
// Each body names the math functions it applies to values with a
// using-declaration: math's scalar overloads, and a packet's own
// (backend/cpu/simd_math.hpp) through argument-dependent lookup.

/// Lane-wise choice on packet masks (a scalar mask uses math's select).
template <class M, class T, int K>
requires(!std::is_same_v<M, bool>) TENSORLIB_HOST_DEVICE Dual<T, K> select(const M& m, const Dual<T, K>& a,
                                                                           const Dual<T, K>& b) {
  using math::select;
  Dual<T, K> r(select(m, a.value, b.value));
  for (int k = 0; k < K; ++k) r.tangent[k] = select(m, a.tangent[k], b.tangent[k]);
  return r;
}
/// a * b + c.
template <class T, int K>
TENSORLIB_HOST_DEVICE Dual<T, K> mul_add(const Dual<T, K>& a, const Dual<T, K>& b, const Dual<T, K>& c) {
  return a * b + c;
}
/// The value's NaN mask.
template <class T, int K>
TENSORLIB_HOST_DEVICE auto isnan(const Dual<T, K>& x) {
  using math::isnan;
  return isnan(x.value);
}
/// The value's infinity mask.
template <class T, int K>
TENSORLIB_HOST_DEVICE auto isinf(const Dual<T, K>& x) {
  using math::isinf;
  return isinf(x.value);
}
/// The value's sign bit.
template <class T, int K>
TENSORLIB_HOST_DEVICE auto signbit(const Dual<T, K>& x) {
  using math::signbit;
  return signbit(x.value);
}
/// The value's finiteness mask.
template <class T, int K>
TENSORLIB_HOST_DEVICE auto isfinite(const Dual<T, K>& x) {
  using math::isfinite;
  return isfinite(x.value);
}
/// |x|; derivative sign(x), 0 at 0.
template <class T, int K>
TENSORLIB_HOST_DEVICE Dual<T, K> abs(const Dual<T, K>& x) {
  using math::abs;
  return x.chain(abs(x.value), detail::sign_of(x.value));
}
/// Rounding: zero derivative.
template <class T, int K>
TENSORLIB_HOST_DEVICE Dual<T, K> floor(const Dual<T, K>& x) {
  using math::floor;
  return Dual<T, K>(floor(x.value));
}
/// Rounding: zero derivative.
template <class T, int K>
TENSORLIB_HOST_DEVICE Dual<T, K> ceil(const Dual<T, K>& x) {
  using math::ceil;
  return Dual<T, K>(ceil(x.value));
}
/// Rounding: zero derivative.
template <class T, int K>
TENSORLIB_HOST_DEVICE Dual<T, K> trunc(const Dual<T, K>& x) {
  using math::trunc;
  return Dual<T, K>(trunc(x.value));
}
/// Rounding: zero derivative.
template <class T, int K>
TENSORLIB_HOST_DEVICE Dual<T, K> rint(const Dual<T, K>& x) {
  using math::rint;
  return Dual<T, K>(rint(x.value));
}
/// sqrt(x); derivative 1 / (2 sqrt(x)), +inf at 0.
template <class T, int K>
TENSORLIB_HOST_DEVICE Dual<T, K> sqrt(const Dual<T, K>& x) {
  using math::sqrt;
  const T y = sqrt(x.value);
  return x.chain(y, T(0.5) / y);
}
/// |m| with the sign of s; d/dm = sign(m) sign(result), d/ds = 0 (PyTorch).
template <class T, int K>
TENSORLIB_HOST_DEVICE Dual<T, K> copysign(const Dual<T, K>& m, const Dual<T, K>& s) {
  using math::copysign;
  const T y = copysign(m.value, s.value);
  return m.chain(y, detail::sign_of(m.value) * detail::sign_of(y));
}

// ---- exponentials and logarithms ----

/// e^x.
template <class T, int K>
TENSORLIB_HOST_DEVICE Dual<T, K> exp(const Dual<T, K>& x) {
  using math::exp;
  const T y = exp(x.value);
  return x.chain(y, y);
}
/// 2^x.
template <class T, int K>
TENSORLIB_HOST_DEVICE Dual<T, K> exp2(const Dual<T, K>& x) {
  using math::exp2;
  const T y = exp2(x.value);
  return x.chain(y, y * T(std::numbers::ln2_v<detail::scalar_t<T>>));
}
/// e^x - 1.
template <class T, int K>
TENSORLIB_HOST_DEVICE Dual<T, K> expm1(const Dual<T, K>& x) {
  using math::expm1;
  const T y = expm1(x.value);
  return x.chain(y, y + T(1));
}
/// Natural logarithm.
template <class T, int K>
TENSORLIB_HOST_DEVICE Dual<T, K> log(const Dual<T, K>& x) {
  using math::log;
  return x.chain(log(x.value), T(1) / x.value);
}
/// Base-2 logarithm.
template <class T, int K>
TENSORLIB_HOST_DEVICE Dual<T, K> log2(const Dual<T, K>& x) {
  using math::log2;
  return x.chain(log2(x.value), T(1) / (x.value * T(std::numbers::ln2_v<detail::scalar_t<T>>)));
}
/// Base-10 logarithm.
template <class T, int K>
TENSORLIB_HOST_DEVICE Dual<T, K> log10(const Dual<T, K>& x) {
  using math::log10;
  return x.chain(log10(x.value), T(1) / (x.value * T(std::numbers::ln10_v<detail::scalar_t<T>>)));
}
/// log(1 + x).
template <class T, int K>
TENSORLIB_HOST_DEVICE Dual<T, K> log1p(const Dual<T, K>& x) {
  using math::log1p;
  return x.chain(log1p(x.value), T(1) / (x.value + T(1)));
}

// ---- trigonometric and hyperbolic ----

/// Sine.
template <class T, int K>
TENSORLIB_HOST_DEVICE Dual<T, K> sin(const Dual<T, K>& x) {
  using math::cos;
  using math::sin;
  return x.chain(sin(x.value), cos(x.value));
}
/// Cosine.
template <class T, int K>
TENSORLIB_HOST_DEVICE Dual<T, K> cos(const Dual<T, K>& x) {
  using math::cos;
  using math::sin;
  return x.chain(cos(x.value), -sin(x.value));
}
/// Tangent; derivative 1 + tan^2 (PyTorch's form).
template <class T, int K>
TENSORLIB_HOST_DEVICE Dual<T, K> tan(const Dual<T, K>& x) {
  using math::tan;
  const T y = tan(x.value);
  return x.chain(y, T(1) + y * y);
}
/// Arc sine.
template <class T, int K>
TENSORLIB_HOST_DEVICE Dual<T, K> asin(const Dual<T, K>& x) {
  using math::asin;
  using math::sqrt;
  return x.chain(asin(x.value), T(1) / sqrt(T(1) - x.value * x.value));
}
/// Arc cosine.
template <class T, int K>
TENSORLIB_HOST_DEVICE Dual<T, K> acos(const Dual<T, K>& x) {
  using math::acos;
  using math::sqrt;
  return x.chain(acos(x.value), T(-1) / sqrt(T(1) - x.value * x.value));
}
/// Arc tangent.
template <class T, int K>
TENSORLIB_HOST_DEVICE Dual<T, K> atan(const Dual<T, K>& x) {
  using math::atan;
  return x.chain(atan(x.value), T(1) / (T(1) + x.value * x.value));
}
/// atan2(y, x): d/dy = x / (x^2 + y^2), d/dx = -y / (x^2 + y^2).
template <class T, int K>
TENSORLIB_HOST_DEVICE Dual<T, K> atan2(const Dual<T, K>& y, const Dual<T, K>& x) {
  using math::atan2;
  const T r2 = x.value * x.value + y.value * y.value;
  return y.chain2(x, atan2(y.value, x.value), x.value / r2, -y.value / r2);
}
/// Hyperbolic sine.
template <class T, int K>
TENSORLIB_HOST_DEVICE Dual<T, K> sinh(const Dual<T, K>& x) {
  using math::cosh;
  using math::sinh;
  return x.chain(sinh(x.value), cosh(x.value));
}
/// Hyperbolic cosine.
template <class T, int K>
TENSORLIB_HOST_DEVICE Dual<T, K> cosh(const Dual<T, K>& x) {
  using math::cosh;
  using math::sinh;
  return x.chain(cosh(x.value), sinh(x.value));
}
/// Hyperbolic tangent; derivative 1 - tanh^2.
template <class T, int K>
TENSORLIB_HOST_DEVICE Dual<T, K> tanh(const Dual<T, K>& x) {
  using math::tanh;
  const T y = tanh(x.value);
  return x.chain(y, T(1) - y * y);
}
/// Inverse hyperbolic sine; derivative 1 / sqrt(x^2 + 1).
template <class T, int K>
TENSORLIB_HOST_DEVICE Dual<T, K> asinh(const Dual<T, K>& x) {
  using math::asinh;
  using math::sqrt;
  return x.chain(asinh(x.value), T(1) / sqrt(x.value * x.value + T(1)));
}
/// Inverse hyperbolic cosine; derivative 1 / sqrt(x^2 - 1).
template <class T, int K>
TENSORLIB_HOST_DEVICE Dual<T, K> acosh(const Dual<T, K>& x) {
  using math::acosh;
  using math::sqrt;
  return x.chain(acosh(x.value), T(1) / sqrt(x.value * x.value - T(1)));
}
/// Inverse hyperbolic tangent; derivative 1 / (1 - x^2).
template <class T, int K>
TENSORLIB_HOST_DEVICE Dual<T, K> atanh(const Dual<T, K>& x) {
  using math::atanh;
  return x.chain(atanh(x.value), T(1) / (T(1) - x.value * x.value));
}

// ---- powers and remainders ----

/// a^b; d/da = b a^(b-1) (0 where b == 0), d/db = a^b log(a) (0 where
/// a == 0 and b >= 0), as PyTorch's pow_backward.
template <class T, int K>
TENSORLIB_HOST_DEVICE Dual<T, K> pow(const Dual<T, K>& a, const Dual<T, K>& b) {
  using math::log;
  using math::pow;
  using math::select;
  const T y = pow(a.value, b.value);
  const T da = select(b.value == T(0), T(0), b.value * pow(a.value, b.value - T(1)));
  const T db = select(a.value == T(0) && b.value >= T(0), T(0), y * log(a.value));
  return a.chain2(b, y, da, db);
}
/// fmod(a, b) = a - trunc(a / b) * b: d/da = 1, d/db = -trunc(a / b).
template <class T, int K>
TENSORLIB_HOST_DEVICE Dual<T, K> fmod(const Dual<T, K>& a, const Dual<T, K>& b) {
  using math::fmod;
  using math::trunc;
  return a.chain2(b, fmod(a.value, b.value), T(1), -trunc(a.value / b.value));
}

// ---- functors on duals ----

/// A pointwise functor applied to duals: the functor's own formula on duals,
/// except where it declares its derivative because differentiating the
/// formula is numerically poor or picks another subgradient than PyTorch:
/// `derivative(x, y)` of a unary functor (sigmoid, relu, hardtanh, clamp) or
/// `partial_a(a, b)` and `partial_b(a, b)` of a binary one (maximum and
/// minimum at ties and NaNs).
template <class F, class T, int K, class... Rest>
TENSORLIB_HOST_DEVICE Dual<T, K> apply_dual(const F& f, const Dual<T, K>& x, const Rest&... rest) {
  // On nested duals (second derivatives) the value is itself a dual: it
  // takes the declared derivative too, not the plain formula.
  if constexpr (sizeof...(Rest) == 0 && requires { f.derivative(x.value, x.value); }) {
    T y;
    if constexpr (is_dual<T>)
      y = apply_dual(f, x.value);
    else
      y = f(x.value);
    return x.chain(y, f.derivative(x.value, y));
  } else if constexpr (sizeof...(Rest) == 1 && requires { f.partial_a(x.value, x.value); }) {
    const Dual<T, K>& b = (rest, ...);
    T y;
    if constexpr (is_dual<T>)
      y = apply_dual(f, x.value, b.value);
    else
      y = f(x.value, b.value);
    return x.chain2(b, y, f.partial_a(x.value, b.value), f.partial_b(x.value, b.value));
  } else {
    return f(x, rest...);
  }
}

/// How the pointwise executors apply a functor to dual elements (a tensor of
/// `Dual<T, K>`): through `apply_dual`, so the functor's declared derivatives
/// are used as in the fused backward. Functors that do not return a dual
/// (comparisons) run as they are. Found by argument-dependent lookup; plain
/// elements take `tl::invoke_functor` (expr/map.hpp).
template <class F, class T, int K, class... Rest>
TENSORLIB_HOST_DEVICE auto invoke_functor(const F& f, const Dual<T, K>& x, const Rest&... rest) {
  if constexpr ((std::is_same_v<Rest, Dual<T, K>> && ...) &&
                std::is_same_v<std::remove_cvref_t<decltype(f(x, rest...))>, Dual<T, K>>)
    return apply_dual(f, x, rest...);
  else
    return f(x, rest...);
}

}  // namespace tensorlib::autograd

namespace tensorlib {
using autograd::Dual;

/// `Dual<float, K>` and `Dual<double, K>` are tensor element types for
/// pointwise chains (forward mode, autograd/forward_ad.hpp; Note [dual element
/// tags]). They promote above every plain type: a dual chain stays dual.
template <class T, int K>
requires(std::is_same_v<T, float> || std::is_same_v<T, double>) &&
    (K <= kMaxDualTangents) struct DTypeTraits<autograd::Dual<T, K>> {
  static constexpr ScalarType scalar_type = dual_scalar_type(DTypeTraits<T>::scalar_type, K);
  static constexpr std::string_view name = std::is_same_v<T, float> ? "dual_float32" : "dual_float64";
  static constexpr Category category = Category::Floating;
  static constexpr int rank = DTypeTraits<T>::rank + 2;
};
}  // namespace tensorlib

namespace tensorlib::math {
/// A dual's scalar type is its value's.
template <class T, int K>
struct ScalarOf<autograd::Dual<T, K>> {
  using type = scalar_of_t<T>;
};
}  // namespace tensorlib::math

// The special functions on duals (erf ... ndtri) live beside; every user of
// Dual sees them.
#include "tensorlib/autograd/dual_special.hpp"  // IWYU pragma: export
