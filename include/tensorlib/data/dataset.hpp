#pragma once
/// \file
/// Datasets (torch.utils.data): the `Dataset` concept, an indexable
/// collection of examples (`size()` and `get(i)`), the `BatchDataset`
/// refinement that also fetches many examples at once (`get_batch(indices)`,
/// PyTorch's `__getitems__`), and `TensorDataset`, rows of tensors that share
/// their first dimension.

#include <concepts>
#include <cstdint>
#include <tuple>
#include <utility>

#include "tensorlib/core/error.hpp"
#include "tensorlib/core/tensor.hpp"
#include "tensorlib/ops/index_ops.hpp"

namespace tensorlib::data {

/// An indexable dataset: `size()` examples, `get(i)` the i-th.
template <class D>
concept Dataset = requires(const D& d, int64_t i) {
  { d.size() } -> std::convertible_to<int64_t>;
  d.get(i);
};

/// A dataset that also returns a whole batch for a tensor of indices, which
/// the DataLoader then uses instead of fetching and collating one example
/// at a time.
template <class D>
concept BatchDataset = Dataset<D> && requires(const D& d, const Tensor<int64_t>& indices) {
  d.get_batch(indices);
};

/// `TensorDataset(tensors...)`: example i is the tuple of row i of each
/// tensor; a batch is one `index_select` per tensor.
template <class... Ts>
class TensorDataset {
 public:
  static_assert(sizeof...(Ts) > 0, "TensorDataset: needs at least one tensor");

  explicit TensorDataset(Tensor<Ts>... tensors) : tensors_(std::move(tensors)...) {
    const int64_t n = std::get<0>(tensors_).dim() > 0 ? std::get<0>(tensors_).size(0) : -1;
    std::apply(
        [&](const auto&... t) {
          tensorlib::detail::check<ShapeError>(((t.dim() > 0 && t.size(0) == n) && ...),
                                               "Size mismatch between tensors");
        },
        tensors_);
  }
  int64_t size() const { return std::get<0>(tensors_).size(0); }
  std::tuple<Tensor<Ts>...> get(int64_t i) const {
    tensorlib::detail::check<IndexError>(i >= 0 && i < size(), "TensorDataset: index ", i,
                                         " is out of range for a dataset of ", size());
    return std::apply([&](const auto&... t) { return std::tuple<Tensor<Ts>...>(t.select(0, i)...); }, tensors_);
  }
  std::tuple<Tensor<Ts>...> get_batch(const Tensor<int64_t>& indices) const {
    return std::apply([&](const auto&... t) { return std::tuple<Tensor<Ts>...>(t.index_select(0, indices)...); },
                      tensors_);
  }
  const std::tuple<Tensor<Ts>...>& tensors() const { return tensors_; }

 private:
  std::tuple<Tensor<Ts>...> tensors_;
};

}  // namespace tensorlib::data
