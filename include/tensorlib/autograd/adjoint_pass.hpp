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
/// Note [adjoint sweep]
/// Per element (or SIMD packet), the compile-time tree is walked twice, all
/// in registers. Forward, bottom-up: each functor node runs on its
/// children's values with every active child seeded as one variable of
/// `Dual<V, A>` (A = its number of active children, 1 to 3), so the
/// functor's own dual form (dual.hpp) yields the node's value and its local
/// partials; the node keeps them on a tape, a nested struct the compiler
/// scalarizes. Backward, top-down: the root's adjoint is the incoming
/// gradient, each node hands `adjoint * partial` to each active child, and a
/// leaf adds what reaches it to its lane (leaves of one tensor share a lane).
/// The work is O(nodes), about twice the forward's; the earlier design ran
/// the whole tree on `Dual<V, K>` with one lane per leaf, O(nodes x K), and
/// measured 20x the forward for the 5-input chain (docs/architecture.md).
/// Derivatives still come only from the functors' dual forms.
///
/// Note [dual tree typing]
/// Values flow up the tree with their own types. A floating tensor leaf, and
/// a node with an active child whose functor gives a dual, is active; an
/// integer or bool leaf, a scalar, a comparison, and a cast to an integer or
/// bool type are not (their derivative is zero, as in PyTorch), so no
/// adjoint flows through them. Inactive children of the dual's value type are
/// lifted to constants. A cast between floating types passes the adjoint
/// through converted to the child's type.

#include <algorithm>
#include <cstdint>
#include <memory>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "tensorlib/autograd/dual.hpp"
#include "tensorlib/backend/cpu/evaluator.hpp"
#include "tensorlib/backend/cpu/loop_plan.hpp"
#include "tensorlib/backend/cpu/pointwise.hpp"
#include "tensorlib/backend/cpu/thread_pool.hpp"
#include "tensorlib/core/any_tensor.hpp"
#include "tensorlib/core/stats.hpp"
#include "tensorlib/core/tensor.hpp"
#include "tensorlib/expr/broadcast.hpp"
#include "tensorlib/expr/functors/cast.hpp"
#include "tensorlib/expr/map.hpp"
#include "tensorlib/expr/traverse.hpp"
#include "tensorlib/ops/copy.hpp"
#include "tensorlib/ops/factories.hpp"

