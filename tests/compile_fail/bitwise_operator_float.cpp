// operator& routes to bitwise_and and is rejected the same way.
#include <tensorlib/tensorlib.hpp>
int main() {
  auto b = tl::ones<bool>({2});
  auto ok = b & b;
#ifdef TENSORLIB_COMPILE_FAIL
  auto f = tl::ones<float>({2});
  auto bad = f & 1;
#endif
  return 0;
}
