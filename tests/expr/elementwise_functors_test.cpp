// copysign, nextafter, heaviside, gcd, lcm, the bit shifts, signbit,
// isposinf, isneginf and hardshrink (expr/functors/ieee.hpp, integer.hpp,
// comparison.hpp, activation.hpp): values against PyTorch 1.13
// (tests/fixtures/generate_elementwise.py), bit patterns (signed zeros,
// negative NaNs), current PyTorch's shifts past the width, the method and
// in-place forms, promotion. Gradients and the refusals are in
// tests/autograd/op_gradcheck_test.cpp.
#include <doctest/doctest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "fixtures.hpp"
#include "tensorlib/tensorlib.hpp"

namespace {

/// Equal element by element, NaN to NaN, and with the same sign bit.
template <class T>
void check_bits(const tl::Tensor<T>& got, const tl::Tensor<T>& want, const std::string& what) {
  CAPTURE(what);
  REQUIRE(got.sizes() == want.sizes());
  const std::vector<T> g = got.to_vector(), e = want.to_vector();
  for (std::size_t i = 0; i < g.size(); ++i) {
    CAPTURE(i);
    if (std::isnan(e[i])) {
      CHECK(std::isnan(g[i]));
    } else {
      CHECK(g[i] == e[i]);
      CHECK(std::signbit(g[i]) == std::signbit(e[i]));
    }
  }
}

template <class T>
void check_ieee_fixtures(const std::string& type) {
  const auto& f = fixtures::load("elementwise.txt");
  const auto& c = f["copysign/" + type];
  const auto a = c.get<T>("a"), b = c.get<T>("b");
  check_bits(tl::Tensor<T>(tl::copysign(a, b)), c.get<T>("y"), "copysign " + type);
  check_bits(tl::Tensor<T>(a.copysign(b)), c.get<T>("y"), "copysign method " + type);
  const auto& n = f["nextafter/" + type];
  check_bits(tl::Tensor<T>(tl::nextafter(n.get<T>("a"), n.get<T>("b"))), n.get<T>("y"), "nextafter " + type);
  const auto& h = f["heaviside/" + type];
  check_bits(tl::Tensor<T>(tl::heaviside(h.get<T>("x"), h.get<T>("values"))), h.get<T>("y"), "heaviside " + type);
  const auto& s = f["signs/" + type];
  const auto x = s.get<T>("x");
  CHECK(tl::Tensor<bool>(tl::signbit(x)).to_vector() == s.get<bool>("signbit").to_vector());
  CHECK(tl::Tensor<bool>(x.isposinf()).to_vector() == s.get<bool>("isposinf").to_vector());
  CHECK(tl::Tensor<bool>(tl::isneginf(x)).to_vector() == s.get<bool>("isneginf").to_vector());
  for (const std::string lambd : {"0.5", "1.5", "-1"}) {
    const auto& k = f["hardshrink/" + type + "/" + lambd];
    check_bits(tl::Tensor<T>(tl::hardshrink(k.get<T>("x"), std::stod(lambd))), k.get<T>("y"), "hardshrink " + lambd);
  }
}

template <class T>
void check_integer_fixtures(const std::string& type) {
  const auto& f = fixtures::load("elementwise.txt");
  const auto& g = f["gcd/" + type];
  const auto a = g.get<T>("a"), b = g.get<T>("b");
  CHECK(tl::Tensor<T>(tl::gcd(a, b)).to_vector() == g.get<T>("gcd").to_vector());
  CHECK(tl::Tensor<T>(a.lcm(b)).to_vector() == g.get<T>("lcm").to_vector());
  const auto& s = f["shift/" + type];
  const auto x = s.get<T>("a"), n = s.get<T>("b");
  CHECK(tl::Tensor<T>(tl::bitwise_left_shift(x, n)).to_vector() == s.get<T>("left").to_vector());
  CHECK(tl::Tensor<T>(x.bitwise_right_shift(n)).to_vector() == s.get<T>("right").to_vector());
}

}  // namespace

