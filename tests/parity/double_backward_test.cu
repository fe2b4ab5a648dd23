// Double backward through fused expressions on the GPU: the second-order
// pass (autograd/second_order_pass.hpp) as one kernel (Note [GPU adjoint
// sweep]), against the same graphs on the CPU. A program of its own: the
// other CUDA suites define TENSORLIB_NO_DOUBLE_BACKWARD. The last case
// compiles the kernel for every twice-differentiable functor (what a user's
// nvcc file instantiates for each expression it differentiates). Tolerances: 1e-10
// relative in double (the device's sin/cos/tanh and its sums round
// differently from the host's), 1e-4 in float.

#include <doctest/doctest.h>

#include <vector>

#include <tensorlib/tensorlib.hpp>

#include "cuda_support.hpp"

using cuda_support::check_parity;
using cuda_support::gpu_leaf;
using cuda_support::no_gpu;

TEST_CASE("CUDA double backward: Hessian-vector products through a fused expression run as kernels and match the CPU") {
  if (no_gpu()) return;
  tl::Generator gen(41);
  auto x = tl::randn({300, 7}, gen).to<double>().requires_grad_();
  auto w = tl::randn({7}, gen).to<double>().requires_grad_();  // broadcast along the rows
  const auto v = tl::randn({300, 7}, gen).to<double>();
  auto gx = gpu_leaf(x), gw = gpu_leaf(w);
  // d/dx and d/dw of y, then of s = <g_x, v> + |g_w|^2: H v and more.
  const auto second = [](const tl::Tensor<double>& a, const tl::Tensor<double>& b, const tl::Tensor<double>& dir) {
    tl::Tensor<double> y = (a * a * a * b + tl::sin(a) * b).sum();
    const auto g = tl::autograd::grad<double>({y}, {a, b}, {}, /*retain_graph=*/true, /*create_graph=*/true);
    tl::Tensor<double> s = (g[0] * dir).sum() + (g[1] * g[1]).sum();
    return tl::autograd::grad<double>({s}, {a, b});
  };
  const auto want = second(x, w, v);
  const auto before = tl::stats::snapshot();
  const auto got = second(gx, gw, v.cuda());
  const auto delta = tl::stats::snapshot() - before;
  CHECK(delta.fused_loops == 0);  // no pass ran on the host
  CHECK(delta.fused_kernels > 0);
  check_parity(got[0], want[0], 1e-10, 1e-12, "x");
  check_parity(got[1], want[1], 1e-10, 1e-12, "w");
}

TEST_CASE("CUDA double backward: a gradient penalty trains like the CPU (float, create_graph through backward)") {
  if (no_gpu()) return;
  tl::Generator gen(42);
  auto weight = tl::randn({16}, gen).requires_grad_();
  const auto inputs = tl::randn({64, 16}, gen);
  auto gweight = gpu_leaf(weight);
  // ((|d f / d x| - 1)^2).mean() with f = sum(tanh(x * W)): its gradient in W
  // differentiates the fused backward of tanh(x * W) once more.
  const auto penalty = [](const tl::Tensor<float>& w, const tl::Tensor<float>& in) {
    auto x = in.detach().requires_grad_();
    tl::Tensor<float> f = tl::tanh(x * w).sum();
    const auto g = tl::autograd::grad<float>({f}, {x}, {}, true, true);
    const tl::Tensor<float> norms = tl::sqrt(tl::sum(g[0] * g[0], {1}));
    return tl::Tensor<float>(tl::square(norms - 1.0f).mean());
  };
  penalty(weight, inputs).backward();
  penalty(gweight, inputs.cuda()).backward();
  REQUIRE(gweight.grad().defined());
  check_parity(gweight.grad(), weight.grad(), 1e-4, 1e-6, "penalty gradient");
}

namespace {

// d/dx of <d f / d x, v> (and d/dy for two inputs) on the GPU against the
// CPU, for f = functor(x[, y]) * w: compiles the second-order kernel of each
// functor's nested dual forms (a user's nvcc file gets them for every
// expression it differentiates).
template <class F>
void check_second_order(const char* name, F f, int inputs) {
  CAPTURE(name);
  tl::Generator gen(43);
  tl::Tensor<float> x = tl::rand({5, 6}, gen) * 0.6f + 0.2f;  // (0.2, 0.8): in every domain
  tl::Tensor<float> y = tl::rand({5, 6}, gen) * 0.6f + 0.3f;
  x.requires_grad_();
  y.requires_grad_();
  const auto w = tl::randn({5, 6}, gen), v = tl::randn({5, 6}, gen);
  const auto hvp = [&](const tl::Tensor<float>& a, const tl::Tensor<float>& b, const tl::Tensor<float>& weights,
                       const tl::Tensor<float>& dir) {
    tl::Tensor<float> out = f(a, b) * weights;
    const auto leaves = inputs == 1 ? std::vector{a} : std::vector{a, b};
    const auto g = tl::autograd::grad<float>({out.sum()}, leaves, {}, true, true);
    tl::Tensor<float> s = (g[0] * dir).sum();
    if (inputs == 2) s = s + (g[1] * dir * dir).sum();
    return tl::autograd::grad<float>({s}, leaves, {}, false, false, /*allow_unused=*/true);
  };
  const auto want = hvp(x, y, w, v);
  const auto got = hvp(gpu_leaf(x), gpu_leaf(y), w.cuda(), v.cuda());
  for (std::size_t i = 0; i < want.size(); ++i) {
    if (!want[i].defined()) {
      CHECK(!got[i].defined());
      continue;
    }
    check_parity(got[i], want[i], 1e-4, 1e-5, name);
  }
}

}  // namespace

