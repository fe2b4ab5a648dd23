#pragma once
/// \file
/// The second-order pass of a fused expression (Note [second order] in
/// fused.hpp): the adjoint sweep of adjoint_pass.hpp run on `Dual<T, 1>`
/// values whose tangents are a direction u, so one scalar loop gives
/// grad * (H u) for every leaf and J u. Used by `FusedGradBackward`.

#include <vector>

#include "tensorlib/autograd/adjoint_pass.hpp"
#include "tensorlib/autograd/dual.hpp"
#include "tensorlib/backend/cpu/evaluator.hpp"
#include "tensorlib/backend/cpu/loop_plan.hpp"
#include "tensorlib/core/any_tensor.hpp"
#include "tensorlib/core/error.hpp"
#include "tensorlib/core/stats.hpp"
#include "tensorlib/core/tensor.hpp"

namespace tensorlib::autograd {
namespace detail {

/// A floating tensor leaf of the second-order pass: its value as a
/// `Dual<T, 1>` whose tangent is read from the operand after it (the
/// direction the pass differentiates along).
template <Element T>
class TangentLeaf {
 public:
  TangentLeaf(const Tensor<T>& t, cpu::EvalContext& ctx, const int*& lanes)
      : leaf_(t, ctx), tangent_(t, ctx), lane_(*lanes++) {}
  void seek(const int64_t* index, const cpu::LoopPlan& plan) {
    leaf_.seek(index, plan);
    tangent_.seek(index, plan);
  }
  void advance(int64_t k) {
    leaf_.advance(k);
    tangent_.advance(k);
  }
  void begin_block(int64_t c0, int64_t n, cpu::Scratch& scratch) {
    leaf_.begin_block(c0, n, scratch);
    tangent_.begin_block(c0, n, scratch);
  }
  auto forward(int64_t j, int) const {
    Dual<T, 1> d(leaf_.template scalar<false>(j));
    d.tangent[0] = tangent_.template scalar<false>(j);
    return ValueTape<Dual<T, 1>, true>{d};
  }
  template <class Tape, class Adj, class Acc>
  void backward(const Tape&, const Adj& adj, Acc* acc) const {
    if (lane_ >= 0) acc[lane_] += convert<Acc>(adj);
  }

 private:
  cpu::LeafEval<T> leaf_;
  cpu::LeafEval<T> tangent_;  // constructed second: the next operand
  int lane_;
};

/// The root of the second-order pass (scalar loops; Note [second order] in
/// fused.hpp): the forward half on leaves carrying tangents u, the adjoint
/// seeded with the gradient as a constant, and per element each lane's
/// tangent (grad * (H u) for that leaf) followed, in slot `used`, by the
/// root's tangent (J u).
template <Element T, int K, class Tree>
class SecondOrderRoot : public SweepRootBase<T, Tree> {
  using Base = SweepRootBase<T, Tree>;
  using Base::grad_;
  using Base::tree_;

 public:
  template <class E>
  SecondOrderRoot(const Tensor<T>& grad, const E& expr, cpu::EvalContext& ctx, const int* lanes, int used)
      : Base(grad, expr, ctx, lanes), used_(used) {}
  template <bool Materialized>
  LaneAdjoints<T, K + 1> scalar(int64_t j) const {
    LaneAdjoints<T, K + 1> out;
    for (auto& l : out.lane) l = T(0);
    const auto tape = tree_.forward(j, 1);
    using R = std::remove_cvref_t<decltype(tape.value)>;
    if constexpr (is_dual<R>) {
      LaneAdjoints<Dual<T, 1>, K> acc;
      for (auto& l : acc.lane) l = Dual<T, 1>(T(0));
      tree_.backward(tape, R(convert<std::remove_cvref_t<decltype(tape.value.value)>>(grad_.template scalar<false>(j))),
                     acc.lane);
      for (int l = 0; l < used_; ++l) out.lane[l] = acc.lane[l].tangent[0];
      out.lane[used_] = static_cast<T>(tape.value.tangent[0]);
    }
    return out;
  }

 private:
  int used_;
};

}  // namespace detail

/// The second-order pass (Note [second order] in fused.hpp), one fused
/// loop: for the direction u (`tangents[l]` for lane l, undefined = 0),
/// outs[l] = grad * sum_m d2 expr / (d leaf_l d leaf_m) u_m for each lane l
/// < outs.size() - 1, and the last output = sum_m d expr / d leaf_m u_m.
/// Same operand conventions as `adjoint_pass`; scalar loops.
template <Element T, class E>
void second_order_pass(const std::vector<Tensor<T>>& outs, const Tensor<T>& grad, const E& expr, const int* lanes,
                       const std::vector<Tensor<T>>& tangents) {
  constexpr int K = floating_leaf_count<E>;
  static_assert(K > 0, "second_order_pass: the expression has no floating leaf to differentiate");
  if (outs[0].numel() == 0) return;
  if (!grad.is_cpu()) {
#if defined(__CUDACC__)
    (void)cuda::detail::second_order_registered<T, E>;
#endif
    auto* kernel = cuda::detail::second_order_kernel<T, E>;
    ::tensorlib::detail::check<DeviceError>(
        kernel != nullptr, "double backward of a fused expression on ", grad.device(),
        ": its kernel exists only where a translation unit compiled with nvcc differentiates the expression twice; "
        "compile this translation unit with nvcc");
    stats::detail::count_fused_kernel();
    std::vector<AnyTensor> keep;
    const detail::SweepOperands ops = detail::sweep_operands(outs[0], grad, expr, lanes, &tangents, keep);
    kernel(outs, grad, expr, lanes, ops.plan, ops.data);
    return;
  }
  stats::detail::count_fused_loop();
  std::vector<AnyTensor> keep;
  detail::SweepOperands ops = detail::sweep_operands(outs[0], grad, expr, lanes, &tangents, keep);
  cpu::EvalContext ctx{ops.plan, std::move(ops.data)};
  using Tree = typename detail::AdjointEvalOf<E, false, true>::type;
  const detail::SecondOrderRoot<T, K, Tree> root(grad, expr, ctx, lanes, static_cast<int>(outs.size()) - 1);
  std::vector<T*> out_data;
  for (const auto& o : outs) out_data.push_back(o.data_ptr());
  const detail::AdjointSink<T, K + 1> sink(out_data, ctx.plan);
  detail::run_sweep<false, T>(root, sink, ctx.plan, ctx.next_slot);
}

}  // namespace tensorlib::autograd
