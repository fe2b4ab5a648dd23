#pragma once
/// \file
/// The CUDA executor of reductions (nvcc translation units only): the same
/// reducers as the CPU loop (ops/reduce.hpp's `identity/step/merge`, host and
/// device), consuming a pointwise expression directly, deterministic (fixed
/// order, no atomics).
///
/// Note [reduction layout]
/// The dimensions are reordered as (outer, reduced, inner): kept dimensions
/// before the last reduced one, the reduced ones, kept dimensions after it.
/// Output order is unchanged (kept dimensions stay in order) and an inner
/// run stays innermost. Each group is coalesced separately. With no inner
/// dimensions (reducing the innermost run) a block of threads reduces one
/// output, consecutive threads reading consecutive elements, merged by warp
/// shuffles; otherwise each thread reduces one output, consecutive threads
/// holding consecutive inner positions (coalesced reads). When there are
/// too few outputs to fill the GPU, the reduced range is split across
/// blocks: a first kernel writes one partial accumulator per split, a second
/// merges them in split order.
///
/// Note [vectorized reductions]
/// Reading a reduction's input one element per load leaves the GPU's memory
/// system half idle. When every leaf walks the run the threads follow with
/// stride 1 (or 0: a broadcast operand) and every access is aligned, a
/// thread loads kVec consecutive elements at once: along the reduced run
/// when reducing the innermost dimension (threads then take every kVec-th
/// element of the row; splits start at multiples of kVec), along the inner
/// run otherwise (a thread then holds kVec consecutive outputs). The order
/// of each fold stays fixed, so results stay deterministic.
///
/// Note [one wave]
/// Splits are chosen so that the blocks of all splits fill the GPU exactly
/// once (the occupancy API gives how many blocks of the kernel an SM holds):
/// a second, partial wave would leave most SMs idle at the end (sum over
/// dim 0 of [8192, 8192]: 1024 blocks over 396 slots ran at 77% of the copy
/// bandwidth), and more splits only add partial accumulators to write and
/// merge.
///
/// Note [static indices]
/// Every stride a kernel reads is indexed by a loop variable that is a
/// compile-time constant once the loop over kMaxKernelDims unrolls; group
/// boundaries only enter as conditions. A stride read at a run-time index
/// (`strides[a.red_first]`) makes nvcc keep the whole expression argument in
/// local memory: the first version of these kernels had a 424-byte stack
/// frame (nvcc's resource report) and reached half the copy bandwidth.

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "tensorlib/backend/cuda/kernel_expr.hpp"
#include "tensorlib/backend/cuda/pointwise.hpp"
#include "tensorlib/backend/cuda/registry.hpp"
#include "tensorlib/backend/cuda/runtime.hpp"
#include "tensorlib/core/allocator.hpp"
#include "tensorlib/core/tensor.hpp"
#include "tensorlib/expr/broadcast.hpp"
#include "tensorlib/expr/traverse.hpp"

