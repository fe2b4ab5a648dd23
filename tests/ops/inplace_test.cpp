// In-place ops equal their out-of-place forms, write through views, and
// refuse results that cannot be cast back.

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "fixtures.hpp"

namespace {

template <class F, class G>
void check_same(F in_place, G out_of_place, double lo = 0.1, double hi = 0.9) {
  auto x = tl::linspace(lo, hi, 7);
  const tl::Tensor<float> expected = out_of_place(x);
  in_place(x);
  CHECK(x.to_vector() == expected.to_vector());
}

}  // namespace

TEST_CASE("every trailing-underscore method equals its out-of-place form") {
  check_same([](auto& x) { x.abs_(); }, [](const auto& x) { return tl::abs(x); });
  check_same([](auto& x) { x.acos_(); }, [](const auto& x) { return tl::acos(x); });
  check_same([](auto& x) { x.asin_(); }, [](const auto& x) { return tl::asin(x); });
  check_same([](auto& x) { x.atan_(); }, [](const auto& x) { return tl::atan(x); });
  check_same([](auto& x) { x.asinh_(); }, [](const auto& x) { return tl::asinh(x); });
  check_same([](auto& x) { x.acosh_(); }, [](const auto& x) { return tl::acosh(x); }, 1.1, 1.9);
  check_same([](auto& x) { x.atanh_(); }, [](const auto& x) { return tl::atanh(x); });
  check_same([](auto& x) { x.ceil_(); }, [](const auto& x) { return tl::ceil(x); });
  check_same([](auto& x) { x.cos_(); }, [](const auto& x) { return tl::cos(x); });
  check_same([](auto& x) { x.cosh_(); }, [](const auto& x) { return tl::cosh(x); });
  check_same([](auto& x) { x.digamma_(); }, [](const auto& x) { return tl::digamma(x); });
  check_same([](auto& x) { x.erf_(); }, [](const auto& x) { return tl::erf(x); });
  check_same([](auto& x) { x.erfc_(); }, [](const auto& x) { return tl::erfc(x); });
  check_same([](auto& x) { x.erfinv_(); }, [](const auto& x) { return tl::erfinv(x); });
  check_same([](auto& x) { x.exp_(); }, [](const auto& x) { return tl::exp(x); });
  check_same([](auto& x) { x.exp2_(); }, [](const auto& x) { return tl::exp2(x); });
  check_same([](auto& x) { x.expm1_(); }, [](const auto& x) { return tl::expm1(x); });
  check_same([](auto& x) { x.floor_(); }, [](const auto& x) { return tl::floor(x); });
  check_same([](auto& x) { x.frac_(); }, [](const auto& x) { return tl::frac(x); });
  check_same([](auto& x) { x.lgamma_(); }, [](const auto& x) { return tl::lgamma(x); });
  check_same([](auto& x) { x.log_(); }, [](const auto& x) { return tl::log(x); });
  check_same([](auto& x) { x.log10_(); }, [](const auto& x) { return tl::log10(x); });
  check_same([](auto& x) { x.log1p_(); }, [](const auto& x) { return tl::log1p(x); });
  check_same([](auto& x) { x.log2_(); }, [](const auto& x) { return tl::log2(x); });
  check_same([](auto& x) { x.neg_(); }, [](const auto& x) { return -x; });
  check_same([](auto& x) { x.reciprocal_(); }, [](const auto& x) { return tl::reciprocal(x); });
  check_same([](auto& x) { x.relu_(); }, [](const auto& x) { return tl::relu(x); });
  check_same([](auto& x) { x.round_(); }, [](const auto& x) { return tl::round(x); });
  check_same([](auto& x) { x.rsqrt_(); }, [](const auto& x) { return tl::rsqrt(x); });
  check_same([](auto& x) { x.sigmoid_(); }, [](const auto& x) { return tl::sigmoid(x); });
  check_same([](auto& x) { x.sign_(); }, [](const auto& x) { return tl::sign(x); });
  check_same([](auto& x) { x.sin_(); }, [](const auto& x) { return tl::sin(x); });
  check_same([](auto& x) { x.sinh_(); }, [](const auto& x) { return tl::sinh(x); });
  check_same([](auto& x) { x.sqrt_(); }, [](const auto& x) { return tl::sqrt(x); });
  check_same([](auto& x) { x.square_(); }, [](const auto& x) { return tl::square(x); });
  check_same([](auto& x) { x.tan_(); }, [](const auto& x) { return tl::tan(x); });
  check_same([](auto& x) { x.tanh_(); }, [](const auto& x) { return tl::tanh(x); });
  check_same([](auto& x) { x.trunc_(); }, [](const auto& x) { return tl::trunc(x); });
  check_same([](auto& x) { x.add_(2.f); }, [](const auto& x) { return x + 2; });
  check_same([](auto& x) { x.add_(x, 3.f); }, [](const auto& x) { return x + x * 3; });
  check_same([](auto& x) { x.sub_(x * x, 0.5f); }, [](const auto& x) { return x - x * x * 0.5f; });
  check_same([](auto& x) { x.mul_(x); }, [](const auto& x) { return x * x; });
  check_same([](auto& x) { x.div_(4); }, [](const auto& x) { return x / 4; });
  check_same([](auto& x) { x.pow_(3); }, [](const auto& x) { return tl::pow(x, 3); });
  check_same([](auto& x) { x.clamp_(0.3, 0.6); }, [](const auto& x) { return tl::clamp(x, 0.3, 0.6); });
  check_same([](auto& x) { x.clamp_min_(0.5); }, [](const auto& x) { return tl::clamp_min(x, 0.5); });
  check_same([](auto& x) { x.clamp_max_(0.5); }, [](const auto& x) { return tl::clamp_max(x, 0.5); });
  check_same([](auto& x) { x.apply_(tl::fn::Gelu{}); }, [](const auto& x) { return tl::gelu(x); });
  check_same([](auto& x) { x += 1; }, [](const auto& x) { return x + 1; });
  check_same([](auto& x) { x.sub_(x); }, [](const auto& x) { return x - x; });
  check_same([](auto& x) { x *= 2; }, [](const auto& x) { return x * 2; });
  check_same([](auto& x) { x /= x + 1; }, [](const auto& x) { return x / (x + 1); });
  check_same([](auto& x) { x.fmod_(0.3f); }, [](const auto& x) { return tl::fmod(x, 0.3f); });
  check_same([](auto& x) { x.remainder_(-0.3f); }, [](const auto& x) { return tl::remainder(x, -0.3f); });
  check_same([](auto& x) { x.atan2_(x + 1); }, [](const auto& x) { return tl::atan2(x, x + 1); });
  check_same([](auto& x) { x.hypot_(x * 2 - 1); }, [](const auto& x) { return tl::hypot(x, x * 2 - 1); });
  check_same([](auto& x) { x.sinc_(); }, [](const auto& x) { return tl::sinc(x); }, -1.5, 1.5);
  check_same([](auto& x) { x.deg2rad_(); }, [](const auto& x) { return tl::deg2rad(x); });
  check_same([](auto& x) { x.rad2deg_(); }, [](const auto& x) { return tl::rad2deg(x); });
  check_same([](auto& x) { x.maximum_(0.5f); }, [](const auto& x) { return tl::maximum(x, 0.5f); });
  check_same([](auto& x) { x.minimum_(0.5f); }, [](const auto& x) { return tl::minimum(x, 0.5f); });
  check_same([](auto& x) { x.lerp_(2.f, 0.25f); }, [](const auto& x) { return tl::lerp(x, 2.f, 0.25f); });
  check_same([](auto& x) { x.logical_and_(x > 0.5f); },
             [](const auto& x) { return tl::logical_and(x, x > 0.5f).template to<float>(); });
  check_same([](auto& x) { x.logical_not_(); }, [](const auto& x) { return tl::logical_not(x).template to<float>(); });
}

