// cumsum_ of a bool tensor is rejected: the sum is int64 (PyTorch raises at run time).
#include <tensorlib/tensorlib.hpp>
int main() {
  auto ok = tl::tensor<int32_t>({1, 2});
  ok.cumsum_(0);
#ifdef TENSORLIB_COMPILE_FAIL
  auto bad = tl::tensor<bool>({true, false});
  bad.cumsum_(0);
#endif
  return 0;
}
