#pragma once
/// \file
/// The math functions on `simd::Vec<T>` packets, found by argument-dependent
/// lookup when a functor is instantiated with a packet. Each forwards to the
/// generic kernel in expr/math (the same code the scalar path runs), or, for
/// rare functions without a packet kernel, applies the scalar kernel per lane.

#include <cstdint>

#include "tensorlib/backend/cpu/simd.hpp"
#include "tensorlib/expr/math/airy.hpp"
#include "tensorlib/expr/math/bessel.hpp"
#include "tensorlib/expr/math/bessel_jy.hpp"
#include "tensorlib/expr/math/bessel_k.hpp"
#include "tensorlib/expr/math/exp_log.hpp"
#include "tensorlib/expr/math/hyperbolic.hpp"
#include "tensorlib/expr/math/incomplete_gamma.hpp"
#include "tensorlib/expr/math/inverse_trig.hpp"
#include "tensorlib/expr/math/normal_cdf.hpp"
#include "tensorlib/expr/math/orthogonal_polynomials.hpp"
#include "tensorlib/expr/math/power.hpp"
#include "tensorlib/expr/math/special.hpp"
#include "tensorlib/expr/math/trig.hpp"

namespace tensorlib::simd {

template <Lane T>
inline Vec<T> exp(Vec<T> x) {
  return math::detail::exp(x);
}
template <Lane T>
inline Vec<T> exp2(Vec<T> x) {
  return math::detail::exp2(x);
}
template <Lane T>
inline Vec<T> expm1(Vec<T> x) {
  return math::detail::expm1(x);
}
template <Lane T>
inline Vec<T> log(Vec<T> x) {
  return math::detail::log(x);
}
template <Lane T>
inline Vec<T> log2(Vec<T> x) {
  return math::detail::log2(x);
}
template <Lane T>
inline Vec<T> log10(Vec<T> x) {
  return math::detail::log10(x);
}
template <Lane T>
inline Vec<T> log1p(Vec<T> x) {
  return math::detail::log1p(x);
}
template <Lane T>
inline Vec<T> tanh(Vec<T> x) {
  return math::detail::tanh(x);
}
template <Lane T>
inline Vec<T> sinh(Vec<T> x) {
  return math::detail::sinh(x);
}
template <Lane T>
inline Vec<T> cosh(Vec<T> x) {
  return math::detail::cosh(x);
}
template <Lane T>
inline Vec<T> asinh(Vec<T> x) {
  return math::detail::asinh(x);
}
template <Lane T>
inline Vec<T> acosh(Vec<T> x) {
  return math::detail::acosh(x);
}
template <Lane T>
inline Vec<T> atanh(Vec<T> x) {
  return math::detail::atanh(x);
}

// Trigonometric and special functions. Float packets run the generic kernels;
// double packets (whose scalar versions call the C library) and the rare
// functions without a packet kernel apply the scalar function per lane.
template <Lane T>
inline Vec<T> sin(Vec<T> x) {
  if constexpr (std::is_same_v<T, float>)
    return math::detail::sin(x);
  else
    return map_lanes(x, [](T v) { return math::sin(v); });
}
template <Lane T>
inline Vec<T> cos(Vec<T> x) {
  if constexpr (std::is_same_v<T, float>)
    return math::detail::cos(x);
  else
    return map_lanes(x, [](T v) { return math::cos(v); });
}
template <Lane T>
inline Vec<T> tan(Vec<T> x) {
  if constexpr (std::is_same_v<T, float>)
    return math::detail::tan(x);
  else
    return map_lanes(x, [](T v) { return math::tan(v); });
}
template <Lane T>
inline Vec<T> asin(Vec<T> x) {
  if constexpr (std::is_same_v<T, float>)
    return math::detail::asin(x);
  else
    return map_lanes(x, [](T v) { return math::asin(v); });
}
template <Lane T>
inline Vec<T> acos(Vec<T> x) {
  if constexpr (std::is_same_v<T, float>)
    return math::detail::acos(x);
  else
    return map_lanes(x, [](T v) { return math::acos(v); });
}
template <Lane T>
inline Vec<T> atan(Vec<T> x) {
  if constexpr (std::is_same_v<T, float>)
    return math::detail::atan(x);
  else
    return map_lanes(x, [](T v) { return math::atan(v); });
}
template <Lane T>
inline Vec<T> atan2(Vec<T> y, Vec<T> x) {
  if constexpr (std::is_same_v<T, float>)
    return math::detail::atan2(y, x);
  else
    return map_lanes(y, x, [](T a, T b) { return math::atan2(a, b); });
}
template <Lane T>
inline Vec<T> erf(Vec<T> x) {
  if constexpr (std::is_same_v<T, float>)
    return math::detail::erf(x);
  else
    return map_lanes(x, [](T v) { return math::erf(v); });
}
template <Lane T>
inline Vec<T> erfc(Vec<T> x) {
  if constexpr (std::is_same_v<T, float>)
    return math::detail::erfc(x);
  else
    return map_lanes(x, [](T v) { return math::erfc(v); });
}
template <Lane T>
inline Vec<T> erfinv(Vec<T> x) {
  return map_lanes(x, [](T v) { return math::erfinv(v); });
}
template <Lane T>
inline Vec<T> lgamma(Vec<T> x) {
  return map_lanes(x, [](T v) { return math::lgamma(v); });
}
template <Lane T>
inline Vec<T> digamma(Vec<T> x) {
  return map_lanes(x, [](T v) { return math::digamma(v); });
}
template <Lane T>
inline Vec<T> polygamma(int64_t n, Vec<T> x) {
  return map_lanes(x, [n](T v) { return math::polygamma(n, v); });
}
template <Lane T>
inline Vec<T> erfcx(Vec<T> x) {
  return map_lanes(x, [](T v) { return math::erfcx(v); });
}
template <Lane T>
inline Vec<T> i0(Vec<T> x) {
  return map_lanes(x, [](T v) { return math::i0(v); });
}
template <Lane T>
inline Vec<T> i0e(Vec<T> x) {
  return map_lanes(x, [](T v) { return math::i0e(v); });
}
template <Lane T>
inline Vec<T> i1(Vec<T> x) {
  return map_lanes(x, [](T v) { return math::i1(v); });
}
template <Lane T>
inline Vec<T> i1e(Vec<T> x) {
  return map_lanes(x, [](T v) { return math::i1e(v); });
}
template <Lane T>
inline Vec<T> bessel_j0(Vec<T> x) {
  return map_lanes(x, [](T v) { return math::bessel_j0(v); });
}
template <Lane T>
inline Vec<T> bessel_j1(Vec<T> x) {
  return map_lanes(x, [](T v) { return math::bessel_j1(v); });
}
template <Lane T>
inline Vec<T> bessel_y0(Vec<T> x) {
  return map_lanes(x, [](T v) { return math::bessel_y0(v); });
}
template <Lane T>
inline Vec<T> bessel_y1(Vec<T> x) {
  return map_lanes(x, [](T v) { return math::bessel_y1(v); });
}
template <Lane T>
inline Vec<T> modified_bessel_k0(Vec<T> x) {
  return map_lanes(x, [](T v) { return math::modified_bessel_k0(v); });
}
template <Lane T>
inline Vec<T> modified_bessel_k1(Vec<T> x) {
  return map_lanes(x, [](T v) { return math::modified_bessel_k1(v); });
}
template <Lane T>
inline Vec<T> scaled_modified_bessel_k0(Vec<T> x) {
  return map_lanes(x, [](T v) { return math::scaled_modified_bessel_k0(v); });
}
template <Lane T>
inline Vec<T> scaled_modified_bessel_k1(Vec<T> x) {
  return map_lanes(x, [](T v) { return math::scaled_modified_bessel_k1(v); });
}
template <Lane T>
inline Vec<T> spherical_bessel_j0(Vec<T> x) {
  return map_lanes(x, [](T v) { return math::spherical_bessel_j0(v); });
}
template <Lane T>
inline Vec<T> spherical_bessel_j1(Vec<T> x) {
  return map_lanes(x, [](T v) { return math::spherical_bessel_j1(v); });
}
template <Lane T>
inline Vec<T> nextafter(Vec<T> a, Vec<T> b) {
  return map_lanes(a, b, [](T u, T v) { return math::nextafter(u, v); });
}
template <Lane T>
inline Vec<T> airy_ai(Vec<T> x) {
  return map_lanes(x, [](T v) { return math::airy_ai(v); });
}
template <Lane T>
inline Vec<T> airy_ai_prime(Vec<T> x) {
  return map_lanes(x, [](T v) { return math::airy_ai_prime(v); });
}
template <Lane T>
inline Vec<T> zeta(Vec<T> a, Vec<T> b) {
  return map_lanes(a, b, [](T u, T v) { return math::zeta(u, v); });
}
template <Lane T>
inline Vec<T> gammainc(Vec<T> a, Vec<T> b) {
  return map_lanes(a, b, [](T u, T v) { return math::gammainc(u, v); });
}
template <Lane T>
inline Vec<T> gammaincc(Vec<T> a, Vec<T> b) {
  return map_lanes(a, b, [](T u, T v) { return math::gammaincc(u, v); });
}
template <Lane T>
inline Vec<T> orthogonal_polynomial(math::Polynomial kind, Vec<T> x, Vec<T> n) {
  return map_lanes(x, n, [kind](T u, T v) { return math::orthogonal_polynomial(kind, u, v); });
}
template <Lane T>
inline Vec<T> log_ndtr(Vec<T> x) {
  return map_lanes(x, [](T v) { return math::log_ndtr(v); });
}
template <Lane T>
inline Vec<T> ndtri(Vec<T> x) {
  return map_lanes(x, [](T v) { return math::ndtri(v); });
}
template <Lane T>
inline Vec<T> fmod(Vec<T> x, Vec<T> y) {
  return map_lanes(x, y, [](T a, T b) { return math::fmod(a, b); });
}
template <Lane T>
inline Vec<T> pow(Vec<T> x, Vec<T> y) {
  return map_lanes(x, y, [](T a, T b) { return math::pow(a, b); });
}

}  // namespace tensorlib::simd
