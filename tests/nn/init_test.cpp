// tl::nn::init (include/tensorlib/nn/init.hpp): PyTorch's gains and fans,
// the exact initializers (constant, eye, dirac), and the laws of the random
// ones (bounds, moments, orthogonality, sparsity), without recording.

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "fixtures.hpp"
#include "tensorlib/tensorlib.hpp"

namespace init = tl::nn::init;

TEST_CASE("nn::init: calculate_gain and fans as PyTorch's") {
  CHECK(init::calculate_gain("linear") == 1.0);
  CHECK(init::calculate_gain("conv2d") == 1.0);
  CHECK(init::calculate_gain("sigmoid") == 1.0);
  CHECK(init::calculate_gain("tanh") == doctest::Approx(5.0 / 3).epsilon(1e-15));
  CHECK(init::calculate_gain("relu") == doctest::Approx(std::sqrt(2.0)).epsilon(1e-15));
  CHECK(init::calculate_gain("leaky_relu") == doctest::Approx(1.4141428569978354).epsilon(1e-15));
  CHECK(init::calculate_gain("leaky_relu", 0.2) == doctest::Approx(1.386750490563073).epsilon(1e-15));
  CHECK(init::calculate_gain("selu") == 0.75);
  CHECK(fixtures::error_message([] { (void)init::calculate_gain("swish"); }) ==
        "calculate_gain: Unsupported nonlinearity swish");
  const auto w = tl::empty<float>({16, 8, 3, 3});
  CHECK(init::calculate_fan_in_and_fan_out(w) == std::pair<int64_t, int64_t>{72, 144});
  CHECK(fixtures::error_message([] { (void)init::calculate_fan_in_and_fan_out(tl::empty<float>({3})); }) ==
        "Fan in and fan out can not be computed for tensor with fewer than 2 dimensions");
}

TEST_CASE("nn::init: exact initializers, unrecorded on a leaf that requires grad") {
  auto w = tl::empty<double>({3, 4}).requires_grad_();
  init::eye_(w);
  CHECK(tl::equal(w.detach(), tl::eye<double>(3, 4)));
  CHECK(!w.grad_fn());
  init::constant_(w, 0.5);
  CHECK(tl::equal(w.detach(), tl::full<double>({3, 4}, 0.5)));
  init::zeros_(w);
  CHECK(w.detach().abs().max().item() == 0.0);
  init::ones_(w);
  CHECK(w.detach().min().item() == 1.0);
  // dirac_: a 3 x 3 convolution with it is the identity on its channels.
  auto k = tl::empty<double>({4, 4, 3, 3});
  init::dirac_(k);
  const auto x = tl::randn<double>({2, 4, 5, 5});
  fixtures::check_close(tl::conv2d(x, k, std::nullopt, {1}, {1}), x, 0, 0, "dirac_ convolution");
  auto grouped = tl::empty<double>({6, 2, 3});
  init::dirac_(grouped, 3);
  CHECK(grouped.sum().item() == 6.0);
  CHECK(grouped.select(0, 2).select(0, 0).select(0, 1).item() == 1.0);  // group 1, channel 0
  CHECK(fixtures::error_message([] {
          auto t = tl::empty<float>({2, 2});
          init::dirac_(t);
        }) == "dirac_: Only tensors with 3, 4, or 5 dimensions are supported");
  CHECK(fixtures::error_message([] {
          auto t = tl::empty<float>({2, 2, 2});
          init::eye_(t);
        }) == "eye_: Only tensors with 2 dimensions are supported");
}

TEST_CASE("nn::init: random initializers keep their bounds and moments") {
  tl::Generator gen(17);
  auto w = tl::empty<double>({256, 128, 3});  // fan_in 384, fan_out 768
  init::xavier_uniform_(w, 1.0, gen);
  const double a = std::sqrt(6.0 / (384 + 768));
  CHECK(w.abs().max().item() <= a);
  CHECK(w.var().item() == doctest::Approx(a * a / 3).epsilon(0.02));
  init::xavier_normal_(w, 2.0, gen);
  CHECK(w.std().item() == doctest::Approx(2.0 * std::sqrt(2.0 / (384 + 768))).epsilon(0.02));
  init::kaiming_uniform_(w, std::sqrt(5.0), "fan_in", "leaky_relu", gen);  // nn.Linear's own initialization
  const double bound = std::sqrt(3.0) * std::sqrt(2.0 / 6.0) / std::sqrt(384.0);
  CHECK(w.abs().max().item() <= bound);
  CHECK(w.abs().max().item() > 0.99 * bound);
  init::kaiming_normal_(w, 0, "fan_out", "relu", gen);
  CHECK(w.std().item() == doctest::Approx(std::sqrt(2.0 / 768)).epsilon(0.02));
  init::trunc_normal_(w, 1.0, 2.0, -1.0, 2.5, gen);
  CHECK(w.min().item() >= -1.0);
  CHECK(w.max().item() <= 2.5);
  // The mean of N(1, 4) truncated to [-1, 2.5]: 1 + 2 (phi(-1) - phi(0.75)) / (Phi(0.75) - Phi(-1)).
  CHECK(w.mean().item() == doctest::Approx(0.8075).epsilon(0.01));
  init::uniform_(w, -3.0, -2.0, gen);
  CHECK(w.min().item() >= -3.0);
  CHECK(w.max().item() < -2.0);
  init::normal_(w, 5.0, 0.5, gen);
  CHECK(w.mean().item() == doctest::Approx(5.0).epsilon(0.01));
  CHECK(fixtures::error_message([&] { init::kaiming_normal_(w, 0, "fan_avg"); }) ==
        "Mode fan_avg not supported, please use one of fan_in, fan_out");
}

TEST_CASE("nn::init: orthogonal_ and sparse_") {
  tl::Generator gen(18);
  for (const tl::Shape& shape : {tl::Shape{6, 4}, tl::Shape{3, 8}, tl::Shape{4, 2, 3}}) {
    auto w = tl::empty<double>(shape);
    init::orthogonal_(w, 1.5, gen);
    const auto m = w.reshape({shape[0], -1});
    // Rows orthonormal when rows <= cols, columns when rows > cols; times gain^2.
    const auto gram = m.size(0) <= m.size(1) ? tl::matmul(m, m.t()) : tl::matmul(m.t(), m);
    fixtures::check_close(gram, tl::Tensor<double>(tl::eye<double>(gram.size(0)) * 2.25), 1e-12, 1e-12,
                          "orthogonal_ gram");
  }
  auto s = tl::empty<double>({10, 6});
  init::sparse_(s, 0.3, 0.01, gen);
  for (int64_t c = 0; c < 6; ++c) CHECK(tl::eq(s.select(1, c), 0.0).sum().item() == 3);
  CHECK(s.abs().max().item() < 0.1);
}
