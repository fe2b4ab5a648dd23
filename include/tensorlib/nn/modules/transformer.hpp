#pragma once
/// \file
/// `MultiheadAttention`, `TransformerEncoderLayer` and `TransformerEncoder`
/// (torch/nn/modules/activation.py and transformer.py), computed as
/// PyTorch's reference path (`F.multi_head_attention_forward` with
/// need_weights): one input projection matmul per operand, batched matmuls
/// over (N H) heads, an additive mask, softmax, dropout, the output
/// projection. Parameter names and shapes are PyTorch's (`in_proj_weight`,
/// `in_proj_bias`, `out_proj.weight`, ...), so their state dicts load.
///
/// Shapes: L target length, S source length, N batch, E embed_dim, H heads,
/// hd = E / H.

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>

#include "tensorlib/core/any_tensor.hpp"
#include "tensorlib/core/config.hpp"
#include "tensorlib/core/error.hpp"
#include "tensorlib/expr/functions.hpp"
#include "tensorlib/nn/functional/layers.hpp"
#include "tensorlib/nn/init.hpp"
#include "tensorlib/nn/module.hpp"
#include "tensorlib/nn/modules/container.hpp"
#include "tensorlib/nn/modules/dropout.hpp"
#include "tensorlib/nn/modules/linear.hpp"
#include "tensorlib/nn/modules/normalization.hpp"
#include "tensorlib/ops/factories.hpp"
#include "tensorlib/ops/join.hpp"
#include "tensorlib/ops/linalg.hpp"
#include "tensorlib/ops/pad.hpp"
#include "tensorlib/ops/softmax.hpp"

namespace tensorlib::nn {

namespace detail {

/// MultiheadAttention's output projection: a Linear that prints as
/// PyTorch's class of the same role.
template <class T>
class OutProjection : public Linear<T> {
 public:
  static constexpr std::string_view name = "NonDynamicallyQuantizableLinear";
  using Linear<T>::Linear;
};

/// A mask as an additive float tensor: a bool mask is -inf where true (the
/// position may not be attended), a float mask is added as it is.
template <class T>
Tensor<T> additive_mask(const AnyTensor& mask, const char* what) {
  if (mask.is<bool>()) {
    const Tensor<bool> m = mask.as<bool>();
    return zeros<T>(m.sizes(), {.device = m.device()}).masked_fill(m, -std::numeric_limits<T>::infinity());
  }
  tensorlib::detail::check<TypeError>(mask.is<T>(), "MultiheadAttention: ", what, " must be bool or of the ",
                                      "query's element type, got ", mask.dtype());
  return mask.as<T>();
}

}  // namespace detail

/// The options of MultiheadAttention, PyTorch's names and defaults; a
/// kdim or vdim of 0 means embed_dim.
struct MultiheadAttentionOptions {
  double dropout = 0.0;
  bool bias = true;
  /// Learned key and value rows appended to every sequence (`bias_k`, `bias_v`).
  bool add_bias_kv = false;
  /// A zero key and value row appended after the projections.
  bool add_zero_attn = false;
  int64_t kdim = 0;
  int64_t vdim = 0;
  bool batch_first = false;
};

/// `nn.MultiheadAttention(embed_dim, num_heads, dropout, bias, add_bias_kv,
/// add_zero_attn, kdim, vdim, batch_first)`. forward(query, key, value,
/// key_padding_mask, need_weights, attn_mask, average_attn_weights) gives
/// (output, weights); weights are undefined when need_weights is false.
/// Masks are bool (true: not attended) or additive floats. Keys and values
/// of other widths than the query's (kdim, vdim) have projections of their
/// own (`q_proj_weight`, `k_proj_weight`, `v_proj_weight` instead of
/// `in_proj_weight`), as in PyTorch.
template <Element T = float>
class MultiheadAttention : public Module<MultiheadAttention<T>, T> {
 public:
  int64_t embed_dim;
  int64_t kdim;
  int64_t vdim;
  int64_t num_heads;
  double dropout;
  bool batch_first;
  bool add_zero_attn;
  int64_t head_dim;
  Tensor<T> in_proj_weight;                               ///< (3 E, E) when kdim == vdim == E
  Tensor<T> q_proj_weight, k_proj_weight, v_proj_weight;  ///< (E, E), (E, kdim), (E, vdim) otherwise
  Tensor<T> in_proj_bias;                                 ///< (3 E)
  Tensor<T> bias_k, bias_v;                               ///< (1, 1, E) with add_bias_kv
  detail::OutProjection<T> out_proj;
  // Undefined members are skipped, so the keys are PyTorch's in either form.
  TENSORLIB_PARAMETERS(in_proj_weight, q_proj_weight, k_proj_weight, v_proj_weight, in_proj_bias, bias_k, bias_v)
  TENSORLIB_MODULES(out_proj)

