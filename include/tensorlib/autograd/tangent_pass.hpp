#pragma once
/// \file
/// The fused backward pass of a pointwise expression (DESIGN 3.5): one loop
/// over the expression's broadcast shape that re-evaluates the expression
/// on `Dual<V, K>` (one tangent lane per leaf needing a gradient) and writes
/// `grad_out * d expr / d leaf` for every such leaf at once. It is the CPU
/// executor's loop (backend/cpu/pointwise.hpp: rows, blocks, gathers of
/// strided and broadcast leaves, threads, SIMD packets when the whole tree
/// computes in one float type) with a dual-valued tree and a sink with one
/// output per lane. It lives in autograd/ because duals do; backend/ gives
/// it the loop pieces.
///
/// Note [dual tree typing]
/// Values flow up the tree with their own types: a floating tensor leaf is
/// a dual (tangent 1 in its lane, if it has one), an integer or bool leaf and
/// a scalar stay plain, and a node computes on duals as soon as one of its
/// children is a dual, lifting plain children of the same value type to
/// constants. A cast between floating types converts value and tangents; a
/// cast to an integer or bool type, and a comparison, drop the tangents
/// (their derivative is zero, as in PyTorch).

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
#include "tensorlib/core/stats.hpp"
#include "tensorlib/core/tensor.hpp"
#include "tensorlib/expr/broadcast.hpp"
#include "tensorlib/expr/functors/cast.hpp"
#include "tensorlib/expr/map.hpp"
#include "tensorlib/expr/traverse.hpp"

