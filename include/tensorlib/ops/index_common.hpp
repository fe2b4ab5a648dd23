#pragma once
/// \file
/// Private helpers shared by the indexing ops (gather_scatter.hpp,
/// index_ops.hpp, masked.hpp, advanced_index.hpp): bounds checks with
/// PyTorch's wording, device checks, 0-d inputs seen as 1-d, and copies that
/// break aliasing between an in-place op's destination and its inputs.

#include <cstdint>

#include "tensorlib/backend/cuda/atomic_update.hpp"
#include "tensorlib/core/config.hpp"
#include "tensorlib/core/dtype.hpp"
#include "tensorlib/core/error.hpp"
#include "tensorlib/core/grad_mode.hpp"
#include "tensorlib/core/shape.hpp"
#include "tensorlib/core/tensor.hpp"
#include "tensorlib/expr/functions.hpp"
#include "tensorlib/expr/operators.hpp"
#include "tensorlib/ops/copy.hpp"
#include "tensorlib/ops/dispatch.hpp"
#include "tensorlib/ops/reduce.hpp"
#include "tensorlib/ops/views.hpp"

namespace tensorlib::detail {

/// Whether an op accepts indices in [-size, 0) (counting from the end), as
/// PyTorch 1.13 does for index_fill, take, put and advanced indexing but not
/// for gather, scatter, index_select, index_add and index_copy.
enum class Negative { rejected, wrapped };

/// `i` checked against a dimension of `size` and wrapped when negatives are
/// allowed: "op(): index 7 is out of bounds for dimension 0 with size 5".
inline int64_t checked_index(int64_t i, int64_t size, int64_t dim, Negative negative, const char* op) {
  const int64_t lo = negative == Negative::wrapped ? -size : 0;
  if (i < lo || i >= size) [[unlikely]]
    throw IndexError(concat(op, "(): index ", i, " is out of bounds for dimension ", dim, " with size ", size));
  return i < 0 ? i + size : i;
}

/// An index already checked against `size`, with a negative one counted
/// from the end (what a GPU kernel reads).
TENSORLIB_HOST_DEVICE inline int64_t wrapped_index(int64_t i, int64_t size) { return i < 0 ? i + size : i; }

/// The GPU kernels read indices unchecked: for an index tensor on a GPU,
/// one reduction looks for an index outside [0, size) (or [-size, size)
/// when negatives are wrapped), and only then are the indices copied to the
/// host to report the first one as `checked_index` would. A CPU index is
/// checked where it is read.
inline void check_indices_on_device(const Tensor<int64_t>& index, int64_t size, int64_t dim, const char* op,
                                    Negative negative = Negative::rejected) {
  if (index.is_cpu() || index.numel() == 0) return;
  NoGradGuard no_grad;
  const int64_t lo = negative == Negative::wrapped ? -size : 0;
  if (!any(logical_or(index < lo, index >= size)).item()) return;
  for (const int64_t i : index.cpu().to_vector()) checked_index(i, size, dim, negative, op);
}

/// The sizes and strides of a tensor as a kernel argument: the storage
/// offset of the element at row-major position `flat` (take, put).
struct FlatLayout {
  int ndim = 0;
  int64_t sizes[Shape::kMaxDims] = {};
  int64_t strides[Shape::kMaxDims] = {};

  template <Element T>
  explicit FlatLayout(const Tensor<T>& t) : ndim(static_cast<int>(t.dim())) {
    for (int d = 0; d < ndim; ++d) {
      sizes[d] = t.size(d);
      strides[d] = t.stride(d);
    }
  }
  TENSORLIB_HOST_DEVICE int64_t offset(int64_t flat) const {
    int64_t off = 0;
    for (int d = ndim - 1; d >= 0; --d) {
      off += (flat % sizes[d]) * strides[d];
      flat /= sizes[d];
    }
    return off;
  }
};

/// A CPU index is checked where it is read; index_select and index_add_,
/// whose loops may read none of it (an empty iteration space), check it here
/// as PyTorch does (its index_copy_, gather and scatter do not).
inline void check_unread_indices(const Tensor<int64_t>& index, int64_t size, int64_t dim, const char* op) {
  if (!index.is_cpu()) return;
  for (const int64_t i : index.to_vector()) checked_index(i, size, dim, Negative::rejected, op);
}

/// Number of dimensions with 0-d counted as 1-d (PyTorch's ensure_nonempty_dim).
template <Element T>
int64_t nonempty_dim(const Tensor<T>& t) {
  return t.dim() == 0 ? 1 : t.dim();
}

/// `t` as a 1-d tensor of one element when it is 0-d, else itself (a view).
template <Element T>
Tensor<T> at_least_1d(const Tensor<T>& t) {
  return t.dim() == 0 ? t.reshape({1}) : t;
}

/// `input` unless it shares storage with `dst`, else a copy: an in-place op
/// must not read what it has already written.
template <Element T, Element U>
Tensor<U> unaliased(const Tensor<U>& input, const Tensor<T>& dst) {
  return input.storage().is_alias_of(dst.storage()) ? input.clone() : input;
}

/// Throws unless every tensor is on `device` (only CPU kernels exist so far).
template <Element... Ts>
void check_devices(const char* op, Device device, const Tensor<Ts>&... tensors) {
  (..., (tensors.device() != device ? throw_device_mismatch(op, device, tensors.device()) : void()));
}

/// True when a tensor of shape `from` broadcasts to exactly `to`.
inline bool broadcasts_to(const Shape& from, const Shape& to) {
  if (from.size() > to.size()) return false;
  const int64_t lead = to.size() - from.size();
  for (int64_t i = 0; i < from.size(); ++i)
    if (from[i] != 1 && from[i] != to[lead + i]) return false;
  return true;
}

/// `strides` with the entry of `dim` set to 0 (the index supplies that coordinate).
inline Shape without_dim(Shape strides, int64_t dim) {
  strides[dim] = 0;
  return strides;
}

/// Strides that read a vector `index` (0-d or 1-d) along dimension `dim` of a
/// `ndim`-dimensional loop and not along the others.
template <Element T>
Shape along_dim_strides(const Tensor<T>& index, int64_t dim, int64_t ndim) {
  Shape s = Shape::filled(ndim, 0);
  s[dim] = index.dim() == 0 ? 0 : index.stride(0);
  return s;
}

}  // namespace tensorlib::detail
