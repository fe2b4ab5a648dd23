// PyTorch's other names (expr/aliases.hpp, the alias methods of
// core/pointwise_methods.hpp and core/inplace_methods.hpp): each gives the
// very expression of the function it names; rsub and ldexp (a composite,
// expr/composites.hpp) against PyTorch 1.13
// (tests/fixtures/generate_aliases.py); positive; and the type
// functions on run-time tags (promote_types, can_cast, result_type) against
// torch's table. Gradients are in tests/autograd/op_gradcheck_test.cpp.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "fixtures.hpp"
#include "tensorlib/tensorlib.hpp"

namespace {

/// Same expression type, and the same values once evaluated.
template <class A, class B>
void check_same_expression(const A& alias, const B& canonical, const char* what) {
  CAPTURE(what);
  CHECK(std::is_same_v<A, B>);
  using T = tl::value_type_t<A>;
  const tl::Tensor<T> a = alias, b = canonical;
  const auto av = a.to_vector(), bv = b.to_vector();
  REQUIRE(av.size() == bv.size());
  for (std::size_t i = 0; i < av.size(); ++i) {
    if constexpr (tl::is_floating<T>)
      CHECK((av[i] == bv[i] || (std::isnan(av[i]) && std::isnan(bv[i]))));
    else
      CHECK(av[i] == bv[i]);
  }
}

const tl::Tensor<float> alias_x = tl::tensor<float>({-2.5f, -0.5f, 0.0f, 0.25f, 0.9f, 3.5f});
const tl::Tensor<float> alias_y = tl::tensor<float>({1.0f, -0.5f, 2.0f, 0.25f, -3.0f, 3.5f});

}  // namespace

TEST_CASE("aliases: the free functions are the functions they name") {
  const auto& x = alias_x;
  const auto& y = alias_y;
  check_same_expression(tl::absolute(x), tl::abs(x), "absolute");
  check_same_expression(tl::arccos(x), tl::acos(x), "arccos");
  check_same_expression(tl::arccosh(x), tl::acosh(x), "arccosh");
  check_same_expression(tl::arcsin(x), tl::asin(x), "arcsin");
  check_same_expression(tl::arcsinh(x), tl::asinh(x), "arcsinh");
  check_same_expression(tl::arctan(x), tl::atan(x), "arctan");
  check_same_expression(tl::arctanh(x), tl::atanh(x), "arctanh");
  check_same_expression(tl::negative(x), tl::neg(x), "negative");
  check_same_expression(tl::fix(x), tl::trunc(x), "fix");
  check_same_expression(tl::sgn(x), tl::sign(x), "sgn");
  check_same_expression(tl::arctan2(x, y), tl::atan2(x, y), "arctan2");
  check_same_expression(tl::subtract(x, y), tl::sub(x, y), "subtract");
  check_same_expression(tl::subtract(x, y, 2), tl::sub(x, y, 2), "subtract alpha");
  check_same_expression(tl::multiply(x, 3), tl::mul(x, 3), "multiply");
  check_same_expression(tl::divide(x, y), tl::div(x, y), "divide");
  check_same_expression(tl::divide(x, y, "floor"), tl::div(x, y, "floor"), "divide floor");
  check_same_expression(tl::true_divide(x, y), tl::div(x, y), "true_divide");
  check_same_expression(tl::greater(x, y), tl::gt(x, y), "greater");
  check_same_expression(tl::greater_equal(x, y), tl::ge(x, y), "greater_equal");
  check_same_expression(tl::less(x, 0.25), tl::lt(x, 0.25), "less");
  check_same_expression(tl::less_equal(x, y), tl::le(x, y), "less_equal");
  check_same_expression(tl::not_equal(x, y), tl::ne(x, y), "not_equal");
}

