#pragma once
/// \file
/// NumPy's joins and splits by role rather than by dimension number:
/// `atleast_1d/2d/3d` (views), `column_stack`, `row_stack`, `dstack`,
/// `hsplit`, `vsplit`, `dsplit` (views), `block_diag` and `vander`; and
/// `concatenate`, NumPy's name for `cat`. They are compositions of cat,
/// views, cumprod and flip (ops/join.hpp, ops/views.hpp, ops/scan.hpp,
/// ops/rearrange.hpp), so they differentiate through those and run on
/// any device.

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <vector>

#include "tensorlib/core/error.hpp"
#include "tensorlib/core/shape.hpp"
#include "tensorlib/core/tensor.hpp"
#include "tensorlib/ops/evaluate.hpp"
#include "tensorlib/ops/factories.hpp"
#include "tensorlib/ops/join.hpp"
#include "tensorlib/ops/rearrange.hpp"
#include "tensorlib/ops/scan.hpp"
#include "tensorlib/ops/views.hpp"

namespace tensorlib {

/// `cat` (NumPy's name, torch.concatenate).
template <Element T>
Tensor<T> concatenate(const std::vector<Tensor<T>>& tensors, int64_t dim = 0) {
  return cat(tensors, dim);
}
/// `concatenate` of a braced list.
template <Element T>
Tensor<T> concatenate(std::initializer_list<Tensor<T>> tensors, int64_t dim = 0) {
  return cat(std::vector<Tensor<T>>(tensors), dim);
}

/// x with a size-1 dimension for a 0-d input (torch.atleast_1d); x itself otherwise.
template <Expression E>
Tensor<value_type_t<E>> atleast_1d(const E& input) {
  const Tensor<value_type_t<E>> x = input;
  return x.dim() == 0 ? x.reshape({1}) : x;
}
/// x viewed as at least 2-d: 0-d -> (1, 1), (n) -> (1, n) (torch.atleast_2d).
template <Expression E>
Tensor<value_type_t<E>> atleast_2d(const E& input) {
  const Tensor<value_type_t<E>> x = input;
  return x.dim() >= 2 ? x : x.reshape({1, x.dim() == 0 ? 1 : x.size(0)});
}
/// x viewed as at least 3-d: 0-d -> (1, 1, 1), (n) -> (1, n, 1),
/// (m, n) -> (m, n, 1) (torch.atleast_3d).
template <Expression E>
Tensor<value_type_t<E>> atleast_3d(const E& input) {
  const Tensor<value_type_t<E>> x = input;
  switch (x.dim()) {
    case 0:
      return x.reshape({1, 1, 1});
    case 1:
      return x.reshape({1, x.size(0), 1});
    case 2:
      return x.unsqueeze(2);
    default:
      return x;
  }
}
/// The list forms: each tensor of the list, as the single-tensor form gives it.
template <Element T>
std::vector<Tensor<T>> atleast_1d(const std::vector<Tensor<T>>& tensors) {
  std::vector<Tensor<T>> out;
  for (const auto& t : tensors) out.push_back(atleast_1d(t));
  return out;
}
template <Element T>
std::vector<Tensor<T>> atleast_1d(std::initializer_list<Tensor<T>> tensors) {
  return atleast_1d(std::vector<Tensor<T>>(tensors));
}
template <Element T>
std::vector<Tensor<T>> atleast_2d(const std::vector<Tensor<T>>& tensors) {
  std::vector<Tensor<T>> out;
  for (const auto& t : tensors) out.push_back(atleast_2d(t));
  return out;
}
template <Element T>
std::vector<Tensor<T>> atleast_2d(std::initializer_list<Tensor<T>> tensors) {
  return atleast_2d(std::vector<Tensor<T>>(tensors));
}
template <Element T>
std::vector<Tensor<T>> atleast_3d(const std::vector<Tensor<T>>& tensors) {
  std::vector<Tensor<T>> out;
  for (const auto& t : tensors) out.push_back(atleast_3d(t));
  return out;
}
template <Element T>
std::vector<Tensor<T>> atleast_3d(std::initializer_list<Tensor<T>> tensors) {
  return atleast_3d(std::vector<Tensor<T>>(tensors));
}

/// Joins tensors as the columns of a matrix (torch.column_stack): 0-d and 1-d
/// inputs become (n, 1) columns, then they are joined along dim 1.
template <Element T>
Tensor<T> column_stack(const std::vector<Tensor<T>>& tensors) {
  detail::check<ValueError>(!tensors.empty(), "column_stack: expects a non-empty TensorList");
  std::vector<Tensor<T>> columns;
  for (const auto& t : tensors) columns.push_back(t.dim() <= 1 ? t.reshape({t.numel(), 1}) : t);
  return cat(columns, 1);
}
/// `column_stack` of a braced list.
template <Element T>
Tensor<T> column_stack(std::initializer_list<Tensor<T>> tensors) {
  return column_stack(std::vector<Tensor<T>>(tensors));
}

/// `vstack` (torch.row_stack).
template <Element T>
Tensor<T> row_stack(const std::vector<Tensor<T>>& tensors) {
  return vstack(tensors);
}
/// `row_stack` of a braced list.
template <Element T>
Tensor<T> row_stack(std::initializer_list<Tensor<T>> tensors) {
  return vstack(std::vector<Tensor<T>>(tensors));
}

/// Joins tensors depth-wise (torch.dstack): each becomes `atleast_3d`, then
/// they are joined along dim 2.
template <Element T>
Tensor<T> dstack(const std::vector<Tensor<T>>& tensors) {
  detail::check<ValueError>(!tensors.empty(), "dstack: expects a non-empty TensorList");
  return cat(atleast_3d(tensors), 2);
}
/// `dstack` of a braced list.
template <Element T>
Tensor<T> dstack(std::initializer_list<Tensor<T>> tensors) {
  return dstack(std::vector<Tensor<T>>(tensors));
}

namespace detail {

/// The dimension hsplit, vsplit or dsplit splits, after checking the input
/// has enough dimensions and, for a number of sections, divides evenly.
template <Element T>
int64_t numpy_split_dim(const Tensor<T>& x, int64_t min_dim, int64_t dim, std::optional<int64_t> sections,
                        const char* op) {
  check<ShapeError>(x.dim() >= min_dim, op, ": requires a tensor with at least ", min_dim,
                    min_dim == 1 ? " dimension" : " dimensions", ", but got a tensor with ", x.dim(), " dimensions");
  if (sections) {
    check<ValueError>(*sections > 0, op, ": number of sections must be larger than 0, got ", *sections);
    check<ValueError>(x.size(dim) % *sections == 0, op, ": attempted to split along dimension ", dim,
                      ", but the size of the dimension ", x.size(dim), " is not divisible by the split_size ",
                      *sections, "!");
  }
  return dim;
}

}  // namespace detail

/// `sections` equal views along dim 1, or dim 0 of a 1-d tensor
/// (torch.hsplit); the size must divide evenly.
template <Expression E>
std::vector<Tensor<value_type_t<E>>> hsplit(const E& input, int64_t sections) {
  const Tensor<value_type_t<E>> x = input;
  const int64_t dim = x.dim() == 1 ? 0 : 1;
  return tensor_split(x, sections, detail::numpy_split_dim(x, 1, dim, sections, "hsplit"));
}
/// Views between consecutive `indices` along hsplit's dimension.
template <Expression E>
std::vector<Tensor<value_type_t<E>>> hsplit(const E& input, const std::vector<int64_t>& indices) {
  const Tensor<value_type_t<E>> x = input;
  const int64_t dim = x.dim() == 1 ? 0 : 1;
  return tensor_split(x, indices, detail::numpy_split_dim(x, 1, dim, std::nullopt, "hsplit"));
}
/// Braces are a list of indices, as in Python: `tl::hsplit(x, {1})`.
template <Expression E>
std::vector<Tensor<value_type_t<E>>> hsplit(const E& input, std::initializer_list<int64_t> indices) {
  return hsplit(input, std::vector<int64_t>(indices));
}
/// `sections` equal views along dim 0 of a tensor of 2 or more dimensions (torch.vsplit).
template <Expression E>
std::vector<Tensor<value_type_t<E>>> vsplit(const E& input, int64_t sections) {
  const Tensor<value_type_t<E>> x = input;
  return tensor_split(x, sections, detail::numpy_split_dim(x, 2, 0, sections, "vsplit"));
}
/// Views between consecutive `indices` along dim 0.
template <Expression E>
std::vector<Tensor<value_type_t<E>>> vsplit(const E& input, const std::vector<int64_t>& indices) {
  const Tensor<value_type_t<E>> x = input;
  return tensor_split(x, indices, detail::numpy_split_dim(x, 2, 0, std::nullopt, "vsplit"));
}
/// Braces are a list of indices, as in Python: `tl::vsplit(x, {1})`.
template <Expression E>
std::vector<Tensor<value_type_t<E>>> vsplit(const E& input, std::initializer_list<int64_t> indices) {
  return vsplit(input, std::vector<int64_t>(indices));
}
/// `sections` equal views along dim 2 of a tensor of 3 or more dimensions (torch.dsplit).
template <Expression E>
std::vector<Tensor<value_type_t<E>>> dsplit(const E& input, int64_t sections) {
  const Tensor<value_type_t<E>> x = input;
  return tensor_split(x, sections, detail::numpy_split_dim(x, 3, 2, sections, "dsplit"));
}
/// Views between consecutive `indices` along dim 2.
template <Expression E>
std::vector<Tensor<value_type_t<E>>> dsplit(const E& input, const std::vector<int64_t>& indices) {
  const Tensor<value_type_t<E>> x = input;
  return tensor_split(x, indices, detail::numpy_split_dim(x, 3, 2, std::nullopt, "dsplit"));
}
/// Braces are a list of indices, as in Python: `tl::dsplit(x, {1})`.
template <Expression E>
std::vector<Tensor<value_type_t<E>>> dsplit(const E& input, std::initializer_list<int64_t> indices) {
  return dsplit(input, std::vector<int64_t>(indices));
}

/// The block-diagonal matrix of the inputs (torch.block_diag): 0-d inputs
/// count as (1, 1) and 1-d as (1, n); zeros elsewhere. With no input it is
/// (1, 0), as PyTorch's.
template <Element T>
Tensor<T> block_diag(const std::vector<Tensor<T>>& tensors) {
  if (tensors.empty()) return empty<T>({1, 0});
  std::vector<Tensor<T>> blocks;
  int64_t cols = 0;
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    detail::check<ShapeError>(tensors[i].dim() <= 2,
                              "block_diag: Input tensors must have 2 or fewer dimensions. Input ", i, " has ",
                              tensors[i].dim(), " dimensions");
    blocks.push_back(atleast_2d(tensors[i]));
    cols += blocks.back().size(1);
  }
  detail::check_same_device(tensors, "block_diag");
  const TensorOptions options{.device = tensors.front().device()};
  // Each block's rows, padded with zeros on both sides, then the rows stacked.
  std::vector<Tensor<T>> rows;
  int64_t before = 0;
  for (const auto& b : blocks) {
    const int64_t r = b.size(0), c = b.size(1);
    rows.push_back(cat({zeros<T>({r, before}, options), b, zeros<T>({r, cols - before - c}, options)}, 1));
    before += c;
  }
  return cat(rows, 0);
}
/// `block_diag` of a braced list.
template <Element T>
Tensor<T> block_diag(std::initializer_list<Tensor<T>> tensors) {
  return block_diag(std::vector<Tensor<T>>(tensors));
}

