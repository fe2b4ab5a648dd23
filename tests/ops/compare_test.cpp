// allclose, equal and isclose.

#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include <tensorlib/tensorlib.hpp>

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

TEST_CASE("isclose is elementwise and treats equal infinities as close") {
  const float inf = std::numeric_limits<float>::infinity();
  const auto a = tl::tensor({1.f, inf, -inf, 0.f});
  const auto b = tl::tensor({1.000001f, inf, inf, 1e-9f});
  const tl::Tensor<bool> c = tl::isclose(a, b);
  CHECK(c.to_vector() == std::vector<bool>{true, true, false, true});
}

TEST_CASE("isclose and allclose reject negative or NaN tolerances (PyTorch)") {
  const auto a = tl::tensor({1.f, 2.f});
  const auto b = tl::tensor({1.f, 2.000001f});
  CHECK_THROWS_WITH_AS((void)tl::allclose(a, b, -1.0),
                       "isclose: rtol must be greater than or equal to zero, but got -1", tl::ValueError);
  CHECK_THROWS_WITH_AS((void)tl::isclose(a, b, 1e-5, NAN),
                       "isclose: atol must be greater than or equal to zero, but got nan", tl::ValueError);
  CHECK(tl::allclose(a, b, 0.0, 1e-5));
}
