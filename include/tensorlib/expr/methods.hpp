#pragma once
/// \file
/// Definitions of the `PointwiseMethods` declared in core/pointwise_methods.hpp:
/// each method is the free function of the same name applied to `self()`.

#include <optional>
#include <string_view>

#include "tensorlib/core/pointwise_methods.hpp"
#include "tensorlib/expr/composites.hpp"
#include "tensorlib/expr/functions.hpp"

namespace tensorlib {

template <class D>
auto PointwiseMethods<D>::abs() const {
  return tensorlib::abs(self());
}
template <class D>
auto PointwiseMethods<D>::acos() const {
  return tensorlib::acos(self());
}
template <class D>
auto PointwiseMethods<D>::acosh() const {
  return tensorlib::acosh(self());
}
template <class D>
auto PointwiseMethods<D>::asin() const {
  return tensorlib::asin(self());
}
template <class D>
auto PointwiseMethods<D>::asinh() const {
  return tensorlib::asinh(self());
}
template <class D>
auto PointwiseMethods<D>::atan() const {
  return tensorlib::atan(self());
}
template <class D>
auto PointwiseMethods<D>::atanh() const {
  return tensorlib::atanh(self());
}
template <class D>
auto PointwiseMethods<D>::ceil() const {
  return tensorlib::ceil(self());
}
template <class D>
auto PointwiseMethods<D>::cos() const {
  return tensorlib::cos(self());
}
template <class D>
auto PointwiseMethods<D>::cosh() const {
  return tensorlib::cosh(self());
}
template <class D>
auto PointwiseMethods<D>::digamma() const {
  return tensorlib::digamma(self());
}
template <class D>
auto PointwiseMethods<D>::polygamma(int64_t n) const {
  return tensorlib::polygamma(n, self());
}
template <class D>
auto PointwiseMethods<D>::i0() const {
  return tensorlib::i0(self());
}
template <class D>
auto PointwiseMethods<D>::erf() const {
  return tensorlib::erf(self());
}
template <class D>
auto PointwiseMethods<D>::erfc() const {
  return tensorlib::erfc(self());
}
template <class D>
auto PointwiseMethods<D>::erfinv() const {
  return tensorlib::erfinv(self());
}
template <class D>
auto PointwiseMethods<D>::exp() const {
  return tensorlib::exp(self());
}
template <class D>
auto PointwiseMethods<D>::exp2() const {
  return tensorlib::exp2(self());
}
template <class D>
auto PointwiseMethods<D>::expm1() const {
  return tensorlib::expm1(self());
}
template <class D>
auto PointwiseMethods<D>::floor() const {
  return tensorlib::floor(self());
}
template <class D>
auto PointwiseMethods<D>::frac() const {
  return tensorlib::frac(self());
}
template <class D>
auto PointwiseMethods<D>::lgamma() const {
  return tensorlib::lgamma(self());
}
template <class D>
auto PointwiseMethods<D>::log() const {
  return tensorlib::log(self());
}
template <class D>
auto PointwiseMethods<D>::log10() const {
  return tensorlib::log10(self());
}
template <class D>
auto PointwiseMethods<D>::log1p() const {
  return tensorlib::log1p(self());
}
template <class D>
auto PointwiseMethods<D>::log2() const {
  return tensorlib::log2(self());
}
template <class D>
auto PointwiseMethods<D>::neg() const {
  return tensorlib::neg(self());
}
template <class D>
auto PointwiseMethods<D>::reciprocal() const {
  return tensorlib::reciprocal(self());
}
template <class D>
auto PointwiseMethods<D>::relu() const {
  return tensorlib::relu(self());
}
template <class D>
auto PointwiseMethods<D>::round() const {
  return tensorlib::round(self());
}
template <class D>
auto PointwiseMethods<D>::rsqrt() const {
  return tensorlib::rsqrt(self());
}
template <class D>
auto PointwiseMethods<D>::sigmoid() const {
  return tensorlib::sigmoid(self());
}
template <class D>
auto PointwiseMethods<D>::sign() const {
  return tensorlib::sign(self());
}
template <class D>
auto PointwiseMethods<D>::sin() const {
  return tensorlib::sin(self());
}
template <class D>
auto PointwiseMethods<D>::sinh() const {
  return tensorlib::sinh(self());
}
template <class D>
auto PointwiseMethods<D>::sqrt() const {
  return tensorlib::sqrt(self());
}
template <class D>
auto PointwiseMethods<D>::square() const {
  return tensorlib::square(self());
}
template <class D>
auto PointwiseMethods<D>::tan() const {
  return tensorlib::tan(self());
}
template <class D>
auto PointwiseMethods<D>::tanh() const {
  return tensorlib::tanh(self());
}
template <class D>
auto PointwiseMethods<D>::trunc() const {
  return tensorlib::trunc(self());
}
template <class D>
auto PointwiseMethods<D>::isnan() const {
  return tensorlib::isnan(self());
}
template <class D>
auto PointwiseMethods<D>::isinf() const {
  return tensorlib::isinf(self());
}
template <class D>
auto PointwiseMethods<D>::isposinf() const {
  return tensorlib::isposinf(self());
}
template <class D>
auto PointwiseMethods<D>::isneginf() const {
  return tensorlib::isneginf(self());
}
template <class D>
auto PointwiseMethods<D>::signbit() const {
  return tensorlib::signbit(self());
}
template <class D>
auto PointwiseMethods<D>::isfinite() const {
  return tensorlib::isfinite(self());
}
template <class D>
auto PointwiseMethods<D>::hardshrink(double lambd) const {
  return tensorlib::hardshrink(self(), lambd);
}
template <class D>
auto PointwiseMethods<D>::logical_not() const {
  return tensorlib::logical_not(self());
}
template <class D>
auto PointwiseMethods<D>::bitwise_not() const {
  return tensorlib::bitwise_not(self());
}
template <class D>
template <Operand O>
auto PointwiseMethods<D>::add(const O& other) const {
  return tensorlib::add(self(), other);
}
template <class D>
template <Operand O>
auto PointwiseMethods<D>::sub(const O& other) const {
  return tensorlib::sub(self(), other);
}
template <class D>
template <Operand O, Scalar S>
auto PointwiseMethods<D>::add(const O& other, S alpha) const {
  return tensorlib::add(self(), other, alpha);
}
template <class D>
template <Operand O, Scalar S>
auto PointwiseMethods<D>::sub(const O& other, S alpha) const {
  return tensorlib::sub(self(), other, alpha);
}
template <class D>
template <Operand O>
auto PointwiseMethods<D>::mul(const O& other) const {
  return tensorlib::mul(self(), other);
}
template <class D>
template <Operand O>
auto PointwiseMethods<D>::div(const O& other) const {
  return tensorlib::div(self(), other);
}
template <class D>
template <Operand O>
auto PointwiseMethods<D>::div(const O& other, std::string_view rounding_mode) const {
  return tensorlib::div(self(), other, rounding_mode);
}
template <class D>
template <Operand O>
auto PointwiseMethods<D>::floor_divide(const O& other) const {
  return tensorlib::floor_divide(self(), other);
}
template <class D>
template <Operand O>
auto PointwiseMethods<D>::pow(const O& other) const {
  return tensorlib::pow(self(), other);
}
template <class D>
template <Operand O>
auto PointwiseMethods<D>::atan2(const O& other) const {
  return tensorlib::atan2(self(), other);
}
template <class D>
template <Operand O>
auto PointwiseMethods<D>::fmod(const O& other) const {
  return tensorlib::fmod(self(), other);
}
template <class D>
template <Operand O>
auto PointwiseMethods<D>::remainder(const O& other) const {
  return tensorlib::remainder(self(), other);
}
template <class D>
template <Operand O>
auto PointwiseMethods<D>::maximum(const O& other) const {
  return tensorlib::maximum(self(), other);
}
template <class D>
template <Operand O>
auto PointwiseMethods<D>::minimum(const O& other) const {
  return tensorlib::minimum(self(), other);
}
template <class D>
template <Operand O>
auto PointwiseMethods<D>::eq(const O& other) const {
  return tensorlib::eq(self(), other);
}
template <class D>
template <Operand O>
auto PointwiseMethods<D>::ne(const O& other) const {
  return tensorlib::ne(self(), other);
}
template <class D>
template <Operand O>
auto PointwiseMethods<D>::lt(const O& other) const {
  return tensorlib::lt(self(), other);
}
template <class D>
template <Operand O>
auto PointwiseMethods<D>::le(const O& other) const {
  return tensorlib::le(self(), other);
}
template <class D>
template <Operand O>
auto PointwiseMethods<D>::gt(const O& other) const {
  return tensorlib::gt(self(), other);
}
template <class D>
template <Operand O>
auto PointwiseMethods<D>::ge(const O& other) const {
  return tensorlib::ge(self(), other);
}
template <class D>
template <Operand O>
auto PointwiseMethods<D>::logical_and(const O& other) const {
  return tensorlib::logical_and(self(), other);
}
template <class D>
template <Operand O>
auto PointwiseMethods<D>::logical_or(const O& other) const {
  return tensorlib::logical_or(self(), other);
}
template <class D>
template <Operand O>
auto PointwiseMethods<D>::logical_xor(const O& other) const {
  return tensorlib::logical_xor(self(), other);
}
template <class D>
template <Operand O>
auto PointwiseMethods<D>::bitwise_left_shift(const O& other) const {
  return tensorlib::bitwise_left_shift(self(), other);
}
template <class D>
template <Operand O>
auto PointwiseMethods<D>::bitwise_right_shift(const O& other) const {
  return tensorlib::bitwise_right_shift(self(), other);
}
template <class D>
template <Operand O>
auto PointwiseMethods<D>::gcd(const O& other) const {
  return tensorlib::gcd(self(), other);
}
template <class D>
template <Operand O>
auto PointwiseMethods<D>::lcm(const O& other) const {
  return tensorlib::lcm(self(), other);
}
template <class D>
template <Operand O>
auto PointwiseMethods<D>::copysign(const O& other) const {
  return tensorlib::copysign(self(), other);
}
template <class D>
template <Operand O>
auto PointwiseMethods<D>::nextafter(const O& other) const {
  return tensorlib::nextafter(self(), other);
}
template <class D>
template <Expression O>
auto PointwiseMethods<D>::heaviside(const O& values) const {
  return tensorlib::heaviside(self(), values);
}
template <class D>
template <Operand O>
auto PointwiseMethods<D>::bitwise_and(const O& other) const {
  return tensorlib::bitwise_and(self(), other);
}
template <class D>
template <Operand O>
auto PointwiseMethods<D>::bitwise_or(const O& other) const {
  return tensorlib::bitwise_or(self(), other);
}
template <class D>
template <Operand O>
auto PointwiseMethods<D>::bitwise_xor(const O& other) const {
  return tensorlib::bitwise_xor(self(), other);
}
template <class D>
auto PointwiseMethods<D>::logit(std::optional<double> eps) const {
  return tensorlib::logit(self(), eps);
}
template <class D>
template <Operand A, Operand B>
auto PointwiseMethods<D>::lerp(const A& end, const B& weight) const {
  return tensorlib::lerp(self(), end, weight);
}
template <class D>
template <ClampBound Lo, ClampBound Hi>
auto PointwiseMethods<D>::clamp(Lo min, Hi max) const {
  return tensorlib::clamp(self(), min, max);
}
template <class D>
template <ClampBound Lo, ClampBound Hi>
auto PointwiseMethods<D>::clip(Lo min, Hi max) const {
  return tensorlib::clamp(self(), min, max);
}
template <class D>
auto PointwiseMethods<D>::nan_to_num(double nan, std::optional<double> posinf, std::optional<double> neginf) const {
  return tensorlib::nan_to_num(self(), nan, posinf, neginf);
}
template <class D>
template <Expression O>
auto PointwiseMethods<D>::logaddexp(const O& other) const {
  return tensorlib::logaddexp(self(), other);
}
template <class D>
template <Expression O>
auto PointwiseMethods<D>::logaddexp2(const O& other) const {
  return tensorlib::logaddexp2(self(), other);
}
template <class D>
template <Expression O>
auto PointwiseMethods<D>::xlogy(const O& other) const {
  return tensorlib::xlogy(self(), other);
}
template <class D>
template <Expression O>
auto PointwiseMethods<D>::fmax(const O& other) const {
  return tensorlib::fmax(self(), other);
}
template <class D>
template <Expression O>
auto PointwiseMethods<D>::fmin(const O& other) const {
  return tensorlib::fmin(self(), other);
}
template <class D>
template <Expression O>
auto PointwiseMethods<D>::hypot(const O& other) const {
  return tensorlib::hypot(self(), other);
}
template <class D>
template <Expression O>
auto PointwiseMethods<D>::igamma(const O& other) const {
  return tensorlib::igamma(self(), other);
}
template <class D>
template <Expression O>
auto PointwiseMethods<D>::igammac(const O& other) const {
  return tensorlib::igammac(self(), other);
}
template <class D>
template <Operand O>
auto PointwiseMethods<D>::float_power(const O& exponent) const {
  return tensorlib::float_power(self(), exponent);
}
template <class D>
auto PointwiseMethods<D>::deg2rad() const {
  return tensorlib::deg2rad(self());
}
template <class D>
auto PointwiseMethods<D>::rad2deg() const {
  return tensorlib::rad2deg(self());
}
template <class D>
auto PointwiseMethods<D>::sinc() const {
  return tensorlib::sinc(self());
}
template <class D>
template <Expression B, Expression C, Scalar S>
auto PointwiseMethods<D>::addcmul(const B& tensor1, const C& tensor2, S value) const {
  return tensorlib::addcmul(self(), tensor1, tensor2, value);
}
template <class D>
template <Expression B, Expression C, Scalar S>
auto PointwiseMethods<D>::addcdiv(const B& tensor1, const C& tensor2, S value) const {
  return tensorlib::addcdiv(self(), tensor1, tensor2, value);
}
template <class D>
template <Scalar S>
auto PointwiseMethods<D>::clamp_min(S min) const {
  return tensorlib::clamp(self(), min, None);
}
template <class D>
template <Scalar S>
auto PointwiseMethods<D>::clamp_max(S max) const {
  return tensorlib::clamp(self(), None, max);
}
template <class D>
template <Expression C, Operand O>
auto PointwiseMethods<D>::where(const C& condition, const O& other) const {
  return tensorlib::where(condition, self(), other);
}

}  // namespace tensorlib
