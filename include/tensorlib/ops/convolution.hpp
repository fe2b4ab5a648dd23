#pragma once
/// \file
/// Convolutions: `convolution` (torch.convolution), `conv1d/2d/3d` (numeric
/// or "same"/"valid" padding), `conv_transpose1d/2d/3d`, and `im2col` /
/// `col2im` (torch.nn.functional.unfold / fold), with PyTorch's arguments,
/// defaults, shape rules and messages. Floating-point tensors on any device.
///
/// Note [convolution by windows]. A convolution is im2col and a matrix
/// product, as PyTorch's CPU path: the padded input's windows are a view
/// (`unfold` per spatial dimension, a strided slice for dilation), laid out
/// as (batch, group, channel x kernel, output position) by one copy (output
/// positions innermost, so it reads rows of the input: 3x faster than
/// positions outermost on a 3 x 3 kernel), and multiplied by the weight
/// (group, output channel, channel x kernel) in one batched `matmul`, whose
/// result is already (batch, output channel, positions). A transposed
/// convolution is the adjoint: W^T x gives every (kernel offset, input
/// position) pair's contribution, and `index_add` sums them into the output positions they
/// reach (col2im), then the padding is cropped. Every step is a recorded op
/// (constant pad, views, reshape, matmul, index_add), so convolutions
/// differentiate (twice too) and run on a GPU with the same code: the copies,
/// cuBLAS and the atomic scatter. No cuDNN: the product and the copies are
/// what this costs, measured in bench/conv_bench.cpp.

#include <concepts>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "tensorlib/core/error.hpp"
#include "tensorlib/core/shape.hpp"
#include "tensorlib/core/tensor.hpp"
#include "tensorlib/expr/operators.hpp"
#include "tensorlib/ops/factories.hpp"
#include "tensorlib/ops/index_ops.hpp"
#include "tensorlib/ops/linalg.hpp"
#include "tensorlib/ops/pad.hpp"
#include "tensorlib/ops/views.hpp"

