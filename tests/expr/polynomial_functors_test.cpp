// The orthogonal polynomials of torch.special (expr/functors/polynomial.hpp,
// expr/math/orthogonal_polynomials.hpp): values against PyTorch 1.13 over a
// grid of x and degrees (tests/fixtures/generate_special.py), the classical
// identities, PyTorch's degree conventions and the forms. Their gradient
// (none, as PyTorch's) is in tests/autograd/op_gradcheck_test.cpp.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "fixtures.hpp"
#include "tensorlib/tensorlib.hpp"

namespace {

template <class T>
using PolynomialFn = tl::Tensor<T> (*)(const tl::Tensor<T>&, const tl::Tensor<T>&);

template <class T>
struct PolynomialFamily {
  const char* name;
  PolynomialFn<T> fn;
};

template <class T>
std::vector<PolynomialFamily<T>> polynomial_families() {
  using X = const tl::Tensor<T>&;
  return {
      {"chebyshev_polynomial_t", [](X x, X n) { return tl::Tensor<T>(tl::special::chebyshev_polynomial_t(x, n)); }},
      {"chebyshev_polynomial_u", [](X x, X n) { return tl::Tensor<T>(tl::special::chebyshev_polynomial_u(x, n)); }},
      {"chebyshev_polynomial_v", [](X x, X n) { return tl::Tensor<T>(tl::special::chebyshev_polynomial_v(x, n)); }},
      {"chebyshev_polynomial_w", [](X x, X n) { return tl::Tensor<T>(tl::special::chebyshev_polynomial_w(x, n)); }},
      {"shifted_chebyshev_polynomial_t",
       [](X x, X n) { return tl::Tensor<T>(tl::special::shifted_chebyshev_polynomial_t(x, n)); }},
      {"shifted_chebyshev_polynomial_u",
       [](X x, X n) { return tl::Tensor<T>(tl::special::shifted_chebyshev_polynomial_u(x, n)); }},
      {"shifted_chebyshev_polynomial_v",
       [](X x, X n) { return tl::Tensor<T>(tl::special::shifted_chebyshev_polynomial_v(x, n)); }},
      {"shifted_chebyshev_polynomial_w",
       [](X x, X n) { return tl::Tensor<T>(tl::special::shifted_chebyshev_polynomial_w(x, n)); }},
      {"hermite_polynomial_h", [](X x, X n) { return tl::Tensor<T>(tl::special::hermite_polynomial_h(x, n)); }},
      {"hermite_polynomial_he", [](X x, X n) { return tl::Tensor<T>(tl::special::hermite_polynomial_he(x, n)); }},
      {"laguerre_polynomial_l", [](X x, X n) { return tl::Tensor<T>(tl::special::laguerre_polynomial_l(x, n)); }},
      {"legendre_polynomial_p", [](X x, X n) { return tl::Tensor<T>(tl::special::legendre_polynomial_p(x, n)); }},
  };
}

}  // namespace

TEST_CASE("the orthogonal polynomials match PyTorch over x and degrees: signs, +-1, outside [-1, 1], NaN, infinities") {
  const auto& f = fixtures::load("special.txt");
  const auto double_families = polynomial_families<double>();
  const auto float_families = polynomial_families<float>();
  for (std::size_t i = 0; i < double_families.size(); ++i) {
    const std::string name = double_families[i].name;
    CAPTURE(name);
    const auto& c = f[name];
    const auto x = c.get<double>("x"), n = c.get<double>("n");
    // Inside (-1, 1) PyTorch's Chebyshev values from degree 7 on are
    // trigonometric, as ours; the rest are the same recurrence. Both round
    // differently, so values agree to 1e-12 of max(1, |p|).
    fixtures::check_close(double_families[i].fn(x, n), c.get<double>("y"), 1e-12, 1e-12, name + " double");
    // Floats compute in double and round once; PyTorch's float recurrence
    // drifts by a few float ulps per step.
    const auto got_float = float_families[i].fn(x.to<float>(), n.to<float>()).to_vector();
    const auto at_float = double_families[i].fn(x.to<float>().to<double>(), n.to<float>().to<double>()).to_vector();
    const auto torch_float = c.get<float>("y_float").to_vector();
    const auto n_values = n.to_vector();
    for (std::size_t j = 0; j < got_float.size(); ++j) {
      CAPTURE(j);
      CHECK((got_float[j] == static_cast<float>(at_float[j]) || (std::isnan(got_float[j]) && std::isnan(at_float[j]))));
      if (std::isfinite(torch_float[j]) && std::isfinite(got_float[j])) {
        // PyTorch's float loses about n^2 ulp near the ends of [-1, 1]
        // (T_n' = n^2 at 1), so only moderate degrees are compared.
        if (n_values[j] < 60)
          CHECK(std::fabs(got_float[j] - torch_float[j]) <= 1e-4 * std::max(1.0f, std::fabs(torch_float[j])));
      } else if (std::isinf(got_float[j]) && std::isfinite(at_float[j])) {
        // Known difference (docs/architecture.md): past float's range
        // PyTorch's float recurrence can overflow into inf - inf = NaN; ours
        // rounds the finite double value to a signed inf.
        CHECK((std::isnan(torch_float[j]) || torch_float[j] == got_float[j]));
      } else {
        CHECK((got_float[j] == torch_float[j] || (std::isnan(got_float[j]) && std::isnan(torch_float[j]))));
      }
    }
  }
}

