#pragma once
/// \file
/// Converting a C++ scalar to an element type with PyTorch's overflow check.

#include <cstdint>
#include <limits>
#include <type_traits>

#include "tensorlib/core/dtype.hpp"
#include "tensorlib/core/error.hpp"

namespace tensorlib::detail {

/// A C++ scalar converted to element type T, rejecting values an integral T
/// cannot hold, NaN included (PyTorch's rule: unsigned types also take
/// negative values down to -max, which wrap, so `x - 1` works on uint8).
/// A floating value is truncated toward zero, as in PyTorch.
template <Element T, Scalar S>
T checked_scalar_cast(S value) {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    const long double v = static_cast<long double>(value);
    constexpr long double hi = static_cast<long double>(std::numeric_limits<T>::max());
    constexpr long double lo = std::is_signed_v<T> ? static_cast<long double>(std::numeric_limits<T>::min()) : -hi;
    detail::check<ValueError>(v >= lo && v <= hi, "value ", value, " cannot be converted to type ",
                              DTypeTraits<T>::name, " without overflow");
    // A negative floating value reaches an unsigned T through int64 (a
    // direct conversion would be undefined); it then wraps as documented.
    if constexpr (std::is_floating_point_v<S> && std::is_unsigned_v<T>)
      if (value < 0) return static_cast<T>(static_cast<int64_t>(value));
  }
  return static_cast<T>(value);
}

}  // namespace tensorlib::detail
