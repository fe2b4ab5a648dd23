// multinomial: the distributions of its samples (with and without
// replacement), zero weights, shapes, reproducibility and PyTorch's errors.
// The samples come from tensorlib's streams, not PyTorch's, so the tests
// check laws: frequencies within 5 standard deviations of the probabilities.

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include "fixtures.hpp"

namespace {

// Checks that `count` of `n` draws fits probability `p` (5 sigma, at least 1).
void check_frequency(int64_t count, int64_t n, double p, const char* what) {
  CAPTURE(what);
  CAPTURE(p);
  const double sigma = std::sqrt(p * (1 - p) / static_cast<double>(n));
  CHECK(std::fabs(static_cast<double>(count) / static_cast<double>(n) - p) <= std::max(5 * sigma, 1.0 / n));
}

std::vector<int64_t> counts(const std::vector<int64_t>& samples, int64_t categories) {
  std::vector<int64_t> c(static_cast<std::size_t>(categories), 0);
  for (const int64_t s : samples) {
    REQUIRE(s >= 0);
    REQUIRE(s < categories);
    ++c[static_cast<std::size_t>(s)];
  }
  return c;
}

}  // namespace

TEST_CASE("multinomial with replacement draws each category in proportion to its weight, never a zero weight") {
  tl::Generator gen(1);
  const std::vector<double> p = {0.1, 0.0, 0.6, 0.3};
  const int64_t n = 200000;
  // Weights need not sum to 1; trailing zeros are never drawn (the rounding
  // case of Note [multinomial sampling] falls back to the last weight).
  const auto samples = tl::multinomial(tl::tensor<float>({0.7f, 0.0f, 4.2f, 2.1f, 0.0f}), n, true, gen);
  CHECK(samples.sizes() == tl::Shape{n});
  const auto c = counts(samples.to_vector(), 5);
  CHECK(c[1] == 0);
  CHECK(c[4] == 0);
  for (const std::size_t i : {0, 2, 3}) check_frequency(c[i], n, p[i], "with replacement");
  // Rows draw independently from their own weights (double).
  const auto rows = tl::multinomial(tl::tensor<double>({{1.0, 1.0, 0.0, 2.0}, {0.0, 0.0, 5.0, 0.0}}), 40000, true, gen);
  CHECK(rows.sizes() == tl::Shape{2, 40000});
  const auto c0 = counts(rows.select(0, 0).to_vector(), 4);
  check_frequency(c0[0], 40000, 0.25, "row 0");
  check_frequency(c0[3], 40000, 0.5, "row 0");
  CHECK(c0[2] == 0);
  for (const int64_t s : rows.select(0, 1).to_vector()) CHECK(s == 2);
}

TEST_CASE("multinomial without replacement: distinct samples, first and second draws with the right laws") {
  tl::Generator gen(2);
  const int64_t n = 40000;
  const auto p = tl::tensor<float>({0.5f, 0.2f, 0.2f, 0.1f});
  const auto samples = tl::multinomial(p.unsqueeze(0).expand({n, 4}), 2, false, gen);
  CHECK(samples.sizes() == tl::Shape{n, 2});
  const auto s = samples.to_vector();
  int64_t first[4] = {0, 0, 0, 0}, first0 = 0, second1_given0 = 0;
  for (int64_t r = 0; r < n; ++r) {
    const int64_t a = s[static_cast<std::size_t>(2 * r)], b = s[static_cast<std::size_t>(2 * r + 1)];
    CHECK(a != b);
    ++first[a];
    if (a == 0) {
      ++first0;
      second1_given0 += b == 1;
    }
  }
  const double expected[4] = {0.5, 0.2, 0.2, 0.1};
  for (int i = 0; i < 4; ++i) check_frequency(first[i], n, expected[i], "first draw");
  // P(second = 1 | first = 0) = 0.2 / (1 - 0.5).
  check_frequency(second1_given0, first0, 0.4, "second draw given the first");
  // One sample with replacement takes the same path (the same draws from the
  // same seed); every category once is a permutation, zero weights last.
  tl::Generator g1(3), g2(3);
  const auto one = tl::multinomial(p.unsqueeze(0).expand({50, 4}), 1, true, g1);
  CHECK(one.sizes() == tl::Shape{50, 1});
  CHECK(one.to_vector() == tl::multinomial(p.unsqueeze(0).expand({50, 4}), 1, false, g2).to_vector());
  const auto all = tl::multinomial(tl::tensor<double>({0.0, 1.0, 0.0, 2.0}), 4, false, gen).to_vector();
  CHECK(std::set<int64_t>(all.begin(), all.begin() + 2) == std::set<int64_t>{1, 3});
  CHECK(std::set<int64_t>(all.begin() + 2, all.end()) == std::set<int64_t>{0, 2});
}

