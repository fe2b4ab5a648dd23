// nextafter of float16 tensors is rejected (its step would round away in
// the float the functors compute 16-bit floats in; PyTorch 1.13: "nextafter_cpu"
// not implemented for 'Half').
#include <tensorlib/tensorlib.hpp>
int main() {
  auto ok = tl::nextafter(tl::ones<float>({3}), tl::zeros<float>({3}));
#ifdef TENSORLIB_COMPILE_FAIL
  auto bad = tl::nextafter(tl::ones<tl::Half>({3}), tl::zeros<tl::Half>({3}));
#endif
  return 0;
}