namespace tensorlib::autograd {

/// Number of floating tensor leaves of an expression type: the lanes a fused
/// backward can need (dual tensors carry their own derivatives).
template <class N>
inline constexpr int floating_leaf_count = 0;
template <Element T>
inline constexpr int floating_leaf_count<Tensor<T>> = differentiable<T> && !is_dual<T> ? 1 : 0;
template <class F, class... Cs>
inline constexpr int floating_leaf_count<Map<F, Cs...>> = (0 + ... + floating_leaf_count<Cs>);

namespace detail {

template <class F>
inline constexpr bool is_cast_v = false;
template <class U>
inline constexpr bool is_cast_v<fn::CastTo<U>> = true;

/// A plain value lifted to the dual type D when it is D's value type, or
/// D's scalar type (a constant under a nested dual).
template <class D, class A>
auto lift(const A& a) {
  using V = std::remove_cvref_t<decltype(std::declval<D>().value)>;
  if constexpr (std::is_same_v<A, V>)
    return D(a);
  else if constexpr (is_dual<V> && std::is_same_v<A, scalar_t<V>>)
    return D(V(a));
  else
    return a;
}

/// `from` as a value of To (the adjoint crossing a floating cast; duals
/// convert component by component).
template <class To, class From>
[[gnu::always_inline]] inline To convert(const From& from) {
  if constexpr (std::is_same_v<To, From>) {
    return from;
  } else if constexpr (is_dual<To>) {
    using V = std::remove_cvref_t<decltype(std::declval<To>().value)>;
    To r(convert<V>(from.value));
    for (std::size_t k = 0; k < std::size(r.tangent); ++k) r.tangent[k] = convert<V>(from.tangent[k]);
    return r;
  } else {
    return static_cast<To>(from);
  }
}

template <class... A>
struct FirstDual;
template <class A, class... Rest>
struct FirstDual<A, Rest...> {
  using type = std::conditional_t<is_dual<A>, A, typename FirstDual<Rest...>::type>;
};
template <>
struct FirstDual<> {
  using type = void;
};

/// The value type of the first active tape.
template <class... Tapes>
struct FirstActive;
template <class Tape, class... Rest>
struct FirstActive<Tape, Rest...> {
  using type =
      std::conditional_t<Tape::active, std::remove_cvref_t<decltype(Tape::value)>, typename FirstActive<Rest...>::type>;
};
template <>
struct FirstActive<> {
  using type = void;
};

/// What the forward half of the sweep keeps of one leaf or constant: its
/// value. `active` marks a floating value an adjoint can flow into.
template <class V, bool Active>
struct ValueTape {
  static constexpr bool active = Active;
  V value;
};

/// What it keeps of one functor node: its value, its partial derivative with
/// respect to each active child (slot order), and the children's tapes.
template <class V, class P, int A, class... Ts>
struct NodeTape {
  static constexpr bool active = A > 0;
  V value;
  P partial[A > 0 ? A : 1];
  std::tuple<Ts...> children;
};

/// The slot of child I among the active children: their count before it.
template <bool... Active>
constexpr int active_slot(std::size_t i) {
  constexpr bool flags[] = {Active..., false};
  int slot = 0;
  for (std::size_t c = 0; c < i; ++c) slot += flags[c] ? 1 : 0;
  return slot;
}

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
  [[gnu::always_inline]] auto forward(int64_t j, int n) const {
    if constexpr (Packets) {
      using V = decltype(leaf_.template load<false>(j, n));
      return ValueTape<V, differentiable<T>>{leaf_.template load<false>(j, n)};
    } else {
      return ValueTape<T, differentiable<T>>{leaf_.template scalar<false>(j)};
    }
  }
  template <class Tape, class Adj, class Acc>
  [[gnu::always_inline]] void backward(const Tape&, const Adj& adj, Acc* acc) const {
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
  [[gnu::always_inline]] auto forward(int64_t, int) const {
    if constexpr (Packets)
      return ValueTape<cpu::packet_t<T>, false>{cpu::packet_t<T>(value_)};
    else
      return ValueTape<T, false>{value_};
  }

 private:
  T value_;
};

/// A functor node. Forward: the functor on its children's values, with each
/// active child seeded as one variable of `Dual<V, A>` (A = the number of
/// active children), so the functor's own dual form gives the node's value
/// and its local partials at once (Note [adjoint sweep]). Backward: the
/// adjoint times each partial flows to that child.
template <bool Packets, class F, class... Cs>
class AdjointMap {
 public:
  template <class... Children>
  AdjointMap(const Map<F, Children...>& node, cpu::EvalContext& ctx, const int*& lanes)
      : f_(node.functor()), children_(make(node.children(), ctx, lanes, std::index_sequence_for<Children...>{})) {}
  void seek(const int64_t* index, const cpu::LoopPlan& plan) {
    std::apply([&](auto&... c) { (c.seek(index, plan), ...); }, children_);
  }
  void advance(int64_t k) {
    std::apply([&](auto&... c) { (c.advance(k), ...); }, children_);
  }
  void begin_block(int64_t c0, int64_t n, cpu::Scratch& scratch) {
    std::apply([&](auto&... c) { (c.begin_block(c0, n, scratch), ...); }, children_);
  }
  [[gnu::always_inline]] auto forward(int64_t j, int n) const {
    return forward_children(j, n, std::index_sequence_for<Cs...>{});
  }
  template <class Tape, class Adj, class Acc>
  [[gnu::always_inline]] void backward(const Tape& tape, const Adj& adj, Acc* acc) const {
    if constexpr (Tape::active) backward_children(tape, adj, acc, std::index_sequence_for<Cs...>{});
  }

