// Double backward through fused expressions on the GPU: the second-order
// pass (autograd/second_order_pass.hpp) as one kernel (Note [GPU adjoint
// sweep]), against the same graphs on the CPU. A program of its own: the
// other CUDA suites define TENSORLIB_NO_DOUBLE_BACKWARD. The second-order
// kernel of every twice-differentiable functor is checked in
// double_backward_{activations,special,trig}_test.cu. Tolerances: 1e-10
// relative in double (the device's sin/cos/tanh and its sums round
// differently from the host's), 1e-4 in float.

#include <doctest/doctest.h>

#include <vector>

#include <tensorlib/tensor.hpp>

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
