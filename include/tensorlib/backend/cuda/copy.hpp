#pragma once
/// \file
/// Byte copies between host and device memory, or between devices, on the
/// current stream of the device involved (Note [current stream]). Host
/// memory is pageable: a blocking copy waits for the stream; a non-blocking
/// one returns at once and the caller keeps both buffers alive and
/// untouched until the stream has run it (PyTorch's `non_blocking`).

#include <cuda_runtime_api.h>

#include <cstddef>

#include "tensorlib/backend/cuda/runtime.hpp"
#include "tensorlib/core/device.hpp"

namespace tensorlib::cuda {

/// Copies `nbytes` from `src` on `src_device` to `dst` on `dst_device`
/// (at least one of them a CUDA device with its index resolved).
inline void copy_bytes(void* dst, Device dst_device, const void* src, Device src_device, std::size_t nbytes,
                       bool non_blocking) {
  if (nbytes == 0) return;
  const Device gpu = dst_device.is_cuda() ? dst_device : src_device;
  DeviceGuard guard(gpu);
  const Stream stream = current_stream(device_index(gpu));
  if (dst_device.is_cuda() && src_device.is_cuda() && dst_device.index != src_device.index) {
    detail::check(cudaMemcpyPeerAsync(dst, dst_device.index, src, src_device.index, nbytes, stream.handle()),
                  "cudaMemcpyPeerAsync");
  } else {
    detail::check(cudaMemcpyAsync(dst, src, nbytes, cudaMemcpyDefault, stream.handle()), "cudaMemcpyAsync");
  }
  if (!non_blocking) stream.synchronize();
}

}  // namespace tensorlib::cuda
