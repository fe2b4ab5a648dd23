// The second-order parity check of one functor (tests/parity/double_backward_*_test.cu):
// d/dx of <d f / d x, v> (and d/dy) on the GPU against the CPU.

#pragma once

#include <doctest/doctest.h>

#include <cstddef>
#include <vector>

#include <tensorlib/tensor.hpp>

#include "cuda_support.hpp"

namespace second_order_parity {

// d/dx of <d f / d x, v> (and d/dy for two inputs) on the GPU against the
// CPU, for f = functor(x[, y]) * w: compiles the second-order kernel of each
// functor's nested dual forms (a user's nvcc file gets them for every
// expression it differentiates).
template <class F>
void check(const char* name, F f, int inputs) {
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
  const auto got = hvp(cuda_support::gpu_leaf(x), cuda_support::gpu_leaf(y), w.cuda(), v.cuda());
  for (std::size_t i = 0; i < want.size(); ++i) {
    if (!want[i].defined()) {
      CHECK(!got[i].defined());
      continue;
    }
    cuda_support::check_parity(got[i], want[i], 1e-4, 1e-5, name);
  }
}

}  // namespace second_order_parity
