#pragma once
/// \file
/// Logical functors (any element type, truthiness as in C++: nonzero and NaN
/// are true), bitwise functors (integral and bool only) and `where`.

#include <string_view>
#include <type_traits>

#include "tensorlib/core/config.hpp"
#include "tensorlib/expr/promotion.hpp"

namespace tensorlib::fn {

/// a && b.
struct LogicalAnd {
  static constexpr std::string_view name = "logical_and";
  using promotion = promotion::Common;
  template <class T>
  TENSORLIB_HOST_DEVICE bool operator()(T a, T b) const {
    return static_cast<bool>(a) && static_cast<bool>(b);
  }
};
/// a || b.
struct LogicalOr {
  static constexpr std::string_view name = "logical_or";
  using promotion = promotion::Common;
  template <class T>
  TENSORLIB_HOST_DEVICE bool operator()(T a, T b) const {
    return static_cast<bool>(a) || static_cast<bool>(b);
  }
};
/// a != b as truth values.
struct LogicalXor {
  static constexpr std::string_view name = "logical_xor";
  using promotion = promotion::Common;
  template <class T>
  TENSORLIB_HOST_DEVICE bool operator()(T a, T b) const {
    return static_cast<bool>(a) != static_cast<bool>(b);
  }
};
/// !x.
struct LogicalNot {
  static constexpr std::string_view name = "logical_not";
  using promotion = promotion::None;
  template <class T>
  TENSORLIB_HOST_DEVICE bool operator()(T x) const {
    return !static_cast<bool>(x);
  }
};

/// a & b.
struct BitwiseAnd {
  static constexpr std::string_view name = "bitwise_and";
  using promotion = promotion::Common;
  template <class T>
  TENSORLIB_HOST_DEVICE T operator()(T a, T b) const {
    return static_cast<T>(a & b);
  }
};
/// a | b.
struct BitwiseOr {
  static constexpr std::string_view name = "bitwise_or";
  using promotion = promotion::Common;
  template <class T>
  TENSORLIB_HOST_DEVICE T operator()(T a, T b) const {
    return static_cast<T>(a | b);
  }
};
/// a ^ b.
struct BitwiseXor {
  static constexpr std::string_view name = "bitwise_xor";
  using promotion = promotion::Common;
  template <class T>
  TENSORLIB_HOST_DEVICE T operator()(T a, T b) const {
    return static_cast<T>(a ^ b);
  }
};
/// ~x (logical not for bool).
struct BitwiseNot {
  static constexpr std::string_view name = "bitwise_not";
  using promotion = promotion::Common;
  template <class T>
  TENSORLIB_HOST_DEVICE T operator()(T x) const {
    if constexpr (std::is_same_v<T, bool>)
      return !x;
    else
      return static_cast<T>(~x);
  }
};

/// condition ? a : b. The builder casts a and b to their common type.
/// `Masks`: the backward hands the branch not taken 0, as PyTorch's where
/// does (Note [masked adjoints]); without it, the gradient times 0, as the
/// formulas of PyTorch's composites that select multiply (nan_to_num,
/// nansum and xlogy: 0 * inf is NaN there).
template <bool Masks>
struct BasicWhere {
  static constexpr std::string_view name = "where";
  static constexpr bool masks_gradient = Masks;
  using promotion = promotion::None;
  template <class T>
  TENSORLIB_HOST_DEVICE T operator()(bool condition, T a, T b) const {
    return condition ? a : b;
  }
};
using Where = BasicWhere<true>;

}  // namespace tensorlib::fn
