#pragma once
/// \file
/// Samplers (torch.utils.data.sampler): the order in which an epoch visits
/// a dataset. A `Sampler` gives that order for a dataset of n examples as a
/// tensor of indices (`order(n)`); the random ones draw from a `Generator`,
/// so an epoch's order is reproducible from its seed.

#include <concepts>
#include <cstdint>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "tensorlib/core/error.hpp"
#include "tensorlib/core/generator.hpp"
#include "tensorlib/core/tensor.hpp"
#include "tensorlib/ops/factories.hpp"
#include "tensorlib/ops/index_ops.hpp"
#include "tensorlib/ops/join.hpp"
#include "tensorlib/ops/random.hpp"

namespace tensorlib::data {

/// Gives each epoch's order of the indices of a dataset of n examples. A
/// sampler whose order is not n long also says how long it is (`size(n)`),
/// which `DataLoader::size()` reports.
template <class S>
concept Sampler = requires(S& s, int64_t n) {
  { s.order(n) } -> std::same_as<Tensor<int64_t>>;
};

/// `SequentialSampler`: 0, 1, ..., n - 1.
struct SequentialSampler {
  Tensor<int64_t> order(int64_t n) const { return arange<int64_t>(n); }
};

/// `RandomSampler(replacement, num_samples, generator)`: a permutation of
/// the indices each epoch; with replacement, num_samples uniform draws;
/// without, num_samples past n repeats whole permutations (PyTorch's).
class RandomSampler {
 public:
  explicit RandomSampler(bool with_replacement = false, std::optional<int64_t> samples = std::nullopt,
                         Generator& gen = default_generator())
      : replacement(with_replacement), num_samples(samples), generator(&gen) {
    tensorlib::detail::check<ValueError>(
        !samples || *samples > 0,
        "num_samples should be a positive integer value, but got num_samples=", samples.value_or(0));
  }
  int64_t size(int64_t n) const { return num_samples.value_or(n); }
  Tensor<int64_t> order(int64_t n) const {
    const int64_t count = size(n);
    if (n == 0) return arange<int64_t>(0);
    if (replacement) return randint<int64_t>(0, n, {count}, *generator);
    std::vector<Tensor<int64_t>> parts;
    for (int64_t i = 0; i < count / n; ++i) parts.push_back(randperm<int64_t>(n, *generator));
    if (count % n) parts.push_back(randperm<int64_t>(n, *generator).slice(0, 0, count % n));
    return parts.size() == 1 ? parts[0] : cat(parts, 0);
  }

  bool replacement;
  std::optional<int64_t> num_samples;
  Generator* generator;
};

/// `SubsetRandomSampler(indices)`: the given indices in a random order each
/// epoch.
class SubsetRandomSampler {
 public:
  explicit SubsetRandomSampler(std::vector<int64_t> subset, Generator& gen = default_generator())
      : indices(std::move(subset)), generator(&gen) {}
  int64_t size(int64_t) const { return static_cast<int64_t>(indices.size()); }
  Tensor<int64_t> order(int64_t n) const {
    for (const int64_t i : indices)
      tensorlib::detail::check<IndexError>(i >= 0 && i < n, "SubsetRandomSampler: index ", i,
                                           " is out of range for a dataset of ", n);
    std::vector<int64_t> copy = indices;
    const auto k = static_cast<int64_t>(copy.size());
    const Tensor<int64_t> all = from_blob(std::span<int64_t>(copy), {k}).clone();
    return all.index_select(0, randperm<int64_t>(all.numel(), *generator));
  }

  std::vector<int64_t> indices;
  Generator* generator;
};

}  // namespace tensorlib::data
