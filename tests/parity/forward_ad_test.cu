// Forward mode on the GPU (dual tensors run their fused chains as one
// kernel) and gradcheck with GPU inputs, against the CPU. Tolerances: 1e-5
// relative in float, 1e-12 in double, unless a test states its own.

#include <doctest/doctest.h>

#include <optional>
#include <string>
#include <vector>

#include <tensorlib/tensor.hpp>

#include "cuda_support.hpp"

using cuda_support::check_parity;
using cuda_support::gpu_leaf;
using cuda_support::no_gpu;

TEST_CASE("CUDA autograd: gradcheck takes GPU inputs (one-element copies perturb them)") {
  if (no_gpu()) return;
  tl::Generator gen(20);
  auto x = tl::randn({3, 4}, gen).to<double>().cuda().requires_grad_();
  auto w = tl::randn({4}, gen).to<double>().cuda().requires_grad_();
  const auto f = [](const std::vector<tl::Tensor<double>>& in) -> tl::Tensor<double> {
    return tl::sigmoid(in[0] * in[1]) * tl::exp(in[1]);
  };
  // Passing needs every perturbation to reach the GPU: an unperturbed input
  // would give a zero numerical Jacobian against a nonzero analytical one.
  CHECK(tl::autograd::gradcheck(f, {x, w}));
  CHECK(x.is_cuda());
  // The inputs are restored after the check.
  tl::Generator again(20);
  check_parity(x.detach(), tl::randn({3, 4}, again).to<double>(), 0, 0, "x restored");
}

TEST_CASE("CUDA forward mode: dual tensors run their fused chains as one kernel and match the CPU") {
  if (no_gpu()) return;
  namespace fad = tl::autograd::forward_ad;
  tl::Generator gen(31);
  auto chain = [](const auto& x, const auto& c) { return tl::sigmoid(x * c) * tl::exp(x) - tl::tanh(x) / 2.f + 1.f; };
  const auto same = [](const auto& gpu, const auto& cpu, const std::string& what) {
    check_parity(gpu.primal, cpu.primal, 1e-5, 1e-6, what + " primal");
    check_parity(gpu.tangents[0], cpu.tangents[0], 1e-5, 1e-6, what + " tangent 0");
    check_parity(gpu.tangents[1], cpu.tangents[1], 1e-5, 1e-6, what + " tangent 1");
  };
  // 33 columns: the strided path; 32: the row path, whose dual packets are
  // 48 bytes at 16-byte alignment; the chain of x with itself: the dense path.
  for (const int64_t cols : {33, 32}) {
    CAPTURE(cols);
    const auto a = tl::randn({257, cols}, gen), t0 = tl::randn({257, cols}, gen), t1 = tl::randn({257, cols}, gen);
    const auto w = tl::randn({1, cols}, gen);  // a plain broadcast constant
    const auto xc = fad::make_dual(a, t0, t1);
    const auto x = fad::make_dual(a.cuda(), t0.cuda(), t1.cuda());
    CHECK(x.is_cuda());
    auto before = tl::stats::snapshot();
    const tl::Tensor<tl::Dual<float, 2>> y(chain(x, w.cuda()));
    CHECK((tl::stats::snapshot() - before).fused_kernels == 1);
    CHECK((tl::stats::snapshot() - before).fused_loops == 0);
    same(fad::unpack_dual(y), fad::unpack_dual(chain(xc, w)), "broadcast " + std::to_string(cols));
    before = tl::stats::snapshot();
    const tl::Tensor<tl::Dual<float, 2>> z(chain(x, x));
    CHECK((tl::stats::snapshot() - before).fused_kernels == 1);
    same(fad::unpack_dual(z), fad::unpack_dual(chain(xc, xc)), "dense " + std::to_string(cols));
  }
  const auto a = tl::randn({5, 7}, gen), t0 = tl::randn({5, 7}, gen), t1 = tl::randn({5, 7}, gen);
  const auto x = fad::make_dual(a.cuda(), t0.cuda(), t1.cuda());
  // Copies keep the lanes; a tangent on another device is refused.
  const auto back = fad::unpack_dual(x.cpu());
  CHECK(tl::equal(back.tangents[1], t1));
  CHECK_THROWS_WITH_AS(fad::make_dual(a.cuda(), t0),
                       doctest::Contains("make_dual: tangent 0 is on cpu but the primal is on cuda"), tl::DeviceError);
}
