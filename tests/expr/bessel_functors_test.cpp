// The Bessel functors of torch.special (expr/functors/bessel.hpp): J0, J1,
// Y0, Y1 (expr/math/bessel_jy.hpp), K0, K1 and their scaled forms
// (expr/math/bessel_k.hpp), the spherical j0, the Airy function Ai
// (expr/math/airy.hpp). Values against mpmath in every
// region of the kernels, special values against PyTorch 1.13
// (tests/fixtures/generate_special.py), the Wronskians, symmetries and the
// ops' forms. Gradients are in tests/autograd/op_gradcheck_test.cpp.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numbers>
#include <string>
#include <vector>

#include "fixtures.hpp"
#include "tensorlib/tensorlib.hpp"

namespace {

using Fn = tl::Tensor<double> (*)(const tl::Tensor<double>&);
using FnF = tl::Tensor<float> (*)(const tl::Tensor<float>&);

struct Case {
  const char* name;
  Fn dbl;
  FnF flt;
  bool oscillating;  // J, Y, j0: errors scale with the envelope sqrt(2 / (pi x)), not the value
  bool even_or_odd;  // defined for x < 0 (J0, J1, j0); the others are NaN there
};

const Case kCases[] = {
    {"bessel_j0", [](const tl::Tensor<double>& x) { return tl::Tensor<double>(tl::special::bessel_j0(x)); },
     [](const tl::Tensor<float>& x) { return tl::Tensor<float>(tl::special::bessel_j0(x)); }, true, true},
    {"bessel_j1", [](const tl::Tensor<double>& x) { return tl::Tensor<double>(tl::special::bessel_j1(x)); },
     [](const tl::Tensor<float>& x) { return tl::Tensor<float>(tl::special::bessel_j1(x)); }, true, true},
    {"bessel_y0", [](const tl::Tensor<double>& x) { return tl::Tensor<double>(tl::special::bessel_y0(x)); },
     [](const tl::Tensor<float>& x) { return tl::Tensor<float>(tl::special::bessel_y0(x)); }, true, false},
    {"bessel_y1", [](const tl::Tensor<double>& x) { return tl::Tensor<double>(tl::special::bessel_y1(x)); },
     [](const tl::Tensor<float>& x) { return tl::Tensor<float>(tl::special::bessel_y1(x)); }, true, false},
    {"modified_bessel_k0",
     [](const tl::Tensor<double>& x) { return tl::Tensor<double>(tl::special::modified_bessel_k0(x)); },
     [](const tl::Tensor<float>& x) { return tl::Tensor<float>(tl::special::modified_bessel_k0(x)); }, false, false},
    {"modified_bessel_k1",
     [](const tl::Tensor<double>& x) { return tl::Tensor<double>(tl::special::modified_bessel_k1(x)); },
     [](const tl::Tensor<float>& x) { return tl::Tensor<float>(tl::special::modified_bessel_k1(x)); }, false, false},
    {"scaled_modified_bessel_k0",
     [](const tl::Tensor<double>& x) { return tl::Tensor<double>(tl::special::scaled_modified_bessel_k0(x)); },
     [](const tl::Tensor<float>& x) { return tl::Tensor<float>(tl::special::scaled_modified_bessel_k0(x)); }, false,
     false},
    {"scaled_modified_bessel_k1",
     [](const tl::Tensor<double>& x) { return tl::Tensor<double>(tl::special::scaled_modified_bessel_k1(x)); },
     [](const tl::Tensor<float>& x) { return tl::Tensor<float>(tl::special::scaled_modified_bessel_k1(x)); }, false,
     false},
    {"spherical_bessel_j0",
     [](const tl::Tensor<double>& x) { return tl::Tensor<double>(tl::special::spherical_bessel_j0(x)); },
     [](const tl::Tensor<float>& x) { return tl::Tensor<float>(tl::special::spherical_bessel_j0(x)); }, true, true},
};

}  // namespace

