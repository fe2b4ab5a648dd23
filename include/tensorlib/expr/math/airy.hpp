#pragma once
/// \file
/// The Airy function Ai (torch.special.airy_ai) and its derivative Ai' (for
/// Ai's gradient; Ai'' = x Ai), in double (floats round the double result
/// once), on host and device.
///
/// Note [Airy function]
/// With z = |x| and zeta = (2/3) z^(3/2), four regions:
///   - -2 <= x <= 1/2: the Maclaurin series (Abramowitz & Stegun 10.4.2)
///         Ai = c1 f - c2 g,  Ai' = c1 f' - c2 g',  c1 = Ai(0), c2 = -Ai'(0),
///         f = sum_k t_k, t_k = t_(k-1) x^3 / ((3k-1) 3k),    t_0 = 1,
///         g = sum_k u_k, u_k = u_(k-1) x^3 / (3k (3k+1)),    u_0 = x,
///     and f', g' term by term. Below -2 the terms grow like e^zeta before
///     they fall; above 1/2 the two halves cancel (a factor 1.6 at 1/2, 3 at
///     1, 35 at 2: 2.1e-15 relative near 0.94 where 1.0e-15 is the K form's);
///   - x > 1/2: Ai = (1/pi) sqrt(x/3) K_(1/3)(zeta) and
///     Ai' = -(x / (pi sqrt 3)) K_(2/3)(zeta) (A&S 10.4.14, 10.4.16), e^zeta K_nu
///     from the trapezoidal rule or the asymptotic series of Note [modified
///     Bessel functions K] (expr/math/bessel_k.hpp), which hold for any real
///     order (zeta > 0.23 here); e^-zeta is subnormal past x = 104.1 and 0
///     past 107.7, and Ai with it;
///   - -9.65 < x < -2 (zeta < 20): Ai(-z) = (sqrt z / 3) (J_(1/3) + J_(-1/3))
///     and Ai'(-z) = (z/3) (J_(2/3) - J_(-2/3)) (A&S 10.4.15, 10.4.17) at zeta.
///     Miller's backward recurrence J_(nu+k-1) = (2 (nu+k) / zeta) J_(nu+k) -
///     J_(nu+k+1) over the orders nu + k, for nu = 1/3 and nu = -1/3, from
///     k = 1.4 zeta + 30 as for J0 (Note [Bessel functions J and Y]), is
///     normalized by (zeta/2)^nu = sum_k (nu + 2k) Gamma(nu + k) / k! J_(nu+2k)
///     (DLMF 10.23.15), whose weights all have the sign of Gamma(nu + 1) > 0.
///     The nu = -1/3 sweep ends on J_(2/3) beside J_(-1/3); one more step
///     of the nu = 1/3 sweep gives J_(-2/3);
///   - x <= -9.65 (zeta >= 20): the asymptotic expansions (DLMF 9.7.9, 9.7.10)
///         Ai(-z)  = z^(-1/4) / sqrt(pi) (cos(zeta - pi/4) P + sin(zeta - pi/4) Q),
///         Ai'(-z) = z^(1/4) / sqrt(pi) (sin(zeta - pi/4) R - cos(zeta - pi/4) S),
///     P, Q the even and odd terms of u_k / zeta^k with signs (-1)^floor(k/2),
///     u_k = u_(k-1) (6k-5)(6k-3)(6k-1) / ((2k-1) 216 k), R and S those of
///     v_k = -(6k+1)/(6k-1) u_k, summed up to the smallest term (k near
///     2 zeta, about e^-2 zeta: 4e-18 at 20). cos(zeta - pi/4) needs zeta to
///     more than double precision: zeta = hi + lo from the exact residuals of
///     sqrt z and z sqrt z (fma), which also corrects e^-zeta for x > 1/2.
/// Against mpmath at 11000 points: within 1.0e-15 relative for x > 0, and
/// for x < 0 within 3.6e-15 of the envelope z^(-1/4) / sqrt(pi) (Ai) or
/// z^(1/4) / sqrt(pi) (Ai'), capped at 1 / sqrt(pi), up to |x| = 3e10,
/// 3e-13 at 1e13 (hi + lo holds
/// zeta to about 2^-106 of itself); near a zero the relative error grows as
/// for every absolute-error method.
/// Past |x| = (DBL_MAX / 2)^(2/3) = 2.0e205, 2 z sqrt z overflows: there Ai
/// is 0 (for x < 0 the limit of its envelope, whose phase is long lost) and
/// Ai' is 0 for x > 0 and NaN for x < 0, whose envelope grows; Ai(+-inf) = 0
/// (PyTorch 1.13: NaN), Ai'(+inf) = 0, Ai'(-inf) = NaN.

