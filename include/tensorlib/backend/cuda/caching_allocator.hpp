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
/// stream is reused only by that stream (Note [current stream]).
///
/// Note [record_stream]
/// A tensor used on a stream other than the one it was allocated on must not
/// have its memory handed out again before that stream's work on it is done.
/// `tl::cuda::record_stream(tensor, stream)` (PyTorch's
/// `Tensor.record_stream`) notes the stream on the block; when the block is
/// freed, an event is recorded on each noted stream and the block waits in a
/// pending list, not in the pool, until all its events have completed. The
/// list is looked at on every allocation of the device and drained (waiting)
/// by `empty_cache`. `memory_allocated` drops at the free, as in PyTorch.

#include <cuda_runtime_api.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <set>
#include <tuple>
#include <utility>
#include <vector>

#include "tensorlib/backend/cuda/runtime.hpp"
#include "tensorlib/core/allocator.hpp"
#include "tensorlib/core/tensor.hpp"

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
  std::vector<Stream> stream_uses;  // other streams using it, kept alive (Note [record_stream])
  int pending_events = 0;           // events of a freed block not yet completed
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
  std::vector<std::pair<cudaEvent_t, Block*>> pending;  // Note [record_stream]
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

  /// Gives every fully free cached segment of every device back to CUDA,
  /// after waiting for the blocks pending on other streams.
  void empty_cache() {
    for (int d = 0; d < device_count(); ++d) {
      auto& p = pools_[static_cast<std::size_t>(d)];
      std::lock_guard lock(p.mutex);
      DeviceGuard guard(d);
      process_events(p, true);
      release_free_segments(p, p.small);
      release_free_segments(p, p.large);
    }
  }

  /// Notes that the memory of `data` is used on `stream` (Note
  /// [record_stream]); nothing for its own stream or another allocator's
  /// buffer.
  void record_stream(const DataPtr& data, const Stream& stream) {
    if (data.get() == nullptr || data.deleter_fn() != &free_block) return;  // not ours (from_blob): nothing to defer
    auto* b = static_cast<detail::Block*>(data.context());
    auto& p = pools_[static_cast<std::size_t>(b->device)];
    std::lock_guard lock(p.mutex);
    if (stream.handle() != b->stream &&
        std::find(b->stream_uses.begin(), b->stream_uses.end(), stream) == b->stream_uses.end())
      b->stream_uses.push_back(stream);
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
    process_events(p, false);
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
      auto* r = new detail::Block{d,           stream, rest, static_cast<char*>(block->ptr) + size, false, small, block,
                                  block->next, {},     0};
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
    if (status == cudaErrorMemoryAllocation) {  // wait for pending blocks, give the cache back, try once more
      (void)cudaGetLastError();
      process_events(p, true);
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
    return new detail::Block{d, stream, bytes, ptr, false, small, nullptr, nullptr, {}, 0};
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
    p.stats.allocated_bytes -= static_cast<int64_t>(b->size);
    if (b->stream_uses.empty()) return return_block(p, b);
    // Used on other streams: pending until their work so far is done. A
    // deleter must not throw: if an event cannot be recorded (the context
    // is broken), the block is never handed out again.
    DeviceGuard guard(b->device);
    std::vector<cudaEvent_t> events;
    bool ok = true;
    for (const Stream& s : b->stream_uses) {
      cudaEvent_t e = nullptr;
      ok = cudaEventCreateWithFlags(&e, cudaEventDisableTiming) == cudaSuccess;
      if (ok) events.push_back(e);
      ok = ok && cudaEventRecord(e, s.handle()) == cudaSuccess;
      if (!ok) break;
    }
    b->stream_uses.clear();
    if (!ok) {
      (void)cudaGetLastError();
      for (cudaEvent_t e : events) (void)cudaEventDestroy(e);
      return;
    }
    for (cudaEvent_t e : events) p.pending.emplace_back(e, b);
    b->pending_events = static_cast<int>(events.size());
  }

  // Returns the blocks whose events have all completed to the pool; with
  // `wait`, waits for every event first. Never throws: an event that
  // reports an error counts as completed (the work it marks cannot run).
  static void process_events(detail::DevicePools& p, bool wait) {
    std::size_t kept = 0;
    for (std::size_t i = 0; i < p.pending.size(); ++i) {
      const auto [event, block] = p.pending[i];
      const cudaError_t status = wait ? cudaEventSynchronize(event) : cudaEventQuery(event);
      if (status == cudaErrorNotReady) {
        (void)cudaGetLastError();
        p.pending[kept++] = p.pending[i];
        continue;
      }
      if (status != cudaSuccess) (void)cudaGetLastError();
      (void)cudaEventDestroy(event);
      if (--block->pending_events == 0) return_block(p, block);
    }
    p.pending.resize(kept);
  }

  // A free block back in its pool, merged with free neighbours.
  static void return_block(detail::DevicePools& p, detail::Block* b) {
    auto& pool = b->small ? p.small : p.large;
    b->allocated = false;
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
/// Marks the memory of CUDA tensor `t` as used by `stream`, so that once
/// `t`'s storage is freed it is not reused before the work queued on
/// `stream` by then has finished (PyTorch's `Tensor.record_stream`; Note
/// [record_stream]).
template <Element T>
void record_stream(const Tensor<T>& t, const Stream& stream) {
  tensorlib::detail::check<DeviceError>(t.is_cuda(), "record_stream: expected a CUDA tensor, got one on ", t.device());
  tensorlib::detail::check<DeviceError>(stream.device_index() == t.device().index,
                                        "record_stream: the stream is on cuda:", stream.device_index(),
                                        " but the tensor on ", t.device());
  CachingAllocator::instance().record_stream(t.storage().buffer(), stream);
}

/// Returns cached, unused segments to CUDA (tensors in use keep theirs).
inline void empty_cache() {
  if (is_available()) CachingAllocator::instance().empty_cache();
}

}  // namespace tensorlib::cuda
