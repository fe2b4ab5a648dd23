#pragma once
/// \file
/// The CPU executor of pointwise expressions: one fused loop per expression
/// (DESIGN 3.4). It walks the coalesced loop nest (backend/cpu/loop_plan.hpp)
/// row by row with incremental row pointers (no per-element division), each
/// row in blocks whose operands are all contiguous (Note [blocks] in
/// evaluator.hpp), with hoisting of row- and column-invariant subtrees (Note
/// [hoisting]). Work is split across the thread pool by rows, or by column
/// blocks when there are fewer rows than threads, or by tiles when a leaf is
/// read transposed (Notes [transposed tiles] and [register transposes]), and
/// runs on SIMD packets when every node of the tree computes in one float
/// type. A same-shape contiguous chain is the special case of a single row.

#include <algorithm>
#include <cstdint>
#include <memory>
#include <type_traits>
#include <vector>

#include "tensorlib/backend/cpu/evaluator.hpp"
#include "tensorlib/backend/cpu/loop_plan.hpp"
#include "tensorlib/backend/cpu/thread_pool.hpp"
#include "tensorlib/backend/cpu/transpose.hpp"
#include "tensorlib/core/config.hpp"
#include "tensorlib/core/stats.hpp"
#include "tensorlib/core/tensor.hpp"
#include "tensorlib/expr/broadcast.hpp"
#include "tensorlib/expr/traverse.hpp"

namespace tensorlib::cpu {

/// Elements per task below which splitting across threads does not pay
/// (PyTorch's GRAIN_SIZE).
inline constexpr int64_t kGrainSize = 32768;

namespace detail {

// Note [transposed tiles]
// A leaf that steps across cache lines along the inner loop but by one
// element from row to row (a transposed or permuted operand:
// `x.t().contiguous()`, NCHW -> NHWC) is gathered element by element
// (Note [blocks]). Row by row, each element comes from a different line, and
// the line's next element is wanted one row later, after `inner` other lines
// have passed through L1 (at a power-of-two stride, lines that all map to a
// few of its sets). Tiles of kTileRows x kTileCols keep the lines a tile
// reads cached across its rows: a transposing float copy of (784, 256) ran
// 2.5x faster, of (4096, 4096) 4.9x (bench/copy_bench.cpp, bench/RESULTS.md;
// 32 columns measured better than 16 or 64; 128 to 1024 rows alike). A leaf
// whose inner stride is under 16 elements reads lines it already holds and
// keeps the row order. PyTorch tiles its transposing copies too.
inline constexpr int64_t kTileRows = 256, kTileCols = 32;

/// True when a leaf with these inner and row strides reads across cache
/// lines along the row and one element apart between rows.
constexpr bool leaf_reads_transposed(int64_t inner_stride, int64_t row_stride) {
  return (inner_stride >= 16 || inner_stride <= -16) && (row_stride == 1 || row_stride == -1);
}

/// True when some leaf of `plan` reads its rows transposed (Note [transposed tiles]).
inline bool reads_transposed(const LoopPlan& plan) {
  // Fewer rows than a line holds elements gain less than the tiles cost.
  if (plan.ndim() < 2 || plan.inner() <= kTileCols || plan.rows() < 16) return false;
  const int64_t last = plan.ndim() - 1;
  for (std::size_t op = 1; op < plan.strides.size(); ++op)
    if (leaf_reads_transposed(plan.strides[op][last], plan.strides[op][last - 1])) return true;
  return false;
}

// Note [register transposes]
// A leaf read transposed, contiguous between rows (`x.t()`, permutes),
// with 4- or 8-byte elements, moves through SIMD registers instead of the
// gather of Note [transposed tiles]: `transpose_region` transposes square
// blocks (8 x 8 floats or 4 x 4 doubles with AVX, 4 x 4 and 2 x 2 with
// SSE2), eight loads and eight stores where the gather took 64 scalar loads
// and stores. The nest runs in tiles of 64 x 64 elements, each within one
// outer index (so a block never straddles a carry), tasks taking tiles.
// - A plain copy (`contiguous()`, `copy_`) skips the expression tree: the
//   blocks go straight to the output (`copy_transposed`).
// - Any other expression stages each such leaf's tile into scratch at the
//   tile's first row (`LeafEval::stage_tile`); its blocks then read rows of
//   that copy, and the tree runs as usual.
// One thread, float (bench/copy_bench.cpp, bench/RESULTS.md): the copy of
// (4096, 4096) 7.5 ms, `in.t() + 0.f` 14.6 ms, against the gather's 20.9 ms
// and LibTorch's 14.0 ms (copy) and 104 ms (expression). Of 13 shapes tried
// (squares of 512 to 4096 elements, powers of two and not, long and wide,
// NCHW <-> NHWC), 64 x 64 was best or within 1.4x of the best of seven tile
// shapes at every one; tall narrow tiles (256 x 16) won on some small copies
// but were 2.9x and 3.5x slower at 512 and 1024. A plain copy needs only a
// block's worth of rows and columns (NCHW -> NHWC with 8 to 32 channels
// qualifies); an expression takes tiles under the gather's conditions and
// with at least 16 rows an outer index. An expression with any transposed
// leaf that cannot be staged (flipped, 1 or 2 bytes) keeps the gather's
// tiles for all its leaves.

/// The square tiles of a nest's last two dimensions (`rows` x `cols`, under
/// `outer` outer indices), numbered outer index by outer index: a tile never
/// spans two outer indices (Note [register transposes]).
struct SquareTiles {
  int64_t rows, cols, col_tiles, per_outer, count, grain;