#include <cmath>
#include <limits>

#include "tensorlib/core/config.hpp"
#include "tensorlib/expr/math/bessel_k.hpp"

namespace tensorlib::math {
namespace detail {

/// Ai and Ai' at one x.
struct AiryValues {
  double ai, aip;
};

/// Note [Airy function], -2 <= x <= 1/2.
TENSORLIB_HOST_DEVICE inline AiryValues airy_series(double x) {
  constexpr double c1 = 0.35502805388781723926, c2 = 0.25881940379280679841;
  const double x3 = x * x * x;
  double f = 1, g = x, fp = 0, gp = 1;
  double t = 1, u = x, tp = x * x / 2, up = 1;  // the k-th terms of f, g, f', g'
  fp = tp;
  for (int k = 1; k < 40; ++k) {
    const double k3 = 3.0 * k;
    t *= x3 / ((k3 - 1) * k3);
    u *= x3 / (k3 * (k3 + 1));
    up *= x3 / (k3 * (k3 - 2));
    f += t;
    g += u;
    gp += up;
    if (k > 1) {
      tp *= x3 / ((k3 - 3) * (k3 - 1));
      fp += tp;
    }
    if (std::fabs(t) + std::fabs(u) + std::fabs(tp) + std::fabs(up) < 1e-18) break;
  }
  return {c1 * f - c2 * g, c1 * fp - c2 * gp};
}

/// J_nu(zeta) and J_(nu+1)(zeta) for 0 < zeta < 20 and nu = +-1/3 (Note
/// [Airy function]); `gamma_nu` is Gamma(nu).
TENSORLIB_HOST_DEVICE inline void airy_bessel_j(double nu, double gamma_nu, double zeta, double& j_nu, double& j_next) {
  const int top = 2 * static_cast<int>((1.4 * zeta + 30) / 2);  // even
  double weight = 1;                                            // (nu)_m / m! for m = top / 2, then downwards
  for (int m = 1; m <= top / 2; ++m) weight *= (nu + m - 1) / m;
  double above = 0, here = 1;  // J_(nu+k+1), J_(nu+k), unnormalized
  double norm = (nu + top) * weight;
  for (int k = top; k > 0; --k) {
    const double below = 2 * (nu + k) / zeta * here - above;
    above = here;
    here = below;
    if ((k - 1) % 2 == 0) {
      const int m = (k - 1) / 2;
      weight *= (m + 1) / (nu + m);
      norm += (nu + 2 * m) * weight * here;
    }
  }
  const double scale = std::pow(zeta / 2, nu) / (gamma_nu * norm);
  j_nu = here * scale;
  j_next = above * scale;
}

/// zeta = (2/3) z^(3/2) as an unevaluated sum hi + lo (Note [Airy function]:
/// the phase and the decay need zeta to more than double precision).
TENSORLIB_HOST_DEVICE inline void airy_zeta(double z, double& hi, double& lo) {
  const double root = std::sqrt(z);
  const double root_lo = -std::fma(root, root, -z) / (2 * root);  // sqrt z = root + root_lo
  const double product = z * root;
  const double product_lo = std::fma(z, root, -product) + z * root_lo;  // z sqrt z = product + product_lo
  hi = 2 * product / 3;
  lo = (std::fma(-3.0, hi, 2 * product) + 2 * product_lo) / 3;
}

/// Note [Airy function], x <= -9.65: Ai(-z) and Ai'(-z), zeta = hi + lo.
TENSORLIB_HOST_DEVICE inline AiryValues airy_oscillating_asymptotic(double z, double zeta, double zeta_lo) {
  double p = 1, q = 0, r = 1, s = 0, u = 1;
  for (int k = 1; k < 2 * zeta; ++k) {  // the terms shrink until k = 2 zeta
    u *= (6.0 * k - 5) * (6.0 * k - 3) * (6.0 * k - 1) / ((2.0 * k - 1) * 216 * k * zeta);
    const double v = -(6.0 * k + 1) / (6.0 * k - 1) * u;
    const double sign = (k / 2) % 2 ? -1.0 : 1.0;
    if (k % 2) {
      q += sign * u;
      s += sign * v;
    } else {
      p += sign * u;
      r += sign * v;
    }
    if (std::fabs(v) <= 1e-19) break;
  }
  constexpr double inv_sqrt2 = 0.70710678118654752440, inv_sqrt_pi = 0.56418958354775628695;
  // cos and sin of zeta + zeta_lo; zeta_lo exceeds 1 once zeta > 2^53.
  const double c0 = std::cos(zeta), s0 = std::sin(zeta), c_lo = std::cos(zeta_lo), s_lo = std::sin(zeta_lo);
  const double c = c0 * c_lo - s0 * s_lo, sn = s0 * c_lo + c0 * s_lo;
  const double cos_chi = (c + sn) * inv_sqrt2, sin_chi = (sn - c) * inv_sqrt2;  // chi = zeta - pi/4
  const double quarter = std::sqrt(std::sqrt(z));
  return {inv_sqrt_pi / quarter * (cos_chi * p + sin_chi * q), inv_sqrt_pi * quarter * (sin_chi * r - cos_chi * s)};
}

/// Ai and Ai' at any x (Note [Airy function]).
TENSORLIB_HOST_DEVICE inline AiryValues airy(double x) {
  constexpr double inf = std::numeric_limits<double>::infinity();
  if (x != x) return {x, x};
  if (x == inf) return {0, 0};
  if (x == -inf) return {0, std::numeric_limits<double>::quiet_NaN()};
  if (x >= -2 && x <= 0.5) return airy_series(x);
  const double z = std::fabs(x);
  double zeta, zeta_lo;
  airy_zeta(z, zeta, zeta_lo);
  if (zeta == inf) return {0, x > 0 ? 0 : std::numeric_limits<double>::quiet_NaN()};
  if (x > 0.5) {
    // e^-zeta in two halves, so that Ai underflows only as its own value does
    // (e^-zeta alone is subnormal past x = 104.1), and e^-zeta_lo = 1 - zeta_lo.
    constexpr double inv_pi = 0.31830988618379067154, inv_pi_sqrt3 = 0.18377629847393068317;
    const double half_decay = std::exp(-zeta / 2), correction = 1 - zeta_lo;
    return {inv_pi * std::sqrt(x / 3) * bessel_k_scaled(1.0 / 3, zeta) * correction * half_decay * half_decay,
            -inv_pi_sqrt3 * x * bessel_k_scaled(2.0 / 3, zeta) * correction * half_decay * half_decay};
  }
  if (zeta >= 20) return airy_oscillating_asymptotic(z, zeta, zeta_lo);
  constexpr double gamma_third = 2.6789385347077476337, gamma_minus_third = -4.0623538182792012508;
  double j_third, j_four_thirds, j_minus_third, j_two_thirds;
  airy_bessel_j(1.0 / 3, gamma_third, zeta, j_third, j_four_thirds);
  airy_bessel_j(-1.0 / 3, gamma_minus_third, zeta, j_minus_third, j_two_thirds);
  const double j_minus_two_thirds = 2.0 / 3 / zeta * j_third - j_four_thirds;  // J_(nu-1), nu = 1/3
  return {std::sqrt(z) / 3 * (j_third + j_minus_third), z / 3 * (j_two_thirds - j_minus_two_thirds)};
}

}  // namespace detail

/// Ai(x), the Airy function of the first kind: 0 at +-inf.
TENSORLIB_HOST_DEVICE inline double airy_ai(double x) { return detail::airy(x).ai; }
TENSORLIB_HOST_DEVICE inline float airy_ai(float x) { return static_cast<float>(airy_ai(static_cast<double>(x))); }

/// Ai'(x), its derivative: 0 at +inf, NaN at -inf (no limit).
TENSORLIB_HOST_DEVICE inline double airy_ai_prime(double x) { return detail::airy(x).aip; }
TENSORLIB_HOST_DEVICE inline float airy_ai_prime(float x) {
  return static_cast<float>(airy_ai_prime(static_cast<double>(x)));
}

}  // namespace tensorlib::math
