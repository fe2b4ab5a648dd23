// Binary and ternary functors against PyTorch 1.13, with broadcasting.

#include <cmath>
#include <string>
#include <vector>

#include "functor_fixtures.hpp"

using namespace functor_fixtures;

TEST_CASE("binary floating functors match PyTorch, with broadcasting") {
  check_arithmetic_binary<float>();
  check_arithmetic_binary<double>();
  check_binary<float>(
      "div", [](const auto& a, const auto& b) { return a / b; }, true);
  check_binary<double>(
      "div", [](const auto& a, const auto& b) { return a / b; }, true);
  check_binary<float>("atan2", [](const auto& a, const auto& b) { return tl::atan2(a, b); });
  check_binary<double>("atan2", [](const auto& a, const auto& b) { return tl::atan2(a, b); });
}

TEST_CASE("binary integer functors match PyTorch (wrapping, Python modulus, powi)") {
  check_arithmetic_binary<int64_t>();
  check_arithmetic_binary<int32_t>();
  check_arithmetic_binary<uint8_t>();
  check_binary<int64_t>(
      "bitwise_and", [](const auto& a, const auto& b) { return a & b; }, true);
  check_binary<int64_t>(
      "bitwise_or", [](const auto& a, const auto& b) { return a | b; }, true);
  check_binary<int64_t>(
      "bitwise_xor", [](const auto& a, const auto& b) { return a ^ b; }, true);
  check_binary<int32_t>(
      "bitwise_and", [](const auto& a, const auto& b) { return tl::bitwise_and(a, b); }, true);
  check_binary<uint8_t>(
      "bitwise_xor", [](const auto& a, const auto& b) { return tl::bitwise_xor(a, b); }, true);
}

TEST_CASE("binary bool functors match PyTorch") {
  check_common_binary<bool>();
  check_binary<bool>(
      "bitwise_and", [](const auto& a, const auto& b) { return a & b; }, true);
  check_binary<bool>(
      "bitwise_or", [](const auto& a, const auto& b) { return a | b; }, true);
  check_binary<bool>(
      "bitwise_xor", [](const auto& a, const auto& b) { return a ^ b; }, true);
}

TEST_CASE("lerp and where broadcast three operands like PyTorch") {
  const auto& f = fixtures::load("functors.txt");
  {
    const auto& c = f["lerp/float32"];
    const tl::Tensor<float> y = tl::lerp(c.get<float>("start"), c.get<float>("end"), c.get<float>("weight"));
    fixtures::check_close(y, c.get<float>("y"), 1e-6, 1e-6, "lerp");
    const auto& w = f["where/float32"];
    const tl::Tensor<float> z = tl::where(w.get<bool>("c"), w.get<float>("a"), w.get<float>("b"));
    fixtures::check_close(z, w.get<float>("y"), 0, 0, "where");
  }
  {
    const auto& c = f["lerp/float64"];
    const tl::Tensor<double> y = c.get<double>("start").lerp(c.get<double>("end"), c.get<double>("weight"));
    fixtures::check_close(y, c.get<double>("y"), 1e-14, 1e-14, "lerp");
  }
}

TEST_CASE("pow with scalar exponents matches PyTorch") {
  const auto& f = fixtures::load("functors.txt");
  for (double p : {2.0, 3.0, 0.5, -1.0, -2.0, 0.0, 1.5}) {
    std::string key = "pow_scalar/" +
                      (p == static_cast<int>(p) ? std::to_string(static_cast<int>(p)) : std::to_string(p).substr(0, 3));
    const auto& c = f[key];
    const tl::Tensor<float> y = tl::pow(c.get<float>("x"), p);
    fixtures::check_close(y, c.get<float>("y"), kFloatRtol, kFloatAtol, key);
  }
}

TEST_CASE("integer division by zero in fmod/remainder is a ValueError, not a crash") {
  const auto a = tl::tensor({5, 7});
  const auto b = tl::tensor({1, 0});
  CHECK_THROWS_AS(tl::Tensor<int64_t>(tl::fmod(a, b)), tl::ValueError);
  CHECK_THROWS_WITH_AS(tl::Tensor<int64_t>(tl::remainder(a, b)), doctest::Contains("ZeroDivisionError"),
                       tl::ValueError);
}

TEST_CASE("integer pow with a negative scalar exponent is rejected like PyTorch") {
  CHECK_THROWS_WITH_AS(tl::pow(tl::tensor({2, 3}), -1), "pow: Integers to negative integer powers are not allowed.",
                       tl::ValueError);
  const tl::Tensor<float> ok = tl::pow(tl::tensor({2, 4}), -0.5);  // promotes to float: allowed
  CHECK(ok.to_vector() == std::vector<float>{1.f / std::sqrt(2.f), 0.5f});
}
