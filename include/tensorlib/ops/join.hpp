#pragma once
/// \file
/// Joining and splitting along a dimension: `cat` (`concat`), `stack`,
/// `hstack`, `vstack` copy into a new tensor; `chunk`, `split`,
/// `split_with_sizes`, `tensor_split` and `unbind` return views that alias
/// their input, as in PyTorch. Lists of tensors are `std::vector<Tensor<T>>`
/// (and braces for the joins: `tl::cat({a, b}, 1)`). Ops that take a single
/// input also accept a lazy expression, which they evaluate first.

#include <cstdint>
#include <initializer_list>
#include <ostream>
#include <vector>

#include "tensorlib/backend/cpu/block_copy.hpp"
#include "tensorlib/core/device.hpp"
#include "tensorlib/core/error.hpp"
#include "tensorlib/core/shape.hpp"
#include "tensorlib/core/tensor.hpp"
#include "tensorlib/ops/dispatch.hpp"
#include "tensorlib/ops/evaluate.hpp"
#include "tensorlib/ops/factories.hpp"
#include "tensorlib/ops/views.hpp"

namespace tensorlib {
namespace autograd {

// The recording form of cat (autograd/join_backward.hpp).
template <Element T>
Tensor<T> cat(const std::vector<Tensor<T>>& tensors, int64_t dim);

}  // namespace autograd
namespace detail {

/// Throws a DeviceError unless every tensor is on the device of the first.
template <Element T>
void check_same_device(const std::vector<Tensor<T>>& tensors, const char* op) {
  for (const auto& t : tensors)
    if (t.device() != tensors.front().device()) throw_device_mismatch(op, tensors.front().device(), t.device());
}

/// PyTorch still skips 1-d empty tensors (shape [0]) in `cat`, whatever the
/// other tensors' shapes: `cat({zeros({0}), x})` is `x`.
template <Element T>
bool skipped_in_cat(const Tensor<T>& t) {
  return t.dim() == 1 && t.size(0) == 0;
}

/// Prints an integer list as `[2, 3]` (a `Shape` holds at most 16 entries).
struct IntList {
  const std::vector<int64_t>& values;
  friend std::ostream& operator<<(std::ostream& os, const IntList& list) {
    os << '[';
    for (std::size_t i = 0; i < list.values.size(); ++i) os << (i ? ", " : "") << list.values[i];
    return os << ']';
  }
};

/// Sizes along one dimension of the pieces `split(split_size)` makes.
inline std::vector<int64_t> split_sizes_for(int64_t size, int64_t split_size, const char* op) {
  detail::check<ValueError>(split_size >= 0, op,
                            ": expects split_size be non-negative, but got split_size=", split_size);
  detail::check<ValueError>(split_size > 0 || size == 0, op,
                            ": split_size can only be 0 if dimension size is 0, but got dimension size of ", size);
  if (size == 0) return {0};
  std::vector<int64_t> sizes;
  for (int64_t start = 0; start < size; start += split_size) sizes.push_back(std::min(split_size, size - start));
  return sizes;
}

}  // namespace detail

/// Concatenates tensors along an existing dimension (torch.cat). All must
/// have the same number of dimensions and equal sizes except in `dim`;
/// 1-d empty tensors are skipped, as in PyTorch.
template <Element T>
Tensor<T> cat(const std::vector<Tensor<T>>& tensors, int64_t dim = 0) {
  detail::check<ValueError>(!tensors.empty(), "cat: expected a non-empty list of Tensors");
  if constexpr (differentiable<T>) {
    for (const auto& t : tensors)
      if (detail::records_grad(t)) return autograd::cat(tensors, dim);
  }
  for (std::size_t i = 0; i < tensors.size(); ++i)
    detail::check<ShapeError>(tensors[i].dim() > 0, "cat: zero-dimensional tensor (at position ", i,
                              ") cannot be concatenated");
  detail::check_same_device(tensors, "cat");
  std::size_t ref = 0;
  while (ref < tensors.size() && detail::skipped_in_cat(tensors[ref])) ++ref;
  if (ref == tensors.size()) {  // every input is a 1-d empty tensor
    wrap_dim(dim, 1, "cat");
    return empty<T>({0}, {.device = tensors.front().device()});
  }
  const Tensor<T>& first = tensors[ref];
  const int64_t d = wrap_dim(dim, first.dim(), "cat");
  Shape out_sizes = first.sizes();
  out_sizes[d] = 0;
  for (std::size_t i = ref; i < tensors.size(); ++i) {
    const Tensor<T>& t = tensors[i];
    if (detail::skipped_in_cat(t)) continue;
    detail::check<ShapeError>(t.dim() == first.dim(), "cat: tensors must have same number of dimensions: got ",
                              first.dim(), " and ", t.dim());
    for (int64_t k = 0; k < first.dim(); ++k)
      detail::check<ShapeError>(k == d || t.size(k) == first.size(k),
                                "cat: sizes of tensors must match except in dimension ", d, ". Expected size ",
                                first.size(k), " but got size ", t.size(k), " for tensor number ", i, " in the list.");
    out_sizes[d] += t.size(d);
  }
  auto out = empty<T>(out_sizes, {.device = first.device()});
  if (out.numel() == 0) return out;
  // Contiguous inputs on the host: row copies. Otherwise (and on a GPU) one
  // fused copy kernel per input into its slice of `out`.
  bool all_contiguous = out.is_cpu();
  for (const auto& t : tensors) all_contiguous = all_contiguous && t.is_contiguous();
  if (all_contiguous) {
    // (outer, size_i * inner) blocks of each input become strided rows of out.
    int64_t outer = 1, inner = 1;
    for (int64_t k = 0; k < d; ++k) outer *= out_sizes[k];
    for (int64_t k = d + 1; k < out.dim(); ++k) inner *= out_sizes[k];
    const int64_t out_row = out_sizes[d] * inner;
    int64_t offset = 0;
    for (std::size_t i = ref; i < tensors.size(); ++i) {
      if (detail::skipped_in_cat(tensors[i])) continue;
      const int64_t row = tensors[i].size(d) * inner;
      cpu::copy_rows(out.data_ptr() + offset, out_row, tensors[i].data_ptr(), row, outer, row);
      offset += row;
    }
    return out;
  }
  int64_t offset = 0;
  for (std::size_t i = ref; i < tensors.size(); ++i) {
    if (detail::skipped_in_cat(tensors[i])) continue;
    const int64_t n = tensors[i].size(d);
    detail::dispatch_pointwise(out.narrow(d, offset, n), tensors[i]);
    offset += n;
  }
  return out;
}
/// `cat` of a braced list: `tl::cat({a, b})`.
template <Element T>
Tensor<T> cat(std::initializer_list<Tensor<T>> tensors, int64_t dim = 0) {
  return cat(std::vector<Tensor<T>>(tensors), dim);
}

/// Same as `cat` (torch.concat).
template <Element T>
Tensor<T> concat(const std::vector<Tensor<T>>& tensors, int64_t dim = 0) {
  return cat(tensors, dim);
}
/// `concat` of a braced list: `tl::concat({a, b})`.
template <Element T>
Tensor<T> concat(std::initializer_list<Tensor<T>> tensors, int64_t dim = 0) {
  return cat(std::vector<Tensor<T>>(tensors), dim);
}

/// Joins tensors of equal shape along a new dimension `dim` (torch.stack).
template <Element T>
Tensor<T> stack(const std::vector<Tensor<T>>& tensors, int64_t dim = 0) {
  detail::check<ValueError>(!tensors.empty(), "stack: expects a non-empty TensorList");
  const int64_t d = wrap_dim(dim, tensors.front().dim() + 1, "stack");
  for (std::size_t i = 1; i < tensors.size(); ++i)
    detail::check<ShapeError>(tensors[i].sizes() == tensors.front().sizes(),
                              "stack: expects each tensor to be equal size, but got ", tensors.front().sizes(),
                              " at entry 0 and ", tensors[i].sizes(), " at entry ", i);
  std::vector<Tensor<T>> unsqueezed;
  unsqueezed.reserve(tensors.size());
  for (const auto& t : tensors) unsqueezed.push_back(t.unsqueeze(d));
  return cat(unsqueezed, d);
}
/// `stack` of a braced list: `tl::stack({a, b})`.
template <Element T>
Tensor<T> stack(std::initializer_list<Tensor<T>> tensors, int64_t dim = 0) {
  return stack(std::vector<Tensor<T>>(tensors), dim);
}

/// Concatenates column-wise (torch.hstack): along dim 0 for 1-d inputs,
/// else dim 1; 0-d inputs count as 1-d.
template <Element T>
Tensor<T> hstack(const std::vector<Tensor<T>>& tensors) {
  detail::check<ValueError>(!tensors.empty(), "hstack: expects a non-empty TensorList");
  std::vector<Tensor<T>> parts;
  parts.reserve(tensors.size());
  for (const auto& t : tensors) parts.push_back(t.dim() == 0 ? t.reshape({1}) : t);
  return cat(parts, parts.front().dim() == 1 ? 0 : 1);
}
/// `hstack` of a braced list: `tl::hstack({a, b})`.
template <Element T>
Tensor<T> hstack(std::initializer_list<Tensor<T>> tensors) {
  return hstack(std::vector<Tensor<T>>(tensors));
}

/// Concatenates row-wise (torch.vstack): inputs become at least 2-d
/// ([n] -> [1, n], 0-d -> [1, 1]) and are joined along dim 0.
template <Element T>
Tensor<T> vstack(const std::vector<Tensor<T>>& tensors) {
  detail::check<ValueError>(!tensors.empty(), "vstack: expects a non-empty TensorList");
  std::vector<Tensor<T>> parts;
  parts.reserve(tensors.size());
  for (const auto& t : tensors) parts.push_back(t.dim() >= 2 ? t : t.reshape({1, -1}));
  return cat(parts, 0);
}
/// `vstack` of a braced list: `tl::vstack({a, b})`.
template <Element T>
Tensor<T> vstack(std::initializer_list<Tensor<T>> tensors) {
  return vstack(std::vector<Tensor<T>>(tensors));
}

/// Views of consecutive pieces of `sizes[i]` elements along `dim`, which must
/// add up to the dimension's size (torch.split with a list of sizes).
template <Expression E>
std::vector<Tensor<value_type_t<E>>> split_with_sizes(const E& input, const std::vector<int64_t>& split_sizes,
                                                      int64_t dim = 0) {
  const Tensor<value_type_t<E>> x = input;
  detail::check<ShapeError>(x.dim() > 0, "split_with_sizes: expects at least a 1-dimensional tensor");
  const int64_t d = wrap_dim(dim, x.dim(), "split_with_sizes");
  int64_t total = 0;
  for (int64_t s : split_sizes) {
    detail::check<ValueError>(s >= 0,
                              "split_with_sizes: expects split_sizes have only non-negative entries, but got "
                              "split_sizes=",
                              detail::IntList{split_sizes});
    total += s;
  }
  detail::check<ShapeError>(total == x.size(d), "split_with_sizes: expects split_sizes to sum exactly to ", x.size(d),
                            " (input tensor's size at dimension ", d,
                            "), but got split_sizes=", detail::IntList{split_sizes});
  std::vector<Tensor<value_type_t<E>>> pieces;
  pieces.reserve(split_sizes.size());
  int64_t start = 0;
  for (int64_t s : split_sizes) {
    pieces.push_back(x.narrow(d, start, s));
    start += s;
  }
  return pieces;
}

/// Views of consecutive pieces of `split_size` elements along `dim`; the last
/// may be smaller (torch.split with an int).
template <Expression E>
std::vector<Tensor<value_type_t<E>>> split(const E& input, int64_t split_size, int64_t dim = 0) {
  const Tensor<value_type_t<E>> x = input;
  detail::check<ShapeError>(x.dim() > 0, "split: expects at least a 1-dimensional tensor");
  const int64_t d = wrap_dim(dim, x.dim(), "split");
  return split_with_sizes(x, detail::split_sizes_for(x.size(d), split_size, "split"), d);
}
/// torch.split with a list of sizes (`split_with_sizes`).
template <Expression E>
std::vector<Tensor<value_type_t<E>>> split(const E& input, const std::vector<int64_t>& split_sizes, int64_t dim = 0) {
  return split_with_sizes(input, split_sizes, dim);
}
/// Braces are a list of sizes, as in Python: `tl::split(x, {2}, 0)`.
template <Expression E>
std::vector<Tensor<value_type_t<E>>> split(const E& input, std::initializer_list<int64_t> split_sizes,
                                           int64_t dim = 0) {
  return split_with_sizes(input, std::vector<int64_t>(split_sizes), dim);
}

/// `chunks` views along `dim`, each of ceil(size / chunks) elements except
/// possibly the last; fewer when the size does not allow that many (torch.chunk).
template <Expression E>
std::vector<Tensor<value_type_t<E>>> chunk(const E& input, int64_t chunks, int64_t dim = 0) {
  const Tensor<value_type_t<E>> x = input;
  detail::check<ShapeError>(x.dim() > 0, "chunk: expects at least a 1-dimensional tensor");
  detail::check<ValueError>(chunks > 0, "chunk: expects `chunks` to be greater than 0, got: ", chunks);
  const int64_t d = wrap_dim(dim, x.dim(), "chunk");
  const int64_t size = x.size(d);
  if (size == 0) return split_with_sizes(x, std::vector<int64_t>(static_cast<std::size_t>(chunks), 0), d);
  return split(x, (size + chunks - 1) / chunks, d);
}

/// `sections` views along `dim` whose sizes differ by at most one, the
/// larger first (torch.tensor_split with an int).
template <Expression E>
std::vector<Tensor<value_type_t<E>>> tensor_split(const E& input, int64_t sections, int64_t dim = 0) {
  const Tensor<value_type_t<E>> x = input;
  detail::check<ShapeError>(x.dim() > 0,
                            "tensor_split: expected at least a 1-dimensional tensor, but got a tensor "
                            "with 0 dims");
  detail::check<ValueError>(sections > 0, "tensor_split: number of sections must be larger than 0, got ", sections);
  const int64_t d = wrap_dim(dim, x.dim(), "tensor_split");
  const int64_t size = x.size(d), base = size / sections, extra = size % sections;
  std::vector<int64_t> sizes(static_cast<std::size_t>(sections), base);
  for (int64_t i = 0; i < extra; ++i) sizes[static_cast<std::size_t>(i)] += 1;
  return split_with_sizes(x, sizes, d);
}
/// Views between consecutive `indices` along `dim` (torch.tensor_split with a
/// list): x[:i0], x[i0:i1], ..., x[ik:]. Indices are clamped like Python slices.
template <Expression E>
std::vector<Tensor<value_type_t<E>>> tensor_split(const E& input, const std::vector<int64_t>& indices,
                                                  int64_t dim = 0) {
  const Tensor<value_type_t<E>> x = input;
  detail::check<ShapeError>(x.dim() > 0,
                            "tensor_split: expected at least a 1-dimensional tensor, but got a tensor "
                            "with 0 dims");
  const int64_t d = wrap_dim(dim, x.dim(), "tensor_split");
  std::vector<Tensor<value_type_t<E>>> pieces;
  pieces.reserve(indices.size() + 1);
  int64_t start = 0;
  for (int64_t index : indices) {
    pieces.push_back(x.slice(d, start, index));
    start = index;
  }
  pieces.push_back(x.slice(d, start));
  return pieces;
}
/// Braces are a list of indices, as in Python: `tl::tensor_split(x, {2})`.
template <Expression E>
std::vector<Tensor<value_type_t<E>>> tensor_split(const E& input, std::initializer_list<int64_t> indices,
                                                  int64_t dim = 0) {
  return tensor_split(input, std::vector<int64_t>(indices), dim);
}

/// The slices along `dim`, each without that dimension (torch.unbind); views.
template <Expression E>
std::vector<Tensor<value_type_t<E>>> unbind(const E& input, int64_t dim = 0) {
  const Tensor<value_type_t<E>> x = input;
  detail::check<IndexError>(x.dim() > 0, "unbind: dimension specified as ", dim, " but tensor has no dimensions");
  const int64_t d = wrap_dim(dim, x.dim(), "unbind");
  std::vector<Tensor<value_type_t<E>>> slices;
  slices.reserve(static_cast<std::size_t>(x.size(d)));
  for (int64_t i = 0; i < x.size(d); ++i) slices.push_back(x.select(d, i));
  return slices;
}

template <Element T>
std::vector<Tensor<T>> Tensor<T>::chunk(int64_t chunks, int64_t dim) const {
  return tensorlib::chunk(*this, chunks, dim);
}

template <Element T>
std::vector<Tensor<T>> Tensor<T>::split(int64_t split_size, int64_t dim) const {
  return tensorlib::split(*this, split_size, dim);
}

template <Element T>
std::vector<Tensor<T>> Tensor<T>::split(const std::vector<int64_t>& split_sizes, int64_t dim) const {
  return tensorlib::split_with_sizes(*this, split_sizes, dim);
}

template <Element T>
std::vector<Tensor<T>> Tensor<T>::split(std::initializer_list<int64_t> split_sizes, int64_t dim) const {
  return tensorlib::split_with_sizes(*this, std::vector<int64_t>(split_sizes), dim);
}

template <Element T>
std::vector<Tensor<T>> Tensor<T>::unbind(int64_t dim) const {
  return tensorlib::unbind(*this, dim);
}

/// `chunk`, `split` and `split_with_sizes` under the names PyTorch gives
/// them when their views are not tracked for in-place safety
/// (`torch.unsafe_chunk`, ...): the same views here.
template <Expression E>
std::vector<Tensor<value_type_t<E>>> unsafe_chunk(const E& input, int64_t chunks, int64_t dim = 0) {
  return chunk(input, chunks, dim);
}
template <Expression E>
std::vector<Tensor<value_type_t<E>>> unsafe_split(const E& input, int64_t split_size, int64_t dim = 0) {
  return split(input, split_size, dim);
}
template <Expression E>
std::vector<Tensor<value_type_t<E>>> unsafe_split_with_sizes(const E& input, const std::vector<int64_t>& split_sizes,
                                                             int64_t dim = 0) {
  return split_with_sizes(input, split_sizes, dim);
}

}  // namespace tensorlib
