// float16 and bfloat16 (core/half.hpp, Note [reduced floats]): conversions
// against PyTorch and against the rounding rule itself, pointwise ops, fused
// chains, promotion, reductions, matrix products and conversions against
// PyTorch (tests/fixtures/half.txt, made by generate_half.py).

#include <doctest/doctest.h>

#include <cmath>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <tensorlib/tensorlib.hpp>

#include "fixtures.hpp"

namespace {

template <class T>
bool is_nan_bits(uint16_t b) {
  return std::isnan(static_cast<float>(T::from_bits(b)));
}

/// Every element equal, bit for bit except that any NaN matches any NaN.
template <class T>
void check_bits(const tl::Tensor<T>& actual, const tl::Tensor<T>& expected, const std::string& what) {
  REQUIRE_MESSAGE(actual.sizes() == expected.sizes(), what);
  const auto a = actual.to_vector(), e = expected.to_vector();
  int failures = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const bool ok = is_nan_bits<T>(e[i].bits) ? is_nan_bits<T>(a[i].bits) : a[i].bits == e[i].bits;
    if (!ok && failures++ < 5)
      FAIL_CHECK(what << ": element " << i << " is " << static_cast<float>(a[i]) << ", expected "
                      << static_cast<float>(e[i]));
  }
  CHECK_MESSAGE(failures == 0, what << ": " << failures << " elements differ");
}

template <class T>
constexpr const char* dtype_name() {
  return std::is_same_v<T, tl::Half> ? "float16" : "bfloat16";
}

/// One unit in the last place at 1 (the tolerance of a float result rounded
/// once more: our float math and PyTorch's may differ by a float ulp, which
/// can move the 16-bit rounding by one step).
template <class T>
constexpr double ulp_at_one() {
  return std::is_same_v<T, tl::Half> ? 0x1p-10 : 0x1p-7;
}

template <class T>
void check_rounding_law() {
  // Between each pair of adjacent finite values of T, the midpoint (exact in
  // float) rounds to the one with an even significand, and the floats just
  // beside it to the nearer one.
  int failures = 0;
  for (uint32_t b = 0; b < 0x7fff; ++b) {
    const T lo = T::from_bits(static_cast<uint16_t>(b)), hi = T::from_bits(static_cast<uint16_t>(b + 1));
    const float flo = lo, fhi = hi;
    if (!std::isfinite(fhi)) break;
    const float mid = flo + (fhi - flo) / 2;  // no overflow near the largest values
    const uint16_t even = (b & 1u) ? static_cast<uint16_t>(b + 1) : static_cast<uint16_t>(b);
    const bool ok = T(mid).bits == even && T(std::nextafter(mid, 0.0f)).bits == b &&
                    T(std::nextafter(mid, INFINITY)).bits == b + 1 && T(flo).bits == b && T(-flo).bits == (b | 0x8000u);
    if (!ok && failures++ < 5) FAIL_CHECK(std::string(dtype_name<T>()) << ": rounding near bits " << b);
  }
  CHECK(failures == 0);
}

template <class T>
void check_conversion_fixture() {
  const fixtures::Case& c = fixtures::load("half.txt")[std::string("convert/") + dtype_name<T>()];
  const tl::Tensor<float> x = c.get<float>("x");
  check_bits<T>(x.to<T>(), c.get<T>("out"), std::string("convert ") + dtype_name<T>());
  // And back: the 16-bit values widen exactly.
  const tl::Tensor<T> out = c.get<T>("out");
  const auto widened = out.template to<float>().to_vector();
  const auto expected = out.to_vector();
  for (std::size_t i = 0; i < widened.size(); ++i)
    if (!std::isnan(widened[i])) CHECK(widened[i] == static_cast<float>(expected[i]));
}

/// An op's result against the fixture's "out": a bool result or an exact
/// one bit for bit, else within one step of T.
template <class T>
void check_op_result(const tl::AnyTensor& out, const fixtures::Case& c, const std::string& what, bool exact) {
  if (out.is<bool>())
    CHECK(out.as<bool>().to_vector() == c.get<bool>("out").to_vector());
  else if (exact)
    check_bits<T>(out.as<T>(), c.get<T>("out"), what);
  else
    fixtures::check_close(out.as<T>(), c.get<T>("out"), ulp_at_one<T>(), 0, what);
}

template <class T>
using Unary = std::function<tl::AnyTensor(const tl::Tensor<T>&)>;

