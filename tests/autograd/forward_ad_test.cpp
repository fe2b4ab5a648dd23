// Forward mode on dual-number tensors (autograd/forward_ad.hpp): the tangents
// a pointwise chain carries match reverse mode and central differences, lanes
// stay separate, broadcasting and plain operands act as constants, the chain
// is one fused loop, and misuse is refused.
#include <doctest/doctest.h>

#include <cmath>
#include <cstddef>
#include <limits>
#include <string>
#include <vector>

#include "tensorlib/tensorlib.hpp"

namespace fad = tl::autograd::forward_ad;

namespace {

using D1 = tl::Dual<double, 1>;

tl::Tensor<double> uniform(const tl::Shape& shape, double lo, double hi, tl::Generator& gen) {
  return tl::Tensor<double>(tl::rand(shape, gen).to<double>() * (hi - lo) + lo);
}

/// |got - want| <= atol + rtol |want| elementwise (NaNs must match).
void check_close(const tl::Tensor<double>& got, const tl::Tensor<double>& want, double rtol, double atol,
                 const std::string& what) {
  CAPTURE(what);
  REQUIRE(got.sizes() == want.sizes());
  const std::vector<double> a = got.to_vector(), b = want.to_vector();
  int bad = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (std::isnan(b[i]) || std::isinf(b[i])) {
      bad += !(std::isnan(b[i]) ? std::isnan(a[i]) : a[i] == b[i]);
      continue;
    }
    bad += !(std::abs(a[i] - b[i]) <= atol + rtol * std::abs(b[i]));
  }
  CHECK(bad == 0);
}

/// For f on [lo, hi]: the tangent of f(make_dual(x, t)) against reverse mode
/// (the gradient of <f(x), t>... elementwise: f'(x) t) and central differences.
template <class F>
void check_unary(const std::string& name, F f, double lo, double hi) {
  CAPTURE(name);
  tl::Generator gen(7);
  const auto x = uniform({3, 4}, lo, hi, gen), t = uniform({3, 4}, -1, 1, gen);
  const tl::Tensor<D1> y(f(fad::make_dual(x, t)));
  const auto [value, tangents] = fad::unpack_dual(y);
  check_close(value, tl::Tensor<double>(f(x)), 1e-15, 0, name + " value");
  // Reverse mode: the gradient of sum(f(x)) is f'(x) (f is pointwise).
  auto leaf = x.detach().requires_grad_();
  tl::Tensor<double>(f(leaf)).sum().backward();
  check_close(tangents[0], tl::Tensor<double>(leaf.grad() * t), 1e-14, 1e-15, name + " vs reverse mode");
  const double h = 1e-6;
  const tl::Tensor<double> fd((f(tl::Tensor<double>(x + t * h)) - f(tl::Tensor<double>(x - t * h))) / (2 * h));
  check_close(tangents[0], fd, 1e-6, 1e-8, name + " vs central differences");
}

}  // namespace

