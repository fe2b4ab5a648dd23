#pragma once
/// \file
/// The CUDA executor of pointwise expressions: one kernel per expression
/// type (DESIGN 3.4), in four instantiations chosen at run time: the
/// contiguous path (every operand dense or a broadcast scalar, pointers
/// aligned, offsets below 2^30: kVec elements per thread with vector loads
/// and stores, Note [vectorized loads]), the row path for broadcasts (Note [row path]) and
/// the strided path over the coalesced loop nest with 32-bit indices and
/// precomputed divisions when every offset fits, 64-bit otherwise. All use a
/// grid-stride loop over a grid sized to the GPU.
///
/// Note [row path]
/// A broadcast (a bias row over a matrix, a column, a scalar tensor) leaves
/// a loop nest of several dimensions whose innermost one every operand
/// either walks with stride 1 or does not move along. When that row's length
/// is a multiple of kVec and every vector access is aligned, a thread
/// handles kVec consecutive elements of one row: one division finds the row,
/// the outer coordinates give each operand's row offset, and each operand
/// loads its kVec elements with one vector load (stride 1) or one broadcast
/// value (stride 0). The leaves keep the row's stride at index 0 and the
/// outer dimensions after it, so every stride a thread reads has an index
/// known at compile time once the loops unroll: a run-time index would put
/// the expression argument in local memory (nvcc's resource report shows it
/// as a stack frame).
/// Only translation units compiled by nvcc include this header; they
/// register each launcher for the others (Note [kernels across translation
/// units]).
///
/// Note [32-bit indexing only]
/// The 64-bit strided kernel serves only tensors, or views, spanning 2^30 - 1
/// elements or more (max_offset), yet it is compiled for every expression, and its 64-bit
/// divisions make it the costliest of the four: without it nvcc built
/// tests/parity/functors_unary_float_test.cu with cicc 85 s instead of 111 s
/// and ptxas 11 s instead of 26 s. A program that never evaluates such
/// tensors on the GPU (the CUDA test suites, whose tensors are small) can
/// define TENSORLIB_CUDA_32BIT_INDEXING_ONLY for the whole program: such an
/// evaluation then throws NotImplementedError naming the macro instead of
/// launching, and the kernel is not instantiated.

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

#include "tensorlib/backend/cpu/loop_plan.hpp"
#include "tensorlib/backend/cuda/kernel_expr.hpp"
#include "tensorlib/backend/cuda/registry.hpp"
#include "tensorlib/backend/cuda/runtime.hpp"
#include "tensorlib/core/error.hpp"
#include "tensorlib/core/stats.hpp"
#include "tensorlib/core/tensor.hpp"
#include "tensorlib/expr/broadcast.hpp"
#include "tensorlib/expr/traverse.hpp"

namespace tensorlib::cuda::detail {

inline constexpr int kThreads = 256;

template <class T, class K>
__global__ void __launch_bounds__(kThreads) contiguous_kernel(T* out, K expr, int32_t n) {
  // 32-bit indices (n < 2^30): fewer registers, so more threads in flight.
  const int32_t step = static_cast<int32_t>(gridDim.x) * kThreads * kVec;
  for (int32_t base = (static_cast<int32_t>(blockIdx.x) * kThreads + static_cast<int32_t>(threadIdx.x)) * kVec;
       base < n; base += step) {
    if (base + kVec <= n) {
      for_each_leaf(expr, [&](auto& l) { l.load_vec(base); });
      Packet<T> r;
#pragma unroll
      for (int j = 0; j < kVec; ++j) r.v[j] = static_cast<T>(expr.value(j));
      *reinterpret_cast<Packet<T>*>(out + base) = r;
    } else {
      for (int32_t i = base; i < n; ++i) {
        for_each_leaf(expr, [&](auto& l) { l.load_linear(i); });
        out[i] = static_cast<T>(expr.value(0));
      }
    }
  }
}

template <class T, class I, class K>
__global__ void __launch_bounds__(kThreads)
    strided_kernel(T* out, KernelLeaf<T, I> out_strides, Decomposer<I> dec, K expr, int64_t n) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * kThreads;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x; i < n; i += step) {
    I idx[kMaxKernelDims];
    dec.coords(static_cast<I>(i), idx);
    for_each_leaf(expr, [&](auto& l) { l.load(idx, dec.ndim); });
    out[offset_of(idx, out_strides.strides, dec.ndim)] = static_cast<T>(expr.value(0));
  }
}

