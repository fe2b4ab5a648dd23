#pragma once
/// \file
/// The one place where raw operations pick a backend by device (STYLE 11).
/// CUDA joins here: a translation unit compiled by nvcc with the CUDA backend
/// included runs fused expressions as kernels; any other translation unit
/// gets a clear error instead of a silent host loop over device memory.

#include "tensorlib/backend/cpu/fill.hpp"
#include "tensorlib/backend/cpu/gemm.hpp"
#include "tensorlib/backend/cpu/pointwise.hpp"
#include "tensorlib/backend/cpu/softmax.hpp"
#include "tensorlib/core/error.hpp"
#include "tensorlib/core/tensor.hpp"

namespace tensorlib::detail {

[[noreturn]] inline void no_cuda_backend(const char* op) {
  throw DeviceError(std::string(op) +
                    ": CUDA tensors need the CUDA backend, and fused expressions on them need this translation unit "
                    "to be compiled with nvcc");
}

/// Evaluates a pointwise expression into `out` on `out`'s device.
template <Element T, class E>
void dispatch_pointwise(const Tensor<T>& out, const E& expr) {
  switch (out.device().type) {
    case DeviceType::CPU:
      cpu::run_pointwise(out, expr);
      return;
    case DeviceType::CUDA:
      no_cuda_backend("pointwise");
  }
}

/// Sets every element of `out` to `value` on `out`'s device.
template <Element T>
void dispatch_fill(const Tensor<T>& out, T value) {
  switch (out.device().type) {
    case DeviceType::CPU:
      cpu::fill(out, value);
      return;
    case DeviceType::CUDA:
      no_cuda_backend("fill_");
  }
}

/// Runs `cpu_kernel` (a host loop over the tensors' memory) for an op that
/// has no CUDA kernel yet; on a CUDA device it is a DeviceError naming `op`.
template <class F>
void dispatch_cpu_only(Device device, const char* op, F&& cpu_kernel) {
  switch (device.type) {
    case DeviceType::CPU:
      cpu_kernel();
      return;
    case DeviceType::CUDA:
      no_cuda_backend(op);
  }
}

/// y = softmax(x) (Log: log_softmax) along the last dimension, both
/// contiguous with x's shape, on x's device.
template <bool Log, Element T>
void dispatch_softmax_rows(const Tensor<T>& x, const Tensor<T>& y) {
  switch (x.device().type) {
    case DeviceType::CPU: {
      const int64_t cols = x.size(-1);
      cpu::softmax_rows<Log>(x.data_ptr(), y.data_ptr(), x.numel() / cols, cols);
      return;
    }
    case DeviceType::CUDA:
      no_cuda_backend(Log ? "log_softmax" : "softmax");
  }
}

/// out[i] = alpha * a[i] @ b[i] + beta * out[i] for 3-d tensors (batch, rows,
/// cols) of any strides on one device; beta == 0 does not read `out`. The
/// caller checks shapes and devices, and that `out` overlaps neither input.
template <Element T>
void dispatch_bmm(const Tensor<T>& out, const Tensor<T>& a, const Tensor<T>& b, T alpha, T beta, const char* op) {
  switch (out.device().type) {
    case DeviceType::CPU: {
      using cpu::MatrixView;
      const MatrixView<const T> av{a.data_ptr(), a.size(1), a.size(2), a.stride(1), a.stride(2)};
      const MatrixView<const T> bv{b.data_ptr(), b.size(1), b.size(2), b.stride(1), b.stride(2)};
      const MatrixView<T> cv{out.data_ptr(), out.size(1), out.size(2), out.stride(1), out.stride(2)};
      cpu::gemm_batched(out.size(0), alpha, av, a.stride(0), bv, b.stride(0), beta, cv, out.stride(0));
      return;
    }
    case DeviceType::CUDA:
      no_cuda_backend(op);
  }
}

}  // namespace tensorlib::detail
