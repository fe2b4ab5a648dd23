#pragma once
/// \file
/// Evaluators: the executable mirror of an expression tree. `Eval<E, Flat>`
/// turns each node of E into a small struct holding what the inner loop needs
/// (row pointers and inner strides for tensor leaves, the functor for maps),
/// so the whole tree inlines into one loop body. `Flat` evaluators serve the
/// single flat contiguous loop; the others serve the general row loop, with
/// broadcasting and hoisting.
///
/// Note [hoisting]
/// In the row loop a `Map` node whose leaves never move along the inner
/// dimension is constant along a row: it is computed once per row and
/// splatted (`kRowConstant`). A node whose leaves never move along the outer
/// dimensions is the same for every row (e.g. `sigmoid(d)` of a broadcast
/// row vector d): it is computed once for the whole inner extent into a
/// buffer before the loop and read back like a contiguous leaf
/// (`kBuffered`). Only the outermost qualifying node of a subtree is hoisted.

#include <algorithm>
#include <cstdint>
#include <memory>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "tensorlib/backend/cpu/loop_plan.hpp"
#include "tensorlib/backend/cpu/simd.hpp"
#include "tensorlib/backend/cpu/simd_math.hpp"
#include "tensorlib/core/tensor.hpp"
#include "tensorlib/expr/map.hpp"

namespace tensorlib::cpu {

/// Packet type of an element type (the element itself where no packet exists).
template <class T>
using packet_t = std::conditional_t<simd::Lane<T>, simd::Vec<std::conditional_t<simd::Lane<T>, T, float>>, T>;

template <class T>
constexpr int packet_size_of() {
  if constexpr (simd::Lane<T>) return simd::Vec<T>::size;
  else return 1;
}
template <class T>
inline constexpr int packet_size = packet_size_of<T>();

namespace detail {
template <class, class V>
using as_type = V;
}  // namespace detail

/// True when every node of E computes in T and every functor accepts packets
/// of T: then E runs on SIMD packets.
template <class E, class T>
struct PacketEvaluable : std::false_type {};
template <simd::Lane T>
struct PacketEvaluable<Tensor<T>, T> : std::true_type {};
template <simd::Lane T>
struct PacketEvaluable<ScalarLeaf<T>, T> : std::true_type {};
template <class F, class... Cs, simd::Lane T>
struct PacketEvaluable<Map<F, Cs...>, T>
    : std::bool_constant<std::is_same_v<typename Map<F, Cs...>::value_type, T> && (PacketEvaluable<Cs, T>::value && ...) &&
                         std::is_invocable_r_v<simd::Vec<T>, const F&, detail::as_type<Cs, simd::Vec<T>>...>> {};

/// Everything an evaluator needs from the executor while it is built.
struct EvalContext {
  const LoopPlan& plan;
  std::vector<const void*> leaf_data;  // by operand index (0 = output)
  int64_t next_operand = 1;
};

enum class Hoist : uint8_t { kNone, kRowConstant, kBuffered };

template <class E, bool Flat>
struct EvalOf;

/// A tensor leaf: a row pointer that steps with the loop nest.
template <Element T, bool Flat>
class LeafEval {
 public:
  using value_type = T;
  using packet = packet_t<T>;

  LeafEval(const Tensor<T>&, EvalContext& ctx) {
    const int64_t op = ctx.next_operand++;
    const LoopPlan& plan = ctx.plan;
    base_ = row_ = static_cast<const T*>(ctx.leaf_data[op]);
    inner_ = plan.strides[op].back();
    strides_ = plan.strides[op];
    moves_ = plan.moves(op);
    carry_deltas(plan, strides_, deltas_);
  }

  uint32_t moves() const { return moves_; }
  void plan_hoist(uint32_t, bool) {}
  template <bool Packets>
  void fill_buffers(int64_t, std::vector<std::unique_ptr<std::byte[]>>&) {}
  void seek(const int64_t* index, const LoopPlan& plan) { row_ = base_ + row_offset(index, plan, strides_); }
  void advance(int64_t k) { row_ += deltas_[k]; }
  template <bool Packets>
  void start_row() {
    if constexpr (!Flat && Packets) {
      if (inner_ == 0) splat_ = packet(*row_);
    }
  }

