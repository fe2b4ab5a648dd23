#pragma once
/// \file
/// The recording forms of softmax and log_softmax (declared in
/// ops/softmax.hpp). Both save only their output y:
/// softmax:     dx = y * (g - sum(g * y, dim))
/// log_softmax: dx = g - exp(y) * sum(g, dim)
/// each one reduction and one fused pass.

#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include "tensorlib/autograd/op_backward.hpp"
#include "tensorlib/core/grad_mode.hpp"
#include "tensorlib/core/tensor.hpp"
#include "tensorlib/expr/functions.hpp"
#include "tensorlib/expr/operators.hpp"
#include "tensorlib/ops/reduce.hpp"
#include "tensorlib/ops/softmax.hpp"

namespace tensorlib::autograd {
namespace detail {

template <bool Log, Element T>
Tensor<T> record_softmax(const Tensor<T>& x, int64_t dim) {
  auto formula = [dim](const std::vector<Tensor<T>>& g, const std::array<Tensor<T>, 1>& s, const std::vector<bool>&) {
    const Tensor<T>& out = s[0];
    if constexpr (Log)
      return std::vector<Tensor<T>>{Tensor<T>(g[0] - exp(out) * tensorlib::sum(g[0], dim, true))};
    else
      return std::vector<Tensor<T>>{Tensor<T>(out * (g[0] - tensorlib::sum(g[0] * out, dim, true)))};
  };
  return record_with_output<T>(
      Log ? "LogSoftmaxBackward" : "SoftmaxBackward",
      [&] { return Log ? tensorlib::log_softmax(x, dim) : tensorlib::softmax(x, dim); }, formula,
      std::array<SavedTensor<T>, 0>{}, x);
}

}  // namespace detail

template <Element T>
Tensor<T> softmax(const Tensor<T>& x, int64_t dim) {
  return detail::record_softmax<false>(x, dim);
}

template <Element T>
Tensor<T> log_softmax(const Tensor<T>& x, int64_t dim) {
  return detail::record_softmax<true>(x, dim);
}

}  // namespace tensorlib::autograd
