#pragma once
/// \file
/// Pooling with PyTorch's arguments, output sizes (ceil_mode included) and
/// messages: `max_pool1d/2d/3d` (and `_with_indices`), `avg_pool1d/2d/3d`
/// (count_include_pad, divisor_override), `adaptive_avg_pool1d/2d/3d`,
/// `adaptive_max_pool1d/2d/3d` (and `_with_indices`), `lp_pool1d/2d` and
/// `max_unpool1d/2d/3d`. Inputs (N, C, spatial...) or (C, spatial...).
///
/// Note [pooling by windows]. As convolutions (ops/convolution.hpp), pools
/// are views and recorded ops, so they differentiate and run on any device:
/// the padded input's windows (`unfold`; -inf padding for max, zeros for
/// average), then `max` over each window's elements (its backward sends the
/// gradient to the element it selected) or a sum divided by PyTorch's
/// per-window count. A max pool's indices (flat positions in the input's
/// spatial plane) are read from a table of the position each window element
/// has, built on the host. Adaptive windows differ in length: an adaptive
/// average is one averaging matrix per dimension (a box average is
/// separable); an adaptive max gathers each window padded to the longest by
/// repeating its last element, which changes neither its maximum nor the
/// first position of it.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "tensorlib/core/error.hpp"
#include "tensorlib/core/shape.hpp"
#include "tensorlib/core/tensor.hpp"
#include "tensorlib/expr/functions.hpp"
#include "tensorlib/expr/operators.hpp"
#include "tensorlib/ops/convolution.hpp"
#include "tensorlib/ops/factories.hpp"
#include "tensorlib/ops/gather_scatter.hpp"
#include "tensorlib/ops/index_ops.hpp"
#include "tensorlib/ops/linalg.hpp"
#include "tensorlib/ops/pad.hpp"
#include "tensorlib/ops/reduce.hpp"
#include "tensorlib/ops/values_indices.hpp"
#include "tensorlib/ops/views.hpp"

