// What every packaging consumer compiles: tensors and a fused expression
// through the umbrella header, with warnings as errors. ctest matches the line
// it prints, so the version and the values are both checked.

#include <iostream>

#include <tensorlib/tensorlib.hpp>

// This program links only tensorlib::tensorlib, even where the same project
// also links components: their macros and flags must not reach it.
#if defined(TENSORLIB_CUDA) || defined(TENSORLIB_USE_BLAS) || defined(_OPENMP)
#error "a component's definitions or flags reached a program that links only tensorlib::tensorlib"
#endif

int main() {
  const auto x = tl::tensor({0.f, 1.f, 2.f});
  const auto y = tl::ones<float>({3});
  const tl::Tensor<float> z = tl::sigmoid(x) * 2 + y;  // one fused loop
  const auto v = tl::version();
  std::cout << "tensorlib " << v.major << '.' << v.minor << '.' << v.patch << ": " << z << '\n';
  return 0;
}
