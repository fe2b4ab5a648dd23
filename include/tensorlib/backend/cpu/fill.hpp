#pragma once
/// \file
/// Filling a (possibly strided) CPU tensor with one value: a write-only loop,
/// cheaper than any expression, which would read the destination; and
/// filling a buffer from a Philox stream (Note [philox streams]).

#include <algorithm>
#include <cstdint>
#include <vector>

#include "tensorlib/backend/cpu/loop_plan.hpp"
#include "tensorlib/backend/cpu/thread_pool.hpp"
#include "tensorlib/core/philox.hpp"
#include "tensorlib/core/tensor.hpp"

namespace tensorlib::cpu {

/// Sets every element of `out` to `value`.
template <Element T>
void fill(const Tensor<T>& out, T value) {
  if (out.numel() == 0) return;
  const LoopPlan plan = make_loop_plan(out.sizes(), std::vector<Shape>{out.strides()});
  T* base = out.data_ptr();
  const int64_t inner = plan.inner(), inner_stride = plan.strides[0].back();
  parallel_for(0, plan.rows(), std::max<int64_t>(1, 32768 / inner), [&](int64_t r0, int64_t r1) {
    int64_t index[Shape::kMaxDims] = {};
    for (int64_t r = r0; r < r1; ++r) {
      unravel_row(r, plan, index);
      T* row = base + row_offset(index, plan, plan.strides[0]);
      if (inner_stride == 1)
        std::fill(row, row + inner, value);
      else
        for (int64_t j = 0; j < inner; ++j) row[j * inner_stride] = value;
    }
  });
}

/// out[i] = value(philox_block(seed, offset + i / F::kPerBlock), i %
/// F::kPerBlock) for i in [0, n): the lane functors of ops/random.hpp.
template <class T, class F>
void philox_fill(T* out, int64_t n, uint64_t seed, uint64_t offset, const F& value) {
  constexpr int64_t per_block = F::kPerBlock;
  const int64_t blocks = (n + per_block - 1) / per_block;
  parallel_for(0, blocks, 1024, [&](int64_t b0, int64_t b1) {
    for (int64_t b = b0; b < b1; ++b) {
      const PhiloxBlock block = philox_block(seed, offset + static_cast<uint64_t>(b));
      for (int64_t lane = 0; lane < per_block && b * per_block + lane < n; ++lane)
        out[b * per_block + lane] = value(block, static_cast<int>(lane));
    }
  });
}

}  // namespace tensorlib::cpu