template <class T, class K>
__global__ void __launch_bounds__(kThreads)
    rows_kernel(T* out, KernelLeaf<T, int32_t> out_strides, Decomposer<int32_t> outer, FastDivmod row_vecs, K expr,
                int32_t n_vec) {
  const int32_t step = static_cast<int32_t>(gridDim.x) * kThreads;
  for (int32_t v = static_cast<int32_t>(blockIdx.x) * kThreads + static_cast<int32_t>(threadIdx.x); v < n_vec;
       v += step) {
    const auto row = static_cast<int32_t>(row_vecs.div(static_cast<uint32_t>(v)));
    const int32_t col = (v - row * static_cast<int32_t>(row_vecs.divisor)) * kVec;
    int32_t idx[kMaxKernelDims];
    outer.coords(row, idx);
    for_each_leaf(expr, [&](auto& l) { l.load_row(row_offset(idx, l.strides, outer.ndim) + col * l.strides[0]); });
    Packet<T> r;
#pragma unroll
    for (int j = 0; j < kVec; ++j) r.v[j] = static_cast<T>(expr.value(j));
    *reinterpret_cast<Packet<T>*>(out + row_offset(idx, out_strides.strides, outer.ndim) + col) = r;
  }
}

/// Blocks of `Kernel` (kThreads each) the GPU `device` runs at once. The
/// per-SM count is cached per kernel (the first device's: one program's GPUs
/// are assumed to be of one architecture).
template <auto Kernel>
int64_t resident_blocks(int device) {
  static const int per_sm = [] {
    int n = 0;
    check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, Kernel, kThreads, 0),
          "cudaOccupancyMaxActiveBlocksPerMultiprocessor");
    return std::max(n, 1);
  }();
  return int64_t{per_sm} * multiprocessor_count(device);
}

/// Blocks per SM at which grid_for caps a grid (0: no cap, one thread-item
/// per thread). A variable only so that cuda_bench can time other caps in
/// the same run as the default (FusedChain/16 and /0); the library never
/// changes it.
inline int64_t grid_blocks_per_sm = 16;

/// Blocks for `work` thread-items: enough to fill every SM several times,
/// not more (the grid-stride loop covers the rest). A grid of exactly one
/// wave of resident blocks with even rounds per thread measured 1.3% slower
/// on the 5-op chain (H100: 552 against 545 us), so this simple cap stays.
inline unsigned grid_for(int64_t work, int device) {
  const int64_t wanted = (work + kThreads - 1) / kThreads;
  const int64_t cap = grid_blocks_per_sm > 0 ? int64_t{multiprocessor_count(device)} * grid_blocks_per_sm
                                             : int64_t{std::numeric_limits<int32_t>::max()};
  return static_cast<unsigned>(std::clamp<int64_t>(wanted, 1, cap));
}

inline bool aligned(const void* p, std::size_t bytes) { return reinterpret_cast<std::uintptr_t>(p) % bytes == 0; }

/// Largest element offset any operand of `plan` reaches (for the index width).
inline int64_t max_offset(const cpu::LoopPlan& plan) {
  int64_t m = plan.sizes.numel();
  for (const Shape& s : plan.strides) {
    int64_t off = 0;
    for (int64_t d = 0; d < plan.ndim(); ++d) off += (plan.sizes[d] - 1) * (s[d] < 0 ? -s[d] : s[d]);
    m = std::max(m, off + 1);
  }
  return m;
}

/// The error of Note [32-bit indexing only]: `what` (e.g. "a pointwise
/// expression") has operands spanning `span` elements.
[[noreturn]] inline void refuse_64bit_indexing(const char* what, int64_t span) {
  throw NotImplementedError(::tensorlib::detail::concat(
      what, " whose operands span ", span,
      " elements was evaluated on the GPU, but this code was compiled without the 64-bit kernel "
      "(TENSORLIB_CUDA_32BIT_INDEXING_ONLY is defined); build it without that macro to evaluate tensors or views "
      "spanning 2^30 - 1 elements or more"));
}

template <class I, class T, class E>
void launch_strided(const Tensor<T>& out, const E& expr, const cpu::LoopPlan& plan, int device, cudaStream_t stream) {
  int64_t operand = 1;
  auto k = make_kernel_node<I>(expr, plan, operand);
  KernelLeaf<T, I> o;
  for (int64_t d = 0; d < plan.ndim(); ++d) o.strides[d] = static_cast<I>(plan.strides[0][d]);
  const int64_t n = plan.sizes.numel();
  strided_kernel<T, I>
      <<<grid_for(n, device), kThreads, 0, stream>>>(out.data_ptr(), o, Decomposer<I>(plan.sizes), k, n);
}

