// addcdiv of two integral tensors is rejected, as in PyTorch (integer
// division was removed from addcdiv).
#include <tensorlib/tensorlib.hpp>
int main() {
  auto i = tl::ones<int64_t>({2});
  auto f = tl::ones<float>({2});
  tl::Tensor<float> ok = tl::addcdiv(i, f, i);
#ifdef TENSORLIB_COMPILE_FAIL
  auto bad = tl::addcdiv(i, i, i);
#endif
  return 0;
}
