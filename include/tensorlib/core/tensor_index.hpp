#pragma once
/// \file
/// `TensorIndex`: one entry of `x.index({...})`, LibTorch's indexing form:
/// an integer, a `Slice`, `None` (insert a dimension) or `Ellipsis`.

#include <concepts>
#include <cstdint>
#include <optional>
#include <ostream>
#include <variant>

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

/// One entry of an index list.
class TensorIndex {
 public:
  /// An integer index of any integer type (not bool, which PyTorch reads as a mask).
  template <std::integral I>
  requires(!std::same_as<I, bool>) TensorIndex(I i)
      : v_(static_cast<int64_t>(i)) {}         // NOLINT: implicit so `{0, Slice(1, 3)}` reads naturally
  TensorIndex(Slice s) : v_(s) {}              // NOLINT
  TensorIndex(NoneType) : v_(None) {}          // NOLINT
  TensorIndex(EllipsisType) : v_(Ellipsis) {}  // NOLINT

  bool is_integer() const { return std::holds_alternative<int64_t>(v_); }
  bool is_slice() const { return std::holds_alternative<Slice>(v_); }
  bool is_none() const { return std::holds_alternative<NoneType>(v_); }
  bool is_ellipsis() const { return std::holds_alternative<EllipsisType>(v_); }
  int64_t integer() const { return std::get<int64_t>(v_); }
  const Slice& slice() const { return std::get<Slice>(v_); }

 private:
  std::variant<int64_t, Slice, NoneType, EllipsisType> v_;
};

}  // namespace tensorlib
