#pragma once
/// \file
/// Building `Map` nodes with the promotion rules of Note [type promotion]
/// (core/dtype.hpp):
/// `make_map` casts each operand to the type its functor computes in, turning
/// C++ scalars into `ScalarLeaf`s. Every free function and operator of the
/// catalogue goes through here, so the rules are applied in one place.

#include <limits>
#include <type_traits>
#include <utility>

#include "tensorlib/core/dtype.hpp"
#include "tensorlib/core/error.hpp"
#include "tensorlib/core/expression.hpp"
#include "tensorlib/core/pointwise_methods.hpp"
#include "tensorlib/core/scalar_cast.hpp"
#include "tensorlib/expr/functors/cast.hpp"
#include "tensorlib/expr/map.hpp"
#include "tensorlib/expr/promotion.hpp"

namespace tensorlib {

/// An operand as a `Map` child of element type T: the expression itself, a
/// cast of it, or a scalar leaf.
template <Element T, Operand A>
auto as_node(const A& a) {
  if constexpr (Scalar<A>) {
    return ScalarLeaf<T>{detail::checked_scalar_cast<T>(a)};
  } else if constexpr (std::is_same_v<value_type_t<A>, T>) {
    return a;
  } else {
    return Map<fn::CastTo<T>, A>(fn::CastTo<T>{}, a);
  }
}

/// Builds `f(args...)` with the functor's promotion policy. Operands are
/// expressions, C++ scalars or (for `promotion::None`) prepared scalar leaves.
template <Functor F, class... Args>
requires((Operand<Args> || Node<Args>)&&...) && (Expression<Args> || ...) auto make_map(F f, const Args&... args) {
  using Policy = typename F::promotion;
  if constexpr (std::is_same_v<Policy, promotion::None>) {
    return Map<F, Args...>(std::move(f), args...);
  } else {
    using Common = result_type_t<Args...>;
    using Target = std::conditional_t<std::is_same_v<Policy, promotion::CommonFloating>, floating_t<Common>, Common>;
    if constexpr (is_reduced_float<Target> && (Scalar<Args> || ...)) {
      // A weak scalar with a float16/bfloat16 tensor keeps its float value
      // (current PyTorch's opmath scalars: `h * 1e-8` is not h * 0): the op
      // runs on float nodes and its result is rounded once (Note [reduced floats]).
      Map<F, decltype(as_node<float>(args))...> wide(std::move(f), as_node<float>(args)...);
      if constexpr (std::is_same_v<value_type_t<decltype(wide)>, float>)
        return as_node<Target>(wide);
      else
        return wide;
    } else {
      return Map<F, decltype(as_node<Target>(args))...>(std::move(f), as_node<Target>(args)...);
    }
  }
}

/// A lazy elementwise conversion: `tl::cast<double>(a + b)`.
template <Element U, Expression E>
auto cast(const E& e) {
  return as_node<U>(e);
}

template <Functor F, Node... Cs>
template <Element U>
auto Map<F, Cs...>::to() const {
  return as_node<U>(*this);
}

}  // namespace tensorlib
