#pragma once
/// \file
/// The out-of-place writes into a view: `select_scatter`, `slice_scatter`,
/// `diagonal_scatter` and `as_strided_scatter` return a copy of `input` whose
/// view (`select`, `slice`, `diagonal`, `as_strided`) holds `src`. Each is a
/// clone and a copy into the view of the clone, so it differentiates as
/// PyTorch's does: `src` gets the gradient's view, `input` the gradient with
/// that view zeroed.

#include <cstdint>
#include <optional>
#include <type_traits>

#include "tensorlib/core/error.hpp"
#include "tensorlib/core/shape.hpp"
#include "tensorlib/core/slice.hpp"
#include "tensorlib/core/tensor.hpp"
#include "tensorlib/ops/evaluate.hpp"
#include "tensorlib/ops/triangular.hpp"
#include "tensorlib/ops/views.hpp"

namespace tensorlib {
namespace detail {

/// `out` (a fresh copy of the input) with `view_of(out)` overwritten by
/// `src`, whose shape must be the view's exactly (no broadcasting, as PyTorch).
template <Element T, class View>
Tensor<T> scatter_into_view(Tensor<T> out, const Tensor<T>& src, View view_of, const char* op) {
  Tensor<T> view = view_of(out);
  check<ShapeError>(src.sizes() == view.sizes(), op,
                    ": expected src to have a size equal to the slice of self. src size = ", src.sizes(),
                    ", slice size = ", view.sizes());
  view.copy_(src);
  return out;
}

}  // namespace detail

/// input with input.select(dim, index) replaced by `src` (`torch.select_scatter`).
template <Expression E, Expression S, class T = value_type_t<E>>
Tensor<T> select_scatter(const E& input, const S& src, int64_t dim, int64_t index) {
  static_assert(std::is_same_v<T, value_type_t<S>>,
                "select_scatter: input and src must have the same element type; convert one with .to<T>()");
  return detail::scatter_into_view(
      Tensor<T>(input).clone(), Tensor<T>(src), [&](const Tensor<T>& t) { return t.select(dim, index); },
      "select_scatter");
}

/// input with input.slice(dim, start, end, step) replaced by `src` (`torch.slice_scatter`).
template <Expression E, Expression S, class T = value_type_t<E>>
Tensor<T> slice_scatter(const E& input, const S& src, int64_t dim = 0, SliceBound start = None, SliceBound end = None,
                        int64_t step = 1) {
  static_assert(std::is_same_v<T, value_type_t<S>>,
                "slice_scatter: input and src must have the same element type; convert one with .to<T>()");
  return detail::scatter_into_view(
      Tensor<T>(input).clone(), Tensor<T>(src), [&](const Tensor<T>& t) { return t.slice(dim, start, end, step); },
      "slice_scatter");
}

/// input with input.diagonal(offset, dim1, dim2) replaced by `src` (`torch.diagonal_scatter`).
template <Expression E, Expression S, class T = value_type_t<E>>
Tensor<T> diagonal_scatter(const E& input, const S& src, int64_t offset = 0, int64_t dim1 = 0, int64_t dim2 = 1) {
  static_assert(std::is_same_v<T, value_type_t<S>>,
                "diagonal_scatter: input and src must have the same element type; convert one with .to<T>()");
  return detail::scatter_into_view(
      Tensor<T>(input).clone(), Tensor<T>(src), [&](const Tensor<T>& t) { return t.diagonal(offset, dim1, dim2); },
      "diagonal_scatter");
}

/// input with input.as_strided(size, stride, storage_offset) replaced by
/// `src` (`torch.as_strided_scatter`). The strides address input's clone,
/// which keeps a dense input's layout (as PyTorch's). A view that reaches an
/// element twice is an error.
template <Expression E, Expression S, class T = value_type_t<E>>
Tensor<T> as_strided_scatter(const E& input, const S& src, const Shape& size, const Shape& stride,
                             std::optional<int64_t> storage_offset = std::nullopt) {
  static_assert(std::is_same_v<T, value_type_t<S>>,
                "as_strided_scatter: input and src must have the same element type; convert one with .to<T>()");
  return detail::scatter_into_view(
      Tensor<T>(input).clone(), Tensor<T>(src),
      [&](const Tensor<T>& t) { return t.as_strided(size, stride, storage_offset.value_or(0)); }, "as_strided_scatter");
}

}  // namespace tensorlib
