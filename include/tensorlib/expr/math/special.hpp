#pragma once
/// \file
/// erf, erfc (generic float kernels, like exp_log.hpp), and erfinv, lgamma,
/// digamma, trigamma, zeta, polygamma (scalar, computed in double). Scalar entry points for host and
/// device; double erf/erfc call the C library on the host.
///
/// Note [erfc tail]
/// For x >= 1/2, erfc(x) = exp(-x^2) R(x) with R(x) = e^(x^2) erfc(x), which
/// falls smoothly from 0.62 like 1/(sqrt(pi) x). Three things keep the
/// relative error small down to the subnormal range (erfc(10.06) ~ 2^-150):
///  - exp(-x^2) is computed from an exact split -x^2 = -h^2 + (h - x)(h + x)
///    with h = x rounded to 8 fractional bits (h^2 then fits in a float), so
///    the rounding of x^2, which would cost x^2 ulp (100 ulp at x = 10), never
///    happens;
///  - R is one degree-11 polynomial per lane: in x - m on [1/2, 2] (m = 1.2119
///    is where R(m) is within 2^-34 of a float, so the constant term is exact),
///    and on [2, 10.1] as S(x) / x with S = x R -> 1/sqrt(pi) in 1/x - 0.296.
///    Both reach 2^-29 (tools/fit_math.py). Each lane selects its piece's
///    coefficients, so SIMD lanes need no branch;
///  - with exp(-x^2) = 2^k (1 + u), R (1 + u) is formed by one mul_add and
///    scaled exactly (rounded once where the result is subnormal).
/// Measured: erf 1.0 ulp, erfc 2.6 ulp (3.0 without FMA), exhaustively.

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "tensorlib/expr/math/exp_log.hpp"
#include "tensorlib/expr/math/primitives.hpp"

