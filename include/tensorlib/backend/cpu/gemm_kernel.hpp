#pragma once
/// \file
/// The GEMM micro-kernels: an MR x NR tile of C += (packed A panel) x
/// (packed B panel), and the block sizes the driver (backend/cpu/gemm.hpp)
/// packs to. One AVX2+FMA kernel per floating type, compiled when the
/// translation unit has `__AVX2__` and `__FMA__`, and a portable kernel in
/// plain C++ on the same packed layout, used otherwise (and by the tests).
///
/// Note [packed layout]
/// A block of A (mc x kc) is packed as ceil(mc / MR) panels; panel i holds
/// rows i*MR .. i*MR+MR-1, column by column: a[p * MR + r]. A block of B
/// (kc x nc) is packed as ceil(nc / NR) panels; panel j holds columns
/// j*NR .. j*NR+NR-1, row by row: b[p * NR + c]. Rows/columns past the edge
/// of the matrix are packed as zeros, so a kernel always computes a full tile
/// and only its store looks at the edge. Every C element goes through the same
/// arithmetic whatever the tile, block or thread split, so results do not
/// depend on the thread count.

#include <cstdint>

#if defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>
#endif

namespace tensorlib::cpu::detail {

/// Tile and cache-block sizes per element type (BLIS's MR/NR/KC/MC/NC). The
/// A block (MC x KC) is sized for a 512 KiB L2, a B panel (KC x NR) for L1,
/// and the packed B block (KC x NC) for the shared L3.
template <class T>
struct GemmBlocking;
template <>
struct GemmBlocking<float> {
  static constexpr int mr = 6, nr = 16;
  static constexpr int64_t kc = 256, mc = 144, nc = 4096;
};
template <>
struct GemmBlocking<double> {
  static constexpr int mr = 6, nr = 8;
  static constexpr int64_t kc = 256, mc = 72, nc = 2048;
};

/// Writes alpha * tile + beta * C into the valid m x n corner of a C tile
/// (row stride rs, column stride cs). beta == 0 does not read C, so NaNs
/// there are ignored (BLAS and PyTorch semantics).
template <class T, int MR, int NR>
inline void store_tile(const T* tile, int64_t m, int64_t n, T alpha, T beta, T* c, int64_t rs, int64_t cs) {
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      T& out = c[i * rs + j * cs];
      const T v = alpha * tile[i * NR + j];
      out = beta == T(0) ? v : v + beta * out;
    }
  }
}

/// The portable kernel: plain loops on the packed layout (the compiler
/// vectorizes the inner loop for whatever ISA it targets).
template <class T>
void micro_kernel_portable(int64_t kc, const T* a, const T* b, T alpha, T beta, T* c, int64_t rs, int64_t cs, int64_t m,
                           int64_t n) {
  constexpr int MR = GemmBlocking<T>::mr, NR = GemmBlocking<T>::nr;
  T acc[MR * NR] = {};
  for (int64_t p = 0; p < kc; ++p, a += MR, b += NR) {
    for (int r = 0; r < MR; ++r) {
      const T ar = a[r];
      for (int j = 0; j < NR; ++j) acc[r * NR + j] += ar * b[j];
    }
  }
  store_tile<T, MR, NR>(acc, m, n, alpha, beta, c, rs, cs);
}

#if defined(__AVX2__) && defined(__FMA__)

// One row of a full tile whose columns are contiguous in C.
inline void store_row(float* c, __m256 x0, __m256 x1, float alpha, float beta) {
  const __m256 va = _mm256_set1_ps(alpha);
  x0 = _mm256_mul_ps(va, x0);
  x1 = _mm256_mul_ps(va, x1);
  if (beta != 0.f) {
    const __m256 vb = _mm256_set1_ps(beta);
    x0 = _mm256_add_ps(x0, _mm256_mul_ps(vb, _mm256_loadu_ps(c)));
    x1 = _mm256_add_ps(x1, _mm256_mul_ps(vb, _mm256_loadu_ps(c + 8)));
  }
  _mm256_storeu_ps(c, x0);
  _mm256_storeu_ps(c + 8, x1);
}
inline void store_row(double* c, __m256d x0, __m256d x1, double alpha, double beta) {
  const __m256d va = _mm256_set1_pd(alpha);
  x0 = _mm256_mul_pd(va, x0);
  x1 = _mm256_mul_pd(va, x1);
  if (beta != 0.0) {
    const __m256d vb = _mm256_set1_pd(beta);
    x0 = _mm256_add_pd(x0, _mm256_mul_pd(vb, _mm256_loadu_pd(c)));
    x1 = _mm256_add_pd(x1, _mm256_mul_pd(vb, _mm256_loadu_pd(c + 4)));
  }
  _mm256_storeu_pd(c, x0);
  _mm256_storeu_pd(c + 4, x1);
}

