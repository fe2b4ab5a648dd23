#pragma once
/// \file
/// `DataPtr` (an owning pointer with a type-erased deleter), the `Allocator`
/// interface, the 64-byte-aligned CPU allocator and the per-device registry
/// through which other backends (CUDA) plug in their allocators.

#include <array>
#include <cstddef>
#include <cstdint>
#include <new>
#include <utility>

#if defined(__linux__)
#include <sys/mman.h>
#endif

#include "tensorlib/core/device.hpp"
#include "tensorlib/core/error.hpp"
#include "tensorlib/core/stats.hpp"

namespace tensorlib {

/// Frees `data`; `context` is whatever the allocator or user attached.
using DeleterFn = void (*)(void* data, void* context);

/// Move-only owner of a buffer on some device.
class DataPtr {
 public:
  DataPtr() = default;
  DataPtr(void* data, void* context, DeleterFn deleter, Device device)
      : data_(data), context_(context), deleter_(deleter), device_(device) {}
  DataPtr(DataPtr&& o) noexcept { swap(o); }
  DataPtr& operator=(DataPtr&& o) noexcept {
    DataPtr tmp(std::move(o));
    swap(tmp);
    return *this;
  }
  DataPtr(const DataPtr&) = delete;
  DataPtr& operator=(const DataPtr&) = delete;
  ~DataPtr() {
    if (deleter_) deleter_(data_, context_);
  }

  void* get() const noexcept { return data_; }
  Device device() const noexcept { return device_; }
  /// What the allocator handed out with the buffer, and its deleter (an
  /// allocator recognises its own buffers by the deleter).
  void* context() const noexcept { return context_; }
  DeleterFn deleter_fn() const noexcept { return deleter_; }

 private:
  void swap(DataPtr& o) noexcept {
    std::swap(data_, o.data_);
    std::swap(context_, o.context_);
    std::swap(deleter_, o.deleter_);
    std::swap(device_, o.device_);
  }

  void* data_ = nullptr;
  void* context_ = nullptr;
  DeleterFn deleter_ = nullptr;
  Device device_{};
};

/// Source of device memory. Implementations must be thread-safe.
class Allocator {
 public:
  virtual ~Allocator() = default;
  /// Returns a buffer of at least `nbytes` bytes (nbytes may be 0).
  virtual DataPtr allocate(int64_t nbytes) = 0;
  /// The same on a given device of this allocator's kind (an index of -1
  /// means the current one); allocators of one-device kinds ignore it.
  virtual DataPtr allocate(int64_t nbytes, Device /*device*/) { return allocate(nbytes); }
  /// True when `p` lies in a buffer this allocator handed out (answered by
  /// the pinned host allocator, for `Tensor::is_pinned`).
  virtual bool owns(const void* /*p*/) { return false; }
};

/// Host memory aligned to 64 bytes (a cache line, and the widest SIMD load),
/// counted in `tl::stats`. Blocks of 4 MiB and more are aligned to 2 MiB and
/// offered to the kernel as transparent huge pages (Note [huge pages]).
///
/// Note [huge pages]
/// A fresh large block is an mmap whose every 4 KiB page faults on first
/// touch: ~20 ms for a 64 MiB result, more than the fused loop that writes it.
/// With 2 MiB pages (madvise(MADV_HUGEPAGE), honoured when the system's THP
/// mode is "madvise" or "always") there are 512x fewer faults. Elsewhere, or
/// when the kernel declines, the block is an ordinary one.
class CpuAllocator final : public Allocator {
 public:
  using Allocator::allocate;
  static constexpr std::size_t kAlignment = 64;
  static constexpr std::size_t kHugePage = std::size_t{2} << 20;
  static constexpr std::size_t kHugeThreshold = std::size_t{4} << 20;

  DataPtr allocate(int64_t nbytes) override {
    if (nbytes == 0) return DataPtr(nullptr, nullptr, nullptr, Device(kCPU));
    const auto n = static_cast<std::size_t>(nbytes);
    void* p = ::operator new (n, std::align_val_t{alignment_for(n)}, std::nothrow);
    detail::check<Error>(p != nullptr, "DefaultCPUAllocator: not enough memory: you tried to allocate ", nbytes,
                         " bytes.");
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    if (n >= kHugeThreshold) ::madvise(p, n, MADV_HUGEPAGE);  // advisory: failure leaves small pages
#endif
    stats::detail::count_allocation(nbytes);
    // The size travels in the context pointer so the deleter can count it.
    return DataPtr(p, reinterpret_cast<void*>(static_cast<std::uintptr_t>(nbytes)), &free, Device(kCPU));
  }

 private:
  static constexpr std::size_t alignment_for(std::size_t n) { return n >= kHugeThreshold ? kHugePage : kAlignment; }
  static void free(void* p, void* context) {
    const auto n = static_cast<std::size_t>(reinterpret_cast<std::uintptr_t>(context));
    ::operator delete (p, std::align_val_t{alignment_for(n)});
    stats::detail::count_free(static_cast<int64_t>(n));
  }
};

namespace detail {

inline std::array<Allocator*, 2>& allocator_table() {
  static CpuAllocator cpu;
  static std::array<Allocator*, 2> table{&cpu, nullptr};
  return table;
}

}  // namespace detail

namespace detail {

/// The allocator of pinned (page-locked) host memory: null until the CUDA
/// runtime registers one (backend/cuda/host_allocator.hpp).
inline Allocator*& pinned_allocator_slot() {
  static Allocator* pinned = nullptr;
  return pinned;
}

}  // namespace detail

/// Installs the allocator used for a device type (the CUDA backend registers
/// its caching allocator here). Not thread-safe with concurrent allocation.
inline void set_allocator(DeviceType type, Allocator* allocator) {
  detail::allocator_table()[static_cast<std::size_t>(type)] = allocator;
}

/// The allocator for a device; a clear error when that backend is absent.
inline Allocator& allocator_for(Device device) {
  Allocator* a = detail::allocator_table()[static_cast<std::size_t>(device.type)];
  detail::check<DeviceError>(a != nullptr, "allocate: no allocator for device ", device,
                             " (is the CUDA backend included and a GPU present?)");
  return *a;
}

}  // namespace tensorlib
