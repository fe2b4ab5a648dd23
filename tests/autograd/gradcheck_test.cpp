// gradcheck and gradgradcheck themselves (autograd/gradcheck.hpp): they must
// fail on a wrong gradient, say where, and refuse inputs they cannot perturb.
// The gradchecks of real pointwise chains are in fused_test.cpp.

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "tensorlib/tensorlib.hpp"

namespace {

using Inputs = std::vector<tl::Tensor<double>>;

// 2x + sin(x), but the sin term is computed on a detached copy, so the graph
// knows only the 2x: the analytical Jacobian misses cos(x) on the diagonal.
tl::Tensor<double> wrong_gradient(const Inputs& in) { return in[0] * 2.0 + tl::sin(in[0].detach()) + in[1] * 0.0; }

}  // namespace

TEST_CASE("gradcheck passes a correct gradient and reports a wrong one") {
  auto x = tl::tensor<double>({{0.5, 1.0}, {1.5, 2.0}}, {.requires_grad = true});
  auto w = tl::tensor<double>({{1.0, -1.0}}, {.requires_grad = true});
  auto right = [](const Inputs& in) -> tl::Tensor<double> { return in[0] * 2.0 + tl::sin(in[0]) + in[1] * 0.0; };
  CHECK(tl::autograd::gradcheck(right, {x, w}));

  std::string msg;
  try {
    tl::autograd::gradcheck(wrong_gradient, {x, w});
  } catch (const tl::AutogradError& e) {
    msg = e.what();
  }
  CHECK(msg.find("gradcheck: Jacobian mismatch for output 0 with respect to input 0") == 0);
  CHECK(msg.find("4 of 16 entries differ") != std::string::npos);
  // The largest error is where |cos(x)| is largest: x = 0.5, element [0, 0].
  CHECK(msg.find("output element [0, 0] and input element [0, 0]") != std::string::npos);
  CHECK(msg.find("analytical 2 (") != std::string::npos);
  CHECK(msg.find("numerical 2.877") != std::string::npos);  // 2 + cos(0.5) = 2.8776...

  CHECK_FALSE(tl::autograd::gradcheck(wrong_gradient, {x, w}, {.raise_exception = false}));
  // A tolerance that covers the error hides it.
  CHECK(tl::autograd::gradcheck(wrong_gradient, {x, w}, {.atol = 1.5}));
}

TEST_CASE("gradcheck perturbs a non-contiguous input at its strided addresses") {
  tl::Tensor<double> xt;
  {
    tl::NoGradGuard no_grad;
    xt = tl::tensor<double>({{0.1, 0.2, 0.3}, {0.4, 0.5, 0.6}}).t();  // [3, 2], strides [1, 3]
  }
  xt.requires_grad_();
  const std::vector<double> before = xt.to_vector();
  // Weights that differ per element: a perturbation at the wrong address would
  // show in the wrong column of the numerical Jacobian.
  auto f = [](const Inputs& in) -> tl::Tensor<double> {
    return in[0] * tl::tensor<double>({{1.0, 2.0}, {3.0, 4.0}, {5.0, 6.0}});
  };
  CHECK(tl::autograd::gradcheck(f, {xt}));
  CHECK(xt.to_vector() == before);  // every element restored
  CHECK(xt._version() == 0);        // raw writes: no version bump
}

TEST_CASE("gradcheck refuses inputs it cannot check") {
  auto f = [](const Inputs& in) -> tl::Tensor<double> { return in[0] * 2.0; };
  CHECK_THROWS_WITH_AS(tl::autograd::gradcheck(f, {tl::ones<double>({2})}),
                       doctest::Contains("at least one input tensor to require gradient"), tl::ValueError);
  tl::Tensor<double> expanded;
  {
    tl::NoGradGuard no_grad;
    expanded = tl::ones<double>({1, 3}).expand({2, 3});
  }
  expanded.requires_grad_();
  CHECK_THROWS_WITH_AS(tl::autograd::gradcheck(f, {expanded}), doctest::Contains("stride 0"), tl::ValueError);
}

