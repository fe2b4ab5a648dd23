// gcd of floating tensors is rejected (PyTorch: "gcd_cpu" not implemented for 'Float').
#include <tensorlib/tensorlib.hpp>
int main() {
  auto ok = tl::gcd(tl::arange(6), tl::arange(6));
#ifdef TENSORLIB_COMPILE_FAIL
  auto bad = tl::gcd(tl::ones<float>({3}), tl::arange(3));
#endif
  return 0;
}
