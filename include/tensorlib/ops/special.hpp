#pragma once
/// \file
/// `tl::special`: PyTorch's torch.special names for the functions the
/// library has (expit is sigmoid, gammaln is lgamma, psi is digamma, ...).
/// Each returns what the function it names returns: an unevaluated
/// expression for the pointwise ones, a tensor for the reductions.

#include <cstdint>
#include <optional>

#include "tensorlib/core/dim_list.hpp"
#include "tensorlib/core/expression.hpp"
#include "tensorlib/expr/composites.hpp"
#include "tensorlib/expr/functions.hpp"
#include "tensorlib/ops/reduce.hpp"
#include "tensorlib/ops/softmax.hpp"

namespace tensorlib::special {

/// The logistic sigmoid 1 / (1 + e^-x).
template <Expression E>
auto expit(const E& x) {
  return tensorlib::sigmoid(x);
}
/// log(x / (1 - x)), x clamped to [eps, 1 - eps] when eps is given.
template <Expression E>
auto logit(const E& x, std::optional<double> eps = std::nullopt) {
  return tensorlib::logit(x, eps);
}
template <Expression E>
auto erf(const E& x) {
  return tensorlib::erf(x);
}
template <Expression E>
auto erfc(const E& x) {
  return tensorlib::erfc(x);
}
template <Expression E>
auto erfinv(const E& x) {
  return tensorlib::erfinv(x);
}
template <Expression E>
auto exp2(const E& x) {
  return tensorlib::exp2(x);
}
template <Expression E>
auto expm1(const E& x) {
  return tensorlib::expm1(x);
}
template <Expression E>
auto log1p(const E& x) {
  return tensorlib::log1p(x);
}
/// log|Gamma(x)|.
template <Expression E>
auto gammaln(const E& x) {
  return tensorlib::lgamma(x);
}
template <Expression E>
auto digamma(const E& x) {
  return tensorlib::digamma(x);
}
/// Alias of digamma.
template <Expression E>
auto psi(const E& x) {
  return tensorlib::digamma(x);
}
template <Expression E>
auto polygamma(int64_t n, const E& x) {
  return tensorlib::polygamma(n, x);
}
/// Elementwise entropy -x log(x): 0 at 0, -inf for x < 0 (torch.special
/// only, as in PyTorch).
template <Expression E>
auto entr(const E& x) {
  return make_map(fn::Entr{}, x);
}
/// e^(x^2) erfc(x), finite where erfc(x) underflows (torch.special only).
template <Expression E>
auto erfcx(const E& x) {
  return make_map(fn::Erfcx{}, x);
}
template <Expression E>
auto i0(const E& x) {
  return tensorlib::i0(x);
}
/// e^-|x| I0(x), the exponentially scaled modified Bessel function of order 0.
template <Expression E>
auto i0e(const E& x) {
  return make_map(fn::I0e{}, x);
}
/// I1(x), the modified Bessel function of the first kind of order 1.
template <Expression E>
auto i1(const E& x) {
  return make_map(fn::I1{}, x);
}
/// e^-|x| I1(x).
template <Expression E>
auto i1e(const E& x) {
  return make_map(fn::I1e{}, x);
}
/// I0(x) (torch.special.modified_bessel_i0): `tl::i0`.
template <Expression E>
auto modified_bessel_i0(const E& x) {
  return tensorlib::i0(x);
}
/// I1(x) (torch.special.modified_bessel_i1): `special::i1`.
template <Expression E>
auto modified_bessel_i1(const E& x) {
  return make_map(fn::I1{}, x);
}
/// J0(x), the Bessel function of the first kind of order 0.
template <Expression E>
auto bessel_j0(const E& x) {
  return make_map(fn::BesselJ0{}, x);
}
/// J1(x), the Bessel function of the first kind of order 1.
template <Expression E>
auto bessel_j1(const E& x) {
  return make_map(fn::BesselJ1{}, x);
}
/// Y0(x), the Bessel function of the second kind of order 0 (NaN for x < 0).
template <Expression E>
auto bessel_y0(const E& x) {
  return make_map(fn::BesselY0{}, x);
}
/// Y1(x), the Bessel function of the second kind of order 1 (NaN for x < 0).
template <Expression E>
auto bessel_y1(const E& x) {
  return make_map(fn::BesselY1{}, x);
}
/// K0(x), the modified Bessel function of the second kind of order 0 (NaN for x < 0).
template <Expression E>
auto modified_bessel_k0(const E& x) {
  return make_map(fn::ModifiedBesselK0{}, x);
}
/// K1(x), the modified Bessel function of the second kind of order 1 (NaN for x < 0).
template <Expression E>
auto modified_bessel_k1(const E& x) {
  return make_map(fn::ModifiedBesselK1{}, x);
}
/// e^x K0(x), finite where K0 underflows.
template <Expression E>
auto scaled_modified_bessel_k0(const E& x) {
  return make_map(fn::ScaledModifiedBesselK0{}, x);
}
/// e^x K1(x), finite where K1 underflows.
template <Expression E>
auto scaled_modified_bessel_k1(const E& x) {
  return make_map(fn::ScaledModifiedBesselK1{}, x);
}
/// sin(x) / x, the spherical Bessel function of the first kind of order 0 (1 at 0).
template <Expression E>
auto spherical_bessel_j0(const E& x) {
  return make_map(fn::SphericalBesselJ0{}, x);
}
/// Ai(x), the Airy function of the first kind (0 at +-inf). Its gradient is
/// Ai'(x), which PyTorch 1.13 does not record.
template <Expression E>
auto airy_ai(const E& x) {
  return make_map(fn::AiryAi{}, x);
}
/// The Hurwitz zeta function sum_k (q + k)^-x (x > 1; inf at x = 1 and at the
/// poles q = 0, -1, ...; NaN for x < 1). Either operand may be a scalar. Its
/// gradient is PyTorch's, in q only: a backward that needs d/dx throws.
template <Operand A, Operand B>
requires(Expression<A> || Expression<B>) auto zeta(const A& x, const B& q) { return make_map(fn::Zeta{}, x, q); }
/// P(a, x): `tl::igamma`.
template <Expression A, Expression B>
auto gammainc(const A& a, const B& x) {
  return tensorlib::igamma(a, x);
}
/// Q(a, x) = 1 - P(a, x): `tl::igammac`.
template <Expression A, Expression B>
auto gammaincc(const A& a, const B& x) {
  return tensorlib::igammac(a, x);
}
// torch.special's orthogonal polynomials p_n(x) (Note [orthogonal
// polynomials] in expr/math/orthogonal_polynomials.hpp): n is truncated
// toward zero, a negative degree gives 0; either operand may be a scalar; no
// gradient (Note [polynomials without gradient] in expr/functors/polynomial.hpp).

/// Chebyshev polynomial of the first kind T_n(x).
template <Operand A, Operand B>
requires(Expression<A> || Expression<B>) auto chebyshev_polynomial_t(const A& x, const B& n) {
  return make_map(fn::OrthogonalPolynomial<math::Polynomial::chebyshev_t>{}, x, n);
}
/// Chebyshev polynomial of the second kind U_n(x).
template <Operand A, Operand B>
requires(Expression<A> || Expression<B>) auto chebyshev_polynomial_u(const A& x, const B& n) {
  return make_map(fn::OrthogonalPolynomial<math::Polynomial::chebyshev_u>{}, x, n);
}
/// Chebyshev polynomial of the third kind V_n(x).
template <Operand A, Operand B>
requires(Expression<A> || Expression<B>) auto chebyshev_polynomial_v(const A& x, const B& n) {
  return make_map(fn::OrthogonalPolynomial<math::Polynomial::chebyshev_v>{}, x, n);
}
/// Chebyshev polynomial of the fourth kind W_n(x).
template <Operand A, Operand B>
requires(Expression<A> || Expression<B>) auto chebyshev_polynomial_w(const A& x, const B& n) {
  return make_map(fn::OrthogonalPolynomial<math::Polynomial::chebyshev_w>{}, x, n);
}
/// Shifted Chebyshev polynomial T*_n(x) = T_n(2x - 1).
template <Operand A, Operand B>
requires(Expression<A> || Expression<B>) auto shifted_chebyshev_polynomial_t(const A& x, const B& n) {
  return make_map(fn::OrthogonalPolynomial<math::Polynomial::shifted_chebyshev_t>{}, x, n);
}
/// Shifted Chebyshev polynomial U*_n(x) = U_n(2x - 1).
template <Operand A, Operand B>
requires(Expression<A> || Expression<B>) auto shifted_chebyshev_polynomial_u(const A& x, const B& n) {
  return make_map(fn::OrthogonalPolynomial<math::Polynomial::shifted_chebyshev_u>{}, x, n);
}
/// Shifted Chebyshev polynomial V*_n(x) = V_n(2x - 1).
template <Operand A, Operand B>
requires(Expression<A> || Expression<B>) auto shifted_chebyshev_polynomial_v(const A& x, const B& n) {
  return make_map(fn::OrthogonalPolynomial<math::Polynomial::shifted_chebyshev_v>{}, x, n);
}
/// Shifted Chebyshev polynomial W*_n(x) = W_n(2x - 1).
template <Operand A, Operand B>
requires(Expression<A> || Expression<B>) auto shifted_chebyshev_polynomial_w(const A& x, const B& n) {
  return make_map(fn::OrthogonalPolynomial<math::Polynomial::shifted_chebyshev_w>{}, x, n);
}
/// Physicists' Hermite polynomial H_n(x).
template <Operand A, Operand B>
requires(Expression<A> || Expression<B>) auto hermite_polynomial_h(const A& x, const B& n) {
  return make_map(fn::OrthogonalPolynomial<math::Polynomial::hermite_h>{}, x, n);
}
/// Probabilists' Hermite polynomial He_n(x).
template <Operand A, Operand B>
requires(Expression<A> || Expression<B>) auto hermite_polynomial_he(const A& x, const B& n) {
  return make_map(fn::OrthogonalPolynomial<math::Polynomial::hermite_he>{}, x, n);
}
/// Laguerre polynomial L_n(x).
template <Operand A, Operand B>
requires(Expression<A> || Expression<B>) auto laguerre_polynomial_l(const A& x, const B& n) {
  return make_map(fn::OrthogonalPolynomial<math::Polynomial::laguerre_l>{}, x, n);
}
/// Legendre polynomial P_n(x).
template <Operand A, Operand B>
requires(Expression<A> || Expression<B>) auto legendre_polynomial_p(const A& x, const B& n) {
  return make_map(fn::OrthogonalPolynomial<math::Polynomial::legendre_p>{}, x, n);
}

/// log of the standard normal CDF, finite far into the lower tail.
template <Expression E>
auto log_ndtr(const E& x) {
  return make_map(fn::LogNdtr{}, x);
}
/// The standard normal quantile: ndtr(ndtri(p)) = p on [0, 1], NaN outside.
template <Expression E>
auto ndtri(const E& x) {
  return make_map(fn::Ndtri{}, x);
}
template <Expression E>
auto sinc(const E& x) {
  return tensorlib::sinc(x);
}
template <Expression E>
auto round(const E& x) {
  return tensorlib::round(x);
}
template <Expression E>
auto ndtr(const E& x) {
  return tensorlib::ndtr(x);
}
template <Expression A, Expression B>
auto xlogy(const A& x, const B& y) {
  return tensorlib::xlogy(x, y);
}
template <Expression A, Expression B>
auto xlog1py(const A& x, const B& y) {
  return tensorlib::xlog1py(x, y);
}
template <Expression E>
auto logsumexp(const E& x, DimList dims, bool keepdim = false) {
  return tensorlib::logsumexp(x, dims, keepdim);
}
template <Expression E>
auto softmax(const E& x, int64_t dim) {
  return tensorlib::softmax(x, dim);
}
template <Expression E>
auto log_softmax(const E& x, int64_t dim) {
  return tensorlib::log_softmax(x, dim);
}

}  // namespace tensorlib::special
