#pragma once
/// \file
/// `interpolate` (torch.nn.functional.interpolate) with the modes
/// "nearest", "nearest-exact", "linear", "bilinear", "trilinear", "bicubic"
/// and "area", PyTorch's source-index rules (align_corners, scale factors
/// passed through unless recompute_scale_factor) and messages; `upsample`,
/// `upsample_nearest` and `upsample_bilinear` as in PyTorch.
///
/// Note [separable interpolation]. Every mode is separable: the spatial
/// dimensions are resampled one at a time, the last first, each by
/// `index_select`s of the source positions weighted by per-position
/// coefficients broadcast along the others (1 tap for nearest, 2 for linear,
/// 4 clamped taps for cubic), which nests the sums as PyTorch's kernels do
/// (w inside h inside d). "area" is adaptive_avg_pool. So every mode
/// differentiates (index_select's backward is index_add) and runs on any
/// device.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "tensorlib/core/error.hpp"
#include "tensorlib/core/tensor.hpp"
#include "tensorlib/expr/operators.hpp"
#include "tensorlib/ops/factories.hpp"
#include "tensorlib/ops/index_ops.hpp"
#include "tensorlib/ops/pooling.hpp"

namespace tensorlib {
namespace nn::functional {

/// F.interpolate's arguments: either `size` or `scale_factor` (one value or
/// one per spatial dimension).
struct InterpolateOptions {
  std::optional<Shape> size = std::nullopt;
  std::vector<double> scale_factor = {};
  std::string_view mode = "nearest";
  std::optional<bool> align_corners = std::nullopt;
  std::optional<bool> recompute_scale_factor = std::nullopt;
};

}  // namespace nn::functional

namespace detail {

/// One resampling tap along a dimension: the source position of every
/// output position and its weight.
struct InterpolationTap {
  std::vector<int64_t> at;
  std::vector<double> weight;
};

/// PyTorch's area_pixel_compute_source_index: the source coordinate of
/// output position o (clamped at 0 unless cubic).
inline double source_coordinate(int64_t o, int64_t in, int64_t out, std::optional<double> scale, bool align_corners,
                                bool cubic) {
  if (align_corners) return out > 1 ? static_cast<double>(o) * (in - 1) / (out - 1) : 0.0;
  const double s = scale && *scale > 0 ? 1.0 / *scale : static_cast<double>(in) / out;
  const double src = s * (o + 0.5) - 0.5;
  return !cubic && src < 0 ? 0.0 : src;
}

/// floor(x) of a nearest source coordinate computed in the kernel's
/// precision (PyTorch's opmath: double for double tensors, else float).
template <class S>
int64_t nearest_source(int64_t o, int64_t in, int64_t out, std::optional<double> scale, bool exact) {
  const S s = scale && *scale > 0 ? static_cast<S>(1.0 / *scale) : static_cast<S>(in) / static_cast<S>(out);
  const S src = exact ? (static_cast<S>(o) + S(0.5)) * s : static_cast<S>(o) * s;
  return std::min(static_cast<int64_t>(std::floor(src)), in - 1);
}

/// The taps of one dimension for `mode`, as PyTorch's CPU kernels compute
/// them: nearest indices from the scale in the kernel's precision (double
/// for double tensors), linear and cubic from guard_index_and_lambda; a
/// linear dimension of unchanged size is copied.
inline std::vector<InterpolationTap> interpolation_taps(int64_t in, int64_t out, std::optional<double> scale,
                                                        std::string_view mode, bool align_corners,
                                                        bool double_precision) {
  std::vector<InterpolationTap> taps;
  const auto clamp_at = [in](int64_t i) { return std::min(std::max<int64_t>(i, 0), in - 1); };
  if (mode == "nearest" || mode == "nearest-exact") {
    const bool exact = mode == "nearest-exact";
    InterpolationTap t;
    for (int64_t o = 0; o < out; ++o) {
      t.at.push_back(double_precision ? nearest_source<double>(o, in, out, scale, exact)
                                      : nearest_source<float>(o, in, out, scale, exact));
      t.weight.push_back(1.0);
    }
    taps.push_back(std::move(t));
    return taps;
  }
  // guard_index_and_lambda: the tap at or below src, and the distance to it in [0, 1].
  const auto guard = [in](double src) {
    const int64_t i = std::min(static_cast<int64_t>(std::floor(src)), in - 1);
    return std::pair{i, std::min(std::max(src - static_cast<double>(i), 0.0), 1.0)};
  };
  if (mode == "bicubic") {
    constexpr double a = -0.75;
    const auto near = [](double x) { return ((a + 2) * x - (a + 3)) * x * x + 1; };
    const auto far = [](double x) { return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a; };
    taps.resize(4);
    for (int64_t o = 0; o < out; ++o) {
      const auto [i, t] = guard(source_coordinate(o, in, out, scale, align_corners, true));
      const double w[4] = {far(t + 1), near(t), near(1 - t), far(2 - t)};
      for (int k = 0; k < 4; ++k) {
        taps[static_cast<std::size_t>(k)].at.push_back(clamp_at(i - 1 + k));
        taps[static_cast<std::size_t>(k)].weight.push_back(w[k]);
      }
    }
    return taps;
  }
  taps.resize(2);
  for (int64_t o = 0; o < out; ++o) {
    const auto [i0, l1] = out == in ? std::pair<int64_t, double>{o, 0.0}
                                    : guard(source_coordinate(o, in, out, scale, align_corners, false));
    taps[0].at.push_back(i0);
    taps[0].weight.push_back(1 - l1);
    taps[1].at.push_back(i0 + (i0 < in - 1 ? 1 : 0));
    taps[1].weight.push_back(l1);
  }
  return taps;
}

/// x resampled along dimension d (Note [separable interpolation]).
template <Element T>
Tensor<T> resample_dim(const Tensor<T>& x, int64_t d, const std::vector<InterpolationTap>& taps) {
  Shape along = Shape::filled(x.dim(), 1);
  along[d] = static_cast<int64_t>(taps.front().at.size());
  Tensor<T> sum;
  for (const auto& tap : taps) {
    std::vector<int64_t> at = tap.at;
    std::vector<T> w;
    for (double v : tap.weight) w.push_back(static_cast<T>(v));
    const auto index = from_blob(std::span<int64_t>(at), {static_cast<int64_t>(at.size())}).clone().to(x.device());
    const Tensor<T> picked = x.index_select(d, index);
    if (taps.size() == 1) return picked;
    const Tensor<T> weight = from_blob(std::span<T>(w), along).clone().to(x.device());
    sum = sum.defined() ? Tensor<T>(sum + picked * weight) : Tensor<T>(picked * weight);
  }
  return sum;
}

}  // namespace detail

namespace nn::functional {

/// Resamples input (N, C, d...) with 1 to 3 spatial dimensions to `size`, or
/// to floor(d x scale_factor) (F.interpolate).
template <Element T>
Tensor<T> interpolate(const Tensor<T>& input, const InterpolateOptions& options) {
  static_assert(is_floating<T>, "interpolate: expected floating-point tensors");
  const std::string_view mode = options.mode;
  using tensorlib::detail::check;
  check<ValueError>(mode == "nearest" || mode == "nearest-exact" || mode == "linear" || mode == "bilinear" ||
                        mode == "trilinear" || mode == "bicubic" || mode == "area",
                    "interpolate: Input Error: mode ", mode,
                    " is not one of nearest, nearest-exact, linear, bilinear, "
                    "bicubic, trilinear, area");
  const int64_t s = input.dim() - 2;
  check<ShapeError>(s >= 1 && s <= 3, "interpolate: Input Error: Only 3D, 4D and 5D input Tensors supported (got ",
                    input.dim(),
                    "D) for the modes: nearest | linear | bilinear | bicubic | trilinear | area | "
                    "nearest-exact (got ",
                    mode, ")");
  const int64_t needed = mode == "linear"                          ? 1
                         : mode == "bilinear" || mode == "bicubic" ? 2
                         : mode == "trilinear"                     ? 3
                                                                   : s;
  check<ShapeError>(needed == s, "interpolate: Got ", input.dim(), "D input, but ", mode, " mode needs ", needed + 2,
                    "D input");
  const bool interpolating = mode == "linear" || mode == "bilinear" || mode == "trilinear" || mode == "bicubic";
  check<ValueError>(!options.align_corners || interpolating,
                    "interpolate: align_corners option can only be set with the interpolating modes: linear | "
                    "bilinear | bicubic | trilinear");
  check<ValueError>(options.size.has_value() != !options.scale_factor.empty(),
                    options.size ? "interpolate: only one of size or scale_factor should be defined"
                                 : "interpolate: either size or scale_factor should be defined");
  Shape out;
  std::vector<std::optional<double>> scales(static_cast<std::size_t>(s));
  if (options.size) {
    check<ValueError>(options.size->size() == 1 || options.size->size() == s,
                      "interpolate: Input and output must "
                      "have the same number of spatial dimensions, but got input with spatial dimensions of ",
                      Shape(std::span<const int64_t>(input.sizes().begin() + 2, input.sizes().end())),
                      " and output size of ", *options.size, ".");
    for (int64_t i = 0; i < s; ++i) out.push_back(options.size->size() == 1 ? (*options.size)[0] : (*options.size)[i]);
  } else {
    const auto& f = options.scale_factor;
    check<ValueError>(f.size() == 1 || static_cast<int64_t>(f.size()) == s,
                      "interpolate: Input and scale_factor "
                      "must have the same number of spatial dimensions, but got input with spatial dimensions of ",
                      s, " and scale_factor of ", f.size(), " values.");
    for (int64_t i = 0; i < s; ++i) {
      const double factor = f.size() == 1 ? f[0] : f[static_cast<std::size_t>(i)];
      out.push_back(static_cast<int64_t>(std::floor(static_cast<double>(input.size(2 + i)) * factor)));
      if (!options.recompute_scale_factor.value_or(false)) scales[static_cast<std::size_t>(i)] = factor;
    }
  }
  check<ValueError>(input.size(1) > 0, "interpolate: Non-empty ", input.dim(),
                    "D data tensor expected but got a tensor with sizes ", input.sizes());
  for (int64_t i = 0; i < s; ++i)
    check<ValueError>(out[i] > 0 && input.size(2 + i) > 0,
                      "interpolate: Input and output sizes should be greater "
                      "than 0, but got input ",
                      input.sizes(), " and output ", out);
  if (mode == "area") {
    if (s == 1) return adaptive_avg_pool1d(input, out);
    return s == 2 ? adaptive_avg_pool2d(input, out) : adaptive_avg_pool3d(input, out);
  }
  const bool align = options.align_corners.value_or(false);
  bool same = true;
  for (int64_t i = 0; i < s; ++i) same = same && out[i] == input.size(2 + i);
  if (mode == "bicubic" && same) return input.clone();  // PyTorch's bicubic copies then
  Tensor<T> r = input;
  for (int64_t i = s - 1; i >= 0; --i)
    r = tensorlib::detail::resample_dim(
        r, 2 + i,
        tensorlib::detail::interpolation_taps(input.size(2 + i), out[i], scales[static_cast<std::size_t>(i)],
                                              mode == "bilinear" || mode == "trilinear" ? "linear" : mode, align,
                                              std::is_same_v<T, double>));
  return r;
}

/// F.upsample: interpolate (deprecated in PyTorch, kept for old code).
template <Element T>
Tensor<T> upsample(const Tensor<T>& input, const InterpolateOptions& options) {
  return interpolate(input, options);
}

/// F.upsample_nearest(input, size or scale_factor).
template <Element T>
Tensor<T> upsample_nearest(const Tensor<T>& input, std::optional<Shape> size, std::vector<double> scale_factor = {}) {
  return interpolate(input, {.size = std::move(size), .scale_factor = std::move(scale_factor), .mode = "nearest"});
}

/// F.upsample_bilinear(input, size or scale_factor): bilinear with
/// align_corners=True, as PyTorch's.
template <Element T>
Tensor<T> upsample_bilinear(const Tensor<T>& input, std::optional<Shape> size, std::vector<double> scale_factor = {}) {
  return interpolate(
      input,
      {.size = std::move(size), .scale_factor = std::move(scale_factor), .mode = "bilinear", .align_corners = true});
}

}  // namespace nn::functional
}  // namespace tensorlib
