#pragma once
/// \file
/// Promotion policies of the functors and `result_type_t`, PyTorch's
/// result_type over a list of operands (Note [type promotion] in core/dtype.hpp);
/// and the same rules on run-time tags: `promote_types`, `can_cast`,
/// `result_type`, as type-erased code (AnyTensor, files) needs them.

#include <string>
#include <type_traits>

#include "tensorlib/core/dtype.hpp"
#include "tensorlib/core/error.hpp"
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

/// The type an op on these operands computes in, as a run-time tag
/// (`torch.result_type`); at least one operand must be an expression. A 0-d
/// tensor counts as a tensor here, not as a weak scalar (Note [type promotion]).
template <class... Args>
requires(Expression<std::remove_cvref_t<Args>> || ...) constexpr ScalarType result_type(const Args&...) {
  return scalar_type_of<result_type_t<Args...>>;
}

/// Whether PyTorch casts From to To implicitly (its canCast, used by in-place
/// ops and `out=`): never floating to integral, never non-bool to bool.
template <Element From, Element To>
inline constexpr bool can_cast_v =
    !(is_floating<From> && !is_floating<To>)&&!(std::is_same_v<To, bool> && !std::is_same_v<From, bool>);

namespace detail {

/// Calls f(std::type_identity<T>{}) with T the element type of tag t; a
/// TypeError naming `op` for a tag that is not one (a dual's).
template <class F>
decltype(auto) visit_element_type(ScalarType t, const char* op, F&& f) {
  switch (t) {
    case kBool:
      return f(std::type_identity<bool>{});
    case kUInt8:
      return f(std::type_identity<uint8_t>{});
    case kInt32:
      return f(std::type_identity<int32_t>{});
    case kInt64:
      return f(std::type_identity<int64_t>{});
    case kFloat16:
      return f(std::type_identity<Half>{});
    case kBFloat16:
      return f(std::type_identity<BFloat16>{});
    case kFloat32:
      return f(std::type_identity<float>{});
    case kFloat64:
      return f(std::type_identity<double>{});
  }
  throw TypeError(std::string(op) + ": expected a tensor element type, got " + std::string(name(t)));
}

}  // namespace detail

/// `promote_t` on run-time tags (`torch.promote_types`).
inline ScalarType promote_types(ScalarType a, ScalarType b) {
  return detail::visit_element_type(a, "promote_types", [b]<class A>(std::type_identity<A>) {
    return detail::visit_element_type(b, "promote_types",
                                      []<class B>(std::type_identity<B>) { return scalar_type_of<promote_t<A, B>>; });
  });
}

/// `can_cast_v` on run-time tags (`torch.can_cast`).
inline bool can_cast(ScalarType from, ScalarType to) {
  return detail::visit_element_type(from, "can_cast", [to]<class F>(std::type_identity<F>) {
    return detail::visit_element_type(to, "can_cast", []<class T>(std::type_identity<T>) { return can_cast_v<F, T>; });
  });
}

}  // namespace tensorlib
