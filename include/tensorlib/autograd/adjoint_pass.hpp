#pragma once
/// \file
/// The fused backward pass of a pointwise expression (DESIGN 3.5): one loop
/// over the expression's broadcast shape that writes `grad_out * d expr /
/// d leaf` for every leaf needing a gradient at once. It is the CPU
/// executor's loop (backend/cpu/pointwise.hpp: rows, blocks, gathers of
/// strided and broadcast leaves, threads, SIMD packets when the whole tree
/// computes in one float type) with a tree that sweeps adjoints and a sink
/// with one output per lane. It lives in autograd/ because duals do;
/// backend/ gives it the loop pieces.
///
/// On a GPU the same sweep runs as one kernel (cuda_adjoint_pass.hpp).
#include <algorithm>
#include <cstdint>
#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

#include "tensorlib/autograd/adjoint_sweep.hpp"
#include "tensorlib/autograd/dual.hpp"
#include "tensorlib/backend/cpu/evaluator.hpp"
#include "tensorlib/backend/cpu/loop_plan.hpp"
#include "tensorlib/backend/cpu/pointwise.hpp"
#include "tensorlib/backend/cpu/thread_pool.hpp"
#include "tensorlib/backend/cuda/registry.hpp"
#include "tensorlib/core/any_tensor.hpp"
#include "tensorlib/core/config.hpp"
#include "tensorlib/core/error.hpp"
#include "tensorlib/core/stats.hpp"
#include "tensorlib/core/tensor.hpp"
#include "tensorlib/core/tuple.hpp"
#include "tensorlib/expr/broadcast.hpp"
#include "tensorlib/expr/functors/cast.hpp"
#include "tensorlib/expr/map.hpp"
#include "tensorlib/expr/traverse.hpp"
#include "tensorlib/ops/copy.hpp"
#include "tensorlib/ops/factories.hpp"

#if defined(__CUDACC__)
#include "tensorlib/autograd/cuda_adjoint_pass.hpp"
#endif

namespace tensorlib::autograd {

namespace detail {

/// The sweep's node for expression node N. `Tangent`: the second-order
/// pass (fused_double_backward.hpp), whose floating leaves carry one
/// tangent each (scalar loops only).
template <class N, bool Packets, bool Tangent = false>
struct AdjointEvalOf;

template <Element T>
class TangentLeaf;  // second_order_pass.hpp

/// A tensor leaf: its value forward; backward, the adjoint reaching it is
/// added to its lane's accumulator (leaves of one tensor share a lane).
template <Element T, bool Packets>
class AdjointLeaf {
 public:
  AdjointLeaf(const Tensor<T>& t, cpu::EvalContext& ctx, const int*& lanes) : leaf_(t, ctx), lane_(*lanes++) {}
  void seek(const int64_t* index, const cpu::LoopPlan& plan) { leaf_.seek(index, plan); }
  void advance(int64_t k) { leaf_.advance(k); }
  void begin_block(int64_t c0, int64_t n, cpu::Scratch& scratch) { leaf_.begin_block(c0, n, scratch); }
  TENSORLIB_FORCE_INLINE auto forward(int64_t j, int n) const {
    if constexpr (Packets) {
      using V = decltype(leaf_.template load<false>(j, n));
      return ValueTape<V, differentiable<T>>{leaf_.template load<false>(j, n)};
    } else {
      return ValueTape<T, differentiable<T>>{leaf_.template scalar<false>(j)};
    }
  }
  template <class Tape, class Adj, class Acc>
  TENSORLIB_FORCE_INLINE void backward(const Tape&, const Adj& adj, Acc* acc) const {
    if (lane_ >= 0) acc[lane_] += convert<Acc>(adj);
  }

 private:
  cpu::LeafEval<T> leaf_;
  int lane_;
};

/// A scalar operand: a plain value (a splat packet in packet mode).
template <Element T, bool Packets>
class AdjointConst {
 public:
  AdjointConst(const ScalarLeaf<T>& s, cpu::EvalContext&, const int*&) : value_(s.value) {}
  void seek(const int64_t*, const cpu::LoopPlan&) {}
  void advance(int64_t) {}
  void begin_block(int64_t, int64_t, cpu::Scratch&) {}
  TENSORLIB_FORCE_INLINE auto forward(int64_t, int) const {
    if constexpr (Packets)
      return ValueTape<cpu::packet_t<T>, false>{cpu::packet_t<T>(value_)};
    else
      return ValueTape<T, false>{value_};
  }

