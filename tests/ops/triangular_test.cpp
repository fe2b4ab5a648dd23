// diagonal, diag, diag_embed, diagflat, trace, tril, triu, tril_indices,
// triu_indices: trace and the index factories against PyTorch, aliasing of
// diagonal, large and strided inputs, and every error path. The other values
// against PyTorch are in join_test.cpp.

#include <doctest/doctest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "fixtures.hpp"

namespace {

template <class T>
void check_trace() {
  using R = std::conditional_t<std::is_floating_point_v<T>, T, int64_t>;
  std::string suffix = "/";
  suffix += tl::DTypeTraits<T>::name;
  int cases = 0;
  for (const auto& entry : fixtures::load("join.txt").cases()) {
    const std::string& name = entry.first;
    const fixtures::Case& c = entry.second;
    if (name.rfind("trace/", 0) != 0 || name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0) continue;
    INFO(name);
    ++cases;
    const auto x = c.get<T>("x");
    const auto got = tl::trace(x);
    static_assert(std::is_same_v<decltype(got), const tl::Tensor<R>>);
    CHECK(got.dim() == 0);
    // Float sums may round differently from PyTorch's order; 1 ulp-ish.
    fixtures::check_close(got, c.get<R>("out"), std::is_floating_point_v<T> ? 1e-6 : 0);
    fixtures::check_close(tl::trace(x.t().contiguous().t()), c.get<R>("out"), std::is_floating_point_v<T> ? 1e-6 : 0);
    // A GPU's trace: the sum of the diagonal view.
    fixtures::check_close(tl::Tensor<R>(tl::sum(tl::diagonal(x))), c.get<R>("out"),
                          std::is_floating_point_v<T> ? 1e-6 : 0);
  }
  CHECK(cases == 4);
}

}  // namespace

TEST_CASE_TEMPLATE("trace matches PyTorch, integers summing to int64", T, float, double, int32_t, int64_t, uint8_t) {
  check_trace<T>();
}

TEST_CASE("tril_indices and triu_indices match PyTorch") {
  int cases = 0;
  for (const auto& entry : fixtures::load("join.txt").cases()) {
    const std::string& name = entry.first;
    const fixtures::Case& c = entry.second;
    const bool lower = name.rfind("tril_indices/", 0) == 0;
    if (!lower && name.rfind("triu_indices/", 0) != 0) continue;
    INFO(name);
    ++cases;
    int64_t row = 0, col = 0, offset = 0;
    REQUIRE(std::sscanf(name.c_str() + name.find('/') + 1, "%ld_%ld_%ld", &row, &col, &offset) == 3);
    const auto got = lower ? tl::tril_indices(row, col, offset) : tl::triu_indices(row, col, offset);
    fixtures::check_close(got, c.get<int64_t>("out"));
    const auto narrow =
        lower ? tl::tril_indices<int32_t>(row, col, offset) : tl::triu_indices<int32_t>(row, col, offset);
    fixtures::check_close(narrow.to<int64_t>(), c.get<int64_t>("out"));
  }
  CHECK(cases == 16);
}

TEST_CASE("diagonal is a view with PyTorch's strides and offset") {
  auto x = tl::zeros<float>({3, 4});
  auto d = x.diagonal(1);
  CHECK(d.sizes() == tl::Shape{3});
  CHECK(d.strides() == tl::Shape{5});
  CHECK(d.storage_offset() == 1);
  CHECK(d.is_alias_of(x));
  d.fill_(1.f);
  CHECK(x.to_vector() == std::vector<float>{0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1});
  const auto below = tl::diagonal(x, -1);
  CHECK(below.storage_offset() == 4);
  CHECK(below.sizes() == tl::Shape{2});
  const auto none = tl::diagonal(x, 5);  // empty: the offset stays where it was (PyTorch)
  CHECK(none.sizes() == tl::Shape{0});
  CHECK(none.storage_offset() == 0);
  const auto y = tl::zeros<float>({2, 3, 4});
  const auto batched = tl::diagonal(y, 0, 2, 0);
  CHECK(batched.sizes() == tl::Shape{3, 2});
  CHECK(batched.strides() == tl::Shape{4, 13});
  // On a transposed input, the diagonal of the transpose.
  const auto m = tl::arange<float>(12).view({3, 4});
  CHECK(m.t().diagonal(1).to_vector() == std::vector<float>{4, 9});
  // diag of a 2-d tensor copies it.
  const auto copied = tl::diag(x, 1);
  CHECK_FALSE(copied.is_alias_of(x));
  CHECK(copied.is_contiguous());
}

