#pragma once
/// \file
/// `Embedding` (torch/nn/modules/sparse.py): a lookup table of
/// `num_embeddings` rows, initialized from N(0, 1) with the padding row
/// zeroed.

#include <cstdint>
#include <optional>
#include <string>

#include "tensorlib/core/config.hpp"
#include "tensorlib/core/error.hpp"
#include "tensorlib/core/grad_mode.hpp"
#include "tensorlib/nn/functional/layers.hpp"
#include "tensorlib/nn/init.hpp"
#include "tensorlib/nn/module.hpp"
#include "tensorlib/ops/factories.hpp"

namespace tensorlib::nn {

/// The options of an embedding.
struct EmbeddingOptions {
  std::optional<int64_t> padding_idx = std::nullopt;
  std::optional<double> max_norm = std::nullopt;
  double norm_type = 2.0;
};

/// `nn.Embedding(num_embeddings, embedding_dim, ...)`: forward takes int64
/// indices and returns their rows.
template <Element T = float>
class Embedding : public Module<Embedding<T>, T> {
 public:
  int64_t num_embeddings;
  int64_t embedding_dim;
  std::optional<int64_t> padding_idx;
  std::optional<double> max_norm;
  double norm_type;
  Tensor<T> weight;
  TENSORLIB_PARAMETERS(weight)

  Embedding(int64_t num, int64_t dim, const EmbeddingOptions& options = {})
      : num_embeddings(num), embedding_dim(dim), max_norm(options.max_norm), norm_type(options.norm_type) {
    if (options.padding_idx) {
      const int64_t i = *options.padding_idx;
      tensorlib::detail::check<ValueError>(i < num && i >= -num, "Padding_idx must be within num_embeddings");
      padding_idx = i < 0 ? i + num : i;
    }
    weight = empty<T>({num, dim});
    init::normal_(weight);
    if (padding_idx) weight.select(0, *padding_idx).fill_(T(0));
    weight.requires_grad_();
  }
  Tensor<T> forward(const Tensor<int64_t>& input) const {
    return functional::embedding(input, weight, padding_idx, max_norm, norm_type);
  }
  std::string extra_repr() const {
    std::string s = std::to_string(num_embeddings) + ", " + std::to_string(embedding_dim);
    if (padding_idx) s += ", padding_idx=" + std::to_string(*padding_idx);
    if (max_norm) s += ", max_norm=" + detail::python_float(*max_norm);
    if (norm_type != 2.0) s += ", norm_type=" + detail::python_float(norm_type);
    return s;
  }
};

}  // namespace tensorlib::nn
