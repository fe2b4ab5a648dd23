#pragma once
/// \file
/// `Conv1d/2d/3d` and `ConvTranspose1d/2d/3d` (torch/nn/modules/conv.py):
/// parameters of PyTorch's shapes and initialization over the convolutions
/// of ops/convolution.hpp. Options are an aggregate:
/// `nn::Conv2d<>(1, 16, {5}, {.padding = {2}})`.

#include <cstdint>
#include <string>
#include <string_view>

#include "tensorlib/core/config.hpp"
#include "tensorlib/core/error.hpp"
#include "tensorlib/nn/module.hpp"
#include "tensorlib/nn/modules/linear.hpp"
#include "tensorlib/ops/convolution.hpp"
#include "tensorlib/ops/pad.hpp"

namespace tensorlib::nn {

/// The options of a convolution module; one value of a size stands for all
/// spatial dimensions.
struct ConvOptions {
  Shape stride{1};
  Shape padding{0};
  Shape dilation{1};
  /// Transposed convolutions only.
  Shape output_padding{0};
  int64_t groups = 1;
  bool bias = true;
  /// "zeros", "reflect", "replicate" or "circular" (transposed: "zeros").
  std::string_view padding_mode = "zeros";
};

namespace detail {

/// The state and forward shared by the convolution modules of N spatial
/// dimensions; Derived names the public class (Conv2d<T>, ...).
template <class Derived, int64_t N, bool Transposed, class T>
class ConvNd : public Module<Derived, T> {
 public:
  int64_t in_channels;
  int64_t out_channels;
  Shape kernel_size;
  Shape stride;
  Shape padding;
  Shape dilation;
  Shape output_padding;
  int64_t groups;
  std::string padding_mode;
  Tensor<T> weight;
  Tensor<T> bias;
  TENSORLIB_PARAMETERS(weight, bias)

  ConvNd(int64_t in, int64_t out, const Shape& kernel, const ConvOptions& options, const char* op)
      : in_channels(in),
        out_channels(out),
        kernel_size(tensorlib::detail::conv_param(kernel, "kernel_size", N, op)),
        stride(tensorlib::detail::conv_param(options.stride, "stride", N, op)),
        padding(tensorlib::detail::conv_param(options.padding, "padding", N, op)),
        dilation(tensorlib::detail::conv_param(options.dilation, "dilation", N, op)),
        output_padding(tensorlib::detail::conv_param(options.output_padding, "output_padding", N, op)),
        groups(options.groups),
        padding_mode(options.padding_mode) {
    using tensorlib::detail::check;
    check<ValueError>(groups > 0, "groups must be a positive integer");
    check<ValueError>(in % groups == 0, "in_channels must be divisible by groups");
    check<ValueError>(out % groups == 0, "out_channels must be divisible by groups");
    check<ValueError>(padding_mode == "zeros" || padding_mode == "reflect" || padding_mode == "replicate" ||
                          padding_mode == "circular",
                      "padding_mode must be one of ['zeros', 'reflect', 'replicate', 'circular'], but got "
                      "padding_mode='",
                      padding_mode, "'");
    check<ValueError>(!Transposed || padding_mode == "zeros", "Only \"zeros\" padding mode is supported for ", op);
    Shape shape{Transposed ? in : out, Transposed ? out / groups : in / groups};
    for (int64_t i = 0; i < N; ++i) shape.push_back(kernel_size[i]);
    std::tie(weight, bias) = default_weight_and_bias<T>(shape, out, options.bias);
  }

  Tensor<T> forward(const Tensor<T>& input) const {
    const auto b = optional_of(bias);
    if constexpr (Transposed) {
      return convolution(input, weight, b, stride, padding, dilation, true, output_padding, groups);
    } else {
      if (padding_mode == "zeros") return convolution(input, weight, b, stride, padding, dilation, false, {0}, groups);
      // Other modes pad first, PyTorch's _reversed_padding_repeated_twice.
      Shape pads;
      for (int64_t i = N - 1; i >= 0; --i) {
        pads.push_back(padding[i]);
        pads.push_back(padding[i]);
      }
      return convolution(pad(input, pads, padding_mode), weight, b, stride, Shape{0}, dilation, false, {0}, groups);
    }
  }

