// Double backward of erf, lgamma, digamma, polygamma, i0, i1e, erfcx, log_ndtr, ndtri, sigmoid, logit, the
// exponentials, logarithms and roots on the GPU against the CPU (second_order_parity.hpp): it compiles the second-order
// kernel of each functor's nested dual forms (a user's nvcc file gets them for every expression it differentiates). The
// functors are spread over three files because nvcc's time grows faster
// than a file's kernels (Compile time in docs/architecture.md).
// Tolerances: 1e-4 relative in float.

#include <doctest/doctest.h>

#include <tensorlib/tensor.hpp>

#include "second_order_parity.hpp"

TEST_CASE(
    "CUDA double backward: the special functions', exponentials' and logarithms' second-order kernels match the CPU") {
  if (cuda_support::no_gpu()) return;
  using T = tl::Tensor<float>;
  const auto unary = [](const char* name, auto f) {
    second_order_parity::check(
        name, [f](const T& a, const T&) { return f(a); }, 1);
  };
  unary("erf", [](const T& a) { return tl::erf(a); });
  unary("erfc", [](const T& a) { return tl::erfc(a); });
  unary("erfinv", [](const T& a) { return tl::erfinv(a); });
  unary("lgamma", [](const T& a) { return tl::lgamma(a); });
  unary("digamma", [](const T& a) { return tl::digamma(a); });
  unary("polygamma 2", [](const T& a) { return tl::polygamma(2, a); });
  unary("i0", [](const T& a) { return tl::i0(a); });
  unary("i1e", [](const T& a) { return tl::special::i1e(a); });
  unary("erfcx", [](const T& a) { return tl::special::erfcx(a); });
  unary("log_ndtr", [](const T& a) { return tl::special::log_ndtr(a); });
  unary("ndtri", [](const T& a) { return tl::special::ndtri(a); });
  unary("sigmoid", [](const T& a) { return tl::sigmoid(a); });
  unary("logit", [](const T& a) { return tl::logit(a); });
  unary("logit eps", [](const T& a) { return tl::logit(a, 0.3); });
  unary("exp", [](const T& a) { return tl::exp(a); });
  unary("exp2", [](const T& a) { return tl::exp2(a); });
  unary("expm1", [](const T& a) { return tl::expm1(a); });
  unary("log", [](const T& a) { return tl::log(a); });
  unary("log2", [](const T& a) { return tl::log2(a); });
  unary("log10", [](const T& a) { return tl::log10(a); });
  unary("log1p", [](const T& a) { return tl::log1p(a); });
  unary("sqrt", [](const T& a) { return tl::sqrt(a); });
  unary("rsqrt", [](const T& a) { return tl::rsqrt(a); });
}
