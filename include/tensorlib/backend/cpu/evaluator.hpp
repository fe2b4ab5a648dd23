#pragma once
/// \file
/// Evaluators: the executable mirror of an expression tree. `EvalOf<E>` turns
/// each node of E into a small struct holding what the inner loop needs, so
/// the whole tree inlines into one loop body (backend/cpu/pointwise.hpp).
///
/// Note [blocks]
/// The executor walks the output row by row (the coalesced outer
/// dimensions) and each row in blocks of `kBlock` elements. At the start of
/// a block every tensor leaf exposes a *contiguous* pointer: its own memory
/// when its inner stride is 1, otherwise a per-task scratch block it fills by
/// a gather (strided) or a splat (broadcast along the row). The packet loop
/// therefore never branches on a leaf's layout.
///
/// Note [hoisting]
/// A subtree whose tensor leaves never move along the row is the same for the
/// whole row (kRowConstant: computed once per row, e.g. a function of a
/// column vector); one whose leaves never move between rows is the same for
/// every row (kBuffered: computed once for the whole inner extent before the
/// loop, e.g. `sigmoid(d)` of a broadcast row vector d). Only the topmost
/// subtrees with exactly one tensor leaf are candidates: whether such a
/// subtree can be hoisted depends on that one leaf alone, and it is known at
/// compile time which nodes these are, so every other node evaluates with no
/// hoisting test at all. (A subtree of two broadcast rows, e.g.
/// `exp(d1 * d2)`, is evaluated per element.)

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

#include "tensorlib/backend/cpu/loop_plan.hpp"
#include "tensorlib/backend/cpu/simd.hpp"
#include "tensorlib/backend/cpu/simd_math.hpp"
#include "tensorlib/backend/cpu/transpose.hpp"
#include "tensorlib/core/config.hpp"
#include "tensorlib/core/tensor.hpp"
#include "tensorlib/core/tuple.hpp"
#include "tensorlib/expr/map.hpp"
#include "tensorlib/expr/traverse.hpp"

namespace tensorlib::cpu {

/// Elements per block of the inner loop (Note [blocks]).
inline constexpr int64_t kBlock = 512;

/// Packet type of an element type (the element itself where no packet exists).
template <class T>
using packet_t = std::conditional_t<simd::Lane<T>, simd::Vec<std::conditional_t<simd::Lane<T>, T, float>>, T>;

template <class T>
constexpr int packet_size_of() {
  if constexpr (simd::Lane<T>)
    return simd::Vec<T>::size;
  else
    return 1;
}
template <class T>
inline constexpr int packet_size = packet_size_of<T>();

namespace detail {
template <class, class V>
using as_type = V;
}  // namespace detail

/// True when every node of E computes in T and every functor accepts packets
/// of T: then E runs on SIMD packets. In a translation unit compiled by nvcc
/// host loops run on scalars: nvcc rejects the compiler's vector types in the
/// functors' host+device bodies (Note [host loops under nvcc] in
/// docs/architecture.md).
template <class E, class T>
struct PacketEvaluable : std::false_type {};
#if !defined(__CUDACC__)
template <simd::Lane T>
struct PacketEvaluable<Tensor<T>, T> : std::true_type {};
template <simd::Lane T>
struct PacketEvaluable<ScalarLeaf<T>, T> : std::true_type {};
template <class F, class... Cs, simd::Lane T>
struct PacketEvaluable<Map<F, Cs...>, T>
    : std::bool_constant<std::is_same_v<typename Map<F, Cs...>::value_type, T> &&
                         (PacketEvaluable<Cs, T>::value && ...) &&
                         std::is_invocable_r_v<simd::Vec<T>, const F&, detail::as_type<Cs, simd::Vec<T>>...>> {};
#endif

/// Number of tensor leaves in an expression type.
template <class N>
inline constexpr int leaf_count = 0;
template <Element T>
inline constexpr int leaf_count<Tensor<T>> = 1;
template <class F, class... Cs>
inline constexpr int leaf_count<Map<F, Cs...>> = (0 + ... + leaf_count<Cs>);

/// Everything an evaluator needs from the executor while it is built.
struct EvalContext {
  const LoopPlan& plan;
  std::vector<const void*> leaf_data;  // by operand index (0 = output)
  int64_t next_operand = 1;
  /// Scratch blocks: one per operand, then one per hoisting candidate.
  int64_t next_slot = static_cast<int64_t>(leaf_data.size());
};

/// Per-task scratch: one block per operand and per hoisting candidate (Note
/// [blocks]), allocated on first use since contiguous runs never need it.
class Scratch {
 public:
  explicit Scratch(int64_t slots) : operands_(slots) {}
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
  template <class T>
  T* block(int64_t operand) {
    if (!memory_) memory_ = std::make_unique<std::byte[]>(static_cast<std::size_t>(operands_ * kStride));
    return reinterpret_cast<T*>(memory_.get() + operand * kStride);
  }
  /// A kTransposeTile x kTransposeTile tile of an operand's elements (Note
  /// [register transposes]).
  /// Allocated per operand on first use: only leaves read transposed need one.
  template <class T>
  T* tile(int64_t operand) {
    if (tiles_.empty()) tiles_.resize(static_cast<std::size_t>(operands_));
    auto& memory = tiles_[static_cast<std::size_t>(operand)];
    if (!memory) memory = std::make_unique_for_overwrite<std::byte[]>(kTileBytes);
    return reinterpret_cast<T*>(memory.get());
  }

