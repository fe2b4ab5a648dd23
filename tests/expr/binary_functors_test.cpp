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

// ndtr's reference is erfc(-x / sqrt 2) / 2 computed by torch, not
// torch.special.ndtr, which flushes the lower tail to 0
// (tests/fixtures/generate_composites.py).
TEST_CASE("fmax, fmin, hypot, xlog1py, deg2rad, rad2deg, sinc, ndtr and float_power match PyTorch") {
  const auto& f = fixtures::load("composites.txt");
  auto run = [&]<class T>(const std::string& type, double tol) {
    INFO(type);
    for (const std::string op : {"fmax", "fmin", "hypot", "xlog1py"}) {
      const auto& c = f[op + "/" + type];
      const auto a = c.get<T>("a"), b = c.get<T>("b");
      const tl::Tensor<T> y = op == "fmax"    ? tl::Tensor<T>(tl::fmax(a, b))
                              : op == "fmin"  ? tl::Tensor<T>(a.fmin(b))
                              : op == "hypot" ? tl::Tensor<T>(a.hypot(b))
                                              : tl::Tensor<T>(tl::special::xlog1py(a, b));
      const bool selection = op == "fmax" || op == "fmin";  // exact, the sign of a zero too
      const auto expected = c.get<T>("y");
      fixtures::check_close(y, expected, selection ? 0 : tol, 0, op);
      if (selection) {
        const auto got = y.to_vector(), want = expected.to_vector();
        for (std::size_t i = 0; i < got.size(); ++i)
          if (!std::isnan(want[i])) CHECK_MESSAGE(std::signbit(got[i]) == std::signbit(want[i]), op, " element ", i);
      }
    }
    for (const std::string op : {"deg2rad", "rad2deg", "sinc", "ndtr"}) {
      const auto& c = f[op + "/" + type];
      const auto x = c.get<T>("x");
      const tl::Tensor<T> y = op == "deg2rad"   ? tl::Tensor<T>(x.deg2rad())
                              : op == "rad2deg" ? tl::Tensor<T>(tl::rad2deg(x))
                              : op == "sinc"    ? tl::Tensor<T>(x.sinc())
                                                : tl::Tensor<T>(tl::special::ndtr(x));
      fixtures::check_close(y, c.get<T>("y"), tol, 0, op);  // relative: tiny results (ndtr's tail) count
    }
  };
  run.operator()<float>("float32", 2e-6);
  run.operator()<double>("float64", 1e-14);
  // Integral operands: selections keep int64, the others compute in float.
  const auto& fi = f["fmax/int64"];
  fixtures::check_close(tl::Tensor<int64_t>(tl::fmax(fi.get<int64_t>("a"), fi.get<int64_t>("b"))), fi.get<int64_t>("y"),
                        0, 0, "fmax of integers");
  const auto& gi = f["fmin/int64"];
  fixtures::check_close(tl::Tensor<int64_t>(tl::fmin(gi.get<int64_t>("a"), gi.get<int64_t>("b"))), gi.get<int64_t>("y"),
                        0, 0, "fmin of integers");
  const auto& xi = f["xlog1py/int64"];
  fixtures::check_close(tl::Tensor<float>(tl::xlog1py(xi.get<int64_t>("a"), xi.get<int64_t>("b"))), xi.get<float>("y"),
                        2e-6, 2e-6, "xlog1py of integers");
  const auto& fm = f["fmax/mixed"];
  fixtures::check_close(tl::Tensor<float>(tl::fmax(fm.get<int64_t>("a"), fm.get<float>("b"))), fm.get<float>("y"), 0, 0,
                        "fmax of int64 and float");
  const auto& hm = f["hypot/mixed"];
  fixtures::check_close(tl::Tensor<float>(tl::hypot(hm.get<int64_t>("a"), hm.get<float>("b"))), hm.get<float>("y"),
                        2e-6, 2e-6, "hypot of int64 and float");
  for (const std::string op : {"deg2rad", "rad2deg", "sinc", "ndtr"}) {
    const auto& c = f[op + "/int64"];
    const auto x = c.get<int64_t>("x");
    const tl::Tensor<float> y = op == "deg2rad"   ? tl::Tensor<float>(tl::deg2rad(x))
                                : op == "rad2deg" ? tl::Tensor<float>(x.rad2deg())
                                : op == "sinc"    ? tl::Tensor<float>(tl::sinc(x))
                                                  : tl::Tensor<float>(tl::special::ndtr(x));
    fixtures::check_close(y, c.get<float>("y"), 2e-6, 2e-6, op + " of integers");
  }
  // float_power computes in double whatever its operands.
  const auto& tt = f["float_power/tensor_tensor"];
  fixtures::check_close(tl::Tensor<double>(tl::float_power(tt.get<float>("a"), tt.get<float>("b"))),
                        tt.get<double>("y"), 1e-15, 0, "float_power(tensor, tensor)");
  const auto& is = f["float_power/int_scalar"];
  fixtures::check_close(tl::Tensor<double>(is.get<int32_t>("a").float_power(2)), is.get<double>("y"), 0, 0,
                        "float_power(int tensor, 2)");
  const auto& ns = f["float_power/int_neg_scalar"];
  fixtures::check_close(tl::Tensor<double>(tl::float_power(ns.get<int32_t>("a"), -0.5)), ns.get<double>("y"), 1e-15, 0,
                        "float_power(int tensor, -0.5)");
  const auto& st = f["float_power/scalar_tensor"];
  fixtures::check_close(tl::Tensor<double>(tl::float_power(3, st.get<float>("b"))), st.get<double>("y"), 1e-15, 0,
                        "float_power(3, tensor)");
}

TEST_CASE("tl::special names the library's functions") {
  const auto x = tl::tensor<double>({-2.5, -0.5, 0.0, 0.3, 0.75, 4.0});
  const auto p = tl::tensor<double>({0.1, 0.25, 0.5, 0.75, 0.9, 0.99});
  const auto same = [](const auto& a, const auto& b) {
    const tl::Tensor<double> u = a, v = b;
    CHECK(u.to_vector() == v.to_vector());
  };
  same(tl::special::expit(x), tl::sigmoid(x));
  same(tl::special::logit(p, 0.2), tl::logit(p, 0.2));
  same(tl::special::erf(x), tl::erf(x));
  same(tl::special::erfc(x), tl::erfc(x));
  same(tl::special::erfinv(p), tl::erfinv(p));
  same(tl::special::exp2(x), tl::exp2(x));
  same(tl::special::expm1(x), tl::expm1(x));
  same(tl::special::log1p(p), tl::log1p(p));
  same(tl::special::gammaln(x), tl::lgamma(x));
  same(tl::special::digamma(p), tl::digamma(p));
  same(tl::special::psi(p), tl::digamma(p));
  same(tl::special::sinc(x), tl::sinc(x));
  same(tl::special::round(x), tl::round(x));
  same(tl::special::xlogy(x, p), tl::xlogy(x, p));
  const auto m = tl::stack({x, p});
  same(tl::special::logsumexp(m, {1}), tl::logsumexp(m, {1}));
  same(tl::special::softmax(m, 1), tl::softmax(m, 1));
  same(tl::special::log_softmax(m, 0), tl::log_softmax(m, 0));
}
