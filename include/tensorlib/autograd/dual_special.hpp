#pragma once
/// \file
/// The special functions on `Dual<T, K>` (autograd/dual.hpp, which includes
/// this header at its end): the value from the math kernel, the derivative
/// from a closed form (Note [dual derivatives at special points]). Each
/// derivative is written with functions that have dual forms themselves, so
/// nested duals (second order) differentiate again.

#include <cstdint>
#include <limits>
#include <numbers>

#include "tensorlib/autograd/dual.hpp"
#include "tensorlib/core/config.hpp"
#include "tensorlib/expr/math/airy.hpp"
#include "tensorlib/expr/math/bessel.hpp"
#include "tensorlib/expr/math/bessel_jy.hpp"
#include "tensorlib/expr/math/bessel_k.hpp"
#include "tensorlib/expr/math/exp_log.hpp"
#include "tensorlib/expr/math/normal_cdf.hpp"
#include "tensorlib/expr/math/primitives.hpp"
#include "tensorlib/expr/math/special.hpp"

namespace tensorlib::autograd {

/// Error function; derivative 2/sqrt(pi) e^(-x^2).
template <class T, int K>
TENSORLIB_HOST_DEVICE Dual<T, K> erf(const Dual<T, K>& x) {
  using math::erf;
  using math::exp;
  using S = detail::scalar_t<T>;
  constexpr S two_over_sqrt_pi = S(2) * std::numbers::inv_sqrtpi_v<S>;
  return x.chain(erf(x.value), T(two_over_sqrt_pi) * exp(-x.value * x.value));
}
/// Complementary error function.
template <class T, int K>
TENSORLIB_HOST_DEVICE Dual<T, K> erfc(const Dual<T, K>& x) {
  using math::erfc;
  using math::exp;
  using S = detail::scalar_t<T>;
  constexpr S two_over_sqrt_pi = S(2) * std::numbers::inv_sqrtpi_v<S>;
  return x.chain(erfc(x.value), T(-two_over_sqrt_pi) * exp(-x.value * x.value));
}
/// Inverse error function; derivative sqrt(pi)/2 e^(y^2).
template <class T, int K>
TENSORLIB_HOST_DEVICE Dual<T, K> erfinv(const Dual<T, K>& x) {
  using math::erfinv;
  using math::exp;
  using S = detail::scalar_t<T>;
  constexpr S sqrt_pi_over_2 = S(0.5) / std::numbers::inv_sqrtpi_v<S>;
  const T y = erfinv(x.value);
  return x.chain(y, T(sqrt_pi_over_2) * exp(y * y));
}
/// log |Gamma(x)|; derivative digamma.
template <class T, int K>
TENSORLIB_HOST_DEVICE Dual<T, K> lgamma(const Dual<T, K>& x) {
  using math::digamma;
  using math::lgamma;
  return x.chain(lgamma(x.value), digamma(x.value));
}
/// Digamma; derivative trigamma, polygamma(1, x).
template <class T, int K>
TENSORLIB_HOST_DEVICE Dual<T, K> digamma(const Dual<T, K>& x) {
  using math::digamma;
  using math::polygamma;
  return x.chain(digamma(x.value), polygamma(1, x.value));
}
/// The n-th derivative of digamma; derivative polygamma(n + 1, x), so it
/// differentiates again on nested duals. (Past n = 170 both are infinite or
/// NaN; the largest n keeps its own order rather than overflow.)
template <class T, int K>
TENSORLIB_HOST_DEVICE Dual<T, K> polygamma(int64_t n, const Dual<T, K>& x) {
  using math::polygamma;
  const int64_t next = n < std::numeric_limits<int64_t>::max() ? n + 1 : n;
  return x.chain(polygamma(n, x.value), polygamma(next, x.value));
}
/// Scaled complementary error function; derivative 2x erfcx(x) - 2/sqrt(pi).
template <class T, int K>
TENSORLIB_HOST_DEVICE Dual<T, K> erfcx(const Dual<T, K>& x) {
  using math::erfcx;
  using S = detail::scalar_t<T>;
  constexpr S two_over_sqrt_pi = S(2) * std::numbers::inv_sqrtpi_v<S>;
  const T y = erfcx(x.value);
  return x.chain(y, T(2) * x.value * y - T(two_over_sqrt_pi));
}

// Note [modified Bessel functions] (expr/math/bessel.hpp); the derivatives
// are PyTorch's (derivatives.yaml): I0' = I1, I1' = I0 - I1/x (1/2 at 0),
// i0e' = i1e - sgn(x) i0e, i1e' = i0e - i1e (sgn(x) + 1/x) (1/2 at 0).

/// I0; derivative I1.
template <class T, int K>
TENSORLIB_HOST_DEVICE Dual<T, K> i0(const Dual<T, K>& x) {
  using math::i0;
  using math::i1;
  return x.chain(i0(x.value), i1(x.value));
}
/// e^-|x| I0(x); derivative i1e(x) - sgn(x) i0e(x).
template <class T, int K>
TENSORLIB_HOST_DEVICE Dual<T, K> i0e(const Dual<T, K>& x) {
  using math::i0e;
  using math::i1e;
  const T y = i0e(x.value);
  return x.chain(y, i1e(x.value) - detail::sign_of(x.value) * y);
}
/// I1; derivative I0(x) - I1(x)/x, 1/2 at 0.
template <class T, int K>
TENSORLIB_HOST_DEVICE Dual<T, K> i1(const Dual<T, K>& x) {
  using math::i0;
  using math::i1;
  using math::select;
  const T y = i1(x.value);
  const auto at_zero = x.value == T(0);
  const T safe_x = select(at_zero, T(1), x.value);
  return x.chain(y, select(at_zero, T(0.5), i0(x.value) - y / safe_x));
}
/// e^-|x| I1(x); derivative i0e(x) - i1e(x) (sgn(x) + 1/x), 1/2 at 0.
template <class T, int K>
TENSORLIB_HOST_DEVICE Dual<T, K> i1e(const Dual<T, K>& x) {
  using math::i0e;
  using math::i1e;
  using math::select;
  const T y = i1e(x.value);
  const auto at_zero = x.value == T(0);
  const T safe_x = select(at_zero, T(1), x.value);
  return x.chain(y, select(at_zero, T(0.5), i0e(x.value) - y * (detail::sign_of(x.value) + T(1) / safe_x)));
}

// The Bessel functions of torch.special (expr/math/bessel_jy.hpp,
// bessel_k.hpp) through their recurrences: J0' = -J1, J1' = J0 - J1/x,
// Y0' = -Y1, Y1' = Y0 - Y1/x, K0' = -K1, K1' = -K0 - K1/x, j0' = -j1,
// j1' = j0 - 2 j1/x; J1'(0) = 1/2 and j1'(0) = 1/3. PyTorch 1.13 records no
// gradient for these (its outputs do not require grad).

/// J0; derivative -J1.
template <class T, int K>
TENSORLIB_HOST_DEVICE Dual<T, K> bessel_j0(const Dual<T, K>& x) {
  using math::bessel_j0;
  using math::bessel_j1;
  return x.chain(bessel_j0(x.value), -bessel_j1(x.value));
}
/// J1; derivative J0(x) - J1(x)/x, 1/2 at 0.
template <class T, int K>
TENSORLIB_HOST_DEVICE Dual<T, K> bessel_j1(const Dual<T, K>& x) {
  using math::bessel_j0;
  using math::bessel_j1;
  using math::select;
  const T y = bessel_j1(x.value);
  const auto at_zero = x.value == T(0);
  const T safe_x = select(at_zero, T(1), x.value);
  return x.chain(y, select(at_zero, T(0.5), bessel_j0(x.value) - y / safe_x));
}
/// Y0; derivative -Y1.
template <class T, int K>
TENSORLIB_HOST_DEVICE Dual<T, K> bessel_y0(const Dual<T, K>& x) {
  using math::bessel_y0;
  using math::bessel_y1;
  return x.chain(bessel_y0(x.value), -bessel_y1(x.value));
}
/// Y1; derivative Y0(x) - Y1(x)/x, +inf at 0 (the limit; the formula gives
/// -inf + inf there).
template <class T, int K>
TENSORLIB_HOST_DEVICE Dual<T, K> bessel_y1(const Dual<T, K>& x) {
  using math::bessel_y0;
  using math::bessel_y1;
  using math::select;
  const T y = bessel_y1(x.value);
  return x.chain(y,
                 select(x.value == T(0), T(std::numeric_limits<double>::infinity()), bessel_y0(x.value) - y / x.value));
}
/// K0; derivative -K1.
template <class T, int K>
TENSORLIB_HOST_DEVICE Dual<T, K> modified_bessel_k0(const Dual<T, K>& x) {
  using math::modified_bessel_k0;
  using math::modified_bessel_k1;
  return x.chain(modified_bessel_k0(x.value), -modified_bessel_k1(x.value));
}
/// K1; derivative -K0(x) - K1(x)/x.
template <class T, int K>
TENSORLIB_HOST_DEVICE Dual<T, K> modified_bessel_k1(const Dual<T, K>& x) {
  using math::modified_bessel_k0;
  using math::modified_bessel_k1;
  const T y = modified_bessel_k1(x.value);
  return x.chain(y, -modified_bessel_k0(x.value) - y / x.value);
}
/// e^x K0(x); derivative e^x K0(x) - e^x K1(x), -inf at 0 (the limit; inf - inf there).
template <class T, int K>
TENSORLIB_HOST_DEVICE Dual<T, K> scaled_modified_bessel_k0(const Dual<T, K>& x) {
  using math::scaled_modified_bessel_k0;
  using math::scaled_modified_bessel_k1;
  using math::select;
  const T y = scaled_modified_bessel_k0(x.value);
  return x.chain(
      y, select(x.value == T(0), T(-std::numeric_limits<double>::infinity()), y - scaled_modified_bessel_k1(x.value)));
}
/// e^x K1(x); derivative e^x K1(x) (1 - 1/x) - e^x K0(x), -inf at 0.
template <class T, int K>
TENSORLIB_HOST_DEVICE Dual<T, K> scaled_modified_bessel_k1(const Dual<T, K>& x) {
  using math::scaled_modified_bessel_k0;
  using math::scaled_modified_bessel_k1;
  using math::select;
  const T y = scaled_modified_bessel_k1(x.value);
  return x.chain(y, select(x.value == T(0), T(-std::numeric_limits<double>::infinity()),
                           y - y / x.value - scaled_modified_bessel_k0(x.value)));
}
/// sin(x)/x; derivative -j1(x).
template <class T, int K>
TENSORLIB_HOST_DEVICE Dual<T, K> spherical_bessel_j0(const Dual<T, K>& x) {
  using math::spherical_bessel_j0;
  using math::spherical_bessel_j1;
  return x.chain(spherical_bessel_j0(x.value), -spherical_bessel_j1(x.value));
}
/// The spherical j1 (j0's derivative, negated); derivative j0(x) - 2 j1(x)/x, 1/3 at 0.
template <class T, int K>
TENSORLIB_HOST_DEVICE Dual<T, K> spherical_bessel_j1(const Dual<T, K>& x) {
  using math::select;
  using math::spherical_bessel_j0;
  using math::spherical_bessel_j1;
  const T y = spherical_bessel_j1(x.value);
  const auto at_zero = x.value == T(0);
  const T safe_x = select(at_zero, T(1), x.value);
  return x.chain(y, select(at_zero, T(1) / T(3), spherical_bessel_j0(x.value) - T(2) * y / safe_x));
}

/// Ai(x); derivative Ai'(x).
template <class T, int K>
TENSORLIB_HOST_DEVICE Dual<T, K> airy_ai(const Dual<T, K>& x) {
  using math::airy_ai;
  using math::airy_ai_prime;
  return x.chain(airy_ai(x.value), airy_ai_prime(x.value));
}
/// Ai'(x) (Ai's derivative); derivative x Ai(x), from Airy's equation.
template <class T, int K>
TENSORLIB_HOST_DEVICE Dual<T, K> airy_ai_prime(const Dual<T, K>& x) {
  using math::airy_ai;
  using math::airy_ai_prime;
  return x.chain(airy_ai_prime(x.value), x.value * airy_ai(x.value));
}

/// nextafter on duals: the value only; PyTorch implements no derivative in
/// either operand (NaN here, refused by the backward: Note [derivatives
/// PyTorch does not implement] in autograd/fused.hpp).
template <class T, int K>
TENSORLIB_HOST_DEVICE Dual<T, K> nextafter(const Dual<T, K>& a, const Dual<T, K>& b) {
  using math::nextafter;
  const T nan = T(std::numeric_limits<double>::quiet_NaN());
  return a.chain2(b, nextafter(a.value, b.value), nan, nan);
}

// zeta on duals, for fn::Zeta's partial -x zeta(x + 1, q) on nested duals
// (second order). PyTorch implements no d/dx: NaN here, refused by the
// backward (Note [derivatives PyTorch does not implement] in
// autograd/fused.hpp).

/// Hurwitz zeta(x, q); d/dq = -x zeta(x + 1, q).
template <class T, int K>
TENSORLIB_HOST_DEVICE Dual<T, K> zeta(const Dual<T, K>& x, const Dual<T, K>& q) {
  using math::zeta;
  return x.chain2(q, zeta(x.value, q.value), T(std::numeric_limits<double>::quiet_NaN()),
                  -x.value * zeta(x.value + T(1), q.value));
}

/// log Phi(x); derivative phi(x) / Phi(x) = e^(-x^2/2 - log Phi(x)) / sqrt(2 pi).
template <class T, int K>
TENSORLIB_HOST_DEVICE Dual<T, K> log_ndtr(const Dual<T, K>& x) {
  using math::exp;
  using math::log_ndtr;
  using S = detail::scalar_t<T>;
  constexpr S inv_sqrt_2pi = std::numbers::inv_sqrtpi_v<S> / std::numbers::sqrt2_v<S>;
  const T y = log_ndtr(x.value);
  return x.chain(y, T(inv_sqrt_2pi) * exp(-(x.value * x.value) / T(2) - y));
}
/// Phi^-1(p); derivative sqrt(2 pi) e^(y^2/2).
template <class T, int K>
TENSORLIB_HOST_DEVICE Dual<T, K> ndtri(const Dual<T, K>& x) {
  using math::exp;
  using math::ndtri;
  using S = detail::scalar_t<T>;
  constexpr S sqrt_2pi = std::numbers::sqrt2_v<S> / std::numbers::inv_sqrtpi_v<S>;
  const T y = ndtri(x.value);
  return x.chain(y, T(sqrt_2pi) * exp(y * y / T(2)));
}

}  // namespace tensorlib::autograd
