// Loop plans: dropping size-1 dims, ordering by the output, coalescing.

#include <doctest/doctest.h>

#include <tensorlib/tensorlib.hpp>

TEST_CASE("a same-shape contiguous nest coalesces into one row") {
  const auto plan = tl::cpu::make_loop_plan({2, 3, 4}, {tl::Shape{12, 4, 1}, tl::Shape{12, 4, 1}});
  CHECK(plan.sizes == tl::Shape{24});
  CHECK(plan.rows() == 1);
  CHECK(plan.strides[1] == tl::Shape{1});
}

TEST_CASE("a broadcast row keeps two dimensions, size-1 dims are dropped") {
  const auto plan = tl::cpu::make_loop_plan({4, 1, 8}, {tl::Shape{8, 8, 1}, tl::Shape{0, 0, 1}});
  CHECK(plan.sizes == tl::Shape{4, 8});
  CHECK(plan.strides[1] == tl::Shape{0, 1});
  CHECK(plan.moves(1) == 2u);  // moves along the inner dimension only
  CHECK(plan.moves(0) == 3u);
}

TEST_CASE("dims are ordered by the output's strides, so a transposed output is written contiguously") {
  // Output of shape [3, 5] stored column-major (strides 1, 3); input row-major.
  const auto plan = tl::cpu::make_loop_plan({3, 5}, {tl::Shape{1, 3}, tl::Shape{5, 1}});
  CHECK(plan.sizes == tl::Shape{5, 3});
  CHECK(plan.strides[0] == tl::Shape{3, 1});
  CHECK(plan.strides[1] == tl::Shape{1, 5});
}

TEST_CASE("a single element plans as one row of one") {
  const auto plan = tl::cpu::make_loop_plan({1, 1}, {tl::Shape{1, 1}});
  CHECK(plan.sizes == tl::Shape{1});
  CHECK(plan.inner() == 1);
}

TEST_CASE("odometer stepping and carry deltas agree with direct offsets") {
  const auto plan = tl::cpu::make_loop_plan({3, 4, 5}, {tl::Shape{20, 5, 1}, tl::Shape{0, 7, 2}});
  REQUIRE(plan.ndim() == 3);
  int64_t index[tl::Shape::kMaxDims] = {};
  int64_t deltas[tl::Shape::kMaxDims] = {};
  tl::cpu::carry_deltas(plan, plan.strides[1], deltas);
  int64_t offset = 0;
  for (int64_t row = 0; row + 1 < plan.rows(); ++row) {
    const int64_t k = tl::cpu::advance_index(index, plan);
    offset += deltas[k];
    CHECK(offset == tl::cpu::row_offset(index, plan, plan.strides[1]));
    int64_t expect[tl::Shape::kMaxDims] = {};
    tl::cpu::unravel_row(row + 1, plan, expect);
    CHECK(index[0] == expect[0]);
    CHECK(index[1] == expect[1]);
  }
}
