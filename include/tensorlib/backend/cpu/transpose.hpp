#pragma once
/// \file
/// Transposing copies of 4- and 8-byte elements through SIMD registers: how
/// the CPU executor reads a leaf that is contiguous between rows and steps
/// across cache lines along them (`x.t()`, permutes; Note [register
/// transposes] in backend/cpu/pointwise.hpp). Only bits move, so one kernel
/// serves float and int32, another double and int64.
///
/// Letters: a region of `rows` x `cols`; consecutive rows i are adjacent in
/// `src` (element (i, j) at src[i + j * src_col_stride]), consecutive
/// columns j in `dst` (element (i, j) at dst[i * dst_row_stride + j]).

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "tensorlib/core/config.hpp"

#if defined(__SSE2__) && !defined(__CUDACC__)
#include <immintrin.h>
#endif

namespace tensorlib::cpu {

/// Square blocks that one register transpose moves: `kSize` = 0 when there
/// is no kernel for `Bytes`-wide elements on this target.
template <std::size_t Bytes>
struct TransposeBlock {
  static constexpr int64_t kSize = 0;
};

#if defined(__AVX__) && !defined(__CUDACC__)
template <>
struct TransposeBlock<4> {
  static constexpr int64_t kSize = 8;
  // Rows v0..v7 are source columns j..j+7 (eight elements along i each); the
  // three stages interleave pairs, then quads, then 128-bit halves.
  static TENSORLIB_ALWAYS_INLINE void run(const void* src, int64_t col_stride, void* dst, int64_t row_stride) {
    const auto* s = static_cast<const float*>(src);
    auto* d = static_cast<float*>(dst);
    const __m256 v0 = _mm256_loadu_ps(s), v1 = _mm256_loadu_ps(s + col_stride),
                 v2 = _mm256_loadu_ps(s + 2 * col_stride), v3 = _mm256_loadu_ps(s + 3 * col_stride),
                 v4 = _mm256_loadu_ps(s + 4 * col_stride), v5 = _mm256_loadu_ps(s + 5 * col_stride),
                 v6 = _mm256_loadu_ps(s + 6 * col_stride), v7 = _mm256_loadu_ps(s + 7 * col_stride);
    const __m256 t0 = _mm256_unpacklo_ps(v0, v1), t1 = _mm256_unpackhi_ps(v0, v1), t2 = _mm256_unpacklo_ps(v2, v3),
                 t3 = _mm256_unpackhi_ps(v2, v3), t4 = _mm256_unpacklo_ps(v4, v5), t5 = _mm256_unpackhi_ps(v4, v5),
                 t6 = _mm256_unpacklo_ps(v6, v7), t7 = _mm256_unpackhi_ps(v6, v7);
    const __m256 u0 = _mm256_shuffle_ps(t0, t2, 0x44), u1 = _mm256_shuffle_ps(t0, t2, 0xEE),
                 u2 = _mm256_shuffle_ps(t1, t3, 0x44), u3 = _mm256_shuffle_ps(t1, t3, 0xEE),
                 u4 = _mm256_shuffle_ps(t4, t6, 0x44), u5 = _mm256_shuffle_ps(t4, t6, 0xEE),
                 u6 = _mm256_shuffle_ps(t5, t7, 0x44), u7 = _mm256_shuffle_ps(t5, t7, 0xEE);
    _mm256_storeu_ps(d, _mm256_permute2f128_ps(u0, u4, 0x20));
    _mm256_storeu_ps(d + row_stride, _mm256_permute2f128_ps(u1, u5, 0x20));
    _mm256_storeu_ps(d + 2 * row_stride, _mm256_permute2f128_ps(u2, u6, 0x20));
    _mm256_storeu_ps(d + 3 * row_stride, _mm256_permute2f128_ps(u3, u7, 0x20));
    _mm256_storeu_ps(d + 4 * row_stride, _mm256_permute2f128_ps(u0, u4, 0x31));
    _mm256_storeu_ps(d + 5 * row_stride, _mm256_permute2f128_ps(u1, u5, 0x31));
    _mm256_storeu_ps(d + 6 * row_stride, _mm256_permute2f128_ps(u2, u6, 0x31));
    _mm256_storeu_ps(d + 7 * row_stride, _mm256_permute2f128_ps(u3, u7, 0x31));
  }
};

template <>
struct TransposeBlock<8> {
  static constexpr int64_t kSize = 4;
  static TENSORLIB_ALWAYS_INLINE void run(const void* src, int64_t col_stride, void* dst, int64_t row_stride) {
    const auto* s = static_cast<const double*>(src);
    auto* d = static_cast<double*>(dst);
    const __m256d v0 = _mm256_loadu_pd(s), v1 = _mm256_loadu_pd(s + col_stride),
                  v2 = _mm256_loadu_pd(s + 2 * col_stride), v3 = _mm256_loadu_pd(s + 3 * col_stride);
    const __m256d t0 = _mm256_unpacklo_pd(v0, v1), t1 = _mm256_unpackhi_pd(v0, v1), t2 = _mm256_unpacklo_pd(v2, v3),
                  t3 = _mm256_unpackhi_pd(v2, v3);
    _mm256_storeu_pd(d, _mm256_permute2f128_pd(t0, t2, 0x20));
    _mm256_storeu_pd(d + row_stride, _mm256_permute2f128_pd(t1, t3, 0x20));
    _mm256_storeu_pd(d + 2 * row_stride, _mm256_permute2f128_pd(t0, t2, 0x31));
    _mm256_storeu_pd(d + 3 * row_stride, _mm256_permute2f128_pd(t1, t3, 0x31));
  }
};
#elif defined(__SSE2__) && !defined(__CUDACC__)
template <>
struct TransposeBlock<4> {
  static constexpr int64_t kSize = 4;
  static TENSORLIB_ALWAYS_INLINE void run(const void* src, int64_t col_stride, void* dst, int64_t row_stride) {
    const auto* s = static_cast<const float*>(src);
    auto* d = static_cast<float*>(dst);
    const __m128 v0 = _mm_loadu_ps(s), v1 = _mm_loadu_ps(s + col_stride), v2 = _mm_loadu_ps(s + 2 * col_stride),
                 v3 = _mm_loadu_ps(s + 3 * col_stride);
    const __m128 t0 = _mm_unpacklo_ps(v0, v1), t1 = _mm_unpacklo_ps(v2, v3), t2 = _mm_unpackhi_ps(v0, v1),
                 t3 = _mm_unpackhi_ps(v2, v3);
    _mm_storeu_ps(d, _mm_movelh_ps(t0, t1));
    _mm_storeu_ps(d + row_stride, _mm_movehl_ps(t1, t0));
    _mm_storeu_ps(d + 2 * row_stride, _mm_movelh_ps(t2, t3));
    _mm_storeu_ps(d + 3 * row_stride, _mm_movehl_ps(t3, t2));
  }
};

template <>
struct TransposeBlock<8> {
  static constexpr int64_t kSize = 2;
  static TENSORLIB_ALWAYS_INLINE void run(const void* src, int64_t col_stride, void* dst, int64_t row_stride) {
    const auto* s = static_cast<const double*>(src);
    auto* d = static_cast<double*>(dst);
    const __m128d v0 = _mm_loadu_pd(s), v1 = _mm_loadu_pd(s + col_stride);
    _mm_storeu_pd(d, _mm_unpacklo_pd(v0, v1));
    _mm_storeu_pd(d + row_stride, _mm_unpackhi_pd(v0, v1));
  }
};
#endif

/// True when `T` is copied by register transposes on this target.
template <class T>
inline constexpr bool has_register_transpose = TransposeBlock<sizeof(T)>::kSize > 0 &&
                                               std::is_trivially_copyable_v<T> && (sizeof(T) == 4 || sizeof(T) == 8);

/// Side of the square tiles that register transposes run in (Note [register
/// transposes] in backend/cpu/pointwise.hpp: best or near it at 13 shapes).
inline constexpr int64_t kTransposeTile = 64;

/// True when a leaf of element type `T` read with these strides along the
/// inner loop and between rows is staged through register transposes in a
/// tiled run (Note [register transposes]): contiguous between rows, across
/// cache lines along them.
template <class T>
constexpr bool stages_transposed(int64_t inner_stride, int64_t row_stride) {
  if constexpr (has_register_transpose<T>)
    return row_stride == 1 && inner_stride >= 16;
  else
    return false;
}

/// dst(i, j) = src(i, j) over a rows x cols region (see the file comment):
/// full blocks through registers, the edges element by element.
template <class T>
requires has_register_transpose<T>
void transpose_region(const T* src, int64_t src_col_stride, T* dst, int64_t dst_row_stride, int64_t rows,
                      int64_t cols) {
  using Block = TransposeBlock<sizeof(T)>;
  constexpr int64_t B = Block::kSize;
  const int64_t full_rows = rows / B * B, full_cols = cols / B * B;
  for (int64_t i = 0; i < full_rows; i += B) {
    for (int64_t j = 0; j < full_cols; j += B)
      Block::run(src + i + j * src_col_stride, src_col_stride, dst + i * dst_row_stride + j, dst_row_stride);
    for (int64_t j = full_cols; j < cols; ++j)
      for (int64_t k = i; k < i + B; ++k) dst[k * dst_row_stride + j] = src[k + j * src_col_stride];
  }
  for (int64_t i = full_rows; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j) dst[i * dst_row_stride + j] = src[i + j * src_col_stride];
}

}  // namespace tensorlib::cpu
