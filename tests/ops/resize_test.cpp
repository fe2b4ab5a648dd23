// Tensor::resize_ and resize_as_ (ops/resize.hpp), by PyTorch's rules:
// contiguous strides from the offset, old elements kept in storage order, a
// storage too small grown for every tensor sharing it, refusals.

#include <doctest/doctest.h>

#include <cstdint>
#include <vector>

#include "fixtures.hpp"

TEST_CASE("resize_ keeps the storage's elements, grows it for every sharer, and sets contiguous strides") {
  auto x = tl::arange<float>(0, 6);
  const auto v = x.view({2, 3});
  x.resize_({2, 2});  // shrinking keeps the storage
  CHECK(x.sizes() == tl::Shape{2, 2});
  CHECK(x.strides() == tl::Shape{2, 1});
  CHECK(x.to_vector() == std::vector<float>{0, 1, 2, 3});
  CHECK(x.storage().nbytes() == 6 * 4);
  x.resize_({3, 4});  // growing: the old bytes come along, and the view reads the new buffer
  CHECK(x.storage().nbytes() == 12 * 4);
  CHECK(x.narrow(0, 0, 1).to_vector() == std::vector<float>{0, 1, 2, 3});
  CHECK(x.storage().is_alias_of(v.storage()));
  x.fill_(7.f);
  CHECK(v.to_vector() == std::vector<float>(6, 7.f));
  // A view keeps its offset: its new elements follow it in storage order.
  auto base = tl::arange<float>(0, 12).reshape({3, 4});
  auto s = base.narrow(1, 1, 2);
  s.resize_({5});
  CHECK(s.storage_offset() == 1);
  CHECK(s.to_vector() == std::vector<float>{1, 2, 3, 4, 5});
  // An empty tensor gets a storage; resize_as_ takes another tensor's sizes.
  auto e = tl::empty<double>({0});
  e.resize_({3}).fill_(2.0);
  CHECK(e.to_vector() == std::vector<double>{2, 2, 2});
  e.resize_as_(tl::ones<int32_t>({1, 2}));
  CHECK(e.sizes() == tl::Shape{1, 2});
  CHECK(e.resize_({0, 4}).numel() == 0);
  // Refusals: negative sizes; a tensor that requires grad, under NoGradGuard too (as PyTorch).
  CHECK_THROWS_WITH_AS(e.resize_({-1}), "resize_: Trying to create tensor with negative dimension -1: [-1]",
                       tl::ValueError);
  auto g = tl::ones<double>({2}).requires_grad_();
  CHECK_THROWS_WITH_AS(g.resize_({3}), "resize_: cannot resize variables that require grad", tl::AutogradError);
  {
    tl::NoGradGuard no_grad;
    CHECK_THROWS_WITH_AS(g.resize_({1}), "resize_: cannot resize variables that require grad", tl::AutogradError);
  }
  CHECK(g.sizes() == tl::Shape{2});
}
