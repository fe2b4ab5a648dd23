#pragma once
/// \file
/// sinh, cosh, tanh in terms of exp and expm1, and their inverses asinh,
/// acosh, atanh in terms of log and log1p (exp_log.hpp), generic in the
/// argument type like every kernel in expr/math.

#include <limits>
#include <type_traits>

#include "tensorlib/expr/math/exp_log.hpp"
#include "tensorlib/expr/math/primitives.hpp"

namespace tensorlib::math {
namespace detail {

template <class V>
inline V tanh(V x) {
  using S = scalar_of_t<V>;
  // tanh|x| = t / (t + 2) with t = expm1(2|x|): accurate near 0 and no
  // cancellation; saturates to 1 where t would overflow.
  constexpr S kSaturate = std::is_same_v<S, float> ? S(10) : S(20);
  const V a = abs(x);
  const V t = expm1(V(S(2)) * select(a > V(kSaturate), V(kSaturate), a));
  V y = t / (t + V(S(2)));
  y = select(a > V(kSaturate), V(S(1)), y);
  return select(isnan(x), x, copysign(y, x));
}

template <class V>
inline V sinh(V x) {
  using S = scalar_of_t<V>;
  using C = ExpLogConstants<S>;
  // sinh|x| = (t + t / (t + 1)) / 2 with t = expm1|x|; above the exp
  // overflow threshold, sinh|x| = e^|x| / 2.
  const V a = abs(x);
  const V t = expm1(select(a > V(C::exp_overflow), V(S(0)), a));
  const V mid = V(S(0.5)) * (t + t / (t + V(S(1))));
  const V big = half_exp(select(a > V(C::exp_overflow), a, V(S(0))));
  const V y = select(a > V(C::exp_overflow), big, mid);
  return select(isnan(x), x, copysign(y, x));
}

template <class V>
inline V cosh(V x) {
  using S = scalar_of_t<V>;
  using C = ExpLogConstants<S>;
  const V a = abs(x);
  const V e = exp(select(a > V(C::exp_overflow), V(S(0)), a));
  const V mid = V(S(0.5)) * e + V(S(0.5)) / e;
  const V big = half_exp(select(a > V(C::exp_overflow), a, V(S(0))));
  return select(a > V(C::exp_overflow), big, mid);
}

/// Above this magnitude 1 + x^2 rounds to x^2 (x > 1/sqrt(eps)), so asinh|x|
/// and acosh x are log(x) + ln 2 to within rounding, and x^2 may overflow.
template <class S>
inline constexpr S kInverseHyperbolicLarge = std::is_same_v<S, float> ? S(4096) : S(268435456);  // 2^12, 2^28

template <class V>
inline V asinh(V x) {
  using S = scalar_of_t<V>;
  constexpr S kLarge = kInverseHyperbolicLarge<S>;
  // asinh|x| = log1p(a + a^2 / (1 + sqrt(1 + a^2))): the log1p argument has
  // no cancellation, so the result is accurate near 0 as well.
  const V a = abs(x);
  const V m = select(a > V(kLarge), V(S(0)), a);
  const V m2 = m * m;
  const V mid = log1p(m + m2 / (V(S(1)) + sqrt(V(S(1)) + m2)));
  const V big = log(select(a > V(kLarge), a, V(S(1)))) + V(ExpLogConstants<S>::ln2);
  const V y = select(a > V(kLarge), big, mid);
  return select(isnan(x), x, copysign(y, x));
}

template <class V>
inline V acosh(V x) {
  using S = scalar_of_t<V>;
  constexpr S kLarge = kInverseHyperbolicLarge<S>;
  // acosh x = log1p(t + sqrt(t (t + 2))) with t = x - 1, which is exact for
  // x in [1, 2] (Sterbenz), so the result is accurate near 1. NaN below 1.
  const V m = select(x > V(kLarge), V(S(1)), x);
  const V t = m - V(S(1));
  const V mid = log1p(t + sqrt(t * (t + V(S(2)))));
  const V big = log(select(x > V(kLarge), x, V(S(1)))) + V(ExpLogConstants<S>::ln2);
  const V y = select(x > V(kLarge), big, mid);
  return select(x < V(S(1)), V(std::numeric_limits<S>::quiet_NaN()), y);
}

template <class V>
inline V atanh(V x) {
  using S = scalar_of_t<V>;
  // atanh|x| = log1p(2a / (1 - a)) / 2; below 1/2 the argument is written
  // 2a + 2a^2 / (1 - a), so the rounding of 1 - a touches only the small
  // term. 1 gives inf; beyond 1 the argument is below -1 and log1p is NaN.
  const V a = abs(x);
  const V twice = a + a;
  const V one_minus = V(S(1)) - a;
  const V arg = select(a < V(S(0.5)), twice + twice * a / one_minus, twice / one_minus);
  const V y = V(S(0.5)) * log1p(arg);
  return select(isnan(x), x, copysign(y, x));
}

}  // namespace detail

#if defined(__CUDA_ARCH__)
TENSORLIB_HOST_DEVICE inline float tanh(float x) { return ::tanhf(x); }
TENSORLIB_HOST_DEVICE inline double tanh(double x) { return ::tanh(x); }
TENSORLIB_HOST_DEVICE inline float sinh(float x) { return ::sinhf(x); }
TENSORLIB_HOST_DEVICE inline double sinh(double x) { return ::sinh(x); }
TENSORLIB_HOST_DEVICE inline float cosh(float x) { return ::coshf(x); }
TENSORLIB_HOST_DEVICE inline double cosh(double x) { return ::cosh(x); }
TENSORLIB_HOST_DEVICE inline float asinh(float x) { return ::asinhf(x); }
TENSORLIB_HOST_DEVICE inline double asinh(double x) { return ::asinh(x); }
TENSORLIB_HOST_DEVICE inline float acosh(float x) { return ::acoshf(x); }
TENSORLIB_HOST_DEVICE inline double acosh(double x) { return ::acosh(x); }
TENSORLIB_HOST_DEVICE inline float atanh(float x) { return ::atanhf(x); }
TENSORLIB_HOST_DEVICE inline double atanh(double x) { return ::atanh(x); }
#else
inline float tanh(float x) { return detail::tanh(x); }
inline double tanh(double x) { return detail::tanh(x); }
inline float sinh(float x) { return detail::sinh(x); }
inline double sinh(double x) { return detail::sinh(x); }
inline float cosh(float x) { return detail::cosh(x); }
inline double cosh(double x) { return detail::cosh(x); }
inline float asinh(float x) { return detail::asinh(x); }
inline double asinh(double x) { return detail::asinh(x); }
inline float acosh(float x) { return detail::acosh(x); }
inline double acosh(double x) { return detail::acosh(x); }
inline float atanh(float x) { return detail::atanh(x); }
inline double atanh(double x) { return detail::atanh(x); }
#endif

}  // namespace tensorlib::math
