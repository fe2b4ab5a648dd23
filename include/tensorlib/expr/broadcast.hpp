#pragma once
/// \file
/// NumPy/PyTorch broadcasting of shapes: align trailing dimensions; each pair
/// must be equal or contain a 1.

#include <algorithm>
#include <string_view>

#include "tensorlib/core/error.hpp"
#include "tensorlib/core/shape.hpp"

namespace tensorlib {

/// The broadcast of two shapes; a `ShapeError` naming `op` when they do not
/// broadcast (e.g. "add: shapes [2, 3] and [4] cannot broadcast").
inline Shape broadcast_shapes(const Shape& a, const Shape& b, std::string_view op = "broadcast_shapes") {
  const int64_t n = std::max(a.size(), b.size());
  Shape out = Shape::filled(n, 1);
  for (int64_t i = 0; i < n; ++i) {
    const int64_t da = i < n - a.size() ? 1 : a[i - (n - a.size())];
    const int64_t db = i < n - b.size() ? 1 : b[i - (n - b.size())];
    detail::check<ShapeError>(da == db || da == 1 || db == 1, op, ": shapes ", a, " and ", b, " cannot broadcast");
    out[i] = da == 1 ? db : da;
  }
  return out;
}

/// Strides that read a tensor of `sizes`/`strides` as if it had shape
/// `target` (0 on broadcast dimensions). Requires `sizes` to broadcast to `target`.
inline Shape broadcast_strides(const Shape& sizes, const Shape& strides, const Shape& target) {
  Shape out = Shape::filled(target.size(), 0);
  const int64_t lead = target.size() - sizes.size();
  for (int64_t i = 0; i < sizes.size(); ++i) {
    out[lead + i] = sizes[i] == 1 && target[lead + i] != 1 ? 0 : strides[i];
  }
  return out;
}

}  // namespace tensorlib