TEST_CASE("multinomial is reproducible from a seed, takes 16-bit weights, and keeps empty batches") {
  const auto p = tl::tensor<float>({{0.2f, 0.3f, 0.5f}, {0.6f, 0.1f, 0.3f}});
  tl::Generator a(7), b(7);
  for (const bool replacement : {false, true}) {
    CAPTURE(replacement);
    const auto x = tl::multinomial(p, 3, replacement, a);
    CHECK(x.to_vector() == tl::multinomial(p, 3, replacement, b).to_vector());
    CHECK(tl::multinomial(tl::zeros<float>({0, 3}), 2, replacement, a).sizes() == tl::Shape{0, 2});
  }
  const auto h = tl::multinomial(tl::tensor<float>({0.0f, 1.0f}).to<tl::Half>(), 5, true, a).to_vector();
  CHECK(h == std::vector<int64_t>(5, 1));
}

TEST_CASE("multinomial errors follow PyTorch's wording") {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  const auto msg = [](auto f) { return fixtures::error_message(f); };
  CHECK(msg([] { (void)tl::multinomial(tl::ones<float>({2, 2, 2}), 1); }) == "prob_dist must be 1 or 2 dim");
  CHECK(msg([] { (void)tl::multinomial(tl::scalar_tensor(1.0f), 1); }) == "prob_dist must be 1 or 2 dim");
  CHECK(msg([] { (void)tl::multinomial(tl::ones<float>({3}), 0); }) == "cannot sample n_sample <= 0 samples");
  CHECK(msg([] { (void)tl::multinomial(tl::ones<float>({3}), 4); }) ==
        "cannot sample n_sample > prob_dist.size(-1) samples without replacement");
  CHECK(msg([&] {
          (void)tl::multinomial(tl::tensor<float>({0.5f, nan}), 1);
        }) == "probability tensor contains either `inf`, `nan` or element < 0");
  CHECK(msg([&] {
          (void)tl::multinomial(tl::tensor<float>({0.5f, -1.0f}), 1);
        }) == "probability tensor contains either `inf`, `nan` or element < 0");
  CHECK(msg([] { (void)tl::multinomial(tl::zeros<float>({2}), 1); }) ==
        "invalid multinomial distribution (sum of probabilities <= 0)");
  CHECK(msg([&] {
          (void)tl::multinomial(tl::tensor<float>({0.5f, nan}), 3, true);
        }) == "invalid multinomial distribution (encountering probability entry < 0)");
  CHECK(msg([&] {
          (void)tl::multinomial(tl::tensor<float>({0.5f, inf}), 3, true);
        }) == "invalid multinomial distribution (encountering probability entry = infinity or NaN)");
  CHECK(msg([] {
          (void)tl::multinomial(tl::zeros<float>({2, 2}), 3, true);
        }) == "invalid multinomial distribution (sum of probabilities <= 0)");
  CHECK(msg([] {
          (void)tl::multinomial(tl::zeros<float>({2, 0}), 1, true);
        }) == "invalid multinomial distribution (sum of probabilities <= 0)");
  // With replacement, the first invalid row decides, checked element by element.
  CHECK(msg([&] {
          (void)tl::multinomial(tl::tensor<float>({{inf, -1.0f}}), 2, true);
        }) == "invalid multinomial distribution (encountering probability entry = infinity or NaN)");
  CHECK(msg([] {
          (void)tl::multinomial(tl::tensor<float>({{0.0f, 0.0f}, {1.0f, -1.0f}}), 2, true);
        }) == "invalid multinomial distribution (sum of probabilities <= 0)");
  CHECK_THROWS_AS((void)tl::multinomial(tl::ones<float>({3}), 4), tl::ValueError);
}
