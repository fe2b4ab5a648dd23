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
/// The second-order pass (double backward, second_order_pass.hpp) is the
/// same kernel shape over `Dual<T, 1>` values: each floating leaf is a
/// `KernelTangentLeaf` that also loads its tangent (the operand after it),
/// and `write_second_order` writes every lane's tangent and J u, as the
/// CPU's `SecondOrderRoot`.

#include <cuda_runtime_api.h>

#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "tensorlib/autograd/adjoint_sweep.hpp"
#include "tensorlib/autograd/dual.hpp"
#include "tensorlib/backend/cpu/loop_plan.hpp"
#include "tensorlib/backend/cuda/kernel_expr.hpp"
#include "tensorlib/backend/cuda/pointwise.hpp"
#include "tensorlib/backend/cuda/registry.hpp"
#include "tensorlib/backend/cuda/runtime.hpp"
#include "tensorlib/core/tensor.hpp"
#include "tensorlib/core/tuple.hpp"
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

/// A floating tensor leaf of the GPU second-order sweep: its value and its
/// tangent (the operand after it), forward as a `Dual<T, 1>`, as
/// `TangentLeaf` on the CPU.
template <class T, class I>
struct KernelTangentLeaf {
  cuda::detail::KernelLeaf<T, I> value, tangent;
  int lane = -1;
  template <class Fn>
  __device__ void for_each_leaf(Fn&& fn) {
    fn(value);
    fn(tangent);
  }
  TENSORLIB_HOST_DEVICE ValueTape<Dual<T, 1>, true> forward(int64_t, int) const {
    Dual<T, 1> d(value.regs[0]);
    d.tangent[0] = tangent.regs[0];
    return {d};
  }
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
    tensorlib::detail::apply([&](auto&... c) { (cuda::detail::for_each_leaf(c, fn), ...); }, this->children_);
  }
};

/// The GPU sweep's node type of expression node N; with `Tangent` (the
/// second-order pass) floating leaves carry their tangents.
template <class N, class I, bool Tangent>
struct KernelAdjointOf;
template <Element T, class I, bool Tangent>
struct KernelAdjointOf<Tensor<T>, I, Tangent> {
  using type = std::conditional_t<Tangent && differentiable<T>, KernelTangentLeaf<T, I>, KernelAdjointLeaf<T, I>>;
};
template <Element T, class I, bool Tangent>
struct KernelAdjointOf<ScalarLeaf<T>, I, Tangent> {
  using type = KernelAdjointConst<T>;
};
template <class F, class... Cs, class I, bool Tangent>
struct KernelAdjointOf<Map<F, Cs...>, I, Tangent> {
  using type = KernelAdjointMap<F, typename KernelAdjointOf<Cs, I, Tangent>::type...>;
};

/// Points `leaf` at operand `operand` of the sweep: `data`, strides from `plan`.
template <class T, class I>
void point_kernel_leaf(cuda::detail::KernelLeaf<T, I>& leaf, const void* data, const cpu::LoopPlan& plan,
                       int64_t operand) {
  leaf.ptr = static_cast<const T*>(data);
  const Shape& s = plan.strides[static_cast<std::size_t>(operand)];
  for (int64_t d = 0; d < s.size(); ++d) leaf.strides[d] = static_cast<I>(s[d]);
}

