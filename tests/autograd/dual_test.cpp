// Dual numbers on the pointwise functor catalogue: every differentiable
// functor's tangent against central finite differences (double), PyTorch's
// derivative at non-differentiable points, and SIMD packets of duals against
// scalar duals lane by lane.

#include <doctest/doctest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <numbers>
#include <string>
#include <type_traits>
#include <vector>

#include "tensorlib/tensorlib.hpp"

namespace {

using D1 = tl::Dual<double, 1>;
using D2 = tl::Dual<double, 2>;
using D3 = tl::Dual<double, 3>;

// Central difference with a step scaled to x; its error is O(h^2 f''').
double central(const std::function<double(double)>& f, double x) {
  const double h = 1e-5 * std::max(1.0, std::abs(x));
  return (f(x + h) - f(x - h)) / (2 * h);
}

// Nested duals, the second-order pass's values (Note [second order] in
// autograd/fused.hpp): a D1 value carrying an inner tangent, outer lanes.
using N1 = tl::Dual<D1, 1>;
using N2 = tl::Dual<D1, 2>;

D1 with_tangent(double v, double t) {
  D1 d(v);
  d.tangent[0] = t;
  return d;
}

template <class F>
void check_unary(const char* name, const F& f, const std::vector<double>& points) {
  for (double x : points) {
    CAPTURE(name);
    CAPTURE(x);
    const D1 y = tl::autograd::apply_dual(f, D1::variable(x, 0));
    CHECK(y.value == doctest::Approx(f(x)).epsilon(1e-14));
    const double fd = central([&](double v) { return f(v); }, x);
    CHECK(y.tangent[0] == doctest::Approx(fd).epsilon(1e-6).scale(1e-3));
    // Second derivatives on nested duals.
    const N1 y2 = tl::autograd::apply_dual(f, N1::variable(with_tangent(x, 1.0), 0));
    CHECK(y2.value.value == doctest::Approx(y.value).epsilon(1e-14));
    CHECK(y2.tangent[0].value == doctest::Approx(y.tangent[0]).epsilon(1e-14));
    CHECK(y2.value.tangent[0] == doctest::Approx(y.tangent[0]).epsilon(1e-14));  // the inner level agrees
    const double fd2 = central([&](double v) { return tl::autograd::apply_dual(f, D1::variable(v, 0)).tangent[0]; }, x);
    CHECK(y2.tangent[0].tangent[0] == doctest::Approx(fd2).epsilon(1e-5).scale(1e-3));
  }
}

template <class F>
void check_binary(const char* name, const F& f, const std::vector<std::pair<double, double>>& points) {
  for (const auto& point : points) {
    const double a = point.first, b = point.second;  // not a structured binding: clang 14 cannot capture those
    CAPTURE(name);
    CAPTURE(a);
    CAPTURE(b);
    const D2 y = tl::autograd::apply_dual(f, D2::variable(a, 0), D2::variable(b, 1));
    CHECK(y.value == doctest::Approx(f(a, b)).epsilon(1e-14));
    CHECK(y.tangent[0] == doctest::Approx(central([&](double v) { return f(v, b); }, a)).epsilon(1e-6).scale(1e-3));
    CHECK(y.tangent[1] == doctest::Approx(central([&](double v) { return f(a, v); }, b)).epsilon(1e-6).scale(1e-3));
    // Second derivatives: the inner tangent along a, then along b.
    for (int along = 0; along < 2; ++along) {
      CAPTURE(along);
      const N2 y2 = tl::autograd::apply_dual(f, N2::variable(with_tangent(a, along == 0 ? 1.0 : 0.0), 0),
                                             N2::variable(with_tangent(b, along == 1 ? 1.0 : 0.0), 1));
      for (int k = 0; k < 2; ++k) {
        CAPTURE(k);
        auto partial = [&](double v) {
          const D2 p =
              tl::autograd::apply_dual(f, D2::variable(along == 0 ? v : a, 0), D2::variable(along == 1 ? v : b, 1));
          return p.tangent[k];
        };
        CHECK(y2.tangent[k].value == doctest::Approx(y.tangent[k]).epsilon(1e-14));
        CHECK(y2.tangent[k].tangent[0] ==
              doctest::Approx(central(partial, along == 0 ? a : b)).epsilon(1e-5).scale(1e-3));
      }
    }
  }
}

const std::vector<double> kReal = {-2.3, -0.7, 0.4, 1.3, 3.1};
const std::vector<double> kPositive = {0.05, 0.4, 1.3, 3.1, 20.0};
const std::vector<double> kUnit = {-0.9, -0.4, 0.1, 0.6, 0.95};
const std::vector<double> kAboveOne = {1.05, 1.4, 2.3, 5.0, 20.0};
const std::vector<double> kOpenUnit = {0.03, 0.2, 0.5, 0.77, 0.96};
const std::vector<double> kNonInteger = {-2.5, -0.3, 0.4, 1.3, 7.9, 15.2};

}  // namespace

