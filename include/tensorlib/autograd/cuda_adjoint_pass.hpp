#pragma once
/// \file
/// The fused backward pass on a GPU (nvcc translation units only; included
/// by adjoint_pass.hpp): the adjoint sweep of adjoint_sweep.hpp as one
/// kernel over the expression's broadcast shape, writing
/// `grad * d expr / d leaf` for every lane at once, as the CPU loop does.
///
/// Note [GPU adjoint sweep]
/// A thread per element of the broadcast shape, in a grid-stride loop over
/// the coalesced loop nest of the CPU pass (operands: the first output, the
/// gradient, then the leaves in tree order; the outputs are contiguous and
/// share the first one's strides). A thread finds its coordinates with the
/// pointwise kernels' precomputed divisions (32-bit indices when every
/// offset fits, 64-bit otherwise, Note [32-bit indexing only]), loads each
/// leaf and the gradient, and runs `sweep_element`: the functors' dual forms
/// forward, the adjoints back, all in registers. So a chain's backward is
/// one kernel whatever its length, as its forward is; only the leaves that
/// broadcast are then summed to their shapes (FusedBackward, a reduction
/// kernel each). The tree is the kernel argument: leaves are `KernelLeaf`s
/// with their lane, nodes the same `AdjointNode` the CPU sweep uses.

#include <cuda_runtime_api.h>

#include <cstdint>
#include <limits>
#include <tuple>
#include <utility>
#include <vector>

#include "tensorlib/autograd/adjoint_sweep.hpp"
#include "tensorlib/backend/cpu/loop_plan.hpp"
#include "tensorlib/backend/cuda/kernel_expr.hpp"
#include "tensorlib/backend/cuda/pointwise.hpp"
#include "tensorlib/backend/cuda/registry.hpp"
#include "tensorlib/backend/cuda/runtime.hpp"
#include "tensorlib/core/tensor.hpp"
#include "tensorlib/expr/map.hpp"

namespace tensorlib::autograd::detail {

/// A tensor leaf of the GPU sweep: the kernel leaf (pointer, strides, the
/// value the thread loaded) and its lane (-1: no gradient).
template <class T, class I>
struct KernelAdjointLeaf : cuda::detail::KernelLeaf<T, I> {
  int lane = -1;
  TENSORLIB_HOST_DEVICE ValueTape<T, differentiable<T>> forward(int64_t, int) const { return {this->regs[0]}; }
  template <class Tape, class Adj, class Acc>
  TENSORLIB_HOST_DEVICE void backward(const Tape&, const Adj& adj, Acc* acc) const {
    if (lane >= 0) acc[lane] += convert<Acc>(adj);
  }
};

/// A scalar operand of the GPU sweep: a constant.
template <class T>
struct KernelAdjointConst {
  T value;
  template <class Fn>
  __device__ void for_each_leaf(Fn&&) {}
  TENSORLIB_HOST_DEVICE ValueTape<T, false> forward(int64_t, int) const { return {value}; }
};

/// A functor node of the GPU sweep.
template <class F, class... Cs>
struct KernelAdjointMap : AdjointNode<F, Cs...> {
  using AdjointNode<F, Cs...>::AdjointNode;
  /// Calls fn(leaf) for every tensor leaf below this node.
  template <class Fn>
  __device__ void for_each_leaf(Fn&& fn) {
    std::apply([&](auto&... c) { (cuda::detail::for_each_leaf(c, fn), ...); }, this->children_);
  }
};

template <class N, class I>
struct KernelAdjointOf;
template <Element T, class I>
struct KernelAdjointOf<Tensor<T>, I> {
  using type = KernelAdjointLeaf<T, I>;
};
template <Element T, class I>
struct KernelAdjointOf<ScalarLeaf<T>, I> {
  using type = KernelAdjointConst<T>;
};
template <class F, class... Cs, class I>
struct KernelAdjointOf<Map<F, Cs...>, I> {
  using type = KernelAdjointMap<F, typename KernelAdjointOf<Cs, I>::type...>;
};

/// The GPU sweep's node of `node`: tensor leaves take their strides from
/// `plan` in tree order from operand `operand`, and their lanes from `lanes`.
template <class I, class N>
typename KernelAdjointOf<N, I>::type make_kernel_adjoint(const N& node, const cpu::LoopPlan& plan, int64_t& operand,
                                                         const int*& lanes) {
  using K = typename KernelAdjointOf<N, I>::type;
  if constexpr (is_tensor_v<N>) {
    K leaf;
    leaf.ptr = node.data_ptr();
    const Shape& s = plan.strides[static_cast<std::size_t>(operand++)];
    for (int64_t d = 0; d < s.size(); ++d) leaf.strides[d] = static_cast<I>(s[d]);
    leaf.lane = *lanes++;
    return leaf;
  } else if constexpr (is_map_v<N>) {
    // Braced initialization runs left to right: leaves keep tree order.
    return std::apply(
        [&](const auto&... c) { return K(node.functor(), {make_kernel_adjoint<I>(c, plan, operand, lanes)...}); },
        node.children());
  } else {
    return K{node.value};
  }
}

/// The lanes' outputs (contiguous, of the broadcast shape): `used` of K.
template <class T, int K>
struct AdjointOutputs {
  T* lane[K];
  int used = 0;
};

template <class T, class I, int K, class Tree>
__global__ void __launch_bounds__(cuda::detail::kThreads)
    adjoint_sweep_kernel(AdjointOutputs<T, K> outs, cuda::detail::KernelLeaf<T, I> out_strides,
                         cuda::detail::KernelLeaf<T, I> grad, cuda::detail::Decomposer<I> dec, Tree tree, int64_t n) {
  constexpr int kThreads = cuda::detail::kThreads;
  const int64_t step = static_cast<int64_t>(gridDim.x) * kThreads;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x; i < n; i += step) {
    I idx[cuda::detail::kMaxKernelDims];
    dec.coords(static_cast<I>(i), idx);
    cuda::detail::for_each_leaf(tree, [&](auto& l) { l.load(idx, dec.ndim); });
    grad.load(idx, dec.ndim);
    const LaneAdjoints<T, K> r = sweep_element<T, K>(tree, grad.value(0), 0, 1);
    const I at = cuda::detail::offset_of(idx, out_strides.strides, dec.ndim);
#pragma unroll
    for (int l = 0; l < K; ++l)
      if (l < outs.used) outs.lane[l][at] = r.lane[l];
  }
}

