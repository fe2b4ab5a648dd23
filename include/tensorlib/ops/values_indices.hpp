#pragma once
/// \file
/// `ValuesIndices<T>`: what reductions and sorts over one dimension return
/// (`max(dim)`, `min(dim)`, `sort`, `topk`, `kthvalue`, `median(dim)`, `mode`,
/// `cummax`, ...), as PyTorch's named tuple `(values, indices)`.
///
///     auto [values, indices] = tl::max(x, 1);
///     auto r = tl::sort(x);  r.values, r.indices

#include <cstdint>

#include "tensorlib/core/dim_list.hpp"
#include "tensorlib/core/tensor.hpp"

namespace tensorlib {

/// Values of element type T and their int64 indices along the reduced or
/// sorted dimension. An aggregate, so structured bindings work.
template <Element T>
struct ValuesIndices {
  Tensor<T> values;
  Tensor<int64_t> indices;
};

namespace autograd {

// The recording forms of the selecting ops (autograd/selection_backward.hpp):
// `raw(x)` computes the op without recording.
template <Element T, class Raw>
ValuesIndices<T> record_selection(const char* name, const Tensor<T>& x, int64_t dim, bool keepdim, Raw raw);
template <Element T, class Raw>
Tensor<T> record_evenly(const char* name, const Tensor<T>& x, DimList dims, bool nan_aware, Raw raw);

}  // namespace autograd

}  // namespace tensorlib