 private:
  static constexpr int64_t kStride = kBlock * 8 + 64;  // any element type, keeps 64-byte alignment
  static constexpr std::size_t kTileBytes = kTransposeTile * kTransposeTile * 8;
  int64_t operands_;
  std::unique_ptr<std::byte[]> memory_;
  std::vector<std::unique_ptr<std::byte[]>> tiles_;
};

enum class Hoist : uint8_t { kNone, kRowConstant, kBuffered };

/// Where an operand is in the loop nest: a row pointer stepped by precomputed
/// carry deltas, and its inner stride.
template <class T>
struct RowCursor {
  T* base;
  T* row;
  int64_t inner;
  Shape strides;
  int64_t deltas[Shape::kMaxDims] = {};

  RowCursor(T* data, const Shape& op_strides, const LoopPlan& plan)
      : base(data), row(data), inner(op_strides.back()), strides(op_strides) {
    carry_deltas(plan, strides, deltas);
  }
  void seek(const int64_t* index, const LoopPlan& plan) { row = base + row_offset(index, plan, strides); }
  void advance(int64_t k) { row += deltas[k]; }
};

template <class E, bool Candidate>
struct EvalOf;

/// A tensor leaf.
template <Element T>
class LeafEval {
 public:
  using value_type = T;
  using packet = packet_t<T>;

  LeafEval(const Tensor<T>&, EvalContext& ctx)
      : operand_(ctx.next_operand),
        cursor_(static_cast<const T*>(ctx.leaf_data[ctx.next_operand]), ctx.plan.strides[ctx.next_operand], ctx.plan),
        row_stride_(ctx.plan.ndim() > 1 ? ctx.plan.strides[ctx.next_operand][ctx.plan.ndim() - 2] : 0),
        moves_(ctx.plan.moves(ctx.next_operand)) {
    ++ctx.next_operand;
  }

  uint32_t moves() const { return moves_; }
  void plan_hoist(uint32_t, bool) {}
  template <bool Packets>
  void fill_buffers(int64_t, std::vector<std::unique_ptr<std::byte[]>>&, Scratch&) {}
  void seek(const int64_t* index, const LoopPlan& plan) { cursor_.seek(index, plan); }
  void advance(int64_t k) {
    cursor_.advance(k);
    if (tile_row_ != nullptr) tile_row_ += kTransposeTile;
  }
  /// At the first row of a tile (rows x columns [c0, c0 + cols), all within
  /// one outer index): a leaf read transposed moves the tile into scratch
  /// through registers (Note [register transposes]), and its blocks then
  /// point into that copy.
  void stage_tile(int64_t c0, int64_t rows, int64_t cols, Scratch& scratch) {
    tile_row_ = nullptr;
    if constexpr (has_register_transpose<T>) {
      if (!stages_transposed<T>(cursor_.inner, row_stride_)) return;
      T* tile = scratch.template tile<T>(operand_);
      transpose_region(cursor_.row + c0 * cursor_.inner, cursor_.inner, tile, kTransposeTile, rows, cols);
      tile_row_ = tile;
      tile_c0_ = c0;
    }
  }
  template <bool Packets>
  void start_row(Scratch&, int64_t) {}
  template <bool Packets>
  void materialize(int64_t, int64_t, Scratch&) {}
  /// Exposes elements [c0, c0 + n) of the current row contiguously.
  void begin_block(int64_t c0, int64_t n, Scratch& scratch) {
    const int64_t s = cursor_.inner;
    if (s == 1) {
      block_ = cursor_.row + c0;
      return;
    }
    if (tile_row_ != nullptr) {
      block_ = tile_row_ + (c0 - tile_c0_);
      return;
    }
    T* buf = scratch.template block<T>(operand_);
    if (s == 0)
      std::fill(buf, buf + n, *cursor_.row);
    else
      for (int64_t j = 0; j < n; ++j) buf[j] = cursor_.row[(c0 + j) * s];
    block_ = buf;
  }