  std::string extra_repr() const {
    std::string s = std::to_string(in_channels) + ", " + std::to_string(out_channels) +
                    ", kernel_size=" + python_tuple(kernel_size) + ", stride=" + python_tuple(stride);
    if (padding != Shape::filled(N, 0)) s += ", padding=" + python_tuple(padding);
    if (dilation != Shape::filled(N, 1)) s += ", dilation=" + python_tuple(dilation);
    if (output_padding != Shape::filled(N, 0)) s += ", output_padding=" + python_tuple(output_padding);
    if (groups != 1) s += ", groups=" + std::to_string(groups);
    if (!bias.defined()) s += ", bias=False";
    if (padding_mode != "zeros") s += ", padding_mode=" + padding_mode;
    return s;
  }
};

}  // namespace detail

/// `nn.Conv1d(in_channels, out_channels, kernel_size, ...)`.
template <Element T = float>
class Conv1d : public detail::ConvNd<Conv1d<T>, 1, false, T> {
 public:
  Conv1d(int64_t in, int64_t out, const Shape& kernel, const ConvOptions& options = {})
      : detail::ConvNd<Conv1d<T>, 1, false, T>(in, out, kernel, options, "Conv1d") {}
};
/// `nn.Conv2d(in_channels, out_channels, kernel_size, ...)`.
template <Element T = float>
class Conv2d : public detail::ConvNd<Conv2d<T>, 2, false, T> {
 public:
  Conv2d(int64_t in, int64_t out, const Shape& kernel, const ConvOptions& options = {})
      : detail::ConvNd<Conv2d<T>, 2, false, T>(in, out, kernel, options, "Conv2d") {}
};
/// `nn.Conv3d(in_channels, out_channels, kernel_size, ...)`.
template <Element T = float>
class Conv3d : public detail::ConvNd<Conv3d<T>, 3, false, T> {
 public:
  Conv3d(int64_t in, int64_t out, const Shape& kernel, const ConvOptions& options = {})
      : detail::ConvNd<Conv3d<T>, 3, false, T>(in, out, kernel, options, "Conv3d") {}
};
/// `nn.ConvTranspose1d(in_channels, out_channels, kernel_size, ...)`.
template <Element T = float>
class ConvTranspose1d : public detail::ConvNd<ConvTranspose1d<T>, 1, true, T> {
 public:
  ConvTranspose1d(int64_t in, int64_t out, const Shape& kernel, const ConvOptions& options = {})
      : detail::ConvNd<ConvTranspose1d<T>, 1, true, T>(in, out, kernel, options, "ConvTranspose1d") {}
};
/// `nn.ConvTranspose2d(in_channels, out_channels, kernel_size, ...)`.
template <Element T = float>
class ConvTranspose2d : public detail::ConvNd<ConvTranspose2d<T>, 2, true, T> {
 public:
  ConvTranspose2d(int64_t in, int64_t out, const Shape& kernel, const ConvOptions& options = {})
      : detail::ConvNd<ConvTranspose2d<T>, 2, true, T>(in, out, kernel, options, "ConvTranspose2d") {}
};
/// `nn.ConvTranspose3d(in_channels, out_channels, kernel_size, ...)`.
template <Element T = float>
class ConvTranspose3d : public detail::ConvNd<ConvTranspose3d<T>, 3, true, T> {
 public:
  ConvTranspose3d(int64_t in, int64_t out, const Shape& kernel, const ConvOptions& options = {})
      : detail::ConvNd<ConvTranspose3d<T>, 3, true, T>(in, out, kernel, options, "ConvTranspose3d") {}
};

}  // namespace tensorlib::nn