template <class T>
void check_unary_ops() {
  const std::map<std::string, std::pair<Unary<T>, bool>> ops{
      // name -> (op, exact)
      {"neg", {[](const auto& x) { return tl::Tensor<T>(-x); }, true}},
      {"abs", {[](const auto& x) { return tl::Tensor<T>(tl::abs(x)); }, true}},
      {"exp", {[](const auto& x) { return tl::Tensor<T>(tl::exp(x)); }, false}},
      {"log", {[](const auto& x) { return tl::Tensor<T>(tl::log(x)); }, false}},
      {"sqrt", {[](const auto& x) { return tl::Tensor<T>(tl::sqrt(x)); }, true}},
      {"sigmoid", {[](const auto& x) { return tl::Tensor<T>(tl::sigmoid(x)); }, false}},
      {"tanh", {[](const auto& x) { return tl::Tensor<T>(tl::tanh(x)); }, false}},
      {"sin", {[](const auto& x) { return tl::Tensor<T>(tl::sin(x)); }, false}},
      {"relu", {[](const auto& x) { return tl::Tensor<T>(tl::relu(x)); }, true}},
      {"gelu", {[](const auto& x) { return tl::Tensor<T>(tl::gelu(x)); }, false}},
      {"reciprocal", {[](const auto& x) { return tl::Tensor<T>(tl::reciprocal(x)); }, true}},
      {"floor", {[](const auto& x) { return tl::Tensor<T>(tl::floor(x)); }, true}},
      {"isnan", {[](const auto& x) { return tl::Tensor<bool>(tl::isnan(x)); }, true}},
  };
  for (const auto& [name, op] : ops) {
    const fixtures::Case& c = fixtures::load("half.txt")["unary/" + name + "/" + dtype_name<T>()];
    const tl::AnyTensor out = op.first(c.get<T>("x"));
    check_op_result<T>(out, c, name + " " + dtype_name<T>(), op.second);
  }
}

template <class T>
using Binary = std::function<tl::AnyTensor(const tl::Tensor<T>&, const tl::Tensor<T>&)>;

template <class T>
void check_binary_ops() {
  const std::map<std::string, std::pair<Binary<T>, bool>> ops{
      {"add", {[](const auto& a, const auto& b) { return tl::Tensor<T>(a + b); }, true}},
      {"sub", {[](const auto& a, const auto& b) { return tl::Tensor<T>(a - b); }, true}},
      {"mul", {[](const auto& a, const auto& b) { return tl::Tensor<T>(a * b); }, true}},
      {"div", {[](const auto& a, const auto& b) { return tl::Tensor<T>(a / b); }, true}},
      {"maximum", {[](const auto& a, const auto& b) { return tl::Tensor<T>(tl::maximum(a, b)); }, true}},
      {"pow", {[](const auto& a, const auto& b) { return tl::Tensor<T>(tl::pow(a, b)); }, false}},
      {"lt", {[](const auto& a, const auto& b) { return tl::Tensor<bool>(a < b); }, true}},
      {"eq", {[](const auto& a, const auto& b) { return tl::Tensor<bool>(a == b); }, true}},
  };
  for (const auto& [name, op] : ops) {
    const fixtures::Case& c = fixtures::load("half.txt")["binary/" + name + "/" + dtype_name<T>()];
    const tl::AnyTensor out = op.first(c.get<T>("a"), c.get<T>("b"));
    check_op_result<T>(out, c, name + " " + dtype_name<T>(), op.second);
  }
}