  static constexpr bool has_candidates = false;
  bool any_hoisted() const { return false; }
  template <bool Materialized>
  TENSORLIB_FORCE_INLINE T scalar(int64_t j) const {
    return block_[j];
  }
  /// Lanes j .. j+n-1 of the block (n <= packet size; missing lanes are 0).
  template <bool Materialized>
  TENSORLIB_FORCE_INLINE packet load(int64_t j, int n) const {
    return n == packet::size ? packet::load(block_ + j) : packet::load_partial(block_ + j, n);
  }

 private:
  int64_t operand_;
  RowCursor<const T> cursor_;
  int64_t row_stride_;
  uint32_t moves_;
  const T* block_ = nullptr;
  const T* tile_row_ = nullptr;  // the current row of a staged tile, or null
  int64_t tile_c0_ = 0;
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
  void fill_buffers(int64_t, std::vector<std::unique_ptr<std::byte[]>>&, Scratch&) {}
  void seek(const int64_t*, const LoopPlan&) {}
  void advance(int64_t) {}
  void stage_tile(int64_t, int64_t, int64_t, Scratch&) {}
  template <bool Packets>
  void start_row(Scratch&, int64_t) {}
  template <bool Packets>
  void materialize(int64_t, int64_t, Scratch&) {}
  void begin_block(int64_t, int64_t, Scratch&) {}
  static constexpr bool has_candidates = false;
  bool any_hoisted() const { return false; }
  template <bool Materialized>
  TENSORLIB_FORCE_INLINE T scalar(int64_t) const {
    return value_;
  }
  template <bool Materialized>
  TENSORLIB_FORCE_INLINE packet load(int64_t, int) const {
    return splat_;
  }

 private:
  T value_;
  packet splat_;
};

/// A functor applied to child evaluators. `Candidate` nodes (Note
/// [hoisting]) may be hoisted; all others always compute from their children.
template <bool Candidate, class F, class... Cs>
class MapEval {
 public:
  using value_type = std::remove_cvref_t<std::invoke_result_t<const F&, typename Cs::value_type...>>;
  using packet = packet_t<value_type>;
  static constexpr int W = packet_size<value_type>;
  /// True when this subtree contains a hoisting candidate.
  static constexpr bool has_candidates = Candidate || (Cs::has_candidates || ...);

  template <class... Children>
  MapEval(const Map<F, Children...>& node, EvalContext& ctx)
      : f_(node.functor()), children_(make_children(node.children(), ctx, std::index_sequence_for<Children...>{})) {
    moves_ = tensorlib::detail::apply([](const auto&... c) { return (0u | ... | c.moves()); }, children_);
    if constexpr (Candidate) slot_ = ctx.next_slot++;
  }

  uint32_t moves() const { return moves_; }

  /// Decides hoisting top-down (the executor calls it on the root).
  void plan_hoist(uint32_t inner_bit, bool several_rows) {
    if constexpr (Candidate) {
      if ((moves_ & inner_bit) == 0)
        hoist_ = Hoist::kRowConstant;
      else if (several_rows && (moves_ & ~inner_bit) == 0)
        hoist_ = Hoist::kBuffered;
    }
    if (hoist_ == Hoist::kNone)
      tensorlib::detail::apply([&](auto&... c) { (c.plan_hoist(inner_bit, several_rows), ...); }, children_);
  }
  /// True when some node of this subtree is hoisted in this run.
  bool any_hoisted() const {
    if (hoist_ != Hoist::kNone) return true;
    return tensorlib::detail::apply([](const auto&... c) { return (false || ... || c.any_hoisted()); }, children_);
  }

