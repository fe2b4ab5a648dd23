#pragma once
/// \file
/// `LayerNorm` and `GroupNorm` (torch/nn/modules/normalization.py): weight
/// ones and bias zeros of PyTorch's shapes over the functional forms.

#include <cstdint>
#include <string>

#include "tensorlib/core/config.hpp"
#include "tensorlib/core/error.hpp"
#include "tensorlib/nn/functional/normalization.hpp"
#include "tensorlib/nn/module.hpp"
#include "tensorlib/nn/modules/linear.hpp"
#include "tensorlib/ops/factories.hpp"

namespace tensorlib::nn {

/// `nn.LayerNorm(normalized_shape, eps, elementwise_affine)`.
template <Element T = float>
class LayerNorm : public Module<LayerNorm<T>, T> {
 public:
  Shape normalized_shape;
  double eps;
  bool elementwise_affine;
  Tensor<T> weight;
  Tensor<T> bias;
  TENSORLIB_PARAMETERS(weight, bias)

  explicit LayerNorm(const Shape& shape, double epsilon = 1e-5, bool affine = true)
      : normalized_shape(shape), eps(epsilon), elementwise_affine(affine) {
    if (affine) {
      weight = ones<T>(shape).requires_grad_();
      bias = zeros<T>(shape).requires_grad_();
    }
  }
  Tensor<T> forward(const Tensor<T>& input) const {
    return functional::layer_norm(input, normalized_shape, detail::optional_of(weight), detail::optional_of(bias), eps);
  }
  std::string extra_repr() const {
    return detail::python_tuple(normalized_shape) + ", eps=" + detail::python_float(eps) +
           ", elementwise_affine=" + detail::python_bool(elementwise_affine);
  }
};

/// `nn.GroupNorm(num_groups, num_channels, eps, affine)`.
template <Element T = float>
class GroupNorm : public Module<GroupNorm<T>, T> {
 public:
  int64_t num_groups;
  int64_t num_channels;
  double eps;
  bool affine;
  Tensor<T> weight;
  Tensor<T> bias;
  TENSORLIB_PARAMETERS(weight, bias)

  GroupNorm(int64_t groups, int64_t channels, double epsilon = 1e-5, bool with_affine = true)
      : num_groups(groups), num_channels(channels), eps(epsilon), affine(with_affine) {
    tensorlib::detail::check<ValueError>(groups > 0 && channels % groups == 0,
                                         "num_channels must be divisible by num_groups");
    if (affine) {
      weight = ones<T>({channels}).requires_grad_();
      bias = zeros<T>({channels}).requires_grad_();
    }
  }
  Tensor<T> forward(const Tensor<T>& input) const {
    return functional::group_norm(input, num_groups, detail::optional_of(weight), detail::optional_of(bias), eps);
  }
  std::string extra_repr() const {
    return std::to_string(num_groups) + ", " + std::to_string(num_channels) + ", eps=" + detail::python_float(eps) +
           ", affine=" + detail::python_bool(affine);
  }
};

}  // namespace tensorlib::nn
