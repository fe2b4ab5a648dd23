// Helpers shared by the functor fixture tests (tests/fixtures/functors.txt).
// Loading the expected tensor also checks that our result element type is
// PyTorch's (e.g. sigmoid of int64 is float32, square of bool is int64).

#pragma once
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <string>

#include "fixtures.hpp"

namespace functor_fixtures {

// Where the functors run: the CPU here, a GPU in tests/parity (the same
// fixtures and tolerances then check the CUDA kernels).
inline tl::Device device = tl::kCPU;

// Tolerances: exact for arithmetic and rounding; for functions computed by
// different polynomial kernels than PyTorch's SLEEF/libm, a few ulp.
constexpr double kFloatRtol = 4e-6, kFloatAtol = 2e-6;
constexpr double kDoubleRtol = 1e-13, kDoubleAtol = 1e-13;

template <class T, class F>
void check_unary(const std::string& name, F f, bool exact = false) {
  const std::string key = "unary/" + name + "/" + std::string(tl::DTypeTraits<T>::name);
  const auto& c = fixtures::load("functors.txt")[key];
  const auto x = c.get<T>("x").to(device);
  using R = tl::value_type_t<decltype(f(x))>;
  const tl::Tensor<R> y = f(x);
  auto expected = c.get<R>("y");
  if (name == "sinh" || name == "cosh") {
    // PyTorch's vectorised sinh/cosh (SLEEF) overflow to inf just below the
    // true overflow threshold (e.g. float sinh(89) = 2.245e38 < FLT_MAX);
    // ours return the finite value. Check those few against long double.
    const auto xv = x.to_vector();
    auto* e = expected.data_ptr();
    for (std::size_t i = 0; i < xv.size(); ++i) {
      const long double v =
          name == "sinh" ? std::sinh(static_cast<long double>(xv[i])) : std::cosh(static_cast<long double>(xv[i]));
      if (std::isinf(static_cast<double>(e[i])) && std::fabs(v) <= std::numeric_limits<R>::max())
        e[i] = static_cast<R>(v);
    }
  }
  const double rtol = exact ? 0 : (std::is_same_v<T, double> ? kDoubleRtol : kFloatRtol);
  const double atol = exact ? 0 : (std::is_same_v<T, double> ? kDoubleAtol : kFloatAtol);
  fixtures::check_close(y.cpu(), expected, rtol, atol, key);
}

template <class T, class F>
void check_binary(const std::string& name, F f, bool exact = false) {
  const std::string key = "binary/" + name + "/" + std::string(tl::DTypeTraits<T>::name);
  const auto& c = fixtures::load("functors.txt")[key];
  const auto a = c.get<T>("a").to(device);
  const auto b = c.get<T>("b").to(device);
  using R = tl::value_type_t<decltype(f(a, b))>;
  const tl::Tensor<R> y = f(a, b);
  const double rtol = exact ? 0 : (std::is_same_v<T, double> ? kDoubleRtol : kFloatRtol);
  const double atol = exact ? 0 : (std::is_same_v<T, double> ? kDoubleAtol : kFloatAtol);
  fixtures::check_close(y.cpu(), c.get<R>("y"), rtol, atol, key);
}

template <class T>
void check_float_unary() {
  // Exact: these are correctly rounded by definition.
  check_unary<T>(
      "abs", [](const auto& x) { return tl::abs(x); }, true);
  check_unary<T>(
      "neg", [](const auto& x) { return -x; }, true);
  check_unary<T>(
      "ceil", [](const auto& x) { return tl::ceil(x); }, true);
  check_unary<T>(
      "floor", [](const auto& x) { return x.floor(); }, true);
  check_unary<T>(
      "round", [](const auto& x) { return tl::round(x); }, true);
  check_unary<T>(
      "trunc", [](const auto& x) { return tl::trunc(x); }, true);
  check_unary<T>(
      "frac", [](const auto& x) { return tl::frac(x); }, true);
  check_unary<T>(
      "sign", [](const auto& x) { return tl::sign(x); }, true);
  check_unary<T>(
      "relu", [](const auto& x) { return tl::relu(x); }, true);
  check_unary<T>(
      "square", [](const auto& x) { return tl::square(x); }, true);
  check_unary<T>(
      "reciprocal", [](const auto& x) { return tl::reciprocal(x); }, true);
  check_unary<T>(
      "sqrt", [](const auto& x) { return tl::sqrt(x); }, true);
  check_unary<T>(
      "isnan", [](const auto& x) { return tl::isnan(x); }, true);
  check_unary<T>(
      "isinf", [](const auto& x) { return x.isinf(); }, true);
  check_unary<T>(
      "isfinite", [](const auto& x) { return tl::isfinite(x); }, true);
  check_unary<T>(
      "hardtanh", [](const auto& x) { return tl::hardtanh(x); }, true);
  check_unary<T>(
      "hardtanh_m2_3", [](const auto& x) { return tl::hardtanh(x, -2.0, 3.0); }, true);
  check_unary<T>(
      "clamp_m1_2", [](const auto& x) { return tl::clamp(x, -1.0, 2.0); }, true);
  check_unary<T>(
      "clamp_min_05", [](const auto& x) { return x.clamp_min(0.5); }, true);
  check_unary<T>(
      "clamp_max_05", [](const auto& x) { return tl::clamp(x, tl::None, 0.5); }, true);
  check_unary<T>("leaky_relu", [](const auto& x) { return tl::leaky_relu(x); });
  check_unary<T>("leaky_relu_02", [](const auto& x) { return tl::leaky_relu(x, 0.2); });
  // Transcendental.
  check_unary<T>("rsqrt", [](const auto& x) { return tl::rsqrt(x); });
  check_unary<T>("exp", [](const auto& x) { return tl::exp(x); });
  check_unary<T>("exp2", [](const auto& x) { return tl::exp2(x); });
  check_unary<T>("expm1", [](const auto& x) { return tl::expm1(x); });
  check_unary<T>("log", [](const auto& x) { return tl::log(x); });
  check_unary<T>("log2", [](const auto& x) { return tl::log2(x); });
  check_unary<T>("log10", [](const auto& x) { return tl::log10(x); });
  check_unary<T>("log1p", [](const auto& x) { return tl::log1p(x); });
  check_unary<T>("sin", [](const auto& x) { return tl::sin(x); });
  check_unary<T>("cos", [](const auto& x) { return tl::cos(x); });
  check_unary<T>("tan", [](const auto& x) { return tl::tan(x); });
  check_unary<T>("asin", [](const auto& x) { return tl::asin(x); });
  check_unary<T>("acos", [](const auto& x) { return tl::acos(x); });
  check_unary<T>("atan", [](const auto& x) { return tl::atan(x); });
  check_unary<T>("sinh", [](const auto& x) { return tl::sinh(x); });
  check_unary<T>("cosh", [](const auto& x) { return tl::cosh(x); });
  check_unary<T>("tanh", [](const auto& x) { return tl::tanh(x); });
  check_unary<T>("asinh", [](const auto& x) { return tl::asinh(x); });
  check_unary<T>("acosh", [](const auto& x) { return x.acosh(); });
  check_unary<T>("atanh", [](const auto& x) { return tl::atanh(x); });
  check_unary<T>("sigmoid", [](const auto& x) { return tl::sigmoid(x); });
  check_unary<T>("erf", [](const auto& x) { return tl::erf(x); });
  check_unary<T>("erfc", [](const auto& x) { return tl::erfc(x); });
  check_unary<T>("erfinv", [](const auto& x) { return tl::erfinv(x); });
  check_unary<T>("lgamma", [](const auto& x) { return tl::lgamma(x); });
  check_unary<T>("digamma", [](const auto& x) { return tl::digamma(x); });
  check_unary<T>("logit", [](const auto& x) { return tl::logit(x); });
  check_unary<T>("logit_eps", [](const auto& x) { return tl::logit(x, 1e-3); });
  check_unary<T>("silu", [](const auto& x) { return tl::silu(x); });
  check_unary<T>("gelu", [](const auto& x) { return tl::gelu(x); });
  check_unary<T>("gelu_tanh", [](const auto& x) { return tl::gelu(x, "tanh"); });
  check_unary<T>("softplus", [](const auto& x) { return tl::softplus(x); });
  check_unary<T>("softplus_beta2_t5", [](const auto& x) { return tl::softplus(x, 2.0, 5.0); });
  check_unary<T>("elu", [](const auto& x) { return tl::elu(x); });
  check_unary<T>("elu_05", [](const auto& x) { return tl::elu(x, 0.5); });
}

template <class T>
void check_integer_unary() {
  if constexpr (!std::is_same_v<T, bool>) {
    check_unary<T>(
        "abs", [](const auto& x) { return tl::abs(x); }, true);
    check_unary<T>(
        "neg", [](const auto& x) { return tl::neg(x); }, true);
    check_unary<T>(
        "sign", [](const auto& x) { return tl::sign(x); }, true);
    check_unary<T>(
        "relu", [](const auto& x) { return tl::relu(x); }, true);
    check_unary<T>(
        "floor", [](const auto& x) { return tl::floor(x); }, true);
    check_unary<T>(
        "ceil", [](const auto& x) { return tl::ceil(x); }, true);
    check_unary<T>(
        "round", [](const auto& x) { return tl::round(x); }, true);
    check_unary<T>(
        "trunc", [](const auto& x) { return tl::trunc(x); }, true);
  }
  check_unary<T>(
      "square", [](const auto& x) { return tl::square(x); }, true);
  check_unary<T>(
      "bitwise_not", [](const auto& x) { return ~x; }, true);
  check_unary<T>(
      "logical_not", [](const auto& x) { return !x; }, true);
}

template <class T>
void check_common_binary() {
  check_binary<T>(
      "add", [](const auto& a, const auto& b) { return a + b; }, true);
  check_binary<T>(
      "mul", [](const auto& a, const auto& b) { return a * b; }, true);
  check_binary<T>(
      "maximum", [](const auto& a, const auto& b) { return tl::maximum(a, b); }, true);
  check_binary<T>(
      "minimum", [](const auto& a, const auto& b) { return a.minimum(b); }, true);
  check_binary<T>(
      "eq", [](const auto& a, const auto& b) { return a == b; }, true);
  check_binary<T>(
      "ne", [](const auto& a, const auto& b) { return a != b; }, true);
  check_binary<T>(
      "lt", [](const auto& a, const auto& b) { return a < b; }, true);
  check_binary<T>(
      "le", [](const auto& a, const auto& b) { return a <= b; }, true);
  check_binary<T>(
      "gt", [](const auto& a, const auto& b) { return a > b; }, true);
  check_binary<T>(
      "ge", [](const auto& a, const auto& b) { return a >= b; }, true);
  check_binary<T>(
      "logical_and", [](const auto& a, const auto& b) { return tl::logical_and(a, b); }, true);
  check_binary<T>(
      "logical_or", [](const auto& a, const auto& b) { return tl::logical_or(a, b); }, true);
  check_binary<T>(
      "logical_xor", [](const auto& a, const auto& b) { return a.logical_xor(b); }, true);
}

template <class T>
void check_arithmetic_binary() {
  check_common_binary<T>();
  check_binary<T>(
      "sub", [](const auto& a, const auto& b) { return a - b; }, true);
  check_binary<T>(
      "fmod", [](const auto& a, const auto& b) { return tl::fmod(a, b); }, true);
  check_binary<T>(
      "remainder", [](const auto& a, const auto& b) { return tl::remainder(a, b); }, true);
  check_binary<T>(
      "pow", [](const auto& a, const auto& b) { return tl::pow(a, b); }, !tl::is_floating<T>);
}

}  // namespace functor_fixtures
