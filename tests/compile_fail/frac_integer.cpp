// frac of an integer tensor is rejected.
#include <tensorlib/tensorlib.hpp>
int main() {
  auto ok = tl::frac(tl::ones<float>({2}));
#ifdef TENSORLIB_COMPILE_FAIL
  auto bad = tl::frac(tl::arange(3));
#endif
  return 0;
}
