// Functors on the GPU against the PyTorch fixtures (functor_parity.hpp),
// split in three files so nvcc builds them in parallel: each instantiates
// three kernels per functor and dtype.

#include "functor_parity.hpp"

using namespace functor_fixtures;

TEST_CASE("CUDA: binary functors match PyTorch, with broadcasting") {
  on_gpu([] {
    check_arithmetic_binary<float>();
    check_arithmetic_binary<double>();
    check_arithmetic_binary<int64_t>();
    check_arithmetic_binary<uint8_t>();
    check_common_binary<bool>();
    check_binary<float>(
        "div", [](const auto& a, const auto& b) { return a / b; }, true);
    check_binary<double>("atan2", [](const auto& a, const auto& b) { return tl::atan2(a, b); });
    check_binary<int64_t>(
        "bitwise_xor", [](const auto& a, const auto& b) { return a ^ b; }, true);
  });
}

TEST_CASE("CUDA: zeta, igamma and igammac match the CPU across their regions and special values") {
  if (cuda_support::no_gpu()) return;
  // zeta: the pole x = 1, poles and negative q, the switch to the
  // Euler-Maclaurin tail at 9; igamma: both sides of x = 1 and x = a, tiny
  // a, large a near x, zeros and infinities.
  const auto x = tl::tensor<double>({1.0, 1.5, 2.0, 3.0, 4.0, 60.0, 2.0, 2.0, 3.0, 0.5});
  const auto q = tl::tensor<double>({2.0, 0.3, -1.0, -2.5, 8.9, 1.0, 9.1, 1e6, 1e-5, 1.0});
  const auto a = tl::tensor<double>({1e-300, 1e-3, 0.3, 0.9, 2.0, 5.0, 20.1, 1e3, 0.0, 1.0, 3.0});
  const auto z = tl::tensor<double>({1.0, 1e-3, 2.0, 1.0, 3.0, 5.1, 15.0, 1e3, 1.0, 0.0, 1e300});
  const auto both = [](const char* name, const tl::Tensor<double>& u, const tl::Tensor<double>& v, auto f) {
    // The same double kernels on both sides, up to the device's pow, exp,
    // log, log1p and expm1 (a few ulp, times |log P| for the prefactors).
    cuda_support::check_parity(tl::Tensor<double>(f(u.cuda(), v.cuda())), tl::Tensor<double>(f(u, v)), 1e-12, 1e-300,
                               name);
    const auto uf = u.to<float>(), vf = v.to<float>();
    cuda_support::check_parity(tl::Tensor<float>(f(uf.cuda(), vf.cuda())), tl::Tensor<float>(f(uf, vf)), 1e-6, 1e-37,
                               name);
  };
  both("zeta", x, q, [](const auto& u, const auto& v) { return tl::special::zeta(u, v); });
  both("igamma", a, z, [](const auto& u, const auto& v) { return tl::igamma(u, v); });
  both("igammac", a, z, [](const auto& u, const auto& v) { return tl::igammac(u, v); });
}

TEST_CASE("CUDA: the orthogonal polynomials match the CPU: recurrences, trigonometric forms, +-1, degrees") {
  if (cuda_support::no_gpu()) return;
  // Inside and outside [-1, 1], +-1, NaN; negative, fractional, small and
  // large degrees (the Chebyshev families turn trigonometric after 6).
  const auto x = tl::tensor<double>({-7.0, -1.0, -0.3, 0.0, 0.25, 0.75, 0.999, 1.0, 1.5, 20.0, 0.5, 0.5});
  const auto n = tl::tensor<double>({3.0, 12.0, 7.0, 9.0, 2.7, 25.0, 60.0, 5.0, 8.0, 4.0, -1.0, 0.0});
  const auto both = [&](const char* name, auto f) {
    // The same double recurrences on both sides; the trigonometric forms up
    // to the device's acos, cos and sin.
    cuda_support::check_parity(tl::Tensor<double>(f(x.cuda(), n.cuda())), tl::Tensor<double>(f(x, n)), 1e-12, 1e-12,
                               name);
  };
  both("chebyshev_polynomial_t",
       [](const auto& u, const auto& v) { return tl::special::chebyshev_polynomial_t(u, v); });
  both("chebyshev_polynomial_u",
       [](const auto& u, const auto& v) { return tl::special::chebyshev_polynomial_u(u, v); });
  both("chebyshev_polynomial_v",
       [](const auto& u, const auto& v) { return tl::special::chebyshev_polynomial_v(u, v); });
  both("chebyshev_polynomial_w",
       [](const auto& u, const auto& v) { return tl::special::chebyshev_polynomial_w(u, v); });
  both("shifted_chebyshev_polynomial_t",
       [](const auto& u, const auto& v) { return tl::special::shifted_chebyshev_polynomial_t(u, v); });
  both("shifted_chebyshev_polynomial_u",
       [](const auto& u, const auto& v) { return tl::special::shifted_chebyshev_polynomial_u(u, v); });
  both("shifted_chebyshev_polynomial_v",
       [](const auto& u, const auto& v) { return tl::special::shifted_chebyshev_polynomial_v(u, v); });
  both("shifted_chebyshev_polynomial_w",
       [](const auto& u, const auto& v) { return tl::special::shifted_chebyshev_polynomial_w(u, v); });
  both("hermite_polynomial_h", [](const auto& u, const auto& v) { return tl::special::hermite_polynomial_h(u, v); });
  both("hermite_polynomial_he", [](const auto& u, const auto& v) { return tl::special::hermite_polynomial_he(u, v); });
  both("laguerre_polynomial_l", [](const auto& u, const auto& v) { return tl::special::laguerre_polynomial_l(u, v); });
  both("legendre_polynomial_p", [](const auto& u, const auto& v) { return tl::special::legendre_polynomial_p(u, v); });
  // Floats round the double result once, on both sides.
  const auto xf = x.to<float>(), nf = n.to<float>();
  cuda_support::check_parity(tl::Tensor<float>(tl::special::legendre_polynomial_p(xf.cuda(), nf.cuda())),
                             tl::Tensor<float>(tl::special::legendre_polynomial_p(xf, nf)), 1e-6, 1e-6,
                             "legendre_polynomial_p float");
}