  MultiheadAttention(int64_t embed, int64_t heads, const MultiheadAttentionOptions& options = {})
      : embed_dim(embed),
        kdim(options.kdim != 0 ? options.kdim : embed),
        vdim(options.vdim != 0 ? options.vdim : embed),
        num_heads(heads),
        dropout(options.dropout),
        batch_first(options.batch_first),
        add_zero_attn(options.add_zero_attn),
        head_dim(heads > 0 ? embed / heads : 0),
        out_proj(embed, embed, options.bias) {
    tensorlib::detail::check<ValueError>(heads > 0 && head_dim * heads == embed,
                                         "embed_dim must be divisible by num_heads");
    tensorlib::detail::check<ValueError>(kdim > 0 && vdim > 0, "MultiheadAttention: kdim and vdim must be positive, ",
                                         "got ", kdim, " and ", vdim);
    const auto parameter = [](Shape sizes) {
      Tensor<T> w = empty<T>(sizes);
      init::xavier_uniform_(w);
      return w.requires_grad_();
    };
    if (kdim == embed && vdim == embed) {
      in_proj_weight = parameter({3 * embed, embed});
    } else {
      q_proj_weight = parameter({embed, embed});
      k_proj_weight = parameter({embed, kdim});
      v_proj_weight = parameter({embed, vdim});
    }
    if (options.bias) {
      in_proj_bias = zeros<T>({3 * embed}).requires_grad_();
      NoGradGuard no_grad;
      out_proj.bias.zero_();
    }
    if (options.add_bias_kv) {
      for (Tensor<T>* b : {&bias_k, &bias_v}) {
        *b = empty<T>({1, 1, embed});
        init::xavier_normal_(*b);
        b->requires_grad_();
      }
    }
  }

