#pragma once
/// \file
/// The device-side mirror of an expression tree: what a fused kernel gets
/// as its argument (nvcc translation units only). `Tensor` leaves become
/// `KernelLeaf` (a pointer and strides over the coalesced loop nest of
/// backend/cpu/loop_plan.hpp), `ScalarLeaf` a `KernelScalar`, `Map` a
/// `KernelMap` holding the same functor the CPU loop and autograd use
/// (DESIGN 3.3). Each leaf keeps kVec registers: a thread loads them all
/// (one vector load per contiguous leaf), then evaluates the tree once per
/// register (Note [vectorized loads]).
///
/// Note [vectorized loads]
/// On contiguous operands a thread handles kVec consecutive elements: each
/// leaf loads them with one aligned 16-byte (float) load, the tree is
/// evaluated kVec times from registers, the results are stored with one
/// vector store. The executor takes this path only when every pointer is
/// aligned to kVec elements; otherwise the strided path runs.

#include <cstdint>
#include <utility>

#include "tensorlib/backend/cpu/loop_plan.hpp"
#include "tensorlib/core/tensor.hpp"
#include "tensorlib/core/tuple.hpp"
#include "tensorlib/expr/map.hpp"
#include "tensorlib/expr/traverse.hpp"

namespace tensorlib::cuda::detail {

/// Elements per thread on the contiguous path.
inline constexpr int kVec = 4;
/// Dimensions of a coalesced loop nest a kernel handles.
inline constexpr int kMaxKernelDims = TENSORLIB_MAX_DIMS;

/// Division by a fixed divisor with a multiply-high and a shift, for 32-bit
/// indices (valid for dividends below 2^31).
struct FastDivmod {
  uint32_t divisor = 1;
  uint32_t magic = 1;
  uint32_t shift = 0;

  FastDivmod() = default;
  explicit FastDivmod(uint32_t d) : divisor(d) {
    while ((uint64_t{1} << shift) < d) ++shift;
    magic = static_cast<uint32_t>(((uint64_t{1} << 32) * ((uint64_t{1} << shift) - d)) / d + 1);
  }
  __device__ uint32_t div(uint32_t n) const { return (__umulhi(n, magic) + n) >> shift; }
};

/// Turns a linear index into the coordinates of a loop nest (innermost last).
template <class I>
struct Decomposer {
  int ndim = 1;
  I sizes[kMaxKernelDims] = {};
  FastDivmod fast[kMaxKernelDims];

  Decomposer() = default;
  explicit Decomposer(const Shape& s) : ndim(static_cast<int>(s.size())) {
    for (int d = 0; d < ndim; ++d) {
      sizes[d] = static_cast<I>(s[d]);
      if constexpr (sizeof(I) == 4) fast[d] = FastDivmod(static_cast<uint32_t>(s[d]));
    }
  }

  __device__ void coords(I linear, I* idx) const {
#pragma unroll
    for (int d = kMaxKernelDims - 1; d >= 0; --d) {
      if (d < ndim) {
        if constexpr (sizeof(I) == 4) {
          const I q = static_cast<I>(fast[d].div(static_cast<uint32_t>(linear)));
          idx[d] = linear - q * sizes[d];
          linear = q;
        } else {
          idx[d] = linear % sizes[d];
          linear /= sizes[d];
        }
      }
    }
  }
};

/// Offset of coordinates `idx` under `strides` (first `ndim` dimensions).
template <class I>
__device__ inline I offset_of(const I* idx, const I* strides, int ndim) {
  I off = 0;
#pragma unroll
  for (int d = 0; d < kMaxKernelDims; ++d)
    if (d < ndim) off += idx[d] * strides[d];
  return off;
}

/// Offset of outer coordinates `idx` in the row path's layout, whose
/// dimension 0 is the row and dimensions 1..ndim the outer ones.
template <class I>
__device__ inline I row_offset(const I* idx, const I* strides, int ndim) {
  I off = 0;
#pragma unroll
  for (int d = 0; d + 1 < kMaxKernelDims; ++d)
    if (d < ndim) off += idx[d] * strides[d + 1];
  return off;
}

/// kVec elements of T, aligned for one vector access: to their size, or,
/// for an element whose kVec elements are not a power of two of bytes (a
/// dual number of 12 bytes), to the size's largest power-of-two divisor.
template <class T>
struct alignas((sizeof(T) * kVec) & (~(sizeof(T) * kVec) + 1)) Packet {
  T v[kVec];
};

/// A tensor operand: pointer, strides over the kernel's loop nest, and the
/// registers a thread loads before evaluating the tree. `base` is the offset
/// of the current output position in a reduction (backend/cuda/reduce.hpp).
template <class T, class I>
struct KernelLeaf {
  const T* ptr = nullptr;
  I strides[kMaxKernelDims] = {};
  I base = 0;
  I red_stride = 0;    // the stride of a one-dimensional reduced range (set by reduce.hpp's seek)
  I inner_stride = 0;  // the stride of the first inner dimension (set by reduce.hpp's seek)
  T regs[kVec] = {};