TEST_CASE("copysign, nextafter, heaviside, signbit, isposinf, isneginf and hardshrink match PyTorch bit for bit") {
  check_ieee_fixtures<float>("float32");
  check_ieee_fixtures<double>("float64");
  const auto& f = fixtures::load("elementwise.txt");
  // Integers compute copysign in float; heaviside keeps int64 and bool.
  const auto& ci = f["copysign/int64"];
  check_bits(tl::Tensor<float>(tl::copysign(ci.get<int64_t>("a"), ci.get<int64_t>("b"))), ci.get<float>("y"),
             "copysign of integers");
  const auto& hi = f["heaviside/int64"];
  CHECK(tl::Tensor<int64_t>(tl::heaviside(hi.get<int64_t>("x"), hi.get<int64_t>("values"))).to_vector() ==
        hi.get<int64_t>("y").to_vector());
  const auto& hb = f["heaviside/bool"];
  CHECK(tl::Tensor<bool>(hb.get<bool>("x").heaviside(hb.get<bool>("values"))).to_vector() ==
        hb.get<bool>("y").to_vector());
  const auto& si = f["signs/int64"];
  const auto xi = si.get<int64_t>("x");
  CHECK(tl::Tensor<bool>(xi.signbit()).to_vector() == si.get<bool>("signbit").to_vector());
  CHECK(tl::Tensor<bool>(tl::isposinf(xi)).to_vector() == si.get<bool>("isposinf").to_vector());
  CHECK(tl::Tensor<bool>(xi.isneginf()).to_vector() == si.get<bool>("isneginf").to_vector());
}

TEST_CASE("signbit, copysign and nextafter read the sign of a NaN and of zeros") {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const auto x = tl::tensor<double>({-nan, nan, -0.0, 0.0});
  CHECK(tl::Tensor<bool>(tl::signbit(x)).to_vector() == std::vector<bool>{true, false, true, false});
  CHECK(tl::Tensor<bool>(tl::signbit(x.to<float>())).to_vector() == std::vector<bool>{true, false, true, false});
  CHECK(tl::Tensor<bool>(tl::signbit(tl::tensor<bool>({true, false}))).to_vector() == std::vector<bool>{false, false});
  const std::vector<double> signed_one = tl::Tensor<double>(tl::copysign(1.0, x)).to_vector();
  CHECK(signed_one == std::vector<double>{-1.0, 1.0, -1.0, 1.0});
  // nextafter from either zero: the smallest subnormal of the target's sign;
  // between the zeros: the target.
  const double tiny = std::numeric_limits<double>::denorm_min();
  CHECK(tl::Tensor<double>(tl::nextafter(x, 1.0)).to_vector()[2] == tiny);
  CHECK(tl::Tensor<double>(tl::nextafter(x, -1.0)).to_vector()[3] == -tiny);
  CHECK(std::signbit(tl::Tensor<double>(tl::nextafter(x, -0.0)).to_vector()[3]));
  CHECK(tl::Tensor<float>(tl::nextafter(tl::tensor<float>({1.0f}), 2.0f)).to_vector()[0] == std::nextafter(1.0f, 2.0f));
  // Against the C library across magnitudes, both directions.
  for (const double v : {1e-300, 3e-310, 0.1, 1.0, 2.0, 1e10, 1e308, -5.5, -1e-320}) {
    CAPTURE(v);
    const auto t = tl::tensor<double>({v, v});
    const auto to =
        tl::tensor<double>({std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity()});
    CHECK(tl::Tensor<double>(tl::nextafter(t, to)).to_vector() ==
          std::vector<double>{std::nextafter(v, to.to_vector()[0]), std::nextafter(v, to.to_vector()[1])});
  }
}

TEST_CASE("gcd, lcm and the bit shifts match PyTorch, including wrapping and the most negative value") {
  check_integer_fixtures<int64_t>("int64");
  check_integer_fixtures<int32_t>("int32");
  check_integer_fixtures<uint8_t>("uint8");
  // Promotion: int32 with int64 gives int64; a scalar takes the tensor's type.
  const auto a32 = tl::tensor<int32_t>({12, -18});
  const tl::Tensor<int64_t> mixed = tl::gcd(a32, tl::tensor<int64_t>({8, 12}));
  CHECK(mixed.to_vector() == std::vector<int64_t>{4, 6});
  const tl::Tensor<int32_t> with_scalar = tl::lcm(a32, 8);
  CHECK(with_scalar.to_vector() == std::vector<int32_t>{24, 72});
  CHECK(tl::Tensor<int32_t>(tl::bitwise_left_shift(3, tl::tensor<int32_t>({1, 2}))).to_vector() ==
        std::vector<int32_t>{6, 12});
}

