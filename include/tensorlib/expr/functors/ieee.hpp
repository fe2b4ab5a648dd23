#pragma once
/// \file
/// Functors on the IEEE-754 representation: copysign (torch.copysign),
/// nextafter (torch.nextafter) and signbit (torch.signbit).

#include <cmath>
#include <string_view>
#include <type_traits>

#include "tensorlib/core/config.hpp"
#include "tensorlib/expr/math/primitives.hpp"
#include "tensorlib/expr/promotion.hpp"

namespace tensorlib::fn {

/// |a| with the sign of b, -0 and NaN signs included (torch.copysign;
/// integers compute in float). Its partials are PyTorch's: result / a in a
/// (0 where a is 0, NaN where a is infinite or NaN), 0 in b. (PyTorch's
/// gradient in b is zeros even for an infinite incoming gradient, where this
/// one, unmasked so that a's stays PyTorch's, is NaN.)
struct Copysign {
  static constexpr std::string_view name = "copysign";
  using promotion = promotion::CommonFloating;
  template <class T>
  TENSORLIB_HOST_DEVICE T operator()(T a, T b) const {
    using math::copysign;
    return copysign(a, b);
  }
  template <class T>
  TENSORLIB_HOST_DEVICE T partial_a(T a, T b) const {
    using math::select;
    return select(a == T(0), T(0), (*this)(a, b) / a);
  }
  template <class T>
  TENSORLIB_HOST_DEVICE T partial_b(T, T) const {
    return T(0);
  }
};

/// The next representable value after a towards b (torch.nextafter; floating
/// operands only): b where a == b, NaN where either is NaN. PyTorch implements
/// no derivative in either operand: a backward that needs one throws (Note
/// [derivatives PyTorch does not implement] in autograd/fused.hpp).
struct Nextafter {
  static constexpr std::string_view name = "nextafter";
  static constexpr std::string_view no_derivative_in_a = "nextafter";
  static constexpr std::string_view no_derivative_in_b = "nextafter";
  using promotion = promotion::Common;
  template <class T>
  TENSORLIB_HOST_DEVICE T operator()(T a, T b) const {
    using math::nextafter;
    return nextafter(a, b);
  }
};

/// Whether the sign bit is set: -0 and NaNs with the bit set too
/// (torch.signbit); x < 0 for integers, false for bool.
struct Signbit {
  static constexpr std::string_view name = "signbit";
  using promotion = promotion::None;
  template <class T>
  TENSORLIB_HOST_DEVICE bool operator()(T x) const {
    if constexpr (std::is_unsigned_v<T>) {  // bool and uint8: never (no comparison nvcc calls pointless)
      return false;
    } else if constexpr (std::is_integral_v<T>) {
      return x < T(0);
    } else {
      using math::signbit;
      return signbit(x);
    }
  }
};

}  // namespace tensorlib::fn