TEST_CASE("aliases: the methods, also on expressions") {
  const auto& x = alias_x;
  const auto& y = alias_y;
  check_same_expression(x.absolute(), x.abs(), "absolute");
  check_same_expression((x * 0.5).arccos(), (x * 0.5).acos(), "arccos of an expression");
  check_same_expression(x.arcsinh(), x.asinh(), "arcsinh");
  check_same_expression(x.negative(), x.neg(), "negative");
  check_same_expression(x.fix(), x.trunc(), "fix");
  check_same_expression(x.sgn(), x.sign(), "sgn");
  check_same_expression(x.arctan2(y), x.atan2(y), "arctan2");
  check_same_expression(x.subtract(y), x.sub(y), "subtract");
  check_same_expression(x.subtract(y, 0.5), x.sub(y, 0.5), "subtract alpha");
  check_same_expression(x.multiply(y), x.mul(y), "multiply");
  check_same_expression(x.divide(y, "trunc"), x.div(y, "trunc"), "divide trunc");
  check_same_expression(x.true_divide(2), x.div(2), "true_divide");
  check_same_expression(x.greater(y), x.gt(y), "greater");
  check_same_expression(x.less_equal(y), x.le(y), "less_equal");
  check_same_expression(x.not_equal(y), x.ne(y), "not_equal");
  // The alpha forms of the methods add and sub: self +- alpha * other.
  const tl::Tensor<float> s = x.add(y, 2), d = x.sub(y, 2);
  for (int64_t i = 0; i < x.numel(); ++i) {
    CHECK(s[i].item() == x[i].item() + 2 * y[i].item());
    CHECK(d[i].item() == x[i].item() - 2 * y[i].item());
  }
}

TEST_CASE("aliases: the in-place forms write what the functions they name write") {
  const auto& x = alias_x;
  const auto& y = alias_y;
  auto check_inplace = [&](auto&& alias, auto&& canonical, const char* what) {
    CAPTURE(what);
    auto a = x.clone(), b = x.clone();
    alias(a);
    canonical(b);
    check_same_expression(a, b, what);
  };
  check_inplace([](auto& t) { t.absolute_(); }, [](auto& t) { t.abs_(); }, "absolute_");
  check_inplace([](auto& t) { t.arccos_(); }, [](auto& t) { t.acos_(); }, "arccos_");
  check_inplace([](auto& t) { t.arccosh_(); }, [](auto& t) { t.acosh_(); }, "arccosh_");
  check_inplace([](auto& t) { t.arcsin_(); }, [](auto& t) { t.asin_(); }, "arcsin_");
  check_inplace([](auto& t) { t.arcsinh_(); }, [](auto& t) { t.asinh_(); }, "arcsinh_");
  check_inplace([](auto& t) { t.arctan_(); }, [](auto& t) { t.atan_(); }, "arctan_");
  check_inplace([](auto& t) { t.arctanh_(); }, [](auto& t) { t.atanh_(); }, "arctanh_");
  check_inplace([](auto& t) { t.negative_(); }, [](auto& t) { t.neg_(); }, "negative_");
  check_inplace([](auto& t) { t.fix_(); }, [](auto& t) { t.trunc_(); }, "fix_");
  check_inplace([](auto& t) { t.sgn_(); }, [](auto& t) { t.sign_(); }, "sgn_");
  check_inplace([&](auto& t) { t.arctan2_(y); }, [&](auto& t) { t.atan2_(y); }, "arctan2_");
  check_inplace([&](auto& t) { t.subtract_(y, 2.f); }, [&](auto& t) { t.sub_(y, 2.f); }, "subtract_");
  check_inplace([&](auto& t) { t.multiply_(y); }, [&](auto& t) { t.mul_(y); }, "multiply_");
  check_inplace([&](auto& t) { t.divide_(y); }, [&](auto& t) { t.div_(y); }, "divide_");
  check_inplace([&](auto& t) { t.divide_(y, "floor"); }, [&](auto& t) { t.div_(y, "floor"); }, "divide_ floor");
  check_inplace([&](auto& t) { t.true_divide_(y); }, [&](auto& t) { t.div_(y); }, "true_divide_");
  check_inplace([&](auto& t) { t.greater_(y); }, [&](auto& t) { t.gt_(y); }, "greater_");
  check_inplace([&](auto& t) { t.greater_equal_(y); }, [&](auto& t) { t.ge_(y); }, "greater_equal_");
  check_inplace([&](auto& t) { t.less_(y); }, [&](auto& t) { t.lt_(y); }, "less_");
  check_inplace([&](auto& t) { t.less_equal_(y); }, [&](auto& t) { t.le_(y); }, "less_equal_");
  check_inplace([&](auto& t) { t.not_equal_(y); }, [&](auto& t) { t.ne_(y); }, "not_equal_");
}

TEST_CASE("positive returns its operand unchanged") {
  const auto x = alias_x;
  const tl::Tensor<float> p = tl::positive(x);
  CHECK(p.is_same(x));
  CHECK(x.positive().is_same(x));
  const auto e = x * 2;
  CHECK(std::is_same_v<decltype(tl::positive(e)), std::remove_const_t<decltype(e)>>);
  const tl::Tensor<int32_t> i = tl::positive(tl::tensor<int32_t>({-3, 4}));
  CHECK(i.to_vector() == std::vector<int32_t>{-3, 4});
}

