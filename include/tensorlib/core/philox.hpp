#pragma once
/// \file
/// Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2,
/// 3", SC'11): a counter-based generator. Output block c under key k is a pure
/// function of (k, c), so any element of a random tensor can be computed
/// independently: on any thread, in any order, on the CPU or a GPU.

#include <array>
#include <cstdint>

#include "tensorlib/core/config.hpp"

namespace tensorlib {

/// Four 32-bit words of random output.
using PhiloxBlock = std::array<uint32_t, 4>;

/// Philox4x32 with 10 rounds. `counter` is 128 bits as four words (low first),
/// `key` 64 bits as two words.
TENSORLIB_HOST_DEVICE inline PhiloxBlock philox4x32(PhiloxBlock counter, uint32_t key0, uint32_t key1) {
  constexpr uint32_t kMul0 = 0xD2511F53u, kMul1 = 0xCD9E8D57u;
  constexpr uint32_t kWeyl0 = 0x9E3779B9u, kWeyl1 = 0xBB67AE85u;
  for (int round = 0; round < 10; ++round) {
    const uint64_t p0 = uint64_t{kMul0} * counter[0];
    const uint64_t p1 = uint64_t{kMul1} * counter[2];
    counter = {static_cast<uint32_t>(p1 >> 32) ^ counter[1] ^ key0, static_cast<uint32_t>(p1),
               static_cast<uint32_t>(p0 >> 32) ^ counter[3] ^ key1, static_cast<uint32_t>(p0)};
    key0 += kWeyl0;
    key1 += kWeyl1;
  }
  return counter;
}

/// Block number `index` of the stream with this seed.
TENSORLIB_HOST_DEVICE inline PhiloxBlock philox_block(uint64_t seed, uint64_t index) {
  return philox4x32({static_cast<uint32_t>(index), static_cast<uint32_t>(index >> 32), 0u, 0u},
                    static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32));
}

}  // namespace tensorlib
