#pragma once
/// \file
/// `DataLoader<Dataset, Sampler, Collate>` (torch.utils.data.DataLoader):
/// batches of a dataset in the order a sampler gives, one epoch per range
/// loop:
///
///     tl::data::DataLoader loader(tl::data::TensorDataset(images, labels),
///                                 {.batch_size = 64, .shuffle = true});
///     for (auto [x, y] : loader) { ... }
///
/// A `BatchDataset` is asked for each batch at once (`get_batch`, one
/// `index_select` per tensor for a TensorDataset); any other dataset gives
/// its examples one by one to the collate function. Loading runs on the
/// calling thread (no worker processes: the ops a batch needs are already
/// parallel).

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <type_traits>
#include <utility>
#include <vector>

#include "tensorlib/core/error.hpp"
#include "tensorlib/core/generator.hpp"
#include "tensorlib/core/tensor.hpp"
#include "tensorlib/data/collate.hpp"
#include "tensorlib/data/dataset.hpp"
#include "tensorlib/data/sampler.hpp"

namespace tensorlib::data {

/// The options of a DataLoader.
struct DataLoaderOptions {
  int64_t batch_size = 1;
  /// Reshuffle every epoch (the default sampler only).
  bool shuffle = false;
  /// Leave out the last batch when it is smaller than batch_size.
  bool drop_last = false;
  /// The shuffling generator (default: the global one).
  Generator* generator = nullptr;
};

namespace detail {

/// The batch of `indices`: one `get_batch`, or the collated examples.
template <class D, class C>
auto load_batch(const D& dataset, const C& collate, const Tensor<int64_t>& indices) {
  if constexpr (BatchDataset<D>) {
    return dataset.get_batch(indices);
  } else {
    std::vector<std::remove_cvref_t<decltype(dataset.get(int64_t{0}))>> examples;
    examples.reserve(static_cast<std::size_t>(indices.numel()));
    const Tensor<int64_t> host = indices.cpu().contiguous();
    for (int64_t i = 0; i < host.numel(); ++i) examples.push_back(dataset.get(host.data_ptr()[i]));
    return collate(examples);
  }
}

}  // namespace detail

/// The sampler a DataLoader uses when given none: sequential, or random
/// when `shuffle` is set.
class DefaultSampler {
 public:
  DefaultSampler(bool shuffle, Generator* gen) : shuffle_(shuffle), generator_(gen) {}
  Tensor<int64_t> order(int64_t n) const {
    if (!shuffle_) return SequentialSampler{}.order(n);
    return RandomSampler(false, std::nullopt, generator_ ? *generator_ : default_generator()).order(n);
  }

 private:
  bool shuffle_;
  Generator* generator_;
};

/// Batches of `D` in the order of `S`, collated by `C`.
template <Dataset D, Sampler S = DefaultSampler, class C = DefaultCollate>
class DataLoader {
 public:
  /// With the default sampler (`options.shuffle` chooses it).
  explicit DataLoader(D dataset, const DataLoaderOptions& options = {},
                      C collate = {}) requires std::same_as<S, DefaultSampler>
      : dataset_(std::move(dataset)),
        sampler_(options.shuffle, options.generator),
        collate_(std::move(collate)),
        options_(checked(options)) {}
  /// With a sampler of one's own; `shuffle` must then be false.
  DataLoader(D dataset, S sampler, const DataLoaderOptions& options = {}, C collate = {})
      : dataset_(std::move(dataset)), sampler_(std::move(sampler)), collate_(std::move(collate)), options_(options) {
    tensorlib::detail::check<ValueError>(!options.shuffle, "sampler option is mutually exclusive with shuffle");
    checked(options);
  }

  /// One batch: what `get_batch` or the collate function gives.
  using Batch = decltype(detail::load_batch(std::declval<const D&>(), std::declval<const C&>(),
                                            std::declval<const Tensor<int64_t>&>()));

  /// Walks one epoch; batches are loaded when dereferenced. The epoch ends
  /// after the batches of the order its `begin()` drew.
  class Iterator {
   public:
    using iterator_category = std::input_iterator_tag;
    using value_type = Batch;
    using difference_type = std::ptrdiff_t;

    /// The end of every epoch.
    Iterator() = default;
    Iterator(const DataLoader* loader, Tensor<int64_t> order)
        : loader_(loader), order_(std::move(order)), batches_(loader->batches(order_.numel())) {}
    Batch operator*() const {
      const int64_t size = loader_->options_.batch_size;
      const int64_t start = batch_ * size;
      return detail::load_batch(loader_->dataset_, loader_->collate_,
                                order_.slice(0, start, start + std::min(size, order_.numel() - start)));
    }
    Iterator& operator++() {
      ++batch_;
      return *this;
    }
    void operator++(int) { ++batch_; }
    friend bool operator==(const Iterator& a, const Iterator& b) { return a.done() && b.done(); }

   private:
    bool done() const { return loader_ == nullptr || batch_ >= batches_; }

    const DataLoader* loader_ = nullptr;
    Tensor<int64_t> order_;
    int64_t batches_ = 0;
    int64_t batch_ = 0;
  };

  /// Starts an epoch: draws the sampler's order.
  Iterator begin() const { return Iterator(this, sampler_.order(dataset_.size())); }
  Iterator end() const { return Iterator(); }

  /// The number of batches in an epoch (`len(loader)`).
  int64_t size() const { return batches(sampler_size()); }
  const D& dataset() const { return dataset_; }
  const S& sampler() const { return sampler_; }

 private:
  static const DataLoaderOptions& checked(const DataLoaderOptions& options) {
    tensorlib::detail::check<ValueError>(
        options.batch_size > 0,
        "batch_size should be a positive integer value, but got batch_size=", options.batch_size);
    return options;
  }
  /// The sampler's length for this dataset (`len(sampler)`): its `size(n)`
  /// when it has one, else the dataset's size.
  int64_t sampler_size() const {
    if constexpr (requires { sampler_.size(dataset_.size()); }) {
      return sampler_.size(dataset_.size());
    } else {
      return dataset_.size();
    }
  }
  int64_t batches(int64_t samples) const {
    const int64_t b = options_.batch_size;
    return samples / b + (!options_.drop_last && samples % b != 0);
  }
  D dataset_;
  /// Mutable: a sampler may keep state between epochs.
  mutable S sampler_;
  C collate_;
  DataLoaderOptions options_;
};

}  // namespace tensorlib::data
