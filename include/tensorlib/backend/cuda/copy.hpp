#pragma once
/// \file
/// Byte copies between host and device memory, or between devices, on the
/// current stream of the device involved (Note [current stream]). A blocking
/// copy waits for the stream; a non-blocking one returns at once (truly
/// asynchronous only with pinned host memory, Note [pinned blocks]) and the
/// caller keeps the buffers untouched until the stream has run it (PyTorch's
/// `non_blocking`); a pinned block is not reused before that.

#include <cuda_runtime_api.h>

#include <cstddef>

#include "tensorlib/backend/cuda/host_allocator.hpp"
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
  if (!non_blocking) {
    stream.synchronize();
  } else {
    // A pinned block must outlive the copy (Note [pinned blocks]).
    if (!dst_device.is_cuda()) detail::pinned_allocator().record_use(dst, stream.handle());
    if (!src_device.is_cuda()) detail::pinned_allocator().record_use(src, stream.handle());
  }
}

}  // namespace tensorlib::cuda
