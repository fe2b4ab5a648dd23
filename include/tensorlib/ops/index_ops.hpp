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
#include "tensorlib/ops/scan.hpp"

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

/// take()/put()'s bounds check: PyTorch's wording.
inline int64_t checked_flat_index(int64_t i, int64_t numel, const char* op) {
  if (i < -numel || i >= numel) [[unlikely]]
    throw IndexError(
        concat(op, "(): out of range: tried to access index ", i, " on a tensor of ", numel, " elements."));
  return i < 0 ? i + numel : i;
}

/// take()/put()'s check of a GPU index tensor before the launch (one
/// reduction; the host reports the first bad index).
inline void check_flat_indices_on_device(const Tensor<int64_t>& index, int64_t numel, const char* op) {
  if (index.is_cpu() || index.numel() == 0) return;
  NoGradGuard no_grad;
  if (!any(logical_or(index < -numel, index >= numel)).item()) return;
  for (const int64_t i : index.cpu().to_vector()) checked_flat_index(i, numel, op);
}

/// self[.., index[i], ..] = source[.., i, ..] along a dimension
/// (index_copy_), or += alpha * source[.., i, ..] (index_add_); offsets
/// (source, self without the dim, index). On the CPU each index is checked
/// as it is read and repeated indices apply in order; on a GPU they were
/// checked before the launch, a repeated index_copy_ index keeps an
/// unspecified one of its writes and index_add_ adds atomically (PyTorch's
/// CUDA kernels behave alike).
template <Element T>
struct IndexCombineAlong {
  T* out;
  const T* src;
  const int64_t* index;
  int64_t size, step, dim;
  T alpha;
  bool accumulate;
  const char* op;
  TENSORLIB_HOST_DEVICE void operator()(const std::array<int64_t, 3>& o) const {
#if defined(__CUDA_ARCH__)
    T* dst = out + o[1] + index[o[2]] * step;
#else
    T* dst = out + o[1] + checked_index(index[o[2]], size, dim, Negative::rejected, op) * step;
#endif
    const T s = src[o[0]];
    if (!accumulate) {
      *dst = s;
    } else if constexpr (std::is_same_v<T, bool>) {
      write_or_add(dst, alpha && s, true);
    } else {
      add_scaled(dst, alpha, s);
    }
  }

 private:
  /// *dst += alpha * s; the 16-bit types round dst + alpha * s once on
  /// either device (write_or_add would round alpha * s first).
  TENSORLIB_HOST_DEVICE static void add_scaled(T* dst, T alpha, T s) {
#if defined(__CUDA_ARCH__)
    if constexpr (cuda::detail::has_native_atomic_add<T>)
      cuda::detail::atomic_add(dst, static_cast<T>(alpha * s));
    else
      cuda::detail::atomic_update(dst, [=](T d) { return static_cast<T>(d + alpha * s); });
#else
    *dst = static_cast<T>(*dst + alpha * s);
#endif
  }
};

/// index_add_ (accumulate) and index_copy_ on self's device.
template <Element T>
void index_combine(const Tensor<T>& self, int64_t dim_, const Tensor<int64_t>& index_, const Tensor<T>& source_,
                   const char* op, bool accumulate, T alpha) {
  const int64_t dim = wrap_dim(dim_, self.dim(), op);
  check_devices(op, self.device(), index_, source_);
  check_index_source(self, dim, index_, source_, op);
  check_no_internal_overlap(self, op);
  const Tensor<T> s = at_least_1d(self), src = at_least_1d(unaliased(source_, self));
  const Tensor<int64_t> index = unaliased(index_, self);
  const int64_t size = s.size(dim), step = s.stride(dim);
  // index_add_ checks an index it never reads (an empty loop), as PyTorch
  // does; index_copy_ only the indices its loop reads, on either device.
  if (accumulate && src.numel() == 0) check_unread_indices(index, size, dim, op);
  if (accumulate || src.numel() > 0) check_indices_on_device(index, size, dim, op);
  const IndexCombineAlong<T> f{s.data_ptr(), src.data_ptr(), index.data_ptr(), size, step, dim, alpha, accumulate, op};
  dispatch_offsets<3>(self.device(), src.sizes(),
                      {src.strides(), without_dim(s.strides(), dim), along_dim_strides(index, dim, src.dim())}, f, op);
}

