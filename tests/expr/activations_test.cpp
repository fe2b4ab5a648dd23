// The composed activations (expr/activations.hpp) against PyTorch 1.13
// (tests/fixtures/generate_activations.py): values and gradients in float
// and double, on a grid through their breakpoints and on special values.

#include <doctest/doctest.h>

#include <algorithm>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "fixtures.hpp"
#include "tensorlib/tensorlib.hpp"

namespace {

template <class T>
using Activation = std::function<tl::Tensor<T>(const tl::Tensor<T>&)>;

template <class T>
std::map<std::string, Activation<T>> activations() {
  return {
      {"relu6", [](const tl::Tensor<T>& x) { return tl::Tensor<T>(tl::relu6(x)); }},
      {"hardsigmoid", [](const tl::Tensor<T>& x) { return tl::Tensor<T>(tl::hardsigmoid(x)); }},
      {"hardswish", [](const tl::Tensor<T>& x) { return tl::Tensor<T>(tl::hardswish(x)); }},
      {"mish", [](const tl::Tensor<T>& x) { return tl::Tensor<T>(tl::mish(x)); }},
      {"logsigmoid", [](const tl::Tensor<T>& x) { return tl::Tensor<T>(tl::logsigmoid(x)); }},
      {"softsign", [](const tl::Tensor<T>& x) { return tl::Tensor<T>(tl::softsign(x)); }},
      {"tanhshrink", [](const tl::Tensor<T>& x) { return tl::Tensor<T>(tl::tanhshrink(x)); }},
      {"softshrink", [](const tl::Tensor<T>& x) { return tl::Tensor<T>(tl::softshrink(x)); }},
      {"softshrink_1", [](const tl::Tensor<T>& x) { return tl::Tensor<T>(tl::softshrink(x, 1.0)); }},
      {"celu", [](const tl::Tensor<T>& x) { return tl::Tensor<T>(tl::celu(x)); }},
      {"celu_05", [](const tl::Tensor<T>& x) { return tl::Tensor<T>(tl::celu(x, 0.5)); }},
      {"selu", [](const tl::Tensor<T>& x) { return tl::Tensor<T>(tl::selu(x)); }},
  };
}

// hardsigmoid's gradient: PyTorch 1.13 (and 2.x) multiply by 1.0f / 6.0f
// whatever the type, 3e-8 off 1/6 in double; here 1/6, the documented
// derivative.
template <class T>
void check_activations(const char* dtype, double rtol, double atol) {
  const auto& f = fixtures::load("activations.txt");
  for (const auto& [name, fn] : activations<T>()) {
    const auto& c = f[name + "/" + dtype];
    auto x = c.template get<T>("x").requires_grad_();
    const auto y = fn(x);
    fixtures::check_close(y, c.template get<T>("y"), rtol, atol, name + " " + dtype);
    const auto g =
        tl::autograd::grad({tl::Tensor<T>((y * c.template get<T>("w")).sum())}, std::vector<tl::Tensor<T>>{x});
    fixtures::check_close(g[0], c.template get<T>("g"), name == "hardsigmoid" ? std::max(rtol, 1e-7) : rtol, atol,
                          name + " gradient " + dtype);
  }
}

}  // namespace

TEST_CASE("relu6, hardsigmoid, hardswish, mish, logsigmoid, softsign, tanhshrink, softshrink, celu, selu") {
  check_activations<double>("float64", 1e-14, 1e-300);
  // float: the formulas round in another order than PyTorch's kernels
  // (x - tanh(x) cancels near 0).
  check_activations<float>("float32", 1e-5, 1e-7);
  // One fused loop each, forward.
  const auto x = tl::linspace<float>(-4.0f, 4.0f, 9);
  const auto before = tl::stats::snapshot();
  const tl::Tensor<float> y = tl::hardswish(x) + tl::mish(x) * tl::selu(x);
  CHECK((tl::stats::snapshot() - before).fused_loops == 1);
  CHECK(y.numel() == 9);
  CHECK(fixtures::error_message([&] { (void)tl::softshrink(x, -1.0); }) ==
        "softshrink: lambda must be greater or equal to 0, but found to be -1.");
  CHECK(fixtures::error_message([&] { (void)tl::celu(x, 0.0); }) ==
        "celu: ZeroDivisionError: alpha cannot be 0 for CELU");
}

TEST_CASE("composed activations: gradcheck and gradgradcheck in double") {
  using Inputs = std::vector<tl::Tensor<double>>;
  // Away from the breakpoints, where finite differences hold.
  auto x = tl::tensor<double>({-5.1, -2.9, -1.3, -0.4, 0.3, 0.7, 1.9, 2.6, 4.2}).requires_grad_();
  for (const auto& [name, fn] : activations<double>()) {
    INFO(name);
    const auto f = [&fn = fn](const Inputs& in) { return fn(in[0]); };
    CHECK(tl::autograd::gradcheck(f, {x}));
    CHECK(tl::autograd::gradgradcheck(f, {x}));
  }
}
