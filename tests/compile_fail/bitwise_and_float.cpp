// bitwise ops on floating tensors do not compile (PyTorch: run-time error).
#include <tensorlib/tensorlib.hpp>
int main() {
  auto x = tl::ones<int64_t>({2});
  auto ok = tl::bitwise_and(x, x);
#ifdef TENSORLIB_COMPILE_FAIL
  auto f = tl::ones<float>({2});
  auto bad = tl::bitwise_and(f, f);
#endif
  return 0;
}
