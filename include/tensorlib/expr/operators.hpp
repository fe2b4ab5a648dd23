#pragma once
/// \file
/// C++ operators on expressions, each the free function of the same meaning:
/// arithmetic, comparisons (giving bool expressions), `!` (logical_not),
/// `~`, `&`, `|`, `^` (bitwise; on bool tensors also logical). They apply when
/// at least one operand is an expression, so they never capture other types.

#include "tensorlib/core/expression.hpp"
#include "tensorlib/core/pointwise_methods.hpp"
#include "tensorlib/expr/functions.hpp"

namespace tensorlib {

template <Operand A, Operand B>
requires(Expression<A> || Expression<B>) auto operator+(const A& a, const B& b) { return add(a, b); }

template <Operand A, Operand B>
requires(Expression<A> || Expression<B>) auto operator-(const A& a, const B& b) { return sub(a, b); }

template <Operand A, Operand B>
requires(Expression<A> || Expression<B>) auto operator*(const A& a, const B& b) { return mul(a, b); }

template <Operand A, Operand B>
requires(Expression<A> || Expression<B>) auto operator/(const A& a, const B& b) { return div(a, b); }

template <Operand A, Operand B>
requires(Expression<A> || Expression<B>) auto operator==(const A& a, const B& b) { return eq(a, b); }

template <Operand A, Operand B>
requires(Expression<A> || Expression<B>) auto operator!=(const A& a, const B& b) { return ne(a, b); }

template <Operand A, Operand B>
requires(Expression<A> || Expression<B>) auto operator<(const A& a, const B& b) { return lt(a, b); }

template <Operand A, Operand B>
requires(Expression<A> || Expression<B>) auto operator<=(const A& a, const B& b) { return le(a, b); }

template <Operand A, Operand B>
requires(Expression<A> || Expression<B>) auto operator>(const A& a, const B& b) { return gt(a, b); }

template <Operand A, Operand B>
requires(Expression<A> || Expression<B>) auto operator>=(const A& a, const B& b) { return ge(a, b); }

template <Operand A, Operand B>
requires(Expression<A> || Expression<B>) auto operator&(const A& a, const B& b) { return bitwise_and(a, b); }

template <Operand A, Operand B>
requires(Expression<A> || Expression<B>) auto operator|(const A& a, const B& b) { return bitwise_or(a, b); }

template <Operand A, Operand B>
requires(Expression<A> || Expression<B>) auto operator^(const A& a, const B& b) { return bitwise_xor(a, b); }

template <Expression E>
auto operator-(const E& x) {
  return neg(x);
}
template <Expression E>
auto operator!(const E& x) {
  return logical_not(x);
}
template <Expression E>
auto operator~(const E& x) {
  return bitwise_not(x);
}

}  // namespace tensorlib
