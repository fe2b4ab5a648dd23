// Type promotion (Note [type promotion]) against torch.result_type.

#include <doctest/doctest.h>

#include <map>
#include <sstream>
#include <string>

#include "fixtures.hpp"

namespace {

using Types = std::tuple<bool, uint8_t, int32_t, int64_t, float, double, tl::Half, tl::BFloat16>;

template <class A, class B>
std::string tensor_tensor() {
  return std::string(tl::DTypeTraits<tl::result_type_t<tl::Tensor<A>, tl::Tensor<B>>>::name);
}
template <class A, class S>
std::string tensor_scalar() {
  return std::string(tl::DTypeTraits<tl::result_type_t<tl::Tensor<A>, S>>::name);
}
template <class A>
std::map<std::string, std::string> rows_for() {
  std::map<std::string, std::string> out;
  const std::string a(tl::DTypeTraits<A>::name);
  std::apply(
      [&](auto... b) {
        ((out[a + " " + std::string(tl::DTypeTraits<decltype(b)>::name)] = tensor_tensor<A, decltype(b)>()), ...);
      },
      Types{});
  out[a + " scalar_bool"] = tensor_scalar<A, bool>();
  out[a + " scalar_int"] = tensor_scalar<A, int>();
  out[a + " scalar_double"] = tensor_scalar<A, double>();
  const auto x = tl::ones<A>({2});
  out[a + " op_div"] = std::string(tl::DTypeTraits<tl::value_type_t<decltype(x / x)>>::name);
  out[a + " op_exp"] = std::string(tl::DTypeTraits<tl::value_type_t<decltype(tl::exp(x))>>::name);
  out[a + " op_sqrt"] = std::string(tl::DTypeTraits<tl::value_type_t<decltype(x.sqrt())>>::name);
  return out;
}

}  // namespace

TEST_CASE("result types match torch.result_type for every pair and scalar kind") {
  std::map<std::string, std::string> ours;
  std::apply([&](auto... a) { (ours.merge(rows_for<decltype(a)>()), ...); }, Types{});
  std::istringstream table(fixtures::load("promotion.txt")["result_type"].text("table"));
  int rows = 0;
  for (std::string a, b, r; table >> a >> b >> r; ++rows) {
    INFO(a << " with " << b);
    REQUIRE(ours.count(a + " " + b) == 1);
    CHECK(ours[a + " " + b] == r);
  }
  CHECK(rows == 8 * (8 + 3 + 3));
}

TEST_CASE("scalar operands are weak: they never widen within a category") {
  static_assert(std::is_same_v<tl::result_type_t<tl::Tensor<float>, double>, float>);
  static_assert(std::is_same_v<tl::result_type_t<tl::Tensor<uint8_t>, int64_t>, uint8_t>);
  static_assert(std::is_same_v<tl::result_type_t<tl::Tensor<int32_t>, float>, float>);
  static_assert(std::is_same_v<tl::result_type_t<tl::Tensor<bool>, int>, int64_t>);
  static_assert(std::is_same_v<tl::result_type_t<tl::Tensor<int32_t>, tl::Tensor<double>, float>, double>);
  const auto x = tl::tensor<uint8_t>({200, 100});
  const tl::Tensor<uint8_t> y = x + 100;  // wraps like PyTorch's uint8
  CHECK(y.to_vector() == std::vector<uint8_t>{44, 200});
}

TEST_CASE("mixed element types compute in the promoted type") {
  const auto i = tl::tensor({1, 2, 3});            // int64
  const auto f = tl::tensor({0.5f, 0.25f, 2.0f});  // float
  const tl::Tensor<float> s = i + f;
  CHECK(s.to_vector() == std::vector<float>{1.5f, 2.25f, 5.0f});
  const tl::Tensor<float> d = i / 2;  // true division
  CHECK(d.to_vector() == std::vector<float>{0.5f, 1.0f, 1.5f});
  const tl::Tensor<bool> c = i > f;
  CHECK(c.to_vector() == std::vector<bool>{true, true, true});
  const tl::Tensor<double> m = tl::cast<double>(i) * 0.1;
  CHECK(m.to_vector()[2] == doctest::Approx(0.3));
}
