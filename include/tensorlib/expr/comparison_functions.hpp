#pragma once
/// \file
/// The comparison, logical and bitwise part of the pointwise catalogue as free
/// functions (`tl::eq`, `tl::logical_and`, `tl::bitwise_xor`, `tl::isclose`,
/// ...): unevaluated `Map`s of bool (comparisons, logical, isclose) or of the
/// promoted integral type (bitwise). Bitwise ops on floating operands are a
/// compile error, as PyTorch's run-time one. expr/functions.hpp includes this.

#include "tensorlib/core/dtype.hpp"
#include "tensorlib/core/error.hpp"
#include "tensorlib/core/expression.hpp"
#include "tensorlib/expr/build.hpp"
#include "tensorlib/expr/functors/comparison.hpp"
#include "tensorlib/expr/functors/integer.hpp"
#include "tensorlib/expr/functors/logical.hpp"
#include "tensorlib/expr/promotion.hpp"

namespace tensorlib {

/// a == b.
template <Operand A, Operand B>
requires(Expression<A> || Expression<B>) auto eq(const A& a, const B& b) { return make_map(fn::Eq{}, a, b); }

/// a != b.
template <Operand A, Operand B>
requires(Expression<A> || Expression<B>) auto ne(const A& a, const B& b) { return make_map(fn::Ne{}, a, b); }

/// a < b.
template <Operand A, Operand B>
requires(Expression<A> || Expression<B>) auto lt(const A& a, const B& b) { return make_map(fn::Lt{}, a, b); }

/// a <= b.
template <Operand A, Operand B>
requires(Expression<A> || Expression<B>) auto le(const A& a, const B& b) { return make_map(fn::Le{}, a, b); }

/// a > b.
template <Operand A, Operand B>
requires(Expression<A> || Expression<B>) auto gt(const A& a, const B& b) { return make_map(fn::Gt{}, a, b); }

/// a >= b.
template <Operand A, Operand B>
requires(Expression<A> || Expression<B>) auto ge(const A& a, const B& b) { return make_map(fn::Ge{}, a, b); }

/// a && b.
template <Operand A, Operand B>
requires(Expression<A> || Expression<B>) auto logical_and(const A& a, const B& b) {
  return make_map(fn::LogicalAnd{}, a, b);
}

/// a || b.
template <Operand A, Operand B>
requires(Expression<A> || Expression<B>) auto logical_or(const A& a, const B& b) {
  return make_map(fn::LogicalOr{}, a, b);
}

/// a xor b as truth values.
template <Operand A, Operand B>
requires(Expression<A> || Expression<B>) auto logical_xor(const A& a, const B& b) {
  return make_map(fn::LogicalXor{}, a, b);
}

/// a & b (integral and bool only).
template <Operand A, Operand B>
requires(Expression<A> || Expression<B>) auto bitwise_and(const A& a, const B& b) {
  static_assert(is_integral_or_bool<result_type_t<A, B>>,
                "tl::bitwise_and: requires integral or bool operands (got a floating-point operand); use logical_and "
                "for truthiness");
  return make_map(fn::BitwiseAnd{}, a, b);
}

/// a | b (integral and bool only).
template <Operand A, Operand B>
requires(Expression<A> || Expression<B>) auto bitwise_or(const A& a, const B& b) {
  static_assert(is_integral_or_bool<result_type_t<A, B>>,
                "tl::bitwise_or: requires integral or bool operands (got a floating-point operand); use logical_or for "
                "truthiness");
  return make_map(fn::BitwiseOr{}, a, b);
}

/// a ^ b (integral and bool only).
template <Operand A, Operand B>
requires(Expression<A> || Expression<B>) auto bitwise_xor(const A& a, const B& b) {
  static_assert(is_integral_or_bool<result_type_t<A, B>>,
                "tl::bitwise_xor: requires integral or bool operands (got a floating-point operand); use logical_xor "
                "for truthiness");
  return make_map(fn::BitwiseXor{}, a, b);
}

/// gcd(|a|, |b|), 0 for two zeros (integral operands only).
template <Operand A, Operand B>
requires(Expression<A> || Expression<B>) auto gcd(const A& a, const B& b) {
  static_assert(is_integral_element<result_type_t<A, B>>,
                "tl::gcd: not implemented for floating-point or bool operands (integral only, as in PyTorch)");
  return make_map(fn::Gcd{}, a, b);
}

/// |a / gcd(a, b) * b|, 0 where the gcd is 0 (integral operands only; wraps
/// on overflow, as PyTorch's).
template <Operand A, Operand B>
requires(Expression<A> || Expression<B>) auto lcm(const A& a, const B& b) {
  static_assert(is_integral_element<result_type_t<A, B>>,
                "tl::lcm: not implemented for floating-point or bool operands (integral only, as in PyTorch)");
  return make_map(fn::Lcm{}, a, b);
}

/// a << b (integral operands only); 0 where b is negative or at least the
/// width of the type, as in current PyTorch.
template <Operand A, Operand B>
requires(Expression<A> || Expression<B>) auto bitwise_left_shift(const A& a, const B& b) {
  static_assert(is_integral_element<result_type_t<A, B>>,
                "tl::bitwise_left_shift: not implemented for floating-point or bool operands (integral only, as in "
                "PyTorch)");
  return make_map(fn::BitwiseLeftShift{}, a, b);
}

/// a >> b (integral operands only; arithmetic for signed types); the sign
/// fill (-1 or 0) where b is negative or at least the width of the type.
template <Operand A, Operand B>
requires(Expression<A> || Expression<B>) auto bitwise_right_shift(const A& a, const B& b) {
  static_assert(is_integral_element<result_type_t<A, B>>,
                "tl::bitwise_right_shift: not implemented for floating-point or bool operands (integral only, as in "
                "PyTorch)");
  return make_map(fn::BitwiseRightShift{}, a, b);
}

/// |a - b| <= atol + rtol * |b| elementwise (PyTorch's isclose).
template <Operand A, Operand B>
requires(Expression<A> || Expression<B>) auto isclose(const A& a, const B& b, double rtol = 1e-5, double atol = 1e-8,
                                                      bool equal_nan = false) {
  // NaN fails these too, as in PyTorch.
  detail::check<ValueError>(rtol >= 0, "isclose: rtol must be greater than or equal to zero, but got ", rtol);
  detail::check<ValueError>(atol >= 0, "isclose: atol must be greater than or equal to zero, but got ", atol);
  return make_map(fn::IsClose{rtol, atol, equal_nan}, a, b);
}

}  // namespace tensorlib