TEST_CASE("tril and triu on large, batched, strided and expanded inputs") {
  const int64_t n = 300;
  const auto x = tl::arange<int64_t>(2 * n * n).view({2, n, n});
  const auto lo = tl::tril(x, -3), up = tl::triu(x.transpose(1, 2), 5);
  const auto lv = lo.to_vector(), uv = up.to_vector();
  int bad = 0;
  for (int64_t b = 0; b < 2; ++b)
    for (int64_t i = 0; i < n; i += 7)
      for (int64_t j = 0; j < n; j += 3) {
        const auto k = static_cast<std::size_t>((b * n + i) * n + j);
        bad += lv[k] != (j <= i - 3 ? (b * n + i) * n + j : 0);
        bad += uv[k] != (j >= i + 5 ? (b * n + j) * n + i : 0);
      }
  CHECK(bad == 0);
  const auto row = tl::arange<float>(3).view({1, 3}).expand({3, 3});
  CHECK(tl::tril(row).to_vector() == std::vector<float>{0, 0, 0, 0, 1, 0, 0, 1, 2});
  CHECK(tl::triu(row * 2.f, 1).to_vector() == std::vector<float>{0, 2, 4, 0, 0, 4, 0, 0, 0});
  CHECK(tl::tril(tl::ones<bool>({2, 2})).to_vector() == std::vector<bool>{true, false, true, true});
  CHECK(tl::tril(x, INT64_MAX).to_vector() == x.to_vector());
  CHECK(tl::triu(x, INT64_MIN).to_vector() == x.to_vector());
  CHECK(tl::tril_indices(3, 3, INT64_MIN).numel() == 0);
}

TEST_CASE_TEMPLATE("tril and triu as a GPU computes them (triangle_by_mask) equal the CPU's block copies", T, float,
                   int64_t, bool, tl::Half) {
  // The CPU's tril/triu match PyTorch's fixtures (join_test.cpp); the masked
  // form a CUDA tensor takes must give the same elements for every shape,
  // layout and diagonal, the extreme ones included.
  tl::Generator g(4);
  const tl::Tensor<T> square = tl::randint(-9, 10, {2, 7, 7}, g).to<T>();
  const tl::Tensor<T> wide = tl::randint(-9, 10, {3, 5}, g).to<T>();
  const tl::Tensor<T> tall = tl::randint(-9, 10, {4, 6, 2}, g).to<T>().transpose(0, 1);
  const tl::Tensor<T> empty = tl::zeros<T>({2, 0, 3});
  for (const auto& x : {square, wide, tall, empty, square.transpose(1, 2), wide.expand({2, 3, 5})}) {
    CAPTURE(x.sizes());
    for (const int64_t k : {int64_t{0}, int64_t{1}, int64_t{-1}, int64_t{3}, int64_t{-4}, int64_t{10}, int64_t{-10},
                            INT64_MAX, INT64_MIN}) {
      CAPTURE(k);
      CHECK(tl::detail::triangle_by_mask(x, k, true).to_vector() == tl::tril(x, k).to_vector());
      CHECK(tl::detail::triangle_by_mask(x, k, false).to_vector() == tl::triu(x, k).to_vector());
    }
  }
}

