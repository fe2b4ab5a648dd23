// Shape arithmetic: construction, numel, strides, dim wrapping, limits.

#include <doctest/doctest.h>

#include <sstream>

#include <tensorlib/tensorlib.hpp>

TEST_CASE("Shape stores sizes inline and prints like PyTorch") {
  tl::Shape s{2, 3, 4};
  CHECK(s.size() == 3);
  CHECK(s.numel() == 24);
  CHECK(tl::Shape{}.numel() == 1);
  CHECK(tl::Shape{3, 0}.numel() == 0);
  std::ostringstream os;
  os << s << tl::Shape{};
  CHECK(os.str() == "[2, 3, 4][]");
  s.insert(1, 7);
  CHECK(s == tl::Shape{2, 7, 3, 4});
  s.erase(0);
  CHECK(s == tl::Shape{7, 3, 4});
  CHECK(s.vec() == std::vector<int64_t>{7, 3, 4});
}

TEST_CASE("contiguous strides are row-major and treat size-0 dims as size 1") {
  CHECK(tl::contiguous_strides({2, 3, 4}) == tl::Shape{12, 4, 1});
  CHECK(tl::contiguous_strides({2, 0, 4}) == tl::Shape{4, 4, 1});
  CHECK(tl::contiguous_strides({}) == tl::Shape{});
}

TEST_CASE("dimension wrapping accepts negative dims and names the op when out of range") {
  CHECK(tl::wrap_dim(-1, 3, "sum") == 2);
  CHECK(tl::wrap_dim(0, 0, "sum") == 0);
  CHECK_THROWS_WITH_AS(tl::wrap_dim(3, 3, "sum"),
                       "sum: dimension out of range (expected to be in range of [-3, 2], but got 3)", tl::IndexError);
}

TEST_CASE("too many dimensions is a clear error") {
  tl::Shape s = tl::Shape::filled(tl::Shape::kMaxDims, 1);
  CHECK_THROWS_WITH_AS(s.push_back(1), "tensor: at most 16 dimensions are supported, got 17", tl::ShapeError);
}

TEST_CASE("broadcast_shapes") {
  CHECK(tl::broadcast_shapes({2, 1, 3}, {4, 1}) == tl::Shape{2, 4, 3});
  CHECK(tl::broadcast_shapes({}, {5}) == tl::Shape{5});
  CHECK(tl::broadcast_shapes({0, 1}, {1, 3}) == tl::Shape{0, 3});
  CHECK_THROWS_WITH_AS(tl::broadcast_shapes({2, 3}, {4}, "add"), "add: shapes [2, 3] and [4] cannot broadcast",
                       tl::ShapeError);
}
