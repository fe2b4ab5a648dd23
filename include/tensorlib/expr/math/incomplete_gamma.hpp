#pragma once
/// \file
/// The regularized incomplete gamma functions P(a, x) = gamma(a, x) / Gamma(a)
/// and Q(a, x) = 1 - P(a, x) (torch.igamma / special.gammainc, torch.igammac
/// / special.gammaincc), in double (floats round once), on host and device.
///
/// Note [incomplete gamma]
/// For a > 0 and 0 < x < inf, with the prefactor f = x^a e^-x / Gamma(a + 1):
///   - x <= 1 or x <= a: P by its series f sum_n x^n / ((a+1) ... (a+n)), all
///     terms positive (DLMF 8.7.1), and Q = 1 - P, except for a < 1/2 and
///     x <= 1, where P is near 1: there
///         Q = -expm1(a log x - lgamma(1 + a)) - a (x^a / Gamma(a + 1)) sum_{n>=1} (-x)^n / (n! (a + n))
///     (the power series of the lower function, DLMF 8.7.1, with its first
///     term split off), which keeps Q's relative accuracy;
///   - otherwise Q by the continued fraction of Gamma(a, x) (DLMF 8.9.2),
///     evaluated by the modified Lentz method, and P = 1 - Q (Q < 1/2 here).
/// The prefactor's exponent a log x - x - lgamma(a) cancels heavily for large
/// a (7000 - 7000 at a = x = 1000), so from a = 20 on it is formed as
///     -a (eta - log(1 + eta)) + log(a / 2 pi) / 2 - S(a),  eta = (x - a) / a,
/// S(a) the Stirling series of lgamma and eta - log(1 + eta) summed as a
/// series for |eta| < 1/2 (and with log(x / a) for log(1 + eta) elsewhere).
/// What remains is the rounding of an exponential of size |log P|: results
/// are within about (1e-14 + 6e-16 |log P|) relative, up to a = 1e6. The
/// series takes about 8.5 sqrt(a) steps where x is near a, and their
/// rounding adds up (4e-13 at a = 1e9); it stops at 10^6 steps, so past
/// a = 1.4e10, for x a little below a, the result is NaN, not a value the sum
/// has not reached (PyTorch switches to Temme's uniform expansion for large
/// a; we have none). The fraction (x > a) converges in few steps even there.
/// Special values are PyTorch's: NaN for a < 0, x < 0, a = x = 0 and
/// a = x = inf; P(0, x > 0) = 1, P(a, 0) = 0, P(inf, x) = 0, P(a, inf) = 1.

#include <cmath>
#include <limits>

#include "tensorlib/core/config.hpp"
#include "tensorlib/expr/math/special.hpp"

