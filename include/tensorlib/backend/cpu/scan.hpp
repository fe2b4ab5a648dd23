#pragma once
/// \file
/// The host loop of a scan along a dimension: `scan_lines(scan, outer, n,
/// inner)` runs scan functor `scan` (ops/scan.hpp) over a contiguous
/// [outer, n, inner] layout, one running state per inner element, so every
/// step is a row operation over the contiguous inner dimension. The GPU
/// form is backend/cuda/scan.hpp.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace tensorlib::cpu {

/// state[k] = combine(state[k], element (o, j, k)), stored after every step.
template <class S>
void scan_lines(const S& scan, int64_t outer, int64_t n, int64_t inner) {
  std::vector<typename S::State> state(static_cast<std::size_t>(inner));
  for (int64_t o = 0; o < outer; ++o) {
    std::fill(state.begin(), state.end(), scan.identity());
    for (int64_t j = 0; j < n; ++j) {
      const int64_t base = (o * n + j) * inner;
      for (int64_t k = 0; k < inner; ++k) {
        auto& s = state[static_cast<std::size_t>(k)];
        s = scan.combine(s, scan.load(base + k, j));
        scan.store(base + k, s);
      }
    }
  }
}

}  // namespace tensorlib::cpu
