// The special functors added after the first fixtures (expr/functors/special.hpp):
// polygamma (math::polygamma and math::zeta in expr/math/special.hpp) and
// entr. Values against PyTorch 1.13 (tests/fixtures/generate_special.py),
// closed forms where PyTorch's own trigamma is inaccurate, the recurrence,
// and the ops' forms and errors. Gradients are in
// tests/autograd/op_gradcheck_test.cpp.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numbers>
#include <string>
#include <vector>

#include "fixtures.hpp"
#include "tensorlib/tensorlib.hpp"

TEST_CASE("polygamma matches PyTorch at poles, infinities, tiny and large arguments") {
  const auto& f = fixtures::load("special.txt");
  for (const int64_t n : {0, 2, 3, 4, 7, 12}) {
    const auto& c = f["polygamma/" + std::to_string(n)];
    const auto x = c.get<double>("x");
    fixtures::check_close(tl::Tensor<double>(tl::polygamma(n, x)), c.get<double>("y"), 1e-13, 0,
                          "double n = " + std::to_string(n));
    // Float inputs compute in double and round once (PyTorch computes in
    // float, and flushes polygamma(12, 1e4) = -4e-41 to -0).
    fixtures::check_close(tl::Tensor<float>(tl::polygamma(n, x.to<float>())), c.get<float>("y_float"), 2e-6, 1e-40,
                          "float n = " + std::to_string(n));
  }
}

TEST_CASE("polygamma: closed forms, the recurrence and zeta") {
  namespace m = tl::math;
  constexpr double pi = std::numbers::pi, zeta3 = 1.2020569031595942;
  // trigamma(1) = pi^2 / 6, trigamma(1/2) = pi^2 / 2, trigamma(2) = pi^2 / 6 - 1
  // (PyTorch 1.13 is off by about 5e-10 here); psi''(1) = -2 zeta(3);
  // psi'''(1) = pi^4 / 15; psi''(1/2) = -14 zeta(3).
  CHECK(m::polygamma(1, 1.0) == doctest::Approx(pi * pi / 6).epsilon(1e-15));
  CHECK(m::polygamma(1, 0.5) == doctest::Approx(pi * pi / 2).epsilon(1e-15));
  CHECK(m::polygamma(1, 2.0) == doctest::Approx(pi * pi / 6 - 1).epsilon(1e-15));
  CHECK(m::polygamma(2, 1.0) == doctest::Approx(-2 * zeta3).epsilon(1e-15));
  CHECK(m::polygamma(3, 1.0) == doctest::Approx(std::pow(pi, 4) / 15).epsilon(1e-15));
  CHECK(m::polygamma(2, 0.5) == doctest::Approx(-14 * zeta3).epsilon(1e-15));
  CHECK(m::zeta(2.0, 1.0) == doctest::Approx(pi * pi / 6).epsilon(1e-15));
  CHECK(m::zeta(4.0, 1.0) == doctest::Approx(std::pow(pi, 4) / 90).epsilon(1e-15));
  CHECK(m::zeta(1.0, 2.0) == std::numeric_limits<double>::infinity());
  CHECK(std::isnan(m::zeta(0.5, 2.0)));
  CHECK(std::isnan(m::zeta(2.5, -0.5)));  // a negative q needs an integral s
  CHECK(std::isnan(m::polygamma(-1, 2.0)));
  // psi^(n)(x + 1) = psi^(n)(x) + (-1)^n n! / x^(n+1), on both sides of 0
  // and across the switch to the Euler-Maclaurin tail at 9.
  double factorial = 1;
  for (int64_t n = 1; n <= 6; ++n) {
    factorial *= static_cast<double>(n);
    for (const double x : {-4.3, -0.7, 0.2, 1.0, 3.5, 8.5, 8.99, 40.0}) {
      CAPTURE(n);
      CAPTURE(x);
      const double step = (n % 2 ? factorial : -factorial) / std::pow(x, n + 1), at_x = m::polygamma(n, x);
      // Relative to the terms: below 0 the sum cancels.
      CHECK(std::fabs(m::polygamma(n, x + 1) - (at_x - step)) <= 1e-14 * std::max(std::fabs(at_x), std::fabs(step)));
    }
  }
}

TEST_CASE("polygamma's forms: the method, in place, special::, integers, and PyTorch's error") {
  const auto x = tl::tensor<double>({0.3, 1.0, 2.5, -1.5});
  const std::vector<double> want = tl::Tensor<double>(tl::polygamma(3, x)).to_vector();
  CHECK(tl::Tensor<double>(x.polygamma(3)).to_vector() == want);
  CHECK(tl::Tensor<double>(tl::special::polygamma(3, x)).to_vector() == want);
  CHECK(tl::Tensor<double>((x * 1.0).polygamma(3)).to_vector() == want);
  auto y = x.clone();
  CHECK(&y.polygamma_(3) == &y);
  CHECK(y.to_vector() == want);
  CHECK(tl::Tensor<double>(tl::polygamma(0, x)).to_vector() == tl::Tensor<double>(tl::digamma(x)).to_vector());
  // Integers compute in the default floating type, as in PyTorch.
  const tl::Tensor<float> from_int = tl::polygamma(2, tl::tensor<int64_t>({1, 2}));
  CHECK(from_int.to_vector() == tl::Tensor<float>(tl::polygamma(2, tl::tensor<float>({1.f, 2.f}))).to_vector());
  CHECK_THROWS_WITH_AS((void)tl::polygamma(-1, x), "polygamma(n, x) does not support negative n, got -1",
                       tl::ValueError);
}

TEST_CASE("special::entr matches PyTorch at 0, -0, below 0, the infinities and NaN") {
  const auto& c = fixtures::load("special.txt")["entr"];
  const auto x = c.get<double>("x");
  fixtures::check_close(tl::Tensor<double>(tl::special::entr(x)), c.get<double>("y"), 1e-15, 0, "double");
  fixtures::check_close(tl::Tensor<float>(tl::special::entr(x.to<float>())), c.get<float>("y_float"), 1e-6, 0, "float");
  // The signs of the zeros: entr(-0) = +0, entr(1) = -0.
  const auto zeros = tl::Tensor<double>(tl::special::entr(tl::tensor<double>({-0.0, 1.0}))).to_vector();
  CHECK_FALSE(std::signbit(zeros[0]));
  CHECK(std::signbit(zeros[1]));
  // Integers compute in the default floating type.
  const tl::Tensor<float> from_int = tl::special::entr(tl::tensor<int64_t>({0, 2}));
  CHECK(from_int.to_vector() == std::vector<float>{0.f, -2.f * std::log(2.f)});
}