TEST_CASE("float_power_ writes the double power into a double tensor") {
  auto x = tl::tensor<double>({0.5, 2.0, 3.0});
  const tl::Tensor<double> expected = tl::float_power(x, tl::tensor<double>({2.0, -0.5, 1.5}));
  x.float_power_(tl::tensor<double>({2.0, -0.5, 1.5}));
  CHECK(x.to_vector() == expected.to_vector());
  x.float_power_(2);
  CHECK(x.to_vector() == tl::Tensor<double>(tl::float_power(expected, 2)).to_vector());
}

TEST_CASE("bitwise and logical in-place forms on integers") {
  auto x = tl::tensor({12, 10, 7});
  x &= 6;
  CHECK(x.to_vector() == std::vector<int64_t>{4, 2, 6});
  x |= 1;
  CHECK(x.to_vector() == std::vector<int64_t>{5, 3, 7});
  x ^= tl::tensor({1, 1, 1});
  CHECK(x.to_vector() == std::vector<int64_t>{4, 2, 6});
  x.bitwise_not_();
  CHECK(x.to_vector() == std::vector<int64_t>{-5, -3, -7});
  x.logical_or_(0);
  CHECK(x.to_vector() == std::vector<int64_t>{1, 1, 1});
  auto m = tl::tensor({true, false});
  m.logical_xor_(tl::tensor({true, true}));
  CHECK(m.to_vector() == std::vector<bool>{false, true});
}

