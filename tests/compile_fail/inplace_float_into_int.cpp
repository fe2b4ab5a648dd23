// An in-place op whose result type cannot be cast back is rejected.
#include <tensorlib/tensorlib.hpp>
int main() {
  auto x = tl::ones<int64_t>({2});
  x.add_(2);
#ifdef TENSORLIB_COMPILE_FAIL
  x.exp_();
#endif
  return 0;
}
