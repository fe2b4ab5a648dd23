// where() needs a bool condition.
#include <tensorlib/tensorlib.hpp>
int main() {
  auto x = tl::ones<float>({2});
  auto ok = tl::where(x > 0, x, 0.f);
#ifdef TENSORLIB_COMPILE_FAIL
  auto bad = tl::where(x, x, 0.f);
#endif
  return 0;
}