TEST_CASE("J0, J1, Y0, Y1, K0, K1, their scaled forms and spherical j0 match mpmath in every region") {
  const auto& f = fixtures::load("special.txt");
  for (const Case& k : kCases) {
    const auto& c = f[k.name];
    const auto x = c.get<double>("x");
    const std::vector<double> xs = x.to_vector(), mp = c.get<double>("mp").to_vector();
    const std::vector<double> got = k.dbl(x).to_vector();
    // Floats compute in double and round once: exactly the double kernel at
    // the float argument, rounded.
    const auto x_float = x.to<float>();
    const std::vector<float> got_float = k.flt(x_float).to_vector();
    const std::vector<double> at_float_x = k.dbl(x_float.to<double>()).to_vector();
    for (std::size_t i = 0; i < xs.size(); ++i) {
      const std::string name = k.name;
      const double v = xs[i];
      CAPTURE(name);
      CAPTURE(v);
      CHECK((got_float[i] == static_cast<float>(at_float_x[i]) ||
             (std::isnan(got_float[i]) && std::isnan(at_float_x[i]))));
      if (std::isnan(v) || (v < 0 && !k.even_or_odd)) {
        CHECK(std::isnan(got[i]));
      } else if (std::isinf(v)) {
        CHECK(got[i] == 0);  // the limit at +-inf
      } else if (std::isinf(mp[i])) {
        CHECK(got[i] == mp[i]);  // the poles of Y and K at 0
      } else {
        // A few ulps of the envelope for the oscillating functions, of the
        // value for the others; K underflows past x = 745.
        const double envelope = k.oscillating ? std::min(1.0, std::sqrt(2 / (std::numbers::pi * std::fabs(v)))) : 0;
        CHECK(std::fabs(got[i] - mp[i]) <= 1e-14 * std::fabs(mp[i]) + 2e-15 * envelope + 1e-320);
      }
    }
  }
}

TEST_CASE("the Bessel functions agree with PyTorch 1.13 where PyTorch is accurate, and on its special values") {
  const auto& f = fixtures::load("special.txt");
  for (const Case& k : kCases) {
    const auto& c = f[k.name];
    const auto x = c.get<double>("x");
    const std::vector<double> xs = x.to_vector(), torch = c.get<double>("y").to_vector();
    const std::vector<double> got = k.dbl(x).to_vector();
    const std::vector<float> torch_float = c.get<float>("y_float").to_vector();
    const std::vector<float> got_float = k.flt(x.to<float>()).to_vector();
    for (std::size_t i = 0; i < xs.size(); ++i) {
      const std::string name = k.name;
      const double v = xs[i];
      CAPTURE(name);
      CAPTURE(v);
      // Known differences (docs/architecture.md): PyTorch 1.13 gives NaN for
      // J0, J1, Y0, Y1 at +-inf (the limits are 0), and past 1e13 its
      // values lose their digits (it rounds x - pi/4; mpmath agrees with ours,
      // test above).
      if (std::isinf(v) && name.starts_with("bessel_")) {
        CHECK(std::isnan(torch[i]));
        continue;
      }
      if (std::isnan(torch[i])) {
        CHECK(std::isnan(got[i]));
        continue;
      }
      if (std::isinf(torch[i]) || torch[i] == 0) {
        CHECK(got[i] == torch[i]);
        continue;
      }
      if (std::fabs(v) > 1e5) continue;
      // PyTorch's Y1 is 6e-6 off near 5 (mpmath agrees with ours).
      const double envelope = std::min(1.0, std::sqrt(2 / (std::numbers::pi * std::fabs(v))));
      CHECK(std::fabs(got[i] - torch[i]) <= 1e-5 * std::max(std::fabs(torch[i]), envelope));
      // Floats: PyTorch computes in float (so its x - pi/4 loses the phase
      // beyond a few hundred), we round the double result.
      if (std::isfinite(torch_float[i]) && torch_float[i] != 0 && std::fabs(v) < 1e3)
        CHECK(std::fabs(got_float[i] - torch_float[i]) <=
              1e-5 * std::max(std::fabs(static_cast<double>(torch_float[i])), envelope));
    }
  }
}

