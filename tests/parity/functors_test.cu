// Every functor on the GPU against the same PyTorch fixtures and tolerances
// as on the CPU (tests/expr): the fused kernels run the functors written
// once for host and device (DESIGN 3.3), here on CUDA's math.

#include "../expr/functor_fixtures.hpp"
#include "cuda_support.hpp"

using namespace functor_fixtures;

namespace {

// Runs `checks` with the fixtures' inputs moved to the GPU.
template <class F>
void on_gpu(F checks) {
  if (cuda_support::no_gpu()) return;
  device = tl::kCUDA;
  try {
    checks();
  } catch (...) {
    device = tl::kCPU;
    throw;
  }
  device = tl::kCPU;
}

}  // namespace

TEST_CASE("CUDA: unary float functors match PyTorch") {
  on_gpu([] {
    check_float_unary<float>();
    check_float_unary<double>();
  });
}

TEST_CASE("CUDA: unary integer and bool functors match PyTorch") {
  on_gpu([] {
    check_integer_unary<int64_t>();
    check_integer_unary<int32_t>();
    check_integer_unary<uint8_t>();
    check_integer_unary<bool>();
  });
}

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
