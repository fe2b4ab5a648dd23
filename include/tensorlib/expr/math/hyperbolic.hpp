#pragma once
/// \file
/// sinh, cosh, tanh in terms of exp and expm1 (exp_log.hpp), generic in the
/// argument type like every kernel in expr/math.

#include <limits>

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

}  // namespace detail

#if defined(__CUDA_ARCH__)
TENSORLIB_HOST_DEVICE inline float tanh(float x) { return ::tanhf(x); }
TENSORLIB_HOST_DEVICE inline double tanh(double x) { return ::tanh(x); }
TENSORLIB_HOST_DEVICE inline float sinh(float x) { return ::sinhf(x); }
TENSORLIB_HOST_DEVICE inline double sinh(double x) { return ::sinh(x); }
TENSORLIB_HOST_DEVICE inline float cosh(float x) { return ::coshf(x); }
TENSORLIB_HOST_DEVICE inline double cosh(double x) { return ::cosh(x); }
#else
inline float tanh(float x) { return detail::tanh(x); }
inline double tanh(double x) { return detail::tanh(x); }
inline float sinh(float x) { return detail::sinh(x); }
inline double sinh(double x) { return detail::sinh(x); }
inline float cosh(float x) { return detail::cosh(x); }
inline double cosh(double x) { return detail::cosh(x); }
#endif

}  // namespace tensorlib::math
