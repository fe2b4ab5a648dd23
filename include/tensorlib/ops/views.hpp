#pragma once
/// \file
/// Views: tensors that alias their input's storage with new sizes, strides or
/// offset (`view`, `reshape`, `permute`, `expand`, `slice`, `index`, ...).
/// Pure stride arithmetic; nothing is copied except by `reshape` when no view
/// exists. Errors follow PyTorch's wording.

#include <algorithm>
#include <array>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

#include "tensorlib/backend/cuda/atomic_update.hpp"
#include "tensorlib/core/error.hpp"
#include "tensorlib/core/grad_mode.hpp"
#include "tensorlib/core/shape.hpp"
#include "tensorlib/core/slice.hpp"
#include "tensorlib/core/tensor.hpp"
#include "tensorlib/core/tensor_index.hpp"
#include "tensorlib/ops/dispatch.hpp"
#include "tensorlib/ops/evaluate.hpp"
#include "tensorlib/ops/factories.hpp"

namespace tensorlib {
namespace autograd {

/// The recording form of a view (autograd/view_backward.hpp), or of any
/// one-input op whose backward needs nothing but the incoming gradient
/// (flip, roll, repeat): `view(self)` run without recording, with
/// `backward(grad_out)` -> grad_self as its node.
template <Element T, class ViewFn, class BackwardFn>
Tensor<T> record_view(const Tensor<T>& self, const char* name, ViewFn view, BackwardFn backward);

}  // namespace autograd
namespace detail {

/// Marks `view` as a view of `of` (TensorImpl::view_base: the root).
template <Element T>
Tensor<T> mark_view(Tensor<T> view, const Tensor<T>& of) {
  view.impl()->view_base = of.impl()->view_base ? of.impl()->view_base : of.impl();
  return view;
}

template <Element T>
Tensor<T> restride(const Tensor<T>& t, const Shape& sizes, const Shape& strides, int64_t offset) {
  return mark_view(Tensor<T>::from_storage(t.storage(), sizes, strides, offset), t);
}

/// Replaces one -1 in `sizes` so that the product is `numel`.
inline Shape infer_size(const Shape& sizes, int64_t numel, const char* op) {
  Shape out = sizes;
  int64_t known = 1;
  int64_t infer = -1;
  for (int64_t d = 0; d < sizes.size(); ++d) {
    if (sizes[d] == -1) {
      detail::check<ValueError>(infer < 0, op, ": only one dimension can be inferred");
      infer = d;
    } else {
      detail::check<ValueError>(sizes[d] >= 0, op, ": invalid shape dimension ", sizes[d]);
      known = checked_mul(known, sizes[d], op);
    }
  }
  const bool ok = infer >= 0 ? known != 0 && numel % known == 0 : known == numel;
  detail::check<ShapeError>(ok, op, ": shape '", sizes, "' is invalid for input of size ", numel);
  if (infer >= 0) out[infer] = numel / known;
  return out;
}

/// Strides that view a tensor of (sizes, strides) as `target` without copying,
/// if they exist: each run of dimensions that is contiguous in memory must be
/// split or merged as a whole (PyTorch's computeStride).
inline std::optional<Shape> view_strides(const Shape& sizes, const Shape& strides, const Shape& target) {
  if (sizes.empty()) return Shape::filled(target.size(), 1);
  const int64_t numel = sizes.numel();
  if (numel == 0 && sizes == target) return strides;
  Shape out = Shape::filled(target.size(), 0);
  if (numel == 0) return contiguous_strides(target);
  int64_t view_d = target.size() - 1;
  int64_t chunk_stride = strides.back();
  int64_t tensor_numel = 1, view_numel = 1;
  for (int64_t d = sizes.size() - 1; d >= 0; --d) {
    tensor_numel *= sizes[d];
    const bool chunk_ends = d == 0 || (sizes[d - 1] != 1 && strides[d - 1] != tensor_numel * chunk_stride);
    if (!chunk_ends) continue;
    while (view_d >= 0 && (view_numel < tensor_numel || target[view_d] == 1)) {
      out[view_d] = view_numel * chunk_stride;
      view_numel *= target[view_d];
      --view_d;
    }
    if (view_numel != tensor_numel) return std::nullopt;
    if (d > 0) {
      chunk_stride = strides[d - 1];
      tensor_numel = 1;
      view_numel = 1;
    }
  }
  if (view_d != -1) return std::nullopt;
  return out;
}

}  // namespace detail

template <Element T>
Tensor<T> Tensor<T>::view(const Shape& sizes) const {
  if constexpr (differentiable<T>) {
    if (detail::records_grad(*this))
      return autograd::record_view(
          *this, "ViewBackward", [&](const Tensor& s) { return s.view(sizes); },
          [in = this->sizes()](const Tensor& g) { return g.reshape(in); });
  }
  const Shape target = detail::infer_size(sizes, numel(), "view");
  const auto strides = detail::view_strides(this->sizes(), this->strides(), target);
  detail::check<ShapeError>(strides.has_value(),
                            "view: view size is not compatible with input tensor's size and stride (at least one "
                            "dimension spans across two contiguous subspaces). Use .reshape(...) instead.");
  return detail::restride(*this, target, *strides, storage_offset());
}

template <Element T>
Tensor<T> Tensor<T>::reshape(const Shape& sizes) const {
  if constexpr (differentiable<T>) {
    if (detail::records_grad(*this))
      return autograd::record_view(
          *this, "ReshapeBackward", [&](const Tensor& s) { return s.reshape(sizes); },
          [in = this->sizes()](const Tensor& g) { return g.reshape(in); });
  }
  const Shape target = detail::infer_size(sizes, numel(), "reshape");
  if (const auto viewed = detail::view_strides(this->sizes(), this->strides(), target))
    return detail::restride(*this, target, *viewed, storage_offset());
  return contiguous().view(target);  // not viewable, so not contiguous: a copy
}

template <Element T>
Tensor<T> Tensor<T>::flatten(int64_t start_dim, int64_t end_dim) const {
  const int64_t s = wrap_dim(start_dim, dim(), "flatten"), e = wrap_dim(end_dim, dim(), "flatten");
  if (dim() == 0) return reshape({1});
  detail::check<ValueError>(s <= e, "flatten: start_dim cannot come after end_dim");
  Shape target;
  for (int64_t d = 0; d < s; ++d) target.push_back(size(d));
  int64_t merged = 1;
  for (int64_t d = s; d <= e; ++d) merged = checked_mul(merged, size(d), "flatten");
  target.push_back(merged);
  for (int64_t d = e + 1; d < dim(); ++d) target.push_back(size(d));
  return reshape(target);
}

template <Element T>
Tensor<T> Tensor<T>::unflatten(int64_t dim_, const Shape& sizes) const {
  detail::check<IndexError>(dim() > 0, "unflatten: dimension specified as ", dim_, " but tensor has no dimensions");
  const int64_t d = wrap_dim(dim_, dim(), "unflatten");
  detail::check<ValueError>(!sizes.empty(), "unflatten: sizes must be non-empty");
  const Shape inner = detail::infer_size(sizes, size(d), "unflatten");
  Shape target;
  for (int64_t i = 0; i < d; ++i) target.push_back(size(i));
  for (int64_t s : inner) target.push_back(s);
  for (int64_t i = d + 1; i < dim(); ++i) target.push_back(size(i));
  return view(target);
}

template <Element T>
Tensor<T> Tensor<T>::permute(const Shape& dims) const {
  if constexpr (differentiable<T>) {
    if (detail::records_grad(*this)) {
      return autograd::record_view(
          *this, "PermuteBackward", [&](const Tensor& s) { return s.permute(dims); },
          [dims, n = dim()](const Tensor& g) {
            Shape inverse = Shape::filled(n, 0);
            for (int64_t i = 0; i < n; ++i) inverse[wrap_dim(dims[i], n, "permute")] = i;
            return g.permute(inverse);
          });
    }
  }
  detail::check<ShapeError>(dims.size() == dim(), "permute: number of dims don't match in permute (expected ", dim(),
                            ", got ", dims.size(), ")");
  Shape sizes_out = Shape::filled(dim(), 0), strides_out = Shape::filled(dim(), 0);
  std::vector<bool> seen(static_cast<std::size_t>(dim()), false);
  for (int64_t i = 0; i < dim(); ++i) {
    const int64_t d = wrap_dim(dims[i], dim(), "permute");
    detail::check<ValueError>(!seen[static_cast<std::size_t>(d)], "permute: repeated dim ", dims[i], " in ", dims);
    seen[static_cast<std::size_t>(d)] = true;
    sizes_out[i] = size(d);
    strides_out[i] = stride(d);
  }
  return detail::restride(*this, sizes_out, strides_out, storage_offset());
}

template <Element T>
Tensor<T> Tensor<T>::transpose(int64_t dim0, int64_t dim1) const {
  if constexpr (differentiable<T>) {
    if (detail::records_grad(*this))
      return autograd::record_view(
          *this, "TransposeBackward", [&](const Tensor& s) { return s.transpose(dim0, dim1); },
          [=](const Tensor& g) { return g.transpose(dim0, dim1); });
  }
  if (dim() == 0) {
    wrap_dim(dim0, 0, "transpose");
    wrap_dim(dim1, 0, "transpose");
    return *this;
  }
  const int64_t a = wrap_dim(dim0, dim(), "transpose"), b = wrap_dim(dim1, dim(), "transpose");
  Shape sz = sizes(), st = strides();
  std::swap(sz[a], sz[b]);
  std::swap(st[a], st[b]);
  return detail::restride(*this, sz, st, storage_offset());
}

template <Element T>
Tensor<T> Tensor<T>::t() const {
  detail::check<ShapeError>(dim() <= 2, "t: expects a tensor with <= 2 dimensions, but self is ", dim(), "D");
  return dim() < 2 ? *this : transpose(0, 1);
}

template <Element T>
Tensor<T> Tensor<T>::unsqueeze(int64_t dim_) const {
  if constexpr (differentiable<T>) {
    if (detail::records_grad(*this))
      return autograd::record_view(
          *this, "UnsqueezeBackward", [&](const Tensor& s) { return s.unsqueeze(dim_); },
          [in = sizes()](const Tensor& g) { return g.reshape(in); });
  }
  const int64_t d = wrap_dim(dim_, dim() + 1, "unsqueeze");
  Shape sz = sizes(), st = strides();
  const int64_t new_stride = d >= dim() ? 1 : size(d) * stride(d);
  sz.insert(d, 1);
  st.insert(d, new_stride);
  return detail::restride(*this, sz, st, storage_offset());
}

template <Element T>
Tensor<T> Tensor<T>::squeeze() const {
  if constexpr (differentiable<T>) {
    if (detail::records_grad(*this))
      return autograd::record_view(
          *this, "SqueezeBackward", [&](const Tensor& s) { return s.squeeze(); },
          [in = sizes()](const Tensor& g) { return g.reshape(in); });
  }
  Shape sz, st;
  for (int64_t d = 0; d < dim(); ++d) {
    if (size(d) == 1) continue;
    sz.push_back(size(d));
    st.push_back(stride(d));
  }
  return detail::restride(*this, sz, st, storage_offset());
}

template <Element T>
Tensor<T> Tensor<T>::squeeze(int64_t dim_) const {
  if constexpr (differentiable<T>) {
    if (detail::records_grad(*this))
      return autograd::record_view(
          *this, "SqueezeBackward", [&](const Tensor& s) { return s.squeeze(dim_); },
          [in = sizes()](const Tensor& g) { return g.reshape(in); });
  }
  const int64_t d = wrap_dim(dim_, dim(), "squeeze");
  if (dim() == 0 || size(d) != 1) return detail::restride(*this, sizes(), strides(), storage_offset());
  Shape sz = sizes(), st = strides();
  sz.erase(d);
  st.erase(d);
  return detail::restride(*this, sz, st, storage_offset());
}

template <Element T>
Tensor<T> Tensor<T>::expand(const Shape& target) const {
  if constexpr (differentiable<T>) {
    if (detail::records_grad(*this))
      return autograd::record_view(
          *this, "ExpandBackward", [&](const Tensor& s) { return s.expand(target); },
          [in = sizes()](const Tensor& g) { return g.sum_to_size(in); });
  }
  detail::check<ShapeError>(target.size() >= dim(), "expand: the number of sizes provided (", target.size(),
                            ") must be greater or equal to the number of dimensions in the tensor (", dim(), ")");
  const int64_t lead = target.size() - dim();
  Shape sz = Shape::filled(target.size(), 0), st = Shape::filled(target.size(), 0);
  for (int64_t i = 0; i < target.size(); ++i) {
    if (i < lead) {
      detail::check<ValueError>(target[i] >= 0, "expand: the expanded size of the tensor (", target[i],
                                ") isn't allowed in a leading, non-existing dimension ", i);
      sz[i] = target[i];
      st[i] = 0;
      continue;
    }
    const int64_t have = size(i - lead);
    const int64_t want = target[i] == -1 ? have : target[i];
    detail::check<ValueError>(want >= 0, "expand: the expanded size of the tensor (", target[i],
                              ") must be non-negative (or -1 to keep a size), target sizes ", target);
    detail::check<ShapeError>(have == want || have == 1, "expand: the expanded size of the tensor (", want,
                              ") must match the existing size (", have, ") at non-singleton dimension ", i,
                              ".  Target sizes: ", target, ".  Tensor sizes: ", sizes());
    sz[i] = want;
    st[i] = have == want ? stride(i - lead) : 0;
  }
  checked_numel(sz, "expand");
  return detail::restride(*this, sz, st, storage_offset());
}

template <Element T>
template <Expression E>
Tensor<T> Tensor<T>::expand_as(const E& other) const {
  return expand(other.shape());
}

template <Element T>
Tensor<T> Tensor<T>::narrow(int64_t dim_, int64_t start, int64_t length) const {
  if constexpr (differentiable<T>) {
    if (detail::records_grad(*this))
      return autograd::record_view(
          *this, "NarrowBackward", [&](const Tensor& s) { return s.narrow(dim_, start, length); },
          [=, in = sizes()](const Tensor& g) {
            auto gi = zeros<T>(in, {.device = g.device()});
            gi.narrow(dim_, start, length) = g;
            return gi;
          });
  }
  detail::check<IndexError>(dim() > 0, "narrow: cannot be applied to a 0-dim tensor.");
  const int64_t d = wrap_dim(dim_, dim(), "narrow");
  const int64_t n = size(d);
  detail::check<IndexError>(start >= -n && start <= n, "narrow: start out of range (expected to be in range of [", -n,
                            ", ", n, "], but got ", start, ")");
  if (start < 0) start += n;
  detail::check<ValueError>(length >= 0, "narrow: length must be non-negative, got ", length);
  detail::check<IndexError>(length <= n - start, "narrow: start (", start, ") + length (", length,
                            ") exceeds dimension size (", n, ").");
  Shape sz = sizes();
  sz[d] = length;
  return detail::restride(*this, sz, strides(), storage_offset() + start * stride(d));
}

template <Element T>
Tensor<T> Tensor<T>::mT() const {
  detail::check<ShapeError>(dim() >= 2, "mT: tensor.mT is only supported on matrices or batches of matrices. Got ",
                            dim(), "-D tensor.");
  return transpose(-2, -1);
}

template <Element T>
Tensor<T> Tensor<T>::unfold(int64_t dim_, int64_t size, int64_t step) const {
  if constexpr (differentiable<T>) {
    if (detail::records_grad(*this))
      return autograd::record_view(
          *this, "UnfoldBackward", [&](const Tensor& s) { return s.unfold(dim_, size, step); },
          [=, in = sizes()](const Tensor& g) {
            // Window element k of every window reads the input at k, k + step,
            // ...: a strided slice, so the gradient is one add per k.
            if (in.size() == 0) return g.sum().reshape({});
            const int64_t d = wrap_dim(dim_, static_cast<int64_t>(in.size()), "unfold");
            const int64_t windows = g.size(d);
            auto gi = zeros<T>(in, {.device = g.device()});
            for (int64_t k = 0; k < size; ++k) gi.slice(d, k, k + (windows - 1) * step + 1, step) += g.select(-1, k);
            return gi;
          });
  }
  // A 0-d tensor unfolds as one element along dim 0 (PyTorch).
  const int64_t d = dim() == 0 ? wrap_dim(dim_, 1, "unfold") : wrap_dim(dim_, dim(), "unfold");
  const int64_t n = dim() == 0 ? 1 : this->size(d);
  detail::check<ValueError>(size >= 0, "unfold: size is ", size, " but must be >= 0");
  detail::check<ValueError>(size <= n, "unfold: maximum size for tensor at dimension ", d, " is ", n, " but size is ",
                            size);
  detail::check<ValueError>(step > 0, "unfold: step is ", step, " but must be > 0");
  Shape sz = sizes(), st = strides();
  sz.push_back(size);
  st.push_back(dim() == 0 ? 1 : st[d]);
  if (dim() > 0) {
    sz[d] = (n - size) / step + 1;
    // Wraps as PyTorch's does (only a single window can overflow).
    st[d] = static_cast<int64_t>(static_cast<uint64_t>(st[d]) * static_cast<uint64_t>(step));
  }
  return detail::restride(*this, sz, st, storage_offset());
}

template <Element T>
Tensor<T> Tensor<T>::select(int64_t dim_, int64_t index) const {
  if constexpr (differentiable<T>) {
    if (detail::records_grad(*this))
      return autograd::record_view(
          *this, "SelectBackward", [&](const Tensor& s) { return s.select(dim_, index); },
          [=, in = sizes()](const Tensor& g) {
            auto gi = zeros<T>(in, {.device = g.device()});
            gi.select(dim_, index) = g;
            return gi;
          });
  }
  detail::check<IndexError>(dim() > 0, "select: cannot be applied to a 0-dim tensor.");
  const int64_t d = wrap_dim(dim_, dim(), "select");
  const int64_t n = size(d);
  detail::check<IndexError>(index >= -n && index < n, "select: index ", index, " out of range for tensor of size ",
                            sizes(), " at dimension ", d);
  if (index < 0) index += n;
  Shape sz = sizes(), st = strides();
  const int64_t offset = storage_offset() + index * st[d];
  sz.erase(d);
  st.erase(d);
  return detail::restride(*this, sz, st, offset);
}

template <Element T>
Tensor<T> Tensor<T>::slice(int64_t dim_, SliceBound start_, SliceBound end_, int64_t step) const {
  if constexpr (differentiable<T>) {
    if (detail::records_grad(*this))
      return autograd::record_view(
          *this, "SliceBackward", [&](const Tensor& s) { return s.slice(dim_, start_, end_, step); },
          [=, in = sizes()](const Tensor& g) {
            auto gi = zeros<T>(in, {.device = g.device()});
            gi.slice(dim_, start_, end_, step) = g;
            return gi;
          });
  }
  detail::check<IndexError>(dim() > 0, "slice: cannot be applied to a 0-dim tensor.");
  const int64_t d = wrap_dim(dim_, dim(), "slice");
  detail::check<ValueError>(step > 0, "slice: step must be positive, got ", step);
  const int64_t n = size(d);
  int64_t start = start_.value.value_or(0), end = end_.value.value_or(n);
  if (start < 0) start += n;
  if (end < 0) end += n;
  start = std::clamp<int64_t>(start, 0, n);
  end = std::clamp<int64_t>(end, start, n);
  Shape sz = sizes(), st = strides();
  // Neither can overflow for a step near INT64_MAX: such a slice has at most
  // one element, whose stride is kept when stride * step does not fit.
  sz[d] = end > start ? (end - start - 1) / step + 1 : 0;
  if (int64_t scaled = 0; !__builtin_mul_overflow(st[d], step, &scaled)) st[d] = scaled;
  return detail::restride(*this, sz, st, storage_offset() + start * stride(d));
}

namespace detail {

/// Basic indexing (integers, slices, None, Ellipsis): a view. The caller has
/// checked that `indices` holds no index tensor (ops/advanced_index.hpp).
template <Element T, class Indices>
Tensor<T> basic_index(const Tensor<T>& self, const Indices& indices) {
  int64_t consumed = 0, ellipses = 0;
  for (const auto& i : indices) {
    if (i.is_integer() || i.is_slice()) ++consumed;
    if (i.is_ellipsis()) ++ellipses;
  }
  detail::check<IndexError>(ellipses <= 1, "index: an index can only have a single ellipsis ('...')");
  detail::check<IndexError>(consumed <= self.dim(), "index: too many indices for tensor of dimension ", self.dim());
  Tensor<T> out = self;
  int64_t d = 0;  // the next dimension of `out` to index
  for (const auto& i : indices) {
    if (i.is_integer()) {
      out = out.select(d, i.integer());
    } else if (i.is_slice()) {
      const Slice& s = i.slice();
      out = out.slice(d, s.start, s.stop, s.step.value.value_or(1));
      ++d;
    } else if (i.is_none()) {
      out = out.unsqueeze(d);
      ++d;
    } else {
      d += self.dim() - consumed;
    }
  }
  return out;
}

/// as_strided's backward, one element of the view: base[o[1]] += grad[o[0]]
/// (atomically on a GPU, where the view may overlap itself).
template <Element T>
struct AddIntoBase {
  T* base;
  const T* grad;
  TENSORLIB_HOST_DEVICE void operator()(const std::array<int64_t, 2>& o) const {
    write_or_add(base + o[1], grad[o[0]], true);
  }
};

/// One element of the input: count[o[0]] += 1.
struct CountUses {
  int64_t* count;
  TENSORLIB_HOST_DEVICE void operator()(const std::array<int64_t, 1>& o) const {
    write_or_add(count + o[0], int64_t{1}, true);
  }
};

/// One element of the input's gradient: out[o[0]] = base[o[1]] / count[o[1]].
template <Element T>
struct ShareOfBase {
  T* out;
  const T* base;
  const int64_t* count;
  TENSORLIB_HOST_DEVICE void operator()(const std::array<int64_t, 2>& o) const {
    out[o[0]] = base[o[1]] / static_cast<T>(count[o[1]]);
  }
};

/// as_strided's backward: the gradient added into a zero buffer that spans
/// the storage both geometries touch, at the view's positions (accumulating
/// where the view overlaps itself), then read back at the input's, divided
/// by how many input elements share each location (an expanded input: the
/// expand's own backward sums them again, as in PyTorch). Three functors over
/// offsets, on the gradient's device.
template <Element T>
Tensor<T> as_strided_backward(const Tensor<T>& g, const Shape& in_sizes, const Shape& in_strides, int64_t in_offset,
                              const Shape& sizes, const Shape& strides, int64_t offset) {
  auto last = [](const Shape& sz, const Shape& st, int64_t off) {
    int64_t end = off;
    for (int64_t d = 0; d < sz.size(); ++d) end += sz[d] == 0 ? 0 : (sz[d] - 1) * st[d];
    return end;
  };
  const char* op = "as_strided backward";
  const int64_t lo = std::min(in_offset, offset);
  const int64_t hi = std::max(last(in_sizes, in_strides, in_offset), last(sizes, strides, offset));
  const TensorOptions on{.device = g.device()};
  auto base = zeros<T>({hi - lo + 1}, on);
  auto count = zeros<int64_t>({hi - lo + 1}, on);
  auto out = empty<T>(in_sizes, on);
  const Tensor<T> gc = g.contiguous();
  dispatch_offsets<2>(g.device(), sizes, {gc.strides(), strides},
                      AddIntoBase<T>{base.data_ptr() + (offset - lo), gc.data_ptr()}, op);
  const int64_t in_base = in_offset - lo;
  dispatch_offsets<1>(g.device(), in_sizes, {in_strides}, CountUses{count.data_ptr() + in_base}, op);
  dispatch_offsets<2>(g.device(), in_sizes, {out.strides(), in_strides},
                      ShareOfBase<T>{out.data_ptr(), base.data_ptr() + in_base, count.data_ptr() + in_base}, op);
  return out;
}

}  // namespace detail

template <Element T>
Tensor<T> Tensor<T>::as_strided(const Shape& sizes_, const Shape& strides_, std::optional<int64_t> offset) const {
  if constexpr (differentiable<T>) {
    if (detail::records_grad(*this))
      return autograd::record_view(
          *this, "AsStridedBackward", [&](const Tensor& s) { return s.as_strided(sizes_, strides_, offset); },
          [in_sizes = sizes(), in_strides = strides(), in_offset = storage_offset(), sizes_, strides_,
           off = offset.value_or(storage_offset())](const Tensor& g) {
            detail::check<NotImplementedError>(!(is_grad_enabled() && g.requires_grad()),
                                               "AsStridedBackward: create_graph through as_strided is not "
                                               "implemented (the gradient's own gradient would be lost)");
            return detail::as_strided_backward(g, in_sizes, in_strides, in_offset, sizes_, strides_, off);
          });
  }
  const int64_t span = storage_extent(sizes_, strides_, "as_strided");
  const int64_t off = offset.value_or(storage_offset());
  detail::check<ValueError>(off >= 0, "as_strided: storage offset must be non-negative, got ", off);
  const int64_t available = storage().nbytes() / static_cast<int64_t>(sizeof(T));
  int64_t extent = off;
  detail::check<ShapeError>(span == 0 || !__builtin_add_overflow(off, span, &extent), "as_strided: storage offset ",
                            off, " plus the ", span, " elements that sizes ", sizes_, " and strides ", strides_,
                            " span overflows");
  if (extent > available) [[unlikely]] {
    int64_t bytes = 0;  // the message's figure, which may itself overflow
    const bool huge = __builtin_mul_overflow(extent, static_cast<int64_t>(sizeof(T)), &bytes);
    throw ShapeError(detail::concat("as_strided: sizes ", sizes_, ", strides ", strides_, ", storage offset ", off,
                                    " and itemsize ", sizeof(T), " requiring a storage size of ",
                                    huge ? std::string("over 2^63 - 1") : std::to_string(bytes),
                                    " are out of bounds for storage of size ", storage().nbytes()));
  }
  return detail::restride(*this, sizes_, strides_, off);
}

// The free forms PyTorch also has (`torch.reshape(x, shape)`, ...), for code
// ported as written; each is the method of the same name.

template <Element T>
Tensor<T> reshape(const Tensor<T>& x, const Shape& sizes) {
  return x.reshape(sizes);
}
template <Element T>
Tensor<T> flatten(const Tensor<T>& x, int64_t start_dim = 0, int64_t end_dim = -1) {
  return x.flatten(start_dim, end_dim);
}
template <Element T>
Tensor<T> unflatten(const Tensor<T>& x, int64_t dim, const Shape& sizes) {
  return x.unflatten(dim, sizes);
}
template <Element T>
Tensor<T> permute(const Tensor<T>& x, const Shape& dims) {
  return x.permute(dims);
}
template <Element T>
Tensor<T> transpose(const Tensor<T>& x, int64_t dim0, int64_t dim1) {
  return x.transpose(dim0, dim1);
}
template <Element T>
Tensor<T> squeeze(const Tensor<T>& x) {
  return x.squeeze();
}
template <Element T>
Tensor<T> squeeze(const Tensor<T>& x, int64_t dim) {
  return x.squeeze(dim);
}
template <Element T>
Tensor<T> unsqueeze(const Tensor<T>& x, int64_t dim) {
  return x.unsqueeze(dim);
}
template <Element T>
Tensor<T> narrow(const Tensor<T>& x, int64_t dim, int64_t start, int64_t length) {
  return x.narrow(dim, start, length);
}

}  // namespace tensorlib