  /// Computes buffered nodes over [0, inner) with the loop's own code, so
  /// hoisting never changes a result (the tree must be at row 0).
  template <bool Packets>
  [[gnu::noinline]] void fill_buffers(int64_t inner, std::vector<std::unique_ptr<std::byte[]>>& arena,
                                      Scratch& scratch) {
    if (hoist_ != Hoist::kBuffered) {
      tensorlib::detail::apply([&](auto&... c) { (c.template fill_buffers<Packets>(inner, arena, scratch), ...); },
                               children_);
      return;
    }
    arena.push_back(std::make_unique<std::byte[]>(static_cast<std::size_t>(inner) * sizeof(value_type) + 64));
    auto* out = reinterpret_cast<value_type*>(arena.back().get());
    for (int64_t c0 = 0; c0 < inner; c0 += kBlock) {
      const int64_t n = std::min(kBlock, inner - c0);
      tensorlib::detail::apply([&](auto&... c) { (c.begin_block(c0, n, scratch), ...); }, children_);
      compute_block<Packets>(out + c0, n);
    }
    buffer_ = out;
  }

  void seek(const int64_t* index, const LoopPlan& plan) {
    tensorlib::detail::apply([&](auto&... c) { (c.seek(index, plan), ...); }, children_);
  }
  void advance(int64_t k) {
    if (hoist_ == Hoist::kBuffered) return;
    tensorlib::detail::apply([&](auto&... c) { (c.advance(k), ...); }, children_);
  }
  // A hoisted subtree's leaf never moves along rows or never between them,
  // so it is never read transposed.
  void stage_tile(int64_t c0, int64_t rows, int64_t cols, Scratch& scratch) {
    if (hoist_ != Hoist::kNone) return;
    tensorlib::detail::apply([&](auto&... c) { (c.stage_tile(c0, rows, cols, scratch), ...); }, children_);
  }
  /// Row setup; `width` is the longest block the row will use.
  template <bool Packets>
  void start_row(Scratch& scratch, int64_t width) {
    if constexpr (Candidate) {
      if (hoist_ == Hoist::kBuffered) return;
      if (hoist_ == Hoist::kRowConstant) return compute_row_constant<Packets>(scratch, width);
    }
    tensorlib::detail::apply([&](auto&... c) { (c.template start_row<Packets>(scratch, width), ...); }, children_);
  }
  void begin_block(int64_t c0, int64_t n, Scratch& scratch) {
    if constexpr (Candidate) {
      if (hoist_ != Hoist::kNone) return;
    }
    tensorlib::detail::apply([&](auto&... c) { (c.begin_block(c0, n, scratch), ...); }, children_);
  }
  /// In a run that hoists, gives every candidate a block pointer before the
  /// block's loop: into its buffer, its row-constant block, or a scratch
  /// block it computes now. The loop then reads candidates like leaves.
  template <bool Packets>
  void materialize(int64_t c0, int64_t n, Scratch& scratch) {
    if constexpr (Candidate) {
      if (hoist_ == Hoist::kBuffered) {
        block_ = buffer_ + c0;
      } else if (hoist_ == Hoist::kRowConstant) {
        block_ = scratch.template block<value_type>(slot_);
      } else {
        value_type* out = scratch.template block<value_type>(slot_);
        compute_block<Packets>(out, n);
        block_ = out;
      }
    } else {
      tensorlib::detail::apply([&](auto&... c) { (c.template materialize<Packets>(c0, n, scratch), ...); }, children_);
    }
  }

  // Materialized == true only in runs that hoist: candidates then read their
  // block (see materialize) and the loop body has no hoisting test at all.
  template <bool Materialized>
  TENSORLIB_FORCE_INLINE value_type scalar(int64_t j) const {
    if constexpr (Candidate && Materialized)
      return block_[j];
    else
      return compute_scalar<Materialized>(j);
  }
  template <bool Materialized>
  TENSORLIB_FORCE_INLINE packet load(int64_t j, int n) const {
    if constexpr (Candidate && Materialized)
      return n == W ? packet::load(block_ + j) : packet::load_partial(block_ + j, n);
    else
      return compute_load<Materialized>(j, n);
  }

 private:
  template <class Tuple, std::size_t... I>
  static tensorlib::detail::Tuple<Cs...> make_children(const Tuple& nodes, EvalContext& ctx,
                                                       std::index_sequence<I...>) {
    // Braced initialization evaluates left to right, so leaves take operand
    // indices in tree order, matching the executor's collection order.
    return tensorlib::detail::Tuple<Cs...>{Cs(tensorlib::detail::get<I>(nodes), ctx)...};
  }

  // Writes this node's values for the current block (children prepared).
  template <bool Packets>
  void compute_block(value_type* out, int64_t n) const {
    if constexpr (Packets) {
      int64_t j = 0;
      for (; j + W <= n; j += W) compute_load(j, W).store(out + j);
      if (j < n) compute_load(j, static_cast<int>(n - j)).store_partial(out + j, static_cast<int>(n - j));
    } else {
      for (int64_t j = 0; j < n; ++j) out[j] = compute_scalar(j);
    }
  }