TEST_CASE("dual tangents of unary functors match finite differences") {
  namespace fn = tl::fn;
  check_unary("neg", fn::Neg{}, kReal);
  check_unary("abs", fn::Abs{}, kReal);
  check_unary("sign", fn::Sign{}, kReal);
  check_unary("reciprocal", fn::Reciprocal{}, kReal);
  check_unary("square", fn::Square{}, kReal);
  check_unary("floor", fn::Floor{}, kReal);
  check_unary("ceil", fn::Ceil{}, kReal);
  check_unary("round", fn::Round{}, kReal);
  check_unary("trunc", fn::Trunc{}, kReal);
  check_unary("frac", fn::Frac{}, kReal);
  check_unary("exp", fn::Exp{}, kReal);
  check_unary("exp2", fn::Exp2{}, kReal);
  check_unary("expm1", fn::Expm1{}, kReal);
  check_unary("log", fn::Log{}, kPositive);
  check_unary("log2", fn::Log2{}, kPositive);
  check_unary("log10", fn::Log10{}, kPositive);
  check_unary("log1p", fn::Log1p{}, kUnit);
  check_unary("sqrt", fn::Sqrt{}, kPositive);
  check_unary("rsqrt", fn::Rsqrt{}, kPositive);
  check_unary("sin", fn::Sin{}, kReal);
  check_unary("cos", fn::Cos{}, kReal);
  check_unary("tan", fn::Tan{}, kUnit);
  check_unary("asin", fn::Asin{}, kUnit);
  check_unary("acos", fn::Acos{}, kUnit);
  check_unary("atan", fn::Atan{}, kReal);
  check_unary("sinh", fn::Sinh{}, kReal);
  check_unary("cosh", fn::Cosh{}, kReal);
  check_unary("tanh", fn::Tanh{}, kReal);
  check_unary("asinh", fn::Asinh{}, kReal);
  check_unary("acosh", fn::Acosh{}, kAboveOne);
  check_unary("atanh", fn::Atanh{}, kUnit);
  check_unary("erf", fn::Erf{}, kReal);
  check_unary("erfc", fn::Erfc{}, kReal);
  check_unary("erfinv", fn::Erfinv{}, kUnit);
  check_unary("lgamma", fn::Lgamma{}, kNonInteger);
  check_unary("digamma", fn::Digamma{}, kNonInteger);
  check_unary("polygamma 2", fn::Polygamma{2}, kNonInteger);
  check_unary("entr", fn::Entr{}, kPositive);
  check_unary("erfcx", fn::Erfcx{}, kReal);
  check_unary("i0", fn::I0{}, kReal);
  check_unary("i0e", fn::I0e{}, kReal);
  check_unary("i1", fn::I1{}, kReal);
  check_unary("i1e", fn::I1e{}, kReal);
  check_unary("bessel_j0", fn::BesselJ0{}, kReal);
  check_unary("bessel_j1", fn::BesselJ1{}, kReal);
  check_unary("bessel_y0", fn::BesselY0{}, kPositive);
  check_unary("bessel_y1", fn::BesselY1{}, kPositive);
  check_unary("modified_bessel_k0", fn::ModifiedBesselK0{}, kPositive);
  check_unary("modified_bessel_k1", fn::ModifiedBesselK1{}, kPositive);
  check_unary("scaled_modified_bessel_k0", fn::ScaledModifiedBesselK0{}, kPositive);
  check_unary("scaled_modified_bessel_k1", fn::ScaledModifiedBesselK1{}, kPositive);
  check_unary("spherical_bessel_j0", fn::SphericalBesselJ0{}, kReal);
  check_unary("airy_ai", fn::AiryAi{}, kReal);
  check_unary("log_ndtr", fn::LogNdtr{}, kReal);
  check_unary("ndtri", fn::Ndtri{}, kOpenUnit);
  check_unary("sigmoid", fn::Sigmoid{}, kReal);
  check_unary("logit", fn::Logit{}, kOpenUnit);
  check_unary("logit eps", fn::Logit{.eps = 0.1}, kOpenUnit);
  check_unary("relu", fn::Relu{}, kReal);
  check_unary("gelu", fn::Gelu{}, kReal);
  check_unary("gelu tanh", fn::Gelu{.tanh_approximation = true}, kReal);
  check_unary("silu", fn::Silu{}, kReal);
  check_unary("softplus", fn::Softplus{}, kReal);
  check_unary("softplus beta", fn::Softplus{.beta = 2, .threshold = 3}, kReal);
  check_unary("hardtanh", fn::Hardtanh{}, kReal);
  check_unary("leaky_relu", fn::LeakyRelu{}, kReal);
  check_unary("elu", fn::Elu{.alpha = 1.5}, kReal);
  check_unary("clamp", fn::Clamp<double>{.lo = -1, .hi = 2, .has_lo = true, .has_hi = true}, kReal);
}

