#pragma once
/// \file
/// Softmax and log-softmax of contiguous rows on a GPU (nvcc translation
/// units only), the CUDA form of backend/cpu/softmax.hpp, with the reducers
/// and the exponential the CPU uses (ops/reducers.hpp, fn::Exp). Rows of up
/// to 1024 aligned elements are held in registers by one warp each (Note
/// [softmax rows in registers]); longer or unaligned rows take one block per
/// row, which sweeps it three times (maximum; sum of exp(x - max); output),
/// the row staying in L2 between sweeps, with packet loads where rows are
/// aligned. Merges are fixed-order warp shuffles, so results are
/// deterministic.
///
/// Note [softmax rows in registers]
/// The block-per-row kernel reads a row three times and merges twice across
/// the block (barriers): on an H100, rows of 1024 floats ran at 2285 GB/s
/// against PyTorch's 2780 (bench/RESULTS.md). A row of at most 32 lanes x
/// kPackets packets of kVec elements (1024 floats with 8 packets a lane)
/// fits a warp's registers: each lane loads its packets once, the maximum
/// and the sum are merged by shuffles within the warp (no barrier), softmax
/// keeps the exponentials it summed and writes them scaled, all from
/// registers, so the row is read from memory once. kPackets is the next
/// power of two of the packets a lane needs (four kernels per type). nvcc's
/// resource report (sm_90, -O3): 26 to 60 registers in float, no stack
/// frame; in double up to 128 registers, and 8 to 24 bytes of stack around
/// the double division and logarithm subroutines. Written without a GPU:
/// not yet measured.

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

/// One warp per row, the row in registers (Note [softmax rows in registers]):
/// rows of at most 32 * kPackets * kVec elements, cols a multiple of kVec,
/// rows aligned to packets.
template <bool Log, class T, int kPackets>
__global__ void __launch_bounds__(kThreads) softmax_warp_rows_kernel(const T* x, T* y, int64_t rows, int64_t cols) {
  using Max = tensorlib::detail::ExtremumReducer<T, true>;
  using Sum = tensorlib::detail::SumReducer<T>;
  constexpr fn::Exp exp_fn;
  constexpr fn::Log log_fn;
  constexpr int kWarps = kThreads / 32;
  const int lane = static_cast<int>(threadIdx.x) % 32;
  const int64_t first = int64_t{blockIdx.x} * kWarps + static_cast<int64_t>(threadIdx.x) / 32;
  for (int64_t row = first; row < rows; row += int64_t{gridDim.x} * kWarps) {
    const T* xr = x + row * cols;
    T* yr = y + row * cols;
    Packet<T> v[kPackets];
    auto m = Max::identity();
#pragma unroll
    for (int p = 0; p < kPackets; ++p) {
      const int64_t j = (int64_t{p} * 32 + lane) * kVec;
      if (j < cols) {
        v[p] = *reinterpret_cast<const Packet<T>*>(xr + j);
#pragma unroll
        for (int k = 0; k < kVec; ++k) m = Max::step(m, v[p].v[k]);
      }
    }
    const T mx = static_cast<T>(broadcast_lane0(warp_merge<Max>(m)));
    auto s = Sum::identity();
#pragma unroll
    for (int p = 0; p < kPackets; ++p) {
      if ((int64_t{p} * 32 + lane) * kVec < cols) {
#pragma unroll
        for (int k = 0; k < kVec; ++k) {
          const T e = exp_fn(v[p].v[k] - mx);
          s = Sum::step(s, e);
          if constexpr (!Log) v[p].v[k] = e;  // written scaled below
        }
      }
    }
    const T total = static_cast<T>(broadcast_lane0(warp_merge<Sum>(s)));
    // The same formulas as the block kernel: (x - m) - log(sum), exp(x - m) / sum.
    const T shift = Log ? log_fn(total) : T(1) / total;
#pragma unroll
    for (int p = 0; p < kPackets; ++p) {
      const int64_t j = (int64_t{p} * 32 + lane) * kVec;
      if (j < cols) {
        Packet<T> out;
#pragma unroll
        for (int k = 0; k < kVec; ++k) out.v[k] = Log ? (v[p].v[k] - mx) - shift : v[p].v[k] * shift;
        *reinterpret_cast<Packet<T>*>(yr + j) = out;
      }
    }
  }
}

template <bool Log, class T, int kPackets>
void launch_softmax_warp_rows(const T* x, T* y, int64_t rows, int64_t cols, int device, cudaStream_t stream) {
  constexpr int64_t kWarps = kThreads / 32;
  const auto blocks = static_cast<unsigned>(
      std::min<int64_t>((rows + kWarps - 1) / kWarps, int64_t{multiprocessor_count(device)} * 32));
  softmax_warp_rows_kernel<Log, T, kPackets><<<blocks, kThreads, 0, stream>>>(x, y, rows, cols);
}

/// y[r, :] = softmax(x[r, :]) (Log: log_softmax) for `rows` contiguous rows
/// of `cols` elements on GPU `device`, on its current stream.
template <bool Log, class T>
void launch_softmax_rows(const T* x, T* y, int64_t rows, int64_t cols, int device) {
  if (rows == 0 || cols == 0) return;
  DeviceGuard guard(device);
  const cudaStream_t stream = current_stream(device).handle();
  // Packet loads when every row starts aligned (the rows are contiguous).
  const bool vec = cols % kVec == 0 && aligned(x, alignof(Packet<T>)) && aligned(y, alignof(Packet<T>));
  const int64_t lane_packets = (cols / kVec + 31) / 32;
  if (vec && lane_packets <= 1)
    launch_softmax_warp_rows<Log, T, 1>(x, y, rows, cols, device, stream);
  else if (vec && lane_packets <= 2)
    launch_softmax_warp_rows<Log, T, 2>(x, y, rows, cols, device, stream);
  else if (vec && lane_packets <= 4)
    launch_softmax_warp_rows<Log, T, 4>(x, y, rows, cols, device, stream);
  else if (vec && lane_packets <= 8)
    launch_softmax_warp_rows<Log, T, 8>(x, y, rows, cols, device, stream);
  else {
    const auto blocks = static_cast<unsigned>(std::min<int64_t>(rows, int64_t{multiprocessor_count(device)} * 64));
    softmax_rows_kernel<Log, T><<<blocks, kThreads, 0, stream>>>(x, y, rows, cols, vec);
  }
  check(cudaGetLastError(), Log ? "log_softmax kernel launch" : "softmax kernel launch");
}

/// Set before main by each nvcc translation unit that runs softmax on T.
template <bool Log, class T>
inline const bool softmax_registered = (softmax_kernel<Log, T> = &launch_softmax_rows<Log, T>, true);

}  // namespace tensorlib::cuda::detail
