// heaviside of operands of different dtypes is rejected (PyTorch: "heaviside
// is not yet implemented for tensors with different dtypes").
#include <tensorlib/tensorlib.hpp>
int main() {
  auto ok = tl::heaviside(tl::ones<float>({3}), tl::zeros<float>({3}));
#ifdef TENSORLIB_COMPILE_FAIL
  auto bad = tl::heaviside(tl::ones<float>({3}), tl::zeros<double>({3}));
#endif
  return 0;
}
