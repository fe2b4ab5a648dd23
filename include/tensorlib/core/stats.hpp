#pragma once
/// \file
/// `tl::stats`: counters that tests and users read to see what the library did
/// (DESIGN 3.9), e.g. that a 6-op chain ran as exactly one fused loop.

#include <atomic>
#include <cstdint>

#include "tensorlib/core/config.hpp"

namespace tensorlib::stats {

/// A snapshot of the counters. Subtract two snapshots to measure a region.
struct Counters {
  /// Fused pointwise loops run on the CPU (one per evaluated expression,
  /// however many threads shared it).
  uint64_t fused_loops = 0;
  /// Strided copies run on the CPU (contiguous(), clone(), copy_ of a tensor).
  uint64_t copies = 0;
  /// Host allocations made by the CPU allocator.
  uint64_t allocations = 0;
  /// Bytes currently held by the CPU allocator.
  int64_t bytes_in_use = 0;
  /// Largest `bytes_in_use` seen since the last reset.
  int64_t peak_bytes_in_use = 0;
  /// Fused pointwise kernels launched on a GPU (one per evaluated expression).
  uint64_t fused_kernels = 0;

  /// The counts between two snapshots; `peak_bytes_in_use` is a level, not a
  /// count, so the difference keeps the later snapshot's peak.
  friend Counters operator-(const Counters& a, const Counters& b) {
    return {a.fused_loops - b.fused_loops,   a.copies - b.copies, a.allocations - b.allocations,
            a.bytes_in_use - b.bytes_in_use, a.peak_bytes_in_use, a.fused_kernels - b.fused_kernels};
  }
};

namespace detail {

struct Registry {
  std::atomic<uint64_t> fused_loops{0};
  std::atomic<uint64_t> copies{0};
  std::atomic<uint64_t> allocations{0};
  std::atomic<int64_t> bytes_in_use{0};
  std::atomic<int64_t> peak_bytes_in_use{0};
  std::atomic<uint64_t> fused_kernels{0};
};

inline Registry& registry() {
  static Registry r;
  return r;
}

inline void count_fused_loop() { registry().fused_loops.fetch_add(1, std::memory_order_relaxed); }
inline void count_fused_kernel() { registry().fused_kernels.fetch_add(1, std::memory_order_relaxed); }
inline void count_copy() { registry().copies.fetch_add(1, std::memory_order_relaxed); }

inline void count_allocation(int64_t nbytes) {
  auto& r = registry();
  r.allocations.fetch_add(1, std::memory_order_relaxed);
  const int64_t now = r.bytes_in_use.fetch_add(nbytes, std::memory_order_relaxed) + nbytes;
  int64_t peak = r.peak_bytes_in_use.load(std::memory_order_relaxed);
  while (now > peak && !r.peak_bytes_in_use.compare_exchange_weak(peak, now, std::memory_order_relaxed)) {
  }
}

inline void count_free(int64_t nbytes) { registry().bytes_in_use.fetch_sub(nbytes, std::memory_order_relaxed); }

}  // namespace detail

/// Reads all counters at once.
inline Counters snapshot() {
  const auto& r = detail::registry();
  return {r.fused_loops.load(),       r.copies.load(),       r.allocations.load(), r.bytes_in_use.load(),
          r.peak_bytes_in_use.load(), r.fused_kernels.load()};
}

/// Zeroes the event counters and sets the peak to the current usage.
inline void reset() {
  auto& r = detail::registry();
  r.fused_loops = 0;
  r.copies = 0;
  r.allocations = 0;
  r.fused_kernels = 0;
  r.peak_bytes_in_use = r.bytes_in_use.load();
}

}  // namespace tensorlib::stats
