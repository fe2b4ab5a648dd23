// tl::data: TensorDataset, the samplers, DefaultCollate and DataLoader, by
// laws: every epoch visits every example once (or as the sampler says),
// batch sizes and counts follow batch_size and drop_last, a seeded
// generator reproduces an epoch's order, the batch path (get_batch) and
// the example path (get + collate) give the same batches; and PyTorch's
// errors.

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <set>
#include <tuple>
#include <vector>

#include "fixtures.hpp"
#include "tensorlib/tensorlib.hpp"

namespace data = tl::data;

namespace {

// A dataset with only get(): its examples go through DefaultCollate.
struct Squares {
  int64_t n;
  int64_t size() const { return n; }
  std::tuple<tl::Tensor<float>, int64_t> get(int64_t i) const {
    return {tl::full<float>({2}, static_cast<float>(i * i)), i};
  }
};

std::vector<int64_t> values(const tl::Tensor<int64_t>& t) { return t.to_vector(); }

// A dataset that hands out references to examples it stores.
struct Stored {
  std::vector<tl::Tensor<float>> rows;
  int64_t size() const { return static_cast<int64_t>(rows.size()); }
  const tl::Tensor<float>& get(int64_t i) const { return rows[static_cast<std::size_t>(i)]; }
};

// A sampler with state: every epoch visits the next five indices of ten.
struct Window {
  int64_t start = 0;
  int64_t size(int64_t) const { return 5; }
  tl::Tensor<int64_t> order(int64_t n) {
    const int64_t first = start % n;
    start += 5;
    return tl::arange<int64_t>(first, std::min(first + 5, n));
  }
};

TEST_CASE("DataLoader: batches cover the dataset in order, the last one short unless dropped") {
  const auto x = tl::arange<float>(10).unsqueeze(1) * 10.f;
  const auto y = tl::arange<int64_t>(10);
  data::DataLoader loader(data::TensorDataset(tl::Tensor<float>(x), y), {.batch_size = 4});
  CHECK(loader.size() == 3);
  std::vector<int64_t> seen, sizes;
  for (const auto& [xb, yb] : loader) {
    sizes.push_back(yb.numel());
    CHECK(tl::equal(xb, tl::Tensor<float>(yb.to<float>().unsqueeze(1) * 10.f)));
    for (const int64_t v : values(yb)) seen.push_back(v);
  }
  CHECK(sizes == std::vector<int64_t>{4, 4, 2});
  CHECK(seen == values(tl::arange<int64_t>(10)));
  data::DataLoader dropping(data::TensorDataset{y}, {.batch_size = 4, .drop_last = true});
  CHECK(dropping.size() == 2);
  int64_t batches = 0;
  for (const auto& [yb] : dropping) {
    CHECK(yb.numel() == 4);
    ++batches;
  }
  CHECK(batches == 2);
}

TEST_CASE("DataLoader: shuffling visits every example once, reproducibly from a seed, anew each epoch") {
  const auto y = tl::arange<int64_t>(50);
  tl::Generator gen(3);
  data::DataLoader loader(data::TensorDataset{y}, {.batch_size = 8, .shuffle = true, .generator = &gen});
  const auto epoch = [&] {
    std::vector<int64_t> order;
    for (const auto& [yb] : loader)
      for (const int64_t v : values(yb)) order.push_back(v);
    return order;
  };
  const auto first = epoch(), second = epoch();
  CHECK(std::set<int64_t>(first.begin(), first.end()).size() == 50);
  CHECK(first != second);
  CHECK(first != values(y));
  gen.manual_seed(3);
  CHECK(epoch() == first);
}

TEST_CASE("DataLoader: a dataset of examples is collated as a batch dataset would be") {
  data::DataLoader loader(Squares{7}, {.batch_size = 3});
  CHECK(loader.size() == 3);
  int64_t at = 0;
  for (const auto& [xb, ib] : loader) {
    CHECK(xb.sizes() == tl::Shape{ib.numel(), 2});
    for (const int64_t i : values(ib)) {
      CHECK(i == at++);
      CHECK(xb.select(0, i % 3).select(0, 1).item() == static_cast<float>(i * i));
    }
  }
  CHECK(at == 7);
  // DefaultCollate: numbers become tensors of PyTorch's types.
  const auto bools = data::DefaultCollate{}(std::vector<bool>{true, false});
  CHECK(bools.sizes() == tl::Shape{2});
  const auto doubles = data::DefaultCollate{}(std::vector<float>{1.5f, 2.f});
  CHECK(std::is_same_v<decltype(doubles), const tl::Tensor<double>>);
  const auto pairs = data::DefaultCollate{}(
      std::vector<std::pair<int, tl::Tensor<float>>>{{1, tl::ones<float>({2})}, {2, tl::zeros<float>({2})}});
  CHECK(values(std::get<0>(pairs)) == std::vector<int64_t>{1, 2});
  CHECK(std::get<1>(pairs).sizes() == tl::Shape{2, 2});
}

TEST_CASE("DataLoader: datasets of references, samplers with state, orders shorter than the dataset") {
  data::DataLoader stored(Stored{{tl::ones<float>({2}), tl::zeros<float>({2}), tl::ones<float>({2})}},
                          {.batch_size = 2});
  std::vector<int64_t> sizes;
  for (const auto& batch : stored) sizes.push_back(batch.size(0));
  CHECK(sizes == std::vector<int64_t>{2, 1});
  data::DataLoader windows(data::TensorDataset{tl::arange<int64_t>(10)}, Window{}, {.batch_size = 3});
  CHECK(windows.size() == 2);  // the sampler's length, not the dataset's
  std::vector<int64_t> first, second;
  for (const auto& [b] : windows)
    for (const int64_t v : values(b)) first.push_back(v);
  for (const auto& [b] : windows)
    for (const int64_t v : values(b)) second.push_back(v);
  CHECK(first == std::vector<int64_t>{0, 1, 2, 3, 4});
  CHECK(second == std::vector<int64_t>{5, 6, 7, 8, 9});
  // Batch counts never overflow.
  data::DataLoader huge(data::TensorDataset{tl::arange<int64_t>(3)}, {.batch_size = INT64_MAX});
  CHECK(huge.size() == 1);
  for (const auto& [b] : huge) CHECK(b.numel() == 3);
}

TEST_CASE("samplers: sequential, random with and without replacement, subsets") {
  tl::Generator gen(9);
  CHECK(values(data::SequentialSampler{}.order(4)) == std::vector<int64_t>{0, 1, 2, 3});
  const auto perm = values(data::RandomSampler(false, std::nullopt, gen).order(20));
  CHECK(std::set<int64_t>(perm.begin(), perm.end()).size() == 20);
  // num_samples past n repeats whole permutations.
  const auto longer = values(data::RandomSampler(false, 25, gen).order(10));
  CHECK(longer.size() == 25);
  CHECK(std::set<int64_t>(longer.begin(), longer.begin() + 10).size() == 10);
  CHECK(std::set<int64_t>(longer.begin() + 10, longer.begin() + 20).size() == 10);
  const auto drawn = values(data::RandomSampler(true, 1000, gen).order(3));
  CHECK(drawn.size() == 1000);
  CHECK(*std::min_element(drawn.begin(), drawn.end()) == 0);
  CHECK(*std::max_element(drawn.begin(), drawn.end()) == 2);
  data::DataLoader subset(data::TensorDataset{tl::Tensor<int64_t>(tl::arange<int64_t>(10) * int64_t{3})},
                          data::SubsetRandomSampler({1, 4, 7}, gen), {.batch_size = 2});
  CHECK(subset.size() == 2);
  std::vector<int64_t> got;
  for (const auto& [b] : subset)
    for (const int64_t v : values(b)) got.push_back(v);
  std::sort(got.begin(), got.end());
  CHECK(got == std::vector<int64_t>{3, 12, 21});
}

TEST_CASE("data: PyTorch's errors") {
  CHECK(fixtures::error_message([] {
          data::TensorDataset(tl::zeros<float>({3, 2}), tl::zeros<int64_t>({4}));
        }) == "Size mismatch between tensors");
  CHECK(fixtures::error_message([] {
          data::DataLoader(data::TensorDataset(tl::zeros<float>({3})), {.batch_size = 0});
        }) == "batch_size should be a positive integer value, but got batch_size=0");
  CHECK(fixtures::error_message([] {
          data::DataLoader(data::TensorDataset(tl::zeros<float>({3})), data::SequentialSampler{}, {.shuffle = true});
        }) == "sampler option is mutually exclusive with shuffle");
  CHECK(fixtures::error_message([] { (void)data::TensorDataset(tl::zeros<float>({3})).get(3); }) ==
        "TensorDataset: index 3 is out of range for a dataset of 3");
  CHECK(fixtures::error_message([] { (void)data::SubsetRandomSampler({5}).order(3); }) ==
        "SubsetRandomSampler: index 5 is out of range for a dataset of 3");
}

}  // namespace