TEST_CASE("in-place ops write through views and integer tensors keep their type") {
  auto x = tl::arange(12).view({3, 4});
  x.t().slice(0, 1, 3) *= 10;  // columns 1 and 2
  CHECK(x.to_vector() == std::vector<int64_t>{0, 10, 20, 3, 4, 50, 60, 7, 8, 90, 100, 11});
  auto y = tl::ones<int32_t>({3});
  y += 2;
  y *= y;
  CHECK(y.to_vector() == std::vector<int32_t>{9, 9, 9});
  y.zero_();
  CHECK(y.to_vector() == std::vector<int32_t>{0, 0, 0});
  auto b = tl::zeros<float>({2, 2});
  CHECK_THROWS_WITH_AS(b.add_(tl::ones<float>({3, 2, 2})),
                       "add_: output with shape [2, 2] doesn't match the "
                       "broadcast shape [3, 2, 2]",
                       tl::ShapeError);
}

// test_ops is built with TENSORLIB_NO_FUSED_BACKWARD (tests/CMakeLists.txt,
// Note [no fused backward]): recording a pointwise expression is refused;
// evaluating one is not.
TEST_CASE("TENSORLIB_NO_FUSED_BACKWARD refuses to record a pointwise expression") {
#if defined(TENSORLIB_NO_FUSED_BACKWARD)
  auto x = tl::tensor<float>({1, 2}, {.requires_grad = true});
  CHECK_THROWS_WITH_AS(tl::Tensor<float>(x * 2.0f), doctest::Contains("TENSORLIB_NO_FUSED_BACKWARD is defined"),
                       tl::NotImplementedError);
  CHECK_THROWS_AS(tl::sum(x * 2.0f), tl::NotImplementedError);
  CHECK(tl::Tensor<float>(x.detach() * 2.0f).to_vector() == std::vector<float>{2, 4});
  tl::NoGradGuard no_grad;
  CHECK(tl::Tensor<float>(x * 2.0f).to_vector() == std::vector<float>{2, 4});
  CHECK(tl::sum(x * 2.0f).item() == 6.0f);
#else
  FAIL("test_ops is meant to be built with TENSORLIB_NO_FUSED_BACKWARD");
#endif
}

TEST_CASE("writes into an expanded tensor: refused when elements share memory, allowed without elements") {
  // PyTorch's internal-overlap check: stride 0 over a dimension of size > 1,
  // unless the tensor has no elements at all.
  const auto base = tl::zeros<float>({1, 2});
  auto shared = base.expand({3, 2});
  CHECK_THROWS_WITH_AS(shared.add_(1.f), doctest::Contains("more than one element of the written-to tensor"),
                       tl::ValueError);
  CHECK_THROWS_AS(shared.copy_(tl::ones<float>({3, 2})), tl::ValueError);
  CHECK_THROWS_AS(shared.exponential_(0), tl::ValueError);  // refused as PyTorch's, though it fills
  // fill_ and zero_ store one value, so PyTorch skips the check for them
  // (Note [fills of expanded tensors] in ops/inplace.hpp).
  shared.fill_(2.f);
  CHECK(base.to_vector() == std::vector<float>{2.f, 2.f});
  CHECK(shared.to_vector() == std::vector<float>(6, 2.f));
  shared.zero_();
  CHECK(base.to_vector() == std::vector<float>{0.f, 0.f});
  auto empty = tl::zeros<float>({1, 0}).expand({3, 0});
  REQUIRE(empty.stride(0) == 0);
  CHECK_NOTHROW(empty.add_(1.f));
  CHECK_NOTHROW(empty.fill_(2.f));
  CHECK_NOTHROW(empty.copy_(tl::ones<float>({3, 0})));
  CHECK_NOTHROW(empty.mul_(tl::ones<float>({3, 0})));
  CHECK_NOTHROW(empty.uniform_());
  CHECK(empty.numel() == 0);
}

