#pragma once
/// \file
/// Private helpers for ops that work on one dimension at a time (sort, topk,
/// kthvalue, median, mode, unique with `dim`): the input is viewed as rows
/// along that dimension, each row is processed on its own, and the result is
/// put back in the input's dimension order. Also the NaN-aware orderings
/// those ops share.
///
/// Note [rows along a dimension]
/// `rows_along(x, d)` moves dimension d last (the other dimensions keep their
/// order) and makes the result contiguous, so row r is the elements
/// [r * length, (r + 1) * length) and rows are numbered row-major over the
/// remaining dimensions. A result computed row by row into a contiguous
/// tensor of shape `outer + [n]` is put back with `from_rows`; a reduction
/// computed into a contiguous tensor of shape `outer` already has the right
/// layout (`reduced_shape` gives it, with keepdim). A 0-d input is one row of
/// one element, and gives 0-d results.

#include <cstdint>
#include <type_traits>

#include "tensorlib/core/dtype.hpp"
#include "tensorlib/core/shape.hpp"
#include "tensorlib/core/tensor.hpp"
#include "tensorlib/ops/copy.hpp"
#include "tensorlib/ops/dispatch.hpp"
#include "tensorlib/ops/views.hpp"

namespace tensorlib::detail {

/// NaN test that compiles for every element type (integers are never NaN).
template <Element T>
constexpr bool is_nan(T v) noexcept {
  if constexpr (is_floating<T>)
    return v != v;
  else
    return false;
}

/// Ascending order with NaN after everything, NaNs equivalent to each other
/// (PyTorch's KeyValueCompAsc): a strict weak ordering, unlike plain `<`.
struct LessNanLast {
  template <class T>
  constexpr bool operator()(T a, T b) const noexcept {
    return (!is_nan(a) && is_nan(b)) || a < b;
  }
};

/// Descending order with NaN before everything (PyTorch's KeyValueCompDesc).
struct GreaterNanFirst {
  template <class T>
  constexpr bool operator()(T a, T b) const noexcept {
    return (is_nan(a) && !is_nan(b)) || a > b;
  }
};

/// A tensor seen as contiguous rows along one dimension (Note [rows along a dimension]).
template <Element T>
struct Rows {
  Tensor<T> data;      // contiguous, shape `outer + [length]`
  int64_t dim = 0;     // the wrapped dimension (0 for a 0-d input)
  int64_t ndim = 0;    // dimensions of the input
  int64_t count = 0;   // number of rows
  int64_t length = 0;  // elements per row
  Shape outer;         // the input's sizes without `dim`

  const T* row(int64_t r) const { return data.data_ptr() + r * length; }
};

/// Position in `x.permute(order)` of each dimension when `dim` is moved last.
inline Shape moved_last_order(int64_t ndim, int64_t dim) {
  Shape order;
  for (int64_t d = 0; d < ndim; ++d)
    if (d != dim) order.push_back(d);
  order.push_back(dim);
  return order;
}

/// The rows of `x` along `dim` (wrapped; a bad dim throws naming `op`), on
/// x's device.
template <Element T>
Rows<T> rows_along_on_device(const Tensor<T>& x, int64_t dim, const char* op) {
  Rows<T> r;
  r.ndim = x.dim();
  r.dim = wrap_dim(dim, r.ndim, op);
  if (r.ndim == 0) {
    r.data = x.reshape({1, 1}).contiguous();
    r.count = 1;
    r.length = 1;
    return r;
  }
  r.data = x.permute(moved_last_order(r.ndim, r.dim)).contiguous();
  r.outer = x.sizes();
  r.outer.erase(r.dim);
  r.length = x.size(r.dim);
  r.count = r.outer.numel();
  return r;
}

/// The rows of `x` along `dim`, for host loops (a CUDA tensor throws).
template <Element T>
Rows<T> rows_along(const Tensor<T>& x, int64_t dim, const char* op) {
  check_cpu(x, op);
  return rows_along_on_device(x, dim, op);
}

/// Puts a contiguous row-layout result of shape `outer + [n]` back in the
/// input's dimension order, as a contiguous tensor (0-d for a 0-d input).
template <Element T, Element U>
Tensor<U> from_rows(const Rows<T>& rows, const Tensor<U>& result) {
  if (rows.ndim == 0) return result.reshape({});
  Shape inverse = Shape::filled(rows.ndim, 0);
  const Shape order = moved_last_order(rows.ndim, rows.dim);
  for (int64_t i = 0; i < rows.ndim; ++i) inverse[order[i]] = i;
  return result.permute(inverse).contiguous();
}

/// Shape `outer + [n]` of a row-layout result with rows of length n.
template <Element T>
Shape row_result_shape(const Rows<T>& rows, int64_t n) {
  Shape s = rows.outer;
  s.push_back(n);
  return s;
}

/// Shape of a reduction over the rows' dimension: `outer`, or the input's
/// sizes with `dim` set to 1 when `keepdim` (0-d for a 0-d input).
template <Element T>
Shape reduced_shape(const Rows<T>& rows, bool keepdim) {
  Shape s = rows.outer;
  if (keepdim && rows.ndim > 0) s.insert(rows.dim, 1);
  return s;
}

}  // namespace tensorlib::detail
