#pragma once
/// \file
/// Matrix products on the GPU through cuBLAS (any translation unit linking
/// the `tensorlib::cuda` component): one strided-batched call per product,
/// reading row-major or transposed operands in place (Note [row-major
/// cuBLAS]). TF32 tensor cores are opt-in, as in PyTorch
/// (`tl::cuda::set_allow_tf32`); float16 and bfloat16 products run on tensor
/// cores with float accumulation (cublasGemmStridedBatchedEx).
///
/// Note [row-major cuBLAS]
/// cuBLAS is column-major. A row-major (m, k) matrix with row stride ld is
/// the column-major (k, m) matrix with leading dimension ld, its transpose.
/// So C = A B (row-major) is computed as C^T = B^T A^T (column-major), and an
/// operand whose rows are contiguous is passed untransposed, one whose
/// columns are contiguous (a transposed view) with CUBLAS_OP_T. Operands
/// with neither layout (a broadcast row of stride 0, overlapping rows), and
/// outputs whose rows are not contiguous, are rejected here; ops/ makes them
/// contiguous first (detail::dispatch_bmm, with `gemm_reads` and
/// `gemm_writes`).

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <limits>
#include <mutex>

#include "tensorlib/backend/cuda/runtime.hpp"
#include "tensorlib/core/tensor.hpp"

