// Double backward of the activations, the sign and rounding functors,
// clamp, and the Bessel, zeta and igamma functions of torch.special on the
// GPU against the CPU (second_order_parity.hpp):
// it compiles the second-order kernel of each functor's nested dual forms (a
// user's nvcc file gets them for every expression it differentiates). The
// functors are spread over three files because nvcc's time grows faster
// than a file's kernels (Compile time in docs/architecture.md).
// Tolerances: 1e-4 relative in float.

#include <doctest/doctest.h>

#include <tensorlib/tensor.hpp>

#include "second_order_parity.hpp"

TEST_CASE("CUDA double backward: the activations' and the rounding functors' second-order kernels match the CPU") {
  if (cuda_support::no_gpu()) return;
  using T = tl::Tensor<float>;
  const auto unary = [](const char* name, auto f) {
    second_order_parity::check(
        name, [f](const T& a, const T&) { return f(a); }, 1);
  };
  unary("relu", [](const T& a) { return tl::relu(a); });
  unary("gelu", [](const T& a) { return tl::gelu(a); });
  unary("gelu tanh", [](const T& a) { return tl::gelu(a, "tanh"); });
  unary("silu", [](const T& a) { return tl::silu(a); });
  unary("softplus", [](const T& a) { return tl::softplus(a, 2.0, 5.0); });
  unary("hardtanh", [](const T& a) { return tl::hardtanh(a, -2.0, 0.5); });
  unary("leaky_relu", [](const T& a) { return tl::leaky_relu(a - 0.5f, 0.2); });
  unary("elu", [](const T& a) { return tl::elu(a - 0.5f); });
  unary("neg", [](const T& a) { return -a; });
  unary("abs", [](const T& a) { return tl::abs(a - 0.5f); });
  unary("sign", [](const T& a) { return tl::sign(a - 0.5f) * a; });
  unary("reciprocal", [](const T& a) { return tl::reciprocal(a); });
  unary("square", [](const T& a) { return tl::square(a); });
  unary("floor ceil round trunc frac", [](const T& a) {
    return (tl::floor(a * 3.0f) + tl::ceil(a * 3.0f) + tl::round(a * 3.0f) + tl::trunc(a * 3.0f)) * a +
           tl::frac(a * 3.0f);
  });
  unary("clamp", [](const T& a) { return tl::clamp(a, 0.3, 0.7) * a; });
  // The Bessel functions' and the binary special functions' nested dual
  // forms (their first operands constant: PyTorch has no derivative there).
  unary("bessel_j1", [](const T& a) { return tl::special::bessel_j1(a * 4.0f); });
  unary("bessel_y1", [](const T& a) { return tl::special::bessel_y1(a * 4.0f); });
  unary("scaled_modified_bessel_k1", [](const T& a) { return tl::special::scaled_modified_bessel_k1(a * 2.0f); });
  unary("spherical_bessel_j0", [](const T& a) { return tl::special::spherical_bessel_j0(a * 4.0f); });
  unary("airy_ai", [](const T& a) { return tl::special::airy_ai(a * 16.0f - 12.0f); });
  unary("zeta", [](const T& a) { return tl::special::zeta(3.0f, a + 1.0f); });
  unary("igamma", [](const T& a) { return tl::igamma(tl::full_like(a.detach(), 2.5f), a * 3.0f); });
}
