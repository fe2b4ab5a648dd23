// trapezoid, trapz and cumulative_trapezoid (ops/trapezoid.hpp) against
// PyTorch 1.13 (tests/fixtures/generate_composite_ops.py): spacing dx, 1-d
// sample points, broadcast sample points along dim 0, integer samples; the
// rule's exactness on straight lines; empty dimensions; errors.

#include <doctest/doctest.h>

#include <cstdint>

#include "fixtures.hpp"

TEST_CASE("trapezoid and cumulative_trapezoid against PyTorch") {
  const auto& f = fixtures::load("composite_ops.txt");
  const auto& c = f["trapezoid"];
  const auto y = c.get<double>("y"), x = c.get<double>("x");
  fixtures::check_close(tl::trapezoid(y, 0.25), c.get<double>("dx"), 1e-14, 1e-14, "dx");
  fixtures::check_close(tl::trapezoid(y, x), c.get<double>("x1d"), 1e-14, 1e-14, "1-d x");
  fixtures::check_close(tl::trapz(y, c.get<double>("xb")), c.get<double>("xbroad"), 1e-14, 1e-14, "x like y");
  fixtures::check_close(tl::trapezoid(y, c.get<double>("xc"), 0), c.get<double>("dim0"), 1e-14, 1e-14, "dim 0");
  fixtures::check_close(tl::cumulative_trapezoid(y, 0.25), c.get<double>("cum_dx"), 1e-14, 1e-14, "cumulative dx");
  fixtures::check_close(tl::cumulative_trapezoid(y, x), c.get<double>("cum_x1d"), 1e-14, 1e-14, "cumulative 1-d x");
  fixtures::check_close(tl::cumulative_trapezoid(y, c.get<double>("xc"), 0), c.get<double>("cum_dim0"), 1e-14, 1e-14,
                        "cumulative dim 0");
  const auto& i = f["trapezoid/int64"];
  fixtures::check_close(tl::trapezoid(i.get<int64_t>("y")), i.get<float>("r"), 0, 0, "integers give float");
  fixtures::check_close(tl::cumulative_trapezoid(i.get<int64_t>("y"), 2.0), i.get<float>("cum"), 0, 0,
                        "cumulative of integers");
}

TEST_CASE("trapezoid is exact on straight lines; empty dimensions; errors") {
  // y = 3x + 1 on uneven points of [0, 2]: the integral is 8.
  const auto x = tl::tensor<double>({0.0, 0.3, 0.7, 1.6, 2.0});
  const tl::Tensor<double> y = x * 3.0 + 1.0;
  CHECK(tl::trapezoid(y, x).item() == doctest::Approx(8.0).epsilon(1e-15));
  const auto running = tl::cumulative_trapezoid(y, x);
  CHECK(running[-1].item() == doctest::Approx(8.0).epsilon(1e-15));
  CHECK(running.sizes() == tl::Shape{4});
  CHECK(tl::trapezoid(tl::ones<float>({2, 0})).to_vector() == std::vector<float>{0, 0});
  CHECK(tl::cumulative_trapezoid(tl::ones<float>({2, 0})).sizes() == tl::Shape{2, 0});
  CHECK(tl::trapezoid(tl::ones<float>({2, 1})).to_vector() == std::vector<float>{0, 0});
  CHECK(tl::cumulative_trapezoid(tl::ones<float>({2, 1})).sizes() == tl::Shape{2, 0});
  CHECK(fixtures::error_message([] {
          (void)tl::trapezoid(tl::ones<float>({3, 4}), tl::arange<float>(0, 4), 0);
        }) == "trapezoid: There must be one `x` value for each sample point");
  CHECK(fixtures::error_message([] {
          (void)tl::trapezoid(tl::ones<float>({3, 4}), 1.0, 2);
        }) == "trapezoid: dimension out of range (expected to be in range of [-2, 1], but got 2)");
}
