// Runs the functor fixture checks of tests/expr on the GPU: the fused kernels
// run the functors written once for host and device (DESIGN 3.3), here on
// CUDA's math, against the same PyTorch fixtures and tolerances as the CPU.

#pragma once
#include "../expr/functor_fixtures.hpp"
#include "cuda_support.hpp"

namespace functor_fixtures {

// Runs `checks` with the fixtures' inputs moved to the GPU.
template <class F>
void on_gpu(F checks) {
  if (cuda_support::no_gpu()) return;
  device = tl::kCUDA;
  try {
    checks();
  } catch (...) {
    device = tl::kCPU;
    throw;
  }
  device = tl::kCPU;
}

}  // namespace functor_fixtures
