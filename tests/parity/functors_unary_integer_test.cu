// Functors on the GPU against the PyTorch fixtures (functor_parity.hpp),
// split in three files so nvcc builds them in parallel: each instantiates
// three kernels per functor and dtype.

#include "functor_parity.hpp"

using namespace functor_fixtures;

TEST_CASE("CUDA: unary integer and bool functors match PyTorch") {
  on_gpu([] {
    check_integer_unary<int64_t>();
    check_integer_unary<int32_t>();
    check_integer_unary<uint8_t>();
    check_integer_unary<bool>();
  });
}
