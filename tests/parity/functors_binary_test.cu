// Functors on the GPU against the PyTorch fixtures (functor_parity.hpp),
// split in three files so nvcc builds them in parallel: each instantiates
// three kernels per functor and dtype.

#include "functor_parity.hpp"

using namespace functor_fixtures;

TEST_CASE("CUDA: binary functors match PyTorch, with broadcasting") {
  on_gpu([] {
    check_arithmetic_binary<float>();
    check_arithmetic_binary<double>();
    check_arithmetic_binary<int64_t>();
    check_arithmetic_binary<uint8_t>();
    check_common_binary<bool>();
    check_binary<float>(
        "div", [](const auto& a, const auto& b) { return a / b; }, true);
    check_binary<double>("atan2", [](const auto& a, const auto& b) { return tl::atan2(a, b); });
    check_binary<int64_t>(
        "bitwise_xor", [](const auto& a, const auto& b) { return a ^ b; }, true);
  });
}
