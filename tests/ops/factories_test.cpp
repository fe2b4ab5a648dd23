// Factories against PyTorch (arange, linspace, logspace, eye) and their
// argument checks; tensors from nested lists and from foreign memory.

#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <type_traits>
#include <vector>

#include "fixtures.hpp"

TEST_CASE("arange, linspace, logspace and eye match PyTorch") {
  const auto& f = fixtures::load("factories.txt");
  fixtures::check_close(tl::arange(10), f["arange/int/10"].get<int64_t>("y"), 0, 0, "arange(10)");
  fixtures::check_close(tl::arange(3, 17, 4), f["arange/int/3_17_4"].get<int64_t>("y"), 0, 0, "arange int");
  fixtures::check_close(tl::arange(5, -7, -3), f["arange/int/5_m7_m3"].get<int64_t>("y"), 0, 0, "arange neg");
  fixtures::check_close(tl::arange(0.0, 1.0, 0.1), f["arange/float/0_1_0.1"].get<float>("y"), 0, 0, "arange f");
  fixtures::check_close(tl::arange(-1.0, 1.05, 0.15), f["arange/float/m1_1.05_0.15"].get<float>("y"), 0, 1e-7,
                        "arange f2");
  fixtures::check_close(tl::arange<double>(0.0, 1.0, 0.1), f["arange/double/0_1_0.1"].get<double>("y"), 0, 0,
                        "arange d");
  for (int steps : {0, 1, 2, 7, 100}) {
    const std::string k = "m3_5_" + std::to_string(steps);
    fixtures::check_close(tl::linspace(-3, 5, steps), f["linspace/float/" + k].get<float>("y"), 0, 1e-6, k);
    fixtures::check_close(tl::linspace<double>(-3, 5, steps), f["linspace/double/" + k].get<double>("y"), 0, 1e-15, k);
  }
  fixtures::check_close(tl::linspace(0, 1, 11), f["linspace/float/0_1_11"].get<float>("y"), 0, 1e-7, "linspace");
  fixtures::check_close(tl::linspace(10, -10, 9), f["linspace/float/10_m10_9"].get<float>("y"), 0, 1e-6, "linspace");
  fixtures::check_close(tl::logspace(0, 3, 4), f["logspace/float/0_3_4"].get<float>("y"), 1e-6, 0, "logspace");
  fixtures::check_close(tl::logspace(-2, 2, 9, 2.0), f["logspace/float/m2_2_9_base2"].get<float>("y"), 1e-6, 0,
                        "logspace2");
  fixtures::check_close(tl::logspace<double>(-1, 1, 5), f["logspace/double/m1_1_5"].get<double>("y"), 1e-14, 0,
                        "logspace d");
  fixtures::check_close(tl::eye(3), f["eye/3"].get<float>("y"), 0, 0, "eye");
  fixtures::check_close(tl::eye(2, 4), f["eye/2_4"].get<float>("y"), 0, 0, "eye");
}

TEST_CASE("factory argument errors") {
  CHECK_THROWS_WITH_AS(tl::arange(0, 5, 0), "arange: step must be nonzero", tl::ValueError);
  CHECK_THROWS_WITH_AS(tl::arange(0, 5, -1),
                       "arange: upper bound and larger bound inconsistent with step sign (start 0, end 5, step -1)",
                       tl::ValueError);
  CHECK_THROWS_WITH_AS(tl::linspace(0, 1, -2), "linspace: number of steps must be non-negative, got -2",
                       tl::ValueError);
  CHECK_THROWS_WITH_AS(tl::zeros<float>({2, -3}), "empty: negative dimension -3 in size [2, -3]", tl::ValueError);
  CHECK_THROWS_AS(tl::ones<float>({-1}), tl::ValueError);
  CHECK_THROWS_WITH_AS(tl::zeros<float>({int64_t{1} << 32, int64_t{1} << 32}),
                       doctest::Contains("storage size calculation overflowed"), tl::ValueError);
  CHECK_THROWS_AS(tl::empty<float>({int64_t{1} << 62}), tl::ValueError);
  CHECK_THROWS_WITH_AS(tl::empty_strided<float>({2}, {-1}), doctest::Contains("negative strides are not supported"),
                       tl::ValueError);
  CHECK_THROWS_AS(tl::eye(2, -5), tl::ValueError);
  CHECK_THROWS_AS(tl::eye(-1), tl::ValueError);
  CHECK_THROWS_AS(tl::logspace(0, 1, -1), tl::ValueError);
  float buf[4] = {};
  CHECK_THROWS_AS(tl::from_blob(buf, {2}, {-1}), tl::ValueError);
}

