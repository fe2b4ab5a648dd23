// Functors on the GPU against the PyTorch fixtures (functor_parity.hpp),
// split in three files so nvcc builds them in parallel: each instantiates
// three kernels per functor and dtype.

#include "functor_parity.hpp"

using namespace functor_fixtures;

TEST_CASE("CUDA: unary float functors match PyTorch") {
  on_gpu([] {
    check_float_unary<float>();
    check_float_unary<double>();
  });
}

TEST_CASE("CUDA: polygamma and entr match the CPU, poles and large arguments included") {
  if (cuda_support::no_gpu()) return;
  const auto x = tl::tensor<double>({-3.0, -2.5, -0.5, 0.0, 1e-3, 0.5, 1.0, 3.7, 8.9, 9.1, 100.0, 1e8});
  for (const int64_t n : {0, 1, 2, 5}) {
    CAPTURE(n);
    // The same double kernel on both sides (math::polygamma), so equal up
    // to the device's own pow, exp and log.
    cuda_support::check_parity(tl::Tensor<double>(tl::polygamma(n, x.cuda())), tl::Tensor<double>(tl::polygamma(n, x)),
                               1e-13, 0, "polygamma double");
    cuda_support::check_parity(tl::Tensor<float>(tl::polygamma(n, x.to<float>().cuda())),
                               tl::Tensor<float>(tl::polygamma(n, x.to<float>())), 1e-6, 0, "polygamma float");
  }
  cuda_support::check_parity(tl::Tensor<double>(tl::special::entr(x.cuda())), tl::Tensor<double>(tl::special::entr(x)),
                             1e-15, 0, "entr");
}

TEST_CASE("CUDA: i0, i0e, i1, i1e, erfcx, log_ndtr and ndtri match the CPU across their expansions and tails") {
  if (cuda_support::no_gpu()) return;
  // Both sides of the Bessel functions' switch at 30 and of erfcx's at 25,
  // the overflows, the tails of ndtri, signed zeros.
  const auto x = tl::tensor<double>(
      {-750.0, -40.0, -26.5, -3.0, -0.0, 0.0, 1e-300, 0.4, 1.0, 24.9, 25.1, 29.9, 30.1, 90.0, 712.0, 1e10});
  const auto p = tl::tensor<double>({0.0, 5e-324, 1e-300, 1e-11, 0.01, 0.2499, 0.25, 0.5, 0.7501, 0.999, 1.0});
  const auto both = [](const char* name, const tl::Tensor<double>& in, auto f) {
    // The same double kernels on both sides, up to the device's exp, log,
    // erfc and erfinv (a few ulp).
    cuda_support::check_parity(tl::Tensor<double>(f(in.cuda())), tl::Tensor<double>(f(in)), 1e-13, 0, name);
    const auto in_float = in.to<float>();
    cuda_support::check_parity(tl::Tensor<float>(f(in_float.cuda())), tl::Tensor<float>(f(in_float)), 1e-6, 0, name);
  };
  both("i0", x, [](const auto& t) { return tl::i0(t); });
  both("i0e", x, [](const auto& t) { return tl::special::i0e(t); });
  both("i1", x, [](const auto& t) { return tl::special::i1(t); });
  both("i1e", x, [](const auto& t) { return tl::special::i1e(t); });
  both("erfcx", x, [](const auto& t) { return tl::special::erfcx(t); });
  both("log_ndtr", x, [](const auto& t) { return tl::special::log_ndtr(t); });
  both("ndtri", p, [](const auto& t) { return tl::special::ndtri(t); });
}

TEST_CASE("CUDA: the Bessel functions J, Y, K, scaled K and spherical j0 match the CPU in every region") {
  if (cuda_support::no_gpu()) return;
  // Both signs, the switches at 1, 2, 25 and 30, the poles at 0, K's
  // underflow, huge arguments.
  const auto x = tl::tensor<double>(
      {-40.0, -3.0, -0.0, 0.0, 1e-300, 0.4, 0.99, 1.01, 1.99, 2.01, 7.0, 24.9, 25.1, 29.9, 30.1, 90.0, 750.0, 1e10});
  const auto both = [&x](const char* name, auto f) {
    // The same double kernels on both sides, up to the device's exp, log,
    // sin, cos and sinh (a few ulp).
    cuda_support::check_parity(tl::Tensor<double>(f(x.cuda())), tl::Tensor<double>(f(x)), 1e-13, 1e-300, name);
    const auto x_float = x.to<float>();
    cuda_support::check_parity(tl::Tensor<float>(f(x_float.cuda())), tl::Tensor<float>(f(x_float)), 1e-6, 1e-37, name);
  };
  both("bessel_j0", [](const auto& t) { return tl::special::bessel_j0(t); });
  both("bessel_j1", [](const auto& t) { return tl::special::bessel_j1(t); });
  both("bessel_y0", [](const auto& t) { return tl::special::bessel_y0(t); });
  both("bessel_y1", [](const auto& t) { return tl::special::bessel_y1(t); });
  both("modified_bessel_k0", [](const auto& t) { return tl::special::modified_bessel_k0(t); });
  both("modified_bessel_k1", [](const auto& t) { return tl::special::modified_bessel_k1(t); });
  both("scaled_modified_bessel_k0", [](const auto& t) { return tl::special::scaled_modified_bessel_k0(t); });
  both("scaled_modified_bessel_k1", [](const auto& t) { return tl::special::scaled_modified_bessel_k1(t); });
  both("spherical_bessel_j0", [](const auto& t) { return tl::special::spherical_bessel_j0(t); });
}

TEST_CASE("CUDA: the Airy function Ai and its derivative match the CPU in every region") {
  if (cuda_support::no_gpu()) return;
  // Both sides of the switches at -9.65 (Miller's recurrence to the
  // asymptotic expansion), -2 and 1 (the series), 12.65 (K's trapezoidal rule
  // to its asymptotic series), underflow, a huge phase, infinities.
  const auto x =
      tl::tensor<double>({-1e10, -200.0, -9.7, -9.6, -5.0, -2.01, -1.99, -0.0, 0.5, 0.99, 1.01, 5.0, 12.6, 12.7, 106.0,
                          1e300, std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity()});
  // The same double kernel on both sides, up to the device's exp, sqrt, pow,
  // sin, cos and cosh (a few ulp), and its fma (which the host has or emulates).
  cuda_support::check_parity(tl::Tensor<double>(tl::special::airy_ai(x.cuda())),
                             tl::Tensor<double>(tl::special::airy_ai(x)), 1e-13, 1e-300, "airy_ai double");
  const auto x_float = x.to<float>();
  cuda_support::check_parity(tl::Tensor<float>(tl::special::airy_ai(x_float.cuda())),
                             tl::Tensor<float>(tl::special::airy_ai(x_float)), 1e-6, 1e-37, "airy_ai float");
  // Ai' through the gradient (test_parity has no fused backward): the
  // functor on duals, one tangent, on both devices.
  const auto tangent = tl::ones<double>(x.sizes());
  const auto gpu = tl::autograd::forward_ad::unpack_dual(
      tl::special::airy_ai(tl::autograd::forward_ad::make_dual(x.cuda(), tangent.cuda())));
  const auto cpu =
      tl::autograd::forward_ad::unpack_dual(tl::special::airy_ai(tl::autograd::forward_ad::make_dual(x, tangent)));
  cuda_support::check_parity(gpu.tangents[0], cpu.tangents[0], 1e-13, 1e-300, "airy_ai_prime");
}
