// An expression does not silently convert to a tensor of another type:
// copy-initialization finds no implicit constructor, and direct
// initialization fails with a message naming .to<T>().
#include <tensorlib/tensorlib.hpp>
int main() {
  tl::Tensor<float> ok = (tl::arange(3) * 2).to<float>();
  static_assert(!std::is_convertible_v<decltype(tl::arange(3) * 2), tl::Tensor<float>>);
#ifdef TENSORLIB_COMPILE_FAIL
  tl::Tensor<float> bad(tl::arange(3) * 2);
#endif
  return 0;
}
