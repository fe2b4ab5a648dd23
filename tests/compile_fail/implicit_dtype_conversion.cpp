// An expression does not silently convert to a tensor of another type.
#include <tensorlib/tensorlib.hpp>
int main() {
  tl::Tensor<float> ok = (tl::arange(3) * 2).to<float>();
#ifdef TENSORLIB_COMPILE_FAIL
  tl::Tensor<float> bad = tl::arange(3) * 2;
#endif
  return 0;
}
