#pragma once
/// \file
/// `TensorIndex`: one entry of `x.index({...})`, LibTorch's indexing form:
/// an integer, a `Slice`, `None` (insert a dimension), `Ellipsis`, or an
/// index tensor: `Tensor<int64_t>` (integer-array indexing) or `Tensor<bool>`
/// (a mask). Only the holder lives here; what the entries mean is in
/// ops/views.hpp (basic indexing, a view) and ops/advanced_index.hpp (index
/// tensors, a copy).

#include <concepts>
#include <cstdint>
#include <utility>
#include <variant>

#include "tensorlib/core/config.hpp"
#include "tensorlib/core/expression.hpp"
#include "tensorlib/core/slice.hpp"
#include "tensorlib/core/tensor.hpp"

namespace tensorlib {

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
  /// Integer-array indexing: selects the listed positions (negative ones count from the end).
  TensorIndex(Tensor<int64_t> t) : v_(std::move(t)) {}  // NOLINT
  /// A mask over as many dimensions as it has (a 0-d mask adds a dimension of size 1 or 0).
  TensorIndex(Tensor<bool> t) : v_(std::move(t)) {}  // NOLINT
  /// A lazy bool or int64 expression, evaluated: `x.index({x > 0})`.
  template <class E>
  requires(ForeignExpression<E, bool>&& ForeignExpression<E, int64_t> &&
           (std::same_as<value_type_t<E>, bool> || std::same_as<value_type_t<E>, int64_t>))
      TensorIndex(const E& e)  // NOLINT
      : v_(Tensor<value_type_t<E>>(e)) {}

  bool is_integer() const { return std::holds_alternative<int64_t>(v_); }
  bool is_slice() const { return std::holds_alternative<Slice>(v_); }
  bool is_none() const { return std::holds_alternative<NoneType>(v_); }
  bool is_ellipsis() const { return std::holds_alternative<EllipsisType>(v_); }
  bool is_long_tensor() const { return std::holds_alternative<Tensor<int64_t>>(v_); }
  bool is_bool_tensor() const { return std::holds_alternative<Tensor<bool>>(v_); }
  /// An index tensor of either kind (what makes an index "advanced").
  bool is_tensor() const { return is_long_tensor() || is_bool_tensor(); }
  int64_t integer() const { return std::get<int64_t>(v_); }
  const Slice& slice() const { return std::get<Slice>(v_); }
  const Tensor<int64_t>& long_tensor() const { return std::get<Tensor<int64_t>>(v_); }
  const Tensor<bool>& bool_tensor() const { return std::get<Tensor<bool>>(v_); }

 private:
  std::variant<int64_t, Slice, NoneType, EllipsisType, Tensor<int64_t>, Tensor<bool>> v_;
};

}  // namespace tensorlib