template <class T>
void check_chain_reductions_products() {
  const auto& file = fixtures::load("half.txt");
  const std::string dt = dtype_name<T>();
  {
    const fixtures::Case& c = file["chain/" + dt];
    const auto a = c.get<T>("a"), b = c.get<T>("b");
    auto chain = ((a * b + 1.5) / (1 + tl::abs(a))) - b;
    static_assert(std::is_same_v<tl::value_type_t<decltype(chain)>, T>);
    const auto before = tl::stats::snapshot();
    const tl::Tensor<T> out = chain;
    CHECK((tl::stats::snapshot() - before).fused_loops == 1);  // one loop, rounding at every node as eager PyTorch
    check_bits<T>(out, c.get<T>("out"), "chain " + dt);
  }
  for (const char* op : {"sum", "mean", "max", "min"}) {
    const fixtures::Case& c = file[std::string("reduce/") + op + "/" + dt];
    const auto x = c.get<T>("x");
    tl::Tensor<T> out;
    if (std::string(op) == "sum") out = x.sum();
    if (std::string(op) == "mean") out = x.mean();
    if (std::string(op) == "max") out = x.max();
    if (std::string(op) == "min") out = x.min();
    fixtures::check_close(out, c.get<T>("out"), ulp_at_one<T>(), 0, std::string(op) + " " + dt);
  }
  {
    const fixtures::Case& c = file["mm/" + dt];
    const auto a = c.get<T>("a"), b = c.get<T>("b");
    fixtures::check_close(tl::mm(a, b), c.get<T>("out"), ulp_at_one<T>(), 0, "mm " + dt);
    // Transposed operands read in place give the same product.
    const tl::Tensor<T> at = a.t().contiguous().t(), bt = b.t().contiguous().t();
    check_bits<T>(tl::matmul(at, bt), tl::mm(a, b), "mm of transposed views " + dt);
  }
  const auto check_to = [&]<class U>(std::type_identity<U>) {
    const fixtures::Case& c = file["to/" + std::string(tl::DTypeTraits<U>::name) + "/" + dt];
    CHECK(c.get<T>("x").template to<U>().to_vector() == c.get<U>("out").to_vector());
  };
  check_to(std::type_identity<int64_t>{});
  check_to(std::type_identity<uint8_t>{});
  check_to(std::type_identity<bool>{});
  check_to(std::type_identity<double>{});
  check_to(std::type_identity<float>{});
}

}  // namespace

TEST_CASE("float16 and bfloat16: the bits of special values") {
  static_assert(sizeof(tl::Half) == 2 && sizeof(tl::BFloat16) == 2);
  static_assert(tl::Half(1.0f).bits == 0x3c00 && tl::Half(-2.0f).bits == 0xc000 && tl::Half(65504.0f).bits == 0x7bff);
  static_assert(tl::Half(65520.0f).bits == 0x7c00 && tl::Half(0x1p-24f).bits == 0x0001 &&
                tl::Half(0x1p-25f).bits == 0x0000);
  static_assert(tl::BFloat16(1.0f).bits == 0x3f80 && tl::BFloat16(-0.0f).bits == 0x8000);
  static_assert(static_cast<float>(tl::Half::from_bits(0x3555)) == 0.333251953125f);
  static_assert(static_cast<float>(std::numeric_limits<tl::Half>::max()) == 65504.0f);
  static_assert(static_cast<float>(std::numeric_limits<tl::Half>::epsilon()) == 0x1p-10f);
  static_assert(static_cast<float>(std::numeric_limits<tl::BFloat16>::epsilon()) == 0x1p-7f);
  CHECK(std::isnan(static_cast<float>(tl::Half(NAN))));
  CHECK(tl::Half(NAN).bits == 0x7e00);
  CHECK(tl::BFloat16(-NAN).bits == 0x7fc0);  // c10::BFloat16's one NaN
  CHECK(tl::element_size(tl::kHalf) == 2);
  CHECK(tl::name(tl::kBFloat16) == "bfloat16");
}

TEST_CASE("float16 and bfloat16 round to nearest even at every boundary, and widen exactly") {
  check_rounding_law<tl::Half>();
  check_rounding_law<tl::BFloat16>();
  // Every 16-bit pattern survives a trip through float (NaNs stay NaN).
  for (uint32_t b = 0; b <= 0xffff; ++b) {
    const auto h = tl::Half::from_bits(static_cast<uint16_t>(b));
    const auto f = tl::BFloat16::from_bits(static_cast<uint16_t>(b));
    if (std::isnan(static_cast<float>(h)))
      CHECK(std::isnan(static_cast<float>(tl::Half(static_cast<float>(h)))));
    else
      CHECK(tl::Half(static_cast<float>(h)).bits == b);
    if (std::isnan(static_cast<float>(f)))
      CHECK(std::isnan(static_cast<float>(tl::BFloat16(static_cast<float>(f)))));
    else
      CHECK(tl::BFloat16(static_cast<float>(f)).bits == b);
  }
}

TEST_CASE("float32 to float16 and bfloat16 matches PyTorch: ties, subnormals, overflow, NaN") {
  check_conversion_fixture<tl::Half>();
  check_conversion_fixture<tl::BFloat16>();
}

TEST_CASE("pointwise ops on float16 and bfloat16 compute in float and round once, as PyTorch") {
  check_unary_ops<tl::Half>();
  check_unary_ops<tl::BFloat16>();
  check_binary_ops<tl::Half>();
  check_binary_ops<tl::BFloat16>();
}

