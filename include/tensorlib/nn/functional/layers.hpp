#pragma once
/// \file
/// torch.nn.functional's layer functions: `linear`, `bilinear`, `embedding`
/// (padding_idx, max_norm), `embedding_bag`, `one_hot`, `glu`, `softmin`, `prelu`, `rrelu`,
/// `pixel_shuffle`, `pixel_unshuffle`, `channel_shuffle`, and the dropouts:
/// `dropout`, `dropout1d/2d/3d` (whole channels), `alpha_dropout`,
/// `feature_alpha_dropout`. PyTorch's arguments, defaults and messages;
/// random masks come from a `tl::Generator` (the default one unless given),
/// so they are reproducible but not PyTorch's numbers.

#include <cmath>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <type_traits>
#include <vector>

#include "tensorlib/core/error.hpp"
#include "tensorlib/core/generator.hpp"
#include "tensorlib/core/grad_mode.hpp"
#include "tensorlib/core/tensor.hpp"
#include "tensorlib/expr/functions.hpp"
#include "tensorlib/expr/operators.hpp"
#include "tensorlib/ops/compare.hpp"
#include "tensorlib/ops/einsum.hpp"
#include "tensorlib/ops/factories.hpp"
#include "tensorlib/ops/index_ops.hpp"
#include "tensorlib/ops/linalg.hpp"
#include "tensorlib/ops/random.hpp"
#include "tensorlib/ops/reduce.hpp"
#include "tensorlib/ops/softmax.hpp"