namespace tensorlib::cuda::detail {

/// The (outer, reduced, inner) nest of Note [reduction layout].
struct ReducePlan {
  Shape sizes;                 // outer dims, then reduced, then inner
  std::vector<Shape> strides;  // per leaf, same dims
  int outer_dims = 0, red_dims = 0, inner_dims = 0;
  int64_t outer = 1, red = 1, inner = 1;
};

// Appends dimensions `dims` of (shape, strides) to the plan as one group,
// dropping size-1 dimensions and merging where every leaf is contiguous.
inline int append_group(ReducePlan& p, const std::vector<int64_t>& dims, const Shape& shape,
                        const std::vector<Shape>& strides) {
  int count = 0;
  for (int64_t d : dims) {
    if (shape[d] == 1) continue;
    bool merge = count > 0;
    const int64_t last = p.sizes.size() - 1;
    for (std::size_t op = 0; merge && op < strides.size(); ++op)
      merge = p.strides[op][last] == strides[op][d] * shape[d];
    if (merge) {
      p.sizes[last] *= shape[d];
      for (std::size_t op = 0; op < strides.size(); ++op) p.strides[op][last] = strides[op][d];
    } else {
      p.sizes.push_back(shape[d]);
      for (std::size_t op = 0; op < strides.size(); ++op) p.strides[op].push_back(strides[op][d]);
      ++count;
    }
  }
  return count;
}

inline ReducePlan make_reduce_plan(const Shape& shape, const std::vector<Shape>& strides, uint32_t mask) {
  int64_t last = -1;
  for (int64_t d = 0; d < shape.size(); ++d)
    if (mask >> d & 1u) last = d;
  std::vector<int64_t> outer, red, inner;
  for (int64_t d = 0; d < shape.size(); ++d) (mask >> d & 1u ? red : d < last ? outer : inner).push_back(d);
  ReducePlan p;
  p.strides.assign(strides.size(), Shape{});
  p.outer_dims = append_group(p, outer, shape, strides);
  p.red_dims = append_group(p, red, shape, strides);
  p.inner_dims = append_group(p, inner, shape, strides);
  for (int i = 0; i < p.sizes.size(); ++i) {
    const int64_t s = p.sizes[i];
    (i < p.outer_dims ? p.outer : i < p.outer_dims + p.red_dims ? p.red : p.inner) *= s;
  }
  return p;
}

/// Where a kernel is in the nest. The leaves' strides keep the plan's order
/// (outer, reduced, inner); one decomposer covers every dimension and each
/// group is decomposed over its own range of it (Note [static indices]).
struct ReduceArgs {
  Decomposer<int64_t> dec;  // over all the plan's dimensions
  int outer_dims = 0, red_dims = 1, inner_dims = 0;
  int red_first = 0, inner_first = 0;  // index of the group's first dimension
  int64_t n_outer = 1, n_red = 1, n_inner = 1;
  int64_t split_len = 1;  // reduced elements per split
  bool vec = false;       // the vectorized form of the kernel applies (Note [vectorized reductions])
};

// Coordinates of `linear` over dimensions [first, first + count) of the nest into idx.
__device__ inline void group_coords(const Decomposer<int64_t>& dec, int64_t linear, int first, int count,
                                    int64_t* idx) {
#pragma unroll
  for (int d = kMaxKernelDims - 1; d >= 0; --d) {
    if (d >= first && d < first + count) {
      idx[d] = linear % dec.sizes[d];
      linear /= dec.sizes[d];
    }
  }
}

// Sets every leaf's base to the offset of (outer o, inner i) and reads its
// reduced and inner strides (those of the groups' first dimension).
template <class K>
__device__ void seek(K& k, const ReduceArgs& a, int64_t o, int64_t i) {
  int64_t c[kMaxKernelDims] = {};
  group_coords(a.dec, o, 0, a.outer_dims, c);
  group_coords(a.dec, i, a.inner_first, a.inner_dims, c);
  for_each_leaf(k, [&](auto& l) {
    // Arithmetic, not conditional assignments: nvcc turns `if (d == first)
    // x = strides[d]` into a load through a selected pointer, which puts the
    // leaf in local memory.
    int64_t b = 0, red = 0, inner = 0;
#pragma unroll
    for (int d = 0; d < kMaxKernelDims; ++d) {
      const int64_t s = l.strides[d];
      b += c[d] * s;
      red += s * int64_t{d == a.red_first};
      inner += s * int64_t{d == a.inner_first};
    }
    l.base = b;
    l.red_stride = red;
    l.inner_stride = inner;
  });
}

// Loads reduced element r into register j of every leaf.
template <class K>
__device__ void load_red(K& k, const ReduceArgs& a, int64_t r, int j) {
  if (a.red_dims == 1) {
    for_each_leaf(k, [&](auto& l) { l.regs[j] = l.ptr[l.base + r * l.red_stride]; });
  } else {
    int64_t rc[kMaxKernelDims] = {};
    group_coords(a.dec, r, a.red_first, a.red_dims, rc);
    for_each_leaf(k, [&](auto& l) {
      int64_t off = l.base;
#pragma unroll
      for (int d = 0; d < kMaxKernelDims; ++d) off += rc[d] * l.strides[d];
      l.regs[j] = l.ptr[off];
    });
  }
}

// Folds reduced elements [r0, r1) at the current position, kVec loads at a time.
template <class R, class K>
__device__ typename R::acc_type fold(K& k, const ReduceArgs& a, int64_t r0, int64_t r1, int64_t step) {
  using A = typename R::acc_type;
  A acc = R::identity();
  int64_t r = r0;
  for (; r + (kVec - 1) * step < r1; r += kVec * step) {
#pragma unroll
    for (int j = 0; j < kVec; ++j) load_red(k, a, r + j * step, j);
#pragma unroll
    for (int j = 0; j < kVec; ++j) acc = R::step(acc, k.value(j));
  }
  for (; r < r1; r += step) {
    load_red(k, a, r, 0);
    acc = R::step(acc, k.value(0));
  }
  return acc;
}

// `v` of lane + delta (any trivially copyable accumulator, word by word).
template <class A>
__device__ A shuffle_down(const A& v, int delta) {
  constexpr int kWords = (sizeof(A) + 3) / 4;
  unsigned words[kWords] = {};
  __builtin_memcpy(words, &v, sizeof(A));
#pragma unroll
  for (int w = 0; w < kWords; ++w) words[w] = __shfl_down_sync(0xffffffffu, words[w], delta);
  A r = v;
  __builtin_memcpy(&r, words, sizeof(A));
  return r;
}

// Lane 0's `v` in every lane (any trivially copyable value, word by word).
template <class A>
__device__ A broadcast_lane0(const A& v) {
  constexpr int kWords = (sizeof(A) + 3) / 4;
  unsigned words[kWords] = {};
  __builtin_memcpy(words, &v, sizeof(A));
#pragma unroll
  for (int w = 0; w < kWords; ++w) words[w] = __shfl_sync(0xffffffffu, words[w], 0);
  A r = v;
  __builtin_memcpy(&r, words, sizeof(A));
  return r;
}

// Merges a warp's accumulators into lane 0's, lower lanes on the left.
template <class R, class A>
__device__ A warp_merge(A acc) {
#pragma unroll
  for (int delta = 16; delta > 0; delta /= 2) acc = R::merge(acc, shuffle_down(acc, delta));
  return acc;
}

/// One block per (output, split): threads stride through the reduced range
/// (kVec elements per vector load when `a.vec`), then merge by warp shuffles
/// (fixed order, deterministic).
template <class R, class Out, class K, class Finish>
__global__ void __launch_bounds__(kThreads)
    reduce_rows_kernel(K expr, ReduceArgs a, Out* out, typename R::acc_type* partial, Finish finish) {
  using A = typename R::acc_type;
  constexpr int kWarps = kThreads / 32;
  __shared__ A warps[kWarps];
  const int64_t o = blockIdx.x, split = blockIdx.y;
  seek(expr, a, o, 0);
  const int64_t r0 = split * a.split_len, r1 = std::min(a.n_red, r0 + a.split_len);
  A acc;
  if (a.vec) {
    // split_len is a multiple of kVec: every vector load is aligned.
    acc = R::identity();
    const int64_t vec_end = r0 + (r1 - r0) / kVec * kVec;
    for (int64_t r = r0 + static_cast<int64_t>(threadIdx.x) * kVec; r < vec_end; r += kThreads * kVec) {
      for_each_leaf(expr, [&](auto& l) { l.load_reduced_vec(r); });
#pragma unroll
      for (int j = 0; j < kVec; ++j) acc = R::step(acc, expr.value(j));
    }
    for (int64_t r = vec_end + threadIdx.x; r < r1; r += kThreads) {
      load_red(expr, a, r, 0);
      acc = R::step(acc, expr.value(0));
    }
  } else {
    acc = fold<R>(expr, a, r0 + threadIdx.x, r1, kThreads);
  }
  acc = warp_merge<R>(acc);
  const int warp = static_cast<int>(threadIdx.x) / 32, lane = static_cast<int>(threadIdx.x) % 32;
  if (lane == 0) warps[warp] = acc;
  __syncthreads();
  if (warp != 0) return;
  acc = warp_merge<R>(lane < kWarps ? warps[lane] : R::identity());
  if (lane == 0) {
    if (partial != nullptr)
      partial[split * a.n_outer + o] = acc;
    else
      out[o] = static_cast<Out>(finish(acc));
  }
}

/// One thread per (output, split), or per kVec consecutive outputs when
/// `a.vec`: consecutive threads hold consecutive inner positions.
template <class R, class Out, class K, class Finish>
__global__ void __launch_bounds__(kThreads)
    reduce_columns_kernel(K expr, ReduceArgs a, Out* out, typename R::acc_type* partial, Finish finish) {
  using A = typename R::acc_type;
  const int64_t outputs = a.n_outer * a.n_inner;
  const int per_thread = a.vec ? kVec : 1;
  const int64_t t = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x;
  if (t * per_thread >= outputs) return;
  const int64_t split = blockIdx.y;
  const int64_t r0 = split * a.split_len, r1 = std::min(a.n_red, r0 + a.split_len);
  A* dst = partial != nullptr ? partial + split * outputs : nullptr;
  if (a.vec) {
    const int64_t first = t * kVec;  // kVec outputs in one inner run (n_inner % kVec == 0)
    seek(expr, a, first / a.n_inner, first % a.n_inner);
    A acc[kVec];
#pragma unroll
    for (int j = 0; j < kVec; ++j) acc[j] = R::identity();
#pragma unroll 4
    for (int64_t r = r0; r < r1; ++r) {
      for_each_leaf(expr, [&](auto& l) { l.load_inner_vec(r); });
#pragma unroll
      for (int j = 0; j < kVec; ++j) acc[j] = R::step(acc[j], expr.value(j));
    }
#pragma unroll
    for (int j = 0; j < kVec; ++j) {
      if (dst != nullptr)
        dst[first + j] = acc[j];
      else
        out[first + j] = static_cast<Out>(finish(acc[j]));
    }
  } else {
    seek(expr, a, t / a.n_inner, t % a.n_inner);
    const A acc = fold<R>(expr, a, r0, r1, 1);
    if (dst != nullptr)
      dst[t] = acc;
    else
      out[t] = static_cast<Out>(finish(acc));
  }
}

/// Merges the partial accumulators of each output in split order.
template <class R, class Out, class Finish>
__global__ void __launch_bounds__(kThreads) merge_partials_kernel(const typename R::acc_type* partial, int64_t splits,
                                                                  int64_t outputs, Out* out, Finish finish) {
  const int64_t t = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x;
  if (t >= outputs) return;
  auto acc = partial[t];
  for (int64_t s = 1; s < splits; ++s) acc = R::merge(acc, partial[s * outputs + t]);
  out[t] = static_cast<Out>(finish(acc));
}

/// Whether the vectorized kernels of Note [vectorized reductions] apply:
/// the reduced dimensions coalesce to one, every leaf walks the run the
/// vector loads follow (the reduced dimension when reducing the innermost
/// run, the inner one otherwise) with stride 1 or 0, an inner run's length
/// is a multiple of kVec, and every vector access is aligned.
template <class E>
bool vectorizable(const E& expr, const ReducePlan& p, bool rows) {
  // One reduced dimension in both forms: the loads step by its stride alone.
  if (p.red_dims != 1 || (!rows && (p.inner_dims != 1 || p.inner % kVec != 0))) return false;
  const int64_t run = rows ? p.outer_dims : p.outer_dims + p.red_dims;  // the run's dimension
  bool ok = true;
  std::size_t leaf = 0;
  for_each_tensor(expr, [&](const auto& t) {
    const Shape& s = p.strides[leaf++];
    const int64_t stride = s[run];
    using L = std::remove_cvref_t<decltype(t.data_ptr()[0])>;
    ok = ok && (stride == 0 || stride == 1) && aligned(t.data_ptr(), alignof(Packet<L>));
    for (int64_t d = 0; ok && stride == 1 && d < s.size(); ++d) ok = d == run || s[d] % kVec == 0;
  });
  return ok;
}

/// Reduces `expr` over the dimensions in `mask` into the contiguous `out`
/// (its elements in kept-dimension order), each accumulator passed through `finish`.
template <class R, Element Out, class E, class Finish>
void launch_reduce(const Tensor<Out>& out, const E& expr, uint32_t mask, Finish finish) {
  using A = typename R::acc_type;
  const int64_t outputs = out.numel();
  if (outputs == 0) return;
  const Shape shape = expr.shape();
  std::vector<Shape> strides;
  for_each_tensor(expr,
                  [&](const auto& leaf) { strides.push_back(broadcast_strides(leaf.sizes(), leaf.strides(), shape)); });
  const ReducePlan p = make_reduce_plan(shape, strides, mask);
  ReduceArgs a;
  a.dec = Decomposer<int64_t>(p.sizes.size() == 0 ? Shape{1} : p.sizes);
  a.outer_dims = p.outer_dims;
  a.red_dims = std::max(p.red_dims, 1);
  a.inner_dims = p.inner_dims;
  a.red_first = p.outer_dims;
  a.inner_first = p.outer_dims + p.red_dims;
  a.n_outer = p.outer;
  a.n_red = p.sizes.numel() == 0 ? 0 : p.red;
  a.n_inner = p.inner;

  // Leaves' strides over the plan (tree order matches for_each_tensor's).
  cpu::LoopPlan leaf_plan;
  leaf_plan.sizes = p.sizes;
  leaf_plan.strides.push_back(Shape{});  // operand 0 (the output) is not a leaf
  for (const Shape& s : p.strides) leaf_plan.strides.push_back(s.size() == 0 ? Shape{0} : s);
  int64_t operand = 1;
  auto k = make_kernel_node<int64_t>(expr, leaf_plan, operand);

  const bool rows = p.inner_dims == 0;
  a.vec = vectorizable(expr, p, rows);
  const int device = out.device().index;
  DeviceGuard guard(device);
  const cudaStream_t stream = current_stream(device).handle();
  const int64_t column_threads = a.vec ? outputs / kVec : outputs;
  // Blocks of one split, and how many blocks the GPU holds at once (Note [one wave]).
  const int64_t per_split = rows ? outputs : (column_threads + kThreads - 1) / kThreads;
  const int64_t resident = rows ? resident_blocks<reduce_rows_kernel<R, Out, decltype(k), Finish>>(device)
                                : resident_blocks<reduce_columns_kernel<R, Out, decltype(k), Finish>>(device);
  const int64_t min_split = rows ? int64_t{kThreads} * kVec * 4 : 64;
  int64_t splits = std::clamp<int64_t>(resident / std::max<int64_t>(per_split, 1), 1, 65535);
  splits = std::clamp<int64_t>(std::min(splits, a.n_red / min_split), 1, 65535);
  a.split_len = (a.n_red + splits - 1) / splits;
  if (rows && a.vec) a.split_len = (a.split_len + kVec - 1) / kVec * kVec;
  a.split_len = std::max<int64_t>(a.split_len, 1);
  splits = a.n_red == 0 ? 1 : (a.n_red + a.split_len - 1) / a.split_len;

  DataPtr scratch;
  A* partial = nullptr;
  if (splits > 1) {
    scratch = allocator_for(out.device()).allocate(static_cast<int64_t>(sizeof(A)) * splits * outputs, out.device());
    partial = static_cast<A*>(scratch.get());
  }
  if (rows) {
    const dim3 grid(static_cast<unsigned>(outputs), static_cast<unsigned>(splits));
    reduce_rows_kernel<R, Out><<<grid, kThreads, 0, stream>>>(k, a, out.data_ptr(), partial, finish);
  } else {
    const dim3 grid(static_cast<unsigned>((column_threads + kThreads - 1) / kThreads), static_cast<unsigned>(splits));
    reduce_columns_kernel<R, Out><<<grid, kThreads, 0, stream>>>(k, a, out.data_ptr(), partial, finish);
  }
  check(cudaGetLastError(), "reduction kernel launch");
  if (splits > 1) {
    const auto blocks = static_cast<unsigned>((outputs + kThreads - 1) / kThreads);
    merge_partials_kernel<R, Out><<<blocks, kThreads, 0, stream>>>(partial, splits, outputs, out.data_ptr(), finish);
    check(cudaGetLastError(), "reduction merge kernel launch");
  }
  // `scratch` returns to the pool of this stream: later work on it is ordered after these kernels.
}

/// Set before main by each nvcc translation unit that reduces E with R.
template <class R, Element Out, class E, class Finish>
inline const bool reduce_registered = (reduce_kernel<R, Out, E, Finish> = &launch_reduce<R, Out, E, Finish>, true);

}  // namespace tensorlib::cuda::detail
