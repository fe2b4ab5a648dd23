#pragma once
/// \file
/// Spatial transformers (torch.nn.functional): `affine_grid` and
/// `grid_sample` over 4-D (bilinear, nearest) and 5-D inputs (trilinear
/// "bilinear", nearest), with the padding modes "zeros", "border",
/// "reflection" and align_corners, as PyTorch's grid_sampler; bicubic
/// (4-D only, as PyTorch's) with 4 x 4 taps.
///
/// Note [grid sampling by corners]. The grid's normalized coordinates are
/// mapped to pixel coordinates by fused expressions (unnormalize, reflect,
/// clip: the clip's gradient is 0 at and beyond the bounds, PyTorch's
/// clip_coordinates_set_grad), then each of the 2^s corners around a
/// coordinate is gathered from the flattened input (its index clamped
/// inside, its weight 0 where it lies outside for "zeros") and weighted by
/// the products of (1 - distance) per dimension. Bicubic takes the 4 x 4
/// taps around the unpadded coordinate, each integer tap padded on its own,
/// with the cubic convolution weights (A = -0.75) of the fractional part. Gathers, products and sums
/// are recorded ops, so the input and the grid both get PyTorch's gradients,
/// on any device.

#include <algorithm>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "tensorlib/core/error.hpp"
#include "tensorlib/core/tensor.hpp"
#include "tensorlib/expr/comparison_functions.hpp"
#include "tensorlib/expr/functions.hpp"
#include "tensorlib/expr/operators.hpp"
#include "tensorlib/ops/factories.hpp"
#include "tensorlib/ops/gather_scatter.hpp"
#include "tensorlib/ops/join.hpp"
#include "tensorlib/ops/linalg.hpp"