namespace tensorlib::math {
namespace detail {

inline constexpr double kIncompleteGammaEps = 1.1102230246251565e-16;
inline constexpr int kIncompleteGammaSteps = 1000000;

/// lgamma(1 + a) for |a| < 1/2, without rounding 1 + a (lgamma(2 + a) - log1p(a)).
TENSORLIB_HOST_DEVICE inline double lgamma1p(double a) { return lgamma_around_2(a) - std::log1p(a); }

/// log(x^a e^-x / Gamma(a)) (Note [incomplete gamma]).
TENSORLIB_HOST_DEVICE inline double log_gamma_prefactor(double a, double x) {
  if (a < 20) return a * std::log(x) - x - lgamma_positive(a);
  constexpr double inv_two_pi = 0.15915494309189533577;
  const double eta = (x - a) / a;
  double eta_minus_log1p;  // eta - log(1 + eta) >= 0
  if (std::fabs(eta) < 0.5) {
    // sum_{k>=2} (-1)^k eta^k / k
    double power = eta * eta, sum = 0;
    for (int k = 2; k < 80; ++k) {
      const double term = power / k;
      sum += k % 2 ? -term : term;
      if (std::fabs(term) <= kIncompleteGammaEps * 1e-2 * std::fabs(sum)) break;
      power *= eta;
    }
    eta_minus_log1p = sum;
  } else {
    eta_minus_log1p = eta - std::log(x / a);  // 1 + eta would round x / a away when x << a
  }
  return -a * eta_minus_log1p + 0.5 * std::log(a * inv_two_pi) - stirling_series(a);
}

/// P(a, x) by its series, for x <= 1 or x <= a; NaN if it has not converged.
TENSORLIB_HOST_DEVICE inline double gammainc_series(double a, double x) {
  double term = 1, sum = 1;
  int n = 1;
  for (; n < kIncompleteGammaSteps; ++n) {
    term *= x / (a + n);
    sum += term;
    if (term <= kIncompleteGammaEps * sum) break;
  }
  if (n == kIncompleteGammaSteps) return std::numeric_limits<double>::quiet_NaN();
  // x^a e^-x / Gamma(a + 1); for small a without lgamma(a), which cancels
  // against a log x (690.8 at a = 1e-300).
  if (a < 0.5) return std::exp(a * std::log(x) - x - lgamma1p(a)) * sum;
  return std::exp(log_gamma_prefactor(a, x)) / a * sum;
}

/// Q(a, x) for a < 1/2, x <= 1, where P is near 1 (Note [incomplete gamma]).
TENSORLIB_HOST_DEVICE inline double gammaincc_small(double a, double x) {
  const double log_power = a * std::log(x) - lgamma1p(a);  // log(x^a / Gamma(1 + a))
  double term = 1, sum = 0;                                // term = (-x)^n / n!
  for (int n = 1; n < 60; ++n) {
    term *= -x / n;
    const double add = term / (a + n);
    sum += add;
    if (std::fabs(add) <= kIncompleteGammaEps * 1e-2) break;
  }
  return -std::expm1(log_power) - a * std::exp(log_power) * sum;
}

/// Q(a, x) by the continued fraction, for x > 1 and x > a; NaN if it has not
/// converged.
TENSORLIB_HOST_DEVICE inline double gammaincc_fraction(double a, double x) {
  // Gamma(a, x) = e^-x x^a / (x + 1 - a - 1 (1 - a) / (x + 3 - a - 2 (2 - a) / (x + 5 - a - ...)))
  constexpr double tiny = 1e-300;
  double b = x + 1 - a;
  double c = 1 / tiny, d = 1 / b, fraction = d;
  int n = 1;
  for (; n < kIncompleteGammaSteps; ++n) {
    const double an = -n * (n - a);
    b += 2;
    d = an * d + b;
    if (std::fabs(d) < tiny) d = tiny;
    c = b + an / c;
    if (std::fabs(c) < tiny) c = tiny;
    d = 1 / d;
    const double step = d * c;
    fraction *= step;
    if (std::fabs(step - 1) <= kIncompleteGammaEps) break;
  }
  if (n == kIncompleteGammaSteps) return std::numeric_limits<double>::quiet_NaN();
  return std::exp(log_gamma_prefactor(a, x)) * fraction;
}

/// P (lower = true) or Q at any a, x: PyTorch's special values (Note
/// [incomplete gamma]) or the regular computation.
TENSORLIB_HOST_DEVICE inline double incomplete_gamma(bool lower, double a, double x) {
  constexpr double inf = std::numeric_limits<double>::infinity();
  if (a != a || x != x || a < 0 || x < 0 || (a == 0 && x == 0) || (a == inf && x == inf))
    return std::numeric_limits<double>::quiet_NaN();
  if (a == 0 || x == inf) return lower ? 1 : 0;
  if (x == 0 || a == inf) return lower ? 0 : 1;
  if (x <= 1 || x <= a) {
    if (!lower && a < 0.5 && x <= 1) return gammaincc_small(a, x);
    const double p = gammainc_series(a, x);
    return lower ? p : 1 - p;
  }
  const double q = gammaincc_fraction(a, x);
  return lower ? 1 - q : q;
}

}  // namespace detail

/// P(a, x), the regularized lower incomplete gamma function.
TENSORLIB_HOST_DEVICE inline double gammainc(double a, double x) { return detail::incomplete_gamma(true, a, x); }
TENSORLIB_HOST_DEVICE inline float gammainc(float a, float x) {
  return static_cast<float>(gammainc(static_cast<double>(a), static_cast<double>(x)));
}

/// Q(a, x) = 1 - P(a, x), the regularized upper incomplete gamma function.
TENSORLIB_HOST_DEVICE inline double gammaincc(double a, double x) { return detail::incomplete_gamma(false, a, x); }
TENSORLIB_HOST_DEVICE inline float gammaincc(float a, float x) {
  return static_cast<float>(gammaincc(static_cast<double>(a), static_cast<double>(x)));
}

}  // namespace tensorlib::math
