#pragma once
/// \file
/// `scaled_dot_product_attention` (PyTorch 2's F.scaled_dot_product_attention,
/// its reference formula: softmax(Q K^T scale + bias) V with a boolean or
/// additive mask, a causal mask, dropout), `gumbel_softmax`, and
/// `triplet_margin_with_distance_loss` (any distance function). Compositions
/// of recorded ops, so they differentiate on any device; no fused attention
/// kernel.

#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <string_view>

#include "tensorlib/core/error.hpp"
#include "tensorlib/core/generator.hpp"
#include "tensorlib/core/tensor.hpp"
#include "tensorlib/expr/functions.hpp"
#include "tensorlib/expr/operators.hpp"
#include "tensorlib/nn/functional/layers.hpp"
#include "tensorlib/nn/functional/loss.hpp"
#include "tensorlib/ops/distances.hpp"
#include "tensorlib/ops/factories.hpp"
#include "tensorlib/ops/linalg.hpp"
#include "tensorlib/ops/reduce.hpp"
#include "tensorlib/ops/softmax.hpp"
#include "tensorlib/ops/triangular.hpp"

namespace tensorlib {
namespace detail {

/// The attention logits Q K^T scale (..., L, S), the causal mask applied.
template <Element T>
Tensor<T> attention_logits(const Tensor<T>& query, const Tensor<T>& key, bool is_causal, std::optional<double> scale) {
  check<ShapeError>(query.dim() >= 2 && key.dim() >= 2 && query.size(-1) == key.size(-1),
                    "scaled_dot_product_attention: expected query (..., L, E) and key (..., S, E) with the same E, "
                    "got ",
                    query.sizes(), " and ", key.sizes());
  const double factor = scale.value_or(1.0 / std::sqrt(static_cast<double>(query.size(-1))));
  Tensor<T> logits = matmul(query, key.transpose(-2, -1)) * factor;
  if (is_causal) {
    const Tensor<bool> keep = ones<bool>({query.size(-2), key.size(-2)}, {.device = query.device()}).tril();
    logits = logits.masked_fill(Tensor<bool>(logical_not(keep)), -std::numeric_limits<T>::infinity());
  }
  return logits;
}

/// The logits of a call with an explicit mask, after its checks.
template <Element T>
Tensor<T> masked_attention_logits(const Tensor<T>& query, const Tensor<T>& key, double dropout_p, bool is_causal,
                                  std::optional<double> scale) {
  static_assert(is_floating<T>, "scaled_dot_product_attention: expected floating-point tensors");
  check<ValueError>(!is_causal,
                    "scaled_dot_product_attention: Explicit attn_mask should not be set when "
                    "is_causal=True");
  check_dropout_p(dropout_p, "scaled_dot_product_attention");
  return attention_logits(query, key, false, scale);
}

template <Element T>
Tensor<T> attend(const Tensor<T>& logits, const Tensor<T>& value, double dropout_p, Generator& gen) {
  Tensor<T> weights = softmax(logits, -1);
  if (dropout_p > 0) weights = nn::functional::dropout(weights, dropout_p, true, gen);
  return matmul(weights, value);
}

}  // namespace detail

namespace nn::functional {

/// softmax(query key^T scale + bias) value (F.scaled_dot_product_attention):
/// query (..., L, E), key (..., S, E), value (..., S, Ev); scale defaults
/// to 1 / sqrt(E); is_causal masks keys after each query. No mask here.
template <Element T>
Tensor<T> scaled_dot_product_attention(const Tensor<T>& query, const Tensor<T>& key, const Tensor<T>& value,
                                       double dropout_p = 0.0, bool is_causal = false,
                                       std::optional<double> scale = std::nullopt,
                                       Generator& gen = default_generator()) {
  static_assert(is_floating<T>, "scaled_dot_product_attention: expected floating-point tensors");
  tensorlib::detail::check_dropout_p(dropout_p, "scaled_dot_product_attention");
  return tensorlib::detail::attend(tensorlib::detail::attention_logits(query, key, is_causal, scale), value, dropout_p,
                                   gen);
}

/// With a boolean mask (broadcast to (..., L, S)): true where a query may
/// attend to a key.
template <Element T>
Tensor<T> scaled_dot_product_attention(const Tensor<T>& query, const Tensor<T>& key, const Tensor<T>& value,
                                       const Tensor<bool>& attn_mask, double dropout_p = 0.0, bool is_causal = false,
                                       std::optional<double> scale = std::nullopt,
                                       Generator& gen = default_generator()) {
  const Tensor<T> logits = tensorlib::detail::masked_attention_logits(query, key, dropout_p, is_causal, scale);
  return tensorlib::detail::attend(Tensor<T>(where(attn_mask, logits, -std::numeric_limits<T>::infinity())), value,
                                   dropout_p, gen);
}

/// With an additive float mask (broadcast to (..., L, S)).
template <Element T>
Tensor<T> scaled_dot_product_attention(const Tensor<T>& query, const Tensor<T>& key, const Tensor<T>& value,
                                       const Tensor<T>& attn_mask, double dropout_p = 0.0, bool is_causal = false,
                                       std::optional<double> scale = std::nullopt,
                                       Generator& gen = default_generator()) {
  const Tensor<T> logits = tensorlib::detail::masked_attention_logits(query, key, dropout_p, is_causal, scale);
  return tensorlib::detail::attend(Tensor<T>(logits + attn_mask), value, dropout_p, gen);
}

/// softmax((logits + g) / tau) with Gumbel noise g = -log(Exp(1))
/// (F.gumbel_softmax); hard gives the one-hot of its argmax with the soft
/// sample's gradient (straight-through).
template <Element T>
Tensor<T> gumbel_softmax(const Tensor<T>& logits, double tau = 1, bool hard = false, int64_t dim = -1,
                         Generator& gen = default_generator()) {
  static_assert(is_floating<T>, "gumbel_softmax: expected floating-point tensors");
  Tensor<T> noise = empty<T>(logits.sizes(), {.device = logits.device()});
  noise.exponential_(1, gen);
  const Tensor<T> soft = softmax(Tensor<T>((logits - log(noise)) / tau), dim);
  if (!hard) return soft;
  const Tensor<int64_t> index = soft.detach().argmax(dim, true);
  const Tensor<T> one = ones<T>(index.sizes(), {.device = logits.device()});
  const Tensor<T> hard_sample = zeros_like(soft.detach()).scatter(dim, index, one);
  return hard_sample - soft.detach() + soft;
}

/// max(d(a, p) - d(a, n) + margin, 0) with any distance function
/// (F.triplet_margin_with_distance_loss; pairwise_distance by default).
template <Element T>
Tensor<T> triplet_margin_with_distance_loss(
    const Tensor<T>& anchor, const Tensor<T>& positive, const Tensor<T>& negative,
    const std::function<Tensor<T>(const Tensor<T>&, const Tensor<T>&)>& distance_function = nullptr,
    double margin = 1.0, bool swap = false, std::string_view reduction = "mean") {
  tensorlib::detail::check<ValueError>(margin > 0,
                                       "triplet_margin_with_distance_loss: margin must be greater than 0, "
                                       "got ",
                                       margin);
  const auto distance = [&](const Tensor<T>& a, const Tensor<T>& b) {
    return distance_function ? distance_function(a, b) : pairwise_distance(a, b);
  };
  const Tensor<T> dp = distance(anchor, positive);
  Tensor<T> dn = distance(anchor, negative);
  if (swap) dn = minimum(dn, distance(positive, negative));
  return tensorlib::detail::reduce_loss(Tensor<T>(clamp(dp - dn + margin, 0, None)), reduction);
}

}  // namespace nn::functional
}  // namespace tensorlib