TEST_CASE("dual tangents of binary and ternary functors match finite differences") {
  namespace fn = tl::fn;
  const std::vector<std::pair<double, double>> pairs = {{1.3, -0.7}, {-2.3, 0.4}, {3.1, 1.7}, {0.4, -2.9}};
  check_binary("add", fn::Add{}, pairs);
  check_binary("sub", fn::Sub{}, pairs);
  check_binary("mul", fn::Mul{}, pairs);
  check_binary("div", fn::Div{}, pairs);
  check_binary("fmod", fn::Fmod{}, pairs);
  check_binary("remainder", fn::Remainder{}, pairs);
  check_binary("atan2", fn::Atan2{}, pairs);
  check_binary("hypot", fn::Hypot{}, pairs);
  check_binary("maximum", fn::Maximum{}, pairs);
  check_binary("minimum", fn::Minimum{}, pairs);
  check_binary("pow", fn::Pow{}, {{1.3, -0.7}, {0.4, 2.5}, {3.1, 1.7}, {2.0, 3.0}});

  const fn::Lerp lerp;
  for (double w : {-0.3, 0.2, 0.7, 1.4}) {
    const D3 y = tl::autograd::apply_dual(lerp, D3::variable(-1.2, 0), D3::variable(2.5, 1), D3::variable(w, 2));
    CHECK(y.tangent[0] == doctest::Approx(1 - w));
    CHECK(y.tangent[1] == doctest::Approx(w));
    CHECK(y.tangent[2] == doctest::Approx(3.7));
  }
}

