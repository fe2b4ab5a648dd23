#pragma once
/// \file
/// `TransformerDecoderLayer`, `TransformerDecoder` and `Transformer`
/// (torch/nn/modules/transformer.py), built on nn/modules/transformer.hpp's
/// attention and encoder. Parameter names, order and initialization are
/// PyTorch's, so their state dicts load.
///
/// Shapes: T target length, S source length, N batch, E d_model.

#include <cstdint>
#include <limits>
#include <optional>
#include <string>

#include "tensorlib/core/any_tensor.hpp"
#include "tensorlib/core/config.hpp"
#include "tensorlib/core/error.hpp"
#include "tensorlib/nn/init.hpp"
#include "tensorlib/nn/module.hpp"
#include "tensorlib/nn/modules/container.hpp"
#include "tensorlib/nn/modules/dropout.hpp"
#include "tensorlib/nn/modules/linear.hpp"
#include "tensorlib/nn/modules/normalization.hpp"
#include "tensorlib/nn/modules/transformer.hpp"
#include "tensorlib/ops/factories.hpp"
#include "tensorlib/ops/triangular.hpp"

namespace tensorlib::nn {

/// The options of a TransformerDecoderLayer (an encoder layer's).
using TransformerDecoderLayerOptions = TransformerEncoderLayerOptions;

/// `nn.TransformerDecoderLayer(d_model, nhead, ...)`: self-attention over the
/// target, attention over the encoder's output (memory) and a feed-forward
/// block, each with a residual connection and a LayerNorm (after, or before
/// with norm_first). forward(tgt, memory, tgt_mask, memory_mask,
/// tgt_key_padding_mask, memory_key_padding_mask).
template <Element T = float>
class TransformerDecoderLayer : public Module<TransformerDecoderLayer<T>, T> {
 public:
  MultiheadAttention<T> self_attn;
  MultiheadAttention<T> multihead_attn;
  Linear<T> linear1;
  Dropout dropout;
  Linear<T> linear2;
  LayerNorm<T> norm1;
  LayerNorm<T> norm2;
  LayerNorm<T> norm3;
  Dropout dropout1;
  Dropout dropout2;
  Dropout dropout3;
  bool norm_first;
  std::string activation;
  TENSORLIB_MODULES(self_attn, multihead_attn, linear1, dropout, linear2, norm1, norm2, norm3, dropout1, dropout2,
                    dropout3)

  TransformerDecoderLayer(int64_t d_model, int64_t nhead, const TransformerDecoderLayerOptions& o = {})
      : self_attn(d_model, nhead, {.dropout = o.dropout, .batch_first = o.batch_first}),
        multihead_attn(d_model, nhead, {.dropout = o.dropout, .batch_first = o.batch_first}),
        linear1(d_model, o.dim_feedforward),
        dropout(o.dropout),
        linear2(o.dim_feedforward, d_model),
        norm1({d_model}, o.layer_norm_eps),
        norm2({d_model}, o.layer_norm_eps),
        norm3({d_model}, o.layer_norm_eps),
        dropout1(o.dropout),
        dropout2(o.dropout),
        dropout3(o.dropout),
        norm_first(o.norm_first),
        activation(o.activation) {
    tensorlib::detail::check<ValueError>(activation == "relu" || activation == "gelu",
                                         "activation should be relu/gelu, not ", activation);
  }

  Tensor<T> forward(const Tensor<T>& tgt, const Tensor<T>& memory,
                    const std::optional<AnyTensor>& tgt_mask = std::nullopt,
                    const std::optional<AnyTensor>& memory_mask = std::nullopt,
                    const std::optional<AnyTensor>& tgt_key_padding_mask = std::nullopt,
                    const std::optional<AnyTensor>& memory_key_padding_mask = std::nullopt) const {
    const auto self_block = [&](const Tensor<T>& x) {
      return dropout1(std::get<0>(self_attn(x, x, x, tgt_key_padding_mask, false, tgt_mask)));
    };
    const auto memory_block = [&](const Tensor<T>& x) {
      return dropout2(std::get<0>(multihead_attn(x, memory, memory, memory_key_padding_mask, false, memory_mask)));
    };
    const auto feed_forward = [&](const Tensor<T>& x) {
      const Tensor<T> h = linear1(x);
      return dropout3(linear2(dropout(activation == "relu" ? Tensor<T>(relu(h)) : Tensor<T>(gelu(h)))));
    };
    if (norm_first) {
      Tensor<T> x = tgt + self_block(norm1(tgt));
      x = x + memory_block(norm2(x));
      return x + feed_forward(norm3(x));
    }
    Tensor<T> x = norm1(Tensor<T>(tgt + self_block(tgt)));
    x = norm2(Tensor<T>(x + memory_block(x)));
    return norm3(Tensor<T>(x + feed_forward(x)));
  }
};

/// `nn.TransformerDecoder(decoder_layer, num_layers, norm)`: num_layers deep
/// copies of `layer` and an optional final LayerNorm.
template <Element T = float>
class TransformerDecoder : public Module<TransformerDecoder<T>, T> {
 public:
  ModuleList<TransformerDecoderLayer<T>> layers;
  std::optional<LayerNorm<T>> norm;
  int64_t num_layers;
  TENSORLIB_MODULES(layers, norm)

