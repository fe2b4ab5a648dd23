#pragma once
/// \file
/// erf, erfc (generic float kernels, like exp_log.hpp), and erfinv, lgamma,
/// digamma (scalar, computed in double). Scalar entry points for host and
/// device; double erf/erfc call the C library on the host.
///
/// Note [erfc tail]
/// For x >= 1/2, erfc(x) = exp(-x^2) S(x) / x where S(x) = x e^(x^2) erfc(x)
/// falls smoothly from 0.46 to 1/sqrt(pi). Two things keep the relative
/// error small down to the subnormal range (erfc(10.06) ~ 2^-150):
///  - exp(-x^2) is computed from an exact split -x^2 = -h^2 + (h - x)(h + x)
///    with h = x rounded to 8 fractional bits (h^2 then fits in a float), so
///    the rounding of x^2, which would cost x^2 ulp (100 ulp at x = 10), never
///    happens;
///  - S is one degree-11 polynomial per lane, in x - 1.2534 on [1/2, 2] and
///    in 1/x on [2, 10.1], both to 2^-27 (tools/fit_math.py); the expansion
///    point 1.2534 makes the constant term a float to 2^-34. Each lane
///    selects its piece's coefficients, so SIMD lanes need no branch.

#include <cmath>
#include <limits>
#include <type_traits>

#include "tensorlib/expr/math/exp_log.hpp"
#include "tensorlib/expr/math/primitives.hpp"

