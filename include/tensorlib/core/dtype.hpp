#pragma once
/// \file
/// Element types: the `ScalarType` tag used by type-erased code, the
/// `Element` concept for static code, and the type promotion rules.
///
/// Note [type promotion]
/// Tensors are ranked bool < uint8 < int32 < int64 < {float16, bfloat16} <
/// float < double and two tensor operands promote to the higher rank; float16
/// with bfloat16 gives float (PyTorch's lattice restricted to our types).
/// A C++ scalar operand is "weak", as a Python number is in PyTorch: it
/// only changes the result type when it belongs to a higher
/// category (bool < integral < floating) than the tensor, and then the result
/// is that category's default (int64 for integers, float for floating point):
///   Tensor<float> * 2.0   -> float      Tensor<int32_t> * 2.5 -> float
///   Tensor<uint8_t> + 300 -> uint8_t    Tensor<bool> + 1      -> int64_t
/// True division and floating functions (exp, sin, sigmoid...) of integral or
/// bool operands compute in float. Comparisons compute in the promoted type and
/// give bool. Unlike PyTorch, a 0-d tensor promotes like any other tensor: its
/// dimensionality is a run-time property and our element types are static.
/// New element types join by adding a `DTypeTraits` specialization and a
/// `ScalarType` value, as `Half` and `BFloat16` do (core/half.hpp).
///
/// Note [dual element tags]
/// `tl::Dual<T, K>` (forward mode, autograd/dual.hpp) is an element type for
/// pointwise chains. Its run-time tag is not an enumerator but a value above
/// them, kDualTags + K for float values and kDualTags + kMaxDualTangents + K for
/// double, so a tensor's tag still gives its element size. Type-erased code
/// (AnyTensor::visit) does not handle duals: it raises a TypeError.

#include <concepts>
#include <cstdint>
#include <ostream>
#include <string_view>
#include <type_traits>

#include "tensorlib/core/config.hpp"
#include "tensorlib/core/half.hpp"