  std::tuple<Tensor<T>, Tensor<T>> forward(const Tensor<T>& query, const Tensor<T>& key, const Tensor<T>& value,
                                           const std::optional<AnyTensor>& key_padding_mask = std::nullopt,
                                           bool need_weights = true,
                                           const std::optional<AnyTensor>& attn_mask = std::nullopt,
                                           bool average_attn_weights = true) const {
    using tensorlib::detail::check;
    const bool unbatched = query.dim() == 2;
    check<ValueError>(query.dim() == 2 || query.dim() == 3,
                      "query should be unbatched 2D or batched 3D tensor but received ", query.dim(),
                      "-D query tensor");
    check<ValueError>(key.dim() == query.dim() && value.dim() == query.dim(),
                      "MultiheadAttention: query, key and value must have the same number of dimensions");
    check<ValueError>(query.size(-1) == embed_dim, "was expecting embedding dimension of ", embed_dim, ", but got ",
                      query.size(-1));
    const auto time_major = [&](const Tensor<T>& t) {
      return unbatched ? t.unsqueeze(1) : batch_first ? t.transpose(0, 1) : t;
    };
    const Tensor<T> q_in = time_major(query), k_in = time_major(key), v_in = time_major(value);
    const int64_t l = q_in.size(0), n = q_in.size(1), s = k_in.size(0);
    const bool separate = !in_proj_weight.defined();
    if (separate) {
      check<ValueError>(k_in.size(0) == v_in.size(0) && k_in.size(1) == v_in.size(1), "key's sequence and batch dims ",
                        key.sizes(), " do not match value's ", value.sizes());
    } else {
      check<ValueError>(k_in.sizes() == v_in.sizes(), "key shape ", key.sizes(), " does not match value shape ",
                        value.sizes());
    }
    check<ValueError>(k_in.size(1) == n && k_in.size(2) == kdim && v_in.size(2) == vdim,
                      "MultiheadAttention: key and value must be (S, N, kdim) and (S, N, vdim) with the query's N, ",
                      "kdim ", kdim, " and vdim ", vdim, ", got ", key.sizes(), " and ", value.sizes());
    // Masks as additive (L, S) or (N H, L, S) and (N, S) tensors, checked
    // against the sequence lengths before any appended row (PyTorch's order).
    std::optional<Tensor<T>> attn, padding;
    if (attn_mask) {
      attn = detail::additive_mask<T>(*attn_mask, "attn_mask");
      const Shape two_d{l, s}, three_d{n * num_heads, l, s};
      check<ValueError>(attn->sizes() == two_d || attn->sizes() == three_d, "The shape of the attn_mask should be ",
                        two_d, " or ", three_d, ", but got ", attn->sizes());
    }
    if (key_padding_mask) {
      padding = detail::additive_mask<T>(*key_padding_mask, "key_padding_mask");
      const Shape expected = unbatched ? Shape{s} : Shape{n, s};
      check<ValueError>(padding->sizes() == expected, "expecting key_padding_mask shape of ", expected, ", but got ",
                        padding->sizes());
      padding = padding->view({n, s});
    }
    // One more key position, attended by every query: a zero column in the masks.
    int64_t source = s;
    const auto append_position = [&] {
      ++source;
      if (attn) attn = pad(*attn, {0, 1});
      if (padding) padding = pad(*padding, {0, 1});
    };
    // (len, N, width) -> (len, N, E)
    const auto project = [&](const Tensor<T>& x, int64_t part) {
      const Tensor<T> w = separate ? (part == 0   ? q_proj_weight
                                      : part == 1 ? k_proj_weight
                                                  : v_proj_weight)
                                   : in_proj_weight.narrow(0, part * embed_dim, embed_dim);
      return functional::linear(
          x, w,
          in_proj_bias.defined() ? std::optional(in_proj_bias.narrow(0, part * embed_dim, embed_dim)) : std::nullopt);
    };
    Tensor<T> kp = project(k_in, 1), vp = project(v_in, 2);
    if (bias_k.defined()) {
      kp = cat({kp, bias_k.expand({1, n, embed_dim})}, 0);
      vp = cat({vp, bias_v.expand({1, n, embed_dim})}, 0);
      append_position();
    }
    // (len, N, E) -> (N H, len, hd)
    const auto heads = [&](const Tensor<T>& x) {
      return x.reshape({x.size(0), n * num_heads, head_dim}).transpose(0, 1);
    };
    const Tensor<T> q = heads(project(q_in, 0));
    Tensor<T> k = heads(kp), v = heads(vp);
    if (add_zero_attn) {
      const Tensor<T> zero = zeros<T>({n * num_heads, 1, head_dim}, {.device = k.device()});
      k = cat({k, zero}, 1);
      v = cat({v, zero}, 1);
      append_position();
    }
    Tensor<T> logits = bmm(Tensor<T>(q * static_cast<T>(1 / std::sqrt(static_cast<double>(head_dim)))),
                           k.transpose(1, 2));  // (N H, L, S)
    if (attn) logits = logits + *attn;
    if (padding) {
      logits = Tensor<T>(logits.view({n, num_heads, l, source}) + padding->view({n, 1, 1, source}))
                   .view({n * num_heads, l, source});
    }
    Tensor<T> weights = softmax(logits, -1);
    if (dropout > 0 && this->training) weights = functional::dropout(weights, dropout, true);
    const Tensor<T> attended = bmm(weights, v);  // the weights returned are these, after dropout (PyTorch's)
    Tensor<T> out = out_proj(attended.transpose(0, 1).contiguous().view({l * n, embed_dim})).view({l, n, embed_dim});
    out = unbatched ? out.squeeze(1) : batch_first ? out.transpose(0, 1) : out;
    if (!need_weights) return {out, Tensor<T>()};
    weights = weights.view({n, num_heads, l, source});
    if (average_attn_weights) weights = weights.mean(1);
    return {out, unbatched ? weights.squeeze(0) : weights};
  }
};

/// The options of a TransformerEncoderLayer.
struct TransformerEncoderLayerOptions {
  int64_t dim_feedforward = 2048;
  double dropout = 0.1;
  /// "relu" or "gelu".
  std::string_view activation = "relu";
  double layer_norm_eps = 1e-5;
  bool batch_first = false;
  bool norm_first = false;
};

/// `nn.TransformerEncoderLayer(d_model, nhead, ...)`: self-attention and a
/// feed-forward block, each with a residual connection and a LayerNorm
/// (after, or before with norm_first). forward(src, src_mask,
/// src_key_padding_mask).
template <Element T = float>
class TransformerEncoderLayer : public Module<TransformerEncoderLayer<T>, T> {
 public:
  MultiheadAttention<T> self_attn;
  Linear<T> linear1;
  Dropout dropout;
  Linear<T> linear2;
  LayerNorm<T> norm1;
  LayerNorm<T> norm2;
  Dropout dropout1;
  Dropout dropout2;
  bool norm_first;
  std::string activation;
  TENSORLIB_MODULES(self_attn, linear1, dropout, linear2, norm1, norm2, dropout1, dropout2)