  T scalar(int64_t j) const {
    if constexpr (Flat) return row_[j];
    else return row_[j * inner_];
  }
  /// The packet of lanes j, j+1, ..., j+n-1 (n <= packet size; missing lanes are 0).
  packet load(int64_t j, int n) const {
    constexpr int W = packet::size;
    if (Flat || inner_ == 1) return n == W ? packet::load(row_ + j) : packet::load_partial(row_ + j, n);
    if (inner_ == 0) return splat_;
    return packet::gather(row_ + j * inner_, inner_, n);
  }

 private:
  const T* base_;
  const T* row_;
  int64_t inner_;
  Shape strides_;
  int64_t deltas_[Shape::kMaxDims] = {};
  uint32_t moves_ = 0;
  packet splat_{};
};

/// A scalar operand.
template <Element T>
class ConstEval {
 public:
  using value_type = T;
  using packet = packet_t<T>;

  ConstEval(const ScalarLeaf<T>& leaf, EvalContext&) : value_(leaf.value), splat_(leaf.value) {}

  uint32_t moves() const { return 0; }
  void plan_hoist(uint32_t, bool) {}
  template <bool Packets>
  void fill_buffers(int64_t, std::vector<std::unique_ptr<std::byte[]>>&) {}
  void seek(const int64_t*, const LoopPlan&) {}
  void advance(int64_t) {}
  template <bool Packets>
  void start_row() {}
  T scalar(int64_t) const { return value_; }
  packet load(int64_t, int) const { return splat_; }

 private:
  T value_;
  packet splat_;
};

/// A functor applied to child evaluators, with optional hoisting (Note [hoisting]).
template <bool Flat, class F, class... Cs>
class MapEval {
 public:
  using value_type = std::remove_cvref_t<std::invoke_result_t<const F&, typename Cs::value_type...>>;
  using packet = packet_t<value_type>;

  template <class... Children>
  MapEval(const Map<F, Children...>& node, EvalContext& ctx)
      : f_(node.functor()), children_(make_children(node.children(), ctx, std::index_sequence_for<Children...>{})) {
    moves_ = std::apply([](const auto&... c) { return (0u | ... | c.moves()); }, children_);
  }

  uint32_t moves() const { return moves_; }

  /// Decides hoisting top-down (the executor calls it on the root).
  void plan_hoist(uint32_t inner_bit, bool has_outer) {
    if ((moves_ & inner_bit) == 0) {
      hoist_ = Hoist::kRowConstant;
    } else if (has_outer && (moves_ & ~inner_bit) == 0) {
      hoist_ = Hoist::kBuffered;
    } else {
      std::apply([&](auto&... c) { (c.plan_hoist(inner_bit, has_outer), ...); }, children_);
    }
  }

  /// Computes buffered nodes over [0, inner) (the tree must be at row 0),
  /// with the loop's own code path, so hoisting never changes a result.
  template <bool Packets>
  [[gnu::noinline]] void fill_buffers(int64_t inner, std::vector<std::unique_ptr<std::byte[]>>& arena) {
    if (hoist_ != Hoist::kBuffered) {
      std::apply([&](auto&... c) { (c.template fill_buffers<Packets>(inner, arena), ...); }, children_);
      return;
    }
    arena.push_back(std::make_unique<std::byte[]>(static_cast<std::size_t>(inner) * sizeof(value_type) + 64));
    auto* out = reinterpret_cast<value_type*>(arena.back().get());
    std::apply([&](auto&... c) { (c.template start_row<Packets>(), ...); }, children_);
    if constexpr (Packets) {
      constexpr int64_t W = packet_size<value_type>;
      for (int64_t j = 0; j < inner; j += W) {
        const int n = static_cast<int>(std::min(W, inner - j));
        compute_load(j, n).store_partial(out + j, n);
      }
    } else {
      for (int64_t j = 0; j < inner; ++j) out[j] = compute_scalar(j);
    }
    buffer_ = out;
  }