TEST_CASE("dual tangents at non-differentiable points are PyTorch's") {
  namespace fn = tl::fn;
  const auto d = [](double x) { return D1::variable(x, 0); };
  CHECK(tl::autograd::apply_dual(fn::Abs{}, d(0.0)).tangent[0] == 0.0);
  CHECK(tl::autograd::apply_dual(fn::Relu{}, d(0.0)).tangent[0] == 0.0);
  CHECK(tl::autograd::apply_dual(fn::Relu{}, d(-0.0)).tangent[0] == 0.0);
  // NaN passes (threshold_backward: x <= 0 ? 0 : grad; PyTorch 1.13 gives 1).
  CHECK(tl::autograd::apply_dual(fn::Relu{}, d(std::nan(""))).tangent[0] == 1.0);
  CHECK(std::signbit(fn::Relu{}(-0.0)));  // the value keeps -0 (PyTorch)
  CHECK(!std::signbit(fn::Relu{}(-3.0)));
  CHECK(std::isnan(fn::Relu{}(std::nan(""))));
  CHECK(tl::autograd::apply_dual(fn::Hardtanh{}, d(1.0)).tangent[0] == 0.0);
  CHECK(tl::autograd::apply_dual(fn::Hardtanh{}, d(-1.0)).tangent[0] == 0.0);
  CHECK(tl::autograd::apply_dual(fn::Hardtanh{}, d(std::nan(""))).tangent[0] == 1.0);  // NaN passes
  CHECK(std::signbit(fn::Hardtanh{.min_val = 0, .max_val = 6}(-0.0)));                 // relu6 keeps -0
  const fn::Clamp<double> clamp{.lo = -1, .hi = 2, .has_lo = true, .has_hi = true};
  CHECK(tl::autograd::apply_dual(clamp, d(-1.0)).tangent[0] == 1.0);  // bounds included
  CHECK(tl::autograd::apply_dual(clamp, d(2.0)).tangent[0] == 1.0);
  CHECK(tl::autograd::apply_dual(clamp, d(std::nan(""))).tangent[0] == 0.0);
  CHECK(tl::autograd::apply_dual(fn::Sqrt{}, d(0.0)).tangent[0] == std::numeric_limits<double>::infinity());
  CHECK(tl::autograd::apply_dual(fn::Sign{}, d(0.0)).tangent[0] == 0.0);
  CHECK(tl::autograd::apply_dual(fn::Floor{}, d(2.0)).tangent[0] == 0.0);
  // pow: d/db = 0 where a == 0 and b >= 0; d/da = 0 where b == 0.
  const D2 p0 = tl::autograd::apply_dual(fn::Pow{}, D2::variable(0.0, 0), D2::variable(2.0, 1));
  CHECK(p0.tangent[0] == 0.0);
  CHECK(p0.tangent[1] == 0.0);
  const D2 p1 = tl::autograd::apply_dual(fn::Pow{}, D2::variable(0.0, 0), D2::variable(0.0, 1));
  CHECK(p1.value == 1.0);
  CHECK(p1.tangent[0] == 0.0);
  CHECK(p1.tangent[1] == 0.0);
  // A constant operand's zero tangent stays zero where the other partial is
  // inf or NaN (Note [zero tangents stay zero]): pow(x, 2) for x < 0 has
  // d/db = y log(x) = NaN, which must not reach x's lane.
  const auto constant = [](double v) { return D2(v); };
  CHECK(tl::autograd::apply_dual(fn::Pow{}, D2::variable(-1.5, 0), constant(2.0)).tangent[0] == -3.0);
  CHECK(tl::autograd::apply_dual(fn::Pow{}, D2::variable(-2.0, 0), constant(3.0)).tangent[0] == 12.0);
  const D2 p2 = tl::autograd::apply_dual(fn::Pow{}, constant(0.0), D2::variable(0.5, 1));
  CHECK(p2.tangent[0] == 0.0);
  CHECK(p2.tangent[1] == 0.0);
  const D2 sum = tl::autograd::apply_dual(fn::Add{}, tl::autograd::apply_dual(fn::Sqrt{}, D2::variable(0.0, 0)),
                                          D2::variable(2.0, 1));
  CHECK(sum.tangent[0] == std::numeric_limits<double>::infinity());
  CHECK(sum.tangent[1] == 1.0);
  const D2 quotient = tl::autograd::apply_dual(fn::Div{}, D2::variable(1.0, 0), constant(0.0));
  CHECK(quotient.tangent[0] == std::numeric_limits<double>::infinity());
  CHECK(quotient.tangent[1] == 0.0);
  // maximum/minimum at ties share the gradient; a NaN gives both all of it.
  const D2 m = tl::autograd::apply_dual(fn::Maximum{}, D2::variable(1.5, 0), D2::variable(1.5, 1));
  CHECK(m.tangent[0] == 0.5);
  CHECK(m.tangent[1] == 0.5);
  const D2 n = tl::autograd::apply_dual(fn::Minimum{}, D2::variable(1.5, 0), D2::variable(1.5, 1));
  CHECK(n.tangent[0] == 0.5);
  CHECK(n.tangent[1] == 0.5);
  for (const auto& f : {tl::autograd::apply_dual(fn::Maximum{}, D2::variable(std::nan(""), 0), D2::variable(1.0, 1)),
                        tl::autograd::apply_dual(fn::Minimum{}, D2::variable(1.0, 0), D2::variable(std::nan(""), 1))}) {
    CHECK(f.tangent[0] == 1.0);
    CHECK(f.tangent[1] == 1.0);
  }
  // Far tails in float: the declared derivatives stay finite where the
  // quotient rule on the formula would give inf/inf.
  using F1 = tl::Dual<float, 1>;
  for (float x : {-100.f, 100.f}) {
    CHECK(tl::autograd::apply_dual(fn::Sigmoid{}, F1::variable(x, 0)).tangent[0] == 0.f);
    CHECK(std::isfinite(tl::autograd::apply_dual(fn::Silu{}, F1::variable(x, 0)).tangent[0]));
  }
}