TEST_CASE("forward mode: every differentiable pointwise function's tangent") {
  check_unary(
      "neg", [](const auto& x) { return -x; }, -2, 2);
  check_unary(
      "square", [](const auto& x) { return tl::square(x); }, -2, 2);
  check_unary(
      "reciprocal", [](const auto& x) { return tl::reciprocal(x); }, 0.5, 2);
  check_unary(
      "abs", [](const auto& x) { return tl::abs(x); }, -2, 2);
  check_unary(
      "exp", [](const auto& x) { return tl::exp(x); }, -2, 2);
  check_unary(
      "exp2", [](const auto& x) { return tl::exp2(x); }, -2, 2);
  check_unary(
      "expm1", [](const auto& x) { return tl::expm1(x); }, -2, 2);
  check_unary(
      "log", [](const auto& x) { return tl::log(x); }, 0.1, 3);
  check_unary(
      "log2", [](const auto& x) { return tl::log2(x); }, 0.1, 3);
  check_unary(
      "log10", [](const auto& x) { return tl::log10(x); }, 0.1, 3);
  check_unary(
      "log1p", [](const auto& x) { return tl::log1p(x); }, -0.5, 3);
  check_unary(
      "sqrt", [](const auto& x) { return tl::sqrt(x); }, 0.1, 3);
  check_unary(
      "rsqrt", [](const auto& x) { return tl::rsqrt(x); }, 0.1, 3);
  check_unary(
      "sin", [](const auto& x) { return tl::sin(x); }, -3, 3);
  check_unary(
      "cos", [](const auto& x) { return tl::cos(x); }, -3, 3);
  check_unary(
      "tan", [](const auto& x) { return tl::tan(x); }, -1.2, 1.2);
  check_unary(
      "asin", [](const auto& x) { return tl::asin(x); }, -0.9, 0.9);
  check_unary(
      "acos", [](const auto& x) { return tl::acos(x); }, -0.9, 0.9);
  check_unary(
      "atan", [](const auto& x) { return tl::atan(x); }, -3, 3);
  check_unary(
      "sinh", [](const auto& x) { return tl::sinh(x); }, -2, 2);
  check_unary(
      "cosh", [](const auto& x) { return tl::cosh(x); }, -2, 2);
  check_unary(
      "tanh", [](const auto& x) { return tl::tanh(x); }, -2, 2);
  check_unary(
      "asinh", [](const auto& x) { return tl::asinh(x); }, -3, 3);
  check_unary(
      "acosh", [](const auto& x) { return tl::acosh(x); }, 1.1, 4);
  check_unary(
      "atanh", [](const auto& x) { return tl::atanh(x); }, -0.9, 0.9);
  check_unary(
      "sigmoid", [](const auto& x) { return tl::sigmoid(x); }, -4, 4);
  check_unary(
      "logit", [](const auto& x) { return tl::logit(x); }, 0.1, 0.9);
  check_unary(
      "erf", [](const auto& x) { return tl::erf(x); }, -2, 2);
  check_unary(
      "erfc", [](const auto& x) { return tl::erfc(x); }, -2, 2);
  check_unary(
      "erfinv", [](const auto& x) { return tl::erfinv(x); }, -0.9, 0.9);
  check_unary(
      "lgamma", [](const auto& x) { return tl::lgamma(x); }, 0.5, 4);
  check_unary(
      "digamma", [](const auto& x) { return tl::digamma(x); }, 0.5, 4);
  check_unary(
      "relu", [](const auto& x) { return tl::relu(x); }, -2, 2);
  check_unary(
      "gelu", [](const auto& x) { return tl::gelu(x); }, -3, 3);
  check_unary(
      "silu", [](const auto& x) { return tl::silu(x); }, -3, 3);
  check_unary(
      "softplus", [](const auto& x) { return tl::softplus(x); }, -3, 3);
  check_unary(
      "elu", [](const auto& x) { return tl::elu(x); }, -2, 2);
  check_unary(
      "leaky_relu", [](const auto& x) { return tl::leaky_relu(x, 0.1); }, -2, 2);
  check_unary(
      "hardtanh", [](const auto& x) { return tl::hardtanh(x); }, -2, 2);
  check_unary(
      "clamp", [](const auto& x) { return tl::clamp(x, -0.5, 0.7); }, -2, 2);
  check_unary(
      "pow scalar", [](const auto& x) { return tl::pow(x, 2.5); }, 0.1, 2);
  check_unary(
      "scalar pow", [](const auto& x) { return tl::pow(1.7, x); }, -2, 2);
  check_unary(
      "chain", [](const auto& x) { return tl::exp(tl::sin(x) * x) / (1.5 + x * x) - tl::sigmoid(x); }, -2, 2);
}

TEST_CASE("forward mode: binary functions with one tangent lane per operand") {
  tl::Generator gen(8);
  const auto a = uniform({3, 4}, 0.2, 2, gen), b = uniform({3, 4}, 0.2, 2, gen);
  const auto ta = uniform({3, 4}, -1, 1, gen), tb = uniform({3, 4}, -1, 1, gen);
  const auto zero = tl::zeros<double>({3, 4});
  // Lane 0 moves a, lane 1 moves b: the tangents are the two partials.
  const auto x = fad::make_dual(a, ta, zero), y = fad::make_dual(b, zero, tb);
  auto check = [&](const std::string& name, auto f) {
    CAPTURE(name);
    const auto [value, tangents] = fad::unpack_dual(f(x, y));
    check_close(value, tl::Tensor<double>(f(a, b)), 1e-15, 0, name + " value");
    auto la = a.detach().requires_grad_(), lb = b.detach().requires_grad_();
    tl::Tensor<double>(f(la, lb)).sum().backward();
    check_close(tangents[0], tl::Tensor<double>(la.grad() * ta), 1e-14, 1e-15, name + " d/da");
    check_close(tangents[1], tl::Tensor<double>(lb.grad() * tb), 1e-14, 1e-15, name + " d/db");
  };
  check("add", [](const auto& p, const auto& q) { return p + q; });
  check("sub", [](const auto& p, const auto& q) { return p - q; });
  check("mul", [](const auto& p, const auto& q) { return p * q; });
  check("div", [](const auto& p, const auto& q) { return p / q; });
  check("pow", [](const auto& p, const auto& q) { return tl::pow(p, q); });
  check("atan2", [](const auto& p, const auto& q) { return tl::atan2(p, q); });
  check("hypot", [](const auto& p, const auto& q) { return tl::hypot(p, q); });
  check("maximum", [](const auto& p, const auto& q) { return tl::maximum(p, q); });
  check("minimum", [](const auto& p, const auto& q) { return tl::minimum(p, q); });
  check("where", [](const auto& p, const auto& q) { return tl::where(p > q, p * q, p - q); });
}