namespace tensorlib {
namespace detail {

/// The checked arguments of one pool: spatial dimension count, kernel,
/// stride (the kernel when empty), padding, dilation, output sizes.
struct PoolGeometry {
  Shape in, kernel, stride, padding, dilation, out;
};

/// (N, C, spatial...) or (C, spatial...): the batched input, `unbatched` set.
template <Element T>
Tensor<T> pool_input(const Tensor<T>& input, int64_t s, const char* op, bool& unbatched) {
  static_assert(is_floating<T>, "pooling: expected floating-point tensors");
  check<ShapeError>(input.dim() == s + 1 || input.dim() == s + 2, op, ": non-empty ", s + 1, "D or ", s + 2,
                    "D (batch mode) tensor expected for input, but got input of size ", input.sizes());
  for (int64_t d = input.dim() - s - 1; d < input.dim(); ++d)
    check<ShapeError>(input.size(d) > 0, op,
                      ": Expected input to have non-zero size for non-batch dimensions, but "
                      "got input of size ",
                      input.sizes());
  unbatched = input.dim() == s + 1;
  return unbatched ? input.unsqueeze(0) : input;
}

/// PyTorch's pooling_output_shape and pool{1,2,3}d_shape_check.
inline PoolGeometry pool_geometry(const Shape& in, int64_t channels, const Shape& kernel_size, const Shape& stride,
                                  const Shape& padding, const Shape& dilation, bool ceil_mode, bool max_pool,
                                  const char* op) {
  const int64_t s = in.size();
  PoolGeometry g{in,
                 conv_param(kernel_size, "kernel_size", s, op),
                 stride.empty() ? Shape() : conv_param(stride, "stride", s, op),
                 conv_param(padding, "padding", s, op),
                 conv_param(dilation, "dilation", s, op),
                 Shape()};
  if (g.stride.empty()) g.stride = g.kernel;
  for (int64_t i = 0; i < s; ++i) {
    check<ValueError>(g.kernel[i] > 0, op, ": kernel size should be greater than zero, but got kernel_size=", g.kernel);
    check<ValueError>(g.stride[i] > 0, op, ": stride should be greater than zero, but got stride=", g.stride);
    check<ValueError>(g.dilation[i] > 0, op, ": dilation should be greater than zero, but got dilation=", g.dilation);
    const int64_t effective = max_pool ? (g.kernel[i] - 1) * g.dilation[i] + 1 : g.kernel[i];
    check<ValueError>(g.padding[i] >= 0 && g.padding[i] <= effective / 2, op, ": pad should be at most half of ",
                      max_pool ? "effective " : "", "kernel size, but got pad=", g.padding[i],
                      ", kernel_size=", g.kernel[i],
                      max_pool ? " and dilation=" + std::to_string(g.dilation[i]) : std::string());
  }
  for (int64_t i = 0; i < s; ++i) {
    const int64_t numer =
        in[i] + 2 * g.padding[i] - g.dilation[i] * (g.kernel[i] - 1) - 1 + (ceil_mode ? g.stride[i] - 1 : 0);
    int64_t o = numer < 0 ? 0 : numer / g.stride[i] + 1;
    if (ceil_mode && o > 0 && (o - 1) * g.stride[i] >= in[i] + g.padding[i]) --o;
    g.out.push_back(o);
  }
  bool fits = true;
  for (int64_t o : g.out) fits = fits && o >= 1;
  std::string given = std::to_string(channels), calculated = std::to_string(channels);
  for (int64_t i = 0; i < s; ++i) {
    given += "x" + std::to_string(in[i]);
    calculated += "x" + std::to_string(g.out[i]);
  }
  check<ValueError>(fits, op, ": Given input size: (", given, "). Calculated output size: (", calculated,
                    "). Output size is too small");
  return g;
}

/// The padding a pool's last windows need on the right: their reach beyond
/// the input (ceil_mode), or less than `padding` (a crop) where the strides
/// leave elements over.
inline Shape pool_right_padding(const PoolGeometry& g) {
  Shape right;
  for (int64_t i = 0; i < g.in.size(); ++i)
    right.push_back((g.out[i] - 1) * g.stride[i] + g.dilation[i] * (g.kernel[i] - 1) + 1 - g.in[i] - g.padding[i]);
  return right;
}

/// Windows (N, C, out..., kernel...) flattened to (N, C, out..., kernel elements).
template <Element T>
Tensor<T> flat_windows(const Tensor<T>& windows, int64_t s) {
  Shape flat;
  for (int64_t d = 0; d < windows.dim() - s; ++d) flat.push_back(windows.size(d));
  int64_t k = 1;
  for (int64_t d = windows.dim() - s; d < windows.dim(); ++d) k *= windows.size(d);
  flat.push_back(k);
  return windows.reshape(flat);
}

/// The flat input position (row-major over `in`) of each window element,
/// window major, from each dimension's coordinates `coords[i][o * K_i + k]`.
/// An element outside the input reads as its window's first position inside
/// (the index PyTorch gives a window of -inf only).
inline Tensor<int64_t> window_index_table(const Shape& in, const std::vector<std::vector<int64_t>>& coords,
                                          const Shape& out, const Shape& kernel, Device device) {
  const int64_t s = in.size();
  std::vector<std::vector<int64_t>> first(static_cast<std::size_t>(s));
  for (int64_t i = 0; i < s; ++i)
    for (int64_t o = 0; o < out[i]; ++o) {
      int64_t f = 0;
      for (int64_t k = 0; k < kernel[i]; ++k) {
        const int64_t c = coords[i][o * kernel[i] + k];
        if (c >= 0 && c < in[i]) {
          f = c;
          break;
        }
      }
      first[i].push_back(f);
    }
  std::vector<int64_t> table;
  table.reserve(static_cast<std::size_t>(out.numel() * kernel.numel()));
  Shape o = Shape::filled(s, 0);
  for (int64_t oi = 0; oi < out.numel(); ++oi) {
    Shape k = Shape::filled(s, 0);
    for (int64_t ki = 0; ki < kernel.numel(); ++ki) {
      bool inside = true;
      for (int64_t i = 0; i < s; ++i) {
        const int64_t c = coords[i][o[i] * kernel[i] + k[i]];
        inside = inside && c >= 0 && c < in[i];
      }
      int64_t flat = 0;
      for (int64_t i = 0; i < s; ++i)
        flat = flat * in[i] + (inside ? coords[i][o[i] * kernel[i] + k[i]] : first[i][o[i]]);
      table.push_back(flat);
      for (int64_t i = s - 1; i >= 0 && ++k[i] == kernel[i]; --i) k[i] = 0;
    }
    for (int64_t i = s - 1; i >= 0 && ++o[i] == out[i]; --i) o[i] = 0;
  }
  return from_blob(std::span<int64_t>(table), {static_cast<int64_t>(table.size())}).clone().to(device);
}

/// The maximum of every window (N, C, out..., K...) and its flat input
/// position, read from `table` (window major, kp elements a window).
template <Element T>
ValuesIndices<T> max_of_windows(const Tensor<T>& windows, int64_t s, const Tensor<int64_t>& table, int64_t kp,
                                bool unbatched) {
  auto [values, at] = tensorlib::max(flat_windows(windows, s), -1);
  Shape out;
  for (int64_t d = 2; d < at.dim(); ++d) out.push_back(at.size(d));
  const Tensor<int64_t> offsets = arange<int64_t>(0, out.numel() * kp, kp, {.device = at.device()}).reshape(out);
  const Tensor<int64_t> indices = take(table, Tensor<int64_t>(at + offsets));
  if (unbatched) return {values.squeeze(0), indices.squeeze(0)};
  return {values, indices};
}

/// max_pool{1,2,3}d_with_indices.
template <Element T>
ValuesIndices<T> max_pool(const Tensor<T>& input, int64_t s, const Shape& kernel_size, const Shape& stride,
                          const Shape& padding, const Shape& dilation, bool ceil_mode, const char* op) {
  bool unbatched = false;
  const Tensor<T> x = pool_input(input, s, op, unbatched);
  const PoolGeometry g =
      pool_geometry(spatial_sizes(x), x.size(1), kernel_size, stride, padding, dilation, ceil_mode, true, op);
  const Tensor<T> xp = pad_spatial(x, g.padding, pool_right_padding(g), -std::numeric_limits<T>::infinity());
  std::vector<std::vector<int64_t>> coords(static_cast<std::size_t>(s));
  for (int64_t i = 0; i < s; ++i)
    for (int64_t o = 0; o < g.out[i]; ++o)
      for (int64_t k = 0; k < g.kernel[i]; ++k) coords[i].push_back(o * g.stride[i] + k * g.dilation[i] - g.padding[i]);
  return max_of_windows(conv_windows(xp, g.kernel, g.stride, g.dilation), s,
                        window_index_table(g.in, coords, g.out, g.kernel, x.device()), g.kernel.numel(), unbatched);
}

/// avg_pool{1,2,3}d: window sums over the zero-padded input, each divided
/// by PyTorch's count (the window clipped to the padded input, or to the
/// input without count_include_pad), or by divisor_override.
template <Element T>
Tensor<T> avg_pool(const Tensor<T>& input, int64_t s, const Shape& kernel_size, const Shape& stride,
                   const Shape& padding, bool ceil_mode, bool count_include_pad,
                   std::optional<int64_t> divisor_override, const char* op) {
  bool unbatched = false;
  const Tensor<T> x = pool_input(input, s, op, unbatched);
  const PoolGeometry g =
      pool_geometry(spatial_sizes(x), x.size(1), kernel_size, stride, padding, {1}, ceil_mode, false, op);
  if (divisor_override) check<ValueError>(*divisor_override != 0, op, ": divisor must be not zero");
  const Tensor<T> xp = pad_spatial(x, g.padding, pool_right_padding(g));
  Shape window_dims;
  for (int64_t i = 0; i < s; ++i) window_dims.push_back(-1 - i);
  const Tensor<T> sums = conv_windows(xp, g.kernel, g.stride, g.dilation).sum(window_dims);
  // The count of every output position: a product of per-dimension counts.
  std::vector<T> count(static_cast<std::size_t>(g.out.numel()), T(1));
  Shape o = Shape::filled(s, 0);
  for (auto& c : count) {
    int64_t n = 1;
    for (int64_t i = 0; i < s; ++i) {
      const int64_t start = o[i] * g.stride[i] - g.padding[i];
      const int64_t end = std::min(start + g.kernel[i], g.in[i] + g.padding[i]);
      n *= count_include_pad ? end - start : std::min(end, g.in[i]) - std::max<int64_t>(start, 0);
    }
    c = static_cast<T>(divisor_override ? *divisor_override : n);
    for (int64_t i = s - 1; i >= 0 && ++o[i] == g.out[i]; --i) o[i] = 0;
  }
  const Tensor<T> divisor = from_blob(std::span<T>(count), g.out).clone().to(x.device());
  const Tensor<T> r = sums / divisor;
  return unbatched ? r.squeeze(0) : r;
}

/// PyTorch's adaptive windows along one dimension: [floor(o n / m),
/// ceil((o + 1) n / m)).
inline std::pair<int64_t, int64_t> adaptive_window(int64_t o, int64_t n, int64_t m) {
  return {o * n / m, ((o + 1) * n + m - 1) / m};
}

/// The checked output sizes of an adaptive pool.
template <Element T>
Shape adaptive_output(const Tensor<T>& x, const Shape& output_size, int64_t s, const char* op) {
  const Shape out = conv_param(output_size, "output_size", s, op);
  for (int64_t i = 0; i < s; ++i)
    check<ValueError>(out[i] >= 0, op, ": elements of output_size must be greater than or equal to 0, but got ", out);
  (void)x;
  return out;
}

/// adaptive_avg_pool{1,2,3}d: one averaging matrix (out, in) per dimension.
template <Element T>
Tensor<T> adaptive_avg_pool(const Tensor<T>& input, const Shape& output_size, int64_t s, const char* op) {
  bool unbatched = false;
  const Tensor<T> x = pool_input(input, s, op, unbatched);
  const Shape out = adaptive_output(x, output_size, s, op);
  if (out.numel() == 0) {
    Shape empty = {x.size(0), x.size(1)};
    for (int64_t o : out) empty.push_back(o);
    const Tensor<T> r = zeros<T>(empty, {.device = x.device()});
    return unbatched ? r.squeeze(0) : r;
  }
  Tensor<T> r = x;
  for (int64_t i = 0; i < s; ++i) {
    const int64_t n = x.size(2 + i), m = out[i];
    std::vector<T> a(static_cast<std::size_t>(n * m), T(0));
    for (int64_t o = 0; o < m; ++o) {
      const auto [lo, hi] = adaptive_window(o, n, m);
      for (int64_t j = lo; j < hi; ++j) a[static_cast<std::size_t>(j * m + o)] = T(1) / static_cast<T>(hi - lo);
    }
    const Tensor<T> mat = from_blob(std::span<T>(a), {n, m}).clone().to(x.device());
    r = matmul(r.movedim(2 + i, -1), mat).movedim(-1, 2 + i);
  }
  return unbatched ? r.squeeze(0) : r;
}

/// adaptive_max_pool{1,2,3}d_with_indices: each dimension gathered into
/// (out, longest window), short windows repeating their last element.
template <Element T>
ValuesIndices<T> adaptive_max_pool(const Tensor<T>& input, const Shape& output_size, int64_t s, const char* op) {
  bool unbatched = false;
  const Tensor<T> x = pool_input(input, s, op, unbatched);
  const Shape out = adaptive_output(x, output_size, s, op);
  if (out.numel() == 0) {
    Shape empty = {x.size(0), x.size(1)};
    for (int64_t o : out) empty.push_back(o);
    const Tensor<T> v = zeros<T>(empty, {.device = x.device()});
    const Tensor<int64_t> i = zeros<int64_t>(empty, {.device = x.device()});
    if (unbatched) return {v.squeeze(0), i.squeeze(0)};
    return {v, i};
  }
  const Shape in = spatial_sizes(x);
  Shape longest;
  std::vector<std::vector<int64_t>> coords(static_cast<std::size_t>(s));
  Tensor<T> g = x;
  for (int64_t i = 0; i < s; ++i) {
    int64_t k = 0;
    for (int64_t o = 0; o < out[i]; ++o) {
      const auto [lo, hi] = adaptive_window(o, in[i], out[i]);
      k = std::max(k, hi - lo);
    }
    longest.push_back(k);
    for (int64_t o = 0; o < out[i]; ++o) {
      const auto [lo, hi] = adaptive_window(o, in[i], out[i]);
      for (int64_t j = 0; j < k; ++j) coords[i].push_back(std::min(lo + j, hi - 1));
    }
    const auto index = from_blob(std::span<int64_t>(coords[i]), {out[i] * k}).clone().to(x.device());
    // (N, C, out_0, ..., out_i x k_i, in_{i+1}, ...) -> out_i, then k_i last.
    Shape split;
    for (int64_t d = 0; d < 2 + i; ++d) split.push_back(g.size(d));
    split.push_back(out[i]);
    split.push_back(k);
    for (int64_t d = 3 + i; d < g.dim(); ++d) split.push_back(g.size(d));
    g = g.index_select(2 + i, index).reshape(split).movedim(3 + i, -1);
  }
  return max_of_windows(g, s, window_index_table(in, coords, out, longest, x.device()), longest.numel(), unbatched);
}

/// max_unpool{1,2,3}d: values scattered to their indices in a zero output.
template <Element T>
Tensor<T> max_unpool(const Tensor<T>& input, const Tensor<int64_t>& indices, int64_t s, const Shape& kernel_size,
                     const Shape& stride, const Shape& padding, const Shape& output_size, const char* op) {
  check<ShapeError>(input.sizes() == indices.sizes(), op,
                    ": Expected shape of indices to be same as that of the "
                    "input tensor (",
                    input.sizes(), ") but got indices tensor with shape: ", indices.sizes());
  bool unbatched = false;
  const Tensor<T> x = pool_input(input, s, op, unbatched);
  const Shape k = conv_param(kernel_size, "kernel_size", s, op),
              st = stride.empty() ? k : conv_param(stride, "stride", s, op), pd = conv_param(padding, "padding", s, op);
  Shape out;
  if (output_size.empty()) {
    for (int64_t i = 0; i < s; ++i) out.push_back((x.size(2 + i) - 1) * st[i] - 2 * pd[i] + k[i]);
  } else {
    check<ShapeError>(output_size.size() == s || output_size.size() == s + 2, op, ": output_size should have ", s,
                      " or ", s + 2, " elements, but got ", output_size);
    for (int64_t i = output_size.size() - s; i < output_size.size(); ++i) out.push_back(output_size[i]);
    for (int64_t i = 0; i < s; ++i) {
      const int64_t natural = (x.size(2 + i) - 1) * st[i] - 2 * pd[i] + k[i];
      check<ValueError>(out[i] > natural - st[i] && out[i] < natural + st[i], op, ": invalid output_size ", output_size,
                        " (dim ", i, " must be between ", natural - st[i], " and ", natural + st[i], ")");
    }
  }
  const int64_t n = x.size(0), c = x.size(1), per_plane = out.numel();
  const Tensor<int64_t> at = (unbatched ? indices.unsqueeze(0) : indices).reshape({n, c, -1});
  if (at.numel() > 0) {
    const int64_t lo = at.min().item(), hi = at.max().item();
    check<IndexError>(lo >= 0 && hi < per_plane, op, ": Found an invalid max index: ", lo < 0 ? lo : hi,
                      " (output volumes are of size ", by_x(out), ")");
  }
  Shape result = {n, c};
  for (int64_t o : out) result.push_back(o);
  const Tensor<T> r =
      zeros<T>({n, c, per_plane}, {.device = x.device()}).scatter(2, at, x.reshape({n, c, -1})).reshape(result);
  return unbatched ? r.squeeze(0) : r;
}

}  // namespace detail

/// `torch.nn.functional.max_pool1d(input, kernel_size, stride, padding,
/// dilation, ceil_mode)`; an empty stride is the kernel size.
template <Element T>
Tensor<T> max_pool1d(const Tensor<T>& input, const Shape& kernel_size, const Shape& stride = {},
                     const Shape& padding = {0}, const Shape& dilation = {1}, bool ceil_mode = false) {
  return detail::max_pool(input, 1, kernel_size, stride, padding, dilation, ceil_mode, "max_pool1d").values;
}
/// `max_pool1d` with `return_indices=True`: the maxima and their flat positions
/// in each input plane.
template <Element T>
ValuesIndices<T> max_pool1d_with_indices(const Tensor<T>& input, const Shape& kernel_size, const Shape& stride = {},
                                         const Shape& padding = {0}, const Shape& dilation = {1},
                                         bool ceil_mode = false) {
  return detail::max_pool(input, 1, kernel_size, stride, padding, dilation, ceil_mode, "max_pool1d");
}

/// `torch.nn.functional.max_pool2d(input, kernel_size, stride, padding,
/// dilation, ceil_mode)`; an empty stride is the kernel size.
template <Element T>
Tensor<T> max_pool2d(const Tensor<T>& input, const Shape& kernel_size, const Shape& stride = {},
                     const Shape& padding = {0}, const Shape& dilation = {1}, bool ceil_mode = false) {
  return detail::max_pool(input, 2, kernel_size, stride, padding, dilation, ceil_mode, "max_pool2d").values;
}
/// `max_pool2d` with `return_indices=True`: the maxima and their flat positions
/// in each input plane.
template <Element T>
ValuesIndices<T> max_pool2d_with_indices(const Tensor<T>& input, const Shape& kernel_size, const Shape& stride = {},
                                         const Shape& padding = {0}, const Shape& dilation = {1},
                                         bool ceil_mode = false) {
  return detail::max_pool(input, 2, kernel_size, stride, padding, dilation, ceil_mode, "max_pool2d");
}

/// `torch.nn.functional.max_pool3d(input, kernel_size, stride, padding,
/// dilation, ceil_mode)`; an empty stride is the kernel size.
template <Element T>
Tensor<T> max_pool3d(const Tensor<T>& input, const Shape& kernel_size, const Shape& stride = {},
                     const Shape& padding = {0}, const Shape& dilation = {1}, bool ceil_mode = false) {
  return detail::max_pool(input, 3, kernel_size, stride, padding, dilation, ceil_mode, "max_pool3d").values;
}
/// `max_pool3d` with `return_indices=True`: the maxima and their flat positions
/// in each input plane.
template <Element T>
ValuesIndices<T> max_pool3d_with_indices(const Tensor<T>& input, const Shape& kernel_size, const Shape& stride = {},
                                         const Shape& padding = {0}, const Shape& dilation = {1},
                                         bool ceil_mode = false) {
  return detail::max_pool(input, 3, kernel_size, stride, padding, dilation, ceil_mode, "max_pool3d");
}

/// `torch.nn.functional.avg_pool1d(input, kernel_size, stride, padding,
/// ceil_mode, count_include_pad)`.
template <Element T>
Tensor<T> avg_pool1d(const Tensor<T>& input, const Shape& kernel_size, const Shape& stride = {},
                     const Shape& padding = {0}, bool ceil_mode = false, bool count_include_pad = true) {
  return detail::avg_pool(input, 1, kernel_size, stride, padding, ceil_mode, count_include_pad, std::nullopt,
                          "avg_pool1d");
}

/// `torch.nn.functional.avg_pool2d(input, kernel_size, stride, padding,
/// ceil_mode, count_include_pad, divisor_override)`.
template <Element T>
Tensor<T> avg_pool2d(const Tensor<T>& input, const Shape& kernel_size, const Shape& stride = {},
                     const Shape& padding = {0}, bool ceil_mode = false, bool count_include_pad = true,
                     std::optional<int64_t> divisor_override = std::nullopt) {
  return detail::avg_pool(input, 2, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override,
                          "avg_pool2d");
}

/// `torch.nn.functional.avg_pool3d(input, kernel_size, stride, padding,
/// ceil_mode, count_include_pad, divisor_override)`.
template <Element T>
Tensor<T> avg_pool3d(const Tensor<T>& input, const Shape& kernel_size, const Shape& stride = {},
                     const Shape& padding = {0}, bool ceil_mode = false, bool count_include_pad = true,
                     std::optional<int64_t> divisor_override = std::nullopt) {
  return detail::avg_pool(input, 3, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override,
                          "avg_pool3d");
}

/// `torch.nn.functional.adaptive_avg_pool1d(input, output_size)`.
template <Element T>
Tensor<T> adaptive_avg_pool1d(const Tensor<T>& input, const Shape& output_size) {
  return detail::adaptive_avg_pool(input, output_size, 1, "adaptive_avg_pool1d");
}
/// `torch.nn.functional.adaptive_max_pool1d(input, output_size)`.
template <Element T>
Tensor<T> adaptive_max_pool1d(const Tensor<T>& input, const Shape& output_size) {
  return detail::adaptive_max_pool(input, output_size, 1, "adaptive_max_pool1d").values;
}
/// `adaptive_max_pool1d` with `return_indices=True`.
template <Element T>
ValuesIndices<T> adaptive_max_pool1d_with_indices(const Tensor<T>& input, const Shape& output_size) {
  return detail::adaptive_max_pool(input, output_size, 1, "adaptive_max_pool1d");
}

/// `torch.nn.functional.adaptive_avg_pool2d(input, output_size)`.
template <Element T>
Tensor<T> adaptive_avg_pool2d(const Tensor<T>& input, const Shape& output_size) {
  return detail::adaptive_avg_pool(input, output_size, 2, "adaptive_avg_pool2d");
}
/// `torch.nn.functional.adaptive_max_pool2d(input, output_size)`.
template <Element T>
Tensor<T> adaptive_max_pool2d(const Tensor<T>& input, const Shape& output_size) {
  return detail::adaptive_max_pool(input, output_size, 2, "adaptive_max_pool2d").values;
}
/// `adaptive_max_pool2d` with `return_indices=True`.
template <Element T>
ValuesIndices<T> adaptive_max_pool2d_with_indices(const Tensor<T>& input, const Shape& output_size) {
  return detail::adaptive_max_pool(input, output_size, 2, "adaptive_max_pool2d");
}

/// `torch.nn.functional.adaptive_avg_pool3d(input, output_size)`.
template <Element T>
Tensor<T> adaptive_avg_pool3d(const Tensor<T>& input, const Shape& output_size) {
  return detail::adaptive_avg_pool(input, output_size, 3, "adaptive_avg_pool3d");
}
/// `torch.nn.functional.adaptive_max_pool3d(input, output_size)`.
template <Element T>
Tensor<T> adaptive_max_pool3d(const Tensor<T>& input, const Shape& output_size) {
  return detail::adaptive_max_pool(input, output_size, 3, "adaptive_max_pool3d").values;
}
/// `adaptive_max_pool3d` with `return_indices=True`.
template <Element T>
ValuesIndices<T> adaptive_max_pool3d_with_indices(const Tensor<T>& input, const Shape& output_size) {
  return detail::adaptive_max_pool(input, output_size, 3, "adaptive_max_pool3d");
}

/// `torch.nn.functional.lp_pool1d(input, norm_type, kernel_size, stride,
/// ceil_mode)`: (sum of x^p over each window)^(1/p), as PyTorch's, from an
/// average pool (negative window sums of odd powers clamp to 0).
template <Element T>
Tensor<T> lp_pool1d(const Tensor<T>& input, double norm_type, const Shape& kernel_size, const Shape& stride = {},
                    bool ceil_mode = false) {
  const Shape k = detail::conv_param(kernel_size, "kernel_size", 1, "lp_pool1d");
  const Tensor<T> avg =
      avg_pool1d(Tensor<T>(tensorlib::pow(input, static_cast<T>(norm_type))), k, stride, {0}, ceil_mode);
  return tensorlib::pow(tensorlib::sign(avg) * tensorlib::relu(tensorlib::abs(avg)) * static_cast<T>(k.numel()),
                        static_cast<T>(1.0 / norm_type));
}

/// `torch.nn.functional.lp_pool2d(input, norm_type, kernel_size, stride,
/// ceil_mode)`: (sum of x^p over each window)^(1/p), as PyTorch's, from an
/// average pool (negative window sums of odd powers clamp to 0).
template <Element T>
Tensor<T> lp_pool2d(const Tensor<T>& input, double norm_type, const Shape& kernel_size, const Shape& stride = {},
                    bool ceil_mode = false) {
  const Shape k = detail::conv_param(kernel_size, "kernel_size", 2, "lp_pool2d");
  const Tensor<T> avg =
      avg_pool2d(Tensor<T>(tensorlib::pow(input, static_cast<T>(norm_type))), k, stride, {0}, ceil_mode);
  return tensorlib::pow(tensorlib::sign(avg) * tensorlib::relu(tensorlib::abs(avg)) * static_cast<T>(k.numel()),
                        static_cast<T>(1.0 / norm_type));
}

/// `torch.nn.functional.max_unpool1d(input, indices, kernel_size, stride,
/// padding, output_size)`: each value written at its index in a zero plane
/// of output_size (by default (in - 1) stride - 2 padding + kernel_size).
template <Element T>
Tensor<T> max_unpool1d(const Tensor<T>& input, const Tensor<int64_t>& indices, const Shape& kernel_size,
                       const Shape& stride = {}, const Shape& padding = {0}, const Shape& output_size = {}) {
  return detail::max_unpool(input, indices, 1, kernel_size, stride, padding, output_size, "max_unpool1d");
}

/// `torch.nn.functional.max_unpool2d(input, indices, kernel_size, stride,
/// padding, output_size)`: each value written at its index in a zero plane
/// of output_size (by default (in - 1) stride - 2 padding + kernel_size).
template <Element T>
Tensor<T> max_unpool2d(const Tensor<T>& input, const Tensor<int64_t>& indices, const Shape& kernel_size,
                       const Shape& stride = {}, const Shape& padding = {0}, const Shape& output_size = {}) {
  return detail::max_unpool(input, indices, 2, kernel_size, stride, padding, output_size, "max_unpool2d");
}

/// `torch.nn.functional.max_unpool3d(input, indices, kernel_size, stride,
/// padding, output_size)`: each value written at its index in a zero plane
/// of output_size (by default (in - 1) stride - 2 padding + kernel_size).
template <Element T>
Tensor<T> max_unpool3d(const Tensor<T>& input, const Tensor<int64_t>& indices, const Shape& kernel_size,
                       const Shape& stride = {}, const Shape& padding = {0}, const Shape& output_size = {}) {
  return detail::max_unpool(input, indices, 3, kernel_size, stride, padding, output_size, "max_unpool3d");
}

}  // namespace tensorlib
