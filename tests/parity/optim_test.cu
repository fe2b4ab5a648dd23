// Optimizer steps on the GPU against the CPU: the same rules' element
// functors run as one CUDA kernel per parameter (backend/cuda/for_each.hpp).
// Both sides replay the same gradients, so only rounding differs: the GPU
// fuses every multiply-add, this file's host loop (compiled by nvcc for
// baseline x86-64) rounds them twice; over 20 steps that stays within 1e-5.

#include <doctest/doctest.h>

#include <vector>

#include <tensorlib/tensorlib.hpp>

#include "cuda_support.hpp"

namespace o = tl::optim;

namespace {

template <template <class> class Opt, class Options>
void check_rule(const Options& options) {
  tl::Generator gen(3);
  auto cpu_w = tl::randn({37, 5}, gen).requires_grad_();  // odd sizes
  auto cpu_b = tl::randn({5}, gen).requires_grad_();
  auto gpu_w = cpu_w.detach().cuda().requires_grad_();
  auto gpu_b = cpu_b.detach().cuda().requires_grad_();
  Opt<float> on_cpu(std::vector{cpu_w, cpu_b}, options);
  Opt<float> on_gpu(std::vector{gpu_w, gpu_b}, options);
  for (int step = 0; step < 20; ++step) {
    const auto gw = tl::randn({37, 5}, gen), gb = tl::randn({5}, gen);
    cpu_w.set_grad(gw);
    cpu_b.set_grad(gb);
    gpu_w.set_grad(gw.cuda());
    gpu_b.set_grad(gb.cuda());
    const auto before = tl::stats::snapshot();
    on_cpu.step();
    on_gpu.step();
    // The first step also fills each parameter's state buffers with zeros.
    if (step > 0) CHECK((tl::stats::snapshot() - before).fused_kernels == 2);
  }
  CHECK(tl::allclose(gpu_w.detach().cpu(), cpu_w.detach(), 1e-5, 1e-6));
  CHECK(tl::allclose(gpu_b.detach().cpu(), cpu_b.detach(), 1e-5, 1e-6));
}

}  // namespace

TEST_CASE("CUDA: every update rule matches its CPU steps") {
  if (cuda_support::no_gpu()) return;
  check_rule<o::SGD>(o::SGDOptions{.lr = 0.05, .momentum = 0.9, .nesterov = true});
  check_rule<o::Adam>(o::AdamOptions{.lr = 0.01, .weight_decay = 0.1, .amsgrad = true});
  check_rule<o::AdamW>(o::AdamWOptions{.lr = 0.01});
  check_rule<o::Adamax>(o::AdamaxOptions{});
  check_rule<o::NAdam>(o::NAdamOptions{.decoupled_weight_decay = true});
  check_rule<o::RAdam>(o::RAdamOptions{.lr = 0.01});
  check_rule<o::RMSprop>(o::RMSpropOptions{.momentum = 0.5, .centered = true});
  check_rule<o::Adagrad>(o::AdagradOptions{.lr_decay = 0.01});
  check_rule<o::Adadelta>(o::AdadeltaOptions{});
  check_rule<o::Rprop>(o::RpropOptions{});
  check_rule<o::ASGD>(o::ASGDOptions{.t0 = 5});
}
