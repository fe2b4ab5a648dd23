// Helpers for the CUDA suites: skipping without a GPU (ctest reads the line
// through SKIP_REGULAR_EXPRESSION) and comparing a GPU result with the CPU's.

#pragma once
#include <doctest/doctest.h>

#include <cstdio>

#include <tensorlib/tensor.hpp>

#include "fixtures.hpp"

namespace cuda_support {

/// True (after printing the skip line) when this machine has no GPU.
inline bool no_gpu() {
  if (tl::cuda::is_available()) return false;
  std::puts("SKIPPED: no CUDA GPU");
  return true;
}

/// A leaf on the GPU with the same values as `cpu`.
template <class T>
tl::Tensor<T> gpu_leaf(const tl::Tensor<T>& cpu) {
  return cpu.detach().cuda().requires_grad_();
}

/// `gpu` (any device) equals `cpu` within the tolerances.
template <class T>
void check_parity(const tl::Tensor<T>& gpu, const tl::Tensor<T>& cpu, double rtol = 0, double atol = 0,
                  const std::string& what = "") {
  REQUIRE(gpu.is_cuda());
  fixtures::check_close(gpu.cpu(), cpu, rtol, atol, what);
}

}  // namespace cuda_support