TEST_CASE("gradcheck: an input the output does not use has a zero Jacobian") {
  auto x = tl::tensor<double>({0.5, -0.5}, {.requires_grad = true});
  auto u = tl::tensor<double>({1.0}, {.requires_grad = true});
  auto f = [](const Inputs& in) -> tl::Tensor<double> { return tl::exp(in[0]); };
  CHECK(tl::autograd::gradcheck(f, {x, u}));
  // An output that does not depend on the inputs at all, but should.
  auto constant = [](const Inputs& in) -> tl::Tensor<double> { return tl::exp(in[0].detach()); };
  CHECK_THROWS_WITH_AS(tl::autograd::gradcheck(constant, {x}), doctest::Contains("analytical 0"), tl::AutogradError);
}

namespace {

// x^3 whose backward detaches its saved input: the first derivative is
// right, the second (through the backward) misses 6x.
struct CubeDetachedBackward : tl::autograd::Function<CubeDetachedBackward> {
  static tl::Tensor<double> forward(tl::autograd::FunctionCtx& ctx, const tl::Tensor<double>& x) {
    ctx.save_for_backward(x);
    return x * x * x;
  }
  static std::vector<tl::Tensor<double>> backward(tl::autograd::FunctionCtx& ctx,
                                                  const std::vector<tl::Tensor<double>>& g) {
    const tl::Tensor<double> x = ctx.saved_tensors()[0].as<double>().detach();
    return {g[0] * 3.0 * x * x};
  }
};

}  // namespace

// Double backward (issue 4's "higher order"): pointwise chains (one fused
// node whose backward records a FusedGradBackward), matmul, reductions and
// softmax; and gradgradcheck must catch a backward that is not itself
// differentiated correctly.
TEST_CASE("gradgradcheck: pointwise chains, matmul, reductions, softmax, and a wrong second derivative") {
  auto x = tl::tensor<double>({0.5, -0.3, 1.2}, {.requires_grad = true});
  auto w = tl::tensor<double>({1.5, 2.0, -1.0}, {.requires_grad = true});
  auto f = [](const Inputs& in) -> tl::Tensor<double> { return tl::exp(in[0]) * in[1] + tl::sigmoid(in[0]); };
  CHECK(tl::autograd::gradcheck(f, {x, w}));
  CHECK(tl::autograd::gradgradcheck(f, {x, w}));
  CHECK_THROWS_WITH_AS(tl::autograd::gradgradcheck(f, {x, w}, {}, tl::ones<double>({4})),
                       doctest::Contains("grad_output has shape [4]"), tl::ShapeError);

  tl::Generator gen(5);
  auto a = tl::randn<double>({2, 3}, gen).requires_grad_();
  auto b = tl::randn<double>({3, 4}, gen).requires_grad_();
  auto mm_softmax = [](const Inputs& in) -> tl::Tensor<double> {
    return tl::softmax(tl::mm(in[0], in[1]), 1) * tl::tanh(tl::mm(in[0], in[1]));
  };
  CHECK(tl::autograd::gradgradcheck(mm_softmax, {a, b}));
  auto reductions = [](const Inputs& in) -> tl::Tensor<double> {
    const tl::Tensor<double> p = tl::mm(in[0], in[1]);
    return tl::logsumexp(p, {1}) + (p * p).mean() + tl::log_softmax(p, 0).sum({1});
  };
  CHECK(tl::autograd::gradgradcheck(reductions, {a, b}));

  auto wrong = [](const Inputs& in) -> tl::Tensor<double> { return CubeDetachedBackward::apply(in[0]); };
  CHECK(tl::autograd::gradcheck(wrong, {x}));
  CHECK_FALSE(tl::autograd::gradgradcheck(wrong, {x}, {.raise_exception = false}));
}

