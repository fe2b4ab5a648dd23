// contiguous, clone, copy_, to<U>, index_put_.

#include <doctest/doctest.h>

#include <vector>

#include "fixtures.hpp"

TEST_CASE("contiguous copies only when needed") {
  const auto x = tl::arange<float>(6).view({2, 3});
  CHECK(x.contiguous().is_same(x));
  const auto before = tl::stats::snapshot();
  const auto c = x.t().contiguous();
  CHECK((tl::stats::snapshot() - before).copies == 1);
  CHECK(c.is_contiguous());
  CHECK(c.to_vector() == std::vector<float>{0, 3, 1, 4, 2, 5});
}

TEST_CASE("clone owns new memory and keeps the layout of dense tensors") {
  const auto x = tl::arange<float>(6).view({2, 3});
  const auto t = x.t().clone();
  CHECK_FALSE(t.is_alias_of(x));
  CHECK(t.strides() == x.t().strides());
  CHECK(t.to_vector() == x.t().to_vector());
  const auto s = x.slice(1, 0, tl::None, 2).clone();  // not dense: becomes contiguous
  CHECK(s.is_contiguous());
  CHECK(s.to_vector() == std::vector<float>{0, 2, 3, 5});
}

TEST_CASE("copy_ broadcasts and converts element types") {
  auto x = tl::zeros<double>({2, 3});
  x.copy_(tl::tensor({1, 2, 3}));
  CHECK(x.to_vector() == std::vector<double>{1, 2, 3, 1, 2, 3});
  x.copy_(tl::tensor({{true}, {false}}));
  CHECK(x.to_vector() == std::vector<double>{1, 1, 1, 0, 0, 0});
  CHECK_THROWS_WITH_AS(x.copy_(tl::zeros<float>({3, 3})), "copy_: shapes [2, 3] and [3, 3] cannot broadcast",
                       tl::ShapeError);
  CHECK_THROWS_WITH_AS(x.copy_(tl::zeros<float>({2, 2, 3})),
                       "copy_: output with shape [2, 3] doesn't match the broadcast shape [2, 2, 3]", tl::ShapeError);
}

TEST_CASE("to<U> converts like PyTorch and is a no-op for the same type") {
  const auto f = tl::tensor({-1.5f, 0.f, 2.7f, 300.f});
  CHECK(f.to<int32_t>().to_vector() == std::vector<int32_t>{-1, 0, 2, 300});
  CHECK(f.to<uint8_t>().to_vector() == std::vector<uint8_t>{255, 0, 2, 44});  // wraps via int64, as on x86
  CHECK(f.to<bool>().to_vector() == std::vector<bool>{true, false, true, true});
  CHECK(f.to<float>().is_same(f));
  CHECK(tl::tensor({true, false}).to<float>().to_vector() == std::vector<float>{1, 0});
}

TEST_CASE("index_put_ writes values or expressions into an indexed view") {
  auto x = tl::zeros<int64_t>({3, 3});
  x.index_put_({1}, 5);
  x.index_put_({tl::Slice(), 2}, tl::tensor({7, 8, 9}));
  CHECK(x.to_vector() == std::vector<int64_t>{0, 0, 7, 5, 5, 8, 0, 0, 9});
}
