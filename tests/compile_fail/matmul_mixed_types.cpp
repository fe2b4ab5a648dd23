// matmul needs operands of one element type (PyTorch: "expected scalar type Float but found Double").
#include <tensorlib/tensorlib.hpp>
int main() {
  auto a = tl::ones<float>({2, 2});
  auto ok = tl::matmul(a, a);
#ifdef TENSORLIB_COMPILE_FAIL
  auto bad = tl::matmul(a, tl::ones<double>({2, 2}));
#endif
  return 0;
}
