#pragma once
/// \file
/// `BatchNorm1d/2d/3d` (torch/nn/modules/batchnorm.py): per-channel
/// normalization with batch statistics in training, running statistics in
/// evaluation; buffers `running_mean`, `running_var` and the int64
/// `num_batches_tracked`.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "tensorlib/core/config.hpp"
#include "tensorlib/core/error.hpp"
#include "tensorlib/nn/functional/normalization.hpp"
#include "tensorlib/nn/module.hpp"
#include "tensorlib/nn/modules/linear.hpp"
#include "tensorlib/ops/factories.hpp"
#include "tensorlib/ops/inplace.hpp"

namespace tensorlib::nn {

/// The options of a batch norm; `momentum` none is the cumulative average.
struct BatchNormOptions {
  double eps = 1e-5;
  std::optional<double> momentum = 0.1;
  bool affine = true;
  bool track_running_stats = true;
};

namespace detail {

/// One batch norm module; N is the dimensionality of the input without the
/// batch and channel dimensions (BatchNorm1d takes 2-d and 3-d input).
template <class Derived, int64_t N, class T>
class BatchNormNd : public Module<Derived, T> {
 public:
  int64_t num_features;
  double eps;
  std::optional<double> momentum;
  bool affine;
  bool track_running_stats;
  Tensor<T> weight;
  Tensor<T> bias;
  Tensor<T> running_mean;
  Tensor<T> running_var;
  Tensor<int64_t> num_batches_tracked;
  TENSORLIB_PARAMETERS(weight, bias)
  TENSORLIB_BUFFERS(running_mean, running_var, num_batches_tracked)

  BatchNormNd(int64_t features, const BatchNormOptions& options)
      : num_features(features),
        eps(options.eps),
        momentum(options.momentum),
        affine(options.affine),
        track_running_stats(options.track_running_stats) {
    if (affine) {
      weight = ones<T>({features}).requires_grad_();
      bias = zeros<T>({features}).requires_grad_();
    }
    if (track_running_stats) {
      running_mean = zeros<T>({features});
      running_var = ones<T>({features});
      num_batches_tracked = zeros<int64_t>({});
    }
  }

  Tensor<T> forward(const Tensor<T>& input) const {
    if constexpr (N == 1) {
      tensorlib::detail::check<ValueError>(input.dim() == 2 || input.dim() == 3, "expected 2D or 3D input (got ",
                                           input.dim(), "D input)");
    } else {
      tensorlib::detail::check<ValueError>(input.dim() == N + 2, "expected ", N + 2, "D input (got ", input.dim(),
                                           "D input)");
    }
    double factor = momentum.value_or(0.0);
    if (this->training && track_running_stats) {
      Tensor<int64_t> count = num_batches_tracked;
      count.add_(1);
      if (!momentum) factor = 1.0 / static_cast<double>(count.item());
    }
    const bool batch_stats = this->training || !running_mean.defined();
    const bool use_running = !this->training || track_running_stats;
    return functional::batch_norm(input, use_running ? optional_of(running_mean) : std::nullopt,
                                  use_running ? optional_of(running_var) : std::nullopt, optional_of(weight),
                                  optional_of(bias), batch_stats, factor, eps);
  }

  std::string extra_repr() const {
    return std::to_string(num_features) + ", eps=" + python_float(eps) +
           ", momentum=" + (momentum ? python_float(*momentum) : "None") + ", affine=" + python_bool(affine) +
           ", track_running_stats=" + python_bool(track_running_stats);
  }
};

}  // namespace detail

/// `nn.BatchNorm1d(num_features, ...)` over (N, C) or (N, C, L).
template <Element T = float>
class BatchNorm1d : public detail::BatchNormNd<BatchNorm1d<T>, 1, T> {
 public:
  explicit BatchNorm1d(int64_t features, const BatchNormOptions& options = {})
      : detail::BatchNormNd<BatchNorm1d<T>, 1, T>(features, options) {}
};
/// `nn.BatchNorm2d(num_features, ...)` over (N, C, H, W).
template <Element T = float>
class BatchNorm2d : public detail::BatchNormNd<BatchNorm2d<T>, 2, T> {
 public:
  explicit BatchNorm2d(int64_t features, const BatchNormOptions& options = {})
      : detail::BatchNormNd<BatchNorm2d<T>, 2, T>(features, options) {}
};
/// `nn.BatchNorm3d(num_features, ...)` over (N, C, D, H, W).
template <Element T = float>
class BatchNorm3d : public detail::BatchNormNd<BatchNorm3d<T>, 3, T> {
 public:
  explicit BatchNorm3d(int64_t features, const BatchNormOptions& options = {})
      : detail::BatchNormNd<BatchNorm3d<T>, 3, T>(features, options) {}
};

}  // namespace tensorlib::nn
