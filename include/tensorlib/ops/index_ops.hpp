#pragma once
/// \file
/// Ops indexed by a vector of positions along one dimension (`index_select`,
/// `index_add`, `index_copy`, `index_fill`), by flat row-major positions
/// (`take`, `put`), and the positions of nonzero elements (`nonzero`,
/// `argwhere`, one-argument `where`), with PyTorch 1.13's CPU semantics.
/// Negative indices count from the end for index_fill, take and put; as in
/// PyTorch 1.13 they are out of range for index_select, index_add and
/// index_copy. Repeated indices accumulate in index_add and put(accumulate);
/// in index_copy and put the last write (in index order) wins.

#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

#include "tensorlib/backend/cpu/strided_loop.hpp"
#include "tensorlib/core/error.hpp"
#include "tensorlib/core/shape.hpp"
#include "tensorlib/core/tensor.hpp"
#include "tensorlib/ops/copy.hpp"
#include "tensorlib/ops/dispatch.hpp"
#include "tensorlib/ops/evaluate.hpp"
#include "tensorlib/ops/factories.hpp"
#include "tensorlib/ops/gather_scatter.hpp"
#include "tensorlib/ops/index_common.hpp"

namespace tensorlib {
namespace autograd {

// The recording forms (autograd/index_backward.hpp).
template <Element T>
Tensor<T> index_select(const Tensor<T>& input, int64_t dim, const Tensor<int64_t>& index);
template <Element T>
Tensor<T> index_add(const Tensor<T>& input, int64_t dim, const Tensor<int64_t>& index, const Tensor<T>& source,
                    T alpha);
template <Element T>
Tensor<T> index_copy(const Tensor<T>& input, int64_t dim, const Tensor<int64_t>& index, const Tensor<T>& source);
template <Element T>
Tensor<T> index_fill(const Tensor<T>& input, int64_t dim, const Tensor<int64_t>& index, T value);
template <Element T>
Tensor<T> take(const Tensor<T>& input, const Tensor<int64_t>& index);

}  // namespace autograd
namespace detail {

/// The index of index_add/index_copy/index_fill/index_select: 0-d or 1-d.
inline void check_index_vector(const Tensor<int64_t>& index, const char* op) {
  check<ShapeError>(index.dim() <= 1, op, "(): Index is supposed to be a vector, but got a ", index.dim(),
                    "-d tensor of shape ", index.sizes());
}

/// index_add_/index_copy_'s source: self's shape with index.numel() along dim.
template <Element T>
void check_index_source(const Tensor<T>& self, int64_t dim, const Tensor<int64_t>& index, const Tensor<T>& source,
                        const char* op) {
  check_index_vector(index, op);
  check<ShapeError>(nonempty_dim(source) == nonempty_dim(self), op, "(): source (", source.sizes(), ") and self (",
                    self.sizes(), ") must have the same number of dimensions");
  const Tensor<T> s = at_least_1d(self), src = at_least_1d(source);
  check<ShapeError>(src.size(dim) == index.numel(), op, "(): Number of indices (", index.numel(),
                    ") should be equal to source.size(dim) (", src.size(dim), ")");
  for (int64_t d = 0; d < s.dim(); ++d)
    check<ShapeError>(d == dim || s.size(d) == src.size(d), op, "(): source ", source.sizes(), " and self ",
                      self.sizes(), " must have the same size apart from dimension ", dim);
}

/// self[.., index[i], ..] = f(self[.., index[i], ..], source[.., i, ..]) along dim.
template <Element T, class F>
void index_combine(const Tensor<T>& self, int64_t dim_, const Tensor<int64_t>& index_, const Tensor<T>& source_,
                   const char* op, bool check_unread, F f) {
  const int64_t dim = wrap_dim(dim_, self.dim(), op);
  check_devices(op, self.device(), index_, source_);
  check_index_source(self, dim, index_, source_, op);
  check_no_internal_overlap(self, op);
  const Tensor<T> s = at_least_1d(self), src = at_least_1d(unaliased(source_, self));
  const Tensor<int64_t> index = unaliased(index_, self);
  const int64_t size = s.size(dim), step = s.stride(dim);
  if (check_unread && src.numel() == 0) check_unread_indices(index, size, dim, op);
  T* out = s.data_ptr();
  const T* in = src.data_ptr();
  const int64_t* idx = index.data_ptr();
  dispatch_cpu_only(self.device(), op, [&] {
    cpu::for_each_offsets<3>(src.sizes(),
                             {src.strides(), without_dim(s.strides(), dim), along_dim_strides(index, dim, src.dim())},
                             [&](const std::array<int64_t, 3>& o) {
                               const int64_t i = checked_index(idx[o[2]], size, dim, Negative::rejected, op);
                               T& dst = out[o[1] + i * step];
                               dst = f(dst, in[o[0]]);
                             });
  });
}

/// Offset in `t`'s storage of the element with row-major position `flat`.
template <Element T>
int64_t flat_offset(const Tensor<T>& t, int64_t flat) {
  int64_t off = 0;
  for (int64_t d = t.dim() - 1; d >= 0; --d) {
    off += (flat % t.size(d)) * t.stride(d);
    flat /= t.size(d);
  }
  return off;
}

/// take()/put()'s bounds check: PyTorch's wording.
inline int64_t checked_flat_index(int64_t i, int64_t numel, const char* op) {
  if (i < -numel || i >= numel) [[unlikely]]
    throw IndexError(
        concat(op, "(): out of range: tried to access index ", i, " on a tensor of ", numel, " elements."));
  return i < 0 ? i + numel : i;
}

}  // namespace detail

/// `torch.index_select(input, dim, index)`: the slices of `input` at the
/// positions `index` (0-d or 1-d, values in [0, size)) lists along `dim`.
template <Element T>
Tensor<T> index_select(const Tensor<T>& input, int64_t dim, const Tensor<int64_t>& index) {
  if constexpr (differentiable<T>) {
    if (detail::records_grad(input)) return autograd::index_select(input, dim, index);
  }
  const int64_t d = wrap_dim(dim, input.dim(), "index_select");
  detail::check_devices("index_select", input.device(), index);
  detail::check_index_vector(index, "index_select");
  const Tensor<T> x = detail::at_least_1d(input);
  Shape sizes = x.sizes();
  sizes[d] = index.numel();
  if (input.dim() == 0)
    detail::check<ShapeError>(index.numel() == 1, "index_select(): a 0-d input takes exactly one index, got ",
                              index.numel());
  auto out = empty<T>(input.dim() == 0 ? Shape{} : sizes, {.device = input.device()});
  const Tensor<T> o1 = detail::at_least_1d(out);
  detail::check_indices_on_device(index, x.size(d), d, "index_select");
  if (out.numel() == 0) detail::check_unread_indices(index, x.size(d), d, "index_select");
  const detail::SelectAlong<T> f{o1.data_ptr(), x.data_ptr(), index.data_ptr(), x.size(d), x.stride(d), d,
                                 "index_select"};
  detail::dispatch_offsets<3>(
      input.device(), sizes,
      {o1.strides(), detail::without_dim(x.strides(), d), detail::along_dim_strides(index, d, x.dim())}, f,
      "index_select");
  return out;
}

/// `index_select` with an int32 index, which PyTorch also accepts (it is
/// widened to int64; the other index ops take int64 only, as in PyTorch).
template <Element T>
Tensor<T> index_select(const Tensor<T>& input, int64_t dim, const Tensor<int32_t>& index) {
  return index_select(input, dim, index.template to<int64_t>());
}

/// `Tensor.index_add_(dim, index, source, alpha=1)`: self[index[i]] += alpha * source[i]
/// along `dim`; repeated indices accumulate.
template <Element T>
Tensor<T> index_add_(const Tensor<T>& self, int64_t dim, const Tensor<int64_t>& index, const Tensor<T>& source,
                     T alpha = T(1)) {
  if (detail::inplace_through(self, "index_add_", source.requires_grad(),
                              [&](const Tensor<T>& old) { return index_add(old, dim, index, source, alpha); }))
    return self;
  detail::begin_inplace(self, "index_add_", source.requires_grad());
  detail::index_combine(self, dim, index, source, "index_add_", true, [alpha](T a, T b) {
    if constexpr (std::is_same_v<T, bool>)
      return a || (alpha && b);
    else
      return static_cast<T>(a + alpha * b);
  });
  return self;
}

/// `index_add_` with an int32 index (widened to int64), as PyTorch accepts.
template <Element T>
Tensor<T> index_add_(const Tensor<T>& self, int64_t dim, const Tensor<int32_t>& index, const Tensor<T>& source,
                     T alpha = T(1)) {
  return index_add_(self, dim, index.template to<int64_t>(), source, alpha);
}

/// `torch.index_add(input, dim, index, source, alpha=1)`.
template <Element T>
Tensor<T> index_add(const Tensor<T>& input, int64_t dim, const Tensor<int64_t>& index, const Tensor<T>& source,
                    T alpha = T(1)) {
  if constexpr (differentiable<T>) {
    if (detail::records_grad(input, source)) return autograd::index_add(input, dim, index, source, alpha);
  }
  return index_add_(input.clone(), dim, index, source, alpha);
}

/// `Tensor.index_copy_(dim, index, source)`: self[index[i]] = source[i] along `dim`.
template <Element T>
Tensor<T> index_copy_(const Tensor<T>& self, int64_t dim, const Tensor<int64_t>& index, const Tensor<T>& source) {
  if (detail::inplace_through(self, "index_copy_", source.requires_grad(),
                              [&](const Tensor<T>& old) { return index_copy(old, dim, index, source); }))
    return self;
  detail::begin_inplace(self, "index_copy_", source.requires_grad());
  detail::index_combine(self, dim, index, source, "index_copy_", false, [](T, T b) { return b; });
  return self;
}

/// `torch.index_copy(input, dim, index, source)`.
template <Element T>
Tensor<T> index_copy(const Tensor<T>& input, int64_t dim, const Tensor<int64_t>& index, const Tensor<T>& source) {
  if constexpr (differentiable<T>) {
    if (detail::records_grad(input, source)) return autograd::index_copy(input, dim, index, source);
  }
  return index_copy_(input.clone(), dim, index, source);
}

/// `Tensor.index_fill_(dim, index, value)`: sets the slices at `index`
/// (negative positions count from the end) along `dim` to `value`.
template <Element T>
Tensor<T> index_fill_(const Tensor<T>& self, int64_t dim, const Tensor<int64_t>& index_, T value) {
  if (detail::inplace_through(self, "index_fill_", false,
                              [&](const Tensor<T>& old) { return index_fill(old, dim, index_, value); }))
    return self;
  detail::begin_inplace(self, "index_fill_", false);
  const int64_t d = wrap_dim(dim, self.dim(), "index_fill_");
  detail::check_devices("index_fill_", self.device(), index_);
  detail::check_index_vector(index_, "index_fill_");
  detail::check_no_internal_overlap(self, "index_fill_");
  const Tensor<int64_t> index = detail::unaliased(index_, self);
  const Tensor<T> s = detail::at_least_1d(self);
  Shape sizes = s.sizes();
  sizes[d] = index.numel();
  const int64_t size = s.size(d), step = s.stride(d);
  T* out = s.data_ptr();
  const int64_t* idx = index.data_ptr();
  detail::dispatch_cpu_only(self.device(), "index_fill_", [&] {
    cpu::for_each_offsets<2>(sizes, {detail::without_dim(s.strides(), d), detail::along_dim_strides(index, d, s.dim())},
                             [&](const std::array<int64_t, 2>& o) {
                               const int64_t i =
                                   detail::checked_index(idx[o[1]], size, d, detail::Negative::wrapped, "index_fill_");
                               out[o[0] + i * step] = value;
                             });
  });
  return self;
}

/// `torch.index_fill(input, dim, index, value)`.
template <Element T>
Tensor<T> index_fill(const Tensor<T>& input, int64_t dim, const Tensor<int64_t>& index, T value) {
  if constexpr (differentiable<T>) {
    if (detail::records_grad(input)) return autograd::index_fill(input, dim, index, value);
  }
  return index_fill_(input.clone(), dim, index, value);
}

/// `torch.take(input, index)`: input read as 1-d (row-major) at the
/// positions `index` holds (negative ones count from the end); index's shape.
template <Element T>
Tensor<T> take(const Tensor<T>& input, const Tensor<int64_t>& index) {
  if constexpr (differentiable<T>) {
    if (detail::records_grad(input)) return autograd::take(input, index);
  }
  detail::check_devices("take", input.device(), index);
  auto out = empty<T>(index.sizes(), {.device = input.device()});
  const Tensor<T> x = input.contiguous();
  const Tensor<int64_t> ix = index.contiguous();
  const int64_t n = x.numel();
  detail::dispatch_cpu_only(input.device(), "take", [&] {
    const T* in = x.data_ptr();
    const int64_t* idx = ix.data_ptr();
    T* dst = out.data_ptr();
    for (int64_t k = 0; k < ix.numel(); ++k) dst[k] = in[detail::checked_flat_index(idx[k], n, "take")];
  });
  return out;
}

/// `Tensor.put_(index, source, accumulate=False)`: writes source's elements
/// (row-major) at the flat positions `index` holds, or adds them.
template <Element T>
Tensor<T> put_(const Tensor<T>& self, const Tensor<int64_t>& index, const Tensor<T>& source, bool accumulate = false) {
  if (detail::inplace_through(self, "put_", source.requires_grad(),
                              [&](const Tensor<T>& old) { return put(old, index, source, accumulate); }))
    return self;
  detail::begin_inplace(self, "put_", source.requires_grad());
  detail::check_devices("put_", self.device(), index, source);
  detail::check<ShapeError>(index.numel() == source.numel(),
                            "put_(): Expected source and index to have the same number of elements, but got "
                            "source.numel() = ",
                            source.numel(), ", index.numel() = ", index.numel());
  detail::check_no_internal_overlap(self, "put_");
  const Tensor<int64_t> ix = detail::unaliased(index, self).contiguous();
  const Tensor<T> src = detail::unaliased(source, self).contiguous();
  const int64_t n = self.numel();
  detail::dispatch_cpu_only(self.device(), "put_", [&] {
    T* out = self.data_ptr();
    const int64_t* idx = ix.data_ptr();
    const T* in = src.data_ptr();
    for (int64_t k = 0; k < ix.numel(); ++k) {
      T& dst = out[detail::flat_offset(self, detail::checked_flat_index(idx[k], n, "put_"))];
      if (!accumulate)
        dst = in[k];
      else if constexpr (std::is_same_v<T, bool>)
        dst = dst || in[k];
      else
        dst = static_cast<T>(dst + in[k]);
    }
  });
  return self;
}

/// `torch.put(input, index, source, accumulate=False)`.
template <Element T>
Tensor<T> put(const Tensor<T>& input, const Tensor<int64_t>& index, const Tensor<T>& source, bool accumulate = false) {
  detail::check<NotImplementedError>(!detail::records_grad(input, source),
                                     "put: the derivative of put is not implemented yet");
  return put_(input.clone(), index, source, accumulate);
}

/// `torch.nonzero(input)`: a (n, input.dim()) tensor of the coordinates of
/// the nonzero elements (NaN counts as nonzero), in row-major order.
template <Expression E>
Tensor<int64_t> nonzero(const E& input) {
  using T = value_type_t<E>;
  const Tensor<T> x = Tensor<T>(input).contiguous();
  std::vector<int64_t> coords;
  detail::dispatch_cpu_only(x.device(), "nonzero", [&] {
    const T* p = x.data_ptr();
    const int64_t nd = x.dim();
    std::vector<int64_t> at(static_cast<std::size_t>(nd), 0);
    for (int64_t k = 0; k < x.numel(); ++k) {
      if (p[k] != T(0)) coords.insert(coords.end(), at.begin(), at.end());
      for (int64_t d = nd - 1; d >= 0 && ++at[static_cast<std::size_t>(d)] == x.size(d); --d)
        at[static_cast<std::size_t>(d)] = 0;
    }
  });
  const int64_t nd = x.dim();
  const int64_t count = nd == 0 ? (x.numel() == 1 && x.item() != T(0) ? 1 : 0) : int64_t(coords.size()) / nd;
  auto out = empty<int64_t>({count, nd});
  std::copy(coords.begin(), coords.end(), out.data_ptr());
  return out;
}

/// `torch.argwhere(input)`: the same as `nonzero(input)`.
template <Expression E>
Tensor<int64_t> argwhere(const E& input) {
  return nonzero(input);
}

/// `torch.nonzero(input, as_tuple=True)`: one 1-d tensor of coordinates per
/// dimension (a 0-d input counts as 1-d).
template <Expression E>
std::vector<Tensor<int64_t>> nonzero_as_tuple(const E& input) {
  const Tensor<int64_t> nz = nonzero(detail::at_least_1d(Tensor<value_type_t<E>>(input)));
  std::vector<Tensor<int64_t>> out;
  for (int64_t d = 0; d < nz.size(1); ++d) out.push_back(nz.select(1, d).contiguous());
  return out;
}

/// `torch.where(condition)`: `nonzero_as_tuple(condition)`.
template <Expression E>
std::vector<Tensor<int64_t>> where(const E& condition) {
  return nonzero_as_tuple(condition);
}

template <Element T>
Tensor<T> Tensor<T>::index_select(int64_t dim, const Tensor<int64_t>& index) const {
  return tl::index_select(*this, dim, index);
}
template <Element T>
Tensor<T> Tensor<T>::index_select(int64_t dim, const Tensor<int32_t>& index) const {
  return tl::index_select(*this, dim, index);
}
template <Element T>
Tensor<T>& Tensor<T>::index_add_(int64_t dim, const Tensor<int32_t>& index, const Tensor& source, T alpha) {
  tl::index_add_(*this, dim, index, source, alpha);
  return *this;
}
template <Element T>
Tensor<T> Tensor<T>::index_add(int64_t dim, const Tensor<int64_t>& index, const Tensor& source, T alpha) const {
  return tl::index_add(*this, dim, index, source, alpha);
}
template <Element T>
Tensor<T>& Tensor<T>::index_add_(int64_t dim, const Tensor<int64_t>& index, const Tensor& source, T alpha) {
  tl::index_add_(*this, dim, index, source, alpha);
  return *this;
}
template <Element T>
Tensor<T> Tensor<T>::index_copy(int64_t dim, const Tensor<int64_t>& index, const Tensor& source) const {
  return tl::index_copy(*this, dim, index, source);
}
template <Element T>
Tensor<T>& Tensor<T>::index_copy_(int64_t dim, const Tensor<int64_t>& index, const Tensor& source) {
  tl::index_copy_(*this, dim, index, source);
  return *this;
}
template <Element T>
Tensor<T> Tensor<T>::index_fill(int64_t dim, const Tensor<int64_t>& index, T value) const {
  return tl::index_fill(*this, dim, index, value);
}
template <Element T>
Tensor<T>& Tensor<T>::index_fill_(int64_t dim, const Tensor<int64_t>& index, T value) {
  tl::index_fill_(*this, dim, index, value);
  return *this;
}
template <Element T>
Tensor<T> Tensor<T>::take(const Tensor<int64_t>& index) const {
  return tl::take(*this, index);
}
template <Element T>
Tensor<T> Tensor<T>::put(const Tensor<int64_t>& index, const Tensor& source, bool accumulate) const {
  return tl::put(*this, index, source, accumulate);
}
template <Element T>
Tensor<T>& Tensor<T>::put_(const Tensor<int64_t>& index, const Tensor& source, bool accumulate) {
  tl::put_(*this, index, source, accumulate);
  return *this;
}
template <Element T>
Tensor<int64_t> Tensor<T>::nonzero() const {
  return tl::nonzero(*this);
}
template <Element T>
Tensor<int64_t> Tensor<T>::argwhere() const {
  return tl::argwhere(*this);
}

}  // namespace tensorlib
