#pragma once
/// \file
/// The stream-ordered caching allocator for CUDA memory (PyTorch's
/// CUDACachingAllocator, smaller): freed blocks return to a per-device pool
/// and are handed to later allocations on the same stream, so a training
/// loop reaches a steady state with no `cudaMalloc`/`cudaFree` at all.
/// Never managed memory. Public statistics: `memory_allocated`,
/// `memory_reserved`, `max_memory_allocated`, `reset_peak_memory_stats`,
/// `memory_stats`, and `empty_cache` to give cached segments back.
///
/// Note [size classes]
/// Requests are rounded up to 512 bytes. Up to 1 MiB they come from the
/// small pool, whose segments are 2 MiB; larger ones from the large pool,
/// whose segments are 20 MiB below 10 MiB and the request rounded up to
/// 2 MiB above. A block larger than the request is split when the rest is
/// worth keeping (512 bytes in the small pool, more than 1 MiB in the large
/// one), and a freed block merges with free neighbours of its segment.
/// Blocks are looked up best fit by (stream, size): a block freed on one
/// stream is reused only by that stream (Note [current stream]); using a
/// tensor on another stream needs that stream synchronized before its memory
/// is freed (PyTorch's record_stream is not provided).

#include <cuda_runtime_api.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <set>
#include <tuple>

#include "tensorlib/backend/cuda/runtime.hpp"
#include "tensorlib/core/allocator.hpp"

namespace tensorlib::cuda {

/// Counters of one device's allocator (PyTorch's memory_stats, abridged).
struct MemoryStats {
  int64_t allocated_bytes = 0;       ///< bytes in blocks handed out now
  int64_t reserved_bytes = 0;        ///< bytes in segments obtained from cudaMalloc
  int64_t peak_allocated_bytes = 0;  ///< largest allocated_bytes since the last reset
  int64_t allocations = 0;           ///< blocks handed out
  int64_t cache_hits = 0;            ///< of them, served from the pool without cudaMalloc
  int64_t segment_allocations = 0;   ///< cudaMalloc calls
  int64_t segment_frees = 0;         ///< cudaFree calls
};

namespace detail {

inline constexpr std::size_t kMinBlock = 512;
inline constexpr std::size_t kSmallSize = std::size_t{1} << 20;
inline constexpr std::size_t kSmallSegment = std::size_t{2} << 20;
inline constexpr std::size_t kLargeSegment = std::size_t{20} << 20;
inline constexpr std::size_t kMinLargeAlloc = std::size_t{10} << 20;
inline constexpr std::size_t kRoundLarge = std::size_t{2} << 20;

struct Block {
  int device = 0;
  cudaStream_t stream = nullptr;
  std::size_t size = 0;
  void* ptr = nullptr;
  bool allocated = false;
  bool small = false;
  Block* prev = nullptr;  // neighbours in the same segment
  Block* next = nullptr;
};

struct BlockOrder {
  bool operator()(const Block* a, const Block* b) const {
    return std::tie(a->stream, a->size, a->ptr) < std::tie(b->stream, b->size, b->ptr);
  }
};

// One device's pools and counters, under one mutex.
struct DevicePools {
  std::mutex mutex;
  std::set<Block*, BlockOrder> small;
  std::set<Block*, BlockOrder> large;
  MemoryStats stats;
};

inline std::size_t round_size(std::size_t n) {
  return n < kMinBlock ? kMinBlock : (n + kMinBlock - 1) / kMinBlock * kMinBlock;
}

inline std::size_t segment_size(std::size_t n) {
  if (n <= kSmallSize) return kSmallSegment;
  if (n < kMinLargeAlloc) return kLargeSegment;
  return (n + kRoundLarge - 1) / kRoundLarge * kRoundLarge;
}

}  // namespace detail

/// The allocator registered for `kCUDA` (see `tl::set_allocator`).
class CachingAllocator final : public Allocator {
 public:
  DataPtr allocate(int64_t nbytes) override { return allocate(nbytes, Device(kCUDA)); }

  DataPtr allocate(int64_t nbytes, Device device) override {
    detail::require_gpu("allocate");
    const int d = device_index(device);
    tensorlib::detail::check<DeviceError>(d < device_count(), "allocate: ", device, " does not exist (", device_count(),
                                          " visible GPU(s))");
    if (nbytes == 0) return DataPtr(nullptr, nullptr, nullptr, Device(kCUDA, static_cast<int8_t>(d)));
    detail::Block* block = get_block(d, current_stream(d).handle(), static_cast<std::size_t>(nbytes));
    return DataPtr(block->ptr, block, &free_block, Device(kCUDA, static_cast<int8_t>(d)));
  }

  /// Gives every fully free cached segment of every device back to CUDA.
  void empty_cache() {
    for (int d = 0; d < device_count(); ++d) {
      auto& p = pools_[static_cast<std::size_t>(d)];
      std::lock_guard lock(p.mutex);
      DeviceGuard guard(d);
      release_free_segments(p, p.small);
      release_free_segments(p, p.large);
    }
  }

  MemoryStats stats(int device) {
    auto& p = pools_[static_cast<std::size_t>(device)];
    std::lock_guard lock(p.mutex);
    return p.stats;
  }

  void reset_peak(int device) {
    auto& p = pools_[static_cast<std::size_t>(device)];
    std::lock_guard lock(p.mutex);
    p.stats.peak_allocated_bytes = p.stats.allocated_bytes;
  }

  /// The process-wide instance, registered for kCUDA on first use. Never
  /// destroyed: tensors with static lifetime may free after main returns.
  static CachingAllocator& instance() {
    static CachingAllocator* a = [] {
      auto* p = new CachingAllocator;
      set_allocator(kCUDA, p);
      return p;
    }();
    return *a;
  }