/// The GPU sweep's node of `node`: tensor leaves (and after each floating
/// one its tangent, with `Tangent`) take their memory from `data` and their
/// strides from `plan` in tree order from operand `operand`, and their
/// lanes from `lanes`.
template <class I, bool Tangent, class N>
typename KernelAdjointOf<N, I, Tangent>::type make_kernel_adjoint(const N& node, const cpu::LoopPlan& plan,
                                                                  const std::vector<const void*>& data,
                                                                  int64_t& operand, const int*& lanes) {
  using K = typename KernelAdjointOf<N, I, Tangent>::type;
  if constexpr (is_tensor_v<N>) {
    K leaf;
    if constexpr (requires { leaf.tangent; }) {
      point_kernel_leaf(leaf.value, data[static_cast<std::size_t>(operand)], plan, operand);
      ++operand;
      point_kernel_leaf(leaf.tangent, data[static_cast<std::size_t>(operand)], plan, operand);
    } else {
      point_kernel_leaf(leaf, data[static_cast<std::size_t>(operand)], plan, operand);
    }
    ++operand;
    leaf.lane = *lanes++;
    return leaf;
  } else if constexpr (is_map_v<N>) {
    // Braced initialization runs left to right: leaves keep tree order.
    return tensorlib::detail::apply(
        [&](const auto&... c) {
          return K(node.functor(), {make_kernel_adjoint<I, Tangent>(c, plan, data, operand, lanes)...});
        },
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

/// One element's second-order pass (Note [second order] in fused.hpp; the
/// CPU's `SecondOrderRoot`), the tree's leaves loaded: the forward half on
/// leaves carrying tangents u, the adjoint seeded with the gradient as a
/// constant. Writes each of the `used` lanes' tangent (grad * (H u) for that
/// leaf) at `at` and, in output `used`, the root's tangent (J u).
template <class T, class I, int K, class Tree>
__device__ void write_second_order(const AdjointOutputs<T, K + 1>& outs, I at, const Tree& tree, T grad) {
  const int used = outs.used - 1;
  T hu[K];  // grad * (H u), per lane
#pragma unroll
  for (int l = 0; l < K; ++l) hu[l] = T(0);
  T ju = T(0);  // J u
  const auto tape = tree.forward(0, 1);
  using R = std::remove_cvref_t<decltype(tape.value)>;
  if constexpr (is_dual<R>) {
    LaneAdjoints<Dual<T, 1>, K> acc;
    for (auto& l : acc.lane) l = Dual<T, 1>(T(0));
    tree.backward(tape, R(convert<std::remove_cvref_t<decltype(tape.value.value)>>(grad)), acc.lane);
#pragma unroll
    for (int l = 0; l < K; ++l) hu[l] = acc.lane[l].tangent[0];
    ju = static_cast<T>(tape.value.tangent[0]);
  }
#pragma unroll
  for (int l = 0; l < K; ++l)
    if (l < used) outs.lane[l][at] = hu[l];
  outs.lane[used][at] = ju;
}

/// The sweep kernel: per element, the leaves and the gradient loaded, then
/// each lane's gradient written (K outputs), or with `SecondOrder` the
/// second-order pass's (K + 1 outputs).
template <class T, class I, int K, bool SecondOrder, class Tree>
__global__ void __launch_bounds__(cuda::detail::kThreads)
    adjoint_sweep_kernel(AdjointOutputs<T, SecondOrder ? K + 1 : K> outs, cuda::detail::KernelLeaf<T, I> out_strides,
                         cuda::detail::KernelLeaf<T, I> grad, cuda::detail::Decomposer<I> dec, Tree tree, int64_t n) {
  constexpr int kThreads = cuda::detail::kThreads;
  const int64_t step = static_cast<int64_t>(gridDim.x) * kThreads;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x; i < n; i += step) {
    I idx[cuda::detail::kMaxKernelDims];
    dec.coords(static_cast<I>(i), idx);
    cuda::detail::for_each_leaf(tree, [&](auto& l) { l.load(idx, dec.ndim); });
    grad.load(idx, dec.ndim);
    const I at = cuda::detail::offset_of(idx, out_strides.strides, dec.ndim);
    if constexpr (SecondOrder) {
      write_second_order<T, I, K>(outs, at, tree, grad.value(0));
    } else {
      const LaneAdjoints<T, K> r = sweep_element<T, K>(tree, grad.value(0), 0, 1);
#pragma unroll
      for (int l = 0; l < K; ++l)
        if (l < outs.used) outs.lane[l][at] = r.lane[l];
    }
  }
}

/// Launches the first-order sweep (`SecondOrder` false: `outs` are the
/// lanes' gradients) or the second-order one (the lanes' H u, then J u) of
/// `expr` over `plan`, whose operands' memory is `data`.
template <class I, bool SecondOrder, Element T, class E>
void launch_sweep(const std::vector<Tensor<T>>& outs, const Tensor<T>& grad, const E& expr, const int* lanes,
                  const cpu::LoopPlan& plan, const std::vector<const void*>& data, int device, cudaStream_t stream) {
  constexpr int K = floating_leaf_count<E>;
  constexpr int kOuts = SecondOrder ? K + 1 : K;
  int64_t operand = 2;
  auto tree = make_kernel_adjoint<I, SecondOrder>(expr, plan, data, operand, lanes);
  AdjointOutputs<T, kOuts> o{};
  o.used = static_cast<int>(outs.size());
  for (std::size_t l = 0; l < outs.size(); ++l) o.lane[l] = outs[l].data_ptr();
  cuda::detail::KernelLeaf<T, I> out_strides, g;
  g.ptr = grad.data_ptr();
  for (int64_t d = 0; d < plan.ndim(); ++d) {
    out_strides.strides[d] = static_cast<I>(plan.strides[0][d]);
    g.strides[d] = static_cast<I>(plan.strides[1][d]);
  }
  const int64_t n = plan.sizes.numel();
  adjoint_sweep_kernel<T, I, K, SecondOrder><<<cuda::detail::grid_for(n, device), cuda::detail::kThreads, 0, stream>>>(
      o, out_strides, g, cuda::detail::Decomposer<I>(plan.sizes), tree, n);
}

}  // namespace tensorlib::autograd::detail

namespace tensorlib::cuda::detail {

/// Runs a GPU sweep of Note [GPU adjoint sweep] on grad's GPU: the first-
/// order one or (`SecondOrder`) the second-order pass's.
template <bool SecondOrder, Element T, class E>
void run_sweep_kernel(const std::vector<Tensor<T>>& outs, const Tensor<T>& grad, const E& expr, const int* lanes,
                      const cpu::LoopPlan& plan, const std::vector<const void*>& data) {
  const int device = grad.device().index;
  DeviceGuard guard(device);
  const cudaStream_t stream = current_stream(device).handle();
  if (const int64_t span = max_offset(plan); span < std::numeric_limits<int32_t>::max() / 2) {
    autograd::detail::launch_sweep<int32_t, SecondOrder>(outs, grad, expr, lanes, plan, data, device, stream);
  } else {
#if defined(TENSORLIB_CUDA_32BIT_INDEXING_ONLY)  // Note [32-bit indexing only]
    refuse_64bit_indexing("the backward of a pointwise expression", span);
#else
    autograd::detail::launch_sweep<int64_t, SecondOrder>(outs, grad, expr, lanes, plan, data, device, stream);
#endif
  }
  check(cudaGetLastError(), SecondOrder ? "fused double backward kernel launch" : "fused backward kernel launch");
}

template <Element T, class E>
void run_adjoint_sweep(const std::vector<Tensor<T>>& outs, const Tensor<T>& grad, const E& expr, const int* lanes,
                       const cpu::LoopPlan& plan, const std::vector<const void*>& data) {
  run_sweep_kernel<false>(outs, grad, expr, lanes, plan, data);
}
template <Element T, class E>
void run_second_order_sweep(const std::vector<Tensor<T>>& outs, const Tensor<T>& grad, const E& expr, const int* lanes,
                            const cpu::LoopPlan& plan, const std::vector<const void*>& data) {
  run_sweep_kernel<true>(outs, grad, expr, lanes, plan, data);
}

/// Set before main by each nvcc translation unit that differentiates E.
template <Element T, class E>
inline const bool adjoint_registered = (adjoint_kernel<T, E> = &run_adjoint_sweep<T, E>, true);
/// Set before main by each nvcc translation unit that records E's backward
/// without TENSORLIB_NO_DOUBLE_BACKWARD (create_graph is a run-time choice).
template <Element T, class E>
inline const bool second_order_registered = (second_order_kernel<T, E> = &run_second_order_sweep<T, E>, true);

}  // namespace tensorlib::cuda::detail