  /// kVec consecutive elements from `at` (one aligned vector load), or the
  /// value at `at` in every register when `broadcast`.
  __device__ void load_packet(const T* at, bool broadcast) {
    if (broadcast) {
      const T v = *at;
#pragma unroll
      for (int j = 0; j < kVec; ++j) regs[j] = v;
    } else {
      const Packet<T> p = *reinterpret_cast<const Packet<T>*>(at);
#pragma unroll
      for (int j = 0; j < kVec; ++j) regs[j] = p.v[j];
    }
  }
  /// kVec consecutive elements from `first` (stride 1) or one broadcast value (stride 0).
  __device__ void load_vec(I first) { load_packet(strides[0] == 0 ? ptr : ptr + first, strides[0] == 0); }
  /// The row path's load (Note [row path]): kVec consecutive elements from
  /// offset `off` when dimension 0 (the row) has stride 1, one broadcast value
  /// when it has stride 0.
  __device__ void load_row(I off) { load_packet(ptr + off, strides[0] == 0); }
  /// Reduced elements [r, r + kVec) at the current base (Note [vectorized
  /// reductions]), or one broadcast value when the reduced stride is 0.
  __device__ void load_reduced_vec(I r) { load_packet(ptr + base + (red_stride == 0 ? 0 : r), red_stride == 0); }
  /// kVec consecutive inner elements of reduced element r, or one broadcast
  /// value when the inner stride is 0.
  __device__ void load_inner_vec(I r) { load_packet(ptr + base + r * red_stride, inner_stride == 0); }
  /// Element `i` of a one-dimensional nest.
  __device__ void load_linear(I i) { regs[0] = ptr[i * strides[0]]; }
  /// The element at coordinates `idx` of the first `ndim` dimensions.
  __device__ void load(const I* idx, int ndim) { regs[0] = ptr[offset_of(idx, strides, ndim)]; }
  __device__ T value(int j) const { return regs[j]; }
};

/// A C++ scalar operand.
template <class T>
struct KernelScalar {
  T v;
  template <class Fn>
  __device__ void for_each_leaf(Fn&&) {}
  __device__ T value(int) const { return v; }
};

/// A functor over child nodes.
template <class F, class... Cs>
struct KernelMap {
  F f;
  tensorlib::detail::Tuple<Cs...> children;

  /// Calls fn(leaf) for every tensor leaf below this node.
  template <class Fn>
  __device__ void for_each_leaf(Fn&& fn) {
    tensorlib::detail::apply([&](auto&... c) { (visit_leaf(c, fn), ...); }, children);
  }
  __device__ auto value(int j) const {
    return tensorlib::detail::apply([&](const auto&... c) { return invoke_functor(f, c.value(j)...); }, children);
  }

 private:
  template <class C, class Fn>
  __device__ static void visit_leaf(C& c, Fn& fn) {
    if constexpr (requires { c.ptr; })
      fn(c);
    else
      c.for_each_leaf(fn);
  }
};

/// Calls fn(leaf) for every tensor leaf of a kernel tree (the root may be a leaf).
template <class K, class Fn>
__device__ void for_each_leaf(K& k, Fn&& fn) {
  if constexpr (requires { k.ptr; })
    fn(k);
  else
    k.for_each_leaf(fn);
}

/// The kernel node type of expression node N with index type I.
template <class N, class I>
struct KernelNodeOf;
template <Element T, class I>
struct KernelNodeOf<Tensor<T>, I> {
  using type = KernelLeaf<T, I>;
};
template <Element T, class I>
struct KernelNodeOf<ScalarLeaf<T>, I> {
  using type = KernelScalar<T>;
};
template <class F, class... Cs, class I>
struct KernelNodeOf<Map<F, Cs...>, I> {
  using type = KernelMap<F, typename KernelNodeOf<Cs, I>::type...>;
};
template <class N, class I>
using kernel_node_t = typename KernelNodeOf<N, I>::type;

/// Builds the kernel node of `node`; tensor leaves take their strides from
/// `plan` in tree order, starting at operand `operand` (0 is the output).
template <class I, class N>
kernel_node_t<N, I> make_kernel_node(const N& node, const cpu::LoopPlan& plan, int64_t& operand) {
  if constexpr (is_tensor_v<N>) {
    kernel_node_t<N, I> leaf;
    leaf.ptr = node.data_ptr();
    const Shape& s = plan.strides[static_cast<std::size_t>(operand++)];
    for (int64_t d = 0; d < s.size(); ++d) leaf.strides[d] = static_cast<I>(s[d]);
    return leaf;
  } else if constexpr (is_map_v<N>) {
    // Braced initialization runs left to right: leaves keep tree order.
    return tensorlib::detail::apply(
        [&](const auto&... c) {
          return kernel_node_t<N, I>{node.functor(), {make_kernel_node<I>(c, plan, operand)...}};
        },
        node.children());
  } else {
    return kernel_node_t<N, I>{node.value};
  }
}

}  // namespace tensorlib::cuda::detail