  struct Tile {
    int64_t outer, i0, j0, rows, cols;  // outer index, corner, extent
  };
  Tile operator[](int64_t t) const {
    const int64_t i0 = t % per_outer / col_tiles * kTransposeTile, j0 = t % col_tiles * kTransposeTile;
    return {t / per_outer, i0, j0, std::min(kTransposeTile, rows - i0), std::min(kTransposeTile, cols - j0)};
  }
};

/// Tiles of kTransposeTile x kTransposeTile, and the tiles a task takes at least.
inline SquareTiles square_tiles(int64_t rows, int64_t cols, int64_t outer) {
  const int64_t row_tiles = (rows + kTransposeTile - 1) / kTransposeTile;
  const int64_t col_tiles = (cols + kTransposeTile - 1) / kTransposeTile;
  const int64_t tile_elements = std::min(rows, kTransposeTile) * std::min(cols, kTransposeTile);
  return {rows,
          cols,
          col_tiles,
          row_tiles * col_tiles,
          outer * row_tiles * col_tiles,
          std::max<int64_t>(1, kGrainSize / tile_elements)};
}

/// Runs `out = in` through register transposes when the plan is such a copy
/// (Note [register transposes]); false, having done nothing, otherwise.
template <class T>
requires has_register_transpose<T>
bool copy_transposed(const LoopPlan& plan, T* out, const T* in) {
  constexpr int64_t B = TransposeBlock<sizeof(T)>::kSize;
  const int64_t last = plan.ndim() - 1;
  if (last < 1) return false;
  const Shape &out_strides = plan.strides[0], &in_strides = plan.strides[1];
  const int64_t col_stride = in_strides[last], row_stride = out_strides[last - 1];
  const int64_t rows = plan.sizes[last - 1], cols = plan.inner(), outer = plan.rows() / rows;
  // At least one whole block, read from B different source columns.
  if (out_strides[last] != 1 || in_strides[last - 1] != 1 || col_stride < B || rows < B || cols < B) return false;
  const SquareTiles tiles = square_tiles(rows, cols, outer);
  parallel_for(0, tiles.count, tiles.grain, [&](int64_t t0, int64_t t1) {
    for (int64_t t = t0; t < t1; ++t) {
      const auto tile = tiles[t];
      // The outer index's offsets, then the tile's corner within it.
      int64_t o = tile.outer, in_offset = 0, out_offset = 0;
      for (int64_t d = last - 2; d >= 0; --d) {
        const int64_t index = o % plan.sizes[d];
        o /= plan.sizes[d];
        in_offset += index * in_strides[d];
        out_offset += index * out_strides[d];
      }
      transpose_region(in + in_offset + tile.i0 + tile.j0 * col_stride, col_stride,
                       out + out_offset + tile.i0 * row_stride + tile.j0, row_stride, tile.rows, tile.cols);
    }
  });
  return true;
}

// One block: full packets with a constant lane count (so the tree inlines
// without tail tests), then one partial packet.
template <bool Packets, bool Materialized, class Ev, class Out>
TENSORLIB_ALWAYS_INLINE void run_block(const Ev& ev, const Out& o, int64_t n) {
  if constexpr (Packets) {
    constexpr int W = Out::packet::size;
    int64_t j = 0;
    for (; j + W <= n; j += W) o.store(j, ev.template load<Materialized>(j, W), W);
    if (j < n) o.store(j, ev.template load<Materialized>(j, static_cast<int>(n - j)), static_cast<int>(n - j));
  } else {
    for (int64_t j = 0; j < n; ++j) o.put(j, ev.template scalar<Materialized>(j));
  }
}

/// Builds the root evaluator of `expr` for the nest in `ctx`: decides
/// hoisting, positions it at the first row and fills row-invariant buffers
/// (kept alive by `buffers`).
template <bool Packets, class E>
root_eval_t<E> prepare_root(const E& expr, EvalContext& ctx, std::vector<std::unique_ptr<std::byte[]>>& buffers) {
  const LoopPlan& plan = ctx.plan;
  root_eval_t<E> root(expr, ctx);
  root.plan_hoist(1u << (plan.ndim() - 1), plan.rows() > 1);
  int64_t origin[Shape::kMaxDims] = {};
  root.seek(origin, plan);
  Scratch scratch(ctx.next_slot);
  root.template fill_buffers<Packets>(plan.inner(), buffers, scratch);
  return root;
}

/// The loop of rows [r0, r1), columns [c0, c1) of the nest, each row in
/// blocks that `ev` computes and `sink` consumes (OutEval writes them, a
/// reduction sink folds them). `ev` is a copy of the prepared root. With
/// `Stage`, the rows are one tile within one outer index, and leaves read
/// transposed are staged first (Note [register transposes]).
template <bool Packets, bool Stage, class Ev, class Sink>
void run_rows_with(Ev& ev, Sink& sink, const LoopPlan& plan, Scratch& scratch, int64_t r0, int64_t r1, int64_t c0,
                   int64_t c1) {
  if (r0 >= r1 || c0 >= c1) return;
  // When this run hoists something, candidates are materialized per block
  // (Note [hoisting]); otherwise the whole tree runs fused in registers.
  const bool hoisting = Ev::has_candidates && ev.any_hoisted();
  int64_t index[Shape::kMaxDims] = {};
  unravel_row(r0, plan, index);
  ev.seek(index, plan);
  sink.seek(index, plan);
  if constexpr (Stage) ev.stage_tile(c0, r1 - r0, c1 - c0, scratch);
  for (int64_t r = r0; r < r1; ++r) {
    ev.template start_row<Packets>(scratch, std::min(kBlock, c1 - c0));
    for (int64_t b = c0; b < c1; b += kBlock) {
      const int64_t n = std::min(kBlock, c1 - b);
      ev.begin_block(b, n, scratch);
      sink.begin_block(b, scratch);
      if constexpr (Ev::has_candidates) {
        if (hoisting) {
          ev.template materialize<Packets>(b, n, scratch);
          run_block<Packets, true>(ev, sink, n);
        } else {
          run_block<Packets, false>(ev, sink, n);
        }
      } else {
        run_block<Packets, false>(ev, sink, n);
      }
      sink.end_block(n);
    }
    if (r + 1 < r1) {
      const int64_t k = advance_index(index, plan);
      ev.advance(k);
      sink.advance(k);
    }
  }
}

/// The loop one task runs (see run_rows_with), with scratch of its own.
template <bool Packets, class Ev, class Sink>
void run_rows(Ev ev, Sink sink, const LoopPlan& plan, int64_t slots, int64_t r0, int64_t r1, int64_t c0, int64_t c1) {
  Scratch scratch(slots);
  run_rows_with<Packets, false>(ev, sink, plan, scratch, r0, r1, c0, c1);
}

/// True when every leaf of `expr` that `plan` reads transposed can be staged
/// through register transposes (Note [register transposes]), and rows come
/// at least 16 to an outer index (shorter tiles cost more than they save).
template <class E>
bool stages_all_transposed(const E& expr, const LoopPlan& plan) {
  const int64_t last = plan.ndim() - 1;
  if (last < 1 || plan.sizes[last - 1] < 16) return false;
  std::size_t op = 1;
  bool all = true;
  for_each_tensor(expr, [&](const auto& leaf) {
    using T = typename std::remove_cvref_t<decltype(leaf)>::value_type;
    const int64_t inner = plan.strides[op][last], row = plan.strides[op][last - 1];
    ++op;
    if (leaf_reads_transposed(inner, row) && !stages_transposed<T>(inner, row)) all = false;
  });
  return all;
}

template <bool Packets, Element T, class E>
void run_nest(const Tensor<T>& out, const E& expr, EvalContext& ctx) {
  const LoopPlan& plan = ctx.plan;
  const int64_t inner = plan.inner(), rows = plan.rows();
  std::vector<std::unique_ptr<std::byte[]>> buffers;
  const auto root = prepare_root<Packets>(expr, ctx, buffers);
  const int64_t slots = ctx.next_slot;
  const OutEval<T> out0(out.data_ptr(), plan);

  if (reads_transposed(plan) && stages_all_transposed(expr, plan)) {
    const int64_t m = plan.sizes[plan.ndim() - 2];
    const SquareTiles tiles = square_tiles(m, inner, rows / m);
    parallel_for(0, tiles.count, tiles.grain, [&](int64_t t0, int64_t t1) {
      Scratch scratch(slots);
      for (int64_t t = t0; t < t1; ++t) {
        const auto tile = tiles[t];
        const int64_t r0 = tile.outer * m + tile.i0;
        auto ev = root;
        auto sink = out0;
        run_rows_with<Packets, true>(ev, sink, plan, scratch, r0, r0 + tile.rows, tile.j0, tile.j0 + tile.cols);
      }
    });
    return;
  }
  if (reads_transposed(plan)) {
    const int64_t row_tiles = (rows + kTileRows - 1) / kTileRows, col_tiles = (inner + kTileCols - 1) / kTileCols;
    const int64_t tile_elements = std::min(rows, kTileRows) * kTileCols;
    parallel_for(0, row_tiles * col_tiles, kGrainSize / tile_elements, [&](int64_t t0, int64_t t1) {
      for (int64_t t = t0; t < t1; ++t) {
        const int64_t r0 = t / col_tiles * kTileRows, c0 = t % col_tiles * kTileCols;
        run_rows<Packets>(root, out0, plan, slots, r0, std::min(rows, r0 + kTileRows), c0,
                          std::min(inner, c0 + kTileCols));
      }
    });
    return;
  }
  // Tasks take whole rows, or, with fewer rows than tasks, column ranges.
  const int64_t ntasks = std::clamp<int64_t>(rows * inner / kGrainSize, 1, get_num_threads());
  const bool split_rows = rows >= ntasks;
  constexpr int64_t W = packet_size<T>;
  const int64_t col_chunk = ((inner + ntasks - 1) / ntasks + W - 1) / W * W;
  parallel_for(0, ntasks, 1, [&](int64_t t0, int64_t t1) {
    for (int64_t t = t0; t < t1; ++t) {
      const int64_t r0 = split_rows ? rows * t / ntasks : 0, r1 = split_rows ? rows * (t + 1) / ntasks : rows;
      const int64_t c0 = split_rows ? 0 : std::min(inner, t * col_chunk);
      const int64_t c1 = split_rows ? inner : std::min(inner, (t + 1) * col_chunk);
      run_rows<Packets>(root, out0, plan, slots, r0, r1, c0, c1);
    }
  });
}

}  // namespace detail

/// Evaluates `expr` into `out` (same element type; `expr` broadcasts to
/// `out`'s shape; no partial overlap between them: ops/ checks that).
template <Element T, class E>
void run_pointwise(const Tensor<T>& out, const E& expr) {
  static_assert(std::is_same_v<typename E::value_type, T>, "run_pointwise: expression and output types differ");
  if (out.numel() == 0) return;
  stats::detail::count_fused_loop();
  std::vector<Shape> strides{out.strides()};
  std::vector<const void*> data{out.data_ptr()};
  for_each_tensor(expr, [&](const auto& leaf) {
    strides.push_back(broadcast_strides(leaf.sizes(), leaf.strides(), out.sizes()));
    data.push_back(leaf.data_ptr());
  });
  const LoopPlan plan = make_loop_plan(out.sizes(), strides);
  if constexpr (std::is_same_v<E, Tensor<T>> && has_register_transpose<T>) {
    if (detail::copy_transposed(plan, out.data_ptr(), expr.data_ptr())) return;
  }
  EvalContext ctx{plan, std::move(data)};
  detail::run_nest<PacketEvaluable<E, T>::value>(out, expr, ctx);
}

}  // namespace tensorlib::cpu
