// Unary functors against PyTorch 1.13 (tests/fixtures/functors.txt). Loading
// the expected tensor also checks that our result element type is PyTorch's.

#include "functor_fixtures.hpp"

using namespace functor_fixtures;

TEST_CASE("unary float functors match PyTorch") { check_float_unary<float>(); }
TEST_CASE("unary double functors match PyTorch") { check_float_unary<double>(); }

TEST_CASE("unary integer and bool functors match PyTorch") {
  check_integer_unary<int64_t>();
  check_integer_unary<int32_t>();
  check_integer_unary<uint8_t>();
  check_integer_unary<bool>();
}