TEST_CASE("rsub: other - alpha * input, against PyTorch") {
  const auto& f = fixtures::load("aliases.txt");
  const auto& c = f["rsub/float"];
  const auto x = c.get<float>("x"), y = c.get<float>("y");
  fixtures::check_close(tl::Tensor<float>(tl::rsub(x, y)), c.get<float>("r"), 0, 0, "rsub");
  fixtures::check_close(tl::Tensor<float>(tl::rsub(x, y, 2.5)), c.get<float>("r_alpha"), 1e-6, 1e-6, "rsub alpha");
  fixtures::check_close(tl::Tensor<float>(tl::rsub(x, 3.0)), c.get<float>("r_scalar"), 0, 0, "rsub scalar");
  const auto& ci = f["rsub/int64"];
  const tl::Tensor<int64_t> ri = tl::rsub(ci.get<int64_t>("x"), ci.get<int64_t>("y"), 3);
  CHECK(ri.to_vector() == ci.get<int64_t>("r").to_vector());
}

TEST_CASE("ldexp: input * 2^other, in floating point, against PyTorch") {
  const auto& f = fixtures::load("aliases.txt");
  const auto& a = f["ldexp/float_int32"];
  const auto r = tl::ldexp(a.get<float>("x"), a.get<int32_t>("e"));
  static_assert(std::is_same_v<tl::value_type_t<decltype(r)>, float>);
  fixtures::check_close(tl::Tensor<float>(r), a.get<float>("r"), 0, 0, "ldexp float, int32 (exact)");
  const auto& b = f["ldexp/double_double"];
  fixtures::check_close(tl::Tensor<double>(tl::ldexp(b.get<double>("x"), b.get<double>("e"))), b.get<double>("r"),
                        1e-15, 0, "ldexp double, double");
  const auto& c = f["ldexp/int64_int64"];
  const auto ri = tl::ldexp(c.get<int64_t>("x"), c.get<int64_t>("e"));
  static_assert(std::is_same_v<tl::value_type_t<decltype(ri)>, float>, "integers give the default float type");
  fixtures::check_close(tl::Tensor<float>(ri), c.get<float>("r"), 0, 0, "ldexp int64, int64");
  // In place: the tensor keeps its type.
  auto x = a.get<float>("x");
  x.ldexp_(a.get<int32_t>("e"));
  fixtures::check_close(x, a.get<float>("r"), 0, 0, "ldexp_");
}

TEST_CASE("promote_types and can_cast on run-time tags match torch for every pair") {
  const std::vector<tl::ScalarType> types{tl::kBool,    tl::kUInt8,   tl::kInt32,   tl::kInt64,
                                          tl::kFloat32, tl::kFloat64, tl::kFloat16, tl::kBFloat16};
  auto by_name = [&](const std::string& name) {
    for (auto t : types)
      if (tl::name(t) == name) return t;
    FAIL("unknown dtype " << name);
    return tl::kBool;
  };
  std::istringstream table(fixtures::load("aliases.txt")["promote_types_can_cast"].text("table"));
  int rows = 0;
  std::string a, b, r;
  int cast = 0;
  for (; table >> a >> b >> r >> cast; ++rows) {
    CAPTURE(a);
    CAPTURE(b);
    CHECK(tl::promote_types(by_name(a), by_name(b)) == by_name(r));
    CHECK(tl::can_cast(by_name(a), by_name(b)) == (cast == 1));
  }
  CHECK(rows == 64);
  CHECK(fixtures::error_message([] { (void)tl::promote_types(tl::kFloat, tl::dual_scalar_type(tl::kFloat, 1)); }) ==
        "promote_types: expected a tensor element type, got dual_float32");
}

TEST_CASE("can_cast_v and result_type agree with the static rules") {
  static_assert(tl::can_cast_v<int32_t, float>);
  static_assert(!tl::can_cast_v<double, int64_t>);
  static_assert(!tl::can_cast_v<int32_t, bool>);
  static_assert(tl::can_cast_v<bool, uint8_t>);
  static_assert(tl::can_cast_v<double, tl::Half>);
  const auto i = tl::tensor<int32_t>({1, 2});
  const auto h = tl::ones<tl::Half>({2});
  CHECK(tl::result_type(i, 2.5) == tl::kFloat32);
  CHECK(tl::result_type(i, int64_t{7}) == tl::kInt32);
  CHECK(tl::result_type(i, h) == tl::kFloat16);
  CHECK(tl::result_type(true, i * 2) == tl::kInt32);
  CHECK(tl::result_type(h, tl::ones<tl::BFloat16>({2})) == tl::kFloat32);
}