  TransformerDecoder(const TransformerDecoderLayer<T>& layer, int64_t count,
                     std::optional<LayerNorm<T>> final_norm = std::nullopt)
      : norm(std::move(final_norm)), num_layers(count) {
    for (int64_t i = 0; i < count; ++i) layers.append(layer.clone());
  }

  Tensor<T> forward(const Tensor<T>& tgt, const Tensor<T>& memory,
                    const std::optional<AnyTensor>& tgt_mask = std::nullopt,
                    const std::optional<AnyTensor>& memory_mask = std::nullopt,
                    const std::optional<AnyTensor>& tgt_key_padding_mask = std::nullopt,
                    const std::optional<AnyTensor>& memory_key_padding_mask = std::nullopt) const {
    Tensor<T> x = tgt;
    for (const auto& layer : layers)
      x = layer(x, memory, tgt_mask, memory_mask, tgt_key_padding_mask, memory_key_padding_mask);
    return norm ? (*norm)(x) : x;
  }
};

/// The options of a Transformer, PyTorch's names and defaults.
struct TransformerOptions {
  int64_t d_model = 512;
  int64_t nhead = 8;
  int64_t num_encoder_layers = 6;
  int64_t num_decoder_layers = 6;
  int64_t dim_feedforward = 2048;
  double dropout = 0.1;
  /// "relu" or "gelu".
  std::string_view activation = "relu";
  double layer_norm_eps = 1e-5;
  bool batch_first = false;
  bool norm_first = false;
};

/// `nn.Transformer`: an encoder of num_encoder_layers and a decoder of
/// num_decoder_layers, each with a final LayerNorm; every parameter of two
/// or more dimensions is initialized xavier_uniform_ (PyTorch's
/// `_reset_parameters`). forward(src, tgt, src_mask, tgt_mask, memory_mask,
/// src_key_padding_mask, tgt_key_padding_mask, memory_key_padding_mask).
template <Element T = float>
class Transformer : public Module<Transformer<T>, T> {
 public:
  TransformerEncoder<T> encoder;
  TransformerDecoder<T> decoder;
  int64_t d_model;
  int64_t nhead;
  bool batch_first;
  TENSORLIB_MODULES(encoder, decoder)

  explicit Transformer(const TransformerOptions& o = {})
      : encoder(TransformerEncoderLayer<T>(o.d_model, o.nhead, layer_options(o)), o.num_encoder_layers,
                LayerNorm<T>({o.d_model}, o.layer_norm_eps)),
        decoder(TransformerDecoderLayer<T>(o.d_model, o.nhead, layer_options(o)), o.num_decoder_layers,
                LayerNorm<T>({o.d_model}, o.layer_norm_eps)),
        d_model(o.d_model),
        nhead(o.nhead),
        batch_first(o.batch_first) {
    for (Tensor<T> p : this->parameters())
      if (p.dim() > 1) init::xavier_uniform_(p);
  }

  Tensor<T> forward(const Tensor<T>& src, const Tensor<T>& tgt, const std::optional<AnyTensor>& src_mask = std::nullopt,
                    const std::optional<AnyTensor>& tgt_mask = std::nullopt,
                    const std::optional<AnyTensor>& memory_mask = std::nullopt,
                    const std::optional<AnyTensor>& src_key_padding_mask = std::nullopt,
                    const std::optional<AnyTensor>& tgt_key_padding_mask = std::nullopt,
                    const std::optional<AnyTensor>& memory_key_padding_mask = std::nullopt) const {
    const bool batched = src.dim() == 3;
    const int batch_dim = batch_first ? 0 : 1;
    tensorlib::detail::check<ValueError>(!batched || (tgt.dim() == 3 && src.size(batch_dim) == tgt.size(batch_dim)),
                                         "the batch number of src and tgt must be equal");
    tensorlib::detail::check<ValueError>(src.size(-1) == d_model && tgt.size(-1) == d_model,
                                         "the feature number of src and tgt must be equal to d_model");
    const Tensor<T> memory = encoder(src, src_mask, src_key_padding_mask);
    return decoder(tgt, memory, tgt_mask, memory_mask, tgt_key_padding_mask, memory_key_padding_mask);
  }

  /// PyTorch's `Transformer.generate_square_subsequent_mask(sz)`: a (sz, sz)
  /// float mask, -inf above the diagonal (a position may not attend to later
  /// ones) and 0 elsewhere.
  static Tensor<T> generate_square_subsequent_mask(int64_t sz) {
    tensorlib::detail::check<ValueError>(sz >= 0, "generate_square_subsequent_mask: sz must be non-negative, got ", sz);
    return triu(full<T>({sz, sz}, -std::numeric_limits<T>::infinity()), 1);
  }

 private:
  static TransformerEncoderLayerOptions layer_options(const TransformerOptions& o) {
    return {.dim_feedforward = o.dim_feedforward,
            .dropout = o.dropout,
            .activation = o.activation,
            .layer_norm_eps = o.layer_norm_eps,
            .batch_first = o.batch_first,
            .norm_first = o.norm_first};
  }
};

}  // namespace tensorlib::nn