/// self[.., index[i], ..] = value along a dimension (index_fill_), negative
/// indices counting from the end; offsets (self without the dim, index).
template <Element T>
struct FillAlong {
  T* out;
  const int64_t* index;
  int64_t size, step, dim;
  T value;
  TENSORLIB_HOST_DEVICE void operator()(const std::array<int64_t, 2>& o) const {
#if defined(__CUDA_ARCH__)
    out[o[0] + wrapped_index(index[o[1]], size) * step] = value;
#else
    out[o[0] + checked_index(index[o[1]], size, dim, Negative::wrapped, "index_fill_") * step] = value;
#endif
  }
};

/// out[o0] = in[index[o1]] with `in` (contiguous) read as 1-d (take).
/// Negative positions count from the end; the host checks them (before a
/// GPU launch, or as they are read).
template <Element T>
struct TakeFlat {
  T* out;
  const T* in;
  const int64_t* index;
  int64_t numel;
  TENSORLIB_HOST_DEVICE void operator()(const std::array<int64_t, 2>& o) const {
#if defined(__CUDA_ARCH__)
    out[o[0]] = in[wrapped_index(index[o[1]], numel)];
#else
    out[o[0]] = in[checked_flat_index(index[o[1]], numel, "take")];
#endif
  }
};

/// self's element at flat position index[k] = source[k] (put_), or +=
/// with `accumulate` (atomically on a GPU; a repeated position without
/// accumulate keeps an unspecified write there, the last one on the CPU).
template <Element T>
struct PutFlat {
  T* out;
  const T* src;
  const int64_t* index;
  FlatLayout layout;
  int64_t numel;
  bool accumulate;
  TENSORLIB_HOST_DEVICE void operator()(const std::array<int64_t, 1>& o) const {
#if defined(__CUDA_ARCH__)
    const int64_t flat = wrapped_index(index[o[0]], numel);
#else
    const int64_t flat = checked_flat_index(index[o[0]], numel, "put_");
#endif
    write_or_add(out + layout.offset(flat), src[o[0]], accumulate);
  }
};

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
  detail::index_combine(self, dim, index, source, "index_add_", true, alpha);
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
  detail::index_combine(self, dim, index, source, "index_copy_", false, T(1));
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
  // Only the indices the loop reads, as on the CPU.
  if (sizes.numel() > 0) detail::check_indices_on_device(index, size, d, "index_fill_", detail::Negative::wrapped);
  const detail::FillAlong<T> f{s.data_ptr(), index.data_ptr(), size, step, d, value};
  detail::dispatch_offsets<2>(self.device(), sizes,
                              {detail::without_dim(s.strides(), d), detail::along_dim_strides(index, d, s.dim())}, f,
                              "index_fill_");
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
  detail::check_flat_indices_on_device(ix, x.numel(), "take");
  const detail::TakeFlat<T> f{out.data_ptr(), x.data_ptr(), ix.data_ptr(), x.numel()};
  detail::dispatch_offsets<2>(input.device(), ix.sizes(), {out.strides(), ix.strides()}, f, "take");
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
  detail::check_flat_indices_on_device(ix, self.numel(), "put_");
  const detail::PutFlat<T> f{self.data_ptr(),          src.data_ptr(), ix.data_ptr(),
                             detail::FlatLayout(self), self.numel(),   accumulate};
  detail::dispatch_offsets<1>(self.device(), Shape{ix.numel()}, {Shape{1}}, f, "put_");
  return self;
}

/// `torch.put(input, index, source, accumulate=False)`.
template <Element T>
Tensor<T> put(const Tensor<T>& input, const Tensor<int64_t>& index, const Tensor<T>& source, bool accumulate = false) {
  detail::check<NotImplementedError>(!detail::records_grad(input, source),
                                     "put: the derivative of put is not implemented yet");
  return put_(input.clone(), index, source, accumulate);
}

