// A module tree's parameters share the root's element type: a double layer
// inside a float module is a compile error, not a runtime surprise.
#include <tensorlib/tensorlib.hpp>
struct Net : tl::nn::Module<Net> {
  tl::nn::Linear<> fc1{2, 2};
#ifdef TENSORLIB_COMPILE_FAIL
  tl::nn::Linear<double> fc2{2, 2};
  TENSORLIB_MODULES(fc1, fc2)
#else
  TENSORLIB_MODULES(fc1)
#endif
};
int main() {
  Net net;
  return static_cast<int>(net.parameters().size());
}