namespace tensorlib {
namespace detail {

inline void check_dropout_p(double p, const char* op) {
  check<ValueError>(p >= 0 && p <= 1, op, ": dropout probability has to be between 0 and 1, but got ", p);
}

/// A keep mask of `shape` (1 with probability 1 - p) on `device`.
template <Element T>
Tensor<T> keep_mask(const Shape& shape, double p, Device device, Generator& gen) {
  return bernoulli<T>(shape, 1 - p, gen, {.device = device});
}

/// The mask shape of a channel dropout: (N, C, 1, ...) or (C, 1, ...).
template <Element T>
Shape channel_mask_shape(const Tensor<T>& input, int64_t spatial, const char* op) {
  check<ShapeError>(input.dim() == spatial + 1 || input.dim() == spatial + 2, op, ": Expected ", spatial + 1, "D or ",
                    spatial + 2, "D input, but received a ", input.dim(), "D input of size ", input.sizes());
  Shape mask = input.sizes();
  for (int64_t d = input.dim() - spatial; d < input.dim(); ++d) mask[d] = 1;
  return mask;
}

/// input times a keep mask of `mask` (broadcast) scaled by 1 / (1 - p):
/// the training path of every channel dropout.
template <Element T>
Tensor<T> scaled_keep(const Tensor<T>& input, const Shape& mask, double p, Generator& gen) {
  return input * keep_mask<T>(mask, p, input.device(), gen) * (p == 1 ? 0.0 : 1 / (1 - p));
}

/// Alpha dropout with a keep mask of `mask`: dropped elements become SELU's
/// negative saturation, then an affine map restores mean 0 and variance 1
/// (PyTorch's constants); 0 < p < 1.
template <Element T>
Tensor<T> alpha_keep(const Tensor<T>& input, const Shape& mask, double p, Generator& gen) {
  constexpr double alpha = 1.7580993408473766;
  const double a = 1 / std::sqrt((alpha * alpha * p + 1) * (1 - p));
  const Tensor<T> keep = keep_mask<T>(mask, p, input.device(), gen);
  return (input * keep + (1 - keep) * (-alpha)) * a + alpha * a * p;
}

}  // namespace detail

namespace nn::functional {

/// input weight^T + bias (F.linear): weight (out, in), bias (out).
template <Element T>
Tensor<T> linear(const Tensor<T>& input, const Tensor<T>& weight,
                 const std::optional<Tensor<std::type_identity_t<T>>>& bias = std::nullopt) {
  const Tensor<T> y = matmul(input, weight.t());
  return bias ? Tensor<T>(y + *bias) : y;
}

/// x1^T A_k x2 + b_k for every output feature k (F.bilinear): weight (out,
/// in1, in2).
template <Element T>
Tensor<T> bilinear(const Tensor<T>& input1, const Tensor<T>& input2, const Tensor<T>& weight,
                   const std::optional<Tensor<std::type_identity_t<T>>>& bias = std::nullopt) {
  tensorlib::detail::check<ShapeError>(
      weight.dim() == 3 && input1.size(-1) == weight.size(1) && input2.size(-1) == weight.size(2), "bilinear: weight ",
      weight.sizes(), " does not fit inputs ", input1.sizes(), " and ", input2.sizes());
  const Tensor<T> y = einsum("...i,kij,...j->...k", {input1, weight, input2});
  return bias ? Tensor<T>(y + *bias) : y;
}

/// Rows of `weight` at `input`'s indices (F.embedding): the result has
/// input's shape and one more dimension. padding_idx's row gets no
/// gradient; max_norm renormalizes (in place, unrecorded) the rows read to
/// at most that norm first, as PyTorch's embedding_renorm_.
template <Element T>
Tensor<T> embedding(const Tensor<int64_t>& input, const Tensor<T>& weight,
                    std::optional<int64_t> padding_idx = std::nullopt, std::optional<double> max_norm = std::nullopt,
                    double norm_type = 2.0) {
  tensorlib::detail::check<ShapeError>(weight.dim() == 2, "embedding: 'weight' must be 2-D, got ", weight.sizes());
  const int64_t rows = weight.size(0);
  if (padding_idx) {
    tensorlib::detail::check<ValueError>(*padding_idx < rows && *padding_idx >= -rows,
                                         "embedding: Padding_idx must be within num_embeddings");
    if (*padding_idx < 0) *padding_idx += rows;
  }
  const Tensor<int64_t> flat = input.flatten();
  if (max_norm) {
    NoGradGuard guard;
    const Tensor<T> read = weight.index_select(0, flat);
    const Tensor<T> norms = read.norm(norm_type, 1, true);
    const Tensor<T> scale = where(gt(norms, *max_norm), *max_norm / (norms + 1e-7), 1);
    Tensor<T>(weight).index_copy_(0, flat, Tensor<T>(read * scale));
  }
  Shape out = input.sizes();
  out.push_back(weight.size(1));
  Tensor<T> r = weight.index_select(0, flat).reshape(out);
  if (padding_idx && r.requires_grad()) {
    const Tensor<bool> pad = Tensor<bool>(eq(input, *padding_idx)).unsqueeze(-1);
    r = where(pad, r.detach(), r);
  }
  return r;
}

/// Sums, means or maxima of bags of embedding rows (F.embedding_bag): bags
/// are the rows of a 2-D input, or the runs of a 1-D input that `offsets`
/// starts (include_last_offset: its last entry ends the last bag). Entries
/// equal to padding_idx are left out (not counted in a mean); an empty bag
/// gives zeros; per_sample_weights scale the rows (mode "sum" only).
template <Element T>
Tensor<T> embedding_bag(const Tensor<int64_t>& input, const Tensor<T>& weight,
                        const std::optional<Tensor<int64_t>>& offsets = std::nullopt, std::string_view mode = "mean",
                        const std::optional<Tensor<std::type_identity_t<T>>>& per_sample_weights = std::nullopt,
                        bool include_last_offset = false, std::optional<int64_t> padding_idx = std::nullopt) {
  using tensorlib::detail::check;
  check<ShapeError>(weight.dim() == 2, "embedding_bag: weight has to be a 2D Tensor, but got Tensor of dimension ",
                    weight.dim());
  check<ValueError>(mode == "sum" || mode == "mean" || mode == "max",
                    "embedding_bag: mode has to be one of sum, "
                    "mean or max, got ",
                    mode);
  check<ValueError>(!per_sample_weights || mode == "sum",
                    "embedding_bag: per_sample_weights was not None. "
                    "per_sample_weights is only supported for mode='sum' (got mode='",
                    mode, "').");
  std::vector<int64_t> bag_of;
  int64_t bags = 0;
  const std::vector<int64_t> ids = input.cpu().contiguous().to_vector();
  if (input.dim() == 2) {
    check<ValueError>(!offsets,
                      "embedding_bag: if input is 2D, then offsets has to be None, as input is treated is "
                      "a mini-batch of fixed length sequences.");
    bags = input.size(0);
    for (int64_t i = 0; i < input.numel(); ++i) bag_of.push_back(i / std::max<int64_t>(input.size(1), 1));
  } else {
    check<ShapeError>(input.dim() == 1,
                      "embedding_bag: input has to be 1D or 2D Tensor, but got Tensor of "
                      "dimension ",
                      input.dim());
    check<ValueError>(offsets.has_value() && offsets->dim() == 1, "embedding_bag: offsets has to be a 1D Tensor");
    const std::vector<int64_t> starts = offsets->cpu().contiguous().to_vector();
    check<ValueError>(!starts.empty() && starts[0] == 0,
                      "embedding_bag: offsets[0] has to be 0, i.e., the first "
                      "sequence in the mini-batch has to start from position 0. However, got ",
                      starts.empty() ? -1 : starts[0]);
    for (std::size_t b = 1; b < starts.size(); ++b)
      check<ValueError>(starts[b] >= starts[b - 1] && starts[b] <= input.numel(),
                        "embedding_bag: offsets must be "
                        "non-decreasing and within the input's length");
    // Bag b is [starts[b], starts[b + 1]); the last runs to the end, or
    // with include_last_offset ends at the last offset (what follows is
    // left out, marked -1).
    bags = static_cast<int64_t>(starts.size()) - (include_last_offset ? 1 : 0);
    std::size_t b = 0;
    for (int64_t i = 0; i < input.numel(); ++i) {
      while (b + 1 < starts.size() && starts[b + 1] <= i) ++b;
      bag_of.push_back(static_cast<int64_t>(b) < bags ? static_cast<int64_t>(b) : -1);
    }
  }
  if (padding_idx) {
    check<ValueError>(*padding_idx >= -weight.size(0) && *padding_idx < weight.size(0),
                      "embedding_bag: padding_idx must be within the number of embeddings");
    if (*padding_idx < 0) *padding_idx += weight.size(0);
  }
  check<ValueError>(!per_sample_weights || per_sample_weights->sizes() == input.sizes(),
                    "embedding_bag: The shape of per_sample_weights must match the shape of input, got ",
                    per_sample_weights ? per_sample_weights->sizes() : Shape(), " and ", input.sizes());
  std::vector<int64_t> kept, kept_bags;
  for (std::size_t i = 0; i < ids.size(); ++i)
    if (bag_of[i] >= 0 && (!padding_idx || ids[i] != *padding_idx)) {
      kept.push_back(static_cast<int64_t>(i));
      kept_bags.push_back(bag_of[i]);
    }
  const Device device = weight.device();
  const auto to_index = [device](std::vector<int64_t>& v) {
    return from_blob(std::span<int64_t>(v), {static_cast<int64_t>(v.size())}).clone().to(device);
  };
  const Tensor<int64_t> positions = to_index(kept), bag = to_index(kept_bags);
  Tensor<T> rows = weight.index_select(0, input.reshape({-1}).to(device).index_select(0, positions));
  if (per_sample_weights) rows = rows * per_sample_weights->reshape({-1}).index_select(0, positions).unsqueeze(1);
  const Tensor<T> zero = zeros<T>({bags, weight.size(1)}, {.device = device});
  if (mode == "max")
    return zero.scatter_reduce(0, bag.unsqueeze(1).expand(rows.sizes()).contiguous(), rows, "amax", false);
  const Tensor<T> sums = zero.index_add(0, bag, rows);
  if (mode == "sum") return sums;
  std::vector<T> counts(static_cast<std::size_t>(bags), T(0));
  for (int64_t b : kept_bags) counts[static_cast<std::size_t>(b)] += T(1);
  for (T& c : counts) c = c > T(0) ? c : T(1);
  return sums / from_blob(std::span<T>(counts), {bags, 1}).clone().to(device);
}

/// (..., num_classes) with a 1 at each index (F.one_hot); num_classes -1
/// takes max + 1.
inline Tensor<int64_t> one_hot(const Tensor<int64_t>& input, int64_t num_classes = -1) {
  if (input.numel() > 0)
    tensorlib::detail::check<ValueError>(input.min().item() >= 0, "one_hot: Class values must be non-negative.");
  if (num_classes == -1) {
    tensorlib::detail::check<ValueError>(input.numel() > 0,
                                         "one_hot: Can not infer total number of classes from empty tensor.");
    num_classes = input.max().item() + 1;
  }
  if (input.numel() > 0)
    tensorlib::detail::check<ValueError>(input.max().item() < num_classes,
                                         "one_hot: Class values must be smaller "
                                         "than num_classes.");
  const Tensor<int64_t> classes = arange<int64_t>(0, num_classes, 1, {.device = input.device()});
  return Tensor<int64_t>(cast<int64_t>(eq(input.unsqueeze(-1), classes)));
}

/// a sigmoid(b) for the halves a, b of `dim` (F.glu).
template <Element T>
Tensor<T> glu(const Tensor<T>& input, int64_t dim = -1) {
  tensorlib::detail::check<ShapeError>(input.dim() > 0,
                                       "glu: glu does not support scalars because halving size "
                                       "must be even");
  const int64_t d = dim < 0 ? dim + input.dim() : dim;
  tensorlib::detail::check<ShapeError>(input.size(d) % 2 == 0, "glu: Halving dimension must be even, but dimension ", d,
                                       " is size ", input.size(d));
  const int64_t half = input.size(d) / 2;
  return input.narrow(d, 0, half) * sigmoid(input.narrow(d, half, half));
}

/// softmax(-input, dim) (F.softmin).
template <Element T>
Tensor<T> softmin(const Tensor<T>& input, int64_t dim) {
  return softmax(Tensor<T>(-input), dim);
}

/// x where x >= 0, else weight x (F.prelu); weight has one element or one
/// per channel (dimension 1).
template <Element T>
Tensor<T> prelu(const Tensor<T>& input, const Tensor<T>& weight) {
  const int64_t channels = input.dim() >= 2 ? input.size(1) : 1;
  tensorlib::detail::check<ShapeError>(weight.numel() == 1 || weight.numel() == channels,
                                       "prelu: Mismatch of parameter numbers and input channel size. Found parameter "
                                       "numbers = ",
                                       weight.numel(), " and channel size = ", channels, ".");
  Shape along = Shape::filled(input.dim(), 1);
  if (weight.numel() > 1) along[1] = channels;
  const Tensor<T> w = weight.reshape(along);
  return where(gt(input, 0), input, w * input);  // x = 0 takes w's slope, as PyTorch's backward
}

/// Randomized leaky ReLU (F.rrelu): negative inputs scaled by a slope drawn
/// uniformly from [lower, upper] when training, by their mean otherwise.
template <Element T>
Tensor<T> rrelu(const Tensor<T>& input, double lower = 1.0 / 8, double upper = 1.0 / 3, bool training = false,
                Generator& gen = default_generator()) {
  tensorlib::detail::check<ValueError>(lower <= upper,
                                       "rrelu: Lower bound should be less than or equal to the upper "
                                       "bound");
  if (!training) return leaky_relu(input, (lower + upper) / 2);
  const Tensor<T> slope = Tensor<T>(rand<T>(input.sizes(), gen) * (upper - lower) + lower).to(input.device());
  return where(gt(input, 0), input, input * slope);
}

/// (N, C r^2, H, W) -> (N, C, H r, W r) (F.pixel_shuffle).
template <Element T>
Tensor<T> pixel_shuffle(const Tensor<T>& input, int64_t upscale_factor) {
  tensorlib::detail::check<ShapeError>(input.dim() >= 3,
                                       "pixel_shuffle expects input to have at least 3 dimensions, "
                                       "but got input with ",
                                       input.dim(), " dimension(s)");
  const int64_t r = upscale_factor, c = input.size(-3), h = input.size(-2), w = input.size(-1);
  tensorlib::detail::check<ValueError>(r > 0, "pixel_shuffle expects a positive upscale_factor, but got ", r);
  tensorlib::detail::check<ShapeError>(c % (r * r) == 0,
                                       "pixel_shuffle expects its input's 'channel' dimension to "
                                       "be divisible by the square of upscale_factor, but input.size(-3)=",
                                       c, " is not divisible by ", r * r);
  Shape lead(std::span<const int64_t>(input.sizes().begin(), input.sizes().end() - 3));
  const int64_t k = lead.size();
  Shape split = lead, out = lead;
  for (int64_t v : {c / (r * r), r, r, h, w}) split.push_back(v);
  for (int64_t v : {c / (r * r), h * r, w * r}) out.push_back(v);
  Shape perm;
  for (int64_t i = 0; i < k; ++i) perm.push_back(i);
  for (int64_t v : {0, 3, 1, 4, 2}) perm.push_back(k + v);
  return input.reshape(split).permute(perm).reshape(out);
}

/// (N, C, H r, W r) -> (N, C r^2, H, W) (F.pixel_unshuffle).
template <Element T>
Tensor<T> pixel_unshuffle(const Tensor<T>& input, int64_t downscale_factor) {
  tensorlib::detail::check<ShapeError>(input.dim() >= 3,
                                       "pixel_unshuffle expects input to have at least 3 "
                                       "dimensions, but got input with ",
                                       input.dim(), " dimension(s)");
  const int64_t r = downscale_factor, c = input.size(-3), h = input.size(-2), w = input.size(-1);
  tensorlib::detail::check<ValueError>(r > 0, "pixel_unshuffle expects a positive downscale_factor, but got ", r);
  tensorlib::detail::check<ShapeError>(h % r == 0 && w % r == 0,
                                       "pixel_unshuffle expects height and width to be "
                                       "divisible by downscale_factor, but got ",
                                       input.sizes(), " and ", r);
  Shape lead(std::span<const int64_t>(input.sizes().begin(), input.sizes().end() - 3));
  const int64_t k = lead.size();
  Shape split = lead, out = lead;
  for (int64_t v : {c, h / r, r, w / r, r}) split.push_back(v);
  for (int64_t v : {c * r * r, h / r, w / r}) out.push_back(v);
  Shape perm;
  for (int64_t i = 0; i < k; ++i) perm.push_back(i);
  for (int64_t v : {0, 2, 4, 1, 3}) perm.push_back(k + v);
  return input.reshape(split).permute(perm).reshape(out);
}

/// (N, g k, ...) -> channels regrouped as (k, g) (F.channel_shuffle).
template <Element T>
Tensor<T> channel_shuffle(const Tensor<T>& input, int64_t groups) {
  tensorlib::detail::check<ShapeError>(input.dim() > 2,
                                       "channel_shuffle: Number of dimensions of the input tensor "
                                       "must be greater than 2, but got ",
                                       input.dim());
  tensorlib::detail::check<ValueError>(groups > 0,
                                       "channel_shuffle: Number of groups to divide channels in must be "
                                       "positive. Value of groups:",
                                       groups);
  const int64_t c = input.size(1);
  tensorlib::detail::check<ShapeError>(c % groups == 0,
                                       "channel_shuffle: Number of channels must be divisible by "
                                       "groups. Got ",
                                       c, " channels and ", groups, " groups.");
  Shape split = {input.size(0), groups, c / groups};
  for (int64_t d = 2; d < input.dim(); ++d) split.push_back(input.size(d));
  return input.reshape(split).transpose(1, 2).reshape(input.sizes());
}

/// Zeroes elements with probability p and scales the rest by 1 / (1 - p)
/// while training (F.dropout); the identity otherwise.
template <Element T>
Tensor<T> dropout(const Tensor<T>& input, double p = 0.5, bool training = true, Generator& gen = default_generator()) {
  tensorlib::detail::check_dropout_p(p, "dropout");
  if (!training || p == 0) return input;
  return tensorlib::detail::scaled_keep(input, input.sizes(), p, gen);
}

/// Dropout of whole channels of (N, C, L) or (C, L) (F.dropout1d).
template <Element T>
Tensor<T> dropout1d(const Tensor<T>& input, double p = 0.5, bool training = true,
                    Generator& gen = default_generator()) {
  tensorlib::detail::check_dropout_p(p, "dropout1d");
  const Shape mask = tensorlib::detail::channel_mask_shape(input, 1, "dropout1d");
  return !training || p == 0 ? input : tensorlib::detail::scaled_keep(input, mask, p, gen);
}
/// Dropout of whole channels of (N, C, H, W) (F.dropout2d); a 3-D input is
/// read as (N, C, L), as PyTorch does.
template <Element T>
Tensor<T> dropout2d(const Tensor<T>& input, double p = 0.5, bool training = true,
                    Generator& gen = default_generator()) {
  tensorlib::detail::check_dropout_p(p, "dropout2d");
  // A 3-D input is (N, C, L), as PyTorch reads it (with a warning there).
  const Shape mask = input.dim() == 3 ? tensorlib::detail::channel_mask_shape(input, 1, "dropout2d")
                                      : tensorlib::detail::channel_mask_shape(input, 2, "dropout2d");
  return !training || p == 0 ? input : tensorlib::detail::scaled_keep(input, mask, p, gen);
}
/// Dropout of whole channels of (N, C, D, H, W) or (C, D, H, W) (F.dropout3d).
template <Element T>
Tensor<T> dropout3d(const Tensor<T>& input, double p = 0.5, bool training = true,
                    Generator& gen = default_generator()) {
  tensorlib::detail::check_dropout_p(p, "dropout3d");
  const Shape mask = tensorlib::detail::channel_mask_shape(input, 3, "dropout3d");
  return !training || p == 0 ? input : tensorlib::detail::scaled_keep(input, mask, p, gen);
}

/// Alpha dropout (F.alpha_dropout, for SELU networks): dropped elements
/// become SELU's negative saturation, then an affine map restores mean 0
/// and variance 1 (PyTorch's constants).
template <Element T>
Tensor<T> alpha_dropout(const Tensor<T>& input, double p = 0.5, bool training = false,
                        Generator& gen = default_generator()) {
  tensorlib::detail::check_dropout_p(p, "alpha_dropout");
  if (!training || p == 0) return input;
  if (p == 1) return input * T(0);
  return tensorlib::detail::alpha_keep(input, input.sizes(), p, gen);
}

/// Alpha dropout of whole channels (F.feature_alpha_dropout).
template <Element T>
Tensor<T> feature_alpha_dropout(const Tensor<T>& input, double p = 0.5, bool training = false,
                                Generator& gen = default_generator()) {
  tensorlib::detail::check_dropout_p(p, "feature_alpha_dropout");
  if (!training || p == 0) return input;
  if (p == 1) return input * T(0);
  tensorlib::detail::check<ShapeError>(input.dim() >= 2,
                                       "feature_alpha_dropout: Feature dropout requires at least 2 "
                                       "dimensions in the input");
  Shape mask = input.sizes();
  for (int64_t d = 2; d < input.dim(); ++d) mask[d] = 1;
  return tensorlib::detail::alpha_keep(input, mask, p, gen);
}

}  // namespace nn::functional
}  // namespace tensorlib
