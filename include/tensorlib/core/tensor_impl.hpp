#pragma once
/// \file
/// `TensorImpl`: the untyped state behind every tensor handle (PyTorch's
/// TensorImpl): a storage, sizes, strides, an offset and the element type.
/// `Tensor<T>` and `AnyTensor` are two typed views of the same object, so a
/// tensor can travel type-erased and come back without copying. Tensors that
/// take part in autograd also own an `AutogradMeta`.

#include <cstdint>
#include <memory>
#include <utility>

#include "tensorlib/core/autograd_meta.hpp"
#include "tensorlib/core/dtype.hpp"
#include "tensorlib/core/shape.hpp"
#include "tensorlib/core/storage.hpp"

namespace tensorlib {

/// Untyped tensor state. Handles share it through `std::shared_ptr`, so
/// copies of a handle are the same tensor (as in PyTorch).
struct TensorImpl {
  Storage storage;
  Shape sizes;
  Shape strides;   ///< in elements
  int64_t offset;  ///< in elements, from the start of `storage`
  ScalarType dtype;
  /// Autograd state; null for tensors that never took part in autograd.
  std::unique_ptr<AutogradMeta> autograd;
  /// For a view (ops/views.hpp): the tensor it views, the root of a chain of
  /// views; null otherwise. In-place writes into a view rebase its history
  /// (Note [in-place on graph tensors]).
  std::shared_ptr<TensorImpl> view_base;

  TensorImpl(Storage s, Shape sz, Shape st, int64_t off, ScalarType t)
      : storage(std::move(s)), sizes(sz), strides(st), offset(off), dtype(t) {}

  int64_t numel() const noexcept { return sizes.numel(); }

  /// The autograd state, created on first use.
  AutogradMeta& autograd_meta() {
    if (!autograd) autograd = std::make_unique<AutogradMeta>();
    return *autograd;
  }
  /// True for a leaf that requires grad or a tensor with a `grad_fn`.
  bool requires_grad() const noexcept { return autograd && (autograd->requires_grad || autograd->grad_fn); }

  /// Pointer to element [0, ..., 0]; null for an empty storage, whatever the
  /// offset (a view of an empty tensor may have one; null + offset is UB).
  void* data() const noexcept {
    char* base = static_cast<char*>(storage.data());
    return base ? base + offset * element_size(dtype) : nullptr;
  }

  /// Row-major contiguity, ignoring the strides of size-1 dimensions (PyTorch).
  bool is_contiguous() const noexcept {
    if (sizes.numel() == 0) return true;
    int64_t expected = 1;
    for (int64_t i = sizes.size() - 1; i >= 0; --i) {
      if (sizes[i] == 1) continue;
      if (sizes[i] == 0) return true;
      if (strides[i] != expected) return false;
      expected *= sizes[i];
    }
    return true;
  }

  /// True when the elements exactly tile a dense block in some dimension
  /// order (no gaps, no overlap): the layouts `clone()` preserves.
  bool is_non_overlapping_and_dense() const noexcept {
    const int64_t n = sizes.size();
    if (n == 1) return sizes[0] < 2 || strides[0] == 1;
    int64_t order[Shape::kMaxDims];
    for (int64_t i = 0; i < n; ++i) order[i] = i;
    // Insertion sort of dims by stride (then size), innermost first.
    for (int64_t i = 1; i < n; ++i) {
      for (int64_t j = i; j > 0; --j) {
        const int64_t a = order[j - 1], b = order[j];
        const bool swap = sizes[a] == 1 || (sizes[b] != 1 && strides[a] > strides[b]);
        if (!swap) break;
        std::swap(order[j - 1], order[j]);
      }
    }
    int64_t expected = 1;
    for (int64_t i = 0; i < n; ++i) {
      const int64_t d = order[i];
      if (sizes[d] == 1) continue;
      if (strides[d] != expected) return false;
      expected *= sizes[d];
    }
    return true;
  }
};

}  // namespace tensorlib