TEST_CASE("forward mode: broadcasting, plain tensors and scalars are constants, comparisons give bool") {
  tl::Generator gen(9);
  const auto a = uniform({3, 1}, -1, 1, gen), t = uniform({3, 1}, -1, 1, gen);
  const auto w = tl::rand({1, 4}, gen);  // float: promoted into the dual chain as a constant
  const auto k = tl::arange(4).view({1, 4});
  const auto x = fad::make_dual(a, t);
  const tl::Tensor<D1> y(x * w + tl::sin(x) * k - 2.0);
  REQUIRE(y.sizes() == tl::Shape{3, 4});
  const auto [value, tangents] = fad::unpack_dual(y);
  const auto wd = w.to<double>(), kd = k.to<double>();
  check_close(value, tl::Tensor<double>(a * wd + tl::sin(a) * kd - 2.0), 1e-15, 1e-15, "value");
  check_close(tangents[0], tl::Tensor<double>((wd + tl::cos(a) * kd) * t), 1e-14, 1e-15, "tangent");
  const tl::Tensor<bool> positive(x > 0.0);
  CHECK(positive.to_vector() == tl::Tensor<bool>(a > 0.0).to_vector());
  // Float duals follow double duals to float precision.
  const auto xf = fad::make_dual(a.to<float>(), t.to<float>());
  const auto [vf, tf] = fad::unpack_dual(tl::exp(xf) * xf);
  check_close(tf[0].to<double>(), tl::Tensor<double>((tl::exp(a) * a + tl::exp(a)) * t), 1e-6, 1e-6, "float");
  CHECK(tl::Tensor<tl::Dual<float, 1>>(xf).dtype() == tl::dual_scalar_type(tl::kFloat32, 1));
  CHECK(tl::name(xf.dtype()) == "dual_float32");
  CHECK(tl::element_size(x.dtype()) == 16);
  CHECK(tl::element_size(fad::make_dual(a, t, t, t).dtype()) == 32);
}

TEST_CASE("forward mode: K tangents give K directional derivatives in one fused loop") {
  // f(x) = exp(x0 x1) + x2^2 elementwise on three inputs packed in one dual
  // tensor of shape [3, 5] (row i is input i) with three unit directions:
  // tangent k is the partial with respect to row k.
  tl::Generator gen(10);
  const auto a = uniform({3, 5}, -1, 1, gen);
  auto unit = [](int64_t row) {
    auto e = tl::zeros<double>({3, 5});
    e.select(0, row).fill_(1.0);
    return e;
  };
  const auto x = fad::make_dual(a, unit(0), unit(1), unit(2));
  const auto before = tl::stats::snapshot();
  const tl::Tensor<tl::Dual<double, 3>> y(tl::exp(x.select(0, 0) * x.select(0, 1)) + x.select(0, 2) * x.select(0, 2));
  CHECK((tl::stats::snapshot() - before).fused_loops == 1);
  const auto [value, tangents] = fad::unpack_dual(y);
  const auto x0 = a.select(0, 0), x1 = a.select(0, 1), x2 = a.select(0, 2);
  check_close(tangents[0], tl::Tensor<double>(tl::exp(x0 * x1) * x1), 1e-14, 1e-15, "d/dx0");
  check_close(tangents[1], tl::Tensor<double>(tl::exp(x0 * x1) * x0), 1e-14, 1e-15, "d/dx1");
  check_close(tangents[2], tl::Tensor<double>(x2 * 2.0), 1e-14, 1e-15, "d/dx2");
  // One lane along v is the same combination of the three partials (J v).
  const auto v = uniform({3, 5}, -1, 1, gen);
  const auto xv = fad::make_dual(a, v);
  const auto [fv, tv] = fad::unpack_dual(tl::exp(xv.select(0, 0) * xv.select(0, 1)) + tl::square(xv.select(0, 2)));
  check_close(
      tv[0],
      tl::Tensor<double>(tangents[0] * v.select(0, 0) + tangents[1] * v.select(0, 1) + tangents[2] * v.select(0, 2)),
      1e-13, 1e-15, "J v");
}