namespace tensorlib::autograd {

/// Number of floating tensor leaves of an expression type: the lanes a fused
/// backward can need.
template <class N>
inline constexpr int floating_leaf_count = 0;
template <Element T>
inline constexpr int floating_leaf_count<Tensor<T>> = is_floating<T> ? 1 : 0;
template <class F, class... Cs>
inline constexpr int floating_leaf_count<Map<F, Cs...>> = (0 + ... + floating_leaf_count<Cs>);

namespace detail {

template <class F>
inline constexpr bool is_cast_v = false;
template <class U>
inline constexpr bool is_cast_v<fn::CastTo<U>> = true;

/// A plain value lifted to the dual type D when it is D's value type.
template <class D, class A>
auto lift(const A& a) {
  if constexpr (std::is_same_v<A, std::remove_cvref_t<decltype(std::declval<D>().value)>>)
    return D(a);
  else
    return a;
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

// One node of the dual tree (Note [dual tree typing]).
template <class F, class... A>
auto combine(const F& f, const A&... a) {
  if constexpr (is_cast_v<F>) {
    using U = decltype(f(std::declval<const A&>()...));
    const auto& x = (a, ...);
    using X = std::remove_cvref_t<decltype(x)>;
    if constexpr (is_dual<X>) {
      if constexpr (is_floating<U>) {
        constexpr int K = sizeof(x.tangent) / sizeof(x.tangent[0]);
        Dual<U, K> r(static_cast<U>(x.value));
        for (int k = 0; k < K; ++k) r.tangent[k] = static_cast<U>(x.tangent[k]);
        return r;
      } else {
        return f(x.value);
      }
    } else {
      return f(x);
    }
  } else if constexpr ((is_dual<A> || ...)) {
    using D = typename FirstDual<A...>::type;
    if constexpr ((std::is_same_v<decltype(lift<D>(a)), D> && ...) &&
                  std::is_same_v<std::remove_cvref_t<std::invoke_result_t<const F&, const decltype(lift<D>(a))&...>>,
                                 D>) {
      return apply_dual(f, lift<D>(a)...);
    } else {
      return f(lift<D>(a)...);
    }
  } else {
    return f(a...);
  }
}

template <class N, int K, bool Packets>
struct DualEvalOf;

/// A tensor leaf: its value, as a dual when floating.
template <Element T, int K, bool Packets>
class DualLeaf {
 public:
  DualLeaf(const Tensor<T>& t, cpu::EvalContext& ctx, const int*& lanes) : leaf_(t, ctx), lane_(*lanes++) {}
  void seek(const int64_t* index, const cpu::LoopPlan& plan) { leaf_.seek(index, plan); }
  void advance(int64_t k) { leaf_.advance(k); }
  void begin_block(int64_t c0, int64_t n, cpu::Scratch& scratch) { leaf_.begin_block(c0, n, scratch); }
  [[gnu::always_inline]] auto value(int64_t j, int n) const {
    if constexpr (Packets) {
      return make(leaf_.template load<false>(j, n));
    } else {
      return make(leaf_.template scalar<false>(j));
    }
  }

 private:
  template <class V>
  [[gnu::always_inline]] auto make(const V& v) const {
    if constexpr (is_floating<T>) {
      Dual<V, K> d(v);
      if (lane_ >= 0) d.tangent[lane_] = V(T(1));
      return d;
    } else {
      return v;
    }
  }
  cpu::LeafEval<T> leaf_;
  int lane_;
};

/// A scalar operand: a plain value (a splat packet in packet mode).
template <Element T, int K, bool Packets>
class DualConst {
 public:
  DualConst(const ScalarLeaf<T>& s, cpu::EvalContext&, const int*&) : value_(s.value) {}
  void seek(const int64_t*, const cpu::LoopPlan&) {}
  void advance(int64_t) {}
  void begin_block(int64_t, int64_t, cpu::Scratch&) {}
  [[gnu::always_inline]] auto value(int64_t, int) const {
    if constexpr (Packets)
      return cpu::packet_t<T>(value_);
    else
      return value_;
  }

 private:
  T value_;
};

/// A functor node on the children's (dual or plain) values.
template <int K, bool Packets, class F, class... Cs>
class DualMap {
 public:
  template <class... Children>
  DualMap(const Map<F, Children...>& node, cpu::EvalContext& ctx, const int*& lanes)
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
  [[gnu::always_inline]] auto value(int64_t j, int n) const {
    return std::apply([&](const auto&... c) { return combine(f_, c.value(j, n)...); }, children_);
  }

 private:
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

template <Element T, int K, bool Packets>
struct DualEvalOf<Tensor<T>, K, Packets> {
  using type = DualLeaf<T, K, Packets>;
};
template <Element T, int K, bool Packets>
struct DualEvalOf<ScalarLeaf<T>, K, Packets> {
  using type = DualConst<T, K, Packets>;
};
template <class F, class... Cs, int K, bool Packets>
struct DualEvalOf<Map<F, Cs...>, K, Packets> {
  using type = DualMap<K, Packets, F, typename DualEvalOf<Cs, K, Packets>::type...>;
};

/// What one element of the pass yields: the incoming gradient and the
/// expression's dual value.
template <class V, int K>
struct GradAndDual {
  V grad;
  Dual<V, K> dual;
};

/// The root the executor's row loop drives: the gradient leaf and the tree.
template <Element T, int K, bool Packets, class Tree>
class TangentRoot {
 public:
  static constexpr bool has_candidates = false;
  template <class E>
  TangentRoot(const Tensor<T>& grad, const E& expr, cpu::EvalContext& ctx, const int* lanes)
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
  template <bool Materialized>
  [[gnu::always_inline]] GradAndDual<cpu::packet_t<T>, K> load(int64_t j, int n) const {
    return {grad_.template load<false>(j, n), as_dual(tree_.value(j, n))};
  }
  template <bool Materialized>
  [[gnu::always_inline]] GradAndDual<T, K> scalar(int64_t j) const {
    return {grad_.template scalar<false>(j), as_dual(tree_.value(j, 1))};
  }

 private:
  // A root whose every path to a lane was cut (a comparison, an integer
  // cast) has zero tangents.
  template <class X>
  static auto as_dual(const X& x) {
    if constexpr (is_dual<X>)
      return x;
    else
      return Dual<X, K>(x);
  }
  cpu::LeafEval<T> grad_;
  Tree tree_;
};

/// Writes grad * tangent[lane] into one contiguous output per lane.
template <Element T, int K>
class TangentSink {
 public:
  using packet = cpu::packet_t<T>;
  TangentSink(const std::vector<T*>& outs, const cpu::LoopPlan& plan)
      : cursor_(outs[0], plan.strides[0], plan), lanes_(static_cast<int>(outs.size())) {
    for (int l = 0; l < lanes_; ++l) bases_[l] = outs[static_cast<std::size_t>(l)];
  }
  void seek(const int64_t* index, const cpu::LoopPlan& plan) { cursor_.seek(index, plan); }
  void advance(int64_t k) { cursor_.advance(k); }
  void begin_block(int64_t c0, cpu::Scratch&) { offset_ = (cursor_.row - cursor_.base) + c0 * cursor_.inner; }
  void end_block(int64_t) const {}
  [[gnu::always_inline]] void store(int64_t j, const GradAndDual<packet, K>& v, int n) const {
    for (int l = 0; l < lanes_; ++l) {
      const packet r = v.grad * v.dual.tangent[l];
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
  [[gnu::always_inline]] void put(int64_t j, const GradAndDual<T, K>& v) const {
    for (int l = 0; l < lanes_; ++l) bases_[l][offset_ + j * cursor_.inner] = v.grad * v.dual.tangent[l];
  }

 private:
  cpu::RowCursor<T> cursor_;
  T* bases_[K > 0 ? K : 1] = {};
  int lanes_;
  int64_t offset_ = 0;
};

template <bool Packets, int K, Element T, class E>
void run_tangents(const std::vector<Tensor<T>>& outs, const Tensor<T>& grad, const E& expr, const int* lanes) {
  const Shape& shape = outs[0].sizes();
  std::vector<Shape> strides{outs[0].strides(), broadcast_strides(grad.sizes(), grad.strides(), shape)};
  std::vector<const void*> data{outs[0].data_ptr(), grad.data_ptr()};
  for_each_tensor(expr, [&](const auto& leaf) {
    strides.push_back(broadcast_strides(leaf.sizes(), leaf.strides(), shape));
    data.push_back(leaf.data_ptr());
  });
  const cpu::LoopPlan plan = cpu::make_loop_plan(shape, strides);
  cpu::EvalContext ctx{plan, std::move(data)};
  using Tree = typename DualEvalOf<E, K, Packets>::type;
  const TangentRoot<T, K, Packets, Tree> root(grad, expr, ctx, lanes);
  std::vector<T*> out_data;
  for (const auto& o : outs) out_data.push_back(o.data_ptr());
  const TangentSink<T, K> sink(out_data, plan);
  const int64_t slots = ctx.next_slot, inner = plan.inner(), rows = plan.rows();
  const int64_t ntasks = std::clamp<int64_t>(rows * inner / cpu::kGrainSize, 1, get_num_threads());
  const bool split_rows = rows >= ntasks;
  constexpr int64_t W = cpu::packet_size<T>;
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

}  // namespace detail

/// outs[l] = grad * d expr / d (leaf with lane l), for every element of the
/// broadcast shape, in one fused pass. `lanes` gives, for each tensor leaf
/// of `expr` in tree order, its lane or -1. `outs` are contiguous tensors of
/// expr's shape; `grad` broadcasts to it.
template <Element T, class E>
void tangent_pass(const std::vector<Tensor<T>>& outs, const Tensor<T>& grad, const E& expr, const int* lanes) {
  constexpr int K = floating_leaf_count<E>;
  static_assert(K > 0, "tangent_pass: the expression has no floating leaf to differentiate");
  if (outs.empty() || outs[0].numel() == 0) return;
  ::tensorlib::detail::check<DeviceError>(grad.is_cpu(), "backward of a fused expression on ", grad.device(),
                                          " needs the CUDA backend");
  stats::detail::count_fused_loop();
  constexpr bool packets = cpu::PacketEvaluable<E, T>::value && cpu::packet_size < T >> 1;
  detail::run_tangents<packets, K>(outs, grad, expr, lanes);
}

}  // namespace tensorlib::autograd