TEST_CASE("the bit shifts past the width follow current PyTorch: 0 to the left, the sign fill to the right") {
  // PyTorch 1.13 shifted by b modulo the width (5 << 70 == 320); current
  // PyTorch gives 0 for a negative or too large b, and a >> max_shift.
  const auto a = tl::tensor<int64_t>({5, -5, 5, -5, 5});
  const auto b = tl::tensor<int64_t>({70, 64, -1, 63, 64});
  const int64_t low_bit_to_sign = std::numeric_limits<int64_t>::min();  // -5 << 63: the low 1 bit becomes the sign
  CHECK(tl::Tensor<int64_t>(tl::bitwise_left_shift(a, b)).to_vector() ==
        std::vector<int64_t>{0, 0, 0, low_bit_to_sign, 0});
  CHECK(tl::Tensor<int64_t>(tl::bitwise_right_shift(a, b)).to_vector() == std::vector<int64_t>{0, -1, 0, -1, 0});
  const auto u = tl::tensor<uint8_t>({128, 255, 1});
  const auto s = tl::tensor<uint8_t>({8, 200, 7});
  CHECK(tl::Tensor<uint8_t>(tl::bitwise_left_shift(u, s)).to_vector() == std::vector<uint8_t>{0, 0, 128});
  CHECK(tl::Tensor<uint8_t>(tl::bitwise_right_shift(u, s)).to_vector() == std::vector<uint8_t>{0, 0, 0});
  const auto i = tl::tensor<int32_t>({-128, 64});
  CHECK(tl::Tensor<int32_t>(tl::bitwise_right_shift(i, 40)).to_vector() == std::vector<int32_t>{-1, 0});
  CHECK(tl::Tensor<int32_t>(tl::bitwise_left_shift(i, 31)).to_vector() ==
        std::vector<int32_t>{0, 0});  // the bits shift out (128 << 31 wraps to 0)
}

TEST_CASE("the in-place forms write what the functions return") {
  auto x = tl::tensor<double>({1.5, -2.0, 0.0, 3.0});
  const auto y = tl::tensor<double>({-1.0, 1.0, -1.0, 0.0});
  const tl::Tensor<double> copysigned = tl::copysign(x, y);
  const tl::Tensor<double> stepped = tl::nextafter(x, y);
  const tl::Tensor<double> step = tl::heaviside(x, y);
  auto c = x.clone();
  c.copysign_(y);
  check_bits(c, copysigned, "copysign_");
  auto n = x.clone();
  n.nextafter_(y);
  check_bits(n, stepped, "nextafter_");
  auto h = x.clone();
  h.heaviside_(y);
  check_bits(h, step, "heaviside_");
  auto g = tl::tensor<int64_t>({12, 10, 7});
  g.gcd_(tl::tensor<int64_t>({8, 4, 0}));
  CHECK(g.to_vector() == std::vector<int64_t>{4, 2, 7});
  g.lcm_(6);
  CHECK(g.to_vector() == std::vector<int64_t>{12, 6, 42});
  g.bitwise_left_shift_(2);
  CHECK(g.to_vector() == std::vector<int64_t>{48, 24, 168});
  g.bitwise_right_shift_(tl::tensor<int64_t>({1, 2, 3}));
  CHECK(g.to_vector() == std::vector<int64_t>{24, 6, 21});
  // A broadcast write reads what it overwrites through a temporary, as every
  // in-place op does: each row is shifted by the original first row.
  auto m = tl::tensor<int64_t>({{1, 2}, {3, 4}});
  m.bitwise_left_shift_(m.select(0, 0));
  CHECK(m.to_vector() == std::vector<int64_t>{2, 8, 6, 16});
}

TEST_CASE(
    "copysign, nextafter, heaviside, hardshrink and div's rounding modes: the same bits on packets as on scalars") {
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  const double specials[] = {0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1e-310, -1e300, inf, -inf, nan, -nan, 2.5, -7.0};
  std::vector<double> av, bv;
  for (const double u : specials)
    for (const double v : specials) {
      av.push_back(u);
      bv.push_back(v);
    }
  const auto run = [&]<class T, class Bits>() {
    std::vector<T> at(av.begin(), av.end()), bt(bv.begin(), bv.end());
    const auto n = static_cast<int64_t>(at.size());
    const auto a = tl::from_blob(std::span<T>(at), {n}).clone(), b = tl::from_blob(std::span<T>(bt), {n}).clone();
    const auto same_bits = [&](const tl::Tensor<T>& got, auto scalar, const char* what) {
      CAPTURE(what);
      const std::vector<T> g = got.to_vector();
      int mismatches = 0;
      for (std::size_t i = 0; i < g.size(); ++i)
        mismatches += std::bit_cast<Bits>(g[i]) != std::bit_cast<Bits>(static_cast<T>(scalar(at[i], bt[i])));
      CHECK(mismatches == 0);
    };
    same_bits(tl::copysign(a, b), tl::fn::Copysign{}, "copysign");
    same_bits(tl::nextafter(a, b), tl::fn::Nextafter{}, "nextafter");
    same_bits(tl::heaviside(a, b), tl::fn::Heaviside{}, "heaviside");
    same_bits(
        tl::hardshrink(a, 0.5), [](T u, T) { return tl::fn::Hardshrink{0.5}(u); }, "hardshrink");
    same_bits(tl::div(a, b, "trunc"), tl::fn::DivRounded{false}, "div trunc");
    same_bits(tl::div(a, b, "floor"), tl::fn::DivRounded{true}, "div floor");
  };
  run.operator()<float, uint32_t>();
  run.operator()<double, uint64_t>();
}