  TransformerEncoderLayer(int64_t d_model, int64_t nhead, const TransformerEncoderLayerOptions& o = {})
      : self_attn(d_model, nhead, {.dropout = o.dropout, .batch_first = o.batch_first}),
        linear1(d_model, o.dim_feedforward),
        dropout(o.dropout),
        linear2(o.dim_feedforward, d_model),
        norm1({d_model}, o.layer_norm_eps),
        norm2({d_model}, o.layer_norm_eps),
        dropout1(o.dropout),
        dropout2(o.dropout),
        norm_first(o.norm_first),
        activation(o.activation) {
    tensorlib::detail::check<ValueError>(activation == "relu" || activation == "gelu",
                                         "activation should be relu/gelu, not ", activation);
  }

  Tensor<T> forward(const Tensor<T>& src, const std::optional<AnyTensor>& src_mask = std::nullopt,
                    const std::optional<AnyTensor>& src_key_padding_mask = std::nullopt) const {
    const auto attention = [&](const Tensor<T>& x) {
      return dropout1(std::get<0>(self_attn(x, x, x, src_key_padding_mask, false, src_mask)));
    };
    const auto feed_forward = [&](const Tensor<T>& x) {
      const Tensor<T> h = linear1(x);
      return dropout2(linear2(dropout(activation == "relu" ? Tensor<T>(relu(h)) : Tensor<T>(gelu(h)))));
    };
    if (norm_first) {
      const Tensor<T> x = src + attention(norm1(src));
      return x + feed_forward(norm2(x));
    }
    const Tensor<T> x = norm1(Tensor<T>(src + attention(src)));
    return norm2(Tensor<T>(x + feed_forward(x)));
  }
};

/// `nn.TransformerEncoder(encoder_layer, num_layers, norm)`: num_layers deep
/// copies of `layer` (so every layer starts from the same weights, as in
/// PyTorch) and an optional final LayerNorm.
template <Element T = float>
class TransformerEncoder : public Module<TransformerEncoder<T>, T> {
 public:
  ModuleList<TransformerEncoderLayer<T>> layers;
  std::optional<LayerNorm<T>> norm;
  int64_t num_layers;
  TENSORLIB_MODULES(layers, norm)

  TransformerEncoder(const TransformerEncoderLayer<T>& layer, int64_t count,
                     std::optional<LayerNorm<T>> final_norm = std::nullopt)
      : norm(std::move(final_norm)), num_layers(count) {
    for (int64_t i = 0; i < count; ++i) layers.append(layer.clone());
  }

  Tensor<T> forward(const Tensor<T>& src, const std::optional<AnyTensor>& mask = std::nullopt,
                    const std::optional<AnyTensor>& src_key_padding_mask = std::nullopt) const {
    Tensor<T> x = src;
    for (const auto& layer : layers) x = layer(x, mask, src_key_padding_mask);
    return norm ? (*norm)(x) : x;
  }
};

}  // namespace tensorlib::nn
