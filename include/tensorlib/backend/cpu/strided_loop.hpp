#pragma once
/// \file
/// `for_each_offsets`: visits every element of a shape in row-major order and
/// hands the callback the element's offset in each of N strided operands.
/// The loop nest is a `LoopPlan` (size-1 dimensions dropped, contiguous runs
/// merged), so the callback runs in a flat inner loop without per-element
/// division. Gathers and scatters use it with a stride of 0 along the indexed
/// dimension and add `index * stride` themselves.

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "tensorlib/backend/cpu/loop_plan.hpp"
#include "tensorlib/core/shape.hpp"

namespace tensorlib::cpu {

/// Calls `f(offsets)` for each element of `shape` in row-major order, where
/// `offsets[k]` is the element's offset (in elements) under `strides[k]`.
/// Row-major order is what makes "the last write wins" well defined for
/// scatters with repeated indices.
template <std::size_t N, class F>
void for_each_offsets(const Shape& shape, const std::array<Shape, N>& strides, F&& f) {
  if (shape.numel() == 0) return;
  // Operand 0 is the row-major order itself, so the plan never reorders.
  std::vector<Shape> operands{contiguous_strides(shape)};
  operands.insert(operands.end(), strides.begin(), strides.end());
  const LoopPlan plan = make_loop_plan(shape, operands, 0);
  const int64_t rows = plan.rows(), inner = plan.inner();
  std::array<int64_t, N> step{};
  for (std::size_t k = 0; k < N; ++k) step[k] = plan.strides[k + 1].back();
  int64_t index[Shape::kMaxDims] = {};
  std::array<int64_t, N> offsets{};
  for (int64_t r = 0; r < rows; ++r) {
    for (std::size_t k = 0; k < N; ++k) offsets[k] = row_offset(index, plan, plan.strides[k + 1]);
    for (int64_t i = 0; i < inner; ++i) {
      f(static_cast<const std::array<int64_t, N>&>(offsets));
      for (std::size_t k = 0; k < N; ++k) offsets[k] += step[k];
    }
    if (r + 1 < rows) advance_index(index, plan);
  }
}

}  // namespace tensorlib::cpu