namespace tensorlib::math {
namespace detail {

// erf(x) = x + x P(x^2); relative error 2^-29.4 on |x| <= 1.
inline constexpr float kErfF32[] = {0.12837917f,    -0.37612626f,    0.11283579f,  -0.026853347f,
                                    0.005187162f,   -0.0007997853f,  7.806903e-05f};
// S(x) (Note [erfc tail]) in x - kErfcCenter on [1/2, 2]; relative error 2^-27.6.
inline constexpr float kErfcNearF32[] = {0.4601428f,      0.10628216f,      -0.074877605f,  0.043713935f,
                                         -0.022522315f,   0.0105625f,       -0.0045988215f, 0.0018804262f,
                                         -0.0007116213f,  0.00026345756f,   -0.000114719f,  3.4635246e-05f};
inline constexpr float kErfcCenter = 1.25341796875f;
// S(x) in 1/x on [2, 10.1]; relative error 2^-36.2.
inline constexpr float kErfcFarF32[] = {0.5641892f,  2.1485088e-05f, -0.28262305f, 0.007610654f,
                                        0.35184544f, 0.45396984f,    -3.0369687f,  5.6937304f,
                                        -5.623172f,  2.78315f,       -0.28644472f, -0.20741692f};

/// erf for |x| <= 1.
template <class V>
TENSORLIB_HOST_DEVICE inline V erf_small(V x) {
  return mul_add(x, polynomial(x * x, kErfF32), x);
}

/// exp(-h^2 + d s) for d s small (|d s| < 1/16): the reduction by ln 2
/// takes -h^2, whose difference with n ln2_hi is exact, and d s joins the
/// remainder. Every product that feeds a sum is an explicit mul_add, here and
/// below: GCC contracts a * b + c on its own (even across statements), and
/// would do so differently for scalars and packets.
template <class V>
TENSORLIB_HOST_DEVICE inline V exp_split(V h, V d, V s) {
  using C = ExpLogConstants<float>;
  const V minus_h2 = -(h * h);
  const V n = rint(mul_add(d, s, minus_h2) * V(C::log2e));
  V r = mul_add(n, V(-C::ln2_hi), minus_h2);
  r = mul_add(n, V(-C::ln2_lo), r);
  return ldexp_integral(exp_poly(mul_add(d, s, r)), n);
}

/// erfc(a) = e * f for a >= 1/2 (Note [erfc tail]), returned as the two
/// factors so that callers can form 1 - e f and 2 - e f with one rounding.
template <class V>
TENSORLIB_HOST_DEVICE inline void erfc_tail(V a, V& e, V& f) {
  constexpr int n = sizeof(kErfcNearF32) / sizeof(float);
  static_assert(sizeof(kErfcFarF32) == sizeof(kErfcNearF32), "erfc_tail: both pieces need the same degree");
  V x = select(a > V(10.1f), V(10.1f), a);  // erfc(10.1) rounds to 0
  x = select(x < V(0.5f), V(0.5f), x);
  const auto far = x > V(2.0f);
  const V t = V(1.0f) / x;
  const V v = select(far, t, x - V(kErfcCenter));
  V s = select(far, V(kErfcFarF32[n - 1]), V(kErfcNearF32[n - 1]));
  for (int i = n - 2; i >= 0; --i) s = mul_add(s, v, select(far, V(kErfcFarF32[i]), V(kErfcNearF32[i])));
  // -x^2 = -h^2 + (h - x)(x + h), h = x rounded to 8 fractional bits.
  const V h = rint(x * V(256.0f)) * V(1.0f / 256.0f);
  e = exp_split(h, h - x, x + h);
  f = select(isnan(a), a, s * t);
}

template <class V>
TENSORLIB_HOST_DEVICE inline V erf(V x) {
  static_assert(std::is_same_v<scalar_of_t<V>, float>, "detail::erf: the generic kernel is float-only");
  const V a = abs(x);
  // Beyond 1, erf = 1 - erfc loses nothing: erfc(1) = 0.16.
  V e, f;
  erfc_tail(a, e, f);
  const V big = copysign(mul_add(-e, f, V(1.0f)), x);
  return select(a <= V(1.0f), erf_small(x), big);
}

template <class V>
TENSORLIB_HOST_DEVICE inline V erfc(V x) {
  static_assert(std::is_same_v<scalar_of_t<V>, float>, "detail::erfc: the generic kernel is float-only");
  // |x| < 1/2: 1 - x - x P(x^2), with erfc >= 0.48 there is no cancellation.
  const V small = mul_add(-x, polynomial(x * x, kErfF32), V(1.0f) - x);
  V e, f;
  erfc_tail(abs(x), e, f);
  const V big = select(x < V(0.0f), mul_add(-e, f, V(2.0f)), e * f);
  return select(abs(x) < V(0.5f), small, big);
}

// lgamma(2 + t) = sum_k c_k t^k, c_1 = 1 - euler_gamma, c_k = (-1)^k (zeta(k) - 1) / k
// (the Taylor series; 28 terms leave 2e-19 at |t| = 1/2).
inline constexpr double kLgammaAround2[] = {
    0.0,
    0.42278433509846714,     0.32246703342411322,     -0.067352301053198095,   0.020580808427784548,
    -0.0073855510286739853,  0.0028905103307415233,   -0.001192753911703261,   0.00050966952474304242,
    -0.00022315475845357938, 9.9457512781808534e-5,   -4.4926236738133142e-5,  2.0507212775670692e-5,
    -9.4394882752683959e-6,  4.3748667899074878e-6,   -2.0392157538013662e-6,  9.5514121304074198e-7,
    -4.492469198764566e-7,   2.1207184805554666e-7,   -1.00432248239681e-7,    4.7698101693639806e-8,
    -2.2711094608943165e-8,  1.0838659214896954e-8,   -5.1834750419700467e-9,  2.4836745438024783e-9,
    -1.1921401405860912e-9,  5.731367241678862e-10,   -2.7595228851242331e-10, 1.3304764374244489e-10};
// Stirling series: B_2k / (2k (2k - 1)), k = 1..9; at x >= 8 the next term is below 1e-17 x.
inline constexpr double kStirling[] = {1.0 / 12,   -1.0 / 360,       1.0 / 1260,         -1.0 / 1680,    1.0 / 1188,
                                       -691.0 / 360360, 1.0 / 156, -3617.0 / 122400, 43867.0 / 244188};

/// lgamma(x) for x > 0, in double.
TENSORLIB_HOST_DEVICE inline double lgamma_positive(double x) {
  // Near the roots x = 1, 2 the Taylor series around 2 keeps relative accuracy;
  // 1 < x + 1 < 3/2 and 0 < x < 1/2 step down from it by lgamma(x) = lgamma(x + 1) - log x.
  if (x < 0.5) return polynomial(x, kLgammaAround2) - std::log1p(x) - std::log(x);
  if (x < 1.5) return polynomial(x - 1, kLgammaAround2) - std::log1p(x - 1);
  if (x < 8) {
    // lgamma(x) = log((x - 1) ... (x - k)) + lgamma(x - k): all terms positive.
    double product = 1;
    while (x >= 2.5) {
      x -= 1;
      product *= x;
    }
    return std::log(product) + polynomial(x - 2, kLgammaAround2);
  }
  if (x == std::numeric_limits<double>::infinity()) return x;
  const double w = 1 / (x * x);
  const double series = polynomial(w, kStirling) / x;
  return (x - 0.5) * std::log(x) - x + (0.91893853320467274178 + series);  // 0.918... = log(2 pi) / 2
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
  // Reflection: lgamma(x) = log(pi / |sin(pi x)|) - lgamma(1 - x), with
  // sin(pi x) from the exact fractional part of x; near 0, -log|x|.
  if (x > -0x1p-60) return -std::log(-x);
  const double f = x - std::floor(x);
  const double sin_pi_x = std::sin(pi * (f < 0.5 ? f : 1 - f));
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
    const double err = (std::fabs(x) > 0.5) ? -(std::erfc(std::fabs(y)) - (1 - std::fabs(x))) * (x < 0 ? -1 : 1)
                                             : std::erf(y) - x;
    y -= err / (1.12837916709551257390 * std::exp(-y * y));
  }
  return y;
}
inline float erfinv(float x) { return static_cast<float>(erfinv(static_cast<double>(x))); }
#endif

/// Digamma (psi): reflection below 0, recurrence up to 10, asymptotic series.
/// PyTorch's conventions: digamma(+-0) = -+inf, nan at the negative integers.
TENSORLIB_HOST_DEVICE inline double digamma(double x) {
  constexpr double pi = 3.14159265358979323846;
  if (x == 0) return std::copysign(std::numeric_limits<double>::infinity(), -x);
  if (x < 0) {
    if (x == std::trunc(x)) return std::numeric_limits<double>::quiet_NaN();
    // tan has period pi: reduce x to [-1/2, 1/2] exactly before multiplying by pi.
    return digamma(1 - x) - pi / std::tan(pi * (x - std::rint(x)));
  }
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
TENSORLIB_HOST_DEVICE inline float digamma(float x) { return static_cast<float>(digamma(static_cast<double>(x))); }

}  // namespace tensorlib::math
