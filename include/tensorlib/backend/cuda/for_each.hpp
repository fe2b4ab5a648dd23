#pragma once
/// \file
/// The CUDA form of the multi-output loop (backend/cpu/for_each.hpp, Note
/// [multi-output loops]): one kernel per element type, functor and buffer
/// kinds, that loads every
/// buffer's element, calls the functor and stores the written ones, in a
/// grid-stride loop. Only translation units compiled by nvcc include this
/// header; they register the launcher for the others (Note [kernels across
/// translation units]).

#include <cuda_runtime_api.h>

#include <cstdint>
#include <type_traits>

#include "tensorlib/backend/cuda/pointwise.hpp"
#include "tensorlib/backend/cuda/registry.hpp"
#include "tensorlib/backend/cuda/runtime.hpp"
#include "tensorlib/core/stats.hpp"

namespace tensorlib::cuda::detail {

template <class T, class P>
__device__ void store_element(T v, P p) {
  if constexpr (!std::is_const_v<std::remove_pointer_t<P>>) *p = v;
}

template <class T, class F, class... P>
__global__ void __launch_bounds__(kThreads) for_each_kernel_body(F f, int64_t n, P... p) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * kThreads;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x; i < n; i += step) {
    [&](auto... v) {
      f(v...);
      (store_element(v, p + i), ...);
    }(static_cast<T>(p[i])...);
  }
}

/// Runs f over elements [0, n) of the buffers on GPU `device`, on the
/// current stream.
template <Element T, class F, class... P>
void launch_for_each(const F& f, int64_t n, int device, P... ptrs) {
  if (n == 0) return;
  stats::detail::count_fused_kernel();
  DeviceGuard guard(device);
  for_each_kernel_body<T><<<grid_for(n, device), kThreads, 0, current_stream(device).handle()>>>(f, n, ptrs...);
  check(cudaGetLastError(), "fused for_each kernel launch");
}

/// Set before main by each nvcc translation unit that runs f.
template <Element T, class F, class... P>
inline const bool for_each_registered = (for_each_kernel<T, F, P...> = &launch_for_each<T, F, P...>, true);

}  // namespace tensorlib::cuda::detail