namespace tensorlib {

/// Run-time tag of an element type (PyTorch's ScalarType).
enum class ScalarType : int8_t { Bool, UInt8, Int32, Int64, Float32, Float64, Float16, BFloat16 };

inline constexpr ScalarType kBool = ScalarType::Bool;
inline constexpr ScalarType kUInt8 = ScalarType::UInt8;
inline constexpr ScalarType kByte = ScalarType::UInt8;
inline constexpr ScalarType kInt32 = ScalarType::Int32;
inline constexpr ScalarType kInt = ScalarType::Int32;
inline constexpr ScalarType kInt64 = ScalarType::Int64;
inline constexpr ScalarType kLong = ScalarType::Int64;
inline constexpr ScalarType kFloat32 = ScalarType::Float32;
inline constexpr ScalarType kFloat = ScalarType::Float32;
inline constexpr ScalarType kFloat64 = ScalarType::Float64;
inline constexpr ScalarType kDouble = ScalarType::Float64;
inline constexpr ScalarType kFloat16 = ScalarType::Float16;
inline constexpr ScalarType kHalf = ScalarType::Float16;
inline constexpr ScalarType kBFloat16 = ScalarType::BFloat16;

/// Most tangents a dual element type carries (Note [dual element tags]).
inline constexpr int kMaxDualTangents = 32;
inline constexpr int kDualTags = 16;

/// The tag of `Dual<T, k>`, T float (`value` kFloat32) or double.
constexpr ScalarType dual_scalar_type(ScalarType value, int k) noexcept {
  return static_cast<ScalarType>(kDualTags + (value == ScalarType::Float64 ? kMaxDualTangents : 0) + k);
}
/// True for the tag of a dual element type.
constexpr bool is_dual_tag(ScalarType t) noexcept { return static_cast<int>(t) > kDualTags; }

/// The three promotion categories of Note [type promotion].
enum class Category : int8_t { Bool = 0, Integral = 1, Floating = 2 };

/// Per-element-type facts; only specialised for supported element types.
template <class T>
struct DTypeTraits;

template <>
struct DTypeTraits<bool> {
  static constexpr ScalarType scalar_type = kBool;
  static constexpr std::string_view name = "bool";
  static constexpr Category category = Category::Bool;
  static constexpr int rank = 0;
};
template <>
struct DTypeTraits<uint8_t> {
  static constexpr ScalarType scalar_type = kUInt8;
  static constexpr std::string_view name = "uint8";
  static constexpr Category category = Category::Integral;
  static constexpr int rank = 1;
};
template <>
struct DTypeTraits<int32_t> {
  static constexpr ScalarType scalar_type = kInt32;
  static constexpr std::string_view name = "int32";
  static constexpr Category category = Category::Integral;
  static constexpr int rank = 2;
};
template <>
struct DTypeTraits<int64_t> {
  static constexpr ScalarType scalar_type = kInt64;
  static constexpr std::string_view name = "int64";
  static constexpr Category category = Category::Integral;
  static constexpr int rank = 3;
};
template <>
struct DTypeTraits<Half> {
  static constexpr ScalarType scalar_type = kFloat16;
  static constexpr std::string_view name = "float16";
  static constexpr Category category = Category::Floating;
  static constexpr int rank = 4;
};
template <>
struct DTypeTraits<BFloat16> {
  static constexpr ScalarType scalar_type = kBFloat16;
  static constexpr std::string_view name = "bfloat16";
  static constexpr Category category = Category::Floating;
  static constexpr int rank = 4;
};
template <>
struct DTypeTraits<float> {
  static constexpr ScalarType scalar_type = kFloat32;
  static constexpr std::string_view name = "float32";
  static constexpr Category category = Category::Floating;
  static constexpr int rank = 5;
};
template <>
struct DTypeTraits<double> {
  static constexpr ScalarType scalar_type = kFloat64;
  static constexpr std::string_view name = "float64";
  static constexpr Category category = Category::Floating;
  static constexpr int rank = 6;
};

/// A type that can be a tensor element.
template <class T>
concept Element = requires {
  { DTypeTraits<T>::scalar_type } -> std::convertible_to<ScalarType>;
};

/// A C++ arithmetic value usable as a scalar operand (`x * 2`, `x + 0.5f`).
template <class S>
concept Scalar = std::is_arithmetic_v<S>;

template <Element T>
inline constexpr ScalarType scalar_type_of = DTypeTraits<T>::scalar_type;

template <Element T>
inline constexpr bool is_floating = DTypeTraits<T>::category == Category::Floating;

/// Element types autograd records: the floating ones but float16 and
/// bfloat16, which it does not follow yet (Note [reduced floats]), and the
/// dual numbers of forward mode, which never take part in reverse mode.
template <Element T>
inline constexpr bool differentiable = is_floating<T> && !is_reduced_float<T> && !is_dual_tag(scalar_type_of<T>);

template <Element T>
inline constexpr bool is_integral_or_bool = DTypeTraits<T>::category != Category::Floating;

/// Integral element types, bool excluded (gcd, lcm, the bit shifts).
template <Element T>
inline constexpr bool is_integral_element = DTypeTraits<T>::category == Category::Integral;

/// Name of a run-time element type, e.g. "float32".
constexpr std::string_view name(ScalarType t) noexcept {
  switch (t) {
    case kBool:
      return "bool";
    case kUInt8:
      return "uint8";
    case kInt32:
      return "int32";
    case kInt64:
      return "int64";
    case kFloat32:
      return "float32";
    case kFloat64:
      return "float64";
    case kFloat16:
      return "float16";
    case kBFloat16:
      return "bfloat16";
  }
  if (is_dual_tag(t)) return static_cast<int>(t) > kDualTags + kMaxDualTangents ? "dual_float64" : "dual_float32";
  return "unknown";
}

/// Size in bytes of one element of a run-time element type.
constexpr int64_t element_size(ScalarType t) noexcept {
  switch (t) {
    case kBool:
    case kUInt8:
      return 1;
    case kInt32:
    case kFloat32:
      return 4;
    case kInt64:
    case kFloat64:
      return 8;
    case kFloat16:
    case kBFloat16:
      return 2;
  }
  if (is_dual_tag(t)) {
    const int tag = static_cast<int>(t) - kDualTags;
    return tag > kMaxDualTangents ? 8 * (tag - kMaxDualTangents + 1) : 4 * (tag + 1);
  }
  return 0;
}

inline std::ostream& operator<<(std::ostream& os, ScalarType t) { return os << name(t); }

namespace detail {

template <Category C>
struct DefaultOf;
template <>
struct DefaultOf<Category::Bool> {
  using type = bool;
};
template <>
struct DefaultOf<Category::Integral> {
  using type = int64_t;
};
template <>
struct DefaultOf<Category::Floating> {
  using type = float;
};

template <Scalar S>
constexpr Category scalar_category() {
  if constexpr (std::is_same_v<S, bool>)
    return Category::Bool;
  else if constexpr (std::is_integral_v<S>)
    return Category::Integral;
  else
    return Category::Floating;
}

}  // namespace detail

/// Result type of an op on two tensors of types A and B (Note [type promotion]).
template <Element A, Element B>
using promote_t = std::conditional_t<(is_reduced_float<A> && is_reduced_float<B> && !std::is_same_v<A, B>), float,
                                     std::conditional_t<(DTypeTraits<A>::rank >= DTypeTraits<B>::rank), A, B>>;

/// Element type a C++ scalar becomes when it is the only operand (PyTorch's
/// default dtypes): bool, int64_t or float.
template <Scalar S>
using default_element_t = typename detail::DefaultOf<detail::scalar_category<S>()>::type;

/// Result type of an op on a tensor of type T and a weak C++ scalar S.
template <Element T, Scalar S>
using promote_scalar_t =
    std::conditional_t<(static_cast<int>(detail::scalar_category<S>()) > static_cast<int>(DTypeTraits<T>::category)),
                       default_element_t<S>, T>;

/// The type floating functions compute in: T if floating, else float.
template <Element T>
using floating_t = std::conditional_t<is_floating<T>, T, float>;

}  // namespace tensorlib
