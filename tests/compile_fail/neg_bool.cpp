// Negating a bool tensor is rejected, as in PyTorch.
#include <tensorlib/tensorlib.hpp>
int main() {
  auto b = tl::ones<bool>({2});
  auto ok = !b;
#ifdef TENSORLIB_COMPILE_FAIL
  auto bad = -b;
#endif
  return 0;
}
