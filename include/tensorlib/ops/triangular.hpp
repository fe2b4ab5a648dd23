#pragma once
/// \file
/// Diagonals and triangles of matrices, with PyTorch's semantics:
/// `diagonal` (a view), `diag`, `diag_embed`, `diagflat`, `trace`, `tril`,
/// `triu` (copies) and the index factories `tril_indices`, `triu_indices`.
/// Diagonal `offset` k selects the elements (i, i + k): k > 0 above the main
/// diagonal, k < 0 below it.

#include <algorithm>
#include <concepts>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "tensorlib/backend/cpu/block_copy.hpp"
#include "tensorlib/core/error.hpp"
#include "tensorlib/core/shape.hpp"
#include "tensorlib/core/tensor.hpp"
#include "tensorlib/core/tensor_options.hpp"
#include "tensorlib/expr/functions.hpp"
#include "tensorlib/expr/operators.hpp"
#include "tensorlib/ops/copy.hpp"
#include "tensorlib/ops/dispatch.hpp"
#include "tensorlib/ops/evaluate.hpp"
#include "tensorlib/ops/factories.hpp"
#include "tensorlib/ops/reduce.hpp"
#include "tensorlib/ops/views.hpp"

namespace tensorlib {
namespace detail {

/// `tril` (lower) or `triu` as one fused kernel on any device: x where the
/// column minus the row is at most (lower) or at least `diagonal`, else 0.
/// The mask broadcasts from two aranges; j - i cannot overflow where
/// i + diagonal could.
template <Element T>
Tensor<T> triangle_by_mask(const Tensor<T>& x, int64_t diagonal, bool lower) {
  const TensorOptions on{.device = x.device()};
  const Tensor<int64_t> i = arange<int64_t>(x.size(-2), on).unsqueeze(1), j = arange<int64_t>(x.size(-1), on);
  const Tensor<T> zero = zeros<T>({}, on);  // a 0-d leaf: every element type (16-bit scalars are no operands)
  if (lower) return tensorlib::where(j - i <= diagonal, x, zero);
  return tensorlib::where(j - i >= diagonal, x, zero);
}

/// `tril` (lower) or `triu` of the last two dims: one block-copy pass on
/// the CPU, triangle_by_mask on a GPU.
template <Element T>
Tensor<T> triangle(const Tensor<T>& x, int64_t diagonal, bool lower, const char* op) {
  detail::check<ShapeError>(x.dim() >= 2, op, ": input tensor must have at least 2 dimensions, got ", x.dim());
  if (!x.is_cpu()) return triangle_by_mask(x, diagonal, lower);
  auto out = empty<T>(x.sizes(), {.device = x.device()});
  if (out.numel() == 0) return out;
  const Tensor<T> src = x.contiguous();
  const int64_t rows = x.size(-2), cols = x.size(-1);
  dispatch_cpu_only(x.device(), op, [&] {
    cpu::triangle(out.data_ptr(), src.data_ptr(), x.numel() / (rows * cols), rows, cols, diagonal, lower);
  });
  return out;
}

/// The (row, column) pairs of the lower (or upper) triangle of a
/// rows x cols matrix in row-major order, as a (2, N) tensor.
template <class I>
Tensor<I> triangle_indices(int64_t rows, int64_t cols, int64_t offset, bool lower, TensorOptions options,
                           const char* op) {
  detail::check<ValueError>(rows >= 0, op, ": row must be non-negative, got ", rows);
  detail::check<ValueError>(cols >= 0, op, ": col must be non-negative, got ", cols);
  offset = std::clamp<int64_t>(offset, -rows - 1, cols + 1);  // i + offset cannot overflow
  std::vector<I> r, c;
  for (int64_t i = 0; i < rows; ++i) {
    const int64_t begin = lower ? 0 : std::clamp<int64_t>(i + offset, 0, cols);
    const int64_t end = lower ? std::clamp<int64_t>(i + offset + 1, 0, cols) : cols;
    for (int64_t j = begin; j < end; ++j) {
      r.push_back(static_cast<I>(i));
      c.push_back(static_cast<I>(j));
    }
  }
  const auto n = static_cast<int64_t>(r.size());
  return generate<I>({2, n}, options, [&](int64_t k) {
    return k < n ? r[static_cast<std::size_t>(k)] : c[static_cast<std::size_t>(k - n)];
  });
}

}  // namespace detail

/// A view of the diagonal `offset` of the matrices spanned by dims `dim1`
/// and `dim2`; those dims are removed and the diagonal becomes the last
/// dim (torch.diagonal).
template <Expression E>
Tensor<value_type_t<E>> diagonal(const E& input, int64_t offset = 0, int64_t dim1 = 0, int64_t dim2 = 1) {
  using T = value_type_t<E>;
  const Tensor<T> x = input;
  const int64_t d1 = wrap_dim(dim1, x.dim(), "diagonal"), d2 = wrap_dim(dim2, x.dim(), "diagonal");
  detail::check<ValueError>(d1 != d2, "diagonal: diagonal dimensions cannot be identical ", dim1, ", ", dim2);
  if constexpr (differentiable<T>) {
    if (detail::records_grad(x))  // backward: zeros with the gradient written into the same diagonal
      return autograd::record_view(
          x, "DiagonalBackward", [&](const Tensor<T>& s) { return diagonal(s, offset, d1, d2); },
          [offset, d1, d2, in = x.sizes()](const Tensor<T>& g) {
            Tensor<T> z = zeros<T>(in, {.device = g.device()});
            diagonal(z, offset, d1, d2).copy_(g);
            return z;
          });
  }
  const int64_t n1 = x.size(d1), n2 = x.size(d2);
  const int64_t length = std::max<int64_t>(offset >= 0 ? std::min(n1, n2 - offset) : std::min(n1 + offset, n2), 0);
  int64_t storage_offset = x.storage_offset();
  if (length > 0) storage_offset += offset >= 0 ? offset * x.stride(d2) : -offset * x.stride(d1);
  Shape sizes = x.sizes(), strides = x.strides();
  const int64_t step = x.stride(d1) + x.stride(d2);
  sizes.erase(std::max(d1, d2));
  strides.erase(std::max(d1, d2));
  sizes.erase(std::min(d1, d2));
  strides.erase(std::min(d1, d2));
  sizes.push_back(length);
  strides.push_back(step);
  return detail::mark_view(Tensor<value_type_t<E>>::from_storage(x.storage(), sizes, strides, storage_offset), x);
}

/// For a 1-d input, a square matrix with the input on diagonal `diagonal`
/// and zeros elsewhere; for a 2-d input, a copy of that diagonal (torch.diag).
template <Expression E>
Tensor<value_type_t<E>> diag(const E& input, int64_t diagonal = 0) {
  using T = value_type_t<E>;
  const Tensor<T> x = input;
  detail::check<ShapeError>(x.dim() == 1 || x.dim() == 2, "diag: matrix or a vector expected, got a tensor with ",
                            x.dim(), " dims");
  if (x.dim() == 2) return tensorlib::diagonal(x, diagonal).clone();
  if constexpr (differentiable<T>) {
    if (detail::records_grad(x))
      return autograd::record_view(
          x, "DiagBackward", [&](const Tensor<T>& s) { return diag(s, diagonal); },
          [diagonal](const Tensor<T>& g) { return tensorlib::diagonal(g, diagonal); });
  }
  const int64_t n = x.size(0) + (diagonal < 0 ? -diagonal : diagonal);
  auto out = zeros<T>({n, n}, {.device = x.device()});
  if (x.numel() > 0) detail::dispatch_pointwise(tensorlib::diagonal(out, diagonal), x);
  return out;
}

/// A tensor whose 2-d planes in dims (`dim1`, `dim2`) are diagonal
/// matrices with the input's last dimension on diagonal `offset`; the
/// result has one more dimension than the input (torch.diag_embed).
template <Expression E>
Tensor<value_type_t<E>> diag_embed(const E& input, int64_t offset = 0, int64_t dim1 = -2, int64_t dim2 = -1) {
  using T = value_type_t<E>;
  const Tensor<T> x = input;
  const int64_t ndim = x.dim() + 1;
  const int64_t d1 = wrap_dim(dim1, ndim, "diag_embed"), d2 = wrap_dim(dim2, ndim, "diag_embed");
  detail::check<ValueError>(d1 != d2, "diag_embed: diagonal dimensions cannot be identical ", dim1, ", ", dim2);
  const int64_t n = x.size(-1) + (offset < 0 ? -offset : offset);
  Shape sizes = x.sizes();
  sizes.erase(sizes.size() - 1);
  sizes.insert(std::min(d1, d2), n);
  sizes.insert(std::max(d1, d2), n);
  if constexpr (differentiable<T>) {
    if (detail::records_grad(x))
      return autograd::record_view(
          x, "DiagEmbedBackward", [&](const Tensor<T>& s) { return diag_embed(s, offset, d1, d2); },
          [offset, d1, d2](const Tensor<T>& g) { return tensorlib::diagonal(g, offset, d1, d2); });
  }
  auto out = zeros<T>(sizes, {.device = x.device()});
  if (x.numel() > 0) detail::dispatch_pointwise(tensorlib::diagonal(out, offset, d1, d2), x);
  return out;
}

/// `diag` of the flattened input: a square matrix with it on diagonal
/// `offset` (torch.diagflat).
template <Expression E>
Tensor<value_type_t<E>> diagflat(const E& input, int64_t offset = 0) {
  const Tensor<value_type_t<E>> x = input;
  return diag(x.reshape({-1}), offset);
}

/// The sum of the main diagonal of a matrix, as a 0-d tensor; integer
/// inputs give int64, as in PyTorch (torch.trace).
template <Expression E>
auto trace(const E& input) {
  using T = value_type_t<E>;
  static_assert(!std::is_same_v<T, bool>, "trace: not implemented for bool tensors (convert with .to<int64_t>())");
  using R = std::conditional_t<is_floating<T>, T, int64_t>;
  // PyTorch's CPU accumulation types: double for floating point, int64 for integers.
  using Acc = std::conditional_t<is_floating<T>, double, uint64_t>;
  const Tensor<T> x = input;
  detail::check<ShapeError>(x.dim() == 2, "trace: expected a matrix, but got tensor with dim ", x.dim());
  // A GPU sums the diagonal view (a fused reduction, accumulating in double
  // for floating point); so does autograd, recording both.
  bool by_sum = !x.is_cpu();
  if constexpr (differentiable<T>) by_sum = by_sum || detail::records_grad(x);
  if (by_sum) return Tensor<R>(sum(tensorlib::diagonal(x)));
  auto out = empty<R>({}, {.device = x.device()});
  detail::dispatch_cpu_only(x.device(), "trace", [&] {
    const T* p = x.data_ptr();
    const int64_t step = x.stride(0) + x.stride(1), n = std::min(x.size(0), x.size(1));
    Acc sum = 0;  // integers wrap around on overflow (unsigned arithmetic), as in PyTorch
    for (int64_t i = 0; i < n; ++i) sum += static_cast<Acc>(p[i * step]);
    *out.data_ptr() = static_cast<R>(sum);
  });
  return out;
}

/// A copy with the elements above diagonal `diagonal` of the last two dims
/// set to zero (torch.tril).
template <Expression E>
Tensor<value_type_t<E>> tril(const E& input, int64_t diagonal = 0) {
  using T = value_type_t<E>;
  const Tensor<T> x = input;
  if constexpr (differentiable<T>) {
    if (detail::records_grad(x))
      return autograd::record_view(
          x, "TrilBackward", [&](const Tensor<T>& s) { return tril(s, diagonal); },
          [diagonal](const Tensor<T>& g) { return tril(g, diagonal); });
  }
  return detail::triangle(x, diagonal, true, "tril");
}

/// A copy with the elements below diagonal `diagonal` of the last two dims
/// set to zero (torch.triu).
template <Expression E>
Tensor<value_type_t<E>> triu(const E& input, int64_t diagonal = 0) {
  using T = value_type_t<E>;
  const Tensor<T> x = input;
  if constexpr (differentiable<T>) {
    if (detail::records_grad(x))
      return autograd::record_view(
          x, "TriuBackward", [&](const Tensor<T>& s) { return triu(s, diagonal); },
          [diagonal](const Tensor<T>& g) { return triu(g, diagonal); });
  }
  return detail::triangle(x, diagonal, false, "triu");
}

/// The coordinates of the lower triangle (j <= i + offset) of a row x col
/// matrix, as a (2, N) tensor of row indices then column indices
/// (torch.tril_indices). I is int64_t (default) or int32_t.
template <class I = int64_t>
requires std::same_as<I, int64_t> || std::same_as<I, int32_t> Tensor<I> tril_indices(int64_t row, int64_t col,
                                                                                     int64_t offset = 0,
                                                                                     TensorOptions options = {}) {
  return detail::triangle_indices<I>(row, col, offset, true, options, "tril_indices");
}

/// The coordinates of the upper triangle (j >= i + offset) of a row x col
/// matrix, as a (2, N) tensor (torch.triu_indices).
template <class I = int64_t>
requires std::same_as<I, int64_t> || std::same_as<I, int32_t> Tensor<I> triu_indices(int64_t row, int64_t col,
                                                                                     int64_t offset = 0,
                                                                                     TensorOptions options = {}) {
  return detail::triangle_indices<I>(row, col, offset, false, options, "triu_indices");
}

template <Element T>
Tensor<T> Tensor<T>::diagonal(int64_t offset, int64_t dim1, int64_t dim2) const {
  return tensorlib::diagonal(*this, offset, dim1, dim2);
}

template <Element T>
Tensor<T> Tensor<T>::tril(int64_t diagonal) const {
  return tensorlib::tril(*this, diagonal);
}

template <Element T>
Tensor<T> Tensor<T>::triu(int64_t diagonal) const {
  return tensorlib::triu(*this, diagonal);
}

template <Element T>
Tensor<T>& Tensor<T>::tril_(int64_t diagonal) {
  detail::check<ShapeError>(dim() >= 2, "tril_: input tensor must have at least 2 dimensions, got ", dim());
  detail::write_into(*this, tensorlib::tril(*this, diagonal), "tril_");
  return *this;
}

template <Element T>
Tensor<T>& Tensor<T>::triu_(int64_t diagonal) {
  detail::check<ShapeError>(dim() >= 2, "triu_: input tensor must have at least 2 dimensions, got ", dim());
  detail::write_into(*this, tensorlib::triu(*this, diagonal), "triu_");
  return *this;
}

template <class Derived>
auto PointwiseMethods<Derived>::trace() const {
  return tensorlib::trace(self());
}
template <class Derived>
auto PointwiseMethods<Derived>::diag(int64_t diagonal) const {
  return tensorlib::diag(self(), diagonal);
}
template <class Derived>
auto PointwiseMethods<Derived>::diag_embed(int64_t offset, int64_t dim1, int64_t dim2) const {
  return tensorlib::diag_embed(self(), offset, dim1, dim2);
}

// Note [wrapped diagonal]
// PyTorch (and NumPy) define fill_diagonal_'s wrap on the row-major order of
// a tall (rows, cols) matrix: the elements at flat positions k (cols + 1).
// Position k = b cols + c is row b (cols + 1) + c, column c: block b is a
// diagonal starting at row b (cols + 1), so one row between blocks is left
// out. Written as one strided diagonal view per block, it holds for any
// strides (PyTorch's single strided view follows the flat order only when the
// matrix is contiguous).
template <Element T>
Tensor<T>& InplaceMethods<T>::fill_diagonal_(T value, bool wrap) {
  Tensor<T>& x = self();
  const char* op = "fill_diagonal_";
  detail::check<ShapeError>(x.dim() >= 2, op, ": dimensions must larger than 1");
  const int64_t rows = x.size(0), cols = x.size(1);
  for (int64_t d = 1; d < x.dim() && x.dim() > 2; ++d)
    detail::check<ShapeError>(x.size(d) == rows, op, ": all dimensions of input must be of equal length");
  int64_t step = 0;  // one step along every dimension at once
  for (int64_t d = 0; d < x.dim(); ++d) step += x.stride(d);
  const int64_t blocks = wrap && x.dim() == 2 && cols > 0 ? (rows + cols) / (cols + 1) : 1;  // Note [wrapped diagonal]
  for (int64_t b = 0; b < blocks; ++b) {
    const int64_t first = b * (cols + 1), length = std::min(cols, rows - first);
    if (length > 0) x.as_strided({length}, {step}, x.storage_offset() + first * x.stride(0)).fill_(value);
  }
  return x;
}

}  // namespace tensorlib
