// hypot of integer tensors is rejected (PyTorch: "hypot_cpu" not implemented for 'Long').
#include <tensorlib/tensorlib.hpp>
int main() {
  auto ok = tl::hypot(tl::arange(3), tl::ones<float>({3}));
#ifdef TENSORLIB_COMPILE_FAIL
  auto bad = tl::hypot(tl::arange(3), tl::arange(3));
#endif
  return 0;
}
