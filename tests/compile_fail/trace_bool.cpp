// trace of a bool tensor is rejected (PyTorch: "trace" not implemented for 'Bool').
#include <tensorlib/tensorlib.hpp>
int main() {
  auto ok = tl::trace(tl::ones<int32_t>({2, 2}));
#ifdef TENSORLIB_COMPILE_FAIL
  auto bad = tl::trace(tl::ones<bool>({2, 2}));
#endif
  return 0;
}