TEST_CASE("in-place comparisons write 1 and 0 in the tensor's type, against PyTorch") {
  const auto& f = fixtures::load("aliases.txt");
  const auto& c = f["inplace_compare/float"];
  const auto x = c.get<float>("x"), other = c.get<float>("other");
  auto eq = x.clone(), ne = x.clone(), lt = x.clone(), le = x.clone(), gt = x.clone(), ge = x.clone();
  eq.eq_(other);
  ne.ne_(other);
  lt.lt_(other);
  le.le_(other);
  gt.gt_(other);
  ge.ge_(other);
  fixtures::check_close(eq, c.get<float>("eq_"), 0, 0, "eq_");
  fixtures::check_close(ne, c.get<float>("ne_"), 0, 0, "ne_ (NaN is not equal to itself)");
  fixtures::check_close(lt, c.get<float>("lt_"), 0, 0, "lt_");
  fixtures::check_close(le, c.get<float>("le_"), 0, 0, "le_");
  fixtures::check_close(gt, c.get<float>("gt_"), 0, 0, "gt_");
  fixtures::check_close(ge, c.get<float>("ge_"), 0, 0, "ge_");
  const auto& ci = f["inplace_compare/int32_scalar"];
  const auto n = ci.get<int32_t>("x");
  for (const std::string op : {"eq_", "ne_", "lt_", "le_", "gt_", "ge_"}) {
    CAPTURE(op);
    auto t = n.clone();
    if (op == "eq_") t.eq_(3);
    if (op == "ne_") t.ne_(3);
    if (op == "lt_") t.lt_(3);
    if (op == "le_") t.le_(3);
    if (op == "gt_") t.gt_(3);
    if (op == "ge_") t.ge_(3);
    CHECK(t.to_vector() == ci.get<int32_t>(op).to_vector());
  }
  // The comparison runs in the promoted type: an int tensor against 2.5.
  auto ints = tl::tensor<int32_t>({2, 3});
  auto ints_lt = ints.clone();
  ints.eq_(2.5);
  ints_lt.lt_(2.5);
  CHECK(ints.to_vector() == std::vector<int32_t>{0, 0});
  CHECK(ints_lt.to_vector() == std::vector<int32_t>{1, 0});
  // The other operand broadcasts to the tensor, never the tensor to it.
  auto row = tl::tensor<float>({1.f, 2.f, 3.f});
  CHECK_THROWS_AS(row.eq_(tl::ones<float>({2, 3})), tl::ShapeError);
}

TEST_CASE("tril_, triu_, cumsum_ and cumprod_ write the out-of-place result in the tensor's type") {
  const auto m = tl::arange<float>(1, 13).reshape({3, 4});
  auto lower = m.clone(), upper = m.clone();
  lower.tril_(1);
  upper.triu_(-1);
  CHECK(tl::equal(lower, m.tril(1)));
  CHECK(tl::equal(upper, m.triu(-1)));
  auto sums = m.clone(), products = m.clone();
  sums.cumsum_(1);
  products.cumprod_(0);
  CHECK(tl::equal(sums, tl::cumsum(m, 1)));
  CHECK(tl::equal(products, tl::cumprod(m, 0)));
  // An int32 tensor stays int32 (the out-of-place forms give int64).
  auto i = tl::tensor<int32_t>({3, -1, 4, 2});
  i.cumsum_(0);
  CHECK(i.to_vector() == std::vector<int32_t>{3, 2, 6, 8});
  i.cumprod_(0);
  CHECK(i.to_vector() == std::vector<int32_t>{3, 6, 36, 288});
  CHECK_THROWS_WITH_AS(i.cumsum_(1), "cumsum_: dimension out of range (expected to be in range of [-1, 0], but got 1)",
                       tl::IndexError);
  CHECK_THROWS_WITH_AS(i.tril_(), "tril_: input tensor must have at least 2 dimensions, got 1", tl::ShapeError);
  // Through a view: the base sees the write.
  auto base = m.clone();
  base.slice(1, 1).tril_();
  CHECK(tl::equal(base.slice(1, 1), m.slice(1, 1).tril()));
  CHECK(tl::equal(base.select(1, 0), m.select(1, 0)));
}

TEST_CASE("logit_ and its eps") {
  const auto p = tl::tensor<double>({0.0, 0.25, 0.5, 0.9, 1.0});
  auto a = p.clone(), b = p.clone();
  a.logit_();
  b.logit_(0.1);
  CHECK(tl::equal(a, tl::Tensor<double>(tl::logit(p))));
  CHECK(tl::equal(b, tl::Tensor<double>(tl::logit(p, 0.1))));
  CHECK(b[0].item() == doctest::Approx(std::log(0.1 / 0.9)));
}
