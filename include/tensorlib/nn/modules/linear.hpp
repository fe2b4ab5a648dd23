#pragma once
/// \file
/// `Identity`, `Linear`, `Bilinear`, `Flatten` and `Unflatten`
/// (torch/nn/modules/linear.py and flatten.py), with PyTorch's parameter
/// shapes, initialization and printed form.

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>

#include "tensorlib/core/config.hpp"
#include "tensorlib/core/tensor.hpp"
#include "tensorlib/nn/functional/layers.hpp"
#include "tensorlib/nn/init.hpp"
#include "tensorlib/nn/module.hpp"
#include "tensorlib/ops/factories.hpp"

namespace tensorlib::nn {

namespace detail {

/// A defined tensor as an optional argument (an undefined bias as none).
template <class T>
std::optional<Tensor<T>> optional_of(const Tensor<T>& t) {
  return t.defined() ? std::optional<Tensor<T>>(t) : std::nullopt;
}

/// A new parameter of `shape`, filled uniformly from [-bound, bound] (the
/// bias initialization of Linear and the convolutions).
template <class T>
Tensor<T> uniform_parameter(const Shape& shape, double bound) {
  Tensor<T> t = empty<T>(shape);
  init::uniform_(t, -bound, bound);
  return t.requires_grad_();
}

/// A weight of `shape` with PyTorch's default initialization of Linear and
/// the convolutions, kaiming_uniform_ with a = sqrt(5), and a bias (when
/// asked for) uniform in +-1/sqrt(fan_in).
template <class T>
std::pair<Tensor<T>, Tensor<T>> default_weight_and_bias(const Shape& weight_shape, int64_t bias_size, bool with_bias) {
  Tensor<T> weight = empty<T>(weight_shape);
  init::kaiming_uniform_(weight, std::sqrt(5.0));
  weight.requires_grad_();
  Tensor<T> bias;
  if (with_bias) {
    const int64_t fan_in = init::calculate_fan_in_and_fan_out(weight).first;
    bias = uniform_parameter<T>({bias_size}, fan_in > 0 ? 1 / std::sqrt(static_cast<double>(fan_in)) : 0.0);
  }
  return {weight, bias};
}

}  // namespace detail

/// `nn.Identity`: returns its input.
class Identity : public Module<Identity, void> {
 public:
  static constexpr bool preserves_features = true;
  template <class X>
  X forward(X x) const {
    return x;
  }
};

/// `nn.Linear(in_features, out_features, bias)`: y = x W^T + b over the last
/// dimension; W (out_features, in_features).
template <Element T = float>
class Linear : public Module<Linear<T>, T> {
 public:
  int64_t in_features;
  int64_t out_features;
  Tensor<T> weight;
  Tensor<T> bias;
  TENSORLIB_PARAMETERS(weight, bias)

  Linear(int64_t in, int64_t out, bool with_bias = true) : in_features(in), out_features(out) {
    std::tie(weight, bias) = detail::default_weight_and_bias<T>({out, in}, out, with_bias);
  }
  Tensor<T> forward(const Tensor<T>& input) const {
    return functional::linear(input, weight, detail::optional_of(bias));
  }
  std::string extra_repr() const {
    return "in_features=" + std::to_string(in_features) + ", out_features=" + std::to_string(out_features) +
           ", bias=" + detail::python_bool(bias.defined());
  }
};

/// A Linear whose sizes are template arguments, so that a Sequential of
/// such layers checks its shapes at compile time (Note [compile-time model
/// shapes]); otherwise nn::Linear.
template <int64_t In, int64_t Out, Element T = float>
class StaticLinear : public Linear<T> {
 public:
  static_assert(In >= 0 && Out >= 0, "StaticLinear: sizes must not be negative");
  static constexpr int64_t static_in_features = In;
  static constexpr int64_t static_out_features = Out;
  explicit StaticLinear(bool with_bias = true) : Linear<T>(In, Out, with_bias) {}
};

/// `nn.Bilinear(in1_features, in2_features, out_features, bias)`:
/// y = x1^T A x2 + b; A (out, in1, in2), both uniform in +-1/sqrt(in1).
template <Element T = float>
class Bilinear : public Module<Bilinear<T>, T> {
 public:
  int64_t in1_features;
  int64_t in2_features;
  int64_t out_features;
  Tensor<T> weight;
  Tensor<T> bias;
  TENSORLIB_PARAMETERS(weight, bias)

  Bilinear(int64_t in1, int64_t in2, int64_t out, bool with_bias = true)
      : in1_features(in1), in2_features(in2), out_features(out) {
    const double bound = in1 > 0 ? 1 / std::sqrt(static_cast<double>(in1)) : 0.0;
    weight = detail::uniform_parameter<T>({out, in1, in2}, bound);
    if (with_bias) bias = detail::uniform_parameter<T>({out}, bound);
  }
  Tensor<T> forward(const Tensor<T>& input1, const Tensor<T>& input2) const {
    return functional::bilinear(input1, input2, weight, detail::optional_of(bias));
  }
  std::string extra_repr() const {
    return "in1_features=" + std::to_string(in1_features) + ", in2_features=" + std::to_string(in2_features) +
           ", out_features=" + std::to_string(out_features) + ", bias=" + detail::python_bool(bias.defined());
  }
};

/// `nn.Flatten(start_dim=1, end_dim=-1)`.
class Flatten : public Module<Flatten, void> {
 public:
  int64_t start_dim;
  int64_t end_dim;

  explicit Flatten(int64_t start = 1, int64_t end = -1) : start_dim(start), end_dim(end) {}
  template <class T>
  Tensor<T> forward(const Tensor<T>& input) const {
    return input.flatten(start_dim, end_dim);
  }
  std::string extra_repr() const {
    return "start_dim=" + std::to_string(start_dim) + ", end_dim=" + std::to_string(end_dim);
  }
};

/// `nn.Unflatten(dim, unflattened_size)`.
class Unflatten : public Module<Unflatten, void> {
 public:
  int64_t dim;
  Shape unflattened_size;

  Unflatten(int64_t d, const Shape& sizes) : dim(d), unflattened_size(sizes) {}
  template <class T>
  Tensor<T> forward(const Tensor<T>& input) const {
    return input.unflatten(dim, unflattened_size);
  }
  std::string extra_repr() const {
    std::string sizes;
    for (int64_t i = 0; i < unflattened_size.size(); ++i) {
      sizes += (i ? ", " : "") + std::to_string(unflattened_size[i]);
    }
    return "dim=" + std::to_string(dim) + ", unflattened_size=(" + sizes + (unflattened_size.size() == 1 ? ",)" : ")");
  }
};

}  // namespace tensorlib::nn