TEST_CASE("orthogonal polynomials: closed forms, PyTorch's degree conventions and the forms") {
  namespace m = tl::math;
  using P = m::Polynomial;
  for (const double x : {-0.9, -0.2, 0.35, 0.8, 1.3, -2.5}) {
    CAPTURE(x);
    // Closed forms of low degree.
    CHECK(m::orthogonal_polynomial(P::chebyshev_t, x, 3.0) == doctest::Approx(4 * x * x * x - 3 * x).epsilon(1e-14));
    CHECK(m::orthogonal_polynomial(P::chebyshev_u, x, 2.0) == doctest::Approx(4 * x * x - 1).epsilon(1e-14));
    CHECK(m::orthogonal_polynomial(P::hermite_h, x, 3.0) == doctest::Approx(8 * x * x * x - 12 * x).epsilon(1e-14));
    CHECK(m::orthogonal_polynomial(P::hermite_he, x, 4.0) ==
          doctest::Approx(x * x * x * x - 6 * x * x + 3).epsilon(1e-14));
    CHECK(m::orthogonal_polynomial(P::laguerre_l, x, 2.0) == doctest::Approx((x * x - 4 * x + 2) / 2).epsilon(1e-14));
    CHECK(m::orthogonal_polynomial(P::legendre_p, x, 2.0) == doctest::Approx((3 * x * x - 1) / 2).epsilon(1e-14));
    // The shifted polynomials are the plain ones at 2x - 1.
    CHECK(m::orthogonal_polynomial(P::shifted_chebyshev_v, x, 5.0) ==
          m::orthogonal_polynomial(P::chebyshev_v, 2 * x - 1, 5.0));
  }
  // The trigonometric forms (degree > 6 inside (-1, 1)) agree with the
  // recurrence they replace: T_(m+n) + T_(m-n) = 2 T_m T_n.
  for (const double x : {-0.95, -0.4, 0.1, 0.66}) {
    CAPTURE(x);
    const double t7 = m::orthogonal_polynomial(P::chebyshev_t, x, 7.0);
    const double t4 = m::orthogonal_polynomial(P::chebyshev_t, x, 4.0),
                 t3 = m::orthogonal_polynomial(P::chebyshev_t, x, 3.0);
    CHECK(t7 + m::orthogonal_polynomial(P::chebyshev_t, x, 1.0) == doctest::Approx(2 * t4 * t3).epsilon(1e-13));
    // U_n = (T_n - x T_(n+1)) / (1 - x^2)... checked through U_(n) - U_(n-2) = 2 T_n.
    CHECK(m::orthogonal_polynomial(P::chebyshev_u, x, 9.0) - m::orthogonal_polynomial(P::chebyshev_u, x, 7.0) ==
          doctest::Approx(2 * m::orthogonal_polynomial(P::chebyshev_t, x, 9.0)).epsilon(1e-12).scale(1));
  }
  // Degrees: truncated toward zero, negative gives 0, p_0 = 1 even at NaN;
  // a NaN degree gives NaN (PyTorch 1.13: 0, from an undefined cast).
  const double nan = std::numeric_limits<double>::quiet_NaN();
  CHECK(m::orthogonal_polynomial(P::legendre_p, 0.5, 2.7) == m::orthogonal_polynomial(P::legendre_p, 0.5, 2.0));
  CHECK(m::orthogonal_polynomial(P::legendre_p, 0.5, -0.5) == 1);
  CHECK(m::orthogonal_polynomial(P::legendre_p, 0.5, -1.0) == 0);
  // Degrees of 2^63 and more (inf too) are 0: PyTorch's cast makes them negative.
  CHECK(m::orthogonal_polynomial(P::legendre_p, 0.5, 0x1p63) == 0);
  CHECK(m::orthogonal_polynomial(P::chebyshev_u, -1.0, std::numeric_limits<double>::infinity()) == 0);
  // U_7 at 0 is the recurrence's exact 0 (PyTorch's U turns trigonometric
  // after 8), T_7 at 0 the trigonometric cos(7 pi / 2).
  CHECK(m::orthogonal_polynomial(P::chebyshev_u, 0.0, 7.0) == 0);
  CHECK(m::orthogonal_polynomial(P::chebyshev_t, 0.0, 7.0) == std::cos(7 * std::acos(0.0)));
  CHECK(m::orthogonal_polynomial(P::hermite_h, nan, 0.0) == 1);
  CHECK(std::isnan(m::orthogonal_polynomial(P::hermite_h, 0.5, nan)));
  // Huge degrees at +-1 are exact without a long loop.
  CHECK(m::orthogonal_polynomial(P::chebyshev_u, -1.0, 1e15) == 1e15 + 1);  // (-1)^n (n + 1)
  CHECK(m::orthogonal_polynomial(P::chebyshev_u, -1.0, 1e15 + 1) == -(1e15 + 2));
  CHECK(m::orthogonal_polynomial(P::chebyshev_t, 0.3, 1e15) ==
        doctest::Approx(std::cos(1e15 * std::acos(0.3))).epsilon(1e-12).scale(1));
  // The forms: a scalar degree or x, integers computing in float.
  const auto x = tl::tensor<double>({0.2, 0.7}), n = tl::tensor<double>({3.0, 3.0});
  const std::vector<double> want = tl::Tensor<double>(tl::special::legendre_polynomial_p(x, n)).to_vector();
  CHECK(tl::Tensor<double>(tl::special::legendre_polynomial_p(x, 3)).to_vector() == want);
  CHECK(tl::Tensor<double>(tl::special::legendre_polynomial_p(0.2, n)).to_vector()[0] == want[0]);
  const tl::Tensor<float> from_int =
      tl::special::hermite_polynomial_h(tl::tensor<int64_t>({1, 2}), tl::tensor<int64_t>({2, 3}));
  CHECK(from_int.to_vector() == std::vector<float>{2.f, 40.f});
}