TEST_CASE(
    "CUDA: copysign, nextafter, heaviside, gcd, lcm, the shifts, signbit, isposinf, isneginf, hardshrink, "
    "div's rounding modes") {
  if (cuda_support::no_gpu()) return;
  // Bit-exact on both devices: the functors only compare, select and work on
  // bits (gcd, lcm and the shifts in unsigned arithmetic).
  const auto& f = fixtures::load("elementwise.txt");
  for (const char* type : {"float32", "float64"}) {
    CAPTURE(type);
    const auto& c = f[std::string("copysign/") + type];
    const auto a = c.get<double>("a"), b = c.get<double>("b");
    const auto& n = f[std::string("nextafter/") + type];
    const auto na = n.get<double>("a"), nb = n.get<double>("b");
    const auto run = [&]<class T>() {
      const auto at = a.to<T>(), bt = b.to<T>(), nat = na.to<T>(), nbt = nb.to<T>();
      cuda_support::check_parity(tl::Tensor<T>(tl::copysign(at.cuda(), bt.cuda())), tl::Tensor<T>(tl::copysign(at, bt)),
                                 0, 0, "copysign");
      cuda_support::check_parity(tl::Tensor<T>(tl::nextafter(nat.cuda(), nbt.cuda())),
                                 tl::Tensor<T>(tl::nextafter(nat, nbt)), 0, 0, "nextafter");
      cuda_support::check_parity(tl::Tensor<T>(tl::heaviside(at.cuda(), bt.cuda())),
                                 tl::Tensor<T>(tl::heaviside(at, bt)), 0, 0, "heaviside");
      cuda_support::check_parity(tl::Tensor<T>(tl::hardshrink(at.cuda(), 1.5)), tl::Tensor<T>(tl::hardshrink(at, 1.5)),
                                 0, 0, "hardshrink");
      cuda_support::check_parity(tl::Tensor<T>(tl::div(at.cuda(), bt.cuda(), "trunc")),
                                 tl::Tensor<T>(tl::div(at, bt, "trunc")), 0, 0, "div trunc");
      cuda_support::check_parity(tl::Tensor<T>(tl::floor_divide(at.cuda(), bt.cuda())),
                                 tl::Tensor<T>(tl::floor_divide(at, bt)), 0, 0, "floor_divide");
      CHECK(tl::Tensor<bool>(tl::signbit(at.cuda())).cpu().to_vector() ==
            tl::Tensor<bool>(tl::signbit(at)).to_vector());
      CHECK(tl::Tensor<bool>(tl::isposinf(at.cuda())).cpu().to_vector() ==
            tl::Tensor<bool>(tl::isposinf(at)).to_vector());
      CHECK(tl::Tensor<bool>(tl::isneginf(at.cuda())).cpu().to_vector() ==
            tl::Tensor<bool>(tl::isneginf(at)).to_vector());
    };
    if (std::string(type) == "float32")
      run.operator()<float>();
    else
      run.operator()<double>();
  }
  const auto& g = f["gcd/int64"];
  const auto ga = g.get<int64_t>("a"), gb = g.get<int64_t>("b");
  CHECK(tl::Tensor<int64_t>(tl::gcd(ga.cuda(), gb.cuda())).cpu().to_vector() == g.get<int64_t>("gcd").to_vector());
  CHECK(tl::Tensor<int64_t>(tl::lcm(ga.cuda(), gb.cuda())).cpu().to_vector() == g.get<int64_t>("lcm").to_vector());
  const auto& u = f["gcd/uint8"];
  CHECK(tl::Tensor<uint8_t>(tl::lcm(u.get<uint8_t>("a").cuda(), u.get<uint8_t>("b").cuda())).cpu().to_vector() ==
        u.get<uint8_t>("lcm").to_vector());
  const auto& d = f["div/int64"];
  CHECK(
      tl::Tensor<int64_t>(tl::floor_divide(d.get<int64_t>("a").cuda(), d.get<int64_t>("b").cuda())).cpu().to_vector() ==
      d.get<int64_t>("floor").to_vector());
  const auto x = tl::tensor<int64_t>({5, -5, 5, -5, 1, -16});
  const auto s = tl::tensor<int64_t>({70, 64, -1, 63, 62, 2});
  CHECK(tl::Tensor<int64_t>(tl::bitwise_left_shift(x.cuda(), s.cuda())).cpu().to_vector() ==
        tl::Tensor<int64_t>(tl::bitwise_left_shift(x, s)).to_vector());
  CHECK(tl::Tensor<int64_t>(tl::bitwise_right_shift(x.cuda(), s.cuda())).cpu().to_vector() ==
        tl::Tensor<int64_t>(tl::bitwise_right_shift(x, s)).to_vector());
}
