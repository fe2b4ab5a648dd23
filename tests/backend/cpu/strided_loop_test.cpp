// cpu::for_each_offsets: row-major visiting order and per-operand offsets,
// whatever the operands' strides (the order scatters rely on for "last write wins").

#include <doctest/doctest.h>

#include <array>
#include <cstdint>
#include <vector>

#include <tensorlib/tensorlib.hpp>

TEST_CASE("for_each_offsets visits row-major with each operand's own offsets") {
  const tl::Shape shape{2, 3, 4};
  // Operand 0: transposed layout (strides of a (4, 3, 2) buffer read backwards);
  // operand 1: broadcast along dim 1; operand 2: contiguous.
  const std::array<tl::Shape, 3> strides{tl::Shape{1, 2, 6}, tl::Shape{4, 0, 1}, tl::Shape{12, 4, 1}};
  std::vector<std::array<int64_t, 3>> seen;
  tl::cpu::for_each_offsets<3>(shape, strides, [&](const std::array<int64_t, 3>& o) { seen.push_back(o); });
  REQUIRE(seen.size() == 24);
  int64_t n = 0;
  for (int64_t i = 0; i < 2; ++i)
    for (int64_t j = 0; j < 3; ++j)
      for (int64_t k = 0; k < 4; ++k, ++n) {
        const auto& o = seen[static_cast<std::size_t>(n)];
        CHECK(o[0] == i * 1 + j * 2 + k * 6);
        CHECK(o[1] == i * 4 + k);
        CHECK(o[2] == n);  // row-major order
      }
}

TEST_CASE("for_each_offsets handles 0-d, empty and size-1 shapes") {
  int calls = 0;
  tl::cpu::for_each_offsets<1>(tl::Shape{}, {tl::Shape{}}, [&](const std::array<int64_t, 1>& o) {
    CHECK(o[0] == 0);
    ++calls;
  });
  CHECK(calls == 1);
  tl::cpu::for_each_offsets<1>(tl::Shape{3, 0, 2}, {tl::Shape{0, 2, 1}}, [&](const auto&) { ++calls; });
  CHECK(calls == 1);
  std::vector<int64_t> offs;
  tl::cpu::for_each_offsets<1>(tl::Shape{1, 3, 1}, {tl::Shape{100, 7, 50}},
                               [&](const std::array<int64_t, 1>& o) { offs.push_back(o[0]); });
  CHECK(offs == std::vector<int64_t>{0, 7, 14});
}
