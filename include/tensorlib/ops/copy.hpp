#pragma once
/// \file
/// Copies: `contiguous`, `clone`, `copy_`, `to<U>` and `index_put_`. Each is a
/// one-leaf expression run by the same fused executor as everything else.

#include <initializer_list>
#include <type_traits>

#include "tensorlib/core/stats.hpp"
#include "tensorlib/core/tensor.hpp"
#include "tensorlib/expr/build.hpp"
#include "tensorlib/ops/evaluate.hpp"
#include "tensorlib/ops/factories.hpp"
#include "tensorlib/ops/views.hpp"

namespace tensorlib {

template <Element T>
Tensor<T> Tensor<T>::contiguous() const {
  if (is_contiguous()) return *this;
  stats::detail::count_copy();
  auto out = empty<T>(sizes(), {.device = device()});
  detail::dispatch_pointwise(out, *this);
  return out;
}

template <Element T>
Tensor<T> Tensor<T>::clone() const {
  stats::detail::count_copy();
  auto out = empty_like(*this);
  detail::dispatch_pointwise(out, *this);
  return out;
}

template <Element T>
template <Expression E>
Tensor<T>& Tensor<T>::copy_(const E& src) {
  detail::write_into(*this, src, "copy_");
  return *this;
}

template <Element T>
template <Element U>
Tensor<U> Tensor<T>::to() const {
  if constexpr (std::is_same_v<T, U>) {
    return *this;
  } else {
    stats::detail::count_copy();
    return detail::evaluate(as_node<U>(*this));
  }
}

template <Element T>
template <Operand V>
Tensor<T>& Tensor<T>::index_put_(std::initializer_list<TensorIndex> indices, const V& value) {
  Tensor view = index(indices);
  if constexpr (Scalar<V>)
    view.fill_(detail::checked_scalar_cast<T>(value));
  else
    detail::write_into(view, value, "index_put_");
  return *this;
}

}  // namespace tensorlib
