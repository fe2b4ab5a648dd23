// mvlgamma (ops/mvlgamma.hpp): values against PyTorch 1.13
// (tests/fixtures/generate_special.py), the definition's laws, its forms and
// errors. The gradient is in tests/autograd/op_gradcheck_test.cpp.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <numbers>
#include <string>
#include <vector>

#include "fixtures.hpp"
#include "tensorlib/tensorlib.hpp"

TEST_CASE("mvlgamma matches PyTorch for dimensions 1 to 5") {
  const auto& f = fixtures::load("special.txt");
  for (const int64_t p : {1, 2, 3, 5}) {
    CAPTURE(p);
    const auto& c = f["mvlgamma/" + std::to_string(p)];
    const auto x = c.get<double>("x");
    fixtures::check_close(tl::mvlgamma(x, p), c.get<double>("y"), 1e-14, 1e-14, "double");
    fixtures::check_close(tl::mvlgamma(x.to<float>(), p), c.get<double>("y").to<float>(), 1e-6, 1e-6, "float");
  }
}

TEST_CASE("mvlgamma: the definition's laws, shapes, forms and errors") {
  const auto x = tl::tensor<double>({{1.7, 2.25}, {3.5, 12.0}});
  // Dimension 1 is lgamma; Gamma_p(x) = pi^((p-1)/2) Gamma(x) Gamma_(p-1)(x - 1/2).
  CHECK(tl::allclose(tl::mvlgamma(x, 1), tl::Tensor<double>(tl::lgamma(x)), 1e-15, 0));
  const double half_log_pi = 0.5 * std::log(std::numbers::pi);
  for (const int64_t p : {2, 3, 4}) {
    CAPTURE(p);
    const tl::Tensor<double> recurrence =
        tl::lgamma(x) + tl::mvlgamma(tl::Tensor<double>(x - 0.5), p - 1) + static_cast<double>(p - 1) * half_log_pi;
    CHECK(tl::allclose(tl::mvlgamma(x, p), recurrence, 1e-14, 1e-14));
  }
  // Shapes: 0-d and empty inputs keep their shape.
  CHECK(tl::mvlgamma(tl::scalar_tensor(3.0), 2).sizes() == tl::Shape{});
  CHECK(tl::mvlgamma(tl::zeros<double>({0, 3}), 4).sizes() == tl::Shape{0, 3});
  // Forms: special::multigammaln, the method on tensors and expressions, in
  // place, integers in the default floating type.
  const std::vector<double> want = tl::mvlgamma(x, 3).to_vector();
  CHECK(tl::special::multigammaln(x, 3).to_vector() == want);
  CHECK(x.mvlgamma(3).to_vector() == want);
  CHECK((x * 1.0).mvlgamma(3).to_vector() == want);
  auto y = x.clone();
  CHECK(&y.mvlgamma_(3) == &y);
  CHECK(y.to_vector() == want);
  const tl::Tensor<float> from_int = tl::mvlgamma(tl::tensor<int64_t>({3, 4}), 2);
  CHECK(from_int.to_vector() == tl::mvlgamma(tl::tensor<float>({3.f, 4.f}), 2).to_vector());
  CHECK_THROWS_WITH_AS((void)tl::mvlgamma(x, 0), "mvlgamma: p has to be greater than or equal to 1, got 0",
                       tl::ValueError);
}
