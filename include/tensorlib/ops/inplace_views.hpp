#pragma once
/// \file
/// In-place views (declared in core/tensor.hpp): `t_`, `transpose_`,
/// `swapaxes_`, `swapdims_`, `squeeze_`, `unsqueeze_` and `as_strided_`
/// change the tensor's own sizes, strides and offset, so every handle of it
/// sees the new geometry, as in PyTorch.
///
/// Note [in-place views]
/// Each one takes the geometry of the out-of-place view (ops/views.hpp),
/// whose checks and error texts it shares, and, when that view records, its
/// node as the tensor's history: after `y.t_()`, y's grad_fn is TransposeBackward
/// with y's old history as its input, PyTorch's TBackward. Nothing is written,
/// but the tensor's version is bumped, as PyTorch does: a node that saved it
/// before would now read it with other sizes, and refuses to. A leaf that
/// requires grad, a view of one, and a view taken under NoGradGuard of a
/// tensor that requires grad are refused while grad mode is on (PyTorch's
/// errors); under NoGradGuard it only changes shape. A view stays a view of
/// the same base. On a 1-D or 0-D tensor `t_` changes nothing, and keeps its
/// history (PyTorch records a TBackward that passes the gradient through).

#include <cstdint>
#include <optional>
#include <utility>

#include "tensorlib/core/autograd_meta.hpp"
#include "tensorlib/core/error.hpp"
#include "tensorlib/core/grad_mode.hpp"
#include "tensorlib/core/shape.hpp"
#include "tensorlib/core/tensor.hpp"
#include "tensorlib/ops/evaluate.hpp"
#include "tensorlib/ops/views.hpp"

namespace tensorlib {
namespace detail {

/// `self` takes the geometry (and recorded history) of `view(self)`
/// (Note [in-place views]); `op` names the method in errors.
template <Element T, class ViewFn>
Tensor<T>& inplace_view(Tensor<T>& self, const char* op, ViewFn view) {
  TensorImpl& impl = *self.impl();
  if (is_grad_enabled()) {
    check<AutogradError>(!(self.requires_grad() && self.is_leaf()), op,
                         ": a leaf Variable that requires grad is being used in an in-place operation.");
    check_not_no_grad_view(impl, op);  // before the next check, as PyTorch orders them
    const TensorImpl* base = impl.view_base.get();
    check<AutogradError>(!(base && base->requires_grad() && !base->autograd->grad_fn), op,
                         ": a view of a leaf Variable that requires grad is being used in an in-place operation.");
  }
  const Tensor<T> viewed = view(std::as_const(self));
  impl.sizes = viewed.sizes();
  impl.strides = viewed.strides();
  impl.offset = viewed.storage_offset();
  if (viewed.grad_fn()) {
    AutogradMeta& meta = impl.autograd_meta();
    meta.grad_fn = viewed.grad_fn();
    meta.output_nr = viewed.output_nr();
  }
  self.storage().bump_version();
  return self;
}

}  // namespace detail

template <Element T>
Tensor<T>& Tensor<T>::t_() {
  detail::check<ShapeError>(dim() <= 2, "t_: expects a tensor with <= 2 dimensions, but self is ", dim(), "D");
  return detail::inplace_view(*this, "t_", [](const Tensor& s) { return s.t(); });
}

template <Element T>
Tensor<T>& Tensor<T>::transpose_(int64_t dim0, int64_t dim1) {
  return detail::inplace_view(*this, "transpose_", [=](const Tensor& s) { return s.transpose(dim0, dim1); });
}

template <Element T>
Tensor<T>& Tensor<T>::unsqueeze_(int64_t dim_) {
  return detail::inplace_view(*this, "unsqueeze_", [=](const Tensor& s) { return s.unsqueeze(dim_); });
}

template <Element T>
Tensor<T>& Tensor<T>::squeeze_() {
  return detail::inplace_view(*this, "squeeze_", [](const Tensor& s) { return s.squeeze(); });
}

template <Element T>
Tensor<T>& Tensor<T>::squeeze_(int64_t dim_) {
  return detail::inplace_view(*this, "squeeze_", [=](const Tensor& s) { return s.squeeze(dim_); });
}

template <Element T>
Tensor<T>& Tensor<T>::as_strided_(const Shape& sizes_, const Shape& strides_, std::optional<int64_t> offset) {
  return detail::inplace_view(*this, "as_strided_",
                              [&](const Tensor& s) { return s.as_strided(sizes_, strides_, offset); });
}

}  // namespace tensorlib
