// The Conan package's consumer: tensors and a fused expression through the
// umbrella header; with the cuda option, a call into the CUDA runtime as well
// (a version query, which needs no GPU).

#include <iostream>

#include <tensorlib/tensorlib.hpp>

#ifdef TEST_PACKAGE_CUDA
#include <cuda_runtime_api.h>
#endif

int main() {
  const auto x = tl::tensor({0.f, 1.f, 2.f});
  const auto y = tl::ones<float>({3});
  const tl::Tensor<float> z = tl::sigmoid(x) * 2 + y;
  const auto v = tl::version();
  std::cout << "tensorlib " << v.major << '.' << v.minor << '.' << v.patch << ": " << z << '\n';
#ifdef TEST_PACKAGE_CUDA
  int runtime = 0;
  const bool ok = cudaRuntimeGetVersion(&runtime) == cudaSuccess && runtime == CUDART_VERSION;
  std::cout << "tensorlib::cuda: runtime " << (ok ? "ok" : "broken") << '\n';
#endif
  return 0;
}
