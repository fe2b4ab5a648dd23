#pragma once
/// \file
/// Padding: `constant_pad_nd` and `pad` (torch.nn.functional.pad's modes
/// "constant", "reflect", "replicate", "circular"). `pad` lists (left, right)
/// amounts from the last dimension backwards, as PyTorch's does.
///
/// Compositions of differentiable ops, so they record, differentiate twice
/// and run on any device: a constant pad is `cat` with filled blocks (a
/// negative amount crops, by `narrow`); the other modes are one
/// `index_select` per padded dimension, of the source position of every
/// output position (its backward is `index_add`, which sums the gradient of
/// the positions a reflection or replication reads twice).

#include <algorithm>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "tensorlib/core/error.hpp"
#include "tensorlib/core/shape.hpp"
#include "tensorlib/core/tensor.hpp"
#include "tensorlib/ops/factories.hpp"
#include "tensorlib/ops/index_ops.hpp"
#include "tensorlib/ops/join.hpp"
#include "tensorlib/ops/views.hpp"

namespace tensorlib {
namespace detail {

/// The source position of every output position when a length-n dimension
/// is padded by (left, right) in a non-constant mode; negative amounts crop.
/// The caller has checked the amounts against the mode.
/// A circular pad wraps around what its crops keep (PyTorch's crops first).
inline std::vector<int64_t> pad_source_positions(int64_t n, int64_t left, int64_t right, std::string_view mode) {
  std::vector<int64_t> at;
  const int64_t lo = std::max<int64_t>(-left, 0), kept = n - lo - std::max<int64_t>(-right, 0);
  for (int64_t i = -left; i < n + right; ++i) {
    if (i >= 0 && i < n)
      at.push_back(i);
    else if (mode == "reflect")
      at.push_back(i < 0 ? -i : 2 * (n - 1) - i);
    else if (mode == "replicate")
      at.push_back(i < 0 ? 0 : n - 1);
    else
      at.push_back(lo + ((i - lo) % kept + kept) % kept);
  }
  return at;
}

/// The checks every padding mode shares (PyTorch's _pad_enum).
template <Element T>
void check_pad_list(const Tensor<T>& x, const Shape& pad) {
  check<ValueError>(pad.size() % 2 == 0, "pad: Padding length must be divisible by 2");
  check<ValueError>(pad.size() <= 2 * x.dim(),
                    "pad: Padding length should be less than or equal to two times the input dimension but got "
                    "padding length ",
                    pad.size(), " and input of dimension ", x.dim());
}

/// One dimension of a non-constant pad.
template <Element T>
Tensor<T> pad_dim_by_index(const Tensor<T>& x, int64_t d, int64_t left, int64_t right, std::string_view mode) {
  const int64_t n = x.size(d);
  if (mode == "reflect")
    check<ValueError>(left < n && right < n,
                      "pad: Argument #4: Padding size should be less than the corresponding input dimension, but "
                      "got: padding (",
                      left, ", ", right, ") at dimension ", d, " of input ", x.sizes());
  if (mode == "circular")
    check<ValueError>(
        left <= n && right <= n &&
            (n - std::max<int64_t>(-left, 0) - std::max<int64_t>(-right, 0) > 0 || (left <= 0 && right <= 0)),
        "pad: Padding value causes wrapping around more than once.");
  check<ValueError>(n > 0 || mode == "circular", "pad: input of size ", x.sizes(), " is empty at dimension ", d, "; ",
                    mode, " padding needs at least one element");
  check<ValueError>(n + left + right >= (mode == "circular" ? 0 : 1), "pad: input (size ", n, " at dimension ", d,
                    ") is too small. Calculated output size: ", n + left + right);
  std::vector<int64_t> at = pad_source_positions(n, left, right, mode);
  const auto index =
      from_blob(std::span<int64_t>(at), {static_cast<int64_t>(at.size())}).clone().to(Device(x.device()));
  return x.index_select(d, index);
}

}  // namespace detail

/// `torch.constant_pad_nd(input, pad, value)`: `pad` = (left, right) of the
/// last dimension, then of the one before, ...; negative amounts crop.
template <Element T>
Tensor<T> constant_pad_nd(const Tensor<T>& input, const Shape& pad, T value = T(0)) {
  detail::check_pad_list(input, pad);
  const int64_t k = pad.size() / 2;
  for (int64_t i = 0; i < k; ++i) {
    const int64_t d = input.dim() - 1 - i;
    const int64_t n = input.size(d) + pad[2 * i] + pad[2 * i + 1];
    detail::check<ValueError>(n >= 0, "constant_pad_nd: The input size ", input.size(d), ", plus negative padding ",
                              pad[2 * i], " and ", pad[2 * i + 1],
                              " resulted in a negative output size, which is invalid. Check dimension ", d,
                              " of your input.");
  }
  Tensor<T> out = input;
  for (int64_t i = 0; i < k; ++i) {
    const int64_t d = input.dim() - 1 - i, left = pad[2 * i], right = pad[2 * i + 1];
    // Crops first, so an amount that crops and one that pads never overlap.
    const int64_t crop_left = std::min<int64_t>(std::max<int64_t>(-left, 0), out.size(d));
    const int64_t kept = std::max<int64_t>(out.size(d) - crop_left - std::max<int64_t>(-right, 0), 0);
    if (crop_left > 0 || kept < out.size(d)) out = out.narrow(d, crop_left, kept);
    if (left <= 0 && right <= 0) continue;
    std::vector<Tensor<T>> parts;
    Shape block = out.sizes();
    if (left > 0) {
      block[d] = left;
      parts.push_back(full<T>(block, value, {.device = out.device()}));
    }
    parts.push_back(out);
    if (right > 0) {
      block[d] = right;
      parts.push_back(full<T>(block, value, {.device = out.device()}));
    }
    out = cat(parts, d);
  }
  // Only crops (or nothing): still a new tensor, as PyTorch's.
  return out.is_alias_of(input) ? out.clone() : out;
}

/// `torch.nn.functional.pad(input, pad, mode, value)`. "constant" fills with
/// `value` (and crops for negative amounts); "reflect", "replicate" and
/// "circular" pad the last 1, 2 or 3 dimensions of an input with one or two
/// more (batch, channel), and take no value.
template <Element T>
Tensor<T> pad(const Tensor<T>& input, const Shape& pads, std::string_view mode = "constant",
              std::optional<double> value = std::nullopt) {
  detail::check<ValueError>(mode == "constant" || mode == "reflect" || mode == "replicate" || mode == "circular",
                            "pad: Unrecognised padding mode ", mode);
  detail::check_pad_list(input, pads);
  if (mode == "constant") return constant_pad_nd(input, pads, static_cast<T>(value.value_or(0.0)));
  detail::check<ValueError>(!value || *value == 0.0, "pad: Padding mode \"", mode, "\" doesn't take in value argument");
  const int64_t k = pads.size() / 2;
  detail::check<NotImplementedError>(k >= 1 && k <= 3 && (input.dim() == k + 1 || input.dim() == k + 2),
                                     "pad: Only 2D, 3D, 4D, 5D padding with non-constant padding are supported for "
                                     "now (got padding of length ",
                                     pads.size(), " for an input of size ", input.sizes(), ")");
  Tensor<T> out = input;
  for (int64_t i = 0; i < k; ++i)
    out = detail::pad_dim_by_index(out, input.dim() - 1 - i, pads[2 * i], pads[2 * i + 1], mode);
  return out;
}

}  // namespace tensorlib
