#pragma once
/// \file
/// `Tensor::resize_`: PyTorch's resize_, which reshapes a tensor in place
/// without regard to its elements. The new sizes get contiguous strides from
/// the tensor's offset; when the storage is too small it grows: a new buffer
/// (on the storage's device) receives the old bytes and replaces the old one
/// under every tensor sharing the storage, as PyTorch's StorageImpl does.
/// Elements beyond the old bytes are uninitialized.

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "tensorlib/core/allocator.hpp"
#include "tensorlib/core/error.hpp"
#include "tensorlib/core/shape.hpp"
#include "tensorlib/core/tensor.hpp"
#include "tensorlib/ops/dispatch.hpp"

namespace tensorlib {

template <Element T>
Tensor<T>& Tensor<T>::resize_(const Shape& new_sizes) {
  checked();
  TensorImpl& impl = *impl_;
  detail::check<AutogradError>(!impl.requires_grad(), "resize_: cannot resize variables that require grad");
  for (int64_t s : new_sizes)
    detail::check<ValueError>(s >= 0, "resize_: Trying to create tensor with negative dimension ", s, ": ", new_sizes);
  const int64_t needed = (impl.offset + new_sizes.numel()) * static_cast<int64_t>(sizeof(T));
  if (new_sizes.numel() > 0 && needed > impl.storage.nbytes()) {
    const Device device = impl.storage.defined() ? impl.storage.device() : Device(kCPU);
    DataPtr grown = allocator_for(device).allocate(needed, device);
    const auto old_bytes = static_cast<std::size_t>(impl.storage.nbytes());
    if (old_bytes > 0 && device.is_cpu())
      std::memcpy(grown.get(), impl.storage.data(), old_bytes);
    else if (old_bytes > 0)
      detail::dispatch_copy_bytes(grown.get(), device, impl.storage.data(), device, old_bytes, false);
    if (impl.storage.defined())
      impl.storage.replace_buffer(std::move(grown), needed);
    else
      impl.storage = Storage(std::move(grown), needed);
  }
  Shape strides;
  strides.resize(static_cast<int64_t>(new_sizes.size()));
  int64_t stride = 1;
  for (int64_t d = static_cast<int64_t>(new_sizes.size()) - 1; d >= 0; --d) {
    strides[d] = stride;
    stride *= std::max<int64_t>(new_sizes[d], 1);
  }
  impl.sizes = new_sizes;
  impl.strides = strides;
  return *this;
}

}  // namespace tensorlib