/// 6 x 16 floats: 12 ymm accumulators, two B loads and six broadcasts per k.
inline void micro_kernel(int64_t kc, const float* a, const float* b, float alpha, float beta, float* c, int64_t rs,
                         int64_t cs, int64_t m, int64_t n) {
  __m256 c00 = _mm256_setzero_ps(), c01 = _mm256_setzero_ps(), c10 = _mm256_setzero_ps(), c11 = _mm256_setzero_ps(),
         c20 = _mm256_setzero_ps(), c21 = _mm256_setzero_ps(), c30 = _mm256_setzero_ps(), c31 = _mm256_setzero_ps(),
         c40 = _mm256_setzero_ps(), c41 = _mm256_setzero_ps(), c50 = _mm256_setzero_ps(), c51 = _mm256_setzero_ps();
  for (int64_t p = 0; p < kc; ++p, a += 6, b += 16) {
    const __m256 b0 = _mm256_load_ps(b), b1 = _mm256_load_ps(b + 8);
    __m256 ar = _mm256_broadcast_ss(a);
    c00 = _mm256_fmadd_ps(ar, b0, c00);
    c01 = _mm256_fmadd_ps(ar, b1, c01);
    ar = _mm256_broadcast_ss(a + 1);
    c10 = _mm256_fmadd_ps(ar, b0, c10);
    c11 = _mm256_fmadd_ps(ar, b1, c11);
    ar = _mm256_broadcast_ss(a + 2);
    c20 = _mm256_fmadd_ps(ar, b0, c20);
    c21 = _mm256_fmadd_ps(ar, b1, c21);
    ar = _mm256_broadcast_ss(a + 3);
    c30 = _mm256_fmadd_ps(ar, b0, c30);
    c31 = _mm256_fmadd_ps(ar, b1, c31);
    ar = _mm256_broadcast_ss(a + 4);
    c40 = _mm256_fmadd_ps(ar, b0, c40);
    c41 = _mm256_fmadd_ps(ar, b1, c41);
    ar = _mm256_broadcast_ss(a + 5);
    c50 = _mm256_fmadd_ps(ar, b0, c50);
    c51 = _mm256_fmadd_ps(ar, b1, c51);
  }
  if (m == 6 && n == 16 && cs == 1) {
    store_row(c, c00, c01, alpha, beta);
    store_row(c + rs, c10, c11, alpha, beta);
    store_row(c + 2 * rs, c20, c21, alpha, beta);
    store_row(c + 3 * rs, c30, c31, alpha, beta);
    store_row(c + 4 * rs, c40, c41, alpha, beta);
    store_row(c + 5 * rs, c50, c51, alpha, beta);
    return;
  }
  alignas(32) float tile[96];
  const __m256 rows[12] = {c00, c01, c10, c11, c20, c21, c30, c31, c40, c41, c50, c51};
  for (int i = 0; i < 12; ++i) _mm256_store_ps(tile + 8 * i, rows[i]);
  store_tile<float, 6, 16>(tile, m, n, alpha, beta, c, rs, cs);
}

/// 6 x 8 doubles: the same register budget as the float kernel.
inline void micro_kernel(int64_t kc, const double* a, const double* b, double alpha, double beta, double* c, int64_t rs,
                         int64_t cs, int64_t m, int64_t n) {
  __m256d c00 = _mm256_setzero_pd(), c01 = _mm256_setzero_pd(), c10 = _mm256_setzero_pd(), c11 = _mm256_setzero_pd(),
          c20 = _mm256_setzero_pd(), c21 = _mm256_setzero_pd(), c30 = _mm256_setzero_pd(), c31 = _mm256_setzero_pd(),
          c40 = _mm256_setzero_pd(), c41 = _mm256_setzero_pd(), c50 = _mm256_setzero_pd(), c51 = _mm256_setzero_pd();
  for (int64_t p = 0; p < kc; ++p, a += 6, b += 8) {
    const __m256d b0 = _mm256_load_pd(b), b1 = _mm256_load_pd(b + 4);
    __m256d ar = _mm256_broadcast_sd(a);
    c00 = _mm256_fmadd_pd(ar, b0, c00);
    c01 = _mm256_fmadd_pd(ar, b1, c01);
    ar = _mm256_broadcast_sd(a + 1);
    c10 = _mm256_fmadd_pd(ar, b0, c10);
    c11 = _mm256_fmadd_pd(ar, b1, c11);
    ar = _mm256_broadcast_sd(a + 2);
    c20 = _mm256_fmadd_pd(ar, b0, c20);
    c21 = _mm256_fmadd_pd(ar, b1, c21);
    ar = _mm256_broadcast_sd(a + 3);
    c30 = _mm256_fmadd_pd(ar, b0, c30);
    c31 = _mm256_fmadd_pd(ar, b1, c31);
    ar = _mm256_broadcast_sd(a + 4);
    c40 = _mm256_fmadd_pd(ar, b0, c40);
    c41 = _mm256_fmadd_pd(ar, b1, c41);
    ar = _mm256_broadcast_sd(a + 5);
    c50 = _mm256_fmadd_pd(ar, b0, c50);
    c51 = _mm256_fmadd_pd(ar, b1, c51);
  }
  if (m == 6 && n == 8 && cs == 1) {
    store_row(c, c00, c01, alpha, beta);
    store_row(c + rs, c10, c11, alpha, beta);
    store_row(c + 2 * rs, c20, c21, alpha, beta);
    store_row(c + 3 * rs, c30, c31, alpha, beta);
    store_row(c + 4 * rs, c40, c41, alpha, beta);
    store_row(c + 5 * rs, c50, c51, alpha, beta);
    return;
  }
  alignas(32) double tile[48];
  const __m256d rows[12] = {c00, c01, c10, c11, c20, c21, c30, c31, c40, c41, c50, c51};
  for (int i = 0; i < 12; ++i) _mm256_store_pd(tile + 4 * i, rows[i]);
  store_tile<double, 6, 8>(tile, m, n, alpha, beta, c, rs, cs);
}

/// True when `micro_kernel` is the AVX2+FMA kernel.
inline constexpr bool kGemmKernelIsAvx2 = true;

#else

/// Without AVX2+FMA the portable kernel is the kernel.
template <class T>
void micro_kernel(int64_t kc, const T* a, const T* b, T alpha, T beta, T* c, int64_t rs, int64_t cs, int64_t m,
                  int64_t n) {
  micro_kernel_portable(kc, a, b, alpha, beta, c, rs, cs, m, n);
}

inline constexpr bool kGemmKernelIsAvx2 = false;

#endif

}  // namespace tensorlib::cpu::detail