TEST_CASE("Bessel functions: Wronskians, symmetries, signed zeros and the ops' forms") {
  namespace m = tl::math;
  constexpr double pi = std::numbers::pi;
  // J1 Y0 - J0 Y1 = 2 / (pi x), across the series, Miller's recurrence and
  // Hankel's expansion (switches at 2 and 25).
  for (const double x : {1e-5, 0.1, 0.9, 1.99, 2.01, 4.5, 10.0, 17.3, 24.9, 25.1, 60.0, 1e4}) {
    CAPTURE(x);
    const double w = m::bessel_j1(x) * m::bessel_y0(x) - m::bessel_j0(x) * m::bessel_y1(x);
    CHECK(w == doctest::Approx(2 / (pi * x)).epsilon(1e-14).scale(0));
  }
  // I0 K1 + I1 K0 = 1 / x, in scaled form (e^-x e^x cancels) across the
  // switches at 1 and 30.
  for (const double x : {1e-5, 0.5, 0.99, 1.01, 5.0, 29.9, 30.1, 100.0, 1e6}) {
    CAPTURE(x);
    const double w = m::i0e(x) * m::scaled_modified_bessel_k1(x) + m::i1e(x) * m::scaled_modified_bessel_k0(x);
    CHECK(w == doctest::Approx(1 / x).epsilon(1e-14).scale(0));
    if (x < 700)
      CHECK(m::modified_bessel_k0(x) ==
            doctest::Approx(std::exp(-x) * m::scaled_modified_bessel_k0(x)).epsilon(1e-15).scale(0));
    else
      CHECK(m::modified_bessel_k0(x) == 0);  // e^-x underflows
  }
  for (const double x : {0.3, 1.9, 2.1, 7.0, 24.0, 26.0, 1e10}) {
    CAPTURE(x);
    CHECK(m::bessel_j0(-x) == m::bessel_j0(x));
    CHECK(m::bessel_j1(-x) == -m::bessel_j1(x));
    CHECK(m::spherical_bessel_j0(x) == std::sin(x) / x);
    CHECK(m::spherical_bessel_j0(-x) == m::spherical_bessel_j0(x));
  }
  // Tabulated values (Abramowitz & Stegun 9.1, 9.8).
  CHECK(m::bessel_j0(1.0) == doctest::Approx(0.7651976865579666).epsilon(1e-15).scale(0));
  CHECK(m::bessel_y0(1.0) == doctest::Approx(0.08825696421567696).epsilon(1e-15).scale(0));
  CHECK(m::modified_bessel_k0(1.0) == doctest::Approx(0.42102443824070834).epsilon(1e-15).scale(0));
  CHECK(std::signbit(m::bessel_j1(-0.0)));
  CHECK(m::bessel_j0(-0.0) == 1);
  CHECK(m::spherical_bessel_j0(0.0) == 1);
  // The forms: torch.special's names for I0 and I1, integers computing in float.
  const auto x = tl::tensor<double>({-2.0, 0.0, 0.5, 31.0});
  CHECK(tl::Tensor<double>(tl::special::modified_bessel_i0(x)).to_vector() ==
        tl::Tensor<double>(tl::i0(x)).to_vector());
  CHECK(tl::Tensor<double>(tl::special::modified_bessel_i1(x)).to_vector() ==
        tl::Tensor<double>(tl::special::i1(x)).to_vector());
  const tl::Tensor<float> from_int = tl::special::bessel_j0(tl::tensor<int64_t>({0, 1}));
  CHECK(from_int.to_vector() == std::vector<float>{1.f, static_cast<float>(m::bessel_j0(1.0))});
}