TEST_CASE("div's rounding modes and floor_divide match PyTorch, integers included") {
  const auto& f = fixtures::load("elementwise.txt");
  const auto floats = [&]<class T>(const std::string& type) {
    const auto& c = f["div/" + type];
    const auto a = c.get<T>("a"), b = c.get<T>("b");
    check_bits(tl::Tensor<T>(tl::div(a, b, "trunc")), c.get<T>("trunc"), "trunc " + type);
    check_bits(tl::Tensor<T>(a.div(b, "floor")), c.get<T>("floor"), "floor " + type);
    check_bits(tl::Tensor<T>(tl::floor_divide(a, b)), c.get<T>("floor_divide"), "floor_divide " + type);
    auto in_place = a.clone();
    in_place.div_(b, "floor");
    check_bits(in_place, c.get<T>("floor"), "div_ floor " + type);
    auto floored = a.clone();
    floored.floor_divide_(b);
    check_bits(floored, c.get<T>("floor"), "floor_divide_ " + type);
  };
  floats.operator()<float>("float32");
  floats.operator()<double>("float64");
  const auto ints = [&]<class T>(const std::string& type) {
    const auto& c = f["div/" + type];
    const auto a = c.get<T>("a"), b = c.get<T>("b");
    const tl::Tensor<T> trunc = tl::div(a, b, "trunc"), floor = tl::floor_divide(a, b);  // integers stay integers
    CHECK(trunc.to_vector() == c.get<T>("trunc").to_vector());
    CHECK(floor.to_vector() == c.get<T>("floor").to_vector());
  };
  ints.operator()<int64_t>("int64");
  ints.operator()<uint8_t>("uint8");
  // INT_MIN / -1 wraps (PyTorch's CPU kernel would trap); a scalar divisor
  // keeps the tensor's type.
  const auto m = tl::tensor<int64_t>({std::numeric_limits<int64_t>::min(), int64_t{-7}});
  CHECK(tl::Tensor<int64_t>(tl::div(m, -1, "floor")).to_vector() ==
        std::vector<int64_t>{std::numeric_limits<int64_t>::min(), 7});
  const tl::Tensor<int32_t> by_scalar = tl::floor_divide(tl::tensor<int32_t>({-7, 7}), 2);
  CHECK(by_scalar.to_vector() == std::vector<int32_t>{-4, 3});
  // PyTorch's errors: an unknown mode, integer division by zero.
  CHECK_THROWS_WITH_AS(tl::div(m, 2, "round"),
                       "div expected rounding_mode to be one of None, 'trunc', or 'floor' but found 'round'",
                       tl::ValueError);
  CHECK_THROWS_WITH_AS(tl::Tensor<int64_t>(tl::div(m, tl::tensor<int64_t>({1, 0}), "trunc")),
                       doctest::Contains("ZeroDivisionError"), tl::ValueError);
}

TEST_CASE("threshold and threshold_: x above the threshold, else the value, in x's type (PyTorch)") {
  const auto& f = fixtures::load("aliases.txt");
  const auto& c = f["threshold/float"];
  const auto x = c.get<float>("x");
  check_bits(tl::Tensor<float>(tl::threshold(x, 0.5, -7.0)), c.get<float>("r"), "threshold");
  auto y = x.clone();
  tl::threshold_(y, 0.5, -7.0);
  check_bits(y, c.get<float>("r"), "threshold_");
  const auto& i = f["threshold/int32"];
  const auto ri = tl::threshold(i.get<int32_t>("x"), 1, 9);
  static_assert(std::is_same_v<tl::value_type_t<decltype(ri)>, int32_t>);
  CHECK(tl::Tensor<int32_t>(ri).to_vector() == i.get<int32_t>("r").to_vector());
}