namespace tensorlib {
namespace detail {

/// A stride/padding/dilation argument: one value for every spatial
/// dimension, or one per dimension (PyTorch's expand_param_if_needed).
inline Shape conv_param(const Shape& p, const char* name, int64_t spatial, const char* op) {
  if (p.size() == 1) return Shape::filled(spatial, p[0]);
  check<ValueError>(p.size() == spatial, op, ": expected ", name, " to be a single integer value or a list of ",
                    spatial, " values to match the convolution dimensions, but got ", name, "=", p);
  return p;
}

/// "(2 x 3)", as PyTorch's convolution messages print sizes.
inline std::string by_x(const Shape& v) {
  std::string s = "(";
  for (int64_t i = 0; i < v.size(); ++i) s += (i ? " x " : "") + std::to_string(v[i]);
  return s + ")";
}

/// The flat position, in a padded grid `grid`, that kernel offset k of
/// window (block) b reaches, for every (k, b) in that order (k major, each a
/// row-major multi-index): the scatter map of col2im, in the order of
/// F.unfold's columns (channel, kernel offset; block).
inline std::vector<int64_t> window_positions(const Shape& blocks, const Shape& kernel, const Shape& stride,
                                             const Shape& dilation, const Shape& grid) {
  const int64_t s = blocks.size();
  std::vector<int64_t> pos;
  pos.reserve(static_cast<std::size_t>(blocks.numel() * kernel.numel()));
  Shape k = Shape::filled(s, 0);
  for (int64_t ki = 0; ki < kernel.numel(); ++ki) {
    Shape b = Shape::filled(s, 0);
    for (int64_t bi = 0; bi < blocks.numel(); ++bi) {
      int64_t flat = 0;
      for (int64_t i = 0; i < s; ++i) flat = flat * grid[i] + b[i] * stride[i] + k[i] * dilation[i];
      pos.push_back(flat);
      for (int64_t i = s - 1; i >= 0 && ++b[i] == blocks[i]; --i) b[i] = 0;
    }
    for (int64_t i = s - 1; i >= 0 && ++k[i] == kernel[i]; --i) k[i] = 0;
  }
  return pos;
}

/// x (N, C, spatial...) padded with `value` (zeros by default) by (left,
/// right) per spatial dimension; negative amounts crop. Unchanged when every
/// amount is 0.
template <Element T>
Tensor<T> pad_spatial(const Tensor<T>& x, const Shape& left, const Shape& right, T value = T(0)) {
  const int64_t s = left.size();
  Shape pads = Shape::filled(2 * s, 0);
  bool any = false;
  for (int64_t i = 0; i < s; ++i) {
    pads[2 * (s - 1 - i)] = left[i];
    pads[2 * (s - 1 - i) + 1] = right[i];
    any = any || left[i] != 0 || right[i] != 0;
  }
  return any ? constant_pad_nd(x, pads, value) : x;
}

/// The windows of xp (N, C, P...) as a view (N, C, O..., K...).
template <Element T>
Tensor<T> conv_windows(const Tensor<T>& xp, const Shape& kernel, const Shape& stride, const Shape& dilation) {
  Tensor<T> w = xp;
  for (int64_t i = 0; i < kernel.size(); ++i) {
    const int64_t span = dilation[i] * (kernel[i] - 1) + 1;
    w = w.unfold(2 + i, span, stride[i]);
    if (dilation[i] > 1) w = w.slice(-1, 0, span, dilation[i]);
  }
  return w;
}

/// col2im: cols (M, kernel x blocks), the contributions of every (kernel
/// offset, block) pair, summed into (M, grid...) at the positions they reach.
template <Element T>
Tensor<T> scatter_windows(const Tensor<T>& cols, const Shape& blocks, const Shape& kernel, const Shape& stride,
                          const Shape& dilation, const Shape& grid) {
  std::vector<int64_t> at = window_positions(blocks, kernel, stride, dilation, grid);
  const auto index =
      from_blob(std::span<int64_t>(at), {static_cast<int64_t>(at.size())}).clone().to(Device(cols.device()));
  Shape out = {cols.size(0)};
  for (int64_t g : grid) out.push_back(g);
  return zeros<T>({cols.size(0), grid.numel()}, {.device = cols.device()}).index_add(1, index, cols).reshape(out);
}

/// The spatial sizes of x (N, C, spatial...).
template <Element T>
Shape spatial_sizes(const Tensor<T>& x) {
  Shape s;
  for (int64_t d = 2; d < x.dim(); ++d) s.push_back(x.size(d));
  return s;
}

/// Output sizes of a convolution (not transposed) after checking that every
/// dilated kernel fits its padded input.
inline Shape conv_output_sizes(const Shape& in, const Shape& kernel, const Shape& stride, const Shape& pad_l,
                               const Shape& pad_r, const Shape& dilation) {
  Shape padded, dilated, out;
  for (int64_t i = 0; i < in.size(); ++i) {
    padded.push_back(in[i] + pad_l[i] + pad_r[i]);
    dilated.push_back(dilation[i] * (kernel[i] - 1) + 1);
  }
  for (int64_t i = 0; i < in.size(); ++i)
    check<ValueError>(padded[i] >= dilated[i], "Calculated padded input size per channel: ", by_x(padded),
                      ". Kernel size: ", by_x(dilated), ". Kernel size can't be greater than actual input size");
  for (int64_t i = 0; i < in.size(); ++i) out.push_back((padded[i] - dilated[i]) / stride[i] + 1);
  return out;
}

/// A convolution of a batched input (N, C, spatial...), arguments checked.
template <Element T>
Tensor<T> conv_forward(const Tensor<T>& x, const Tensor<T>& weight, const Shape& stride, const Shape& pad_l,
                       const Shape& pad_r, const Shape& dilation, int64_t groups) {
  const int64_t s = x.dim() - 2, n = x.size(0), c = x.size(1), o = weight.size(0);
  Shape kernel;
  for (int64_t d = 2; d < weight.dim(); ++d) kernel.push_back(weight.size(d));
  const Shape out_sizes = conv_output_sizes(spatial_sizes(x), kernel, stride, pad_l, pad_r, dilation);
  Shape split = {n, groups, c / groups}, perm = {0, 1, 2};
  for (int64_t i = 0; i < s; ++i) split.push_back(out_sizes[i]);
  for (int64_t i = 0; i < s; ++i) split.push_back(kernel[i]);
  for (int64_t i = 0; i < s; ++i) perm.push_back(3 + s + i);
  for (int64_t i = 0; i < s; ++i) perm.push_back(3 + i);
  const int64_t ck = c / groups * kernel.numel();
  // (N, G, channel x kernel, L): output positions innermost, so the copy
  // reads rows of the input and the product writes (N, C_out, L) in place.
  const Tensor<T> cols = conv_windows(pad_spatial(x, pad_l, pad_r), kernel, stride, dilation)
                             .reshape(split)
                             .permute(perm)
                             .reshape({n, groups, ck, out_sizes.numel()});
  Shape result = {n, o};
  for (int64_t i = 0; i < s; ++i) result.push_back(out_sizes[i]);
  return matmul(weight.reshape({groups, o / groups, ck}), cols).reshape(result);
}

/// A transposed convolution of a batched input (N, C_in, spatial...).
template <Element T>
Tensor<T> conv_transpose_forward(const Tensor<T>& x, const Tensor<T>& weight, const Shape& stride, const Shape& padding,
                                 const Shape& output_padding, const Shape& dilation, int64_t groups) {
  const int64_t s = x.dim() - 2, n = x.size(0), cin = x.size(1), og = weight.size(1);
  const int64_t cg = cin / groups, cout = og * groups;
  Shape kernel;
  for (int64_t d = 2; d < weight.dim(); ++d) kernel.push_back(weight.size(d));
  const Shape in = spatial_sizes(x);
  Shape grid, out_sizes;
  for (int64_t i = 0; i < s; ++i) {
    grid.push_back((in[i] - 1) * stride[i] + dilation[i] * (kernel[i] - 1) + 1 + output_padding[i]);
    out_sizes.push_back(grid[i] - 2 * padding[i]);
  }
  for (int64_t i = 0; i < s; ++i)
    check<ValueError>(out_sizes[i] > 0, "Given input size per channel: ", by_x(in),
                      ". Calculated output size per channel: ", by_x(out_sizes), ". Output size is too small");
  // (N, G, C_out/G x kernel, L_in) = W^T x per group: a view of
  // (N C_out, kernel x L_in), the order of the scatter map.
  const Tensor<T> wm = weight.reshape({groups, cg, og * kernel.numel()}).transpose(1, 2);
  const Tensor<T> cols =
      matmul(wm, x.reshape({n, groups, cg, in.numel()})).reshape({n * cout, kernel.numel() * in.numel()});
  Shape result = {n, cout};
  for (int64_t i = 0; i < s; ++i) result.push_back(grid[i]);
  const Tensor<T> full_out = scatter_windows(cols, in, kernel, stride, dilation, grid).reshape(result);
  Shape crop = Shape::filled(s, 0);
  for (int64_t i = 0; i < s; ++i) crop[i] = -padding[i];
  return pad_spatial(full_out, crop, crop);
}

/// The checks of PyTorch's check_shape_forward, and the batch dimension of
/// an unbatched input added (`unbatched` set).
template <Element T>
Tensor<T> conv_checked_input(const Tensor<T>& input, const Tensor<T>& weight, const std::optional<Tensor<T>>& bias,
                             int64_t spatial, const Shape& stride, const Shape& padding, const Shape& dilation,
                             bool transposed, int64_t groups, const char* op, bool& unbatched) {
  static_assert(is_floating<T>, "convolution: expected floating-point tensors");
  check<ShapeError>(input.dim() == spatial + 1 || input.dim() == spatial + 2, "Expected ", spatial + 1,
                    "D (unbatched) or ", spatial + 2, "D (batched) input to ", op,
                    ", but got input of size: ", input.sizes());
  check<ShapeError>(weight.dim() == spatial + 2, op, ": expected weight to be ", spatial + 2,
                    "-dimensional, but got weight of size ", weight.sizes());
  for (int64_t i = 0; i < spatial; ++i) {
    check<ValueError>(weight.size(2 + i) > 0, op, ": kernel size should be greater than zero, but got weight of size ",
                      weight.sizes());
    check<ValueError>(stride[i] > 0, op, ": non-positive stride is not supported");
    check<ValueError>(padding[i] >= 0, op, ": negative padding is not supported");
    check<ValueError>(dilation[i] > 0, op, ": dilation should be greater than zero");
  }
  check<ValueError>(groups > 0, op, ": non-positive groups is not supported");
  unbatched = input.dim() == spatial + 1;
  const Tensor<T> x = unbatched ? input.unsqueeze(0) : input;
  check<ShapeError>(weight.size(0) % groups == 0, "Given groups=", groups, ", expected weight to be divisible by ",
                    groups, " at dimension 0, but got weight of size ", weight.sizes(), " instead");
  const int64_t expected = transposed ? weight.size(0) : weight.size(1) * groups;
  check<ShapeError>(x.size(1) == expected, "Given ", transposed ? "transposed=1" : ("groups=" + std::to_string(groups)),
                    ", weight of size ", weight.sizes(), ", expected input", x.sizes(), " to have ", expected,
                    " channels, but got ", x.size(1), " channels instead");
  const int64_t out_channels = transposed ? weight.size(1) * groups : weight.size(0);
  if (bias)
    check<ShapeError>(bias->dim() == 1 && bias->size(0) == out_channels, "Given weight of size ", weight.sizes(),
                      ", expected bias to be 1-dimensional with ", out_channels, " elements, but got bias of size ",
                      bias->sizes(), " instead");
  return x;
}

/// out (N, C, spatial...) + bias along C, and the batch dimension dropped
/// again for an unbatched input.
template <Element T>
Tensor<T> conv_finish(const Tensor<T>& out, const std::optional<Tensor<T>>& bias, bool unbatched) {
  Tensor<T> r = out;
  if (bias) {
    Shape along = Shape::filled(out.dim(), 1);
    along[1] = bias->size(0);
    r = out + bias->reshape(along);
  }
  return unbatched ? r.squeeze(0) : r;
}

}  // namespace detail

/// `torch.convolution(input, weight, bias, stride, padding, dilation,
/// transposed, output_padding, groups)`: input (N, C_in, spatial...) or
/// without N; weight (C_out, C_in / groups, kernel...), or (C_in, C_out /
/// groups, kernel...) when transposed.
template <Element T>
Tensor<T> convolution(const Tensor<T>& input, const Tensor<T>& weight,
                      const std::optional<Tensor<std::type_identity_t<T>>>& bias, const Shape& stride,
                      const Shape& padding, const Shape& dilation, bool transposed, const Shape& output_padding,
                      int64_t groups) {
  const int64_t s = weight.dim() - 2;
  detail::check<ShapeError>(s >= 1 && s <= 3, "convolution: weight should have 3, 4 or 5 dimensions, got ",
                            weight.sizes());
  const char* op = transposed ? (s == 1   ? "conv_transpose1d"
                                 : s == 2 ? "conv_transpose2d"
                                          : "conv_transpose3d")
                              : (s == 1   ? "conv1d"
                                 : s == 2 ? "conv2d"
                                          : "conv3d");
  const Shape st = detail::conv_param(stride, "stride", s, op), pd = detail::conv_param(padding, "padding", s, op),
              dl = detail::conv_param(dilation, "dilation", s, op);
  bool unbatched = false;
  const Tensor<T> x = detail::conv_checked_input(input, weight, bias, s, st, pd, dl, transposed, groups, op, unbatched);
  if (!transposed) return detail::conv_finish(detail::conv_forward(x, weight, st, pd, pd, dl, groups), bias, unbatched);
  const Shape out_pad = detail::conv_param(output_padding, "output_padding", s, op);
  for (int64_t i = 0; i < s; ++i)
    detail::check<ValueError>(out_pad[i] >= 0 && (out_pad[i] < st[i] || out_pad[i] < dl[i]), op,
                              ": output padding must be smaller than either stride or dilation, but got "
                              "output_padding=",
                              out_pad, ", stride=", st, ", dilation=", dl);
  return detail::conv_finish(detail::conv_transpose_forward(x, weight, st, pd, out_pad, dl, groups), bias, unbatched);
}

namespace detail {

/// conv{1,2,3}d with "valid" or "same" padding: "same" pads dilation x
/// (kernel - 1) in all, the odd element on the right, as PyTorch's.
template <Element T>
Tensor<T> conv_string_padding(const Tensor<T>& input, const Tensor<T>& weight, const std::optional<Tensor<T>>& bias,
                              const Shape& stride, std::string_view padding, const Shape& dilation, int64_t groups,
                              int64_t s, const char* op) {
  check<ValueError>(padding == "same" || padding == "valid", op, ": Invalid padding string: '", padding, "'");
  if (padding == "valid") return convolution(input, weight, bias, stride, {0}, dilation, false, {0}, groups);
  const Shape st = conv_param(stride, "stride", s, op), dl = conv_param(dilation, "dilation", s, op);
  for (int64_t i = 0; i < s; ++i)
    check<ValueError>(st[i] == 1, op, ": padding='same' is not supported for strided convolutions");
  check<ShapeError>(weight.dim() == s + 2, op, ": expected weight to be ", s + 2,
                    "-dimensional, but got weight of size ", weight.sizes());
  Shape left, right;
  for (int64_t i = 0; i < s; ++i) {
    const int64_t total = dl[i] * (weight.size(2 + i) - 1);
    left.push_back(total / 2);
    right.push_back(total - total / 2);
  }
  bool unbatched = false;
  const Tensor<T> x = conv_checked_input(input, weight, bias, s, st, left, dl, false, groups, op, unbatched);
  return conv_finish(conv_forward(x, weight, st, left, right, dl, groups), bias, unbatched);
}

}  // namespace detail

/// `torch.conv1d(input, weight, bias, stride, padding, dilation, groups)`.
template <Element T>
Tensor<T> conv1d(const Tensor<T>& input, const Tensor<T>& weight,
                 const std::optional<Tensor<std::type_identity_t<T>>>& bias = std::nullopt, const Shape& stride = {1},
                 const Shape& padding = {0}, const Shape& dilation = {1}, int64_t groups = 1) {
  detail::check<ShapeError>(weight.dim() == 3, "conv1d: expected weight to be 3-dimensional, but got weight of size ",
                            weight.sizes());
  return convolution(input, weight, bias, stride, padding, dilation, false, {0}, groups);
}
/// `conv1d` with padding "valid" (none) or "same" (output as long as the
/// input). A template on the string's type, so that a braced `{0}` picks the
/// numeric overload.
template <Element T, class Str>
requires std::convertible_to<const Str&, std::string_view> Tensor<T> conv1d(
    const Tensor<T>& input, const Tensor<T>& weight, const std::optional<Tensor<std::type_identity_t<T>>>& bias,
    const Shape& stride, const Str& padding, const Shape& dilation = {1}, int64_t groups = 1) {
  return detail::conv_string_padding(input, weight, bias, stride, padding, dilation, groups, 1, "conv1d");
}

/// `torch.conv2d(input, weight, bias, stride, padding, dilation, groups)`.
template <Element T>
Tensor<T> conv2d(const Tensor<T>& input, const Tensor<T>& weight,
                 const std::optional<Tensor<std::type_identity_t<T>>>& bias = std::nullopt, const Shape& stride = {1},
                 const Shape& padding = {0}, const Shape& dilation = {1}, int64_t groups = 1) {
  detail::check<ShapeError>(weight.dim() == 4, "conv2d: expected weight to be 4-dimensional, but got weight of size ",
                            weight.sizes());
  return convolution(input, weight, bias, stride, padding, dilation, false, {0}, groups);
}
/// `conv2d` with padding "valid" or "same".
template <Element T, class Str>
requires std::convertible_to<const Str&, std::string_view> Tensor<T> conv2d(
    const Tensor<T>& input, const Tensor<T>& weight, const std::optional<Tensor<std::type_identity_t<T>>>& bias,
    const Shape& stride, const Str& padding, const Shape& dilation = {1}, int64_t groups = 1) {
  return detail::conv_string_padding(input, weight, bias, stride, padding, dilation, groups, 2, "conv2d");
}

/// `torch.conv3d(input, weight, bias, stride, padding, dilation, groups)`.
template <Element T>
Tensor<T> conv3d(const Tensor<T>& input, const Tensor<T>& weight,
                 const std::optional<Tensor<std::type_identity_t<T>>>& bias = std::nullopt, const Shape& stride = {1},
                 const Shape& padding = {0}, const Shape& dilation = {1}, int64_t groups = 1) {
  detail::check<ShapeError>(weight.dim() == 5, "conv3d: expected weight to be 5-dimensional, but got weight of size ",
                            weight.sizes());
  return convolution(input, weight, bias, stride, padding, dilation, false, {0}, groups);
}
/// `conv3d` with padding "valid" or "same".
template <Element T, class Str>
requires std::convertible_to<const Str&, std::string_view> Tensor<T> conv3d(
    const Tensor<T>& input, const Tensor<T>& weight, const std::optional<Tensor<std::type_identity_t<T>>>& bias,
    const Shape& stride, const Str& padding, const Shape& dilation = {1}, int64_t groups = 1) {
  return detail::conv_string_padding(input, weight, bias, stride, padding, dilation, groups, 3, "conv3d");
}

/// `torch.conv_transpose1d(input, weight, bias, stride, padding,
/// output_padding, groups, dilation)` (PyTorch's argument order).
template <Element T>
Tensor<T> conv_transpose1d(const Tensor<T>& input, const Tensor<T>& weight,
                           const std::optional<Tensor<std::type_identity_t<T>>>& bias = std::nullopt,
                           const Shape& stride = {1}, const Shape& padding = {0}, const Shape& output_padding = {0},
                           int64_t groups = 1, const Shape& dilation = {1}) {
  detail::check<ShapeError>(weight.dim() == 3,
                            "conv_transpose1d: expected weight to be 3-dimensional, but got weight of size ",
                            weight.sizes());
  return convolution(input, weight, bias, stride, padding, dilation, true, output_padding, groups);
}

/// `torch.conv_transpose2d(input, weight, bias, stride, padding,
/// output_padding, groups, dilation)`.
template <Element T>
Tensor<T> conv_transpose2d(const Tensor<T>& input, const Tensor<T>& weight,
                           const std::optional<Tensor<std::type_identity_t<T>>>& bias = std::nullopt,
                           const Shape& stride = {1}, const Shape& padding = {0}, const Shape& output_padding = {0},
                           int64_t groups = 1, const Shape& dilation = {1}) {
  detail::check<ShapeError>(weight.dim() == 4,
                            "conv_transpose2d: expected weight to be 4-dimensional, but got weight of size ",
                            weight.sizes());
  return convolution(input, weight, bias, stride, padding, dilation, true, output_padding, groups);
}

/// `torch.conv_transpose3d(input, weight, bias, stride, padding,
/// output_padding, groups, dilation)`.
template <Element T>
Tensor<T> conv_transpose3d(const Tensor<T>& input, const Tensor<T>& weight,
                           const std::optional<Tensor<std::type_identity_t<T>>>& bias = std::nullopt,
                           const Shape& stride = {1}, const Shape& padding = {0}, const Shape& output_padding = {0},
                           int64_t groups = 1, const Shape& dilation = {1}) {
  detail::check<ShapeError>(weight.dim() == 5,
                            "conv_transpose3d: expected weight to be 5-dimensional, but got weight of size ",
                            weight.sizes());
  return convolution(input, weight, bias, stride, padding, dilation, true, output_padding, groups);
}

/// `torch.nn.functional.unfold(input, kernel_size, dilation, padding,
/// stride)` (aten's im2col): input (N, C, H, W) or (C, H, W); the result
/// (N, C x kh x kw, L) holds each sliding block as a column, channel major.
template <Element T>
Tensor<T> im2col(const Tensor<T>& input, const Shape& kernel_size, const Shape& dilation = {1},
                 const Shape& padding = {0}, const Shape& stride = {1}) {
  detail::check<ShapeError>(input.dim() == 3 || input.dim() == 4,
                            "unfold: Input Error: Only 3D or 4D input Tensors are supported (got ", input.dim(), "D)");
  const Shape k = detail::conv_param(kernel_size, "kernel_size", 2, "unfold"),
              dl = detail::conv_param(dilation, "dilation", 2, "unfold"),
              pd = detail::conv_param(padding, "padding", 2, "unfold"),
              st = detail::conv_param(stride, "stride", 2, "unfold");
  for (int64_t i = 0; i < 2; ++i)
    detail::check<ValueError>(k[i] > 0 && dl[i] > 0 && pd[i] >= 0 && st[i] > 0,
                              "unfold: expected positive kernel_size, dilation and stride and non-negative padding, "
                              "but got kernel_size=",
                              k, ", dilation=", dl, ", padding=", pd, ", stride=", st);
  const Tensor<T> x = input.dim() == 3 ? input.unsqueeze(0) : input;
  detail::check<ShapeError>(x.size(1) > 0 && x.size(2) > 0 && x.size(3) > 0,
                            "unfold: Expected non-empty 3D or 4D input tensor, but got input of size ", input.sizes());
  const Shape out = detail::conv_output_sizes(detail::spatial_sizes(x), k, st, pd, pd, dl);
  const int64_t n = x.size(0), c = x.size(1);
  const Tensor<T> cols = detail::conv_windows(detail::pad_spatial(x, pd, pd), k, st, dl)
                             .permute({0, 1, 4, 5, 2, 3})
                             .reshape({n, c * k.numel(), out.numel()});
  return input.dim() == 3 ? cols.squeeze(0) : cols;
}

/// `torch.nn.functional.fold(input, output_size, kernel_size, dilation,
/// padding, stride)` (aten's col2im): the adjoint of `im2col`, summing the
/// columns of input (N, C x kh x kw, L) or (C x kh x kw, L) into
/// (N, C, output_size...) where their blocks overlap.
template <Element T>
Tensor<T> col2im(const Tensor<T>& input, const Shape& output_size, const Shape& kernel_size,
                 const Shape& dilation = {1}, const Shape& padding = {0}, const Shape& stride = {1}) {
  detail::check<ShapeError>(input.dim() == 2 || input.dim() == 3,
                            "fold: Input Error: Only unbatched (2D) or batched (3D) input Tensors are supported (got ",
                            input.dim(), "D)");
  const Shape osz = detail::conv_param(output_size, "output_size", 2, "fold"),
              k = detail::conv_param(kernel_size, "kernel_size", 2, "fold"),
              dl = detail::conv_param(dilation, "dilation", 2, "fold"),
              pd = detail::conv_param(padding, "padding", 2, "fold"),
              st = detail::conv_param(stride, "stride", 2, "fold");
  for (int64_t i = 0; i < 2; ++i)
    detail::check<ValueError>(osz[i] > 0 && k[i] > 0 && dl[i] > 0 && pd[i] >= 0 && st[i] > 0,
                              "fold: expected positive output_size, kernel_size, dilation and stride and non-negative "
                              "padding, but got output_size=",
                              osz, ", kernel_size=", k, ", dilation=", dl, ", padding=", pd, ", stride=", st);
  const Tensor<T> x = input.dim() == 2 ? input.unsqueeze(0) : input;
  const int64_t n = x.size(0), kp = k.numel();
  detail::check<ShapeError>(x.size(1) % kp == 0,
                            "fold: Expected size of input's dimension 1 to be divisible by the product of "
                            "kernel_size, but got input.size(1)=",
                            x.size(1), " and kernel_size=", k);
  const Shape blocks = detail::conv_output_sizes(osz, k, st, pd, pd, dl);
  detail::check<ShapeError>(x.size(2) == blocks.numel(), "fold: Given output_size=", osz, ", kernel_size=", k,
                            ", dilation=", dl, ", padding=", pd, ", stride=", st,
                            ", expected size of input's dimension 2 to match the calculated number of sliding "
                            "blocks ",
                            blocks[0], " * ", blocks[1], " = ", blocks.numel(), ", but got input.size(2)=", x.size(2),
                            ".");
  const int64_t c = x.size(1) / kp;
  const Tensor<T> cols = x.reshape({n * c, kp * blocks.numel()});
  const Shape grid = {osz[0] + 2 * pd[0], osz[1] + 2 * pd[1]};
  const Tensor<T> summed = detail::scatter_windows(cols, blocks, k, st, dl, grid).reshape({n, c, grid[0], grid[1]});
  const Tensor<T> out = detail::pad_spatial(summed, Shape{-pd[0], -pd[1]}, Shape{-pd[0], -pd[1]});
  return input.dim() == 2 ? out.squeeze(0) : out;
}

}  // namespace tensorlib
