#pragma once
/// \file
/// `LoopPlan`: the loop nest a fused pointwise op runs, shared by all its
/// operands (the output first, then every tensor leaf). Dimensions of size 1
/// are dropped, the rest are ordered by the output's strides (outermost
/// first) and adjacent dimensions are merged wherever every operand is
/// contiguous across them, so a same-shape contiguous chain becomes one flat
/// loop and a broadcast row becomes a 2-d loop (PyTorch's TensorIterator does
/// the same).

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <vector>

#include "tensorlib/core/shape.hpp"

namespace tensorlib::cpu {

/// Sizes and per-operand strides (in elements) of a coalesced loop nest.
/// The last dimension is the inner loop; there is always at least one.
struct LoopPlan {
  Shape sizes;
  std::vector<Shape> strides;  // strides[operand][dim]

  int64_t ndim() const { return sizes.size(); }
  int64_t inner() const { return sizes.back(); }
  /// Number of inner-loop runs (product of the outer sizes).
  int64_t rows() const { return sizes.numel() / sizes.back(); }
  /// Bit d set when operand `op` moves along dimension d.
  uint32_t moves(int64_t op) const {
    uint32_t m = 0;
    for (int64_t d = 0; d < ndim(); ++d)
      if (strides[op][d] != 0) m |= 1u << d;
    return m;
  }
};

/// Plans the loop over `shape` for operands with the given strides (each
/// already broadcast to `shape`; operand 0 is the output). `shape` must have
/// at least one element. Dimensions are ordered by the strides of operand
/// `order_by`: the output for pointwise ops, the input for reductions (whose
/// output has stride 0 along reduced dimensions).
inline LoopPlan make_loop_plan(const Shape& shape, const std::vector<Shape>& operand_strides, int64_t order_by = 0) {
  const int64_t nops = static_cast<int64_t>(operand_strides.size());
  // Keep dimensions of size > 1, outermost first by the output's stride.
  std::vector<int64_t> dims;
  for (int64_t d = 0; d < shape.size(); ++d)
    if (shape[d] != 1) dims.push_back(d);
  const Shape& out = operand_strides[order_by];
  std::stable_sort(dims.begin(), dims.end(), [&](int64_t a, int64_t b) {
    const int64_t sa = out[a] < 0 ? -out[a] : out[a], sb = out[b] < 0 ? -out[b] : out[b];
    return sa > sb;
  });

  LoopPlan plan;
  plan.strides.assign(nops, Shape{});
  for (int64_t d : dims) {
    const int64_t last = plan.sizes.size() - 1;
    bool merge = last >= 0;
    for (int64_t op = 0; merge && op < nops; ++op) merge = plan.strides[op][last] == operand_strides[op][d] * shape[d];
    if (merge) {
      plan.sizes[last] *= shape[d];
      for (int64_t op = 0; op < nops; ++op) plan.strides[op][last] = operand_strides[op][d];
    } else {
      plan.sizes.push_back(shape[d]);
      for (int64_t op = 0; op < nops; ++op) plan.strides[op].push_back(operand_strides[op][d]);
    }
  }
  if (plan.sizes.empty()) {  // a single element
    plan.sizes.push_back(1);
    for (auto& s : plan.strides) s.push_back(1);
  }
  return plan;
}

/// Steps an odometer over the outer dimensions of `plan` (all but the last)
/// and returns the dimension that advanced; the dimensions after it wrapped.
inline int64_t advance_index(int64_t* index, const LoopPlan& plan) {
  int64_t k = plan.ndim() - 2;
  while (++index[k] == plan.sizes[k] && k > 0) {
    index[k] = 0;
    --k;
  }
  return k;
}

/// Pointer increments for each carry level of `advance_index`: moving along
/// dimension k while every dimension after it (except the inner one) wraps.
inline void carry_deltas(const LoopPlan& plan, const Shape& strides, int64_t* deltas) {
  const int64_t outer = plan.ndim() - 1;
  for (int64_t k = 0; k < outer; ++k) {
    int64_t d = strides[k];
    for (int64_t j = k + 1; j < outer; ++j) d -= (plan.sizes[j] - 1) * strides[j];
    deltas[k] = d;
  }
}

/// Offset (in elements) of the start of the row with outer index `index`.
inline int64_t row_offset(const int64_t* index, const LoopPlan& plan, const Shape& strides) {
  int64_t off = 0;
  for (int64_t d = 0; d + 1 < plan.ndim(); ++d) off += index[d] * strides[d];
  return off;
}

/// The outer index of row number `row`.
inline void unravel_row(int64_t row, const LoopPlan& plan, int64_t* index) {
  for (int64_t d = plan.ndim() - 2; d >= 0; --d) {
    index[d] = row % plan.sizes[d];
    row /= plan.sizes[d];
  }
}

}  // namespace tensorlib::cpu
