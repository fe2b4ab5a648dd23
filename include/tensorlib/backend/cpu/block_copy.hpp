#pragma once
/// \file
/// Copies of contiguous blocks for the joining and rearranging ops
/// (ops/join.hpp, ops/rearrange.hpp, ops/triangular.hpp): strided rows
/// (concatenation), slices gathered by index along one dimension
/// (`repeat_interleave`, `combinations`) and triangular masking (`tril`,
/// `triu`). Each inner run is one `memcpy`/`fill`; no per-element index
/// arithmetic. Large copies split across the thread pool by rows.

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "tensorlib/backend/cpu/thread_pool.hpp"

namespace tensorlib::cpu {

namespace detail {

// Rows per task so that a task moves at least ~32K elements (the pointwise
// executor's threshold).
inline int64_t rows_grain(int64_t row_length) { return std::max<int64_t>(1, 32768 / std::max<int64_t>(row_length, 1)); }

}  // namespace detail

/// For r in [0, rows): copies `length` elements from `src + r * src_stride`
/// to `dst + r * dst_stride` (strides in elements; the runs do not overlap).
template <class T>
void copy_rows(T* dst, int64_t dst_stride, const T* src, int64_t src_stride, int64_t rows, int64_t length) {
  if (rows <= 0 || length <= 0) return;
  const auto bytes = static_cast<std::size_t>(length) * sizeof(T);
  parallel_for(0, rows, detail::rows_grain(length), [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) std::memcpy(dst + r * dst_stride, src + r * src_stride, bytes);
  });
}

/// Gathers slices along the middle dimension of a contiguous (outer, n, inner)
/// source into a contiguous (outer, count, inner) destination:
/// dst[o, j, :] = src[o, index[j], :]. Indices must lie in [0, n).
template <class T>
void gather_slices(T* dst, const T* src, int64_t outer, int64_t n, int64_t inner, const int64_t* index, int64_t count) {
  if (outer <= 0 || inner <= 0 || count <= 0) return;
  const int64_t rows = outer * count;
  parallel_for(0, rows, detail::rows_grain(inner), [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const int64_t o = r / count, j = r - o * count;  // once per slice, not per element
      const T* from = src + (o * n + index[j]) * inner;
      T* to = dst + r * inner;
      if (inner == 1)
        *to = *from;
      else
        std::memcpy(to, from, static_cast<std::size_t>(inner) * sizeof(T));
    }
  });
}

/// Copies a contiguous stack of (rows, cols) matrices keeping the lower
/// triangle (j <= i + diagonal) when `lower`, else the upper one
/// (j >= i + diagonal), and writes zeros elsewhere. `dst` and `src` do not overlap.
template <class T>
void triangle(T* dst, const T* src, int64_t batch, int64_t rows, int64_t cols, int64_t diagonal, bool lower) {
  if (batch <= 0 || rows <= 0 || cols <= 0) return;
  diagonal = std::clamp<int64_t>(diagonal, -rows - 1, cols + 1);  // i + diagonal cannot overflow
  parallel_for(0, batch * rows, detail::rows_grain(cols), [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const int64_t i = r % rows;  // once per row
      const T* from = src + r * cols;
      T* to = dst + r * cols;
      if (lower) {
        const int64_t keep = std::clamp<int64_t>(i + diagonal + 1, 0, cols);
        std::copy(from, from + keep, to);
        std::fill(to + keep, to + cols, T(0));
      } else {
        const int64_t start = std::clamp<int64_t>(i + diagonal, 0, cols);
        std::fill(to, to + start, T(0));
        std::copy(from + start, from + cols, to + start);
      }
    }
  });
}

}  // namespace tensorlib::cpu
