#pragma once
/// \file
/// Pooling modules (torch/nn/modules/pooling.py): `MaxPool1d/2d/3d`,
/// `AvgPool1d/2d/3d`, `AdaptiveAvgPool1d/2d/3d`, `AdaptiveMaxPool1d/2d/3d`,
/// over ops/pooling.hpp. They have no parameters, so they are classes, not
/// templates: `nn::MaxPool2d pool({2})`.

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "tensorlib/nn/module.hpp"
#include "tensorlib/ops/pooling.hpp"

namespace tensorlib::nn {

namespace detail {

template <int64_t N>
constexpr const char* pool_name(std::array<const char*, 3> names) {
  return names[N - 1];
}

}  // namespace detail

/// The options of a max pool; an empty stride is the kernel size.
struct MaxPoolOptions {
  Shape stride{};
  Shape padding{0};
  Shape dilation{1};
  bool ceil_mode = false;
};

/// `nn.MaxPool{N}d(kernel_size, stride, padding, dilation, ceil_mode)`;
/// `forward_with_indices` is `return_indices=True`.
template <int64_t N>
class MaxPool : public Module<MaxPool<N>, void> {
 public:
  static constexpr std::string_view name = detail::pool_name<N>({"MaxPool1d", "MaxPool2d", "MaxPool3d"});
  Shape kernel_size;
  Shape stride;
  Shape padding;
  Shape dilation;
  bool ceil_mode;

  explicit MaxPool(const Shape& kernel, const MaxPoolOptions& options = {})
      : kernel_size(kernel),
        stride(options.stride.size() ? options.stride : kernel),
        padding(options.padding),
        dilation(options.dilation),
        ceil_mode(options.ceil_mode) {}
  template <class T>
  Tensor<T> forward(const Tensor<T>& input) const {
    return forward_with_indices(input).values;
  }
  template <class T>
  ValuesIndices<T> forward_with_indices(const Tensor<T>& input) const {
    return tensorlib::detail::max_pool(input, N, kernel_size, stride, padding, dilation, ceil_mode, name.data());
  }
  std::string extra_repr() const {
    return "kernel_size=" + detail::python_int_or_tuple(kernel_size) +
           ", stride=" + detail::python_int_or_tuple(stride) + ", padding=" + detail::python_int_or_tuple(padding) +
           ", dilation=" + detail::python_int_or_tuple(dilation) + ", ceil_mode=" + detail::python_bool(ceil_mode);
  }
};
using MaxPool1d = MaxPool<1>;
using MaxPool2d = MaxPool<2>;
using MaxPool3d = MaxPool<3>;

/// The options of an average pool; an empty stride is the kernel size.
struct AvgPoolOptions {
  Shape stride{};
  Shape padding{0};
  bool ceil_mode = false;
  bool count_include_pad = true;
  std::optional<int64_t> divisor_override = std::nullopt;
};

/// `nn.AvgPool{N}d(kernel_size, stride, padding, ceil_mode,
/// count_include_pad, divisor_override)`.
template <int64_t N>
class AvgPool : public Module<AvgPool<N>, void> {
 public:
  static constexpr std::string_view name = detail::pool_name<N>({"AvgPool1d", "AvgPool2d", "AvgPool3d"});
  Shape kernel_size;
  Shape stride;
  Shape padding;
  bool ceil_mode;
  bool count_include_pad;
  std::optional<int64_t> divisor_override;

  explicit AvgPool(const Shape& kernel, const AvgPoolOptions& options = {})
      : kernel_size(kernel),
        stride(options.stride.size() ? options.stride : kernel),
        padding(options.padding),
        ceil_mode(options.ceil_mode),
        count_include_pad(options.count_include_pad),
        divisor_override(options.divisor_override) {}
  template <class T>
  Tensor<T> forward(const Tensor<T>& input) const {
    return tensorlib::detail::avg_pool(input, N, kernel_size, stride, padding, ceil_mode, count_include_pad,
                                       divisor_override, name.data());
  }
  std::string extra_repr() const {
    return "kernel_size=" + detail::python_int_or_tuple(kernel_size) +
           ", stride=" + detail::python_int_or_tuple(stride) + ", padding=" + detail::python_int_or_tuple(padding);
  }
};
using AvgPool1d = AvgPool<1>;
using AvgPool2d = AvgPool<2>;
using AvgPool3d = AvgPool<3>;

/// `nn.AdaptiveAvgPool{N}d(output_size)`.
template <int64_t N>
class AdaptiveAvgPool : public Module<AdaptiveAvgPool<N>, void> {
 public:
  static constexpr std::string_view name =
      detail::pool_name<N>({"AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "AdaptiveAvgPool3d"});
  Shape output_size;

  explicit AdaptiveAvgPool(const Shape& size) : output_size(size) {}
  template <class T>
  Tensor<T> forward(const Tensor<T>& input) const {
    return tensorlib::detail::adaptive_avg_pool(input, output_size, N, name.data());
  }
  std::string extra_repr() const { return "output_size=" + detail::python_int_or_tuple(output_size); }
};
using AdaptiveAvgPool1d = AdaptiveAvgPool<1>;
using AdaptiveAvgPool2d = AdaptiveAvgPool<2>;
using AdaptiveAvgPool3d = AdaptiveAvgPool<3>;

/// `nn.AdaptiveMaxPool{N}d(output_size)`; `forward_with_indices` is
/// `return_indices=True`.
template <int64_t N>
class AdaptiveMaxPool : public Module<AdaptiveMaxPool<N>, void> {
 public:
  static constexpr std::string_view name =
      detail::pool_name<N>({"AdaptiveMaxPool1d", "AdaptiveMaxPool2d", "AdaptiveMaxPool3d"});
  Shape output_size;

  explicit AdaptiveMaxPool(const Shape& size) : output_size(size) {}
  template <class T>
  Tensor<T> forward(const Tensor<T>& input) const {
    return forward_with_indices(input).values;
  }
  template <class T>
  ValuesIndices<T> forward_with_indices(const Tensor<T>& input) const {
    return tensorlib::detail::adaptive_max_pool(input, output_size, N, name.data());
  }
  std::string extra_repr() const { return "output_size=" + detail::python_int_or_tuple(output_size); }
};
using AdaptiveMaxPool1d = AdaptiveMaxPool<1>;
using AdaptiveMaxPool2d = AdaptiveMaxPool<2>;
using AdaptiveMaxPool3d = AdaptiveMaxPool<3>;

}  // namespace tensorlib::nn
