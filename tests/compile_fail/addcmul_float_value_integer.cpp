// A floating value with integral tensors is rejected (PyTorch's documented
// rule: for integral inputs, value must be an integer).
#include <tensorlib/tensorlib.hpp>
int main() {
  auto i = tl::ones<int64_t>({2});
  tl::Tensor<int64_t> ok = tl::addcmul(i, i, i, 2);
#ifdef TENSORLIB_COMPILE_FAIL
  auto bad = tl::addcmul(i, i, i, 2.5);
#endif
  return 0;
}
