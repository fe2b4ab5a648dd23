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
