#pragma once
/// \file
/// Pinned (page-locked) host memory for fast, truly asynchronous copies
/// (PyTorch's CachingHostAllocator, smaller): `Tensor::pin_memory()` and
/// `is_pinned()`, and the output of a non-blocking device-to-host copy.
///
/// Note [pinned blocks]
/// `cudaHostAlloc` costs milliseconds, so freed blocks are cached by size
/// (requests round up to a power of two, 512 bytes at least) and handed out
/// again. A copy from or to pinned memory returns before the device has read
/// or written it, so a block must not be reused while such a copy is in
/// flight: every non-blocking copy that touches a pinned block records an
/// event on its stream (`record_host_use`), and a cached block is handed out
/// only once all its events have completed. `empty_host_cache()` gives the
/// cached blocks back with `cudaFreeHost`.

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <map>
#include <mutex>
#include <vector>

#include "tensorlib/backend/cuda/runtime.hpp"
#include "tensorlib/core/allocator.hpp"

namespace tensorlib::cuda {
namespace detail {

class PinnedAllocator final : public Allocator {
 public:
  using Allocator::allocate;
  DataPtr allocate(int64_t nbytes) override {
    require_gpu("pin_memory");
    const std::size_t size = round_up(static_cast<std::size_t>(nbytes));
    std::lock_guard lock(mutex_);
    Block* block = nullptr;
    auto& free_list = free_[size];
    for (auto it = free_list.begin(); it != free_list.end(); ++it) {
      if (events_done(**it)) {
        block = *it;
        free_list.erase(it);
        break;
      }
    }
    if (block == nullptr) {
      void* p = nullptr;
      check(cudaHostAlloc(&p, size, cudaHostAllocDefault), "cudaHostAlloc");
      block = new Block{p, size, {}};
      blocks_.emplace(reinterpret_cast<std::uintptr_t>(p), block);
    }
    return DataPtr(block->ptr, this, &PinnedAllocator::release, Device(kCPU));
  }

  /// True when host address `p` lies in a pinned block of this allocator.
  bool owns(const void* p) override {
    std::lock_guard lock(mutex_);
    return find(p) != nullptr;
  }

  /// Records that `stream` will read or write the pinned memory at `p` (no
  /// effect on other memory): the block is not reused before that work ends.
  void record_use(const void* p, cudaStream_t stream) {
    std::lock_guard lock(mutex_);
    Block* block = find(p);
    if (block == nullptr) return;
    prune(*block);  // a long-lived buffer copied every step keeps few events
    cudaEvent_t e = nullptr;
    check(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), "cudaEventCreateWithFlags");
    check(cudaEventRecord(e, stream), "cudaEventRecord");
    block->events.push_back(e);
  }

  /// Frees the cached blocks whose copies have completed.
  void empty_cache() {
    std::lock_guard lock(mutex_);
    for (auto& [size, list] : free_) {
      for (auto it = list.begin(); it != list.end();) {
        if (!events_done(**it)) {
          ++it;
          continue;
        }
        Block* b = *it;
        blocks_.erase(reinterpret_cast<std::uintptr_t>(b->ptr));
        (void)cudaFreeHost(b->ptr);
        delete b;
        it = list.erase(it);
      }
    }
  }

  /// Bytes in cached (free) blocks.
  int64_t cached_bytes() {
    std::lock_guard lock(mutex_);
    int64_t n = 0;
    for (const auto& [size, list] : free_) n += static_cast<int64_t>(size * list.size());
    return n;
  }

 private:
  struct Block {
    void* ptr;
    std::size_t size;
    std::vector<cudaEvent_t> events;
  };

  static std::size_t round_up(std::size_t n) {
    std::size_t s = 512;
    while (s < n) s *= 2;
    return s;
  }

  // Destroys the finished events of `b`.
  static void prune(Block& b) {
    for (auto it = b.events.begin(); it != b.events.end();) {
      if (finished(cudaEventQuery(*it), "cudaEventQuery")) {
        (void)cudaEventDestroy(*it);
        it = b.events.erase(it);
      } else {
        ++it;
      }
    }
  }
  // True when no copy recorded on `b` is still running.
  static bool events_done(Block& b) {
    prune(b);
    return b.events.empty();
  }

  Block* find(const void* p) const {
    const auto addr = reinterpret_cast<std::uintptr_t>(p);
    auto it = blocks_.upper_bound(addr);
    if (it == blocks_.begin()) return nullptr;
    --it;
    return addr < it->first + it->second->size ? it->second : nullptr;
  }

  static void release(void* data, void* context) {
    auto* self = static_cast<PinnedAllocator*>(context);
    std::lock_guard lock(self->mutex_);
    Block* b = self->find(data);
    self->free_[b->size].push_back(b);
  }

  std::mutex mutex_;
  std::map<std::uintptr_t, Block*> blocks_;          // every block, by address
  std::map<std::size_t, std::vector<Block*>> free_;  // cached blocks by size
};

/// The process's pinned-memory allocator (never destroyed: tensors may
/// outlive static destruction).
inline PinnedAllocator& pinned_allocator() {
  static auto* a = new PinnedAllocator();
  return *a;
}

/// Set before main in every translation unit with the CUDA runtime.
inline const bool pinned_allocator_registered =
    (tensorlib::detail::pinned_allocator_slot() = &pinned_allocator(), true);

}  // namespace detail

/// Gives cached pinned host blocks back to the driver (those no copy still uses).
inline void empty_host_cache() { detail::pinned_allocator().empty_cache(); }

/// Bytes of pinned host memory cached for reuse.
inline int64_t host_cached_bytes() { return detail::pinned_allocator().cached_bytes(); }

}  // namespace tensorlib::cuda