TEST_CASE("nested duals keep the declared derivatives at both levels") {
  using F1 = tl::Dual<float, 1>;
  using NF = tl::Dual<F1, 1>;
  F1 inner(-100.f);
  inner.tangent[0] = 1.f;
  // sigmoid's formula overflows at -100 in float; its declared derivative does not.
  const NF s = tl::autograd::apply_dual(tl::fn::Sigmoid{}, NF::variable(inner, 0));
  CHECK(std::isfinite(s.value.tangent[0]));
  CHECK(std::isfinite(s.tangent[0].tangent[0]));
  // relu at 0 and a maximum tie: the inner tangent follows PyTorch's choices
  // (0, and half to each side), as the outer one does.
  const N1 r = tl::autograd::apply_dual(tl::fn::Relu{}, N1::variable(with_tangent(0.0, 1.0), 0));
  CHECK(r.value.tangent[0] == 0.0);
  CHECK(r.tangent[0].value == 0.0);
  const N2 m = tl::autograd::apply_dual(tl::fn::Maximum{}, N2::variable(with_tangent(1.0, 1.0), 0),
                                        N2::variable(with_tangent(1.0, 0.0), 1));
  CHECK(m.value.tangent[0] == 0.5);
  CHECK(m.tangent[0].value == 0.5);
  CHECK(m.tangent[1].value == 0.5);
}

TEST_CASE("trigamma") {
  constexpr double pi2 = std::numbers::pi * std::numbers::pi;
  CHECK(tl::math::trigamma(1.0) == doctest::Approx(pi2 / 6).epsilon(1e-15));
  CHECK(tl::math::trigamma(0.5) == doctest::Approx(pi2 / 2).epsilon(1e-15));
  CHECK(tl::math::trigamma(-0.5) == doctest::Approx(pi2 / 2 + 4).epsilon(1e-14));
  CHECK(tl::math::trigamma(2.0) == doctest::Approx(pi2 / 6 - 1).epsilon(1e-15));
  CHECK(std::isinf(tl::math::trigamma(0.0)));
  CHECK(std::isinf(tl::math::trigamma(-3.0)));
  for (double x : {-3.7, -0.2, 0.3, 4.5, 9.9, 10.1, 55.0}) {
    CAPTURE(x);
    CHECK(tl::math::trigamma(x) ==
          doctest::Approx(central([](double v) { return tl::math::digamma(v); }, x)).epsilon(1e-7));
  }
}

