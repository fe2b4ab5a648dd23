#pragma once
/// \file
/// `Storage`: the reference-counted buffer that tensors and their views share
/// (PyTorch's StorageImpl). It knows bytes and device, not element types.

#include <atomic>
#include <cstdint>
#include <memory>
#include <utility>

#include "tensorlib/core/allocator.hpp"
#include "tensorlib/core/error.hpp"
#include "tensorlib/core/tensor_options.hpp"

namespace tensorlib {

/// A shared, untyped buffer. Copies of a `Storage` alias the same bytes.
class Storage {
 public:
  Storage() = default;

  /// Allocates `nbytes` on `device` with the registered allocator.
  Storage(int64_t nbytes, Device device)
      : impl_(std::make_shared<Impl>(allocator_for(device).allocate(nbytes, device), nbytes)) {}

  /// Adopts an existing buffer (used by `from_blob`).
  Storage(DataPtr data, int64_t nbytes) : impl_(std::make_shared<Impl>(std::move(data), nbytes)) {}

  bool defined() const noexcept { return impl_ != nullptr; }
  void* data() const noexcept { return impl_ ? impl_->data.get() : nullptr; }
  /// The allocator's handle of the buffer (the storage must be defined).
  const DataPtr& buffer() const noexcept { return impl_->data; }
  int64_t nbytes() const noexcept { return impl_ ? impl_->nbytes : 0; }
  Device device() const noexcept { return impl_ ? impl_->data.device() : Device{}; }
  long use_count() const noexcept { return impl_.use_count(); }

  /// How many in-place writes this buffer has seen. Views share their base's
  /// storage and so its counter (PyTorch's version counter); autograd
  /// compares it with the value recorded when a tensor was saved.
  uint32_t version() const noexcept { return impl_ ? impl_->version.load(std::memory_order_relaxed) : 0; }
  /// Records an in-place write.
  void bump_version() const noexcept {
    if (impl_) impl_->version.fetch_add(1, std::memory_order_relaxed);
  }

  /// True when both handles share one buffer.
  bool is_alias_of(const Storage& other) const noexcept { return impl_ && impl_ == other.impl_; }

  /// Swaps in a new buffer of `nbytes` (its first bytes already copied by the
  /// caller): every tensor sharing this storage then reads it, as after
  /// PyTorch's StorageImpl::set_data_ptr. Used by `resize_` to grow a storage.
  void replace_buffer(DataPtr data, int64_t nbytes) const {
    impl_->data = std::move(data);
    impl_->nbytes = nbytes;
  }

 private:
  struct Impl {
    Impl(DataPtr d, int64_t n) : data(std::move(d)), nbytes(n) {}
    DataPtr data;
    int64_t nbytes;
    std::atomic<uint32_t> version{0};
  };
  std::shared_ptr<Impl> impl_;
};

namespace detail {

/// Storage of `nbytes` for a new tensor with `options`: pinned host memory
/// when `options.pin_memory` (CPU only, PyTorch's `pin_memory=True`).
inline Storage make_storage(int64_t nbytes, const TensorOptions& options, const char* op) {
  if (!options.pin_memory) return Storage(nbytes, options.device);
  check<DeviceError>(options.device.is_cpu(), op, ": only CPU tensors can be pinned, not ", options.device);
  Allocator* pinned = pinned_allocator_slot();
  check<DeviceError>(pinned != nullptr, op, ": pinned memory needs the CUDA runtime and a GPU");
  return Storage(pinned->allocate(nbytes), nbytes);
}

}  // namespace detail

}  // namespace tensorlib
