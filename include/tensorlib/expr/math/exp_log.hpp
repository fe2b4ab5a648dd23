#pragma once
/// \file
/// exp, exp2, expm1, log, log2, log10, log1p: one generic implementation per
/// precision, written in the vocabulary of primitives.hpp so that the CPU
/// scalar path and every SIMD lane compute bit-identical results.
///
/// Note [series coefficients]
/// The kernels reduce the argument to a small interval and evaluate a
/// truncated Taylor (or atanh) series whose degree is chosen so that the
/// truncation error is below half an ulp on that interval; the coefficients
/// are exact rationals (1/k!, 1/(2k+1)) rounded to the working precision.
/// Accuracy is measured in tests/expr/math_accuracy_test.cpp against the
/// C library in double (float) or long double (double).

#include <limits>

#include "tensorlib/expr/math/primitives.hpp"

namespace tensorlib::math {
namespace detail {

// Taylor coefficients of exp(r): 1/k!.
inline constexpr float kExpF32[] = {1.0f, 1.0f, 1.0f / 2, 1.0f / 6, 1.0f / 24, 1.0f / 120, 1.0f / 720, 1.0f / 5040};
inline constexpr double kExpF64[] = {
    1.0,        1.0,         1.0 / 2,      1.0 / 6,       1.0 / 24,       1.0 / 120,       1.0 / 720,
    1.0 / 5040, 1.0 / 40320, 1.0 / 362880, 1.0 / 3628800, 1.0 / 39916800, 1.0 / 479001600, 1.0 / 6227020800.0};
// expm1(r) / r = sum r^k / (k+1)!.
inline constexpr float kExpm1F32[] = {1.0f,       1.0f / 2,   1.0f / 6,    1.0f / 24,
                                      1.0f / 120, 1.0f / 720, 1.0f / 5040, 1.0f / 40320};
inline constexpr double kExpm1F64[] = {
    1.0,         1.0 / 2,      1.0 / 6,       1.0 / 24,       1.0 / 120,       1.0 / 720,          1.0 / 5040,
    1.0 / 40320, 1.0 / 362880, 1.0 / 3628800, 1.0 / 39916800, 1.0 / 479001600, 1.0 / 6227020800.0, 1.0 / 87178291200.0};
// (atanh(s) / s - 1) / s^2 = sum_{k>=0} s^(2k) / (2k+3).
inline constexpr float kLogF32[] = {1.0f / 3, 1.0f / 5, 1.0f / 7, 1.0f / 9, 1.0f / 11};
inline constexpr double kLogF64[] = {1.0 / 3,  1.0 / 5,  1.0 / 7,  1.0 / 9,  1.0 / 11,
                                     1.0 / 13, 1.0 / 15, 1.0 / 17, 1.0 / 19, 1.0 / 21};

/// Constants of one precision.
template <class S>
struct ExpLogConstants;
template <>
struct ExpLogConstants<float> {
  static constexpr float log2e = 1.44269504088896341f;
  // ln 2 = ln2_hi + ln2_lo with ln2_hi short enough that n * ln2_hi is exact.
  static constexpr float ln2_hi = 0.693359375f;
  static constexpr float ln2_lo = -2.12194440054690583e-4f;
  static constexpr float ln2 = 0.693147180559945309f;
  static constexpr float log10_2 = 0.301029995663981195f;
  static constexpr float log10e = 0.434294481903251828f;
  static constexpr float exp_overflow = 88.7228391116729996f;    // log(FLT_MAX)
  static constexpr float exp_underflow = -103.972077083991796f;  // log(smallest subnormal / 2)
  static constexpr float expm1_saturate = -17.5f;                // expm1(x) rounds to -1 below
  static constexpr float exp_fast_limit = 87.0f;  // |x| below: 2^n is a normal number, one scaling suffices
  static constexpr float min_normal = std::numeric_limits<float>::min();
  static constexpr float subnormal_scale = 8388608.0f;  // 2^23
  static constexpr float subnormal_shift = 23.0f;
  static constexpr float sqrt2 = 1.41421356237309505f;
};
template <>
struct ExpLogConstants<double> {
  static constexpr double log2e = 1.44269504088896340736;
  static constexpr double ln2_hi = 0.693147180369123816490;  // ln 2 rounded to 32 significant bits
  static constexpr double ln2_lo = 1.90821492927058770002e-10;
  static constexpr double ln2 = 0.693147180559945309417;
  static constexpr double log10_2 = 0.301029995663981195214;
  static constexpr double log10e = 0.434294481903251827651;
  static constexpr double exp_overflow = 709.782712893383996843;
  static constexpr double exp_underflow = -745.133219101941108420;
  static constexpr double expm1_saturate = -38.0;
  static constexpr double exp_fast_limit = 707.0;
  static constexpr double min_normal = std::numeric_limits<double>::min();
  static constexpr double subnormal_scale = 4503599627370496.0;  // 2^52
  static constexpr double subnormal_shift = 52.0;
  static constexpr double sqrt2 = 1.41421356237309504880;
};

template <class V>
inline V exp_poly(V r) {
  if constexpr (std::is_same_v<scalar_of_t<V>, float>)
    return polynomial(r, kExpF32);
  else
    return polynomial(r, kExpF64);
}
template <class V>
inline V expm1_poly(V r) {
  if constexpr (std::is_same_v<scalar_of_t<V>, float>)
    return r * polynomial(r, kExpm1F32);
  else
    return r * polynomial(r, kExpm1F64);
}

/// Splits x = n ln2 + r with |r| <= ln2 / 2 (x already clamped to a finite range).
template <class V>
inline V reduce_ln2(V x, V& n) {
  using C = ExpLogConstants<scalar_of_t<V>>;
  n = rint(x * V(C::log2e));
  V r = mul_add(n, V(-C::ln2_hi), x);
  return mul_add(n, V(-C::ln2_lo), r);
}

/// exp over the whole range: overflow, underflow into subnormals, NaN.
template <class V>
inline V exp_full_range(V x) {
  using S = scalar_of_t<V>;
  using C = ExpLogConstants<S>;
  V xc = select(x > V(C::exp_overflow), V(C::exp_overflow), x);
  xc = select(xc < V(C::exp_underflow), V(C::exp_underflow), xc);
  xc = select(isnan(x), V(S(0)), xc);
  V n;
  const V r = reduce_ln2(xc, n);
  V y = ldexp_integral(exp_poly(r), n);
  y = select(x > V(C::exp_overflow), V(std::numeric_limits<S>::infinity()), y);
  y = select(x < V(C::exp_underflow), V(S(0)), y);
  return select(isnan(x), x, y);
}

/// e^x / 2 without overflow in between (sinh and cosh past exp's overflow
/// threshold): one reduction, then a two-step scaling by 2^(n-1). Arguments
/// are capped just above the point where the result overflows anyway, so
/// +inf gives +inf rather than inf - inf in the reduction.
template <class V>
inline V half_exp(V x) {
  using S = scalar_of_t<V>;
  using C = ExpLogConstants<S>;
  x = select(x > V(C::exp_overflow + S(2)), V(C::exp_overflow + S(2)), x);
  V n;
  const V r = reduce_ln2(x, n);
  return ldexp_integral(exp_poly(r), n - V(S(1)));
}

/// e^x. When every lane is well inside the normal range (the common case)
/// one multiplication by 2^n finishes the job; otherwise the full-range path
/// runs, which gives bit-identical results on such lanes (scaling by a power
/// of two in two exact steps or one is the same).
template <class V>
inline V exp(V x) {
  using C = ExpLogConstants<scalar_of_t<V>>;
  if (!all(abs(x) < V(C::exp_fast_limit))) return exp_full_range(x);
  V n;
  const V r = reduce_ln2(x, n);
  return exp_poly(r) * pow2i(n);
}

template <class V>
inline V exp2(V x) {
  using S = scalar_of_t<V>;
  using C = ExpLogConstants<S>;
  constexpr S kHi = std::is_same_v<S, float> ? S(128) : S(1024);
  constexpr S kLo = std::is_same_v<S, float> ? S(-150) : S(-1075);
  V xc = select(x > V(kHi), V(kHi), x);
  xc = select(xc < V(kLo), V(kLo), xc);
  xc = select(isnan(x), V(S(0)), xc);
  const V n = rint(xc);
  const V r = (xc - n) * V(C::ln2);
  V y = ldexp_integral(exp_poly(r), n);
  y = select(x >= V(kHi), V(std::numeric_limits<S>::infinity()), y);
  y = select(x <= V(kLo), V(S(0)), y);
  return select(isnan(x), x, y);
}

template <class V>
inline V expm1(V x) {
  using S = scalar_of_t<V>;
  using C = ExpLogConstants<S>;
  const V small = expm1_poly(x);  // exact enough for |x| <= ln2 / 2
  V xc = select(x > V(C::exp_overflow), V(C::exp_overflow), x);
  xc = select(xc < V(C::expm1_saturate), V(C::expm1_saturate), xc);
  xc = select(isnan(x), V(S(0)), xc);
  V n;
  const V r = reduce_ln2(xc, n);
  // expm1(x) = 2^n (expm1(r) + 1) - 1 = t e + (t - 1) with t = 2^n. At the top
  // of the range (n = 128 / 1024) 2^n itself overflows although the result
  // does not, so there t = 2^(n-1) and the product is doubled; the -1 is far
  // below half an ulp at that size.
  constexpr S kMaxExp = std::is_same_v<S, float> ? S(127) : S(1023);
  const auto top = n > V(kMaxExp);
  const V t = pow2i(select(top, V(kMaxExp), n));
  const V e = expm1_poly(r);
  V y = select(top, ((e + V(S(1))) * V(S(2))) * t, mul_add(t, e, t - V(S(1))));
  y = select(abs(x) <= V(S(0.5) * C::ln2), small, y);
  y = select(x > V(C::exp_overflow), V(std::numeric_limits<S>::infinity()), y);
  y = select(x < V(C::expm1_saturate), V(S(-1)), y);
  return select(isnan(x), x, y);
}

/// For finite x > 0: x = 2^e * m with m in [sqrt(1/2), sqrt(2)); returns log(m).
template <class V>
inline V log_reduced(V x, V& e) {
  using S = scalar_of_t<V>;
  using C = ExpLogConstants<S>;
  const auto tiny = x < V(C::min_normal);
  const V xs = select(tiny, x * V(C::subnormal_scale), x);
  V m = mantissa_of(xs);
  e = exponent_of(xs) - select(tiny, V(C::subnormal_shift), V(S(0)));
  const auto big = m > V(C::sqrt2);
  m = select(big, m * V(S(0.5)), m);
  e = select(big, e + V(S(1)), e);
  const V s = (m - V(S(1))) / (m + V(S(1)));
  const V z = s * s;
  V p;
  if constexpr (std::is_same_v<S, float>)
    p = polynomial(z, kLogF32);
  else
    p = polynomial(z, kLogF64);
  // log(m) = 2 atanh(s) = 2 s + 2 s z p
  return mul_add(V(S(2)) * s, z * p, V(S(2)) * s);
}

/// Results of log at the edges of its domain, applied after the core formula.
template <class V>
inline V log_edges(V x, V y) {
  using S = scalar_of_t<V>;
  constexpr S inf = std::numeric_limits<S>::infinity();
  y = select(x == V(S(0)), V(-inf), y);
  y = select(x < V(S(0)), V(std::numeric_limits<S>::quiet_NaN()), y);
  y = select(x == V(inf), V(inf), y);
  return select(isnan(x), x, y);
}

/// log(m) for x = 2^e m, without the subnormal rescaling: valid for positive
/// normal finite x (the fast path of log, log2 and log10).
template <class V>
inline V log_reduced_normal(V x, V& e) {
  using S = scalar_of_t<V>;
  using C = ExpLogConstants<S>;
  V m = mantissa_of(x);
  e = exponent_of(x);
  const auto big = m > V(C::sqrt2);
  m = select(big, m * V(S(0.5)), m);
  e = select(big, e + V(S(1)), e);
  const V s = (m - V(S(1))) / (m + V(S(1)));
  const V z = s * s;
  V p;
  if constexpr (std::is_same_v<S, float>)
    p = polynomial(z, kLogF32);
  else
    p = polynomial(z, kLogF64);
  return mul_add(V(S(2)) * s, z * p, V(S(2)) * s);
}

/// True when every lane is a positive normal finite number.
template <class V>
inline bool all_positive_normal(V x) {
  using S = scalar_of_t<V>;
  return all((x >= V(ExpLogConstants<S>::min_normal)) && (x < V(std::numeric_limits<S>::infinity())));
}

template <class V>
inline V log(V x) {
  using C = ExpLogConstants<scalar_of_t<V>>;
  V e;
  if (all_positive_normal(x)) {
    const V lm = log_reduced_normal(x, e);
    return mul_add(e, V(C::ln2_hi), mul_add(e, V(C::ln2_lo), lm));
  }
  const V lm = log_reduced(x, e);
  return log_edges(x, mul_add(e, V(C::ln2_hi), mul_add(e, V(C::ln2_lo), lm)));
}

template <class V>
inline V log2(V x) {
  using C = ExpLogConstants<scalar_of_t<V>>;
  V e;
  const V lm = log_reduced(x, e);
  return log_edges(x, mul_add(lm, V(C::log2e), e));
}

template <class V>
inline V log10(V x) {
  using C = ExpLogConstants<scalar_of_t<V>>;
  V e;
  const V lm = log_reduced(x, e);
  return log_edges(x, mul_add(e, V(C::log10_2), lm * V(C::log10e)));
}

template <class V>
inline V log1p(V x) {
  using S = scalar_of_t<V>;
  // log1p(x) = log(u) * x / (u - 1) with u = 1 + x rounded: the factor
  // corrects the rounding of u (Goldberg's trick).
  const V u = x + V(S(1));
  const V d = u - V(S(1));
  const V y = log(u) * (x / select(d == V(S(0)), V(S(1)), d));
  V r = select(d == V(S(0)), x, y);
  r = select(x == V(std::numeric_limits<S>::infinity()), x, r);
  return select(x == V(S(-1)), V(-std::numeric_limits<S>::infinity()), r);
}

}  // namespace detail

/// Scalar entry points (the generic kernels; CUDA's own on the device).
#if defined(__CUDA_ARCH__)
TENSORLIB_HOST_DEVICE inline float exp(float x) { return ::expf(x); }
TENSORLIB_HOST_DEVICE inline double exp(double x) { return ::exp(x); }
TENSORLIB_HOST_DEVICE inline float exp2(float x) { return ::exp2f(x); }
TENSORLIB_HOST_DEVICE inline double exp2(double x) { return ::exp2(x); }
TENSORLIB_HOST_DEVICE inline float expm1(float x) { return ::expm1f(x); }
TENSORLIB_HOST_DEVICE inline double expm1(double x) { return ::expm1(x); }
TENSORLIB_HOST_DEVICE inline float log(float x) { return ::logf(x); }
TENSORLIB_HOST_DEVICE inline double log(double x) { return ::log(x); }
TENSORLIB_HOST_DEVICE inline float log2(float x) { return ::log2f(x); }
TENSORLIB_HOST_DEVICE inline double log2(double x) { return ::log2(x); }
TENSORLIB_HOST_DEVICE inline float log10(float x) { return ::log10f(x); }
TENSORLIB_HOST_DEVICE inline double log10(double x) { return ::log10(x); }
TENSORLIB_HOST_DEVICE inline float log1p(float x) { return ::log1pf(x); }
TENSORLIB_HOST_DEVICE inline double log1p(double x) { return ::log1p(x); }
#else
inline float exp(float x) { return detail::exp(x); }
inline double exp(double x) { return detail::exp(x); }
inline float exp2(float x) { return detail::exp2(x); }
inline double exp2(double x) { return detail::exp2(x); }
inline float expm1(float x) { return detail::expm1(x); }
inline double expm1(double x) { return detail::expm1(x); }
inline float log(float x) { return detail::log(x); }
inline double log(double x) { return detail::log(x); }
inline float log2(float x) { return detail::log2(x); }
inline double log2(double x) { return detail::log2(x); }
inline float log10(float x) { return detail::log10(x); }
inline double log10(double x) { return detail::log10(x); }
inline float log1p(float x) { return detail::log1p(x); }
inline double log1p(double x) { return detail::log1p(x); }
#endif

}  // namespace tensorlib::math
