#pragma once
/// \file
/// Swapping and moving dimensions under NumPy's names: `swapaxes`,
/// `swapdims` (both `transpose`) and `moveaxis` (`movedim`), free and as
/// methods; and the conjugate transposes `x.adjoint()` and `x.H()` (real
/// tensors: transposes). Views of their input.

#include <cstdint>

#include "tensorlib/core/expression.hpp"
#include "tensorlib/core/pointwise_methods.hpp"
#include "tensorlib/core/tensor.hpp"
#include "tensorlib/ops/rearrange.hpp"
#include "tensorlib/ops/views.hpp"

namespace tensorlib {

/// Swaps two dimensions (torch.swapaxes, same as `transpose`); a view.
template <Expression E>
Tensor<value_type_t<E>> swapaxes(const E& input, int64_t axis0, int64_t axis1) {
  const Tensor<value_type_t<E>> x = input;
  return x.transpose(wrap_dim(axis0, x.dim(), "swapaxes"), wrap_dim(axis1, x.dim(), "swapaxes"));
}

/// Swaps two dimensions (torch.swapdims, same as `transpose`); a view.
template <Expression E>
Tensor<value_type_t<E>> swapdims(const E& input, int64_t dim0, int64_t dim1) {
  const Tensor<value_type_t<E>> x = input;
  return x.transpose(wrap_dim(dim0, x.dim(), "swapdims"), wrap_dim(dim1, x.dim(), "swapdims"));
}

/// torch.moveaxis: the same as `movedim`.
template <Expression E>
Tensor<value_type_t<E>> moveaxis(const E& input, int64_t source, int64_t destination) {
  return movedim(input, source, destination);
}

template <class Derived>
auto PointwiseMethods<Derived>::swapaxes(int64_t axis0, int64_t axis1) const {
  return tensorlib::swapaxes(self(), axis0, axis1);
}
template <class Derived>
auto PointwiseMethods<Derived>::swapdims(int64_t dim0, int64_t dim1) const {
  return tensorlib::swapdims(self(), dim0, dim1);
}
template <class Derived>
auto PointwiseMethods<Derived>::moveaxis(int64_t source, int64_t destination) const {
  return tensorlib::moveaxis(self(), source, destination);
}

template <Element T>
Tensor<T> Tensor<T>::adjoint() const {
  detail::check<ShapeError>(dim() >= 2,
                            "adjoint: tensor.adjoint() is only supported on matrices or batches of "
                            "matrices. Got ",
                            dim(), "-D tensor.");
  return transpose(-2, -1);
}

template <Element T>
Tensor<T> Tensor<T>::H() const {
  detail::check<ShapeError>(dim() == 2 || dim() == 0, "H: tensor.H is only supported on matrices (2-D tensors). Got ",
                            dim(), "-D tensor.");
  return dim() == 0 ? *this : transpose(0, 1);
}

}  // namespace tensorlib
