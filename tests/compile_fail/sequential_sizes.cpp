// A Sequential of layers with compile-time sizes whose sizes disagree does
// not compile; the error names the layer's index and both sizes
// (Note [compile-time model shapes]).
#include <tensorlib/tensorlib.hpp>
int main() {
#ifdef TENSORLIB_COMPILE_FAIL
  tl::nn::Sequential model{tl::nn::StaticLinear<784, 256>(), tl::nn::ReLU(), tl::nn::StaticLinear<128, 10>()};
#else
  tl::nn::Sequential model{tl::nn::StaticLinear<784, 256>(), tl::nn::ReLU(), tl::nn::StaticLinear<256, 10>()};
#endif
  return static_cast<int>(model.parameters().size());
}