/// The Vandermonde matrix of a 1-d x (torch.vander): column j is x^(N-1-j),
/// or x^j with `increasing`; N defaults to x's length. Integral and bool
/// inputs give int64, as cumprod does.
template <Expression E>
Tensor<detail::sum_result_t<value_type_t<E>>> vander(const E& input, std::optional<int64_t> N = std::nullopt,
                                                     bool increasing = false) {
  using T = value_type_t<E>;
  const Tensor<T> x = input;
  detail::check<ShapeError>(x.dim() == 1, "vander: x must be a one-dimensional tensor, got ", x.dim(), " dimensions");
  const int64_t n = x.size(0), cols = N.value_or(n);
  detail::check<ValueError>(cols >= 0, "vander: N must be non-negative, got ", cols);
  using Out = detail::sum_result_t<T>;
  if (cols == 0) return empty<Out>({n, 0}, {.device = x.device()});
  // [1, x, x, ...] along each row, then its running product: 1, x, x^2, ...
  auto powers = cumprod(cat({ones<T>({n, 1}, {.device = x.device()}), x.unsqueeze(1).expand({n, cols - 1})}, 1), 1);
  return increasing ? powers : powers.flip({1});
}

template <Element T>
std::vector<Tensor<T>> Tensor<T>::hsplit(int64_t sections) const {
  return tensorlib::hsplit(*this, sections);
}
template <Element T>
std::vector<Tensor<T>> Tensor<T>::hsplit(const std::vector<int64_t>& indices) const {
  return tensorlib::hsplit(*this, indices);
}
template <Element T>
std::vector<Tensor<T>> Tensor<T>::hsplit(std::initializer_list<int64_t> indices) const {
  return tensorlib::hsplit(*this, std::vector<int64_t>(indices));
}
template <Element T>
std::vector<Tensor<T>> Tensor<T>::vsplit(int64_t sections) const {
  return tensorlib::vsplit(*this, sections);
}
template <Element T>
std::vector<Tensor<T>> Tensor<T>::vsplit(const std::vector<int64_t>& indices) const {
  return tensorlib::vsplit(*this, indices);
}
template <Element T>
std::vector<Tensor<T>> Tensor<T>::vsplit(std::initializer_list<int64_t> indices) const {
  return tensorlib::vsplit(*this, std::vector<int64_t>(indices));
}
template <Element T>
std::vector<Tensor<T>> Tensor<T>::dsplit(int64_t sections) const {
  return tensorlib::dsplit(*this, sections);
}
template <Element T>
std::vector<Tensor<T>> Tensor<T>::dsplit(const std::vector<int64_t>& indices) const {
  return tensorlib::dsplit(*this, indices);
}
template <Element T>
std::vector<Tensor<T>> Tensor<T>::dsplit(std::initializer_list<int64_t> indices) const {
  return tensorlib::dsplit(*this, std::vector<int64_t>(indices));
}

}  // namespace tensorlib
