#pragma once
/// \file
/// Where translation units compiled by nvcc publish their fused kernels, so
/// that any translation unit of the program can launch them.
///
/// Note [kernels across translation units]
/// tensorlib is header-only, so the same dispatch function is compiled by
/// nvcc in some translation units of a program and by the host compiler in
/// others, and the linker keeps one copy. Neither copy calls a kernel
/// directly: each reads `pointwise_kernel<T, E>` (and its siblings), a
/// function pointer that starts null. A translation unit compiled by nvcc
/// instantiates, for every expression type it evaluates, a variable whose
/// initializer (run before main) stores the launcher there. So an
/// expression runs on the GPU from any translation unit once some nvcc
/// translation unit of the program has used it, and otherwise fails with
/// the error that says to compile that file with nvcc. Host-only code
/// never includes a CUDA header.

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "tensorlib/core/tensor.hpp"

namespace tensorlib::cpu {
struct LoopPlan;
}

namespace tensorlib::cuda::detail {

/// Launches the fused kernel of expression type E into `out`; null until an
/// nvcc translation unit registers it.
template <Element T, class E>
inline void (*pointwise_kernel)(const Tensor<T>& out, const E& expr) = nullptr;

/// Runs the fused backward sweep of expression type E (see
/// autograd/cuda_adjoint_pass.hpp): outs[l] = grad * d expr / d (leaf of
/// lane l) over `plan`, whose operands are outs[0], grad and the leaves in
/// tree order; null until an nvcc translation unit registers it.
template <Element T, class E>
inline void (*adjoint_kernel)(const std::vector<Tensor<T>>& outs, const Tensor<T>& grad, const E& expr,
                              const int* lanes, const cpu::LoopPlan& plan,
                              const std::vector<const void*>& data) = nullptr;

/// Runs the second-order pass of expression type E (autograd/
/// second_order_pass.hpp) over `plan`, whose operands are outs[0], grad and
/// the leaves in tree order, each floating leaf followed by its tangent at
/// `data`; null until an nvcc translation unit registers it.
template <Element T, class E>
inline void (*second_order_kernel)(const std::vector<Tensor<T>>& outs, const Tensor<T>& grad, const E& expr,
                                   const int* lanes, const cpu::LoopPlan& plan,
                                   const std::vector<const void*>& data) = nullptr;

/// Runs reduction R of expression type E (see backend/cuda/reduce.hpp);
/// null until an nvcc translation unit registers it.
template <class R, Element Out, class E, class Finish>
inline void (*reduce_kernel)(const Tensor<Out>& out, const E& expr, uint32_t mask, Finish finish) = nullptr;

/// Runs the multi-output loop of functor F over buffers of pointer types P
/// (see backend/cuda/for_each.hpp); null until an nvcc translation unit
/// registers it.
template <Element T, class F, class... P>
inline void (*for_each_kernel)(const F& f, int64_t n, int device, P... ptrs) = nullptr;

/// Softmax (Log: log-softmax) of contiguous rows (see
/// backend/cuda/softmax.hpp); null until an nvcc translation unit registers it.
template <bool Log, class T>
inline void (*softmax_kernel)(const T* x, T* y, int64_t rows, int64_t cols, int device) = nullptr;

/// Fills n contiguous elements from a Philox stream with lane functor F
/// (see backend/cuda/philox_fill.hpp); null until an nvcc translation unit
/// registers it.
template <class T, class F>
inline void (*philox_fill_kernel)(T* out, int64_t n, uint64_t seed, uint64_t offset, const F& value,
                                  int device) = nullptr;

/// Runs functor F over the elements of a shape with their offsets in N
/// strided operands (see backend/cuda/for_each_offsets.hpp; gathers and
/// scatters); null until an nvcc translation unit registers it.
template <std::size_t N, class F>
inline void (*offsets_kernel)(const Shape& shape, const std::array<Shape, N>& strides, const F& f,
                              int device) = nullptr;

/// Sorts `rows` contiguous rows of `length` elements into values and their
/// positions in the row (see backend/cuda/sort.hpp); null until an nvcc
/// translation unit registers it.
template <class T>
inline void (*sort_kernel)(const T* in, T* values, int64_t* indices, int64_t rows, int64_t length, bool descending,
                           int device) = nullptr;

/// Runs scan functor S along the middle dimension of a contiguous
/// [outer, n, inner] layout (see backend/cuda/scan.hpp); null until an nvcc
/// translation unit registers it.
template <class S>
inline void (*scan_kernel)(const S& scan, int64_t outer, int64_t n, int64_t inner, int device) = nullptr;

/// One buffer list of a multi-tensor loop (Note [multi-tensor steps] in
/// optim/step_batch.hpp): the functor, the element count and the buffers
/// (of types P..., stored untyped so the item stays trivially copyable).
template <class F, class... P>
struct ForEachItem {
  F f;
  int64_t n = 0;
  const void* ptrs[sizeof...(P)] = {};
};

/// Runs every item's loop in as few kernels as the argument space allows
/// (see backend/cuda/for_each.hpp); null until an nvcc translation unit
/// registers it, and for functors that are not trivially copyable.
template <Element T, class F, class... P>
inline void (*for_each_list_kernel)(std::vector<ForEachItem<F, P...>>& items, int device) = nullptr;

}  // namespace tensorlib::cuda::detail
