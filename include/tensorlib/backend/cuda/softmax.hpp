#pragma once
/// \file
/// Softmax and log-softmax of contiguous rows on a GPU (nvcc translation
/// units only), the CUDA form of backend/cpu/softmax.hpp: one block per row
/// sweeps it three times (maximum; sum of exp(x - max); output), the row
/// staying in L2 between sweeps, with packet loads where rows are aligned, with the reducers and the exponential the
/// CPU uses (ops/reducers.hpp, fn::Exp). Block merges are fixed-order warp
/// shuffles, so results are deterministic.

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>

#include "tensorlib/backend/cuda/reduce.hpp"
#include "tensorlib/backend/cuda/registry.hpp"
#include "tensorlib/backend/cuda/runtime.hpp"
#include "tensorlib/expr/functors/transcendental.hpp"
#include "tensorlib/ops/reducers.hpp"

namespace tensorlib::cuda::detail {

/// Merges the accumulators of a block's threads (lower threads on the left);
/// every thread gets the result.
template <class R, class A>
__device__ A block_merge(A acc) {
  constexpr int kWarps = kThreads / 32;
  __shared__ A warps[kWarps];
  const int warp = static_cast<int>(threadIdx.x) / 32, lane = static_cast<int>(threadIdx.x) % 32;
  acc = warp_merge<R>(acc);
  if (lane == 0) warps[warp] = acc;
  __syncthreads();
  if (warp == 0) {
    acc = warp_merge<R>(lane < kWarps ? warps[lane] : R::identity());
    if (lane == 0) warps[0] = acc;
  }
  __syncthreads();
  acc = warps[0];
  __syncthreads();  // `warps` is reused by the next merge
  return acc;
}

// Calls fn(j, v) for every element j of the row (v its value), a thread
// taking elements j = threadIdx.x, +kThreads, ... or, when `vec`, kVec
// consecutive elements per packet load.
template <class T, class Fn>
__device__ void for_row(const T* row, int64_t cols, bool vec, Fn&& fn) {
  if (vec) {
    for (int64_t j = int64_t{threadIdx.x} * kVec; j < cols; j += int64_t{kThreads} * kVec) {
      const Packet<T> p = *reinterpret_cast<const Packet<T>*>(row + j);
#pragma unroll
      for (int k = 0; k < kVec; ++k) fn(j + k, p.v[k]);
    }
  } else {
    for (int64_t j = threadIdx.x; j < cols; j += kThreads) fn(j, row[j]);
  }
}

template <bool Log, class T>
__global__ void __launch_bounds__(kThreads)
    softmax_rows_kernel(const T* x, T* y, int64_t rows, int64_t cols, bool vec) {
  using Max = tensorlib::detail::ExtremumReducer<T, true>;
  using Sum = tensorlib::detail::SumReducer<T>;
  constexpr fn::Exp exp_fn;
  constexpr fn::Log log_fn;
  for (int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    const T* xr = x + row * cols;
    T* yr = y + row * cols;
    auto m = Max::identity();
    for_row(xr, cols, vec, [&](int64_t, T v) { m = Max::step(m, v); });
    const T mx = static_cast<T>(block_merge<Max>(m));
    auto s = Sum::identity();
    for_row(xr, cols, vec, [&](int64_t, T v) { s = Sum::step(s, exp_fn(v - mx)); });
    const T total = static_cast<T>(block_merge<Sum>(s));
    if constexpr (Log) {
      // (x - m) - log(sum), in that order (backend/cpu/softmax.hpp's shift_row).
      const T l = log_fn(total);
      for_row(xr, cols, vec, [&](int64_t j, T v) { yr[j] = (v - mx) - l; });
    } else {
      const T k = T(1) / total;
      for_row(xr, cols, vec, [&](int64_t j, T v) { yr[j] = exp_fn(v - mx) * k; });
    }
  }
}

/// y[r, :] = softmax(x[r, :]) (Log: log_softmax) for `rows` contiguous rows
/// of `cols` elements on GPU `device`, on its current stream.
template <bool Log, class T>
void launch_softmax_rows(const T* x, T* y, int64_t rows, int64_t cols, int device) {
  if (rows == 0 || cols == 0) return;
  DeviceGuard guard(device);
  const auto blocks = static_cast<unsigned>(std::min<int64_t>(rows, int64_t{multiprocessor_count(device)} * 64));
  // Packet loads when every row starts aligned (the rows are contiguous).
  const bool vec = cols % kVec == 0 && aligned(x, sizeof(T) * kVec);
  softmax_rows_kernel<Log, T><<<blocks, kThreads, 0, current_stream(device).handle()>>>(x, y, rows, cols, vec);
  check(cudaGetLastError(), Log ? "log_softmax kernel launch" : "softmax kernel launch");
}

/// Set before main by each nvcc translation unit that runs softmax on T.
template <bool Log, class T>
inline const bool softmax_registered = (softmax_kernel<Log, T> = &launch_softmax_rows<Log, T>, true);

}  // namespace tensorlib::cuda::detail
