#pragma once
/// \file
/// The one place where raw operations pick a backend by device (STYLE 11).
/// CUDA joins here: a translation unit compiled by nvcc with the CUDA backend
/// included runs fused expressions as kernels; any other translation unit
/// gets a clear error instead of a silent host loop over device memory.

#include "tensorlib/backend/cpu/fill.hpp"
#include "tensorlib/backend/cpu/pointwise.hpp"
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

}  // namespace tensorlib::detail
