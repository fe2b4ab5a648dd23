#pragma once
/// \file
/// Bessel-function functors of torch.special: J0, J1, Y0, Y1
/// (expr/math/bessel_jy.hpp), K0, K1 and their scaled forms
/// (expr/math/bessel_k.hpp), the spherical j0, and the Airy function Ai
/// (expr/math/airy.hpp, from Bessel functions of orders +-1/3, +-2/3).
/// Integral operands compute
/// in float. (The modified functions of the first kind, I0 and I1, are in
/// functors/special.hpp.) Their derivatives are autograd/dual_special.hpp's.

#include <string_view>

#include "tensorlib/core/config.hpp"
#include "tensorlib/expr/math/airy.hpp"
#include "tensorlib/expr/math/bessel_jy.hpp"
#include "tensorlib/expr/math/bessel_k.hpp"
#include "tensorlib/expr/promotion.hpp"

namespace tensorlib::fn {

/// Bessel function of the first kind of order 0 (torch.special.bessel_j0).
struct BesselJ0 {
  static constexpr std::string_view name = "bessel_j0";
  using promotion = promotion::CommonFloating;
  template <class T>
  TENSORLIB_HOST_DEVICE T operator()(T x) const {
    using math::bessel_j0;
    return bessel_j0(x);
  }
};

/// Bessel function of the first kind of order 1 (torch.special.bessel_j1).
struct BesselJ1 {
  static constexpr std::string_view name = "bessel_j1";
  using promotion = promotion::CommonFloating;
  template <class T>
  TENSORLIB_HOST_DEVICE T operator()(T x) const {
    using math::bessel_j1;
    return bessel_j1(x);
  }
};

/// Bessel function of the second kind of order 0 (torch.special.bessel_y0).
struct BesselY0 {
  static constexpr std::string_view name = "bessel_y0";
  using promotion = promotion::CommonFloating;
  template <class T>
  TENSORLIB_HOST_DEVICE T operator()(T x) const {
    using math::bessel_y0;
    return bessel_y0(x);
  }
};

/// Bessel function of the second kind of order 1 (torch.special.bessel_y1).
struct BesselY1 {
  static constexpr std::string_view name = "bessel_y1";
  using promotion = promotion::CommonFloating;
  template <class T>
  TENSORLIB_HOST_DEVICE T operator()(T x) const {
    using math::bessel_y1;
    return bessel_y1(x);
  }
};

/// Modified Bessel function of the second kind of order 0
/// (torch.special.modified_bessel_k0).
struct ModifiedBesselK0 {
  static constexpr std::string_view name = "modified_bessel_k0";
  using promotion = promotion::CommonFloating;
  template <class T>
  TENSORLIB_HOST_DEVICE T operator()(T x) const {
    using math::modified_bessel_k0;
    return modified_bessel_k0(x);
  }
};

/// Modified Bessel function of the second kind of order 1
/// (torch.special.modified_bessel_k1).
struct ModifiedBesselK1 {
  static constexpr std::string_view name = "modified_bessel_k1";
  using promotion = promotion::CommonFloating;
  template <class T>
  TENSORLIB_HOST_DEVICE T operator()(T x) const {
    using math::modified_bessel_k1;
    return modified_bessel_k1(x);
  }
};

/// e^x K0(x) (torch.special.scaled_modified_bessel_k0).
struct ScaledModifiedBesselK0 {
  static constexpr std::string_view name = "scaled_modified_bessel_k0";
  using promotion = promotion::CommonFloating;
  template <class T>
  TENSORLIB_HOST_DEVICE T operator()(T x) const {
    using math::scaled_modified_bessel_k0;
    return scaled_modified_bessel_k0(x);
  }
};

/// e^x K1(x) (torch.special.scaled_modified_bessel_k1).
struct ScaledModifiedBesselK1 {
  static constexpr std::string_view name = "scaled_modified_bessel_k1";
  using promotion = promotion::CommonFloating;
  template <class T>
  TENSORLIB_HOST_DEVICE T operator()(T x) const {
    using math::scaled_modified_bessel_k1;
    return scaled_modified_bessel_k1(x);
  }
};

/// sin(x) / x, the spherical Bessel function of the first kind of order 0
/// (torch.special.spherical_bessel_j0).
struct SphericalBesselJ0 {
  static constexpr std::string_view name = "spherical_bessel_j0";
  using promotion = promotion::CommonFloating;
  template <class T>
  TENSORLIB_HOST_DEVICE T operator()(T x) const {
    using math::spherical_bessel_j0;
    return spherical_bessel_j0(x);
  }
};

/// Ai(x), the Airy function of the first kind (torch.special.airy_ai).
struct AiryAi {
  static constexpr std::string_view name = "airy_ai";
  using promotion = promotion::CommonFloating;
  template <class T>
  TENSORLIB_HOST_DEVICE T operator()(T x) const {
    using math::airy_ai;
    return airy_ai(x);
  }
};

}  // namespace tensorlib::fn