TEST_CASE("packets of duals agree with scalar duals lane by lane") {
  namespace fn = tl::fn;
  using V = tl::simd::Vec<float>;
  using PD = tl::Dual<V, 2>;
  using SD = tl::Dual<float, 2>;
  constexpr int W = V::size;
  float xs[W], ws[W];
  for (int i = 0; i < W; ++i) {
    xs[i] = -2.5f + 0.61f * static_cast<float>(i);
    ws[i] = 0.3f + 0.2f * static_cast<float>(i);
  }
  // Special lanes: 0, -0 and a tie with w (relu's and maximum's kinks).
  xs[0] = 0.f;
  xs[1] = -0.f;
  xs[W - 1] = ws[W - 1];
  PD x = PD::variable(V::load(xs), 0);
  PD w = PD::variable(V::load(ws), 1);
  const auto check_lanes = [&](const char* name, const PD& p, const auto& scalar) {
    for (int i = 0; i < W; ++i) {
      CAPTURE(name);
      CAPTURE(i);
      const SD s = scalar(SD::variable(xs[i], 0), SD::variable(ws[i], 1));
      CHECK(p.value[i] == doctest::Approx(s.value).epsilon(1e-6));
      CHECK(p.tangent[0][i] == doctest::Approx(s.tangent[0]).epsilon(1e-6));
      CHECK(p.tangent[1][i] == doctest::Approx(s.tangent[1]).epsilon(1e-6));
    }
  };
  check_lanes(
      "exp(x) * w", tl::autograd::apply_dual(fn::Mul{}, tl::autograd::apply_dual(fn::Exp{}, x), w),
      [](SD a, SD b) { return tl::autograd::apply_dual(fn::Mul{}, tl::autograd::apply_dual(fn::Exp{}, a), b); });
  check_lanes("sigmoid", tl::autograd::apply_dual(fn::Sigmoid{}, x),
              [](SD a, SD) { return tl::autograd::apply_dual(fn::Sigmoid{}, a); });
  check_lanes("tanh", tl::autograd::apply_dual(fn::Tanh{}, x),
              [](SD a, SD) { return tl::autograd::apply_dual(fn::Tanh{}, a); });
  check_lanes("gelu", tl::autograd::apply_dual(fn::Gelu{}, x),
              [](SD a, SD) { return tl::autograd::apply_dual(fn::Gelu{}, a); });
  check_lanes("relu", tl::autograd::apply_dual(fn::Relu{}, x),
              [](SD a, SD) { return tl::autograd::apply_dual(fn::Relu{}, a); });
  check_lanes("digamma(w)", tl::autograd::apply_dual(fn::Digamma{}, w),
              [](SD, SD b) { return tl::autograd::apply_dual(fn::Digamma{}, b); });
  check_lanes("maximum", tl::autograd::apply_dual(fn::Maximum{}, x, w),
              [](SD a, SD b) { return tl::autograd::apply_dual(fn::Maximum{}, a, b); });
  check_lanes("pow(w, x)", tl::autograd::apply_dual(fn::Pow{}, w, x),
              [](SD a, SD b) { return tl::autograd::apply_dual(fn::Pow{}, b, a); });
  check_lanes("atan2", tl::autograd::apply_dual(fn::Atan2{}, x, w),
              [](SD a, SD b) { return tl::autograd::apply_dual(fn::Atan2{}, a, b); });
  check_lanes("hypot", tl::autograd::apply_dual(fn::Hypot{}, x, w),
              [](SD a, SD b) { return tl::autograd::apply_dual(fn::Hypot{}, a, b); });
}
