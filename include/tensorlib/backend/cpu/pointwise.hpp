#pragma once
/// \file
/// The CPU executor of pointwise expressions: one fused loop per expression
/// (DESIGN 3.4). A flat contiguous loop when every operand is contiguous in
/// the output's order; otherwise a row loop over the coalesced nest, with
/// incremental row pointers (no per-element division) and hoisting (Note
/// [hoisting] in evaluator.hpp). Both split across the thread pool and run on
/// SIMD packets when every node of the tree computes in one float type.

#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

#include "tensorlib/backend/cpu/evaluator.hpp"
#include "tensorlib/backend/cpu/loop_plan.hpp"
#include "tensorlib/backend/cpu/thread_pool.hpp"
#include "tensorlib/core/stats.hpp"
#include "tensorlib/core/tensor.hpp"
#include "tensorlib/expr/broadcast.hpp"
#include "tensorlib/expr/traverse.hpp"

namespace tensorlib::cpu {

/// Elements per task below which splitting across threads does not pay
/// (PyTorch's GRAIN_SIZE).
inline constexpr int64_t kGrainSize = 32768;

namespace detail {

template <bool Packets, Element T, class E>
void run_flat(const Tensor<T>& out, const E& expr, EvalContext& ctx) {
  using Ev = typename EvalOf<E, true>::type;
  const Ev ev(expr, ctx);
  const OutEval<T, true> o(out.data_ptr(), ctx.plan);
  constexpr int64_t W = packet_size<T>;
  const int64_t total = ctx.plan.inner();
  const int64_t packets = (total + W - 1) / W;
  parallel_for(0, packets, kGrainSize / W, [&](int64_t b, int64_t e) {
    const int64_t j0 = b * W, j1 = std::min(total, e * W);
    if constexpr (Packets) {
      for (int64_t j = j0; j < j1; j += W) {
        const int n = static_cast<int>(std::min(W, j1 - j));
        o.store(j, ev.load(j, n), n);
      }
    } else {
      for (int64_t j = j0; j < j1; ++j) o.put(j, ev.scalar(j));
    }
  });
}

template <bool Packets, Element T, class E>
void run_rows(const Tensor<T>& out, const E& expr, EvalContext& ctx) {
  using Ev = typename EvalOf<E, false>::type;
  const LoopPlan& plan = ctx.plan;
  Ev root(expr, ctx);
  const int64_t inner = plan.inner(), rows = plan.rows();
  root.plan_hoist(1u << (plan.ndim() - 1), rows > 1);
  int64_t origin[Shape::kMaxDims] = {};
  root.seek(origin, plan);
  std::vector<std::unique_ptr<std::byte[]>> buffers;
  root.template fill_buffers<Packets>(inner, buffers);
  const OutEval<T, false> out0(out.data_ptr(), plan);

  constexpr int64_t W = packet_size<T>;
  const int64_t ntasks = std::clamp<int64_t>(rows * inner / kGrainSize, 1, get_num_threads());
  const bool split_rows = rows >= ntasks;
  const int64_t col_chunk = ((inner + ntasks - 1) / ntasks + W - 1) / W * W;
  parallel_for(0, ntasks, 1, [&](int64_t t0, int64_t t1) {
    for (int64_t t = t0; t < t1; ++t) {
      const int64_t r0 = split_rows ? rows * t / ntasks : 0, r1 = split_rows ? rows * (t + 1) / ntasks : rows;
      const int64_t c0 = split_rows ? 0 : std::min(inner, t * col_chunk);
      const int64_t c1 = split_rows ? inner : std::min(inner, (t + 1) * col_chunk);
      if (r0 >= r1 || c0 >= c1) continue;
      Ev ev = root;
      OutEval<T, false> o = out0;
      int64_t index[Shape::kMaxDims] = {};
      unravel_row(r0, plan, index);
      ev.seek(index, plan);
      o.seek(index, plan);
      for (int64_t r = r0; r < r1; ++r) {
        ev.template start_row<Packets>();
        if constexpr (Packets) {
          for (int64_t j = c0; j < c1; j += W) {
            const int n = static_cast<int>(std::min(W, c1 - j));
            o.store(j, ev.load(j, n), n);
          }
        } else {
          for (int64_t j = c0; j < c1; ++j) o.put(j, ev.scalar(j));
        }
        if (r + 1 < r1) {
          const int64_t k = advance_index(index, plan);
          ev.advance(k);
          o.advance(k);
        }
      }
    }
  });
}

}  // namespace detail

/// Evaluates `expr` into `out` (same element type; `expr` broadcasts to
/// `out`'s shape; no partial overlap between them — ops/ checks that).
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
  EvalContext ctx{plan, std::move(data)};
  constexpr bool packets = PacketEvaluable<E, T>::value;
  if (plan.is_flat_contiguous()) detail::run_flat<packets>(out, expr, ctx);
  else detail::run_rows<packets>(out, expr, ctx);
}

}  // namespace tensorlib::cpu
