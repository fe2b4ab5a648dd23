#pragma once
/// \file
/// Copies: `contiguous`, `clone`, `copy_` and `to<U>`. Each is a
/// one-leaf expression run by the same fused executor as everything else.

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

}  // namespace tensorlib
