#pragma once
/// \file
/// Random tensors on a GPU (nvcc translation units only): the CUDA form of
/// cpu::philox_fill (backend/cpu/fill.hpp). Thread b computes Philox block
/// offset + b and writes its lanes, so element i gets the same words as on
/// the CPU (Note [philox streams] in core/generator.hpp).

#include <cuda_runtime_api.h>

#include <cstdint>

#include "tensorlib/backend/cuda/pointwise.hpp"
#include "tensorlib/backend/cuda/registry.hpp"
#include "tensorlib/backend/cuda/runtime.hpp"
#include "tensorlib/core/philox.hpp"

namespace tensorlib::cuda::detail {

template <class T, class F>
__global__ void __launch_bounds__(kThreads)
    philox_fill_kernel_body(T* out, int64_t n, int64_t blocks, uint64_t seed, uint64_t offset, F value) {
  constexpr int kPerBlock = F::kPerBlock;
  const int64_t step = int64_t{gridDim.x} * kThreads;
  for (int64_t b = int64_t{blockIdx.x} * kThreads + threadIdx.x; b < blocks; b += step) {
    const PhiloxBlock w = philox_block(seed, offset + static_cast<uint64_t>(b));
    const int64_t first = b * kPerBlock;
#pragma unroll
    for (int lane = 0; lane < kPerBlock; ++lane)
      if (first + lane < n) out[first + lane] = value(w, lane);
  }
}

/// out[i] = value(philox_block(seed, offset + i / F::kPerBlock), i %
/// F::kPerBlock) for n contiguous elements on GPU `device`, on its current
/// stream.
template <class T, class F>
void launch_philox_fill(T* out, int64_t n, uint64_t seed, uint64_t offset, const F& value, int device) {
  if (n == 0) return;
  DeviceGuard guard(device);
  const int64_t blocks = (n + F::kPerBlock - 1) / F::kPerBlock;
  philox_fill_kernel_body<T, F>
      <<<grid_for(blocks, device), kThreads, 0, current_stream(device).handle()>>>(out, n, blocks, seed, offset, value);
  check(cudaGetLastError(), "random kernel launch");
}

/// Set before main by each nvcc translation unit that draws T with F.
template <class T, class F>
inline const bool philox_fill_registered = (philox_fill_kernel<T, F> = &launch_philox_fill<T, F>, true);

}  // namespace tensorlib::cuda::detail
