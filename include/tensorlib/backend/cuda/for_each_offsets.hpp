#pragma once
/// \file
/// The CUDA form of cpu::for_each_offsets (backend/cpu/strided_loop.hpp), for
/// gathers and scatters (nvcc translation units only): a thread per element
/// of the shape computes the element's offset in each of N strided operands
/// and calls the functor. The loop plan is the CPU's (size-1 dimensions
/// dropped, contiguous runs merged); the offsets come from one division per
/// remaining dimension. Unlike the CPU loop there is no order: scatters with
/// repeated indices write in an unspecified order, as PyTorch's CUDA scatter.

#include <cuda_runtime_api.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "tensorlib/backend/cpu/loop_plan.hpp"
#include "tensorlib/backend/cuda/pointwise.hpp"
#include "tensorlib/backend/cuda/registry.hpp"
#include "tensorlib/backend/cuda/runtime.hpp"
#include "tensorlib/core/shape.hpp"

namespace tensorlib::cuda::detail {

/// The merged loop nest as a kernel argument.
template <std::size_t N>
struct OffsetsPlan {
  int ndim = 0;
  int64_t sizes[Shape::kMaxDims] = {};
  int64_t strides[N][Shape::kMaxDims] = {};
};

template <std::size_t N, class F>
__global__ void __launch_bounds__(kThreads) offsets_kernel_body(OffsetsPlan<N> plan, int64_t n, F f) {
  const int64_t step = int64_t{gridDim.x} * kThreads;
  for (int64_t e = int64_t{blockIdx.x} * kThreads + threadIdx.x; e < n; e += step) {
    std::array<int64_t, N> offsets{};
    int64_t rest = e;
    for (int d = plan.ndim - 1; d >= 0; --d) {
      const int64_t size = plan.sizes[d];
      const int64_t coord = rest % size;
      rest /= size;
#pragma unroll
      for (std::size_t k = 0; k < N; ++k) offsets[k] += coord * plan.strides[k][d];
    }
    f(static_cast<const std::array<int64_t, N>&>(offsets));
  }
}

/// Calls f(offsets) on GPU `device` for every element of `shape`, with
/// offsets[k] the element's offset under strides[k].
template <std::size_t N, class F>
void launch_offsets(const Shape& shape, const std::array<Shape, N>& strides, const F& f, int device) {
  const int64_t n = shape.numel();
  if (n == 0) return;
  const cpu::LoopPlan loop = cpu::make_loop_plan(shape, std::vector<Shape>(strides.begin(), strides.end()), 0);
  OffsetsPlan<N> plan;
  plan.ndim = static_cast<int>(loop.ndim());
  for (int d = 0; d < plan.ndim; ++d) {
    plan.sizes[d] = loop.sizes[d];
    for (std::size_t k = 0; k < N; ++k) plan.strides[k][d] = loop.strides[k][d];
  }
  DeviceGuard guard(device);
  offsets_kernel_body<N, F><<<grid_for(n, device), kThreads, 0, current_stream(device).handle()>>>(plan, n, f);
  check(cudaGetLastError(), "gather/scatter kernel launch");
}

/// Set before main by each nvcc translation unit that runs functor F.
template <std::size_t N, class F>
inline const bool offsets_registered = (offsets_kernel<N, F> = &launch_offsets<N, F>, true);

}  // namespace tensorlib::cuda::detail
