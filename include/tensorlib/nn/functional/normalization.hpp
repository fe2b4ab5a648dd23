#pragma once
/// \file
/// torch.nn.functional's normalizations with PyTorch's arguments, formulas
/// and messages: `batch_norm` (batch statistics while training, updating
/// the running ones in place; the running ones otherwise), `instance_norm`,
/// `layer_norm`, `group_norm`, `local_response_norm`, `normalize`. Each
/// normalizes as (x - mean) rsqrt(var + eps) with the biased variance, then
/// applies the optional per-channel weight and bias; the running variance
/// is updated with the unbiased one. Compositions of reductions and fused
/// expressions, so gradients come from the parts (PyTorch's formulas, in
/// another order of rounding).

#include <cstdint>
#include <optional>
#include <type_traits>

#include "tensorlib/core/error.hpp"
#include "tensorlib/core/grad_mode.hpp"
#include "tensorlib/core/tensor.hpp"
#include "tensorlib/expr/functions.hpp"
#include "tensorlib/expr/operators.hpp"
#include "tensorlib/ops/copy.hpp"
#include "tensorlib/ops/norms.hpp"
#include "tensorlib/ops/pad.hpp"
#include "tensorlib/ops/pooling.hpp"
#include "tensorlib/ops/reduce.hpp"

