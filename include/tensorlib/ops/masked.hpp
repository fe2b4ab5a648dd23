#pragma once
/// \file
/// Ops selected by a bool mask that broadcasts against the input, as in
/// PyTorch: `masked_fill` (a fused `where` expression), `masked_select`
/// (the selected elements as a 1-d tensor, row-major), `masked_scatter`
/// (source elements in order into the selected positions). The in-place
/// forms need the mask to broadcast to self's shape; the out-of-place forms
/// broadcast both ways. Masks are `Tensor<bool>`: any other element type does
/// not compile, which is where PyTorch raises its run-time dtype error.

#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

#include "tensorlib/backend/cpu/strided_loop.hpp"
#include "tensorlib/core/error.hpp"
#include "tensorlib/core/shape.hpp"
#include "tensorlib/core/tensor.hpp"
#include "tensorlib/expr/broadcast.hpp"
#include "tensorlib/expr/functions.hpp"
#include "tensorlib/ops/copy.hpp"
#include "tensorlib/ops/dispatch.hpp"
#include "tensorlib/ops/evaluate.hpp"
#include "tensorlib/ops/factories.hpp"
#include "tensorlib/ops/index_common.hpp"
#include "tensorlib/ops/index_ops.hpp"

namespace tensorlib {
namespace autograd {

// The recording forms (autograd/index_backward.hpp).
template <Element T>
Tensor<T> masked_fill(const Tensor<T>& input, const Tensor<bool>& mask, const Tensor<T>& value);
template <Element T>
Tensor<T> masked_select(const Tensor<T>& input, const Tensor<bool>& mask);
template <Element T>
Tensor<T> masked_scatter(const Tensor<T>& input, const Tensor<bool>& mask, const Tensor<T>& source);

}  // namespace autograd
namespace detail {

/// The mask broadcast to `shape` for an in-place op on a tensor of that shape.
inline Shape checked_mask_strides(const Tensor<bool>& mask, const Shape& shape, const char* op) {
  check<ShapeError>(broadcasts_to(mask.sizes(), shape), op, "(): mask of shape ", mask.sizes(),
                    " cannot be broadcast to the shape of self ", shape);
  return broadcast_strides(mask.sizes(), mask.strides(), shape);
}

/// A 0-d value tensor's value (PyTorch's masked_fill takes those too).
template <Element T>
T scalar_value(const Tensor<T>& value, const char* op) {
  check<ShapeError>(value.dim() == 0, op, "() only supports a 0-dimensional value tensor, but got tensor with ",
                    value.dim(), " dimension(s).");
  return value.item();
}

}  // namespace detail

/// `Tensor.masked_fill_(mask, value)`: sets the elements where `mask`
/// (broadcast to self's shape) is true. One fused pass: self = where(mask, value, self).
template <Element T>
Tensor<T> masked_fill_(const Tensor<T>& self, const Tensor<bool>& mask, T value) {
  detail::check_devices("masked_fill_", self.device(), mask);
  detail::checked_mask_strides(mask, self.sizes(), "masked_fill_");
  detail::write_into(self, where(detail::unaliased(mask, self), value, self), "masked_fill_");
  return self;
}

/// `masked_fill_` with a 0-d value tensor.
template <Element T>
Tensor<T> masked_fill_(const Tensor<T>& self, const Tensor<bool>& mask, const Tensor<T>& value) {
  const T v = detail::scalar_value(value, "masked_fill_");
  if (!value.requires_grad()) return masked_fill_(self, mask, v);
  // The value's gradient is the sum of self's where the mask is set.
  detail::check_devices("masked_fill_", self.device(), mask);
  detail::checked_mask_strides(mask, self.sizes(), "masked_fill_");
  detail::write_into(self, where(detail::unaliased(mask, self), value, self), "masked_fill_");
  return self;
}

/// `torch.masked_fill(input, mask, value)`: a new tensor of the broadcast
/// shape of input and mask.
template <Element T>
Tensor<T> masked_fill(const Tensor<T>& input, const Tensor<bool>& mask, T value) {
  detail::check_devices("masked_fill", input.device(), mask);
  return Tensor<T>(where(mask, value, input));
}

/// `masked_fill` with a 0-d value tensor.
template <Element T>
Tensor<T> masked_fill(const Tensor<T>& input, const Tensor<bool>& mask, const Tensor<T>& value) {
  if constexpr (differentiable<T>) {
    if (detail::records_grad(value)) return autograd::masked_fill(input, mask, value);
  }
  return masked_fill(input, mask, detail::scalar_value(value, "masked_fill"));
}

namespace detail {

/// masked_select by Note [compaction on a GPU] (ops/index_ops.hpp).
template <Element T>
Tensor<T> masked_select_by_ranks(const Tensor<T>& input, const Tensor<bool>& mask, const Shape& shape) {
  const Tensor<bool> m = mask.expand(shape).contiguous();
  const MaskRanks r = mask_ranks(m);
  auto out = empty<T>({r.count}, {.device = input.device()});
  const MoveSelected<T> f{input.data_ptr(), out.data_ptr(), m.data_ptr(), r.rank.data_ptr(), false};
  dispatch_offsets<2>(input.device(), shape,
                      {broadcast_strides(input.sizes(), input.strides(), shape), contiguous_strides(shape)}, f,
                      "masked_select");
  return out;
}

/// masked_scatter_'s writes by Note [compaction on a GPU]: `mask` already
/// broadcast to self's shape, `src` contiguous.
template <Element T>
void masked_scatter_by_ranks(const Tensor<T>& self, const Tensor<bool>& mask, const Tensor<T>& src) {
  const Tensor<bool> m = mask.contiguous();
  const MaskRanks r = mask_ranks(m);
  check<ShapeError>(r.count <= src.numel(),
                    "masked_scatter_(): Number of elements of source < number of ones in mask (source has ",
                    src.numel(), " elements, the mask ", r.count, " ones)");
  const MoveSelected<T> f{self.data_ptr(), src.data_ptr(), m.data_ptr(), r.rank.data_ptr(), true};
  dispatch_offsets<2>(self.device(), self.sizes(), {self.strides(), contiguous_strides(self.sizes())}, f,
                      "masked_scatter_");
}

}  // namespace detail

/// `torch.masked_select(input, mask)`: the elements where the mask is true,
/// input and mask broadcast together, as a 1-d tensor in row-major order.
template <Element T>
Tensor<T> masked_select(const Tensor<T>& input, const Tensor<bool>& mask) {
  if constexpr (differentiable<T>) {
    if (detail::records_grad(input)) return autograd::masked_select(input, mask);
  }
  detail::check_devices("masked_select", input.device(), mask);
  const Shape shape = broadcast_shapes(input.sizes(), mask.sizes(), "masked_select");
  if (!input.is_cpu()) return detail::masked_select_by_ranks(input, mask, shape);
  std::vector<T> picked;
  {
    const T* in = input.data_ptr();
    const bool* m = mask.data_ptr();
    cpu::for_each_offsets<2>(shape,
                             {broadcast_strides(input.sizes(), input.strides(), shape),
                              broadcast_strides(mask.sizes(), mask.strides(), shape)},
                             [&](const std::array<int64_t, 2>& o) {
                               if (m[o[1]]) picked.push_back(in[o[0]]);
                             });
  }
  auto out = empty<T>({static_cast<int64_t>(picked.size())}, {.device = input.device()});
  std::copy(picked.begin(), picked.end(), out.data_ptr());
  return out;
}

/// `Tensor.masked_scatter_(mask, source)`: the positions where `mask`
/// (broadcast to self's shape) is true, in row-major order, receive
/// source's elements in row-major order. source needs at least as many
/// elements as the mask has true values.
template <Element T>
Tensor<T> masked_scatter_(const Tensor<T>& self, const Tensor<bool>& mask_, const Tensor<T>& source) {
  if (detail::inplace_through(self, "masked_scatter_", source.requires_grad(),
                              [&](const Tensor<T>& old) { return masked_scatter(old, mask_, source); }))
    return self;
  detail::begin_inplace(self, "masked_scatter_", source.requires_grad());
  detail::check_devices("masked_scatter_", self.device(), mask_, source);
  const Shape mask_strides = detail::checked_mask_strides(mask_, self.sizes(), "masked_scatter_");
  detail::check_no_internal_overlap(self, "masked_scatter_");
  const Tensor<bool> mask = detail::unaliased(mask_, self);
  const Tensor<T> src = detail::unaliased(source, self).contiguous();
  if (!self.is_cpu()) {
    detail::masked_scatter_by_ranks(self, mask.expand(self.sizes()), src);
    return self;
  }
  {
    int64_t count = 0;
    const bool* m = mask.data_ptr();
    cpu::for_each_offsets<1>(self.sizes(), {mask_strides},
                             [&](const std::array<int64_t, 1>& o) { count += m[o[0]] ? 1 : 0; });
    detail::check<ShapeError>(count <= src.numel(),
                              "masked_scatter_(): Number of elements of source < number of ones in mask (source has ",
                              src.numel(), " elements, the mask ", count, " ones)");
    T* out = self.data_ptr();
    const T* in = src.data_ptr();
    int64_t next = 0;
    cpu::for_each_offsets<2>(self.sizes(), {self.strides(), mask_strides}, [&](const std::array<int64_t, 2>& o) {
      if (m[o[1]]) out[o[0]] = in[next++];
    });
  }
  return self;
}

/// `torch.masked_scatter(input, mask, source)`: a new tensor of the
/// broadcast shape of input and mask with `masked_scatter_` applied.
template <Element T>
Tensor<T> masked_scatter(const Tensor<T>& input, const Tensor<bool>& mask, const Tensor<T>& source) {
  if constexpr (differentiable<T>) {
    if (detail::records_grad(input, source)) return autograd::masked_scatter(input, mask, source);
  }
  const Shape shape = broadcast_shapes(input.sizes(), mask.sizes(), "masked_scatter");
  return masked_scatter_(input.expand(shape).clone(), mask, source);
}

template <Element T>
Tensor<T> Tensor<T>::masked_select(const Tensor<bool>& mask) const {
  return tl::masked_select(*this, mask);
}
template <Element T>
Tensor<T> Tensor<T>::masked_fill(const Tensor<bool>& mask, T value) const {
  return tl::masked_fill(*this, mask, value);
}
template <Element T>
Tensor<T>& Tensor<T>::masked_fill_(const Tensor<bool>& mask, T value) {
  tl::masked_fill_(*this, mask, value);
  return *this;
}
template <Element T>
Tensor<T> Tensor<T>::masked_fill(const Tensor<bool>& mask, const Tensor& value) const {
  return tl::masked_fill(*this, mask, value);
}
template <Element T>
Tensor<T>& Tensor<T>::masked_fill_(const Tensor<bool>& mask, const Tensor& value) {
  tl::masked_fill_(*this, mask, value);
  return *this;
}
template <Element T>
Tensor<T> Tensor<T>::masked_scatter(const Tensor<bool>& mask, const Tensor& source) const {
  return tl::masked_scatter(*this, mask, source);
}
template <Element T>
Tensor<T>& Tensor<T>::masked_scatter_(const Tensor<bool>& mask, const Tensor& source) {
  tl::masked_scatter_(*this, mask, source);
  return *this;
}

}  // namespace tensorlib