namespace detail {

/// Note [compaction on a GPU]
/// nonzero, masked_select and masked_scatter_ number the selected elements
/// in row-major order with a cumsum of the mask (one scan kernel); the count
/// is the scan's last element, copied to the host (PyTorch's CUDA nonzero
/// and masked_select synchronize there too); then one kernel moves each
/// selected element to, or from, its number. The CPU keeps its sequential
/// loops; the tests run this path on the CPU against them.

/// The 1-based rank of each element among the true ones of a contiguous
/// mask (row-major, the mask's shape), and their count.
struct MaskRanks {
  Tensor<int64_t> rank;
  int64_t count = 0;
};

inline MaskRanks mask_ranks(const Tensor<bool>& mask) {
  const int64_t n = mask.numel();
  if (n == 0) return {zeros<int64_t>(mask.sizes(), {.device = mask.device()}), 0};
  Tensor<int64_t> rank = cumsum(mask.reshape({-1}), 0);
  const int64_t count = rank.select(0, n - 1).item();
  return {rank, count};
}

/// The coordinates of each true element of a contiguous mask (offset o0)
/// into row rank - 1 of out [count, ndim] (nonzero).
struct NonzeroCoords {
  int64_t* out;
  const bool* mask;
  const int64_t* rank;
  FlatLayout shape;  // sizes only
  TENSORLIB_HOST_DEVICE void operator()(const std::array<int64_t, 1>& o) const {
    if (!mask[o[0]]) return;
    int64_t* row = out + (rank[o[0]] - 1) * shape.ndim;
    int64_t flat = o[0];
    for (int d = shape.ndim - 1; d >= 0; --d) {
      row[d] = flat % shape.sizes[d];
      flat /= shape.sizes[d];
    }
  }
};

/// out[rank - 1] = in[o0] where the contiguous mask (offset o1) is true
/// (masked_select), or, with `expand`, in[o0] = src[rank - 1] there
/// (masked_scatter_).
template <Element T>
struct MoveSelected {
  T* data;    // masked_select: the input (read); masked_scatter_: self (written)
  T* packed;  // masked_select: the output; masked_scatter_: the source
  const bool* mask;
  const int64_t* rank;
  bool expand;
  TENSORLIB_HOST_DEVICE void operator()(const std::array<int64_t, 2>& o) const {
    if (!mask[o[1]]) return;
    if (expand)
      data[o[0]] = packed[rank[o[1]] - 1];
    else
      packed[rank[o[1]] - 1] = data[o[0]];
  }
};

/// nonzero of a contiguous x by Note [compaction on a GPU].
template <Element T>
Tensor<int64_t> nonzero_by_ranks(const Tensor<T>& x) {
  const Tensor<bool> mask = x != T(0);
  const MaskRanks r = mask_ranks(mask);
  auto out = empty<int64_t>({r.count, x.dim()}, {.device = x.device()});
  const NonzeroCoords f{out.data_ptr(), mask.data_ptr(), r.rank.data_ptr(), FlatLayout(x)};
  dispatch_offsets<1>(x.device(), Shape{x.numel()}, {Shape{1}}, f, "nonzero");
  return out;
}

}  // namespace detail

/// `torch.nonzero(input)`: a (n, input.dim()) tensor of the coordinates of
/// the nonzero elements (NaN counts as nonzero), in row-major order.
template <Expression E>
Tensor<int64_t> nonzero(const E& input) {
  using T = value_type_t<E>;
  const Tensor<T> x = Tensor<T>(input).contiguous();
  if (!x.is_cpu()) return detail::nonzero_by_ranks(x);
  std::vector<int64_t> coords;
  {
    const T* p = x.data_ptr();
    const int64_t nd = x.dim();
    std::vector<int64_t> at(static_cast<std::size_t>(nd), 0);
    for (int64_t k = 0; k < x.numel(); ++k) {
      if (p[k] != T(0)) coords.insert(coords.end(), at.begin(), at.end());
      for (int64_t d = nd - 1; d >= 0 && ++at[static_cast<std::size_t>(d)] == x.size(d); --d)
        at[static_cast<std::size_t>(d)] = 0;
    }
  }
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