namespace tensorlib {
namespace detail {

/// x * weight + bias with both optional, broadcast along dimension `dim`.
template <Element T>
Tensor<T> channel_affine(const Tensor<T>& x, const std::optional<Tensor<T>>& weight,
                         const std::optional<Tensor<T>>& bias, int64_t dim) {
  Shape along = Shape::filled(x.dim(), 1);
  if (x.dim() > dim) along[dim] = x.size(dim);
  Tensor<T> r = x;
  if (weight) r = r * weight->reshape(along);
  if (bias) r = r + bias->reshape(along);
  return r;
}

/// (1 - momentum) running + momentum stat, in place and unrecorded.
template <Element T>
void update_running(const Tensor<T>& running, const Tensor<T>& stat, double momentum) {
  NoGradGuard guard;
  const Tensor<T> updated = running * (1 - momentum) + stat.detach() * momentum;
  Tensor<T>(running).copy_(updated);
}

/// Checks a per-channel tensor's length.
template <Element T>
void check_per_channel(const std::optional<Tensor<T>>& t, int64_t channels, const char* what, const char* op) {
  if (t)
    check<ShapeError>(t->numel() == channels, op, ": expected ", what, " to have ", channels, " elements, but got ",
                      what, " of size ", t->sizes());
}

}  // namespace detail

namespace nn::functional {

/// F.batch_norm(input, running_mean, running_var, weight, bias, training,
/// momentum, eps) over (N, C, ...): per-channel statistics over every other
/// dimension.
template <Element T>
Tensor<T> batch_norm(const Tensor<T>& input, const std::optional<Tensor<std::type_identity_t<T>>>& running_mean,
                     const std::optional<Tensor<std::type_identity_t<T>>>& running_var,
                     const std::optional<Tensor<std::type_identity_t<T>>>& weight = std::nullopt,
                     const std::optional<Tensor<std::type_identity_t<T>>>& bias = std::nullopt, bool training = false,
                     double momentum = 0.1, double eps = 1e-5) {
  static_assert(is_floating<T>, "batch_norm: expected floating-point tensors");
  tensorlib::detail::check<ShapeError>(input.dim() >= 2, "batch_norm: expected 2D or more input (got ", input.dim(),
                                       "D input of size ", input.sizes(), ")");
  const int64_t c = input.size(1);
  for (const auto& [t, what] : {std::pair{&running_mean, "running_mean"}, std::pair{&running_var, "running_var"},
                                std::pair{&weight, "weight"}, std::pair{&bias, "bias"}})
    tensorlib::detail::check_per_channel(*t, c, what, "batch_norm");
  if (input.numel() == 0) return input.clone();  // nothing to normalize, no statistics to update
  Shape dims = {0}, along = Shape::filled(input.dim(), 1);
  along[1] = c;
  for (int64_t d = 2; d < input.dim(); ++d) dims.push_back(d);
  Tensor<T> mean, var;
  if (training) {
    const int64_t n = input.numel() / std::max<int64_t>(c, 1);
    tensorlib::detail::check<ValueError>(n > 1,
                                         "batch_norm: Expected more than 1 value per channel when training, "
                                         "got input size ",
                                         input.sizes());
    mean = input.mean(dims, true);
    var = input.var(dims, 0, true);
    if (running_mean) tensorlib::detail::update_running(*running_mean, mean.reshape({c}), momentum);
    if (running_var)
      tensorlib::detail::update_running(*running_var, Tensor<T>(var.reshape({c}) * (static_cast<double>(n) / (n - 1))),
                                        momentum);
  } else {
    tensorlib::detail::check<ValueError>(running_mean && running_var,
                                         "batch_norm: running_mean and running_var must be defined in evaluation mode");
    mean = running_mean->reshape(along);
    var = running_var->reshape(along);
  }
  const Tensor<T> normalized = (input - mean) * rsqrt(var + eps);
  return tensorlib::detail::channel_affine(normalized, weight, bias, 1);
}

/// F.instance_norm(input, running_mean, running_var, weight, bias,
/// use_input_stats, momentum, eps): batch_norm of every (sample, channel)
/// plane on its own; the running statistics, when given, move toward the
/// planes' statistics averaged over the batch.
template <Element T>
Tensor<T> instance_norm(const Tensor<T>& input,
                        const std::optional<Tensor<std::type_identity_t<T>>>& running_mean = std::nullopt,
                        const std::optional<Tensor<std::type_identity_t<T>>>& running_var = std::nullopt,
                        const std::optional<Tensor<std::type_identity_t<T>>>& weight = std::nullopt,
                        const std::optional<Tensor<std::type_identity_t<T>>>& bias = std::nullopt,
                        bool use_input_stats = true, double momentum = 0.1, double eps = 1e-5) {
  static_assert(is_floating<T>, "instance_norm: expected floating-point tensors");
  tensorlib::detail::check<ShapeError>(input.dim() >= 3, "instance_norm: expected 3D or more input (got ", input.dim(),
                                       "D input of size ", input.sizes(), ")");
  const int64_t n = input.size(0), c = input.size(1);
  for (const auto& [t, what] : {std::pair{&running_mean, "running_mean"}, std::pair{&running_var, "running_var"},
                                std::pair{&weight, "weight"}, std::pair{&bias, "bias"}})
    tensorlib::detail::check_per_channel(*t, c, what, "instance_norm");
  if (!use_input_stats) return batch_norm(input, running_mean, running_var, weight, bias, false, momentum, eps);
  if (input.numel() == 0) return input.clone();
  Shape dims;
  for (int64_t d = 2; d < input.dim(); ++d) dims.push_back(d);
  const int64_t per_plane = input.numel() / std::max<int64_t>(n * c, 1);
  tensorlib::detail::check<ValueError>(per_plane > 1,
                                       "instance_norm: Expected more than 1 spatial element when "
                                       "training, got input size ",
                                       input.sizes());
  const Tensor<T> mean = input.mean(dims, true), var = input.var(dims, 0, true);
  if (running_mean) tensorlib::detail::update_running(*running_mean, Tensor<T>(mean.reshape({n, c}).mean(0)), momentum);
  if (running_var)
    tensorlib::detail::update_running(
        *running_var, Tensor<T>(var.reshape({n, c}).mean(0) * (static_cast<double>(per_plane) / (per_plane - 1))),
        momentum);
  const Tensor<T> normalized = (input - mean) * rsqrt(var + eps);
  return tensorlib::detail::channel_affine(normalized, weight, bias, 1);
}

/// F.layer_norm(input, normalized_shape, weight, bias, eps): statistics over
/// the last normalized_shape.size() dimensions, which must match it; weight
/// and bias of normalized_shape.
template <Element T>
Tensor<T> layer_norm(const Tensor<T>& input, const Shape& normalized_shape,
                     const std::optional<Tensor<std::type_identity_t<T>>>& weight = std::nullopt,
                     const std::optional<Tensor<std::type_identity_t<T>>>& bias = std::nullopt, double eps = 1e-5) {
  static_assert(is_floating<T>, "layer_norm: expected floating-point tensors");
  const int64_t k = normalized_shape.size(), lead = input.dim() - k;
  bool fits = k >= 1 && lead >= 0;
  for (int64_t i = 0; fits && i < k; ++i) fits = input.size(lead + i) == normalized_shape[i];
  std::string expected = "[*";
  for (int64_t v : normalized_shape) expected += ", " + std::to_string(v);
  tensorlib::detail::check<ShapeError>(fits, "layer_norm: Given normalized_shape=", normalized_shape,
                                       ", expected input with shape ", expected + "]", ", but got input of size",
                                       input.sizes());
  for (const auto* t : {&weight, &bias})
    if (*t)
      tensorlib::detail::check<ShapeError>((*t)->sizes() == normalized_shape,
                                           "layer_norm: Expected weight and bias "
                                           "of shape ",
                                           normalized_shape, ", got ", (*t)->sizes());
  Shape dims;
  for (int64_t i = 0; i < k; ++i) dims.push_back(lead + i);
  const Tensor<T> mean = input.mean(dims, true), var = input.var(dims, 0, true);
  Tensor<T> r = (input - mean) * rsqrt(var + eps);
  if (weight) r = r * *weight;
  if (bias) r = r + *bias;
  return r;
}

/// F.group_norm(input, num_groups, weight, bias, eps): statistics over each
/// group of C / num_groups channels (and the spatial dimensions).
template <Element T>
Tensor<T> group_norm(const Tensor<T>& input, int64_t num_groups,
                     const std::optional<Tensor<std::type_identity_t<T>>>& weight = std::nullopt,
                     const std::optional<Tensor<std::type_identity_t<T>>>& bias = std::nullopt, double eps = 1e-5) {
  static_assert(is_floating<T>, "group_norm: expected floating-point tensors");
  tensorlib::detail::check<ShapeError>(input.dim() >= 2,
                                       "group_norm: Expected at least 2 dimensions for input "
                                       "tensor but received ",
                                       input.dim());
  const int64_t n = input.size(0), c = input.size(1);
  tensorlib::detail::check<ShapeError>(num_groups > 0 && c % num_groups == 0,
                                       "group_norm: Expected number of channels in input to be divisible by "
                                       "num_groups, but got input of shape ",
                                       input.sizes(), " and num_groups=", num_groups);
  for (const auto& [t, what] : {std::pair{&weight, "weight"}, std::pair{&bias, "bias"}})
    tensorlib::detail::check_per_channel(*t, c, what, "group_norm");
  tensorlib::detail::check<ValueError>(input.numel() / std::max<int64_t>(num_groups, 1) != 1,
                                       "group_norm: Expected more than 1 value per channel when training, got input "
                                       "size ",
                                       input.sizes());
  if (input.numel() == 0) return input.clone();
  const Tensor<T> grouped = input.reshape({n, num_groups, -1});
  const Tensor<T> mean = grouped.mean(2, true), var = grouped.var(2, 0, true);
  const Tensor<T> normalized = Tensor<T>((grouped - mean) * rsqrt(var + eps)).reshape(input.sizes());
  return tensorlib::detail::channel_affine(normalized, weight, bias, 1);
}

/// F.local_response_norm(input, size, alpha, beta, k): each element divided
/// by (k + alpha mean of squares over `size` neighbouring channels)^beta,
/// the window zero-padded by size / 2 before and (size - 1) / 2 after.
template <Element T>
Tensor<T> local_response_norm(const Tensor<T>& input, int64_t size, double alpha = 1e-4, double beta = 0.75,
                              double k = 1.0) {
  static_assert(is_floating<T>, "local_response_norm: expected floating-point tensors");
  tensorlib::detail::check<ShapeError>(input.dim() >= 3,
                                       "local_response_norm: Expected 3D or higher dimensionality "
                                       "input (got ",
                                       input.dim(), " dimensions)");
  tensorlib::detail::check<ValueError>(size > 0, "local_response_norm: size must be positive, got ", size);
  if (input.numel() == 0) return input.clone();
  const Tensor<T> squares = Tensor<T>(square(input)).unsqueeze(1);
  Tensor<T> div;
  if (input.dim() == 3) {
    div = avg_pool2d(constant_pad_nd(squares, {0, 0, size / 2, (size - 1) / 2}), {size, 1}, {1}).squeeze(1);
  } else {
    const Tensor<T> planes = squares.reshape({input.size(0), 1, input.size(1), input.size(2), -1});
    div = avg_pool3d(constant_pad_nd(planes, {0, 0, 0, 0, size / 2, (size - 1) / 2}), {size, 1, 1}, {1})
              .squeeze(1)
              .reshape(input.sizes());
  }
  return input / pow(div * alpha + k, static_cast<T>(beta));
}

/// F.normalize(input, p, dim, eps): input / max(||input||_p along dim, eps).
template <Element T>
Tensor<T> normalize(const Tensor<T>& input, double p = 2.0, int64_t dim = 1, double eps = 1e-12) {
  static_assert(is_floating<T>, "normalize: expected floating-point tensors");
  return input / clamp(input.norm(p, dim, true), eps, None);
}

}  // namespace nn::functional
}  // namespace tensorlib
