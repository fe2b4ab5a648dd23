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

TEST_CASE("allclose and equal") {
  const auto a = tl::tensor({1.f, 2.f, 3.f});
  CHECK(tl::allclose(a, a + 1e-7f));
  CHECK_FALSE(tl::allclose(a, a + 1e-3f));
  CHECK(tl::allclose(a, a + 1e-3f, 0, 1e-2));
  const auto n = tl::tensor({std::nanf(""), 1.f});
  CHECK_FALSE(tl::allclose(n, n));
  CHECK(tl::allclose(n, n, 1e-5, 1e-8, true));
  CHECK(tl::equal(a, a.clone()));
  CHECK_FALSE(tl::equal(a, a.view({3, 1})));
  CHECK_FALSE(tl::equal(n, n));
  CHECK(tl::allclose(tl::ones<float>({2, 3}), tl::ones<float>({3})));  // broadcasts, like PyTorch
}