TEST_CASE("Airy Ai and Ai' match mpmath in every region, and PyTorch 1.13 where it is accurate") {
  const auto& c = fixtures::load("special.txt")["airy_ai"];
  const auto x = c.get<double>("x");
  const std::vector<double> xs = x.to_vector(), mp = c.get<double>("mp").to_vector();
  const std::vector<double> mp_prime = c.get<double>("mp_prime").to_vector(), torch = c.get<double>("y").to_vector();
  const std::vector<float> torch_float = c.get<float>("y_float").to_vector();
  const std::vector<double> got = tl::Tensor<double>(tl::special::airy_ai(x)).to_vector();
  const auto x_float = x.to<float>();
  const std::vector<float> got_float = tl::Tensor<float>(tl::special::airy_ai(x_float)).to_vector();
  const std::vector<double> at_float_x = tl::Tensor<double>(tl::special::airy_ai(x_float.to<double>())).to_vector();
  for (std::size_t i = 0; i < xs.size(); ++i) {
    const double v = xs[i], prime = tl::math::airy_ai_prime(v);
    CAPTURE(v);
    // Floats compute in double and round once.
    CHECK(
        (got_float[i] == static_cast<float>(at_float_x[i]) || (std::isnan(got_float[i]) && std::isnan(at_float_x[i]))));
    if (std::isnan(v)) {
      CHECK(std::isnan(got[i]));
      CHECK(std::isnan(prime));
      CHECK(std::isnan(torch[i]));
      continue;
    }
    if (std::isinf(v)) {
      // The limits (Ai' has none at -inf); PyTorch 1.13 gives NaN.
      CHECK(got[i] == 0);
      CHECK((v > 0 ? prime == 0 : std::isnan(prime)));
      CHECK(std::isnan(torch[i]));
      continue;
    }
    // Relative to the value for x > 0; below, where Ai oscillates, to the
    // envelope z^-1/4 / sqrt(pi) (z^1/4 / sqrt(pi) for Ai'), capped at 1 / sqrt(pi).
    const double quarter = v < 0 ? std::max(1.0, std::sqrt(std::sqrt(std::fabs(v)))) : 0;
    const double envelope = v < 0 ? 1 / (quarter * std::sqrt(std::numbers::pi)) : 0;
    const double envelope_prime = quarter / std::sqrt(std::numbers::pi);
    CHECK(std::fabs(got[i] - mp[i]) <= 2e-15 * std::fabs(mp[i]) + 4e-15 * envelope + 1e-320);
    CHECK(std::fabs(prime - mp_prime[i]) <= 2e-15 * std::fabs(mp_prime[i]) + 4e-15 * envelope_prime + 1e-320);
    // Against PyTorch 1.13 (known differences, docs/architecture.md): its
    // Cephes kernel returns 0 past 103.892 (25.77 in float), where Ai is
    // still 2e-304 (1.7e-39), and is 1.5e-6 off at Ai's first zero, -2.338;
    // mpmath agrees with ours (above). Its float path loses about zeta
    // float ulps (the phase, or e^-zeta).
    const double zeta = 2 * std::fabs(v) * std::sqrt(std::fabs(v)) / 3;
    const bool first_zero = v > -2.34 && v < -2.33;
    if (v > 103.892)
      CHECK(torch[i] == 0);
    else if (v >= -1e3)
      CHECK(std::fabs(got[i] - torch[i]) <= (first_zero ? 2e-6 : 1e-12) * (std::fabs(torch[i]) + envelope));
    if (std::isinf(x_float.to_vector()[i]))
      CHECK(std::isnan(torch_float[i]));  // 1e300 is inf in float
    else if (v > 25.77)
      CHECK(torch_float[i] == 0);
    else if (v >= -1e3)
      CHECK(std::fabs(got_float[i] - torch_float[i]) <=
            (first_zero ? 2e-6 : 1e-6 + 1.2e-7 * zeta) * (std::fabs(torch_float[i]) + envelope) + 1e-44);
  }
}

