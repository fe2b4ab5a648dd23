#pragma once
/// \file
/// `tl::nn::init` (torch.nn.init): `calculate_gain`, the fan computation, and
/// the in-place initializers `uniform_`, `normal_`, `trunc_normal_`,
/// `constant_`, `ones_`, `zeros_`, `eye_`, `dirac_`, `xavier_uniform_`,
/// `xavier_normal_`, `kaiming_uniform_`, `kaiming_normal_`, `orthogonal_`,
/// `sparse_`, with PyTorch's formulas, defaults and messages. Each runs
/// without recording (as PyTorch's under no_grad), on the tensor's device,
/// drawing from a `tl::Generator` (the default one unless given), and
/// returns the tensor.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tensorlib/core/error.hpp"
#include "tensorlib/core/generator.hpp"
#include "tensorlib/core/grad_mode.hpp"
#include "tensorlib/core/tensor.hpp"
#include "tensorlib/expr/functions.hpp"
#include "tensorlib/expr/operators.hpp"
#include "tensorlib/ops/copy.hpp"
#include "tensorlib/ops/decompositions.hpp"
#include "tensorlib/ops/factories.hpp"
#include "tensorlib/ops/random.hpp"
#include "tensorlib/ops/triangular.hpp"

namespace tensorlib::nn::init {

/// The recommended gain for a nonlinearity (nn.init.calculate_gain):
/// linear, conv*, sigmoid 1; tanh 5/3; relu sqrt 2; leaky_relu
/// sqrt(2 / (1 + slope^2)) (slope `param`, default 0.01); selu 3/4.
inline double calculate_gain(std::string_view nonlinearity, std::optional<double> param = std::nullopt) {
  if (nonlinearity == "linear" || nonlinearity == "conv1d" || nonlinearity == "conv2d" || nonlinearity == "conv3d" ||
      nonlinearity == "conv_transpose1d" || nonlinearity == "conv_transpose2d" || nonlinearity == "conv_transpose3d" ||
      nonlinearity == "sigmoid")
    return 1.0;
  if (nonlinearity == "tanh") return 5.0 / 3;
  if (nonlinearity == "relu") return std::sqrt(2.0);
  if (nonlinearity == "leaky_relu") {
    const double slope = param.value_or(0.01);
    return std::sqrt(2.0 / (1 + slope * slope));
  }
  if (nonlinearity == "selu") return 3.0 / 4;
  tensorlib::detail::check<ValueError>(false, "calculate_gain: Unsupported nonlinearity ", nonlinearity);
  return 0;
}

/// (fan_in, fan_out): size(1) and size(0) times the receptive field (the
/// product of the sizes after the first two).
template <Element T>
std::pair<int64_t, int64_t> calculate_fan_in_and_fan_out(const Tensor<T>& tensor) {
  tensorlib::detail::check<ValueError>(tensor.dim() >= 2,
                                       "Fan in and fan out can not be computed for tensor with "
                                       "fewer than 2 dimensions");
  int64_t receptive = 1;
  for (int64_t d = 2; d < tensor.dim(); ++d) receptive *= tensor.size(d);
  return {tensor.size(1) * receptive, tensor.size(0) * receptive};
}

namespace detail {

template <Element T>
int64_t fan(const Tensor<T>& tensor, std::string_view mode) {
  tensorlib::detail::check<ValueError>(mode == "fan_in" || mode == "fan_out", "Mode ", mode,
                                       " not supported, please use one of fan_in, fan_out");
  const auto [in, out] = calculate_fan_in_and_fan_out(tensor);
  return mode == "fan_in" ? in : out;
}

/// Writes `values` (a fresh tensor of the same shape) into `tensor` unrecorded.
template <Element T>
Tensor<T>& assign(Tensor<T>& tensor, const Tensor<T>& values) {
  NoGradGuard guard;
  tensor.copy_(values);
  return tensor;
}

}  // namespace detail

/// Fills with U(a, b).
template <Element T>
Tensor<T>& uniform_(Tensor<T>& tensor, double a = 0, double b = 1, Generator& gen = default_generator()) {
  NoGradGuard guard;
  return tensor.uniform_(a, b, gen);
}

/// Fills with N(mean, std^2).
template <Element T>
Tensor<T>& normal_(Tensor<T>& tensor, double mean = 0, double std_dev = 1, Generator& gen = default_generator()) {
  NoGradGuard guard;
  return tensor.normal_(mean, std_dev, gen);
}

/// Fills with N(mean, std^2) truncated to [a, b], by the inverse CDF of a
/// uniform draw between the bounds' CDF values (PyTorch's method).
template <Element T>
Tensor<T>& trunc_normal_(Tensor<T>& tensor, double mean = 0, double std_dev = 1, double a = -2, double b = 2,
                         Generator& gen = default_generator()) {
  const auto cdf = [](double x) { return (1 + std::erf(x / std::sqrt(2.0))) / 2; };
  const double l = cdf((a - mean) / std_dev), u = cdf((b - mean) / std_dev);
  NoGradGuard guard;
  tensor.uniform_(2 * l - 1, 2 * u - 1, gen);
  tensor.erfinv_();
  return detail::assign(tensor, Tensor<T>(clamp(tensor * (std_dev * std::sqrt(2.0)) + mean, a, b)));
}

/// Fills with `val`.
template <Element T>
Tensor<T>& constant_(Tensor<T>& tensor, double val) {
  NoGradGuard guard;
  return tensor.fill_(static_cast<T>(val));
}
/// Fills with ones.
template <Element T>
Tensor<T>& ones_(Tensor<T>& tensor) {
  return constant_(tensor, 1);
}
/// Fills with zeros.
template <Element T>
Tensor<T>& zeros_(Tensor<T>& tensor) {
  return constant_(tensor, 0);
}

/// The identity matrix (2-D tensors only).
template <Element T>
Tensor<T>& eye_(Tensor<T>& tensor) {
  tensorlib::detail::check<ValueError>(tensor.dim() == 2, "eye_: Only tensors with 2 dimensions are supported");
  return detail::assign(tensor, eye<T>(tensor.size(0), tensor.size(1), {.device = tensor.device()}));
}

/// The Dirac delta of a convolution weight (3-, 4- or 5-D): each of `groups`
/// groups of output channels passes its input channels through unchanged
/// (nn.init.dirac_).
template <Element T>
Tensor<T>& dirac_(Tensor<T>& tensor, int64_t groups = 1) {
  const int64_t d = tensor.dim();
  tensorlib::detail::check<ValueError>(d >= 3 && d <= 5,
                                       "dirac_: Only tensors with 3, 4, or 5 dimensions are "
                                       "supported");
  tensorlib::detail::check<ValueError>(groups > 0 && tensor.size(0) % groups == 0,
                                       "dirac_: dim 0 must be divisible by groups");
  const int64_t out_per_group = tensor.size(0) / groups, channels = std::min(out_per_group, tensor.size(1));
  Tensor<T> values = zeros<T>(tensor.sizes(), {.device = Device(kCPU)});
  T* p = values.data_ptr();
  int64_t centre = 0, plane = 1;
  for (int64_t k = d - 1; k >= 2; --k) {
    centre += (tensor.size(k) / 2) * plane;
    plane *= tensor.size(k);
  }
  for (int64_t g = 0; g < groups; ++g)
    for (int64_t c = 0; c < channels; ++c) p[((g * out_per_group + c) * tensor.size(1) + c) * plane + centre] = T(1);
  return detail::assign(tensor, values.to(tensor.device()));
}

/// U(-a, a) with a = gain sqrt(6 / (fan_in + fan_out)) (Glorot).
template <Element T>
Tensor<T>& xavier_uniform_(Tensor<T>& tensor, double gain = 1, Generator& gen = default_generator()) {
  const auto [in, out] = calculate_fan_in_and_fan_out(tensor);
  const double a = std::sqrt(3.0) * gain * std::sqrt(2.0 / static_cast<double>(in + out));
  return uniform_(tensor, -a, a, gen);
}

/// N(0, std^2) with std = gain sqrt(2 / (fan_in + fan_out)) (Glorot).
template <Element T>
Tensor<T>& xavier_normal_(Tensor<T>& tensor, double gain = 1, Generator& gen = default_generator()) {
  const auto [in, out] = calculate_fan_in_and_fan_out(tensor);
  return normal_(tensor, 0, gain * std::sqrt(2.0 / static_cast<double>(in + out)), gen);
}

/// U(-b, b) with b = gain sqrt(3 / fan) (He; gain of `nonlinearity` with
/// slope a, fan of `mode`).
template <Element T>
Tensor<T>& kaiming_uniform_(Tensor<T>& tensor, double a = 0, std::string_view mode = "fan_in",
                            std::string_view nonlinearity = "leaky_relu", Generator& gen = default_generator()) {
  if (tensor.numel() == 0) return tensor;  // PyTorch: a no-op (with a warning)
  const double sd = calculate_gain(nonlinearity, a) / std::sqrt(static_cast<double>(detail::fan(tensor, mode)));
  const double bound = std::sqrt(3.0) * sd;
  return uniform_(tensor, -bound, bound, gen);
}

/// N(0, std^2) with std = gain / sqrt(fan) (He).
template <Element T>
Tensor<T>& kaiming_normal_(Tensor<T>& tensor, double a = 0, std::string_view mode = "fan_in",
                           std::string_view nonlinearity = "leaky_relu", Generator& gen = default_generator()) {
  if (tensor.numel() == 0) return tensor;
  const double sd = calculate_gain(nonlinearity, a) / std::sqrt(static_cast<double>(detail::fan(tensor, mode)));
  return normal_(tensor, 0, sd, gen);
}

/// A (semi-)orthogonal matrix of the tensor flattened to (size(0), rest),
/// times gain: Q of the QR of a normal draw, its columns' signs fixed by R's
/// diagonal (Saxe et al.; nn.init.orthogonal_).
template <Element T>
Tensor<T>& orthogonal_(Tensor<T>& tensor, double gain = 1, Generator& gen = default_generator()) {
  tensorlib::detail::check<ValueError>(tensor.dim() >= 2,
                                       "orthogonal_: Only tensors with 2 or more dimensions are "
                                       "supported");
  if (tensor.numel() == 0) return tensor;
  const int64_t rows = tensor.size(0), cols = tensor.numel() / rows;
  NoGradGuard guard;
  Tensor<T> flat = randn<T>({rows, cols}, gen, {.device = tensor.device()});
  if (rows < cols) flat = flat.t().contiguous();
  auto [q, r] = linalg::qr(flat);
  const Tensor<T> signs = sign(r.diagonal());
  Tensor<T> oriented = q * signs;
  if (rows < cols) oriented = oriented.t();
  return detail::assign(tensor, Tensor<T>(oriented.reshape(tensor.sizes()) * gain));
}

/// A 2-D tensor drawn from N(0, std^2) with ceil(sparsity rows) entries of
/// every column set to zero, at random rows (nn.init.sparse_).
template <Element T>
Tensor<T>& sparse_(Tensor<T>& tensor, double sparsity, double std_dev = 0.01, Generator& gen = default_generator()) {
  tensorlib::detail::check<ValueError>(tensor.dim() == 2, "sparse_: Only tensors with 2 dimensions are supported");
  const int64_t rows = tensor.size(0), cols = tensor.size(1);
  // ceil(sparsity rows) rows, read as Python's slice [:k] (a negative k
  // counts from the end, a large one stops at the end).
  auto zeroed = static_cast<int64_t>(std::ceil(sparsity * static_cast<double>(rows)));
  zeroed = std::clamp<int64_t>(zeroed < 0 ? rows + zeroed : zeroed, 0, rows);
  Tensor<T> values = randn<T>({rows, cols}, gen) * std_dev;
  T* p = values.data_ptr();
  for (int64_t c = 0; c < cols; ++c) {
    const std::vector<int64_t> order = randperm(rows, gen).to_vector();
    for (int64_t i = 0; i < zeroed; ++i) p[order[static_cast<std::size_t>(i)] * cols + c] = T(0);
  }
  return detail::assign(tensor, values.to(tensor.device()));
}

}  // namespace tensorlib::nn::init