 private:
  T value_;
};

/// A functor node of the CPU sweep: `AdjointNode` with children built from
/// the loop's operands and positioned with it.
template <bool Packets, class F, class... Cs>
class AdjointMap : public AdjointNode<F, Cs...> {
  using Base = AdjointNode<F, Cs...>;

 public:
  template <class... Children>
  AdjointMap(const Map<F, Children...>& node, cpu::EvalContext& ctx, const int*& lanes)
      : Base(node.functor(), make(node.children(), ctx, lanes, std::index_sequence_for<Children...>{})) {}
  void seek(const int64_t* index, const cpu::LoopPlan& plan) {
    tensorlib::detail::apply([&](auto&... c) { (c.seek(index, plan), ...); }, this->children_);
  }
  void advance(int64_t k) {
    tensorlib::detail::apply([&](auto&... c) { (c.advance(k), ...); }, this->children_);
  }
  void begin_block(int64_t c0, int64_t n, cpu::Scratch& scratch) {
    tensorlib::detail::apply([&](auto&... c) { (c.begin_block(c0, n, scratch), ...); }, this->children_);
  }

 private:
  template <class Tuple, std::size_t... I>
  static tensorlib::detail::Tuple<Cs...> make(const Tuple& nodes, cpu::EvalContext& ctx, const int*& lanes,
                                              std::index_sequence<I...>) {
    // Braced initialization runs left to right: leaves take operand numbers
    // and lanes in tree order.
    return tensorlib::detail::Tuple<Cs...>{Cs(tensorlib::detail::get<I>(nodes), ctx, lanes)...};
  }
};

template <Element T, bool Packets, bool Tangent>
struct AdjointEvalOf<Tensor<T>, Packets, Tangent> {
  using type = std::conditional_t<Tangent && differentiable<T>, TangentLeaf<T>, AdjointLeaf<T, Packets>>;
};
template <Element T, bool Packets, bool Tangent>
struct AdjointEvalOf<ScalarLeaf<T>, Packets, Tangent> {
  using type = AdjointConst<T, Packets>;
};
template <class F, class... Cs, bool Packets, bool Tangent>
struct AdjointEvalOf<Map<F, Cs...>, Packets, Tangent> {
  using type = AdjointMap<Packets, F, typename AdjointEvalOf<Cs, Packets, Tangent>::type...>;
};

/// The root the executor's row loop drives: the incoming gradient and the
/// tree; each element runs the forward half, then seeds the root's adjoint
/// with the gradient and sweeps it down.
/// What a sweep's root shares with the executor's row loop: the incoming
/// gradient (operand 1) and the tree, positioned together.
template <Element T, class Tree>
class SweepRootBase {
 public:
  static constexpr bool has_candidates = false;
  template <class E>
  SweepRootBase(const Tensor<T>& grad, const E& expr, cpu::EvalContext& ctx, const int* lanes)
      : grad_(grad, ctx), tree_(expr, ctx, lanes) {}
  bool any_hoisted() const { return false; }
  void seek(const int64_t* index, const cpu::LoopPlan& plan) {
    grad_.seek(index, plan);
    tree_.seek(index, plan);
  }
  void advance(int64_t k) {
    grad_.advance(k);
    tree_.advance(k);
  }
  template <bool P>
  void start_row(cpu::Scratch&, int64_t) {}
  void begin_block(int64_t c0, int64_t n, cpu::Scratch& scratch) {
    grad_.begin_block(c0, n, scratch);
    tree_.begin_block(c0, n, scratch);
  }

 protected:
  cpu::LeafEval<T> grad_;
  Tree tree_;
};

template <Element T, int K, bool Packets, class Tree>
class AdjointRoot : public SweepRootBase<T, Tree> {
  using Base = SweepRootBase<T, Tree>;
  using Base::grad_;
  using Base::tree_;