TEST_CASE("empty_strided allocates exactly what its strides span") {
  const auto t = tl::empty_strided<float>({2, 3}, {1, 2});  // column-major
  CHECK(t.strides() == tl::Shape{1, 2});
  CHECK(t.storage().nbytes() == 6 * 4);
  CHECK(t.is_non_overlapping_and_dense());
  CHECK_FALSE(t.is_contiguous());
  CHECK(tl::empty_strided<float>({2, 0}, {0, 1}).storage().nbytes() == 0);
  CHECK(tl::eye(2, 3).sizes() == tl::Shape{2, 3});
}

TEST_CASE("full, zeros, ones and the _like forms") {
  CHECK(tl::full<int32_t>({2, 2}, 7).to_vector() == std::vector<int32_t>(4, 7));
  CHECK(tl::zeros<bool>({3}).to_vector() == std::vector<bool>(3, false));
  CHECK(tl::ones<uint8_t>({2}).to_vector() == std::vector<uint8_t>(2, 1));
  const auto t = tl::arange<float>(6).view({2, 3}).t();  // dense but not contiguous
  const auto z = tl::zeros_like(t);
  CHECK(z.sizes() == t.sizes());
  CHECK(z.strides() == t.strides());  // layout preserved, as in PyTorch
  CHECK(tl::ones_like(t).to_vector() == std::vector<float>(6, 1.f));
  CHECK(tl::full_like(tl::arange(3), 9).to_vector() == std::vector<int64_t>(3, 9));
  const auto e = tl::empty_like(t * 2);  // from an expression: contiguous
  CHECK(e.is_contiguous());
  CHECK(tl::scalar_tensor(2.5).dim() == 0);
}

TEST_CASE("tensor() from nested lists deduces PyTorch's default element types") {
  const auto a = tl::tensor({{1, 2, 3}, {4, 5, 6}});
  static_assert(std::is_same_v<decltype(a), const tl::Tensor<int64_t>>);
  CHECK(a.sizes() == tl::Shape{2, 3});
  CHECK(a.to_vector() == std::vector<int64_t>{1, 2, 3, 4, 5, 6});
  const auto b = tl::tensor({1.5, 2.5});
  static_assert(std::is_same_v<decltype(b), const tl::Tensor<float>>);
  const auto c = tl::tensor<double>({{{1, 2}}, {{3, 4}}});
  CHECK(c.sizes() == tl::Shape{2, 1, 2});
  CHECK(tl::tensor({true, false}).dtype() == tl::kBool);
  CHECK(tl::tensor(3).dim() == 0);
  CHECK(tl::tensor<float>({{1, 2}, {3, 4}}).sizes() == tl::Shape{2, 2});
}

TEST_CASE("ragged nested lists are a ValueError naming the dimension") {
  CHECK_THROWS_WITH_AS(tl::tensor({{1, 2}, {3}}), "tensor: expected sequence of length 2 at dim 1 (got 1)",
                       tl::ValueError);
  CHECK_THROWS_AS(tl::tensor({{{1}, {2}}, {{3}, {4}}, {{5}}}), tl::ValueError);
}