TEST_CASE("triangular errors follow PyTorch's wording") {
  const auto v = tl::zeros<float>({3});
  const auto m = tl::zeros<float>({2, 2});
  const auto s = tl::scalar_tensor(1.f);
  CHECK_THROWS_WITH_AS(tl::tril(v), "tril: input tensor must have at least 2 dimensions, got 1", tl::ShapeError);
  CHECK_THROWS_WITH_AS(v.triu(), "triu: input tensor must have at least 2 dimensions, got 1", tl::ShapeError);
  CHECK_THROWS_WITH_AS(tl::diag(tl::zeros<float>({2, 2, 2})),
                       "diag: matrix or a vector expected, got a tensor with 3 dims", tl::ShapeError);
  CHECK_THROWS_AS(tl::diag(s), tl::ShapeError);
  CHECK_THROWS_WITH_AS(m.diagonal(0, 1, 1), "diagonal: diagonal dimensions cannot be identical 1, 1", tl::ValueError);
  CHECK_THROWS_WITH_AS(m.diagonal(0, 1, -1), "diagonal: diagonal dimensions cannot be identical 1, -1", tl::ValueError);
  CHECK_THROWS_WITH_AS(m.diagonal(0, 0, 2),
                       "diagonal: dimension out of range (expected to be in range of [-2, 1], but got 2)",
                       tl::IndexError);
  CHECK_THROWS_WITH_AS(v.diagonal(), "diagonal: dimension out of range (expected to be in range of [-1, 0], but got 1)",
                       tl::IndexError);
  CHECK_THROWS_WITH_AS(tl::diag_embed(m, 0, 1, 1), "diag_embed: diagonal dimensions cannot be identical 1, 1",
                       tl::ValueError);
  CHECK_THROWS_WITH_AS(tl::diag_embed(m, 0, 0, 3),
                       "diag_embed: dimension out of range (expected to be in range of [-3, 2], but got 3)",
                       tl::IndexError);
  CHECK_THROWS_WITH_AS(tl::diag_embed(s),
                       "diag_embed: dimension out of range (expected to be in range of [-1, 0], but got -2)",
                       tl::IndexError);
  CHECK_THROWS_WITH_AS(tl::trace(tl::zeros<float>({2, 2, 2})), "trace: expected a matrix, but got tensor with dim 3",
                       tl::ShapeError);
  CHECK_THROWS_WITH_AS(tl::trace(v), "trace: expected a matrix, but got tensor with dim 1", tl::ShapeError);
  CHECK_THROWS_WITH_AS(tl::tril_indices(-1, 3), "tril_indices: row must be non-negative, got -1", tl::ValueError);
  CHECK_THROWS_WITH_AS(tl::tril_indices(3, -1), "tril_indices: col must be non-negative, got -1", tl::ValueError);
  CHECK_THROWS_WITH_AS(tl::triu_indices(-1, 3), "triu_indices: row must be non-negative, got -1", tl::ValueError);
  float host[4] = {};
  const auto fake_cuda = tl::from_blob(host, {2, 2}, {2, 1}, {}, tl::Device(tl::kCUDA, 0));
  CHECK_THROWS_AS(tl::tril(fake_cuda), tl::DeviceError);
  CHECK_THROWS_AS(tl::trace(fake_cuda), tl::DeviceError);
}

TEST_CASE("fill_diagonal_ matches PyTorch: tall with and without wrap, wide, cubes, strided views") {
  const auto positions = [](const tl::Tensor<float>& x) { return tl::nonzero(x).to_vector(); };
  auto tall = tl::zeros<float>({7, 3});
  tall.fill_diagonal_(5.f, true);  // PyTorch: (0,0) (1,1) (2,2) (4,0) (5,1) (6,2)
  CHECK(positions(tall) == std::vector<int64_t>{0, 0, 1, 1, 2, 2, 4, 0, 5, 1, 6, 2});
  CHECK(tall.sum().item() == 30.f);
  auto plain = tl::zeros<float>({7, 3});
  plain.fill_diagonal_(5.f);
  CHECK(positions(plain) == std::vector<int64_t>{0, 0, 1, 1, 2, 2});
  auto wide = tl::zeros<int64_t>({3, 5});
  wide.fill_diagonal_(2, true);  // wrap changes nothing on a wide matrix
  CHECK(wide.to_vector() == std::vector<int64_t>{2, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 2, 0, 0});
  auto cube = tl::zeros<float>({2, 2, 2});
  cube.fill_diagonal_(1.f);
  CHECK(positions(cube) == std::vector<int64_t>{0, 0, 0, 1, 1, 1});
  // A transposed (column-major) tall view wraps by rows of the view.
  auto base = tl::zeros<float>({3, 7});
  base.t().fill_diagonal_(1.f, true);
  CHECK(positions(base.t().contiguous()) == positions(tall));
  // An empty matrix is left alone.
  auto none = tl::zeros<float>({0, 3});
  CHECK(none.fill_diagonal_(1.f, true).numel() == 0);
}

TEST_CASE("fill_diagonal_ errors follow PyTorch's wording") {
  auto vec = tl::zeros<float>({3});
  CHECK(fixtures::error_message([&] { vec.fill_diagonal_(1.f); }) == "fill_diagonal_: dimensions must larger than 1");
  auto uneven = tl::zeros<float>({2, 3, 2});
  CHECK(fixtures::error_message([&] { uneven.fill_diagonal_(1.f); }) ==
        "fill_diagonal_: all dimensions of input must be of equal length");
}
