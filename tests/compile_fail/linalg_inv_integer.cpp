// Integer matrices are rejected at compile time (PyTorch: "linalg.inv: Expected
// a floating point or complex tensor as input. Got Long" at run time).
#include <tensorlib/tensorlib.hpp>
int main() {
  auto ok = tl::linalg::inv(tl::eye<double>(2));
#ifdef TENSORLIB_COMPILE_FAIL
  auto bad = tl::linalg::inv(tl::eye<int64_t>(2));
#endif
  return 0;
}
