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
/// (`torch.result_type`); at least one operand must be an expression.
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

/// Category and rank of a run-time tag (the DTypeTraits of its type).
struct TagRank {
  Category category;
  int rank;
};
inline TagRank tag_rank(ScalarType t, const char* op) {
  switch (t) {
    case kBool:
      return {Category::Bool, DTypeTraits<bool>::rank};
    case kUInt8:
      return {Category::Integral, DTypeTraits<uint8_t>::rank};
    case kInt32:
      return {Category::Integral, DTypeTraits<int32_t>::rank};
    case kInt64:
      return {Category::Integral, DTypeTraits<int64_t>::rank};
    case kFloat16:
      return {Category::Floating, DTypeTraits<Half>::rank};
    case kBFloat16:
      return {Category::Floating, DTypeTraits<BFloat16>::rank};
    case kFloat32:
      return {Category::Floating, DTypeTraits<float>::rank};
    case kFloat64:
      return {Category::Floating, DTypeTraits<double>::rank};
  }
  throw TypeError(std::string(op) + ": expected a tensor element type, got " + std::string(name(t)));
}

}  // namespace detail

/// The type two tensors of types a and b promote to (`torch.promote_types`):
/// the higher rank, float for float16 with bfloat16.
inline ScalarType promote_types(ScalarType a, ScalarType b) {
  const auto ra = detail::tag_rank(a, "promote_types");
  const auto rb = detail::tag_rank(b, "promote_types");
  if (ra.rank == rb.rank && a != b) return kFloat32;  // float16 with bfloat16
  return ra.rank >= rb.rank ? a : b;
}

/// `can_cast_v` on run-time tags (`torch.can_cast`).
inline bool can_cast(ScalarType from, ScalarType to) {
  const auto f = detail::tag_rank(from, "can_cast").category;
  const auto t = detail::tag_rank(to, "can_cast").category;
  return !(f == Category::Floating && t != Category::Floating) && !(t == Category::Bool && f != Category::Bool);
}

}  // namespace tensorlib