TEST_CASE("float16 and bfloat16 chains, reductions, products and conversions match PyTorch") {
  check_chain_reductions_products<tl::Half>();
  check_chain_reductions_products<tl::BFloat16>();
}

TEST_CASE_TEMPLATE("float16 and bfloat16 scans keep a float running value, as PyTorch", T, tl::Half, tl::BFloat16) {
  // 8192 sums and 4096 products, bit for bit: a double running value gives
  // other bits for some outputs of lines this long (generate_half.py).
  const auto& file = fixtures::load("half.txt");
  for (const char* op : {"cumsum", "cumprod"}) {
    CAPTURE(op);
    const fixtures::Case& c = file[std::string("scan/") + op + "/" + dtype_name<T>()];
    const auto x = c.get<T>("x");
    check_bits(std::string(op) == "cumsum" ? tl::cumsum(x, 0) : tl::cumprod(x, 0), c.get<T>("out"),
               std::string(op) + " " + dtype_name<T>());
  }
}

TEST_CASE("float16 and bfloat16 promote like PyTorch") {
  static_assert(std::is_same_v<tl::promote_t<tl::Half, float>, float>);
  static_assert(std::is_same_v<tl::promote_t<tl::Half, tl::BFloat16>, float>);
  static_assert(std::is_same_v<tl::promote_t<tl::BFloat16, tl::Half>, float>);
  static_assert(std::is_same_v<tl::promote_t<tl::Half, int64_t>, tl::Half>);
  static_assert(std::is_same_v<tl::promote_t<bool, tl::BFloat16>, tl::BFloat16>);
  static_assert(std::is_same_v<tl::promote_t<double, tl::BFloat16>, double>);
  static_assert(std::is_same_v<tl::promote_scalar_t<tl::Half, double>, tl::Half>);
  static_assert(std::is_same_v<tl::floating_t<tl::BFloat16>, tl::BFloat16>);
  const auto& file = fixtures::load("half.txt");
  {
    const fixtures::Case& c = file["mixed/half_float"];
    const auto out = c.get<tl::Half>("a") + c.get<float>("b");
    static_assert(std::is_same_v<tl::value_type_t<decltype(out)>, float>);
    fixtures::check_close(tl::Tensor<float>(out), c.get<float>("out"), 0, 0, "half + float");
  }
  {
    const fixtures::Case& c = file["mixed/half_bfloat16"];
    const tl::Tensor<float> out = c.get<tl::Half>("a") * c.get<tl::BFloat16>("b");
    fixtures::check_close(out, c.get<float>("out"), 0, 0, "half * bfloat16");
  }
  {
    const fixtures::Case& c = file["mixed/half_int64"];
    const tl::Tensor<tl::Half> out = c.get<tl::Half>("a") - c.get<int64_t>("b");
    check_bits(out, c.get<tl::Half>("out"), "half - int64");
  }
  {
    const fixtures::Case& c = file["mixed/bfloat16_int64"];
    const tl::Tensor<tl::BFloat16> out = c.get<tl::BFloat16>("a") - c.get<int64_t>("b");
    check_bits(out, c.get<tl::BFloat16>("out"), "bfloat16 - int64");
  }
  {
    // A weak scalar keeps its float value, as in current PyTorch (1.13 rounded
    // it to float16 first: h * 1e-8 was 0; see generate_half.py).
    const fixtures::Case& c = file["mixed/half_scalar"];
    const tl::Tensor<tl::Half> out = c.get<tl::Half>("a") * 2.7;
    check_bits(out, c.get<tl::Half>("out"), "half * 2.7");
    const fixtures::Case& tiny = file["mixed/half_tiny_scalar"];
    const tl::Tensor<tl::Half> small = tiny.get<tl::Half>("a") * 1e-8;
    check_bits(small, tiny.get<tl::Half>("out"), "half * 1e-8");
    const fixtures::Case& big = file["mixed/half_div_big_scalar"];
    const tl::Tensor<tl::Half> quotient = big.get<tl::Half>("a") / 1e5;
    check_bits(quotient, big.get<tl::Half>("out"), "half / 1e5");
    const fixtures::Case& bf = file["mixed/bfloat16_scalar"];
    const tl::Tensor<tl::BFloat16> scaled = bf.get<tl::BFloat16>("a") * (1 + 0x1p-9);
    check_bits(scaled, bf.get<tl::BFloat16>("out"), "bfloat16 * (1 + 2^-9)");
    CHECK(tl::Tensor<bool>(big.get<tl::Half>("a") < 1e-9).to_vector() ==
          tl::Tensor<bool>(big.get<tl::Half>("a").to<float>() < 1e-9f).to_vector());
  }
  {
    const fixtures::Case& c = file["mixed/int64_truediv_half"];
    const tl::Tensor<tl::Half> out = c.get<int64_t>("a") / c.get<tl::Half>("b");
    check_bits(out, c.get<tl::Half>("out"), "int64 / half");
  }
}