namespace tensorlib::cuda {
namespace detail {

inline const char* cublas_message(cublasStatus_t s) {
  switch (s) {
    case CUBLAS_STATUS_NOT_INITIALIZED:
      return "CUBLAS_STATUS_NOT_INITIALIZED";
    case CUBLAS_STATUS_ALLOC_FAILED:
      return "CUBLAS_STATUS_ALLOC_FAILED";
    case CUBLAS_STATUS_INVALID_VALUE:
      return "CUBLAS_STATUS_INVALID_VALUE";
    case CUBLAS_STATUS_ARCH_MISMATCH:
      return "CUBLAS_STATUS_ARCH_MISMATCH";
    case CUBLAS_STATUS_MAPPING_ERROR:
      return "CUBLAS_STATUS_MAPPING_ERROR";
    case CUBLAS_STATUS_EXECUTION_FAILED:
      return "CUBLAS_STATUS_EXECUTION_FAILED";
    case CUBLAS_STATUS_INTERNAL_ERROR:
      return "CUBLAS_STATUS_INTERNAL_ERROR";
    case CUBLAS_STATUS_NOT_SUPPORTED:
      return "CUBLAS_STATUS_NOT_SUPPORTED";
    default:
      return "cuBLAS error";
  }
}

/// Throws `CudaError` for a failed cuBLAS call (file:line and cuBLAS's name).
inline void check_cublas(cublasStatus_t status, const char* what,
                         CallSite where = {__builtin_FILE(), __builtin_LINE()}) {
  if (status == CUBLAS_STATUS_SUCCESS) [[likely]]
    return;
  throw_cuda_error(where, what, cublas_message(status));
}

inline std::atomic<bool>& allow_tf32_flag() {
  static std::atomic<bool> flag{false};
  return flag;
}

/// This device's cuBLAS handle (one per device, made on first use).
inline cublasHandle_t cublas_handle(int device) {
  static std::array<cublasHandle_t, kMaxDevices> handles{};
  static std::mutex mutex;
  std::lock_guard lock(mutex);
  cublasHandle_t& h = handles[static_cast<std::size_t>(device)];
  if (h == nullptr) {
    DeviceGuard guard(device);
    check_cublas(cublasCreate(&h), "cublasCreate");
  }
  return h;
}

struct Operand {
  cublasOperation_t op;
  int64_t ld;
};

// How cuBLAS reads a row-major (rows, cols) view with strides (rs, cs).
inline bool as_operand(int64_t rows, int64_t cols, int64_t rs, int64_t cs, Operand& out) {
  if (cols == 1 || cs == 1) {  // rows contiguous: untransposed
    out = {CUBLAS_OP_N, std::max<int64_t>({rs, cols, 1})};
    return rows == 1 || rs >= cols;
  }
  if (rows == 1 || rs == 1) {  // columns contiguous: a transposed view
    out = {CUBLAS_OP_T, std::max<int64_t>({cs, rows, 1})};
    return cols == 1 || cs >= rows;
  }
  return false;
}

}  // namespace detail

/// Whether cuBLAS reads the matrices of the 3-d tensor `t` (batch, rows,
/// cols) in place (Note [row-major cuBLAS]).
template <Element T>
bool gemm_reads(const Tensor<T>& t) {
  detail::Operand o{};
  return detail::as_operand(t.size(1), t.size(2), t.stride(1), t.stride(2), o);
}
/// Whether cuBLAS writes the matrices of the 3-d tensor `t` in place (rows
/// contiguous).
template <Element T>
bool gemm_writes(const Tensor<T>& t) {
  detail::Operand o{};
  return detail::as_operand(t.size(1), t.size(2), t.stride(1), t.stride(2), o) && o.op == CUBLAS_OP_N;
}

/// Whether float32 products may use TF32 tensor cores (PyTorch's
/// `torch.backends.cuda.matmul.allow_tf32`, off by default).
inline void set_allow_tf32(bool allow) { detail::allow_tf32_flag() = allow; }
inline bool allow_tf32() { return detail::allow_tf32_flag(); }

/// out[i] = alpha * a[i] @ b[i] + beta * out[i] for 3-d tensors (batch,
/// rows, cols) on one GPU; beta == 0 does not read `out`.
template <Element T>
void gemm_batched(const Tensor<T>& out, const Tensor<T>& a, const Tensor<T>& b, T alpha, T beta, const char* op) {
  if constexpr (!std::is_same_v<T, float> && !std::is_same_v<T, double> && !is_reduced_float<T>) {
    throw TypeError(tensorlib::detail::concat(
        op, ": CUDA matrix products take float16, bfloat16, float or double tensors, got ", scalar_type_of<T>));
  } else {
    const int64_t batch = out.size(0), m = out.size(1), n = out.size(2), k = a.size(2);
    if (batch == 0 || m == 0 || n == 0) return;
    const int device = out.device().index;
    DeviceGuard guard(device);
    detail::Operand oa{}, ob{}, oc{};
    const bool ok = detail::as_operand(m, k, a.stride(1), a.stride(2), oa) &&
                    detail::as_operand(k, n, b.stride(1), b.stride(2), ob) &&
                    detail::as_operand(m, n, out.stride(1), out.stride(2), oc) && oc.op == CUBLAS_OP_N;
    tensorlib::detail::check<ValueError>(ok, op,
                                         ": cuBLAS needs operands with contiguous rows or columns (got strides ",
                                         a.strides(), ", ", b.strides(), " and ", out.strides(), ")");
    constexpr int64_t int_max = std::numeric_limits<int>::max();
    const bool fits = std::max({batch, m, n, k, oa.ld, ob.ld, oc.ld}) <= int_max;
    tensorlib::detail::check<ValueError>(fits, op, ": cuBLAS takes sizes and leading dimensions below 2^31 (got ",
                                         a.sizes(), " @ ", b.sizes(), ")");
    cublasHandle_t h = detail::cublas_handle(device);
    detail::check_cublas(cublasSetStream(h, current_stream(device).handle()), "cublasSetStream");
    const auto i = [](int64_t v) { return static_cast<int>(v); };
    // C^T (n, m) = B^T (n, k) A^T (k, m), Note [row-major cuBLAS].
    if constexpr (std::is_same_v<T, float>) {
      detail::check_cublas(cublasSetMathMode(h, allow_tf32() ? CUBLAS_TF32_TENSOR_OP_MATH : CUBLAS_DEFAULT_MATH),
                           "cublasSetMathMode");
      detail::check_cublas(cublasSgemmStridedBatched(h, ob.op, oa.op, i(n), i(m), i(k), &alpha, b.data_ptr(), i(ob.ld),
                                                     b.stride(0), a.data_ptr(), i(oa.ld), a.stride(0), &beta,
                                                     out.data_ptr(), i(oc.ld), out.stride(0), i(batch)),
                           "cublasSgemmStridedBatched");
    } else if constexpr (is_reduced_float<T>) {
      // Half and bfloat16 products accumulate in float (Note [reduced floats]).
      constexpr cudaDataType_t type = std::is_same_v<T, Half> ? CUDA_R_16F : CUDA_R_16BF;
      const float alpha32 = alpha, beta32 = beta;
      detail::check_cublas(cublasSetMathMode(h, CUBLAS_DEFAULT_MATH), "cublasSetMathMode");
      detail::check_cublas(
          cublasGemmStridedBatchedEx(h, ob.op, oa.op, i(n), i(m), i(k), &alpha32, b.data_ptr(), type, i(ob.ld),
                                     b.stride(0), a.data_ptr(), type, i(oa.ld), a.stride(0), &beta32, out.data_ptr(),
                                     type, i(oc.ld), out.stride(0), i(batch), CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
          "cublasGemmStridedBatchedEx");
    } else {
      detail::check_cublas(cublasDgemmStridedBatched(h, ob.op, oa.op, i(n), i(m), i(k), &alpha, b.data_ptr(), i(ob.ld),
                                                     b.stride(0), a.data_ptr(), i(oa.ld), a.stride(0), &beta,
                                                     out.data_ptr(), i(oc.ld), out.stride(0), i(batch)),
                           "cublasDgemmStridedBatched");
    }
  }
}

}  // namespace tensorlib::cuda
