#pragma once
/// \file
/// `ValuesIndices<T>`: what reductions and sorts over one dimension return
/// (`max(dim)`, `min(dim)`, `sort`, `topk`, `kthvalue`, `median(dim)`, `mode`,
/// `cummax`, ...), as PyTorch's named tuple `(values, indices)`.
///
///     auto [values, indices] = tl::max(x, 1);
///     auto r = tl::sort(x);  r.values, r.indices

#include <cstdint>

#include "tensorlib/core/tensor.hpp"

namespace tensorlib {

/// Values of element type T and their int64 indices along the reduced or
/// sorted dimension. An aggregate, so structured bindings work.
template <Element T>
struct ValuesIndices {
  Tensor<T> values;
  Tensor<int64_t> indices;
};

}  // namespace tensorlib