  // Once per row, out of line. Every leaf below is constant along the row:
  // computed through the packet path (one lane), repeated over a block.
  template <bool Packets>
  [[gnu::noinline]] void compute_row_constant(Scratch& scratch, int64_t width) {
    tensorlib::detail::apply([&](auto&... c) { (c.template start_row<Packets>(scratch, width), ...); }, children_);
    tensorlib::detail::apply([&](auto&... c) { (c.begin_block(0, 1, scratch), ...); }, children_);
    value_type v;
    if constexpr (Packets)
      v = compute_load(0, 1)[0];
    else
      v = compute_scalar(0);
    value_type* out = scratch.template block<value_type>(slot_);
    std::fill(out, out + width, v);
  }

  // Below a candidate nothing is materialized, so the candidate's own
  // computations (compute_block, compute_row_constant) use <false>.
  template <bool Materialized = false>
  TENSORLIB_FORCE_INLINE value_type compute_scalar(int64_t j) const {
    return tensorlib::detail::apply(
        [&](const auto&... c) {
          return static_cast<value_type>(invoke_functor(f_, c.template scalar<Materialized>(j)...));
        },
        children_);
  }
  template <bool Materialized = false>
  TENSORLIB_FORCE_INLINE packet compute_load(int64_t j, int n) const {
    return tensorlib::detail::apply([&](const auto&... c) { return f_(c.template load<Materialized>(j, n)...); },
                                    children_);
  }

  F f_;
  tensorlib::detail::Tuple<Cs...> children_;
  uint32_t moves_ = 0;
  Hoist hoist_ = Hoist::kNone;
  int64_t slot_ = -1;                   // scratch block of a candidate
  const value_type* buffer_ = nullptr;  // kBuffered: the whole inner extent
  const value_type* block_ = nullptr;   // materialized values of the current block
};

template <Element T, bool Candidate>
struct EvalOf<Tensor<T>, Candidate> {
  using type = LeafEval<T>;
};
template <Element T, bool Candidate>
struct EvalOf<ScalarLeaf<T>, Candidate> {
  using type = ConstEval<T>;
};
// A child is a candidate when it is the topmost node with a single tensor leaf.
template <class F, class... Cs, bool Candidate>
struct EvalOf<Map<F, Cs...>, Candidate> {
  static constexpr bool kSingleLeaf = leaf_count<Map<F, Cs...>> == 1;
  using type = MapEval<Candidate, F, typename EvalOf<Cs, !kSingleLeaf && leaf_count<Cs> == 1>::type...>;
};

/// The evaluator of an expression's root.
template <class E>
using root_eval_t = typename EvalOf<E, leaf_count<E> == 1>::type;

/// The block a sink receives values in: the executor's `put` (scalars) and
/// `store` (packets) write element j of the current block. Sinks (OutEval
/// here, ReduceSink in reduce.hpp) point `block_` at memory per block.
template <Element T>
class BlockWriter {
 public:
  using packet = packet_t<T>;

  TENSORLIB_FORCE_INLINE void put(int64_t j, T v) const { block_[j] = v; }
  TENSORLIB_FORCE_INLINE void store(int64_t j, const packet& p, int n) const {
    if (n == packet::size)
      p.store(block_ + j);
    else
      p.store_partial(block_ + j, n);
  }

 protected:
  T* block_ = nullptr;
};

/// Where results go: the output block is written in place when the output
/// is contiguous along the row, else staged in scratch and scattered.
template <Element T>
class OutEval : public BlockWriter<T> {
 public:
  OutEval(T* data, const LoopPlan& plan) : cursor_(data, plan.strides[0], plan) {}
  void seek(const int64_t* index, const LoopPlan& plan) { cursor_.seek(index, plan); }
  void advance(int64_t k) { cursor_.advance(k); }

  void begin_block(int64_t c0, Scratch& scratch) {
    c0_ = c0;
    this->block_ = cursor_.inner == 1 ? cursor_.row + c0 : scratch.template block<T>(0);
  }
  void end_block(int64_t n) const {
    if (cursor_.inner == 1) return;
    for (int64_t j = 0; j < n; ++j) cursor_.row[(c0_ + j) * cursor_.inner] = this->block_[j];
  }

 private:
  RowCursor<T> cursor_;
  int64_t c0_ = 0;
};

}  // namespace tensorlib::cpu