/// The plan of Note [row path] (the row first, then the outer dimensions),
/// or an empty plan when the nest does not qualify. `aligned_all`: every
/// operand's pointer is aligned to kVec elements.
inline cpu::LoopPlan row_plan(const cpu::LoopPlan& plan, bool aligned_all) {
  const int64_t nd = plan.ndim();
  if (!aligned_all || nd < 2 || plan.inner() % kVec != 0 || plan.strides[0][nd - 1] != 1) return {};
  if (max_offset(plan) >= std::numeric_limits<int32_t>::max() / 2) return {};
  cpu::LoopPlan rows;
  rows.sizes.push_back(plan.inner());
  for (int64_t d = 0; d + 1 < nd; ++d) rows.sizes.push_back(plan.sizes[d]);
  for (const Shape& s : plan.strides) {
    const int64_t inner = s[nd - 1];
    if (inner != 0 && inner != 1) return {};
    Shape r{inner};
    for (int64_t d = 0; d + 1 < nd; ++d) {
      if (inner == 1 && s[d] % kVec != 0) return {};  // each row's start stays aligned
      r.push_back(s[d]);
    }
    rows.strides.push_back(r);
  }
  return rows;
}

/// Evaluates `expr` into `out` on `out`'s GPU (same rules as cpu::run_pointwise).
template <Element T, class E>
void launch_pointwise(const Tensor<T>& out, const E& expr) {
  if (out.numel() == 0) return;
  stats::detail::count_fused_kernel();
  std::vector<Shape> strides{out.strides()};
  // Packets' alignment: kVec elements' size, or its largest power-of-two
  // divisor for a 12-byte dual (whose packets then start every 48 bytes).
  bool aligned_all = aligned(out.data_ptr(), alignof(Packet<T>));
  for_each_tensor(expr, [&](const auto& leaf) {
    strides.push_back(broadcast_strides(leaf.sizes(), leaf.strides(), out.sizes()));
    aligned_all =
        aligned_all &&
        aligned(leaf.data_ptr(), alignof(Packet<std::remove_cv_t<std::remove_pointer_t<decltype(leaf.data_ptr())>>>));
  });
  const cpu::LoopPlan plan = cpu::make_loop_plan(out.sizes(), strides);
  const int device = out.device().index;
  DeviceGuard guard(device);
  const cudaStream_t stream = current_stream(device).handle();

  bool dense = plan.ndim() == 1 && plan.strides[0][0] == 1;
  for (std::size_t op = 1; dense && op < plan.strides.size(); ++op)
    dense = plan.strides[op][0] == 1 || plan.strides[op][0] == 0;
  const bool fits32 = max_offset(plan) < std::numeric_limits<int32_t>::max() / 2;
  if (dense && aligned_all && fits32) {
    int64_t operand = 1;
    auto k = make_kernel_node<int32_t>(expr, plan, operand);
    const int64_t n = plan.sizes[0];
    contiguous_kernel<T>
        <<<grid_for((n + kVec - 1) / kVec, device), kThreads, 0, stream>>>(out.data_ptr(), k, static_cast<int32_t>(n));
  } else if (const cpu::LoopPlan rows = row_plan(plan, aligned_all); rows.ndim() > 0) {
    int64_t operand = 1;
    auto k = make_kernel_node<int32_t>(expr, rows, operand);
    KernelLeaf<T, int32_t> o;
    for (int64_t d = 0; d < rows.ndim(); ++d) o.strides[d] = static_cast<int32_t>(rows.strides[0][d]);
    Shape outer_sizes;
    for (int64_t d = 1; d < rows.ndim(); ++d) outer_sizes.push_back(rows.sizes[d]);
    const int64_t n_vec = plan.sizes.numel() / kVec;
    rows_kernel<T><<<grid_for(n_vec, device), kThreads, 0, stream>>>(
        out.data_ptr(), o, Decomposer<int32_t>(outer_sizes), FastDivmod(static_cast<uint32_t>(rows.sizes[0] / kVec)), k,
        static_cast<int32_t>(n_vec));
  } else if (fits32) {
    launch_strided<int32_t>(out, expr, plan, device, stream);
  } else {
#if defined(TENSORLIB_CUDA_32BIT_INDEXING_ONLY)  // Note [32-bit indexing only]
    refuse_64bit_indexing("a pointwise expression", max_offset(plan));
#else
    launch_strided<int64_t>(out, expr, plan, device, stream);
#endif
  }
  check(cudaGetLastError(), "fused pointwise kernel launch");
}

/// Set before main by each nvcc translation unit that evaluates E.
template <Element T, class E>
inline const bool pointwise_registered = (pointwise_kernel<T, E> = &launch_pointwise<T, E>, true);

}  // namespace tensorlib::cuda::detail