TEST_CASE("float16 and bfloat16 tensors: factories, printing, type erasure") {
  const auto z = tl::zeros<tl::Half>({2, 2});
  CHECK(z.dtype() == tl::kFloat16);
  CHECK(z.element_size() == 2);
  const auto f = tl::full<tl::BFloat16>({3}, tl::BFloat16(0.1f));
  for (auto v : f.to_vector()) CHECK(v.bits == tl::BFloat16(0.1f).bits);
  const auto h = tl::tensor({1.5f, -2.0f, 0.1f}).to<tl::Half>();
  CHECK(tl::repr(h) == "tensor([ 1.5000, -2.0000,  0.1000], dtype=tl.float16)");
  tl::AnyTensor any = h;
  CHECK(any.dtype() == tl::kHalf);
  CHECK(any.visit([](const auto& t) { return t.element_size(); }) == 2);
  CHECK(any.to<double>().to_vector() == std::vector<double>{1.5, -2.0, static_cast<float>(tl::Half(0.1f))});
  CHECK(tl::Tensor<float>(h + tl::ones<tl::BFloat16>({3})).to_vector() ==
        std::vector<float>{2.5f, -1.0f, 1.0f + static_cast<float>(tl::Half(0.1f))});
}

TEST_CASE("autograd does not follow float16 and bfloat16 yet: a TypeError, never a silently missing gradient") {
  auto h = tl::zeros<tl::Half>({2});
  CHECK_THROWS_WITH_AS(h.requires_grad_(), doctest::Contains("autograd does not follow float16"), tl::TypeError);
  const auto w = tl::ones<float>({2}).requires_grad_();
  CHECK_THROWS_WITH_AS(w.to<tl::BFloat16>(), doctest::Contains("autograd does not follow bfloat16"), tl::TypeError);
  CHECK_THROWS_WITH_AS(h.copy_(w * 2), doctest::Contains("autograd does not follow float16"), tl::TypeError);
  {
    tl::NoGradGuard no_grad;
    CHECK(w.to<tl::BFloat16>().to_vector()[1].bits == tl::BFloat16(1.0f).bits);
    h.copy_(w * 2);
    CHECK(static_cast<float>(h.to_vector()[0]) == 2.0f);
  }
  CHECK(w.detach().to<tl::Half>().to_vector()[0].bits == tl::Half(1.0f).bits);
}

TEST_CASE("float16 and bfloat16 results computed from a graph are refused, not left without history") {
  const auto w = tl::ones<float>({3}).requires_grad_();
  CHECK_THROWS_WITH_AS(tl::Tensor<tl::Half>((w * 2).to<tl::Half>()),
                       doctest::Contains("autograd does not follow float16 results"), tl::TypeError);
  CHECK_THROWS_WITH_AS(tl::cast<tl::BFloat16>(w * 2).sum(), doctest::Contains("autograd does not follow bfloat16"),
                       tl::TypeError);
  tl::NoGradGuard no_grad;
  CHECK(static_cast<float>(tl::cast<tl::BFloat16>(w * 2).sum().item()) == 6.0f);
}

TEST_CASE("float16 orders NaN last, and trace keeps the 16-bit type") {
  const auto x = tl::tensor({NAN, 1.0f, -0.5f, 0.0f}).to<tl::Half>();
  const auto sorted = tl::sort(x).values.to<float>().to_vector();
  CHECK(sorted[0] == -0.5f);
  CHECK(sorted[2] == 1.0f);
  CHECK(std::isnan(sorted[3]));
  CHECK(std::isnan(static_cast<float>(tl::median(x).item())));
  const auto m = tl::tensor({1.5f, 0.0f, 0.0f, 2.5f}).reshape({2, 2}).to<tl::BFloat16>();
  const auto t = tl::trace(m);
  static_assert(std::is_same_v<decltype(t), const tl::Tensor<tl::BFloat16>>);
  CHECK(static_cast<float>(t.item()) == 4.0f);
}
