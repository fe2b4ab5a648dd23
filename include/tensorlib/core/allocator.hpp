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
};

/// Host memory aligned to 64 bytes (a cache line, and the widest SIMD load),
/// counted in `tl::stats`.
class CpuAllocator final : public Allocator {
 public:
  static constexpr std::size_t kAlignment = 64;

  DataPtr allocate(int64_t nbytes) override {
    if (nbytes == 0) return DataPtr(nullptr, nullptr, nullptr, Device(kCPU));
    void* p = ::operator new (static_cast<std::size_t>(nbytes), std::align_val_t{kAlignment});
    stats::detail::count_allocation(nbytes);
    // The size travels in the context pointer so the deleter can count it.
    return DataPtr(p, reinterpret_cast<void*>(static_cast<std::uintptr_t>(nbytes)), &free, Device(kCPU));
  }

 private:
  static void free(void* p, void* context) {
    ::operator delete (p, std::align_val_t{kAlignment});
    stats::detail::count_free(static_cast<int64_t>(reinterpret_cast<std::uintptr_t>(context)));
  }
};

namespace detail {

inline std::array<Allocator*, 2>& allocator_table() {
  static CpuAllocator cpu;
  static std::array<Allocator*, 2> table{&cpu, nullptr};
  return table;
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