TEST_CASE("Airy Ai: its equation, its zeros, no step at the kernel's switches, and the op's forms") {
  namespace m = tl::math;
  // Ai'' = x Ai: central differences of Ai' in every region, and of Ai
  // against Ai'; relative to the value for x > 0, to the envelope below.
  for (const double x : {-30.0, -9.7, -9.6, -5.0, -2.01, -1.99, -0.5, 0.5, 0.99, 1.01, 3.0, 12.0, 40.0}) {
    CAPTURE(x);
    const double h = 1e-5, quarter = x < 0 ? std::max(1.0, std::sqrt(std::sqrt(-x))) : 0;
    const double second = (m::airy_ai_prime(x + h) - m::airy_ai_prime(x - h)) / (2 * h);
    CHECK(std::fabs(second - x * m::airy_ai(x)) <= 1e-8 * (std::fabs(x * m::airy_ai(x)) + quarter * quarter * quarter));
    const double first = (m::airy_ai(x + h) - m::airy_ai(x - h)) / (2 * h);
    CHECK(std::fabs(first - m::airy_ai_prime(x)) <= 1e-8 * (std::fabs(m::airy_ai_prime(x)) + quarter));
  }
  // No step where the kernel switches: at -9.65 (zeta = 20: Miller's
  // recurrence, the asymptotic expansion), -2 and 1/2 (the series), 12.65
  // (zeta = 30: K's trapezoidal rule, its asymptotic series), the values a
  // hair either side differ by what Ai' says, to a few ulps.
  for (const double edge : {-std::cbrt(900.0), -2.0, 0.5, std::cbrt(2025.0)}) {
    CAPTURE(edge);
    const double delta = 1e-9, quarter = std::max(1.0, std::sqrt(std::sqrt(std::fabs(edge))));
    const double scale = edge < 0 ? 1 / quarter : std::fabs(m::airy_ai(edge));
    const double jump = m::airy_ai(edge + delta) - m::airy_ai(edge - delta) - 2 * delta * m::airy_ai_prime(edge);
    CHECK(std::fabs(jump) <= 5e-15 * scale);
    const double scale_prime = edge < 0 ? quarter : std::fabs(m::airy_ai_prime(edge));
    const double jump_prime =
        m::airy_ai_prime(edge + delta) - m::airy_ai_prime(edge - delta) - 2 * delta * edge * m::airy_ai(edge);
    CHECK(std::fabs(jump_prime) <= 5e-15 * scale_prime);
  }
  // The first zeros of Ai and of Ai' (Abramowitz & Stegun 10.4, table 10.13).
  for (const double zero : {-2.338107410459767, -4.087949444130971, -5.520559828095551, -12.828776752865757}) {
    CAPTURE(zero);
    CHECK(std::fabs(m::airy_ai(zero)) < 4e-15);
  }
  CHECK(std::fabs(m::airy_ai_prime(-1.018792971647471)) < 2e-15);
  // Tabulated values at 0 (Ai(0) = 3^(-2/3) / Gamma(2/3), Ai'(0) = -3^(-1/3) / Gamma(1/3)).
  CHECK(m::airy_ai(0.0) == doctest::Approx(0.3550280538878172).epsilon(1e-16).scale(0));
  CHECK(m::airy_ai_prime(0.0) == doctest::Approx(-0.2588194037928068).epsilon(1e-16).scale(0));
  CHECK(m::airy_ai(-0.0) == m::airy_ai(0.0));
  // Beyond the phase's precision and where zeta overflows: 0, the limit of
  // the envelope.
  CHECK(m::airy_ai(-1e206) == 0);
  CHECK(m::airy_ai(1e300) == 0);
  // Integers compute in float; the functor on a broadcast expression.
  const tl::Tensor<float> from_int = tl::special::airy_ai(tl::tensor<int64_t>({0, -3}));
  CHECK(from_int.to_vector() ==
        std::vector<float>{static_cast<float>(m::airy_ai(0.0)), static_cast<float>(m::airy_ai(-3.0))});
  const auto row = tl::tensor<double>({-1.0, 2.0});
  const tl::Tensor<double> grid = tl::special::airy_ai(row + tl::tensor<double>({{0.0}, {-4.0}}));
  CHECK(grid.to_vector() == std::vector<double>{m::airy_ai(-1.0), m::airy_ai(2.0), m::airy_ai(-5.0), m::airy_ai(-2.0)});
}
