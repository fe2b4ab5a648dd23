// Binary and ternary functors against PyTorch 1.13, with broadcasting.

#include <cmath>
#include <limits>
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

TEST_CASE("addcmul and addcdiv match PyTorch: broadcast, in the common type, as methods and in place") {
  const auto& f = fixtures::load("surface.txt");
  auto run = [&]<class T>(const std::string& type, double tol) {
    for (const char* value : {"1", "0.5", "-2.25"}) {
      const double v = std::stod(value);
      for (const char* op : {"addcmul", "addcdiv"}) {
        const auto& c = f[std::string(op) + "/" + type + "/" + value];
        INFO(op << " " << type << " value " << value);
        const auto a = c.get<T>("input"), b = c.get<T>("t1"), d = c.get<T>("t2");
        const bool mul = std::string(op) == "addcmul";
        const tl::Tensor<T> y = mul ? tl::Tensor<T>(tl::addcmul(a, b, d, v)) : tl::Tensor<T>(tl::addcdiv(a, b, d, v));
        fixtures::check_close(y, c.get<T>("y"), tol, tol, op);
        // The method form, on an expression; the in-place form into a
        // tensor of the broadcast shape.
        const tl::Tensor<T> m = mul ? tl::Tensor<T>((a * 1).addcmul(b, d, v)) : tl::Tensor<T>((a * 1).addcdiv(b, d, v));
        fixtures::check_close(m, c.get<T>("y"), tol, tol, op);
        tl::Tensor<T> z = a.expand(c.get<T>("y").sizes()).contiguous();
        if (mul)
          z.addcmul_(b, d, v);
        else
          z.addcdiv_(b, d, v);
        fixtures::check_close(z, c.get<T>("y"), tol, tol, op);
      }
    }
  };
  run.operator()<float>("float32", 1e-6);
  run.operator()<double>("float64", 1e-14);
  {
    const auto& c = f["addcmul/int64/3"];
    const tl::Tensor<int64_t> y = tl::addcmul(c.get<int64_t>("input"), c.get<int64_t>("t1"), c.get<int64_t>("t2"), 3);
    fixtures::check_close(y, c.get<int64_t>("y"), 0, 0, "addcmul int64");
    const auto& c32 = f["addcmul/int32/-2"];
    const tl::Tensor<int32_t> y32 =
        c32.get<int32_t>("input").addcmul(c32.get<int32_t>("t1"), c32.get<int32_t>("t2"), -2);
    fixtures::check_close(y32, c32.get<int32_t>("y"), 0, 0, "addcmul int32");
  }
  for (const char* op : {"addcmul", "addcdiv"}) {
    // An int64 input and tensor2 with a float32 tensor1: computed in float32.
    const auto& c = f[std::string(op) + "/mixed/2.5"];
    const auto a = c.get<int64_t>("input"), d = c.get<int64_t>("t2");
    const auto b = c.get<float>("t1");
    const bool mul = std::string(op) == "addcmul";
    const tl::Tensor<float> y =
        mul ? tl::Tensor<float>(tl::addcmul(a, b, d, 2.5)) : tl::Tensor<float>(tl::addcdiv(a, b, d, 2.5));
    fixtures::check_close(y, c.get<float>("y"), 1e-6, 1e-6, op);
  }
  // In place, the broadcast shape must be the tensor's own (PyTorch's message).
  auto small = tl::zeros<float>({3});
  CHECK_THROWS_WITH_AS(small.addcmul_(tl::ones<float>({2, 3}), tl::ones<float>({1, 3}), 2),
                       doctest::Contains("output with shape [3] doesn't match the broadcast shape [2, 3]"),
                       tl::ShapeError);
  CHECK_THROWS_AS(tl::Tensor<float>(tl::addcdiv(small, tl::ones<float>({2}), tl::ones<float>({3}))), tl::ShapeError);
  // Division by zero follows IEEE, as in PyTorch.
  const tl::Tensor<float> inf = tl::addcdiv(small, tl::ones<float>({3}), tl::zeros<float>({3}), 2);
  CHECK(std::isinf(inf.to_vector()[0]));
}

TEST_CASE("clip is clamp") {
  const auto x = tl::tensor<float>({-2.0f, -0.5f, 0.25f, 3.0f});
  const tl::Tensor<float> a = tl::clip(x, -1.0, 1.0), b = x.clip(tl::None, 0.0), e = tl::clamp(x, -1.0, 1.0);
  CHECK(a.to_vector() == e.to_vector());
  CHECK(b.to_vector() == std::vector<float>{-2.0f, -0.5f, 0.0f, 0.0f});
  auto y = x.clone();
  y.clip_(0.0);
  CHECK(y.to_vector() == std::vector<float>{0.0f, 0.0f, 0.25f, 3.0f});
}

TEST_CASE("nan_to_num, logaddexp, logaddexp2 and xlogy match PyTorch on special values") {
  const auto& f = fixtures::load("surface.txt");
  auto run = [&]<class T>(const std::string& type, double tol) {
    INFO(type);
    const auto& d = f["nan_to_num/" + type + "/default"];
    fixtures::check_close(tl::Tensor<T>(tl::nan_to_num(d.get<T>("x"))), d.get<T>("y"), 0, 0, "nan_to_num");
    const auto& g = f["nan_to_num/" + type + "/given"];
    fixtures::check_close(tl::Tensor<T>(d.get<T>("x").nan_to_num(1.5, 100.0, -3.0)), g.get<T>("y"), 0, 0,
                          "nan_to_num with values");
    for (const char* op : {"logaddexp", "logaddexp2", "xlogy"}) {
      const auto& c = f[std::string(op) + "/" + type];
      const auto a = c.get<T>("a"), b = c.get<T>("b");
      const std::string name = op;
      const tl::Tensor<T> y = name == "logaddexp"    ? tl::Tensor<T>(tl::logaddexp(a, b))
                              : name == "logaddexp2" ? tl::Tensor<T>(a.logaddexp2(b))
                                                     : tl::Tensor<T>(tl::xlogy(a, b));
      fixtures::check_close(y, c.get<T>("y"), tol, tol, op);
    }
  };
  run.operator()<float>("float32", 1e-6);
  run.operator()<double>("float64", 1e-14);
  const auto& i = f["xlogy/int64"];
  fixtures::check_close(tl::Tensor<float>(tl::xlogy(i.get<int64_t>("a"), i.get<int64_t>("b"))), i.get<float>("y"), 1e-6,
                        1e-6, "xlogy of integers");
  // Integral tensors come back as a copy.
  const auto n = tl::tensor<int64_t>({1, -2});
  const auto copy = tl::nan_to_num(n);
  CHECK(copy.to_vector() == n.to_vector());
  CHECK(copy.data_ptr() != n.data_ptr());
  // The largest finite float16 replaces +inf by default.
  const auto h = tl::tensor<float>({std::numeric_limits<float>::infinity()}).to<tl::Half>();
  CHECK(static_cast<float>(tl::Tensor<tl::Half>(tl::nan_to_num(h)).to_vector()[0]) == 65504.0f);
}
