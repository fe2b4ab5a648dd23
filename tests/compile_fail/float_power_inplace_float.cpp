// float_power_ of a float tensor is rejected: its result is double (PyTorch: "the base given to float_power_ has
// dtype Float but the operation's result requires dtype Double").
#include <tensorlib/tensorlib.hpp>
int main() {
  auto ok = tl::ones<double>({2});
  ok.float_power_(2);
#ifdef TENSORLIB_COMPILE_FAIL
  auto bad = tl::ones<float>({2});
  bad.float_power_(2);
#endif
  return 0;
}
