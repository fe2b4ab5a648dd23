#pragma once
/// \file
/// The recording forms of `sum` and `mean` (declared in ops/reduce.hpp).
/// A reduction of a pointwise expression stays one pass forward (the
/// reduction consumes the expression) and one pass backward: the node is a
/// `FusedBackward` of the expression whose incoming gradient is viewed with
/// the reduced dimensions kept (so it broadcasts back over them) and scaled
/// (1/n for mean). Nothing but the expression's leaves is saved.

#include <memory>

#include "tensorlib/autograd/fused.hpp"
#include "tensorlib/core/dim_list.hpp"
#include "tensorlib/core/grad_mode.hpp"
#include "tensorlib/ops/reduce.hpp"

namespace tensorlib::autograd {
namespace detail {

template <bool Mean, Expression E>
Tensor<value_type_t<E>> reduce_and_record(const E& x, const DimList& dims, bool keepdim) {
  const char* name = Mean ? "mean" : "sum";
  Tensor<value_type_t<E>> out;
  {
    NoGradGuard guard;
    out = Mean ? tensorlib::mean(x, dims, keepdim) : tensorlib::sum(x, dims, keepdim);
  }
  const Shape shape = x.shape();
  const uint32_t mask = ::tensorlib::detail::reduce_mask(dims, shape.size(), name);
  const double n = static_cast<double>(::tensorlib::detail::reduced_count(shape, mask));
  auto node =
      std::make_shared<FusedBackward<E>>(x, Mean ? "MeanBackward" : "SumBackward",
                                         ::tensorlib::detail::reduced_shape(shape, mask, true), Mean ? 1.0 / n : 1.0);
  set_history(out, node);
  return out;
}

}  // namespace detail

template <Expression E>
Tensor<value_type_t<E>> sum(const E& x, DimList dims, bool keepdim) {
  return detail::reduce_and_record<false>(x, dims, keepdim);
}

template <Expression E>
Tensor<value_type_t<E>> mean(const E& x, DimList dims, bool keepdim) {
  return detail::reduce_and_record<true>(x, dims, keepdim);
}

}  // namespace tensorlib::autograd
