#pragma once
/// \file
/// The CPU executor of reductions over pointwise expressions: the expression
/// is computed block by block exactly as the pointwise executor computes it
/// (backend/cpu/pointwise.hpp), and each block is folded into accumulators
/// instead of being stored, so `((p - y) * (p - y)).mean()` is one pass with no
/// temporary tensor.
///
/// Note [reduction order]
/// The loop nest is ordered by the input's layout (not the output's), so the
/// inner loop reads memory contiguously. Two kinds of rows follow:
/// - the inner dimension is reduced: every block folds into one accumulator
///   (SIMD lanes inside the block, then block partials added in order);
/// - the inner dimension is kept: block element j folds into accumulator j.
/// Work is split into tasks whose number depends only on the sizes, never on
/// the thread count, and partial results are merged in task order, so a
/// reduction gives bit-identical results with any number of threads. When the
/// outermost dimension is kept, tasks own disjoint outputs and share one
/// accumulator buffer; otherwise each task has its own buffer.
///
/// Note [sum accuracy]
/// float sums are accumulated in float SIMD lanes inside a 512-element block
/// (at most 64 additions per lane) and in double across blocks and rows
/// ("blocked" summation: the error grows with the block length, not with n).
/// double sums use the same blocks in double. Integer and bool sums
/// accumulate in int64 (PyTorch's result type).

#include <algorithm>
#include <cstdint>
#include <memory>
#include <type_traits>
#include <vector>

#include "tensorlib/backend/cpu/evaluator.hpp"
#include "tensorlib/backend/cpu/loop_plan.hpp"
#include "tensorlib/backend/cpu/pointwise.hpp"
#include "tensorlib/backend/cpu/thread_pool.hpp"
#include "tensorlib/core/stats.hpp"
#include "tensorlib/core/tensor.hpp"
#include "tensorlib/expr/broadcast.hpp"
#include "tensorlib/expr/traverse.hpp"

namespace tensorlib::cpu {

/// What a reduction does with its values (ops/reduce.hpp defines them):
/// `identity()`, `step(acc, value)` for one element, `merge(acc, acc)` for two
/// partial results and `block(values, n)` for a contiguous block of values.
template <class R, class T>
concept Reducer = requires(typename R::acc_type a, T v, const T* p, int64_t n) {
  { R::identity() } -> std::convertible_to<typename R::acc_type>;
  { R::step(a, v) } -> std::convertible_to<typename R::acc_type>;
  { R::merge(a, a) } -> std::convertible_to<typename R::acc_type>;
  { R::block(p, n) } -> std::convertible_to<typename R::acc_type>;
};

/// Where a reduction's blocks go: computed into scratch, then folded into
/// the accumulator(s) the current row maps to (Note [reduction order]).
template <Element T, class R>
class ReduceSink : public BlockWriter<T> {
 public:
  using acc_type = typename R::acc_type;

  ReduceSink(acc_type* acc, const LoopPlan& plan) : cursor_(acc, plan.strides[0], plan) {}
  void seek(const int64_t* index, const LoopPlan& plan) { cursor_.seek(index, plan); }
  void advance(int64_t k) { cursor_.advance(k); }

  void begin_block(int64_t c0, Scratch& scratch) {
    c0_ = c0;
    this->block_ = scratch.template block<T>(0);
  }
  void end_block(int64_t n) const {
    if (cursor_.inner == 0) {
      *cursor_.row = R::merge(*cursor_.row, R::block(this->block_, n));
    } else {
      acc_type* a = cursor_.row + c0_ * cursor_.inner;
      const int64_t s = cursor_.inner;
      for (int64_t j = 0; j < n; ++j) a[j * s] = R::step(a[j * s], this->block_[j]);
    }
  }