 private:
  // No lambdas on the per-element path: GCC does not inline them into the
  // row loop, and a tape returned through memory costs 10x.
  template <std::size_t... I>
  [[gnu::always_inline]] auto forward_children(int64_t j, int n, std::index_sequence<I...> seq) const {
    return local(std::tuple{std::get<I>(children_).forward(j, n)...}, seq);
  }

  template <class Tapes, std::size_t... I>
  [[gnu::always_inline]] auto local(Tapes&& tapes, std::index_sequence<I...>) const {
    using Ts = std::remove_cvref_t<Tapes>;
    constexpr int A = (0 + ... + int(std::tuple_element_t<I, Ts>::active));
    if constexpr (is_cast_v<F>) {
      // A cast passes the adjoint through converted: partial 1, or none
      // when the cast leaves the floating types.
      const auto& x = std::get<0>(tapes);
      using X = std::remove_cvref_t<decltype(x.value)>;
      if constexpr (is_dual<X>) {
        // Second-order pass: the tangent converts with the value.
        using U = decltype(f_(x.value.value));
        if constexpr (is_floating<U>) {
          Dual<U, 1> v(f_(x.value.value));
          v.tangent[0] = f_(x.value.tangent[0]);
          return NodeTape<Dual<U, 1>, Dual<U, 1>, 1, std::tuple_element_t<I, Ts>...>{v, {}, std::move(tapes)};
        } else {
          return NodeTape<U, U, 0, std::tuple_element_t<I, Ts>...>{f_(x.value.value), {}, std::move(tapes)};
        }
      } else {
        using U = decltype(f_(x.value));
        if constexpr (A > 0 && is_floating<scalar_t<U>>)
          return NodeTape<U, U, 1, std::tuple_element_t<I, Ts>...>{f_(x.value), {}, std::move(tapes)};
        else
          return NodeTape<U, U, 0, std::tuple_element_t<I, Ts>...>{f_(x.value), {}, std::move(tapes)};
      }
    } else if constexpr (A == 0) {
      using R = decltype(f_(std::get<I>(tapes).value...));
      return NodeTape<R, R, 0, std::tuple_element_t<I, Ts>...>{f_(std::get<I>(tapes).value...), {}, std::move(tapes)};
    } else {
      using Vc = typename FirstActive<std::tuple_element_t<I, Ts>...>::type;
      using D = Dual<Vc, A>;
      static_assert(((!std::tuple_element_t<I, Ts>::active ||
                      std::is_same_v<decltype(std::tuple_element_t<I, Ts>::value), Vc>)&&...),
                    "adjoint sweep: the active operands of one functor must share a floating type");
      const auto r =
          evaluate(seed<D, std::tuple_element_t<I, Ts>::active>(std::get<I>(tapes).value, slot_of<Ts>(I))...);
      using R = std::remove_cvref_t<decltype(r)>;
      if constexpr (is_dual<R>) {
        using V = std::remove_cvref_t<decltype(r.value)>;
        NodeTape<V, Vc, A, std::tuple_element_t<I, Ts>...> tape{r.value, {}, std::move(tapes)};
        for (int k = 0; k < A; ++k) tape.partial[k] = r.tangent[k];
        return tape;
      } else {
        // A comparison (or another functor whose result has no derivative).
        return NodeTape<R, R, 0, std::tuple_element_t<I, Ts>...>{r, {}, std::move(tapes)};
      }
    }
  }

  // The functor on seeded duals: its dual form when every operand is one
  // (Note [dual derivatives at special points]), else its formula.
  template <class... A>
  [[gnu::always_inline]] auto evaluate(const A&... a) const {
    using D = typename FirstDual<A...>::type;
    if constexpr ((std::is_same_v<A, D> && ...) &&
                  std::is_same_v<std::remove_cvref_t<std::invoke_result_t<const F&, const A&...>>, D>)
      return apply_dual(f_, a...);
    else
      return f_(a...);
  }

  template <class D, bool Active, class V>
  [[gnu::always_inline]] static auto seed(const V& v, int slot) {
    if constexpr (Active)
      return D::variable(v, slot);
    else
      return lift<D>(v);
  }

