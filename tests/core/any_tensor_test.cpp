// AnyTensor: type erasure without copies, checked recovery, visiting.

#include <doctest/doctest.h>

#include <map>
#include <string>

#include <tensorlib/tensorlib.hpp>

TEST_CASE("AnyTensor shares the typed tensor and recovers it with a checked cast") {
  auto w = tl::ones<float>({2, 3});
  tl::AnyTensor a = w;
  CHECK(a.dtype() == tl::kFloat32);
  CHECK(a.sizes() == tl::Shape{2, 3});
  CHECK(a.is<float>());
  CHECK_FALSE(a.is<double>());
  auto back = a.as<float>();
  CHECK(back.is_same(w));
  CHECK_THROWS_WITH_AS(a.as<int64_t>(), "AnyTensor::as: the tensor has dtype float32, requested int64", tl::TypeError);
  CHECK(a.to<double>().to_vector() == std::vector<double>(6, 1.0));
  CHECK_FALSE(tl::AnyTensor().defined());
  CHECK_THROWS_AS(tl::AnyTensor().dtype(), tl::ValueError);
}

TEST_CASE("heterogeneous tensors travel together and are visited by type") {
  std::map<std::string, tl::AnyTensor> state{
      {"weight", tl::zeros<float>({2})}, {"steps", tl::tensor({7})}, {"mask", tl::tensor({true, false})}};
  int64_t total = 0;
  for (const auto& [name, t] : state) total += t.visit([](const auto& typed) { return typed.numel(); });
  CHECK(total == 5);
  CHECK(state.at("steps").as<int64_t>().item() == 7);
}
