#pragma once
/// \file
/// `fn::CastTo<U>`: element type conversion, the node `as_node` inserts when an
/// operand must be promoted, and what `tl::cast<U>(e)` builds.

#include <cstdint>
#include <string_view>
#include <type_traits>

#include "tensorlib/core/config.hpp"
#include "tensorlib/core/dtype.hpp"
#include "tensorlib/expr/promotion.hpp"

namespace tensorlib::fn {

/// Converts each element to U. To bool: nonzero (NaN included) is true. Float
/// to uint8 goes through int64, so negative values wrap as PyTorch's do on
/// x86; other out-of-range float-to-integer conversions are undefined, as in C++.
template <Element U>
struct CastTo {
  static constexpr std::string_view name = "to";
  using promotion = promotion::None;
  template <class T>
  TENSORLIB_HOST_DEVICE U operator()(const T& x) const {
    if constexpr (std::is_same_v<U, bool>)
      return x != T(0);
    else if constexpr (std::is_same_v<U, uint8_t> && std::is_floating_point_v<T>)
      return static_cast<uint8_t>(static_cast<int64_t>(x));
    else
      return static_cast<U>(x);
  }
};

}  // namespace tensorlib::fn