// tl::autograd::functional (PyTorch's torch.autograd.functional): products
// against closed forms, through a fused chain (its second-order pass gives
// J v) and through mm (recorded formulas).
TEST_CASE("functional vjp, jvp and hvp") {
  namespace F = tl::autograd::functional;
  const std::vector<double> vx = {0.5, -0.3, 1.2}, vw = {1.5, 2.0, -1.0}, t = {1.0, -2.0, 0.5}, s = {0.3, 0.7, -1.1};
  auto x = tl::tensor<double>({0.5, -0.3, 1.2});
  auto w = tl::tensor<double>({1.5, 2.0, -1.0});
  const auto tx = tl::tensor<double>({1.0, -2.0, 0.5}), tw = tl::tensor<double>({0.3, 0.7, -1.1});
  // y = sin(x) * w + x^2: dy/dx = cos(x) w + 2x, dy/dw = sin(x).
  auto f = [](const Inputs& in) -> tl::Tensor<double> { return tl::sin(in[0]) * in[1] + in[0] * in[0]; };
  SUBCASE("jvp through one fused node") {
    const auto r = F::jvp(f, {x, w}, {tx, tw});
    const std::vector<double> out = r.output.to_vector(), jv = r.product.at(0).to_vector();
    for (std::size_t i = 0; i < 3; ++i) {
      CHECK(out[i] == doctest::Approx(std::sin(vx[i]) * vw[i] + vx[i] * vx[i]));
      CHECK(jv[i] == doctest::Approx((std::cos(vx[i]) * vw[i] + 2 * vx[i]) * t[i] + std::sin(vx[i]) * s[i]));
    }
    CHECK_FALSE(r.output.requires_grad());
    CHECK_FALSE(x.requires_grad());  // the caller's tensors are left alone
  }
  SUBCASE("vjp") {
    const auto r = F::vjp(f, {x, w}, tx);
    const std::vector<double> gx = r.product.at(0).to_vector(), gw = r.product.at(1).to_vector();
    for (std::size_t i = 0; i < 3; ++i) {
      CHECK(gx[i] == doctest::Approx((std::cos(vx[i]) * vw[i] + 2 * vx[i]) * t[i]));
      CHECK(gw[i] == doctest::Approx(std::sin(vx[i]) * t[i]));
    }
  }
  SUBCASE("hvp of a scalar function") {
    // sum(sin(x) w + x^2): H_xx = diag(2 - sin(x) w), H_xw = diag(cos(x)), H_ww = 0.
    auto scalar = [&f](const Inputs& in) -> tl::Tensor<double> { return f(in).sum(); };
    const auto r = F::hvp(scalar, {x, w}, {tx, tw});
    const std::vector<double> hx = r.product.at(0).to_vector(), hw = r.product.at(1).to_vector();
    for (std::size_t i = 0; i < 3; ++i) {
      CHECK(hx[i] == doctest::Approx((2 - std::sin(vx[i]) * vw[i]) * t[i] + std::cos(vx[i]) * s[i]));
      CHECK(hw[i] == doctest::Approx(std::cos(vx[i]) * t[i]));
    }
    CHECK_THROWS_WITH_AS(F::hvp(f, {x, w}, {tx, tw}), doctest::Contains("single-element"), tl::ValueError);
  }
  SUBCASE("jvp through mm, and an input the function ignores") {
    tl::Generator gen(2);
    auto a = tl::randn<double>({2, 3}, gen), b = tl::randn<double>({3, 2}, gen);
    auto ta = tl::randn<double>({2, 3}, gen), tb = tl::randn<double>({3, 2}, gen), unused = tl::randn<double>({4}, gen);
    auto g = [](const Inputs& in) -> tl::Tensor<double> { return tl::mm(in[0], in[1]); };
    const auto r = F::jvp(g, {a, b, unused}, {ta, tb, unused});
    // d(ab) = da b + a db.
    const tl::Tensor<double> want = tl::mm(ta, b) + tl::mm(a, tb);
    const std::vector<double> got = r.product.at(0).to_vector(), expected = want.to_vector();
    for (std::size_t i = 0; i < got.size(); ++i) CHECK(got[i] == doctest::Approx(expected[i]));
    CHECK_THROWS_WITH_AS(F::jvp(g, {a, b}, {ta}), doctest::Contains("got 1 tangent for 2 inputs"), tl::ValueError);
    CHECK_THROWS_WITH_AS(F::jvp(g, {a, b}, {ta, ta}), doctest::Contains("tangent 1 has shape [2, 3]"), tl::ShapeError);
  }
}
