#pragma once
/// \file
/// The functions of expr/functors/ieee.hpp, on the IEEE-754 representation:
/// `tl::copysign`, `tl::nextafter`, `tl::signbit`. Unevaluated `Map`s, as
/// the rest of the catalogue; expr/functions.hpp includes this.

#include "tensorlib/core/dtype.hpp"
#include "tensorlib/core/expression.hpp"
#include "tensorlib/expr/build.hpp"
#include "tensorlib/expr/functors/ieee.hpp"
#include "tensorlib/expr/promotion.hpp"

namespace tensorlib {

/// True where x's sign bit is set: -0 and negative NaNs included; x < 0 for
/// integers, false for bool.
template <Expression E>
auto signbit(const E& x) {
  return make_map(fn::Signbit{}, x);
}

/// |a| with the sign of b (fn::Copysign); integers compute in float. Its
/// gradient is PyTorch's: result / a in a (0 where a is 0, NaN where a is
/// infinite or NaN), 0 in b.
template <Operand A, Operand B>
requires(Expression<A> || Expression<B>) auto copysign(const A& a, const B& b) {
  return make_map(fn::Copysign{}, a, b);
}

/// The next representable value after a towards b (fn::Nextafter); float
/// and double operands only (PyTorch 1.13 has no float16 nextafter; its
/// bfloat16 one is not here), and no derivative, as in PyTorch: a backward
/// that needs one throws.
template <Operand A, Operand B>
requires(Expression<A> || Expression<B>) auto nextafter(const A& a, const B& b) {
  static_assert(is_floating<result_type_t<A, B>> && !is_reduced_float<result_type_t<A, B>>,
                "tl::nextafter: float or double operands only (integral, bool, float16 and bfloat16 are not "
                "implemented: their steps would round away in the float the functors compute 16-bit floats in)");
  return make_map(fn::Nextafter{}, a, b);
}

}  // namespace tensorlib
