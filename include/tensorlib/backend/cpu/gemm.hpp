#pragma once
/// \file
/// The CPU GEMM: C = alpha * A * B + beta * C on strided matrices. Float and
/// double run our own Goto/BLIS-style kernel (or the system CBLAS when built
/// with the `tensorlib::blas` component, which defines TENSORLIB_USE_BLAS);
/// integer types run a blocked loop with wrap-around arithmetic, as PyTorch's
/// integer matmul does.
///
/// Note [gemm blocking]
/// The loop nest is BLIS's: for each NC-wide column block of B and each
/// KC-deep slice of the inner dimension, B's KC x NC block is packed once
/// (shared by all threads), then every MC-high row block of A is packed by
/// the task that uses it and multiplied by the packed B panels with the
/// micro-kernel (Note [packed layout], gemm_kernel.hpp). Packing reads any
/// row and column strides, so a transposed or sliced operand is never copied
/// as a whole. Threads split the MC loop (block height chosen so the blocks
/// divide evenly among the threads), and also the NC block's panels when A
/// has fewer row blocks than there are threads. The first KC slice applies
/// beta, the later ones accumulate with beta = 1.

#include <algorithm>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <type_traits>

#include "tensorlib/backend/cpu/gemm_kernel.hpp"
#include "tensorlib/backend/cpu/thread_pool.hpp"
#include "tensorlib/core/dtype.hpp"

#if defined(TENSORLIB_USE_BLAS)
// The two CBLAS entry points we call, declared here so that no BLAS header is
// needed (CBLAS enums are passed as their int values).
extern "C" {
void cblas_sgemm(int order, int trans_a, int trans_b, int m, int n, int k, float alpha, const float* a, int lda,
                 const float* b, int ldb, float beta, float* c, int ldc);
void cblas_dgemm(int order, int trans_a, int trans_b, int m, int n, int k, double alpha, const double* a, int lda,
                 const double* b, int ldb, double beta, double* c, int ldc);
}
#endif

namespace tensorlib::cpu {

/// A strided matrix: element (i, j) is data[i * row_stride + j * col_stride].
/// Strides may be anything, including 0 (a broadcast row or column).
template <class T>
struct MatrixView {
  T* data;
  int64_t rows, cols;
  int64_t row_stride, col_stride;

