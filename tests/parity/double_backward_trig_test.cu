// Double backward of the trigonometric and hyperbolic functors and of the
// binary ones on the GPU against the CPU (second_order_parity.hpp):
// it compiles the second-order kernel of each functor's nested dual forms (a
// user's nvcc file gets them for every expression it differentiates). The
// functors are spread over three files because nvcc's time grows faster
// than a file's kernels (Compile time in docs/architecture.md).
// Tolerances: 1e-4 relative in float.

#include <doctest/doctest.h>

#include <tensorlib/tensor.hpp>

#include "second_order_parity.hpp"

TEST_CASE("CUDA double backward: the trigonometric and binary functors' second-order kernels match the CPU") {
  if (cuda_support::no_gpu()) return;
  using T = tl::Tensor<float>;
  const auto unary = [](const char* name, auto f) {
    second_order_parity::check(
        name, [f](const T& a, const T&) { return f(a); }, 1);
  };
  const auto binary = [](const char* name, auto f) { second_order_parity::check(name, f, 2); };
  unary("sin", [](const T& a) { return tl::sin(a); });
  unary("cos", [](const T& a) { return tl::cos(a); });
  unary("tan", [](const T& a) { return tl::tan(a); });
  unary("asin", [](const T& a) { return tl::asin(a); });
  unary("acos", [](const T& a) { return tl::acos(a); });
  unary("atan", [](const T& a) { return tl::atan(a); });
  unary("sinh", [](const T& a) { return tl::sinh(a); });
  unary("cosh", [](const T& a) { return tl::cosh(a); });
  unary("tanh", [](const T& a) { return tl::tanh(a); });
  unary("asinh", [](const T& a) { return tl::asinh(a); });
  unary("acosh", [](const T& a) { return tl::acosh(a + 1.0f); });  // the inputs are in (0.2, 0.8)
  unary("atanh", [](const T& a) { return tl::atanh(a); });
  binary("add sub", [](const T& a, const T& b) { return (a + b) * (a - b); });
  binary("div", [](const T& a, const T& b) { return a / b; });
  binary("pow", [](const T& a, const T& b) { return tl::pow(a, b); });
  binary("atan2", [](const T& a, const T& b) { return tl::atan2(a, b); });
  binary("hypot", [](const T& a, const T& b) { return tl::hypot(a, b); });
  binary("maximum minimum", [](const T& a, const T& b) { return tl::maximum(a, b) * tl::minimum(a, b); });
  binary("fmod remainder", [](const T& a, const T& b) { return tl::fmod(a, b) * tl::remainder(a, b); });
  binary("where", [](const T& a, const T& b) { return tl::where(a > b, a * b, b * b); });
  binary("lerp", [](const T& a, const T& b) { return tl::lerp(a, b, a); });
}
