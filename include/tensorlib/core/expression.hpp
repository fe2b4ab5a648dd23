#pragma once
/// \file
/// The `Expression` concept: what every tensor-like value provides. A
/// materialized `Tensor<T>` is an expression leaf; lazy pointwise nodes
/// (expr/map.hpp) are expressions that evaluate when consumed (DESIGN 3.2).

#include <concepts>
#include <type_traits>

#include "tensorlib/core/device.hpp"
#include "tensorlib/core/dtype.hpp"
#include "tensorlib/core/shape.hpp"

namespace tensorlib {

/// A value with an element type, a shape and a device that can be evaluated
/// into a tensor. Types opt in with a nested `expression_tag`, so that
/// unrelated types with a `shape()` member never match the operators.
template <class E>
concept Expression = requires(const std::remove_cvref_t<E>& e) {
  typename std::remove_cvref_t<E>::expression_tag;
  typename std::remove_cvref_t<E>::value_type;
  { e.shape() } -> std::convertible_to<const Shape&>;
  { e.device() } -> std::convertible_to<Device>;
};

/// Element type of an expression.
template <Expression E>
using value_type_t = typename std::remove_cvref_t<E>::value_type;

/// An expression of a given element type.
template <class E, class T>
concept ExpressionOf = Expression<E> && std::same_as<value_type_t<E>, T>;

}  // namespace tensorlib
