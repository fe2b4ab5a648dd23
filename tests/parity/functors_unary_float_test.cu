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