  void seek(const int64_t* index, const LoopPlan& plan) {
    std::apply([&](auto&... c) { (c.seek(index, plan), ...); }, children_);
  }
  void advance(int64_t k) {
    if (hoist_ == Hoist::kBuffered) return;
    std::apply([&](auto&... c) { (c.advance(k), ...); }, children_);
  }
  template <bool Packets>
  void start_row() {
    if (hoist_ == Hoist::kBuffered) return;
    std::apply([&](auto&... c) { (c.template start_row<Packets>(), ...); }, children_);
    if (hoist_ == Hoist::kRowConstant) compute_row_constant<Packets>();
  }

  value_type scalar(int64_t j) const {
    if constexpr (!Flat) {
      if (hoist_ == Hoist::kBuffered) return buffer_[j];
      if (hoist_ == Hoist::kRowConstant) return row_value_;
    }
    return compute_scalar(j);
  }
  packet load(int64_t j, int n) const {
    if constexpr (!Flat) {
      if (hoist_ == Hoist::kBuffered) return n == packet::size ? packet::load(buffer_ + j) : packet::load_partial(buffer_ + j, n);
      if (hoist_ == Hoist::kRowConstant) return row_packet_;
    }
    return compute_load(j, n);
  }

 private:
  template <class Tuple, std::size_t... I>
  static std::tuple<Cs...> make_children(const Tuple& nodes, EvalContext& ctx, std::index_sequence<I...>) {
    // Braced initialization evaluates left to right, so leaves take operand
    // indices in tree order, matching the executor's collection order.
    return std::tuple<Cs...>{Cs(std::get<I>(nodes), ctx)...};
  }

  // Once per row, out of line: every leaf below is constant along the row,
  // so lane 0 (or any packet, whose lanes are all equal) is the row's value.
  template <bool Packets>
  [[gnu::noinline]] void compute_row_constant() {
    if constexpr (Packets) row_packet_ = compute_load(0, packet::size);
    else row_value_ = compute_scalar(0);
  }

  value_type compute_scalar(int64_t j) const {
    return std::apply([&](const auto&... c) { return static_cast<value_type>(f_(c.scalar(j)...)); }, children_);
  }
  packet compute_load(int64_t j, int n) const {
    return std::apply([&](const auto&... c) { return f_(c.load(j, n)...); }, children_);
  }

  F f_;
  std::tuple<Cs...> children_;
  uint32_t moves_ = 0;
  Hoist hoist_ = Hoist::kNone;
  const value_type* buffer_ = nullptr;
  value_type row_value_{};
  packet row_packet_{};
};

template <Element T, bool Flat>
struct EvalOf<Tensor<T>, Flat> {
  using type = LeafEval<T, Flat>;
};
template <Element T, bool Flat>
struct EvalOf<ScalarLeaf<T>, Flat> {
  using type = ConstEval<T>;
};
template <class F, class... Cs, bool Flat>
struct EvalOf<Map<F, Cs...>, Flat> {
  using type = MapEval<Flat, F, typename EvalOf<Cs, Flat>::type...>;
};

/// Where results go: the output operand, stepping like a leaf.
template <Element T, bool Flat>
class OutEval {
 public:
  using packet = packet_t<T>;

  OutEval(T* data, const LoopPlan& plan) : base_(data), row_(data) {
    inner_ = plan.strides[0].back();
    strides_ = plan.strides[0];
    carry_deltas(plan, strides_, deltas_);
  }
  void seek(const int64_t* index, const LoopPlan& plan) { row_ = base_ + row_offset(index, plan, strides_); }
  void advance(int64_t k) { row_ += deltas_[k]; }

  void put(int64_t j, T v) const {
    if constexpr (Flat) row_[j] = v;
    else row_[j * inner_] = v;
  }
  void store(int64_t j, const packet& p, int n) const {
    if (Flat || inner_ == 1) {
      if (n == packet::size) p.store(row_ + j);
      else p.store_partial(row_ + j, n);
    } else {
      p.scatter(row_ + j * inner_, inner_, n);
    }
  }

 private:
  T* base_;
  T* row_;
  int64_t inner_;
  Shape strides_;
  int64_t deltas_[Shape::kMaxDims] = {};
};

}  // namespace tensorlib::cpu
