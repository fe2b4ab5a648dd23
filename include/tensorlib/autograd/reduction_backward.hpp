#pragma once
/// \file
/// The recording forms of `sum` and `mean` (declared in ops/reduce.hpp).
/// A reduction of a pointwise expression stays one pass forward (the
/// reduction consumes the expression) and one pass backward: the node is a
/// `FusedBackward` of the expression whose incoming gradient is viewed with
/// the reduced dimensions kept (so it broadcasts back over them) and scaled
/// (1/n for mean). Nothing but the expression's leaves is saved.

#include <array>
#include <cmath>
#include <memory>
#include <vector>

#include "tensorlib/autograd/fused.hpp"
#include "tensorlib/autograd/op_backward.hpp"
#include "tensorlib/core/dim_list.hpp"
#include "tensorlib/core/grad_mode.hpp"
#include "tensorlib/expr/functions.hpp"
#include "tensorlib/expr/operators.hpp"
#include "tensorlib/ops/factories.hpp"
#include "tensorlib/ops/reduce.hpp"

namespace tensorlib::autograd {
namespace detail {

template <bool Mean, Expression E>
Tensor<value_type_t<E>> reduce_and_record(const E& x, const DimList& dims, bool keepdim) {
#if defined(TENSORLIB_NO_FUSED_BACKWARD)  // Note [no fused backward]
  (void)x, (void)dims, (void)keepdim;
  detail::throw_no_fused_backward();
#else
  const char* name = Mean ? "mean" : "sum";
  Tensor<value_type_t<E>> out;
  {
    NoGradGuard guard;
    out = Mean ? tensorlib::mean(x, dims, keepdim) : tensorlib::sum(x, dims, keepdim);
  }
  const Shape shape = x.shape();
  const uint32_t mask = ::tensorlib::detail::reduce_mask(dims, shape.size(), name);
  const double n = static_cast<double>(::tensorlib::detail::reduced_count(shape, mask));
  if constexpr (is_tensor_v<E>) {
    // A bare tensor (sum_to_size in every backward pass) gets a light node
    // whose backward is a view (Note [autograd's own arithmetic]).
    using T = value_type_t<E>;
    const Shape kept = ::tensorlib::detail::reduced_shape(shape, mask, true);
    const T scale = Mean ? static_cast<T>(1.0 / n) : T(1);
    auto formula = [kept, shape, scale](const std::vector<Tensor<T>>& g, const auto&, const std::vector<bool>&) {
      Tensor<T> grad = g.at(0).reshape(kept);
      if (scale != T(1)) grad = scale_recorded(grad, scale);
      return std::vector<Tensor<T>>{grad.expand(shape)};
    };
    return record<T>(
        Mean ? "MeanBackward" : "SumBackward", [&] { return out; }, formula, std::array<SavedTensor<T>, 0>{}, x);
  }
  auto node =
      std::make_shared<FusedBackward<E>>(x, Mean ? "MeanBackward" : "SumBackward",
                                         ::tensorlib::detail::reduced_shape(shape, mask, true), Mean ? 1.0 / n : 1.0);
  set_history(out, node);
  return out;
#endif
}

}  // namespace detail

/// PyTorch's norm_backward: g * sign(x) |x|^(p-1) / norm^(p-1), zero where
/// the norm or x is 0 (so a zero vector has gradient 0, not NaN); p = 1: g sign(x);
/// p = inf: sign(x) shared evenly by the elements of largest magnitude
/// (-inf: smallest); p = 0: zero.
template <Element T>
Tensor<T> norm(const Tensor<T>& x, double p, DimList dims, bool keepdim) {
  auto formula = [p, dims](const std::vector<Tensor<T>>& g, const std::array<Tensor<T>, 2>& s,
                           const std::vector<bool>&) {
    const Tensor<T>& input = s[0];
    const Shape kept = ::tensorlib::detail::reduced_shape(
        input.sizes(), ::tensorlib::detail::reduce_mask(dims, input.dim(), "norm"), true);
    const Tensor<T> gk = g[0].reshape(kept), nk = s[1].reshape(kept);
    if (p == 0) return std::vector<Tensor<T>>{zeros<T>(input.sizes(), {.device = input.device()})};
    if (p == 1) return std::vector<Tensor<T>>{Tensor<T>(gk * sign(input))};
    if (std::isinf(p)) {
      const Tensor<T> mask = eq(abs(input), nk).template to<T>();
      const Tensor<T> count = tensorlib::sum(mask, dims, true);
      return std::vector<Tensor<T>>{Tensor<T>(gk / count * mask * sign(input))};
    }
    if (p == 2) return std::vector<Tensor<T>>{Tensor<T>(where(eq(nk, T(0)), T(0), gk * input / nk))};
    // sign(x) |x|^(p-1): zero where x is (|x|^(p-1) is inf there for p < 1).
    const T q = static_cast<T>(p);
    return std::vector<Tensor<T>>{Tensor<T>(where(logical_or(eq(nk, T(0)), eq(input, T(0))), T(0),
                                                  gk * sign(input) * pow(abs(input), q - T(1)) / pow(nk, q - T(1))))};
  };
  return record_with_output<T>(
      "NormBackward", [&] { return tensorlib::norm(x, p, dims, keepdim); }, formula, save<T>(x), x);
}

template <Expression E>
Tensor<value_type_t<E>> sum(const E& x, DimList dims, bool keepdim) {
  return detail::reduce_and_record<false>(x, dims, keepdim);
}

template <Expression E>
Tensor<value_type_t<E>> mean(const E& x, DimList dims, bool keepdim) {
  return detail::reduce_and_record<true>(x, dims, keepdim);
}

}  // namespace tensorlib::autograd