namespace tensorlib::math {
namespace detail {

// erf(x) = x + x P(x^2); relative error 2^-29.4 on |x| <= 1.
inline constexpr float kErfF32[] = {0.12837917f,  -0.37612626f,   0.11283579f,  -0.026853347f,
                                    0.005187162f, -0.0007997853f, 7.806903e-05f};
// R(x) (Note [erfc tail]) in x - kErfcCenter on [1/2, 2]; relative error 2^-29.2.
inline constexpr float kErfcNearF32[] = {0.37593383f,   -0.21718019f,   0.11273009f,   -0.053707134f,
                                         0.023820808f,  -0.009937315f,  0.0039266935f, -0.0014717401f,
                                         0.0005308338f, -0.0001975644f, 6.958268e-05f, -1.33215735e-05f};
inline constexpr float kErfcCenter = 1.2119140625f;
// S(x) = x R(x) in 1/x - kErfcFarCenter on [2, 10.1]; relative error 2^-30.1.
inline constexpr float kErfcFarF32[] = {0.5421178f,   -0.13361305f, -0.13784571f, 0.20923263f,
                                        -0.07860171f, -0.16625206f, 0.34711233f,  -0.24379474f,
                                        -0.1903038f,  0.5411903f,   -1.2858542f,  3.0746393f};
inline constexpr float kErfcFarCenter = 0.29638671875f;

/// erf for |x| <= 1.
template <class V>
inline V erf_small(V x) {
  return mul_add(x, polynomial(x * x, kErfF32), x);
}

/// erfc(a) for a >= 1/2 (Note [erfc tail]); 0 once it underflows.
/// Every product that feeds a sum is an explicit mul_add: GCC contracts
/// a * b + c on its own (even across statements), and would do so differently
/// for scalars and packets.
template <class V>
inline V erfc_tail(V a) {
  using C = ExpLogConstants<float>;
  constexpr int n = sizeof(kErfcNearF32) / sizeof(float);
  static_assert(sizeof(kErfcFarF32) == sizeof(kErfcNearF32), "erfc_tail: both pieces need the same degree");
  V x = select(a > V(10.1f), V(10.1f), a);  // erfc(10.1) rounds to 0
  x = select(x >= V(0.5f), x, V(0.5f));     // and nan lanes compute on 1/2
  const auto far = x > V(2.0f);
  const V v = select(far, V(1.0f) / x - V(kErfcFarCenter), x - V(kErfcCenter));
  V s = select(far, V(kErfcFarF32[n - 1]), V(kErfcNearF32[n - 1]));
  for (int i = n - 2; i >= 0; --i) s = mul_add(s, v, select(far, V(kErfcFarF32[i]), V(kErfcNearF32[i])));
  const V r_of_x = select(far, s / x, s);
  // exp(-x^2) = 2^k (1 + u) from -x^2 = -h^2 + d (x + h), h = x rounded to 8
  // fractional bits and d = h - x: -h^2 - k ln2_hi is exact, d (x + h) is small.
  const V h = rint(x * V(256.0f)) * V(1.0f / 256.0f);
  const V d = h - x, sum = x + h, minus_h2 = -(h * h);
  const V k = rint(mul_add(d, sum, minus_h2) * V(C::log2e));
  V r = mul_add(k, V(-C::ln2_hi), minus_h2);
  r = mul_add(k, V(-C::ln2_lo), r);
  const V u = expm1_poly(mul_add(d, sum, r));
  // R (1 + u) with one rounding, then the exact (or, when subnormal, singly rounded) scaling.
  return select(isnan(a), a, ldexp_integral(mul_add(u, r_of_x, r_of_x), k));
}

template <class V>
inline V erf(V x) {
  static_assert(std::is_same_v<scalar_of_t<V>, float>, "detail::erf: the generic kernel is float-only");
  const V a = abs(x);
  // Beyond 1, erf = 1 - erfc loses nothing: erfc(1) = 0.16.
  const V big = copysign(V(1.0f) - erfc_tail(a), x);
  return select(a <= V(1.0f), erf_small(x), big);
}

template <class V>
inline V erfc(V x) {
  static_assert(std::is_same_v<scalar_of_t<V>, float>, "detail::erfc: the generic kernel is float-only");
  // |x| < 1/2: 1 - x - x P(x^2), with erfc >= 0.48 there is no cancellation.
  const V small = mul_add(-x, polynomial(x * x, kErfF32), V(1.0f) - x);
  const V tail = erfc_tail(abs(x));
  const V big = select(x < V(0.0f), V(2.0f) - tail, tail);
  return select(abs(x) < V(0.5f), small, big);
}

/// lgamma(2 + t) for |t| <= 1/2 by its Taylor series sum_k c_k t^k,
/// c_1 = 1 - euler_gamma, c_k = (-1)^k (zeta(k) - 1) / k (28 terms leave 2e-19
/// at |t| = 1/2). The tables are local to their functions so that device code
/// can read them (a namespace-scope array is host memory).
TENSORLIB_HOST_DEVICE inline double lgamma_around_2(double t) {
  constexpr double c[] = {0.0,
                          0.42278433509846714,
                          0.32246703342411322,
                          -0.067352301053198095,
                          0.020580808427784548,
                          -0.0073855510286739853,
                          0.0028905103307415233,
                          -0.001192753911703261,
                          0.00050966952474304242,
                          -0.00022315475845357938,
                          9.9457512781808534e-5,
                          -4.4926236738133142e-5,
                          2.0507212775670692e-5,
                          -9.4394882752683959e-6,
                          4.3748667899074878e-6,
                          -2.0392157538013662e-6,
                          9.5514121304074198e-7,
                          -4.492469198764566e-7,
                          2.1207184805554666e-7,
                          -1.00432248239681e-7,
                          4.7698101693639806e-8,
                          -2.2711094608943165e-8,
                          1.0838659214896954e-8,
                          -5.1834750419700467e-9,
                          2.4836745438024783e-9,
                          -1.1921401405860912e-9,
                          5.731367241678862e-10,
                          -2.7595228851242331e-10,
                          1.3304764374244489e-10};
  return polynomial(t, c);
}

/// The Stirling series of lgamma, sum_k B_2k / (2k (2k - 1)) x^(1 - 2k),
/// k = 1..9; at x >= 8 the next term is below 1e-17 x.
TENSORLIB_HOST_DEVICE inline double stirling_series(double x) {
  constexpr double c[] = {1.0 / 12,        -1.0 / 360, 1.0 / 1260,       -1.0 / 1680,     1.0 / 1188,
                          -691.0 / 360360, 1.0 / 156,  -3617.0 / 122400, 43867.0 / 244188};
  return polynomial(1 / (x * x), c) / x;
}

/// lgamma(x) for x > 0, in double.
TENSORLIB_HOST_DEVICE inline double lgamma_positive(double x) {
  // Near the roots x = 1, 2 the Taylor series of lgamma(2 + t), |t| <= 1/2,
  // keeps relative accuracy; below 3/2 it steps down by
  // lgamma(x) = lgamma(x + 1) - log x (twice below 1/2), with log1p for log(1 + t).
  if (x < 0.5) return lgamma_around_2(x) - std::log1p(x) - std::log(x);
  if (x < 1.5) return lgamma_around_2(x - 1) - std::log1p(x - 1);
  if (x < 8) {
    // lgamma(x) = log((x - 1) ... (x - k)) + lgamma(x - k): all terms positive.
    double product = 1;
    while (x >= 2.5) {
      x -= 1;
      product *= x;
    }
    return std::log(product) + lgamma_around_2(x - 2);
  }
  if (x == std::numeric_limits<double>::infinity()) return x;
  return (x - 0.5) * std::log(x) - x + (0.91893853320467274178 + stirling_series(x));  // 0.918... = log(2 pi) / 2
}

}  // namespace detail

#if defined(__CUDA_ARCH__)
TENSORLIB_HOST_DEVICE inline float erf(float x) { return ::erff(x); }
TENSORLIB_HOST_DEVICE inline double erf(double x) { return ::erf(x); }
TENSORLIB_HOST_DEVICE inline float erfc(float x) { return ::erfcf(x); }
TENSORLIB_HOST_DEVICE inline double erfc(double x) { return ::erfc(x); }
TENSORLIB_HOST_DEVICE inline float lgamma(float x) { return ::lgammaf(x); }
TENSORLIB_HOST_DEVICE inline double lgamma(double x) { return ::lgamma(x); }
TENSORLIB_HOST_DEVICE inline float erfinv(float x) { return ::erfinvf(x); }
TENSORLIB_HOST_DEVICE inline double erfinv(double x) { return ::erfinv(x); }
#else
/// Error function (float: the generic kernel; double: the C library).
inline float erf(float x) { return detail::erf(x); }
inline double erf(double x) { return std::erf(x); }
/// Complementary error function 1 - erf(x), accurate where it is tiny.
inline float erfc(float x) { return detail::erfc(x); }
inline double erfc(double x) { return std::erfc(x); }

/// log|Gamma(x)|, thread-safe (glibc's lgamma writes the global signgam);
/// +inf at the poles (non-positive integers) and at +-inf, like C and PyTorch.
inline double lgamma(double x) {
  constexpr double pi = 3.14159265358979323846;
  if (x != x) return x;
  if (x > 0) return detail::lgamma_positive(x);
  if (x == std::floor(x)) return std::numeric_limits<double>::infinity();
  // Reflection: lgamma(x) = log(pi / |sin(pi x)|) - lgamma(1 - x), where
  // sin(pi x) = +-sin(pi (x - rint(x))) and x - rint(x) is exact; near 0,
  // lgamma(x) = -log|x| - euler_gamma x + ... rounds to -log|x|.
  if (x > -0x1p-60) return -std::log(-x);
  const double sin_pi_x = std::sin(pi * std::fabs(x - std::rint(x)));
  return std::log(pi / sin_pi_x) - detail::lgamma_positive(1 - x);
}
inline float lgamma(float x) { return static_cast<float>(lgamma(static_cast<double>(x))); }

/// Inverse error function: an initial estimate refined by Newton steps on erf
/// (on erfc near +-1, where erf is flat); +-inf at +-1, nan outside [-1, 1].
inline double erfinv(double x) {
  constexpr double inf = std::numeric_limits<double>::infinity();
  if (x != x || x < -1 || x > 1) return std::numeric_limits<double>::quiet_NaN();
  if (x == 1) return inf;
  if (x == -1) return -inf;
  const double l = std::log((1 - x) * (1 + x));
  const double a = 0.147, b = 2 / (3.14159265358979323846 * a) + l / 2;
  double y = std::copysign(std::sqrt(std::sqrt(b * b - l / a) - b), x);
  for (int i = 0; i < 3; ++i) {
    const double err =
        (std::fabs(x) > 0.5) ? -(std::erfc(std::fabs(y)) - (1 - std::fabs(x))) * (x < 0 ? -1 : 1) : std::erf(y) - x;
    y -= err / (1.12837916709551257390 * std::exp(-y * y));
  }
  return y;
}
inline float erfinv(float x) { return static_cast<float>(erfinv(static_cast<double>(x))); }
#endif

namespace detail {
/// Digamma of x > 0: recurrence up to 10, then the asymptotic series.
TENSORLIB_HOST_DEVICE inline double digamma_positive(double x) {
  double result = 0;
  while (x < 10) {
    result -= 1 / x;
    x += 1;
  }
  const double z = 1 / (x * x);
  // Bernoulli terms B_2k / (2k x^2k), k = 1..6.
  const double series =
      z * (1.0 / 12 - z * (1.0 / 120 - z * (1.0 / 252 - z * (1.0 / 240 - z * (1.0 / 132 - z * (691.0 / 32760))))));
  return result + std::log(x) - 0.5 / x - series;
}
}  // namespace detail

/// Digamma (psi): reflection below 0, then detail::digamma_positive (not
/// recursive: a recursive device function has a stack size ptxas cannot
/// bound, an error under --Ofast-compile, which keeps it out of line).
/// PyTorch's conventions: digamma(+-0) = -+inf, nan at the negative integers.
TENSORLIB_HOST_DEVICE inline double digamma(double x) {
  constexpr double pi = 3.14159265358979323846;
  if (x == 0) return std::copysign(std::numeric_limits<double>::infinity(), -x);
  if (x < 0) {
    if (x == std::trunc(x)) return std::numeric_limits<double>::quiet_NaN();
    // tan has period pi: reduce x to [-1/2, 1/2] exactly before multiplying by pi.
    return detail::digamma_positive(1 - x) - pi / std::tan(pi * (x - std::rint(x)));
  }
  return detail::digamma_positive(x);
}
TENSORLIB_HOST_DEVICE inline float digamma(float x) { return static_cast<float>(digamma(static_cast<double>(x))); }

/// Trigamma (psi'), the derivative of digamma: reflection below 1/2,
/// recurrence up to 10, asymptotic series. +inf at 0 and the negative integers.
TENSORLIB_HOST_DEVICE inline double trigamma(double x) {
  constexpr double pi = 3.14159265358979323846;
  double sign = 1, result = 0;
  if (x < 0.5) {
    // psi'(x) = pi^2 / sin^2(pi x) - psi'(1 - x); sin has period pi up to sign.
    const double s = std::sin(pi * (x - std::rint(x)));
    if (s == 0) return std::numeric_limits<double>::infinity();
    result = pi * pi / (s * s);
    sign = -1;
    x = 1 - x;
  }
  double sum = 0;
  while (x < 10) {
    sum += 1 / (x * x);
    x += 1;
  }
  const double z = 1 / (x * x);
  // 1/x + 1/(2x^2) + sum B_2k / x^(2k+1), k = 1..7.
  const double series =
      (1 +
       z * (1.0 / 6 -
            z * (1.0 / 30 - z * (1.0 / 42 - z * (1.0 / 30 - z * (5.0 / 66 - z * (691.0 / 2730 - z * (7.0 / 6)))))))) /
          x +
      0.5 * z;
  return result + sign * (sum + series);
}
TENSORLIB_HOST_DEVICE inline float trigamma(float x) { return static_cast<float>(trigamma(static_cast<double>(x))); }

/// The Hurwitz zeta function zeta(s, q) = sum_{k >= 0} (q + k)^-s, for s > 1
/// (PyTorch's special.zeta conventions: inf at s = 1 and at the poles q = 0,
/// -1, ...; NaN for s < 1, and for q < 0 with a non-integral s, where the
/// powers are not real; the limits at s = inf and q = inf, where PyTorch
/// 1.13 gives NaN for q > 1). Terms are summed until q + k >= 9 (at least nine:
/// so about |q| of them for a negative q, as in PyTorch),
/// then the rest is the Euler-Maclaurin formula: with a = q + k,
///     a^(1-s) / (s-1) + a^-s / 2 + sum_j B_2j / (2j)! s (s+1) ... (s+2j-2) a^(-s-2j+1),
/// whose twelve terms reach double precision for a >= 9.
TENSORLIB_HOST_DEVICE inline double zeta(double s, double q) {
  constexpr double inf = std::numeric_limits<double>::infinity();
  constexpr double nan = std::numeric_limits<double>::quiet_NaN();
  constexpr double eps = 1.1102230246251565e-16;  // 2^-53
  // B_2j / (2j)!, j = 1..12.
  constexpr double kBernoulliOverFactorial[] = {(1.0 / 6) / 2,
                                                (-1.0 / 30) / 24,
                                                (1.0 / 42) / 720,
                                                (-1.0 / 30) / 40320,
                                                (5.0 / 66) / 3628800,
                                                (-691.0 / 2730) / 479001600,
                                                (7.0 / 6) / 87178291200.0,
                                                (-3617.0 / 510) / 20922789888000.0,
                                                (43867.0 / 798) / 6402373705728000.0,
                                                (-174611.0 / 330) / 2432902008176640000.0,
                                                (854513.0 / 138) / 1.1240007277776076800e21,
                                                (-236364091.0 / 2730) / 6.2044840173323943936e23};
  if (s != s || q != q) return nan;
  if (s == 1) return inf;
  if (s < 1) return nan;
  if (s == inf) return q < 1 ? inf : q == 1 ? 1.0 : 0.0;  // the limits of (q + k)^-s
  if (q == inf) return 0;
  if (q <= 0) {
    if (q == std::floor(q)) return inf;
    if (s != std::floor(s)) return nan;
  }
  double sum = 0, a = q;
  for (int64_t k = 0; k < 9 || a < 9; ++k, a += 1) {
    const double term = std::pow(a, -s);
    sum += term;
    if (k >= 9 && std::fabs(term) <= eps * std::fabs(sum)) return sum;
  }
  double tail = a / (s - 1) + 0.5;   // times a^-s, below
  double rising = s, power = 1 / a;  // s (s+1) ... (s+2j-2) and a^(1-2j)
  for (int j = 0; j < 12; ++j) {
    const double term = kBernoulliOverFactorial[j] * rising * power;
    tail += term;
    if (std::fabs(term) <= eps * std::fabs(tail)) break;
    rising *= (s + 2 * j + 1) * (s + 2 * j + 2);
    power /= a * a;
  }
  return sum + tail * std::pow(a, -s);
}
TENSORLIB_HOST_DEVICE inline float zeta(float s, float q) {
  return static_cast<float>(zeta(static_cast<double>(s), static_cast<double>(q)));
}

/// The n-th derivative of digamma: digamma itself for n = 0, trigamma for
/// n = 1, and (-1)^(n+1) n! zeta(n + 1, x) above (PyTorch's formulas); NaN
/// for a negative n.
TENSORLIB_HOST_DEVICE inline double polygamma(int64_t n, double x) {
  if (n < 0) return std::numeric_limits<double>::quiet_NaN();
  if (n == 0) return digamma(x);
  if (n == 1) return trigamma(x);
  double factorial = 1;  // inf from n = 171 on, as PyTorch's exp(lgamma(n + 1))
  for (int64_t i = 2; i <= n && i <= 171; ++i) factorial *= static_cast<double>(i);
  return (n % 2 ? factorial : -factorial) * zeta(static_cast<double>(n) + 1, x);
}
TENSORLIB_HOST_DEVICE inline float polygamma(int64_t n, float x) {
  return static_cast<float>(polygamma(n, static_cast<double>(x)));
}

}  // namespace tensorlib::math