template <class I, Element T, class E>
void launch_adjoint_sweep(const std::vector<Tensor<T>>& outs, const Tensor<T>& grad, const E& expr, const int* lanes,
                          const cpu::LoopPlan& plan, int device, cudaStream_t stream) {
  constexpr int K = floating_leaf_count<E>;
  int64_t operand = 2;
  auto tree = make_kernel_adjoint<I>(expr, plan, operand, lanes);
  AdjointOutputs<T, K> o{};
  o.used = static_cast<int>(outs.size());
  for (std::size_t l = 0; l < outs.size(); ++l) o.lane[l] = outs[l].data_ptr();
  cuda::detail::KernelLeaf<T, I> out_strides, g;
  g.ptr = grad.data_ptr();
  for (int64_t d = 0; d < plan.ndim(); ++d) {
    out_strides.strides[d] = static_cast<I>(plan.strides[0][d]);
    g.strides[d] = static_cast<I>(plan.strides[1][d]);
  }
  const int64_t n = plan.sizes.numel();
  adjoint_sweep_kernel<T, I, K><<<cuda::detail::grid_for(n, device), cuda::detail::kThreads, 0, stream>>>(
      o, out_strides, g, cuda::detail::Decomposer<I>(plan.sizes), tree, n);
}

}  // namespace tensorlib::autograd::detail

namespace tensorlib::cuda::detail {

/// Runs the GPU sweep of Note [GPU adjoint sweep] on grad's GPU.
template <Element T, class E>
void run_adjoint_sweep(const std::vector<Tensor<T>>& outs, const Tensor<T>& grad, const E& expr, const int* lanes,
                       const cpu::LoopPlan& plan) {
  const int device = grad.device().index;
  DeviceGuard guard(device);
  const cudaStream_t stream = current_stream(device).handle();
  if (const int64_t span = max_offset(plan); span < std::numeric_limits<int32_t>::max() / 2) {
    autograd::detail::launch_adjoint_sweep<int32_t>(outs, grad, expr, lanes, plan, device, stream);
  } else {
#if defined(TENSORLIB_CUDA_32BIT_INDEXING_ONLY)  // Note [32-bit indexing only]
    refuse_64bit_indexing("the backward of a pointwise expression", span);
#else
    autograd::detail::launch_adjoint_sweep<int64_t>(outs, grad, expr, lanes, plan, device, stream);
#endif
  }
  check(cudaGetLastError(), "fused backward kernel launch");
}

/// Set before main by each nvcc translation unit that differentiates E.
template <Element T, class E>
inline const bool adjoint_registered = (adjoint_kernel<T, E> = &run_adjoint_sweep<T, E>, true);

}  // namespace tensorlib::cuda::detail