namespace tensorlib {
namespace detail {

/// PyTorch's linspace_from_neg_one: -1 .. 1 in n steps, pulled in to pixel
/// centres without align_corners.
template <Element T>
Tensor<T> grid_axis(int64_t n, bool align_corners, Device device) {
  if (n <= 1) return zeros<T>({std::max<int64_t>(n, 0)}, {.device = device});
  Tensor<T> r = linspace<T>(-1.0, 1.0, n, {.device = device});
  if (!align_corners) r = r * (static_cast<double>(n - 1) / static_cast<double>(n));
  return r;
}

/// PyTorch's reflect_coordinates: x reflected about the pixel edges
/// (-0.5, size - 0.5), or centres (0, size - 1) with align_corners, until it
/// lies between them; slope +-1.
template <Element T>
Tensor<T> reflect_coordinate(const Tensor<T>& x, int64_t size, bool align_corners) {
  const double low = align_corners ? 0.0 : -0.5, span = align_corners ? size - 1.0 : static_cast<double>(size);
  if (span <= 0) return zeros_like(x);
  const Tensor<T> d = abs(x - low);
  const Tensor<T> extra = fmod(d, span);
  const Tensor<T> flips = floor(d.detach() / span);
  return where(eq(fmod(flips, 2), 0), extra + low, span - extra + low);
}

/// A grid coordinate (normalized to [-1, 1]) as a pixel coordinate of a
/// dimension of `size`, padded as the mode asks (Note [grid sampling by
/// corners]).
template <Element T>
Tensor<T> source_pixel(const Tensor<T>& coord, int64_t size, std::string_view padding_mode, bool align_corners) {
  Tensor<T> x = align_corners ? Tensor<T>((coord + 1) / 2 * static_cast<double>(size - 1))
                              : Tensor<T>(((coord + 1) * static_cast<double>(size) - 1) * 0.5);
  if (padding_mode == "reflection") x = reflect_coordinate(x, size, align_corners);
  if (padding_mode != "zeros") x = hardtanh(x, 0.0, static_cast<double>(size - 1));
  return x;
}

/// A cubic tap's integer coordinate padded as get_value_bounded does:
/// reflected, then clipped.
template <Element T>
Tensor<T> padded_tap(const Tensor<T>& x, int64_t size, std::string_view padding_mode, bool align_corners) {
  const Tensor<T> r = padding_mode == "reflection" ? reflect_coordinate(x, size, align_corners) : x;
  return clamp(r, 0, static_cast<double>(size - 1));
}

}  // namespace detail

namespace nn::functional {

/// The sampling grid of the affine maps theta (N, 2, 3) or (N, 3, 4) for an
/// output of `size` (N, C, H, W) or (N, C, D, H, W): (N, H, W, 2) or
/// (N, D, H, W, 3) normalized coordinates (F.affine_grid).
template <Element T>
Tensor<T> affine_grid(const Tensor<T>& theta, const Shape& size, bool align_corners = false) {
  static_assert(is_floating<T>, "affine_grid: expected floating-point tensors");
  using tensorlib::detail::check;
  const int64_t s = size.size() - 2;
  check<ShapeError>(s == 2 || s == 3,
                    "affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, "
                    "respectively. Got size ",
                    size, ".");
  check<ShapeError>(theta.dim() == 3 && theta.size(0) == size[0] && theta.size(1) == s && theta.size(2) == s + 1,
                    "affine_grid: Expected a batch of ", s, "D affine matrices of shape Nx", s, "x", s + 1,
                    " for size ", size, ". Got ", theta.sizes(), ".");
  for (int64_t v : size) check<ValueError>(v > 0, "affine_grid: Expected non-zero, positive output size. Got ", size);
  const Device device = theta.device();
  // The base grid (spatial..., s + 1): x (the last dimension) first, then y, z, then 1.
  Shape spatial(std::span<const int64_t>(size.begin() + 2, size.end()));
  Shape with_coord = spatial;
  with_coord.push_back(1);
  std::vector<Tensor<T>> columns;
  for (int64_t c = 0; c < s; ++c) {
    const int64_t d = s - 1 - c;  // coordinate c runs along spatial dimension d
    Shape along = Shape::filled(s + 1, 1);
    along[d] = spatial[d];
    columns.push_back(tensorlib::detail::grid_axis<T>(spatial[d], align_corners, device)
                          .reshape(along)
                          .expand(with_coord)
                          .contiguous());
  }
  columns.push_back(ones<T>(with_coord, {.device = device}));
  const Tensor<T> base = cat(columns, -1).reshape({1, spatial.numel(), s + 1});
  Shape out = {size[0]};
  for (int64_t v : spatial) out.push_back(v);
  out.push_back(s);
  return matmul(base, theta.transpose(1, 2)).reshape(out);
}

/// Samples input (N, C, H, W) or (N, C, D, H, W) at grid (N, Ho, Wo, 2) or
/// (N, Do, Ho, Wo, 3) (F.grid_sample): mode "bilinear", "nearest" or
/// "bicubic" (4-D), padding_mode "zeros", "border" or "reflection".
template <Element T>
Tensor<T> grid_sample(const Tensor<T>& input, const Tensor<T>& grid, std::string_view mode = "bilinear",
                      std::string_view padding_mode = "zeros", bool align_corners = false) {
  static_assert(is_floating<T>, "grid_sample: expected floating-point tensors");
  using tensorlib::detail::check;
  check<ValueError>(mode == "bilinear" || mode == "nearest" || mode == "bicubic",
                    "grid_sample: nn.functional."
                    "grid_sample(): expected mode to be 'bilinear', 'nearest' or 'bicubic', but got: '",
                    mode, "'");
  check<ValueError>(padding_mode == "zeros" || padding_mode == "border" || padding_mode == "reflection",
                    "grid_sample: nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', or "
                    "'reflection', but got: '",
                    padding_mode, "'");
  const int64_t s = input.dim() - 2;
  check<ShapeError>(mode != "bicubic" || s == 2, "grid_sampler(): bicubic interpolation only supports 4D input");
  check<ShapeError>(
      (s == 2 || s == 3) && grid.dim() == input.dim() && grid.size(-1) == s && grid.size(0) == input.size(0),
      "grid_sample(): expected a 4D or 5D input and a grid of the same dimension with its last "
      "dimension the input's spatial count and the same batch size, but got input of size ",
      input.sizes(), " and grid of size ", grid.sizes());
  const int64_t n = input.size(0), c = input.size(1);
  Shape in(std::span<const int64_t>(input.sizes().begin() + 2, input.sizes().end()));
  Shape out(std::span<const int64_t>(grid.sizes().begin() + 1, grid.sizes().end() - 1));
  const int64_t points = out.numel();
  // Pixel coordinates per spatial dimension d (grid component s - 1 - d), (N, points).
  std::vector<Tensor<T>> pix(static_cast<std::size_t>(s));
  for (int64_t d = 0; d < s; ++d)
    pix[static_cast<std::size_t>(d)] =
        tensorlib::detail::source_pixel(Tensor<T>(grid.select(-1, s - 1 - d).reshape({n, points})), in[d],
                                        mode == "bicubic" ? "zeros" : padding_mode, align_corners);
  const Tensor<T> flat = input.reshape({n, c, in.numel()});
  Shape result = {n, c};
  for (int64_t v : out) result.push_back(v);
  const auto gather_at = [&](const std::vector<Tensor<T>>& at) {
    // The corner's value (N, C, points), 0 where a coordinate lies outside.
    Tensor<int64_t> index = zeros<int64_t>({n, points}, {.device = input.device()});
    Tensor<T> inside = ones<T>({n, points}, {.device = input.device()});
    for (int64_t d = 0; d < s; ++d) {
      const Tensor<T>& p = at[static_cast<std::size_t>(d)];
      inside = inside * cast<T>(logical_and(ge(p, 0), le(p, static_cast<double>(in[d] - 1))));
      // A NaN coordinate reads position 0 (its weight is NaN anyway): no NaN reaches the cast.
      const Tensor<T> safe = where(isnan(p), 0, clamp(p, 0, static_cast<double>(in[d] - 1)));
      index = index * in[d] + Tensor<int64_t>(cast<int64_t>(safe));
    }
    return Tensor<T>(flat.gather(2, index.unsqueeze(1).expand({n, c, points}).contiguous()) * inside.unsqueeze(1));
  };
  if (mode == "nearest") {
    std::vector<Tensor<T>> at;
    for (const auto& p : pix) at.push_back(Tensor<T>(round(p.detach())));
    return gather_at(at).reshape(result);
  }
  // Per dimension, the taps' coordinates and weights: 2 linear taps around
  // the (padded) coordinate, or 4 cubic taps around the raw one, each tap's
  // integer coordinate padded on its own (PyTorch's get_value_bounded).
  std::vector<std::vector<Tensor<T>>> tap_at(static_cast<std::size_t>(s)), tap_weight(static_cast<std::size_t>(s));
  for (int64_t d = 0; d < s; ++d) {
    const auto& p = pix[static_cast<std::size_t>(d)];
    const Tensor<T> lo = floor(p.detach());
    auto& at = tap_at[static_cast<std::size_t>(d)];
    auto& weight = tap_weight[static_cast<std::size_t>(d)];
    if (mode == "bilinear") {
      at = {lo, Tensor<T>(lo + 1)};
      weight = {Tensor<T>(lo + 1 - p), Tensor<T>(p - lo)};
      continue;
    }
    static constexpr double a = -0.75;
    const auto near = [](const Tensor<T>& x) { return Tensor<T>(((x * (a + 2) - (a + 3)) * x) * x + 1); };
    const auto far = [](const Tensor<T>& x) { return Tensor<T>((((x * a - 5 * a) * x) + 8 * a) * x - 4 * a); };
    const Tensor<T> t = p - lo;
    const Tensor<T> u = 1 - t;
    weight = {far(Tensor<T>(t + 1)), near(t), near(u), far(Tensor<T>(u + 1))};
    for (int64_t k = -1; k <= 2; ++k)
      at.push_back(padding_mode == "zeros" ? Tensor<T>(lo + static_cast<double>(k))
                                           : tensorlib::detail::padded_tap(Tensor<T>(lo + static_cast<double>(k)),
                                                                           in[d], padding_mode, align_corners));
  }
  const int64_t per_dim = mode == "bilinear" ? 2 : 4;
  int64_t combos = 1;
  for (int64_t d = 0; d < s; ++d) combos *= per_dim;
  Tensor<T> sum;
  for (int64_t corner = 0; corner < combos; ++corner) {
    std::vector<Tensor<T>> at;
    Tensor<T> weight;
    int64_t rest = corner;
    std::vector<int64_t> pick(static_cast<std::size_t>(s));
    for (int64_t d = s - 1; d >= 0; --d) {
      pick[static_cast<std::size_t>(d)] = rest % per_dim;
      rest /= per_dim;
    }
    for (int64_t d = 0; d < s; ++d) {
      const auto k = static_cast<std::size_t>(pick[static_cast<std::size_t>(d)]);
      at.push_back(tap_at[static_cast<std::size_t>(d)][k]);
      const Tensor<T>& w = tap_weight[static_cast<std::size_t>(d)][k];
      weight = weight.defined() ? Tensor<T>(weight * w) : w;
    }
    const Tensor<T> term = gather_at(at) * weight.unsqueeze(1);
    sum = sum.defined() ? Tensor<T>(sum + term) : term;
  }
  return sum.reshape(result);
}

}  // namespace nn::functional
}  // namespace tensorlib