 public:
  using Base::Base;
  template <bool Materialized>
  TENSORLIB_FORCE_INLINE LaneAdjoints<cpu::packet_t<T>, K> load(int64_t j, int n) const {
    return sweep<cpu::packet_t<T>>(grad_.template load<false>(j, n), j, n);
  }
  template <bool Materialized>
  TENSORLIB_FORCE_INLINE LaneAdjoints<T, K> scalar(int64_t j) const {
    return sweep<T>(grad_.template scalar<false>(j), j, 1);
  }

 private:
  template <class V>
  TENSORLIB_FORCE_INLINE LaneAdjoints<V, K> sweep(const V& grad, int64_t j, int n) const {
    return sweep_element<V, K>(tree_, grad, j, n);
  }
};

/// Writes each lane's gradient into its contiguous output.
template <Element T, int K>
class AdjointSink {
 public:
  using packet = cpu::packet_t<T>;
  AdjointSink(const std::vector<T*>& outs, const cpu::LoopPlan& plan)
      : cursor_(outs[0], plan.strides[0], plan), lanes_(static_cast<int>(outs.size())) {
    for (int l = 0; l < lanes_; ++l) bases_[l] = outs[static_cast<std::size_t>(l)];
  }
  void seek(const int64_t* index, const cpu::LoopPlan& plan) { cursor_.seek(index, plan); }
  void advance(int64_t k) { cursor_.advance(k); }
  void begin_block(int64_t c0, cpu::Scratch&) { offset_ = (cursor_.row - cursor_.base) + c0 * cursor_.inner; }
  void end_block(int64_t) const {}
  TENSORLIB_FORCE_INLINE void store(int64_t j, const LaneAdjoints<packet, K>& v, int n) const {
    for (int l = 0; l < lanes_; ++l) {
      const packet& r = v.lane[l];
      T* p = bases_[l] + offset_ + j * cursor_.inner;
      if (cursor_.inner == 1) {
        if (n == packet::size)
          r.store(p);
        else
          r.store_partial(p, n);
      } else {
        for (int i = 0; i < n; ++i) p[i * cursor_.inner] = r[i];
      }
    }
  }
  TENSORLIB_FORCE_INLINE void put(int64_t j, const LaneAdjoints<T, K>& v) const {
    for (int l = 0; l < lanes_; ++l) bases_[l][offset_ + j * cursor_.inner] = v.lane[l];
  }

