#pragma once
/// \file
/// PyTorch's other names for the catalogue (`torch.arccos`, `torch.multiply`,
/// `torch.greater_equal`, ...), mostly NumPy's, with `rsub` (sub with its
/// operands reversed) and `positive` (the operand itself). Each alias
/// returns exactly the expression of the function it names, so it costs no
/// extra instantiation and differentiates the same way. The method forms are
/// in core/pointwise_methods.hpp, the in-place ones in
/// core/inplace_methods.hpp.

#include <string_view>
#include <type_traits>

#include "tensorlib/core/dtype.hpp"
#include "tensorlib/core/expression.hpp"
#include "tensorlib/core/pointwise_methods.hpp"
#include "tensorlib/expr/comparison_functions.hpp"
#include "tensorlib/expr/functions.hpp"

namespace tensorlib {

/// `abs`.
template <Expression E>
auto absolute(const E& x) {
  return abs(x);
}
/// `acos`.
template <Expression E>
auto arccos(const E& x) {
  return acos(x);
}
/// `acosh`.
template <Expression E>
auto arccosh(const E& x) {
  return acosh(x);
}
/// `asin`.
template <Expression E>
auto arcsin(const E& x) {
  return asin(x);
}
/// `asinh`.
template <Expression E>
auto arcsinh(const E& x) {
  return asinh(x);
}
/// `atan`.
template <Expression E>
auto arctan(const E& x) {
  return atan(x);
}
/// `atanh`.
template <Expression E>
auto arctanh(const E& x) {
  return atanh(x);
}
/// `neg`.
template <Expression E>
auto negative(const E& x) {
  return neg(x);
}
/// `trunc`: rounds toward zero.
template <Expression E>
auto fix(const E& x) {
  return trunc(x);
}
/// `sign` (the complex sign x / |x| of `torch.sgn` is `sign` on real tensors).
template <Expression E>
auto sgn(const E& x) {
  return sign(x);
}

/// x itself, unchanged (`torch.positive`); like PyTorch's, not defined for bool.
template <Expression E>
E positive(const E& x) {
  static_assert(!std::is_same_v<value_type_t<E>, bool>,
                "tl::positive: the unary + is not supported for bool tensors; use the tensor itself");
  return x;
}

/// `atan2`.
template <Operand A, Operand B>
requires(Expression<A> || Expression<B>) auto arctan2(const A& a, const B& b) { return atan2(a, b); }
/// `sub`.
template <Operand A, Operand B>
requires(Expression<A> || Expression<B>) auto subtract(const A& a, const B& b) { return sub(a, b); }
/// `sub(a, b, alpha)`: a - alpha * b.
template <Operand A, Operand B, Scalar S>
requires(Expression<A> || Expression<B>) auto subtract(const A& a, const B& b, S alpha) { return sub(a, b, alpha); }
/// `mul`.
template <Operand A, Operand B>
requires(Expression<A> || Expression<B>) auto multiply(const A& a, const B& b) { return mul(a, b); }
/// `div`: true division.
template <Operand A, Operand B>
requires(Expression<A> || Expression<B>) auto divide(const A& a, const B& b) { return div(a, b); }
/// `div(a, b, rounding_mode)`: "trunc" or "floor".
template <Operand A, Operand B>
requires(Expression<A> || Expression<B>) auto divide(const A& a, const B& b, std::string_view rounding_mode) {
  return div(a, b, rounding_mode);
}
/// `div`: true division (NumPy's name).
template <Operand A, Operand B>
requires(Expression<A> || Expression<B>) auto true_divide(const A& a, const B& b) { return div(a, b); }

/// `gt`.
template <Operand A, Operand B>
requires(Expression<A> || Expression<B>) auto greater(const A& a, const B& b) { return gt(a, b); }
/// `ge`.
template <Operand A, Operand B>
requires(Expression<A> || Expression<B>) auto greater_equal(const A& a, const B& b) { return ge(a, b); }
/// `lt`.
template <Operand A, Operand B>
requires(Expression<A> || Expression<B>) auto less(const A& a, const B& b) { return lt(a, b); }
/// `le`.
template <Operand A, Operand B>
requires(Expression<A> || Expression<B>) auto less_equal(const A& a, const B& b) { return le(a, b); }
/// `ne`.
template <Operand A, Operand B>
requires(Expression<A> || Expression<B>) auto not_equal(const A& a, const B& b) { return ne(a, b); }

/// other - input (`torch.rsub`: subtraction with the operands reversed);
/// `other` may be a scalar.
template <Expression A, Operand B>
auto rsub(const A& input, const B& other) {
  return sub(other, input);
}
/// other - alpha * input.
template <Expression A, Operand B, Scalar S>
auto rsub(const A& input, const B& other, S alpha) {
  return sub(other, input, alpha);
}

}  // namespace tensorlib
