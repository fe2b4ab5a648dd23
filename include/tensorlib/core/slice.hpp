#pragma once
/// \file
/// The basic entries of an index list: `None`, `Ellipsis` and `Slice`
/// (Python's `start:stop:step`). Kept apart from `TensorIndex`, which can also
/// hold index tensors and so needs `Tensor<T>` (core/tensor_index.hpp).

#include <concepts>
#include <cstdint>
#include <optional>

#include "tensorlib/core/config.hpp"

namespace tensorlib {

/// Tag for `None`: in an index it inserts a size-1 dimension; as a slice bound
/// it means "from the start" / "to the end".
struct NoneType {};
inline constexpr NoneType None{};

/// Tag for `...`: stands for as many full slices as needed.
struct EllipsisType {};
inline constexpr EllipsisType Ellipsis{};

/// One bound of a slice: an integer or `None`.
struct SliceBound {
  std::optional<int64_t> value;
  constexpr SliceBound(NoneType = None) {}  // NOLINT: implicit like LibTorch
  /// An integer bound of any integer type.
  template <std::integral I>
  requires(!std::same_as<I, bool>) constexpr SliceBound(I v)
      : value(static_cast<int64_t>(v)) {}  // NOLINT: implicit like LibTorch
};

/// Python's `start:stop:step`, with negative and omitted bounds.
struct Slice {
  SliceBound start;
  SliceBound stop;
  SliceBound step;
  constexpr Slice(SliceBound start_ = None, SliceBound stop_ = None, SliceBound step_ = None)  // NOLINT
      : start(start_), stop(stop_), step(step_) {}
};

}  // namespace tensorlib