 private:
  cpu::RowCursor<T> cursor_;
  T* bases_[K > 0 ? K : 1] = {};
  int lanes_;
  int64_t offset_ = 0;
};

/// The loop operands of a sweep: the first output, the gradient, then the
/// tensor leaves in tree order; with `tangents` (the second-order pass),
/// each floating leaf is followed by its tangent: tangents[lane] converted
/// to the leaf's type, or a broadcast zero for a leaf without a lane or a
/// lane without a tangent. `keep` holds the converted tensors alive.
struct SweepOperands {
  cpu::LoopPlan plan;
  std::vector<const void*> data;
};

template <Element T, class E>
SweepOperands sweep_operands(const Tensor<T>& out, const Tensor<T>& grad, const E& expr, const int* lanes,
                             std::type_identity_t<const std::vector<Tensor<T>>*> tangents,
                             std::vector<AnyTensor>& keep) {
  const Shape& shape = out.sizes();
  std::vector<Shape> strides{out.strides(), broadcast_strides(grad.sizes(), grad.strides(), shape)};
  std::vector<const void*> data{out.data_ptr(), grad.data_ptr()};
  auto push = [&](const auto& t) {
    strides.push_back(broadcast_strides(t.sizes(), t.strides(), shape));
    data.push_back(t.data_ptr());
  };
  for_each_tensor(expr, [&](const auto& leaf) {
    using L = typename std::remove_cvref_t<decltype(leaf)>::value_type;
    push(leaf);
    const int lane = *lanes++;
    if constexpr (differentiable<L>) {
      if (!tangents) return;
      const bool has = lane >= 0 && (*tangents)[static_cast<std::size_t>(lane)].defined();
      Tensor<L> t =
          has ? (*tangents)[static_cast<std::size_t>(lane)].template to<L>() : zeros<L>({}, {.device = grad.device()});
      push(t);
      keep.emplace_back(std::move(t));
    }
  });
  return {cpu::make_loop_plan(shape, strides), std::move(data)};
}

/// Runs the executor's row loop over `plan` with `root` and `sink`, split
/// across threads by rows, or by column chunks when rows are few.
template <bool Packets, Element T, class Root, class Sink>
void run_sweep(const Root& root, const Sink& sink, const cpu::LoopPlan& plan, int64_t slots) {
  const int64_t inner = plan.inner(), rows = plan.rows();
  const int64_t ntasks = std::clamp<int64_t>(rows * inner / cpu::kGrainSize, 1, get_num_threads());
  const bool split_rows = rows >= ntasks;
  constexpr int64_t W = Packets ? cpu::packet_size<T> : 1;
  const int64_t col_chunk = ((inner + ntasks - 1) / ntasks + W - 1) / W * W;
  cpu::parallel_for(0, ntasks, 1, [&](int64_t t0, int64_t t1) {
    for (int64_t t = t0; t < t1; ++t) {
      const int64_t r0 = split_rows ? rows * t / ntasks : 0, r1 = split_rows ? rows * (t + 1) / ntasks : rows;
      const int64_t c0 = split_rows ? 0 : std::min(inner, t * col_chunk);
      const int64_t c1 = split_rows ? inner : std::min(inner, (t + 1) * col_chunk);
      cpu::detail::run_rows<Packets>(root, sink, plan, slots, r0, r1, c0, c1);
    }
  });
}

template <bool Packets, int K, Element T, class E>
void run_adjoints(const std::vector<Tensor<T>>& outs, const Tensor<T>& grad, const E& expr, const int* lanes) {
  std::vector<AnyTensor> keep;
  SweepOperands ops = sweep_operands(outs[0], grad, expr, lanes, nullptr, keep);
  cpu::EvalContext ctx{ops.plan, std::move(ops.data)};
  using Tree = typename AdjointEvalOf<E, Packets>::type;
  const AdjointRoot<T, K, Packets, Tree> root(grad, expr, ctx, lanes);
  std::vector<T*> out_data;
  for (const auto& o : outs) out_data.push_back(o.data_ptr());
  const AdjointSink<T, K> sink(out_data, ctx.plan);
  run_sweep<Packets, T>(root, sink, ctx.plan, ctx.next_slot);
}

}  // namespace detail

/// outs[l] = grad * d expr / d (leaf with lane l), for every element of the
/// broadcast shape, in one fused pass. `lanes` gives, for each tensor leaf
/// of `expr` in tree order, its lane or -1. `outs` are contiguous tensors of
/// expr's shape; `grad` broadcasts to it.
template <Element T, class E>
void adjoint_pass(const std::vector<Tensor<T>>& outs, const Tensor<T>& grad, const E& expr, const int* lanes) {
  constexpr int K = floating_leaf_count<E>;
  static_assert(K > 0, "adjoint_pass: the expression has no floating leaf to differentiate");
  if (outs.empty() || outs[0].numel() == 0) return;
  if (!grad.is_cpu()) {
#if defined(__CUDACC__)
    (void)cuda::detail::adjoint_registered<T, E>;
#endif
    auto* kernel = cuda::detail::adjoint_kernel<T, E>;
    ::tensorlib::detail::check<DeviceError>(
        kernel != nullptr, "backward of a fused expression on ", grad.device(),
        ": its kernel exists only where a translation unit compiled with nvcc materializes the expression; compile "
        "this translation unit with nvcc");
    stats::detail::count_fused_kernel();
    std::vector<AnyTensor> keep;
    const detail::SweepOperands ops = detail::sweep_operands(outs[0], grad, expr, lanes, nullptr, keep);
    kernel(outs, grad, expr, lanes, ops.plan, ops.data);
    return;
  }
  stats::detail::count_fused_loop();
  constexpr bool packets = cpu::PacketEvaluable<E, T>::value && cpu::packet_size < T >> 1;
  detail::run_adjoints<packets, K>(outs, grad, expr, lanes);
}

}  // namespace tensorlib::autograd