  template <class Tape, class Adj, class Acc, std::size_t... I>
  [[gnu::always_inline]] void backward_children(const Tape& tape, const Adj& adj, Acc* acc,
                                                std::index_sequence<I...>) const {
    (backward_child<I>(tape, adj, acc), ...);
  }
  template <std::size_t I, class Tape, class Adj, class Acc>
  [[gnu::always_inline]] void backward_child(const Tape& tape, const Adj& adj, Acc* acc) const {
    using Ts = decltype(tape.children);
    using Child = std::tuple_element_t<I, Ts>;
    if constexpr (Child::active) {
      using CV = std::remove_cvref_t<decltype(Child::value)>;
      if constexpr (is_cast_v<F>) {
        std::get<I>(children_).backward(std::get<I>(tape.children), convert<CV>(adj), acc);
      } else {
        using P = std::remove_cvref_t<decltype(tape.partial[0])>;
        constexpr int slot = slot_of<Ts>(I);
        std::get<I>(children_).backward(std::get<I>(tape.children), convert<CV>(convert<P>(adj) * tape.partial[slot]),
                                        acc);
      }
    }
  }
  template <class Ts>
  static constexpr int slot_of(std::size_t i) {
    return [&]<std::size_t... J>(std::index_sequence<J...>) {
      return active_slot<std::tuple_element_t<J, Ts>::active...>(i);
    }
    (std::make_index_sequence<std::tuple_size_v<Ts>>{});
  }

  template <class Tuple, std::size_t... I>
  static std::tuple<Cs...> make(const Tuple& nodes, cpu::EvalContext& ctx, const int*& lanes,
                                std::index_sequence<I...>) {
    // Braced initialization runs left to right: leaves take operand numbers
    // and lanes in tree order.
    return std::tuple<Cs...>{Cs(std::get<I>(nodes), ctx, lanes)...};
  }
  F f_;
  std::tuple<Cs...> children_;
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

/// One element's (or packet's) gradients: the accumulator of each lane.
template <class V, int K>
struct LaneAdjoints {
  V lane[K > 0 ? K : 1];
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
  [[gnu::always_inline]] LaneAdjoints<cpu::packet_t<T>, K> load(int64_t j, int n) const {
    return sweep<cpu::packet_t<T>>(grad_.template load<false>(j, n), j, n);
  }
  template <bool Materialized>
  [[gnu::always_inline]] LaneAdjoints<T, K> scalar(int64_t j) const {
    return sweep<T>(grad_.template scalar<false>(j), j, 1);
  }

 private:
  template <class V>
  [[gnu::always_inline]] LaneAdjoints<V, K> sweep(const V& grad, int64_t j, int n) const {
    LaneAdjoints<V, K> out;
    for (auto& l : out.lane) l = V(T(0));
    const auto tape = tree_.forward(j, n);
    // A root whose every path to a lane was cut (a comparison, an integer
    // cast) has no gradient.
    if constexpr (std::remove_cvref_t<decltype(tape)>::active)
      tree_.backward(tape, convert<std::remove_cvref_t<decltype(tape.value)>>(grad), out.lane);
    return out;
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
  [[gnu::always_inline]] void store(int64_t j, const LaneAdjoints<packet, K>& v, int n) const {
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
  [[gnu::always_inline]] void put(int64_t j, const LaneAdjoints<T, K>& v) const {
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
      Tensor<L> t = has ? (*tangents)[static_cast<std::size_t>(lane)].template to<L>() : zeros<L>({});
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
  ::tensorlib::detail::check<DeviceError>(grad.is_cpu(), "backward of a fused expression on ", grad.device(),
                                          " needs the CUDA backend");
  stats::detail::count_fused_loop();
  constexpr bool packets = cpu::PacketEvaluable<E, T>::value && cpu::packet_size < T >> 1;
  detail::run_adjoints<packets, K>(outs, grad, expr, lanes);
}

}  // namespace tensorlib::autograd
