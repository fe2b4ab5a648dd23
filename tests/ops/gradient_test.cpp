// tl::gradient (ops/gradient.hpp) against PyTorch 1.13
// (tests/fixtures/generate_composite_ops.py): every dimension by default,
// per-dimension spacings, uneven coordinates, both edge orders, integers;
// exactness on quadratics; PyTorch's errors. Gradients through it are in
// tests/autograd/op_gradcheck_test.cpp.

#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "fixtures.hpp"

TEST_CASE("gradient against PyTorch") {
  const auto& c = fixtures::load("composite_ops.txt")["gradient"];
  const auto f = c.get<double>("f");
  const std::vector<tl::Tensor<double>> coords{c.get<double>("c0"), c.get<double>("c2")};
  for (int64_t order : {1, 2}) {
    const std::string e = "e" + std::to_string(order) + "_";
    const auto all = tl::gradient(f, 1.0, {}, order);
    REQUIRE(all.size() == 3);
    for (int i = 0; i < 3; ++i)
      fixtures::check_close(all[i], c.get<double>("default_" + e + std::to_string(i)), 1e-14, 1e-14, "default");
    const auto spaced = tl::gradient(f, std::vector<double>{0.5, 3.0}, {2, 0}, order);
    for (int i = 0; i < 2; ++i)
      fixtures::check_close(spaced[i], c.get<double>("spacings_" + e + std::to_string(i)), 1e-14, 1e-14, "spacings");
    const auto at = tl::gradient(f, coords, {0, 2}, order);
    for (int i = 0; i < 2; ++i)
      fixtures::check_close(at[i], c.get<double>("coords_" + e + std::to_string(i)), 1e-11, 1e-11, "coordinates");
  }
  const auto& i = fixtures::load("composite_ops.txt")["gradient/int64"];
  fixtures::check_close(tl::gradient(i.get<int64_t>("f"), 2.0, 1)[0], i.get<float>("d1"), 0, 0, "integers give float");
}

TEST_CASE("gradient is exact on quadratics with edge_order 2, even on uneven coordinates; errors") {
  const auto x = tl::tensor<double>({-1.0, -0.2, 0.5, 0.6, 2.0, 3.5});
  const tl::Tensor<double> f = x * x * 3.0 - x + 2.0;  // f' = 6x - 1
  const auto d = tl::gradient(f, std::vector<tl::Tensor<double>>{x}, {}, 2)[0];
  fixtures::check_close(d, tl::Tensor<double>(x * 6.0 - 1.0), 1e-12, 1e-12, "quadratic");
  CHECK(fixtures::error_message([] {
          (void)tl::gradient(tl::ones<float>({2, 1}));
        }) ==
        "gradient: torch.gradient expected each dimension size to be at least edge_order+1, got size 1 in "
        "dimension 1 with edge_order 1");
  CHECK(fixtures::error_message([] { (void)tl::gradient(tl::ones<float>({3}), 1.0, {}, 3); }) ==
        "gradient: torch.gradient only supports edge_order=1 and edge_order=2, got 3");
  CHECK(fixtures::error_message([] {
          (void)tl::gradient(tl::ones<float>({3, 3}), 1.0, {0, -2});
        }) == "gradient: dim 0 appears multiple times in the list of dims");
  // Integers are differenced exactly before the division, as PyTorch's: 2^24 + 1
  // has no float.
  const auto big = tl::tensor<int64_t>({16777217, 16777218, 16777220});
  CHECK(tl::gradient(big)[0].to_vector() == std::vector<float>{1.0f, 1.5f, 2.0f});
  CHECK(fixtures::error_message([] {
          (void)tl::gradient(tl::ones<float>({3, 3}), std::vector<double>{1., 2., 3.});
        }) ==
        "gradient: torch.gradient expected spacing to be unspecified, a scalar or a list of length 2 but got a "
        "list of length 3");
  CHECK(fixtures::error_message([] {
          (void)tl::gradient(tl::ones<float>({3, 3}), std::vector<tl::Tensor<float>>{tl::ones<float>({4})}, 1);
        }) == "gradient: expected the coordinates of dimension 1 to be a 1-D tensor of 3 values, but got shape [4]");
}