  /// The transpose (no copy: the strides swap).
  MatrixView t() const { return {data, cols, rows, col_stride, row_stride}; }
  T& operator()(int64_t i, int64_t j) const { return data[i * row_stride + j * col_stride]; }
};

namespace detail {

struct AlignedDelete {
  void operator()(void* p) const { ::operator delete[](p, std::align_val_t{64}); }
};

/// A per-thread, 64-byte aligned, grow-only packing buffer. Slot 0 holds a
/// thread's packed A block, slot 1 the packed B block of the calling thread.
template <class T>
T* pack_buffer(int slot, int64_t elements) {
  struct Buffer {
    std::unique_ptr<std::byte[], AlignedDelete> data;
    int64_t capacity = 0;
  };
  thread_local Buffer buffers[2];
  Buffer& b = buffers[slot];
  if (b.capacity < elements) {
    b.data.reset(static_cast<std::byte*>(
        ::operator new[](static_cast<std::size_t>(elements) * sizeof(T), std::align_val_t{64})));
    b.capacity = elements;
  }
  return reinterpret_cast<T*>(b.data.get());
}

/// Packs rows [0, mc) x columns [0, kc) of `a` into MR-row panels (Note
/// [packed layout]), zero-padding the last panel.
template <class T>
void pack_a(const MatrixView<const T>& a, int64_t mc, int64_t kc, T* dst) {
  constexpr int MR = GemmBlocking<T>::mr;
  for (int64_t i0 = 0; i0 < mc; i0 += MR, dst += MR * kc) {
    const int64_t mr = std::min<int64_t>(MR, mc - i0);
    const T* src = a.data + i0 * a.row_stride;
    for (int64_t r = 0; r < MR; ++r) {
      if (r >= mr) {
        for (int64_t p = 0; p < kc; ++p) dst[p * MR + r] = T(0);
      } else if (a.col_stride == 1) {
        for (int64_t p = 0; p < kc; ++p) dst[p * MR + r] = src[r * a.row_stride + p];
      } else {
        for (int64_t p = 0; p < kc; ++p) dst[p * MR + r] = src[r * a.row_stride + p * a.col_stride];
      }
    }
  }
}

/// Packs NR-column panels [panel0, panel1) of the kc x nc block `b`.
template <class T>
void pack_b(const MatrixView<const T>& b, int64_t kc, int64_t nc, int64_t panel0, int64_t panel1, T* dst) {
  constexpr int NR = GemmBlocking<T>::nr;
  for (int64_t jp = panel0; jp < panel1; ++jp) {
    const int64_t j0 = jp * NR, nr = std::min<int64_t>(NR, nc - j0);
    T* out = dst + jp * NR * kc;
    const T* src = b.data + j0 * b.col_stride;
    for (int64_t p = 0; p < kc; ++p, out += NR) {
      const T* row = src + p * b.row_stride;
      if (nr == NR && b.col_stride == 1) {
        for (int j = 0; j < NR; ++j) out[j] = row[j];
      } else {
        for (int64_t j = 0; j < nr; ++j) out[j] = row[j * b.col_stride];
        for (int64_t j = nr; j < NR; ++j) out[j] = T(0);
      }
    }
  }
}

/// C = beta * C (beta == 0 writes zeros, ignoring what C held).
template <class T>
void scale(const MatrixView<T>& c, T beta) {
  for (int64_t i = 0; i < c.rows; ++i)
    for (int64_t j = 0; j < c.cols; ++j) c(i, j) = beta == T(0) ? T(0) : beta * c(i, j);
}

/// The blocked floating-point GEMM (Note [gemm blocking]). `Portable`
/// selects the plain C++ micro-kernel even where the AVX2 one exists.
template <class T, bool Portable = false>
void gemm_blocked(T alpha, const MatrixView<const T>& a, const MatrixView<const T>& b, T beta, const MatrixView<T>& c) {
  using B = GemmBlocking<T>;
  const int64_t m = c.rows, n = c.cols, k = a.cols;
  if (m == 0 || n == 0) return;
  if (k == 0 || alpha == T(0)) {
    scale(c, beta);
    return;
  }
  const int64_t threads = in_parallel_region ? 1 : pool_slot()->size();
  // Row blocks: as few as the L2 allows, rounded up to a multiple of the
  // thread count, each a multiple of MR high.
  int64_t mblocks = (m + B::mc - 1) / B::mc;
  mblocks = (mblocks + threads - 1) / threads * threads;
  const int64_t mc = std::min(B::mc, ((m + mblocks - 1) / mblocks + B::mr - 1) / B::mr * B::mr);
  mblocks = (m + mc - 1) / mc;
  const int64_t kc_max = std::min(B::kc, k), nc_max = std::min(B::nc, n);
  T* packed_b = pack_buffer<T>(1, kc_max * ((nc_max + B::nr - 1) / B::nr * B::nr));

  for (int64_t jc = 0; jc < n; jc += B::nc) {
    const int64_t nc = std::min(B::nc, n - jc);
    const int64_t panels = (nc + B::nr - 1) / B::nr;
    // With fewer row blocks than threads, tasks also split the panels.
    const int64_t splits = std::clamp<int64_t>((threads + mblocks - 1) / mblocks, 1, panels);
    for (int64_t pc = 0; pc < k; pc += B::kc) {
      const int64_t kc = std::min(B::kc, k - pc);
      const T beta_here = pc == 0 ? beta : T(1);
      const MatrixView<const T> b_block{b.data + pc * b.row_stride + jc * b.col_stride, kc, nc, b.row_stride,
                                        b.col_stride};
      parallel_for(0, panels, std::max<int64_t>(1, 4096 / kc),
                   [&](int64_t p0, int64_t p1) { pack_b(b_block, kc, nc, p0, p1, packed_b); });
      parallel_for(0, mblocks * splits, 1, [&](int64_t t0, int64_t t1) {
        T* packed_a = pack_buffer<T>(0, mc * kc);
        int64_t packed_block = -1;
        for (int64_t t = t0; t < t1; ++t) {
          const int64_t ib = t / splits, split = t % splits;
          const int64_t ic = ib * mc, mcur = std::min(mc, m - ic);
          if (packed_block != ib) {
            pack_a(MatrixView<const T>{a.data + ic * a.row_stride + pc * a.col_stride, mcur, kc, a.row_stride,
                                       a.col_stride},
                   mcur, kc, packed_a);
            packed_block = ib;
          }
          const int64_t jp0 = panels * split / splits, jp1 = panels * (split + 1) / splits;
          for (int64_t jp = jp0; jp < jp1; ++jp) {
            const int64_t j = jc + jp * B::nr, nr = std::min<int64_t>(B::nr, n - j);
            for (int64_t ir = 0; ir < mcur; ir += B::mr) {
              const int64_t mr = std::min<int64_t>(B::mr, mcur - ir);
              T* ct = &c(ic + ir, j);
              const T* ap = packed_a + ir * kc;
              const T* bp = packed_b + jp * B::nr * kc;
              if constexpr (Portable)
                micro_kernel_portable(kc, ap, bp, alpha, beta_here, ct, c.row_stride, c.col_stride, mr, nr);
              else
                micro_kernel(kc, ap, bp, alpha, beta_here, ct, c.row_stride, c.col_stride, mr, nr);
            }
          }
        }
      });
    }
  }
}

/// Integer GEMM: row by row in i-k-j order with a row of accumulators,
/// blocked over columns so the accumulators stay in L1. Arithmetic is done in
/// the unsigned type, so overflow wraps (as in PyTorch) instead of being UB.
template <class T>
void gemm_integer(T alpha, const MatrixView<const T>& a, const MatrixView<const T>& b, T beta, const MatrixView<T>& c) {
  using U = std::make_unsigned_t<T>;
  constexpr int64_t kColumns = 256;
  const int64_t m = c.rows, n = c.cols, k = a.cols;
  const int64_t grain = std::max<int64_t>(1, 32768 / std::max<int64_t>(1, n * k));
  parallel_for(0, m, grain, [&](int64_t i0, int64_t i1) {
    U acc[kColumns];
    for (int64_t i = i0; i < i1; ++i) {
      for (int64_t j0 = 0; j0 < n; j0 += kColumns) {
        const int64_t nj = std::min(kColumns, n - j0);
        std::fill(acc, acc + nj, U(0));
        for (int64_t p = 0; p < k; ++p) {
          const U aip = static_cast<U>(a(i, p));
          const T* brow = &b(p, j0);
          for (int64_t j = 0; j < nj; ++j)
            acc[j] = static_cast<U>(acc[j] + static_cast<U>(aip * static_cast<U>(brow[j * b.col_stride])));
        }
        for (int64_t j = 0; j < nj; ++j) {
          T& out = c(i, j0 + j);
          const U v = static_cast<U>(static_cast<U>(alpha) * acc[j]);
          out = static_cast<T>(
              beta == T(0) ? v : static_cast<U>(v + static_cast<U>(static_cast<U>(beta) * static_cast<U>(out))));
        }
      }
    }
  });
}

#if defined(TENSORLIB_USE_BLAS)

// How CBLAS (row-major) sees a strided matrix: transposed or not, and its
// leading dimension; false when the strides have no unit step.
inline bool blas_layout(int64_t rows, int64_t cols, int64_t rs, int64_t cs, int& trans, int& ld) {
  constexpr int kNoTrans = 111, kTrans = 112;
  if ((cs == 1 || cols <= 1) && (rows <= 1 || rs >= std::max<int64_t>(1, cols)) && rs <= INT_MAX) {
    trans = kNoTrans;
    ld = static_cast<int>(rows <= 1 ? std::max<int64_t>(1, cols) : rs);
    return true;
  }
  if ((rs == 1 || rows <= 1) && (cols <= 1 || cs >= std::max<int64_t>(1, rows)) && cs <= INT_MAX) {
    trans = kTrans;
    ld = static_cast<int>(cols <= 1 ? std::max<int64_t>(1, rows) : cs);
    return true;
  }
  return false;
}

// Calls cblas_?gemm when all three matrices fit its layouts; false otherwise.
template <class T>
bool blas_gemm(T alpha, MatrixView<const T> a, MatrixView<const T> b, T beta, MatrixView<T> c) {
  constexpr int kRowMajor = 101, kNoTrans = 111;
  if (c.rows > INT_MAX || c.cols > INT_MAX || a.cols > INT_MAX) return false;
  int tc = 0, ldc = 0;
  if (!blas_layout(c.rows, c.cols, c.row_stride, c.col_stride, tc, ldc)) return false;
  if (tc != kNoTrans) {  // C column-major: compute C^T = B^T A^T instead
    const MatrixView<const T> at = a.t();
    a = b.t();
    b = at;
    c = c.t();
  }
  int ta = 0, lda = 0, tb = 0, ldb = 0;
  if (!blas_layout(a.rows, a.cols, a.row_stride, a.col_stride, ta, lda) ||
      !blas_layout(b.rows, b.cols, b.row_stride, b.col_stride, tb, ldb))
    return false;
  ldc = static_cast<int>(c.rows <= 1 ? std::max<int64_t>(1, c.cols) : c.row_stride);
  const int m = static_cast<int>(c.rows), n = static_cast<int>(c.cols), k = static_cast<int>(a.cols);
  if constexpr (std::is_same_v<T, float>)
    cblas_sgemm(kRowMajor, ta, tb, m, n, k, alpha, a.data, lda, b.data, ldb, beta, c.data, ldc);
  else
    cblas_dgemm(kRowMajor, ta, tb, m, n, k, alpha, a.data, lda, b.data, ldb, beta, c.data, ldc);
  return true;
}

#endif

}  // namespace detail

/// C = alpha * A * B + beta * C (BLAS's ?gemm on strided matrices; a
/// transposed operand is passed as `view.t()`). A is m x k, B k x n, C m x n;
/// the caller checks the shapes and that C does not overlap A or B. With
/// beta == 0, C is not read. Runs on the thread pool.
template <Element T>
void gemm(T alpha, const MatrixView<const T>& a, const MatrixView<const T>& b, T beta, const MatrixView<T>& c) {
  static_assert(!std::is_same_v<T, bool>, "gemm: bool matrices are not supported (PyTorch has no bool matmul)");
  if constexpr (std::is_floating_point_v<T>) {
#if defined(TENSORLIB_USE_BLAS)
    if (c.rows > 0 && c.cols > 0 && a.cols > 0 && detail::blas_gemm(alpha, a, b, beta, c)) return;
#endif
    detail::gemm_blocked(alpha, a, b, beta, c);
  } else {
    detail::gemm_integer(alpha, a, b, beta, c);
  }
}

/// `batch` independent GEMMs; operand i starts `*_batch_stride * i` elements
/// after the first (a stride of 0 reuses one matrix, as in a broadcast).
/// Small matrices are spread over threads by batch, large ones by block.
template <Element T>
void gemm_batched(int64_t batch, T alpha, const MatrixView<const T>& a, int64_t a_batch_stride,
                  const MatrixView<const T>& b, int64_t b_batch_stride, T beta, const MatrixView<T>& c,
                  int64_t c_batch_stride) {
  if (c.rows == 0 || c.cols == 0) return;  // nothing to write (and empty operands may have no memory)
  const auto one = [&](int64_t i) {
    MatrixView<const T> ai = a, bi = b;
    if (a.cols == 0) {  // zero depth: A and B have no elements, C = beta * C
      detail::scale(MatrixView<T>{c.data + i * c_batch_stride, c.rows, c.cols, c.row_stride, c.col_stride}, beta);
      return;
    }
    MatrixView<T> ci = c;
    ai.data += i * a_batch_stride;
    bi.data += i * b_batch_stride;
    ci.data += i * c_batch_stride;
    gemm(alpha, ai, bi, beta, ci);
  };
  const int64_t work = c.rows * c.cols * std::max<int64_t>(a.cols, 1);
  if (work < 64 * 64 * 64) {
    parallel_for(0, batch, std::max<int64_t>(1, 32768 / std::max<int64_t>(work, 1)), [&](int64_t b0, int64_t b1) {
      for (int64_t i = b0; i < b1; ++i) one(i);
    });
  } else {
    for (int64_t i = 0; i < batch; ++i) one(i);
  }
}

}  // namespace tensorlib::cpu