 private:
  detail::Block* get_block(int d, cudaStream_t stream, std::size_t request) {
    auto& p = pools_[static_cast<std::size_t>(d)];
    const std::size_t size = detail::round_size(request);
    const bool small = size <= detail::kSmallSize;
    auto& pool = small ? p.small : p.large;
    std::lock_guard lock(p.mutex);
    detail::Block key;
    key.stream = stream;
    key.size = size;
    detail::Block* block = nullptr;
    if (auto it = pool.lower_bound(&key); it != pool.end() && (*it)->stream == stream) {
      block = *it;
      pool.erase(it);
      ++p.stats.cache_hits;
    } else {
      block = new_segment(p, d, stream, size, small);
    }
    // Split off the rest when it is worth keeping (Note [size classes]).
    const std::size_t rest = block->size - size;
    if (small ? rest >= detail::kMinBlock : rest > detail::kSmallSize) {
      auto* r =
          new detail::Block{d, stream, rest, static_cast<char*>(block->ptr) + size, false, small, block, block->next};
      if (block->next) block->next->prev = r;
      block->next = r;
      block->size = size;
      pool.insert(r);
    }
    block->allocated = true;
    p.stats.allocated_bytes += static_cast<int64_t>(block->size);
    p.stats.peak_allocated_bytes = std::max(p.stats.peak_allocated_bytes, p.stats.allocated_bytes);
    ++p.stats.allocations;
    return block;
  }

  detail::Block* new_segment(detail::DevicePools& p, int d, cudaStream_t stream, std::size_t size, bool small) {
    const std::size_t bytes = detail::segment_size(size);
    DeviceGuard guard(d);
    void* ptr = nullptr;
    cudaError_t status = cudaMalloc(&ptr, bytes);
    if (status == cudaErrorMemoryAllocation) {  // give the cache back and try once more
      (void)cudaGetLastError();
      release_free_segments(p, p.small);
      release_free_segments(p, p.large);
      status = cudaMalloc(&ptr, bytes);
    }
    if (status == cudaErrorMemoryAllocation) {
      (void)cudaGetLastError();
      throw CudaError(tensorlib::detail::concat(
          "CUDA out of memory. Tried to allocate ", size >> 20, " MiB on cuda:", d, " (", p.stats.allocated_bytes >> 20,
          " MiB allocated, ", p.stats.reserved_bytes >> 20, " MiB reserved by tensorlib)"));
    }
    detail::check(status, "cudaMalloc");
    p.stats.reserved_bytes += static_cast<int64_t>(bytes);
    ++p.stats.segment_allocations;
    return new detail::Block{d, stream, bytes, ptr, false, small, nullptr, nullptr};
  }

  // Frees every block that is a whole free segment (no neighbours).
  static void release_free_segments(detail::DevicePools& p, std::set<detail::Block*, detail::BlockOrder>& pool) {
    for (auto it = pool.begin(); it != pool.end();) {
      detail::Block* b = *it;
      if (b->prev == nullptr && b->next == nullptr) {
        (void)cudaFree(b->ptr);
        p.stats.reserved_bytes -= static_cast<int64_t>(b->size);
        ++p.stats.segment_frees;
        delete b;
        it = pool.erase(it);
      } else {
        ++it;
      }
    }
  }

  static void free_block(void* /*data*/, void* context) {
    auto* b = static_cast<detail::Block*>(context);
    auto& p = instance().pools_[static_cast<std::size_t>(b->device)];
    std::lock_guard lock(p.mutex);
    auto& pool = b->small ? p.small : p.large;
    b->allocated = false;
    p.stats.allocated_bytes -= static_cast<int64_t>(b->size);
    // Merge with free neighbours (they are in the pool, keyed by size).
    if (b->prev && !b->prev->allocated) {
      detail::Block* a = b->prev;
      pool.erase(a);
      a->size += b->size;
      a->next = b->next;
      if (b->next) b->next->prev = a;
      delete b;
      b = a;
    }
    if (b->next && !b->next->allocated) {
      detail::Block* c = b->next;
      pool.erase(c);
      b->size += c->size;
      b->next = c->next;
      if (c->next) c->next->prev = b;
      delete c;
    }
    pool.insert(b);
  }

  std::array<detail::DevicePools, detail::kMaxDevices> pools_;
};

namespace detail {

inline int stats_device(int device) { return device < 0 ? current_device() : device; }

// Registers the caching allocator for kCUDA when this header is included.
inline const bool caching_allocator_registered = is_available() && (CachingAllocator::instance(), true);

}  // namespace detail

/// Bytes held by tensors on `device` (-1: the current one).
inline int64_t memory_allocated(int device = -1) {
  return CachingAllocator::instance().stats(detail::stats_device(device)).allocated_bytes;
}
/// Bytes held by the allocator (tensors plus cache) on `device`.
inline int64_t memory_reserved(int device = -1) {
  return CachingAllocator::instance().stats(detail::stats_device(device)).reserved_bytes;
}
/// Peak of `memory_allocated` since start or the last reset.
inline int64_t max_memory_allocated(int device = -1) {
  return CachingAllocator::instance().stats(detail::stats_device(device)).peak_allocated_bytes;
}
/// Starts a new peak at the current allocation.
inline void reset_peak_memory_stats(int device = -1) {
  CachingAllocator::instance().reset_peak(detail::stats_device(device));
}
/// All counters of `device`.
inline MemoryStats memory_stats(int device = -1) {
  return CachingAllocator::instance().stats(detail::stats_device(device));
}
/// Returns cached, unused segments to CUDA (tensors in use keep theirs).
inline void empty_cache() {
  if (is_available()) CachingAllocator::instance().empty_cache();
}

}  // namespace tensorlib::cuda