TEST_CASE("from_blob views foreign memory and calls the deleter once") {
  std::vector<float> data{1, 2, 3, 4, 5, 6};
  int deleted = 0;
  {
    auto t = tl::from_blob(data.data(), {2, 3}, [&](void* p) {
      CHECK(p == data.data());
      ++deleted;
    });
    t.select(0, 1).fill_(0.f);  // writes through to the buffer
    auto view = t.t();
    CHECK(deleted == 0);
  }
  CHECK(deleted == 1);
  CHECK(data == std::vector<float>{1, 2, 3, 0, 0, 0});
  auto s = tl::from_blob(data.data(), {3}, {2});
  CHECK(s.to_vector() == std::vector<float>{1, 3, 0});
  CHECK_THROWS_WITH_AS(tl::from_blob(std::span<float>(data.data(), 5), {2, 3}),
                       "from_blob: shape [2, 3] needs 6 elements, got a buffer of 5", tl::ShapeError);
  CHECK(tl::from_blob(std::span<float>(data), {3, 2}).size(0) == 3);
}

TEST_CASE("arange, linspace and tensor reject values their element type cannot hold, and counts that overflow") {
  using doctest::Contains;
  // An integer arange truncates start, end and step to int64 first (PyTorch's int64 arange).
  CHECK_THROWS_WITH_AS(tl::arange<int64_t>(0, 5, 0.5), "arange: step must be nonzero", tl::ValueError);
  CHECK(tl::arange<int64_t>(0.5, 3.7, 1).to_vector() == std::vector<int64_t>{0, 1, 2});
  CHECK_THROWS_WITH_AS(tl::arange<int64_t>(1e30, 1.0000001e30, 1e23), Contains("without overflow"), tl::ValueError);
  // Exact in int64 where both ends round to the same double.
  const int64_t base = int64_t{1} << 60;
  CHECK(tl::arange(base | 1, base + 4).to_vector() == std::vector<int64_t>{base + 1, base + 2, base + 3});
  CHECK(tl::arange(int64_t{10}, int64_t{-3}, int64_t{-4}).to_vector() == std::vector<int64_t>{10, 6, 2, -2});
  // 2^64 - 1 elements.
  CHECK_THROWS_WITH_AS(tl::arange(std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max()),
                       "arange: invalid size, possible overflow?", tl::ValueError);
  CHECK_THROWS_WITH_AS(tl::arange(0.0, 1.0, 1e-300), "arange: invalid size, possible overflow?", tl::ValueError);
  CHECK_THROWS_WITH_AS(tl::linspace<int32_t>(0, 1e10, 3),
                       Contains("cannot be converted to type int32 without overflow"), tl::ValueError);
  CHECK_THROWS_AS(tl::linspace<int64_t>(0, NAN, 3), tl::ValueError);
  CHECK_THROWS_AS(tl::linspace<int64_t>(0, INFINITY, 3), tl::ValueError);
  CHECK(tl::linspace<int32_t>(-2, 2, 5).to_vector() == std::vector<int32_t>{-2, -1, 0, 1, 2});
  CHECK_THROWS_WITH_AS(tl::tensor<int32_t>({1e10}), Contains("without overflow"), tl::ValueError);
  CHECK_THROWS_AS(tl::tensor<int64_t>({1.0, std::nan("")}), tl::ValueError);
  CHECK_THROWS_AS(tl::tensor<int32_t>(1e10), tl::ValueError);
  CHECK(tl::tensor<int32_t>({2.7, -2.7}).to_vector() == std::vector<int32_t>{2, -2});  // truncated, as in PyTorch
}

TEST_CASE("new_empty, new_zeros, new_ones and new_full keep the element type and device") {
  tl::Tensor<double> x = tl::arange<double>(0, 6).view({2, 3}).contiguous();
  x.requires_grad_();
  const auto z = x.new_zeros({4});
  static_assert(std::is_same_v<decltype(z), const tl::Tensor<double>>);
  CHECK_FALSE(z.requires_grad());  // a new leaf, whatever the source
  CHECK(z.to_vector() == std::vector<double>(4, 0.0));
  CHECK(x.new_ones({2, 2}).to_vector() == std::vector<double>(4, 1.0));
  CHECK(x.new_full({3}, 2.5).to_vector() == std::vector<double>(3, 2.5));
  CHECK(x.new_empty({0, 7}).sizes() == tl::Shape{0, 7});
  CHECK(x.new_zeros({1}).device() == x.device());
  CHECK_THROWS_WITH_AS(x.new_ones({-1}), "empty: negative dimension -1 in size [-1]", tl::ValueError);
}