TEST_CASE("forward mode: PyTorch's choices at special points, and zero tangents stay zero") {
  const auto a = tl::tensor<double>({0.0, 0.0, 0.0, 1.0});
  const auto t = tl::tensor<double>({1.0, 1.0, 0.0, 1.0});
  const auto x = fad::make_dual(a, t);
  CHECK(fad::unpack_dual(tl::relu(x)).tangents[0].to_vector() == std::vector<double>{0, 0, 0, 1});
  CHECK(fad::unpack_dual(tl::abs(x)).tangents[0].to_vector() == std::vector<double>{0, 0, 0, 1});
  const auto s = fad::unpack_dual(tl::sqrt(x)).tangents[0].to_vector();
  CHECK(s[0] == std::numeric_limits<double>::infinity());
  CHECK(s[2] == 0.0);  // sqrt'(0) = inf, times a zero tangent: 0, not NaN
  CHECK(s[3] == 0.5);
  // sigmoid far in the tail: its declared derivative, not the formula's NaN.
  const auto xf = fad::make_dual(tl::tensor<float>({-100.0f, 100.0f}), tl::tensor<float>({1.0f, 1.0f}));
  const auto tail = fad::unpack_dual(tl::sigmoid(xf)).tangents[0].to_vector();
  CHECK(tail[0] == 0.0f);
  CHECK(tail[1] == 0.0f);
}

TEST_CASE("forward mode: misuse is refused") {
  const auto a = tl::ones<double>({2, 3});
  CHECK_THROWS_WITH_AS(fad::make_dual(a, tl::ones<double>({3, 2})),
                       doctest::Contains("make_dual: tangent 0 has shape [3, 2] but the primal has shape [2, 3]"),
                       tl::ShapeError);
  auto x = fad::make_dual(a, a);
  CHECK_THROWS_WITH_AS(x.requires_grad_(), doctest::Contains("got dual_float64"), tl::TypeError);
  CHECK_THROWS_AS(tl::AnyTensor(x).visit([](const auto& t) { return t.numel(); }), tl::TypeError);
  // The primal's history is not carried: a dual tensor is not part of a graph.
  auto leaf = tl::ones<double>({2}).requires_grad_();
  CHECK_FALSE(fad::make_dual(leaf, leaf.detach()).requires_grad());
}

TEST_CASE("forward mode: an operand whose derivative PyTorch does not implement is refused") {
  // zeta's x and igamma's a have no derivative in PyTorch (its forward mode
  // refuses both functions outright); tangents through them throw instead of
  // giving NaN, while the other operand's tangent is the backward's partial.
  const auto x = tl::tensor<double>({2.5, 3.0}), q = tl::tensor<double>({1.5, 2.0});
  const auto t = tl::tensor<double>({1.0, -0.5});
  const auto xd = fad::make_dual(x, t), qd = fad::make_dual(q, t);
  const std::string zeta_message = "the derivative for 'zeta' is not implemented.";
  CHECK_THROWS_WITH_AS(tl::Tensor<D1>(tl::special::zeta(xd, q)), zeta_message.c_str(), tl::NotImplementedError);
  CHECK_THROWS_WITH_AS(tl::Tensor<D1>(tl::exp(tl::special::zeta(xd * 2.0, qd)) + xd), zeta_message.c_str(),
                       tl::NotImplementedError);
  CHECK_THROWS_WITH_AS(fad::unpack_dual(tl::special::zeta(xd, q)), zeta_message.c_str(), tl::NotImplementedError);
  CHECK_THROWS_WITH_AS(tl::Tensor<D1>(tl::igamma(xd, q)), "the derivative for 'igamma: input' is not implemented.",
                       tl::NotImplementedError);
  CHECK_THROWS_WITH_AS(tl::Tensor<D1>(tl::igammac(xd, q)), "the derivative for 'igammac: input' is not implemented.",
                       tl::NotImplementedError);

  const auto [zeta_value, zeta_tangents] = fad::unpack_dual(tl::special::zeta(x, qd));
  check_close(zeta_value, tl::Tensor<double>(tl::special::zeta(x, q)), 0, 0, "zeta value");
  check_close(zeta_tangents[0], tl::Tensor<double>(-x * tl::special::zeta(x + 1.0, q) * t), 1e-15, 0, "zeta d/dq");
  auto leaf = q.clone().requires_grad_();
  tl::Tensor<double>(tl::igamma(x, leaf)).sum().backward();
  const auto [igamma_value, igamma_tangents] = fad::unpack_dual(tl::igamma(x, qd));
  check_close(igamma_tangents[0], tl::Tensor<double>(leaf.grad() * t), 1e-15, 0, "igamma d/dx");
  CHECK(igamma_value.defined());
  // Tangents that reach the first operand only through a comparison or as
  // plain values (a tangent taken out as a tensor) carry no derivative there.
  CHECK_NOTHROW(tl::Tensor<D1>(tl::special::zeta(x + (xd > 2.6), qd)));
  const auto [primal, tangents] = fad::unpack_dual(xd);
  CHECK_NOTHROW(tl::Tensor<double>(tl::special::zeta(primal + 2.0, q)));
  CHECK(tangents[0].to_vector() == t.to_vector());
}
