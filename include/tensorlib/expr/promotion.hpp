#pragma once
/// \file
/// Promotion policies of the functors and `result_type_t`, PyTorch's
/// result_type over a list of operands (Note [type promotion] in core/dtype.hpp).

#include <type_traits>

#include "tensorlib/core/dtype.hpp"
#include "tensorlib/core/expression.hpp"

namespace tensorlib {

/// How a functor's operands are converted before it is applied. Each functor
/// names one as `using promotion = promotion::...;`.
namespace promotion {
/// All operands to their common type (add, maximum, comparisons...).
struct Common {};
/// The common type, then float if it is integral or bool (true division,
/// exp, sin, sigmoid...: PyTorch computes these in the default float type).
struct CommonFloating {};
/// Operands unchanged; the functor accepts any element type (isnan, casts).
struct None {};
}  // namespace promotion

namespace detail {

// Tensors first: the highest-ranked element type among the expressions.
template <class Acc, class A>
constexpr auto tensor_step() {
  if constexpr (!Expression<A>)
    return std::type_identity<Acc>{};
  else if constexpr (std::is_void_v<Acc>)
    return std::type_identity<value_type_t<A>>{};
  else
    return std::type_identity<promote_t<Acc, value_type_t<A>>>{};
}
// Then the weak scalars, which can only raise the category.
template <class Acc, class A>
constexpr auto scalar_step() {
  if constexpr (Scalar<A>)
    return std::type_identity<promote_scalar_t<Acc, A>>{};
  else
    return std::type_identity<Acc>{};
}

template <class Acc>
constexpr auto tensor_fold() {
  return std::type_identity<Acc>{};
}
template <class Acc, class A, class... Rest>
constexpr auto tensor_fold() {
  return tensor_fold<typename decltype(tensor_step<Acc, A>())::type, Rest...>();
}
template <class Acc>
constexpr auto scalar_fold() {
  return std::type_identity<Acc>{};
}
template <class Acc, class A, class... Rest>
constexpr auto scalar_fold() {
  return scalar_fold<typename decltype(scalar_step<Acc, A>())::type, Rest...>();
}

template <class... Args>
using tensor_result_t = typename decltype(tensor_fold<void, Args...>())::type;

}  // namespace detail

/// The element type an op computes in for these operands (at least one an
/// expression): the tensors' promoted type, raised by weak scalars.
template <class... Args>
using result_type_t = typename decltype(detail::scalar_fold<detail::tensor_result_t<std::remove_cvref_t<Args>...>,
                                                            std::remove_cvref_t<Args>...>())::type;

}  // namespace tensorlib
