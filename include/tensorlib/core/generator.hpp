#pragma once
/// \file
/// `Generator`: a seed and an offset into its Philox stream
/// (core/philox.hpp), and the process-wide default generator.
///
/// Note [philox streams]
/// Every random op reserves a run of consecutive Philox blocks from its
/// generator and maps element i of its output to fixed words of fixed blocks
/// of that run (the mapping is documented at each op in ops/random.hpp). The
/// values therefore depend only on (seed, offset, i): not on the thread
/// count, the order of evaluation or the device, so the CUDA backend
/// produces the same numbers from the same seed.

#include <cstdint>
#include <mutex>
#include <random>

#include "tensorlib/core/config.hpp"

namespace tensorlib {

/// A random-number generator: a seed and a position in its stream.
class Generator {
 public:
  /// PyTorch's default seed.
  static constexpr uint64_t kDefaultSeed = 67280421310721ull;

  explicit Generator(uint64_t seed = kDefaultSeed) : seed_(seed) {}

  /// Restarts the stream from `seed`.
  Generator& manual_seed(uint64_t seed) {
    std::lock_guard<std::mutex> lock(mutex_);
    seed_ = seed;
    offset_ = 0;
    return *this;
  }
  /// Seeds from a nondeterministic source and returns the seed.
  uint64_t seed() {
    std::random_device rd;
    const uint64_t s = (uint64_t{rd()} << 32) ^ rd();
    manual_seed(s);
    return s;
  }
  uint64_t initial_seed() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return seed_;
  }

  /// The generator's full state, to save and restore a stream position.
  struct State {
    uint64_t seed;
    uint64_t offset;
    friend bool operator==(const State&, const State&) = default;
  };
  State get_state() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return {seed_, offset_};
  }
  void set_state(State s) {
    std::lock_guard<std::mutex> lock(mutex_);
    seed_ = s.seed;
    offset_ = s.offset;
  }

  /// Reserves `blocks` consecutive Philox blocks; returns the seed and the
  /// first block index (Note [philox streams]).
  State reserve(uint64_t blocks) {
    std::lock_guard<std::mutex> lock(mutex_);
    const State s{seed_, offset_};
    offset_ += blocks;
    return s;
  }

 private:
  mutable std::mutex mutex_;
  uint64_t seed_;
  uint64_t offset_ = 0;
};

/// The generator random ops use when none is given.
inline Generator& default_generator() {
  static Generator g;
  return g;
}

/// Seeds the default generator (`torch.manual_seed`).
inline void manual_seed(uint64_t seed) { default_generator().manual_seed(seed); }

}  // namespace tensorlib
