// A tour of tensorlib's foundation: tensors, views, broadcasting, fused
// pointwise expressions (with the counters that prove the fusion), random
// numbers and printing. Run: build/examples/basics

#include <iostream>

#include <tensorlib/tensorlib.hpp>

int main() {
  // Tensors from nested lists, factories and random numbers.
  const auto a = tl::tensor({{1., 2., 3.}, {4., 5., 6.}});  // float, [2, 3]
  const auto bias = tl::arange<float>(3) * 0.5f;            // a lazy expression...
  const tl::Tensor<float> b = bias;                         // ...evaluated here
  tl::manual_seed(0);
  const auto noise = tl::randn({2, 3});
  std::cout << "a = " << a << "\nb = " << b << "\nnoise = " << noise << "\n\n";

  // Views alias storage: a transpose, a strided slice, an indexed row.
  std::cout << "a.t() = " << a.t() << "\n";
  std::cout << "a[:, ::2] = " << a.index({tl::Slice(), tl::Slice(tl::None, tl::None, 2)}) << "\n";
  std::cout << "a[1] = " << a[1] << "\n\n";

  // A six-op chain with broadcasting (b is a row) runs as ONE fused loop.
  const auto before = tl::stats::snapshot();
  const tl::Tensor<float> y = (a * b + tl::sigmoid(noise)) / (a + 1) - tl::exp(b) * 0.5f;
  const auto delta = tl::stats::snapshot() - before;
  std::cout << "y = " << y << "\n";
  std::cout << "fused loops run: " << delta.fused_loops << ", allocations: " << delta.allocations << "\n\n";

  // In-place ops write through views; writes are alias-safe.
  auto m = tl::arange<float>(9).view({3, 3}).clone();
  m += m.t();  // reads what it overwrites: evaluated through a temporary
  m.select(0, 0).zero_();
  std::cout << "m = " << m << "\n";

  // Comparisons give bool tensors; where() selects.
  const tl::Tensor<bool> big = m > 8;
  std::cout << "m > 8: " << big << "\nclipped: " << tl::where(big, 8.f, m) << "\n";

  // Type promotion follows PyTorch: int64 / int -> float, int64 + 0.5 -> float.
  const auto counts = tl::tensor({3, 4, 5});
  std::cout << "counts / 2 = " << counts / 2 << "\n";

  // A large tensor prints summarized, like PyTorch.
  std::cout << "big = " << tl::linspace(0, 1, 2000).view({40, 50}) << "\n";
  return 0;
}