 private:
  RowCursor<acc_type> cursor_;
  int64_t c0_ = 0;
};

namespace detail {

/// Rows [r0, r1), columns [c0, c1) of a reduction whose input is a plain
/// tensor contiguous along the inner loop (operand 1 of `plan`): its blocks
/// are folded where they lie, without the copy into scratch that an
/// expression's evaluation needs. Same blocks, same order as the sink path.
template <class R, Element T>
void fold_rows_direct(const T* data, typename R::acc_type* acc, const LoopPlan& plan, int64_t r0, int64_t r1,
                      int64_t c0, int64_t c1) {
  using Acc = typename R::acc_type;
  if (r0 >= r1 || c0 >= c1) return;
  RowCursor<const T> in(data, plan.strides[1], plan);
  RowCursor<Acc> out(acc, plan.strides[0], plan);
  int64_t index[Shape::kMaxDims] = {};
  unravel_row(r0, plan, index);
  in.seek(index, plan);
  out.seek(index, plan);
  for (int64_t r = r0; r < r1; ++r) {
    for (int64_t b = c0; b < c1; b += kBlock) {
      const int64_t n = std::min(kBlock, c1 - b);
      const T* v = in.row + b;
      if (out.inner == 0) {
        *out.row = R::merge(*out.row, R::block(v, n));
      } else if (out.inner == 1) {
        Acc* a = out.row + b;
        for (int64_t j = 0; j < n; ++j) a[j] = R::step(a[j], v[j]);
      } else {
        Acc* a = out.row + b * out.inner;
        for (int64_t j = 0; j < n; ++j) a[j * out.inner] = R::step(a[j * out.inner], v[j]);
      }
    }
    if (r + 1 < r1) {
      const int64_t k = advance_index(index, plan);
      in.advance(k);
      out.advance(k);
    }
  }
}

}  // namespace detail

/// Most accumulator elements a reduction allocates for per-task partials.
inline constexpr int64_t kMaxPartialElements = int64_t{1} << 22;
/// Most tasks a reduction is split into (Note [reduction order]).
inline constexpr int64_t kMaxReduceTasks = 64;

/// Reduces `expr` (of shape `shape`) over the dimensions whose bit is set in
/// `reduced` into `acc`, a contiguous buffer with one accumulator per kept
/// element (row-major over the kept dimensions), which must hold
/// R::identity() on entry. Counts one fused loop.
template <class R, class E>
void run_reduce(const E& expr, const Shape& shape, uint32_t reduced, typename R::acc_type* acc) {
  using T = typename E::value_type;
  using Acc = typename R::acc_type;
  static_assert(Reducer<R, T>);
  if (shape.numel() == 0) return;
  stats::detail::count_fused_loop();

  // Operand 0 is the accumulator: contiguous over kept dims, 0 along reduced ones.
  Shape acc_strides = Shape::filled(shape.size(), 0);
  int64_t out_numel = 1;
  for (int64_t d = shape.size() - 1; d >= 0; --d) {
    if (reduced >> d & 1u) continue;
    acc_strides[d] = out_numel;
    out_numel *= shape[d];
  }
  std::vector<Shape> strides{acc_strides};
  std::vector<const void*> data{acc};
  int64_t order_by = 0, largest = -1;
  for_each_tensor(expr, [&](const auto& leaf) {
    strides.push_back(broadcast_strides(leaf.sizes(), leaf.strides(), shape));
    data.push_back(leaf.data_ptr());
    if (leaf.numel() > largest) {
      largest = leaf.numel();
      order_by = static_cast<int64_t>(strides.size()) - 1;
    }
  });
  const LoopPlan plan = make_loop_plan(shape, strides, order_by);
  EvalContext ctx{plan, std::move(data)};
  constexpr bool kPackets = PacketEvaluable<E, T>::value;
  std::vector<std::unique_ptr<std::byte[]>> buffers;
  const auto root = detail::prepare_root<kPackets>(expr, ctx, buffers);
  const int64_t slots = ctx.next_slot;
  const int64_t inner = plan.inner(), rows = plan.rows(), ndim = plan.ndim();
  // A plain tensor read contiguously needs no evaluation: fold it in place.
  bool direct = false;
  if constexpr (std::is_same_v<E, Tensor<T>>) direct = plan.strides[1].back() == 1;
  const auto fold = [&](Acc* into, int64_t r0, int64_t r1, int64_t c0, int64_t c1) {
    if constexpr (std::is_same_v<E, Tensor<T>>) {
      if (direct) return detail::fold_rows_direct<R>(expr.data_ptr(), into, plan, r0, r1, c0, c1);
    }
    detail::run_rows<kPackets>(root, ReduceSink<T, R>(into, plan), plan, slots, r0, r1, c0, c1);
  };

  int64_t ntasks = std::clamp<int64_t>(shape.numel() / kGrainSize, 1, kMaxReduceTasks);
  const bool outer_kept = plan.strides[0][0] != 0;
  if (outer_kept) {
    // Tasks own disjoint outputs: split the outermost dimension.
    const int64_t outer = plan.sizes[0];
    ntasks = std::min(ntasks, outer);
    const int64_t per = ndim > 1 ? rows / outer : 0;  // rows per outermost index
    parallel_for(0, ntasks, 1, [&](int64_t t0, int64_t t1) {
      for (int64_t t = t0; t < t1; ++t) {
        const int64_t o0 = outer * t / ntasks, o1 = outer * (t + 1) / ntasks;
        if (ndim > 1)
          fold(acc, o0 * per, o1 * per, 0, inner);
        else
          fold(acc, 0, 1, o0, o1);
      }
    });
    return;
  }

  // Each task folds its share into its own buffer; buffers merge in task order.
  ntasks = std::clamp<int64_t>(std::min(ntasks, kMaxPartialElements / out_numel), 1, kMaxReduceTasks);
  const bool split_rows = rows >= ntasks;
  const int64_t col_chunk = (inner + ntasks - 1) / ntasks;
  std::vector<Acc> partials(static_cast<std::size_t>((ntasks - 1) * out_numel), R::identity());
  parallel_for(0, ntasks, 1, [&](int64_t t0, int64_t t1) {
    for (int64_t t = t0; t < t1; ++t) {
      const int64_t r0 = split_rows ? rows * t / ntasks : 0, r1 = split_rows ? rows * (t + 1) / ntasks : rows;
      const int64_t c0 = split_rows ? 0 : std::min(inner, t * col_chunk);
      const int64_t c1 = split_rows ? inner : std::min(inner, (t + 1) * col_chunk);
      Acc* mine = t == 0 ? acc : partials.data() + (t - 1) * out_numel;
      fold(mine, r0, r1, c0, c1);
    }
  });
  for (int64_t t = 1; t < ntasks; ++t) {
    const Acc* p = partials.data() + (t - 1) * out_numel;
    for (int64_t i = 0; i < out_numel; ++i) acc[i] = R::merge(acc[i], p[i]);
  }
}

}  // namespace tensorlib::cpu