TEST_CASE("CUDA double backward: every twice-differentiable functor's second-order kernel matches the CPU") {
  if (no_gpu()) return;
  using T = tl::Tensor<float>;
  const auto unary = [](const char* name, auto f) {
    check_second_order(
        name, [f](const T& a, const T&) { return f(a); }, 1);
  };
  const auto binary = [](const char* name, auto f) { check_second_order(name, f, 2); };
  unary("relu", [](const T& a) { return tl::relu(a); });
  unary("gelu", [](const T& a) { return tl::gelu(a); });
  unary("gelu tanh", [](const T& a) { return tl::gelu(a, "tanh"); });
  unary("silu", [](const T& a) { return tl::silu(a); });
  unary("softplus", [](const T& a) { return tl::softplus(a, 2.0, 5.0); });
  unary("hardtanh", [](const T& a) { return tl::hardtanh(a, -2.0, 0.5); });
  unary("leaky_relu", [](const T& a) { return tl::leaky_relu(a - 0.5f, 0.2); });
  unary("elu", [](const T& a) { return tl::elu(a - 0.5f); });
  unary("neg", [](const T& a) { return -a; });
  unary("abs", [](const T& a) { return tl::abs(a - 0.5f); });
  unary("sign", [](const T& a) { return tl::sign(a - 0.5f) * a; });
  unary("reciprocal", [](const T& a) { return tl::reciprocal(a); });
  unary("square", [](const T& a) { return tl::square(a); });
  unary("floor ceil round trunc frac", [](const T& a) {
    return (tl::floor(a * 3.0f) + tl::ceil(a * 3.0f) + tl::round(a * 3.0f) + tl::trunc(a * 3.0f)) * a +
           tl::frac(a * 3.0f);
  });
  unary("clamp", [](const T& a) { return tl::clamp(a, 0.3, 0.7) * a; });
  unary("erf", [](const T& a) { return tl::erf(a); });
  unary("erfc", [](const T& a) { return tl::erfc(a); });
  unary("erfinv", [](const T& a) { return tl::erfinv(a); });
  unary("lgamma", [](const T& a) { return tl::lgamma(a); });
  unary("sigmoid", [](const T& a) { return tl::sigmoid(a); });
  unary("logit", [](const T& a) { return tl::logit(a); });
  unary("logit eps", [](const T& a) { return tl::logit(a, 0.3); });
  unary("exp", [](const T& a) { return tl::exp(a); });
  unary("exp2", [](const T& a) { return tl::exp2(a); });
  unary("expm1", [](const T& a) { return tl::expm1(a); });
  unary("log", [](const T& a) { return tl::log(a); });
  unary("log2", [](const T& a) { return tl::log2(a); });
  unary("log10", [](const T& a) { return tl::log10(a); });
  unary("log1p", [](const T& a) { return tl::log1p(a); });
  unary("sqrt", [](const T& a) { return tl::sqrt(a); });
  unary("rsqrt", [](const T& a) { return tl::rsqrt(a); });
  unary("sin", [](const T& a) { return tl::sin(a); });
  unary("cos", [](const T& a) { return tl::cos(a); });
  unary("tan", [](const T& a) { return tl::tan(a); });
  unary("asin", [](const T& a) { return tl::asin(a); });
  unary("acos", [](const T& a) { return tl::acos(a); });
  unary("atan", [](const T& a) { return tl::atan(a); });
  unary("sinh", [](const T& a) { return tl::sinh(a); });
  unary("cosh", [](const T& a) { return tl::cosh(a); });
  unary("tanh", [](const T& a) { return tl::tanh(a); });
  binary("add sub", [](const T& a, const T& b) { return (a + b) * (a - b); });
  binary("div", [](const T& a, const T& b) { return a / b; });
  binary("pow", [](const T& a, const T& b) { return tl::pow(a, b); });
  binary("atan2", [](const T& a, const T& b) { return tl::atan2(a, b); });
  binary("maximum minimum", [](const T& a, const T& b) { return tl::maximum(a, b) * tl::minimum(a, b); });
  binary("fmod remainder", [](const T& a, const T& b) { return tl::fmod(a, b) * tl::remainder(a, b); });
  binary("where", [](const T& a, const T& b) { return tl::where(a > b, a * b, b * b); });
  binary("lerp", [](const T& a, const T& b) { return tl::lerp(a, b, a); });
}

TEST_CASE("CUDA double backward: gradgradcheck takes GPU inputs") {
  if (no_gpu()) return;
  tl::Generator gen(44);
  auto x = tl::randn({2, 3}, gen).to<double>().cuda().requires_grad_();
  auto w = tl::randn({3}, gen).to<double>().cuda().requires_grad_();
  const auto f = [](const std::vector<tl::Tensor<double>>& in) -> tl::Tensor<double> {
    return tl::tanh(in[0] * in[1]) * in[0];
  };
  CHECK(tl::autograd::gradgradcheck(f, {x, w}));
}
