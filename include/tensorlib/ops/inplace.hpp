#pragma once
/// \file
/// In-place pointwise ops (`add_`, `exp_`, `clamp_`, `+=`, ...): each writes an
/// expression of `*this` back into its memory, alias-safely. As in PyTorch,
/// the result type must be castable to the tensor's type: `int_tensor.add_(1.5)`
/// or `int_tensor.exp_()` is rejected (here at compile time).

#include <type_traits>

#include "tensorlib/core/dtype.hpp"
#include "tensorlib/core/tensor.hpp"
#include "tensorlib/expr/functions.hpp"
#include "tensorlib/ops/dispatch.hpp"
#include "tensorlib/ops/evaluate.hpp"

namespace tensorlib {
namespace detail {

/// PyTorch's canCast: no floating -> integral, no non-bool -> bool.
template <Element From, Element To>
inline constexpr bool can_cast =
    !(is_floating<From> && !is_floating<To>)&&!(std::is_same_v<To, bool> && !std::is_same_v<From, bool>);

template <Element T, Expression E>
Tensor<T>& write_result_in_place(Tensor<T>& self, const E& result) {
  static_assert(can_cast<value_type_t<E>, T>,
                "in-place op: the result type cannot be cast to the tensor's element type (e.g. a float result into "
                "an integer tensor); use the out-of-place form");
  write_into(self, result, "in-place op");
  return self;
}

}  // namespace detail

template <Element T>
Tensor<T>& Tensor<T>::fill_(T value) {
  detail::dispatch_fill(*this, value);
  return *this;
}

template <Element T>
Tensor<T>& Tensor<T>::zero_() {
  return fill_(T(0));
}

template <Element T>
template <Operand O>
Tensor<T>& Tensor<T>::add_(const O& other, T alpha) {
  if (alpha == T(1)) return detail::write_result_in_place(*this, tensorlib::add(*this, other));
  return detail::write_result_in_place(*this, tensorlib::add(*this, other, alpha));
}

template <Element T>
template <Operand O>
Tensor<T>& Tensor<T>::sub_(const O& other, T alpha) {
  if (alpha == T(1)) return detail::write_result_in_place(*this, tensorlib::sub(*this, other));
  return detail::write_result_in_place(*this, tensorlib::sub(*this, other, alpha));
}

template <Element T>
template <Operand O>
Tensor<T>& Tensor<T>::mul_(const O& other) {
  return detail::write_result_in_place(*this, tensorlib::mul(*this, other));
}

template <Element T>
template <Operand O>
Tensor<T>& Tensor<T>::div_(const O& other) {
  return detail::write_result_in_place(*this, tensorlib::div(*this, other));
}

template <Element T>
template <Operand O>
Tensor<T>& Tensor<T>::pow_(const O& exponent) {
  return detail::write_result_in_place(*this, tensorlib::pow(*this, exponent));
}

template <Element T>
template <ClampBound Lo, ClampBound Hi>
Tensor<T>& Tensor<T>::clamp_(Lo min, Hi max) {
  return detail::write_result_in_place(*this, tensorlib::clamp(*this, min, max));
}

template <Element T>
template <class F>
Tensor<T>& Tensor<T>::apply_(F f) {
  return detail::write_result_in_place(*this, make_map(std::move(f), *this));
}

template <Element T>
Tensor<T>& Tensor<T>::abs_() {
  return detail::write_result_in_place(*this, tensorlib::abs(*this));
}
template <Element T>
Tensor<T>& Tensor<T>::acos_() {
  return detail::write_result_in_place(*this, tensorlib::acos(*this));
}
template <Element T>
Tensor<T>& Tensor<T>::asin_() {
  return detail::write_result_in_place(*this, tensorlib::asin(*this));
}
template <Element T>
Tensor<T>& Tensor<T>::atan_() {
  return detail::write_result_in_place(*this, tensorlib::atan(*this));
}
template <Element T>
Tensor<T>& Tensor<T>::ceil_() {
  return detail::write_result_in_place(*this, tensorlib::ceil(*this));
}
template <Element T>
Tensor<T>& Tensor<T>::cos_() {
  return detail::write_result_in_place(*this, tensorlib::cos(*this));
}
template <Element T>
Tensor<T>& Tensor<T>::cosh_() {
  return detail::write_result_in_place(*this, tensorlib::cosh(*this));
}
template <Element T>
Tensor<T>& Tensor<T>::digamma_() {
  return detail::write_result_in_place(*this, tensorlib::digamma(*this));
}
template <Element T>
Tensor<T>& Tensor<T>::erf_() {
  return detail::write_result_in_place(*this, tensorlib::erf(*this));
}
template <Element T>
Tensor<T>& Tensor<T>::erfc_() {
  return detail::write_result_in_place(*this, tensorlib::erfc(*this));
}
template <Element T>
Tensor<T>& Tensor<T>::erfinv_() {
  return detail::write_result_in_place(*this, tensorlib::erfinv(*this));
}
template <Element T>
Tensor<T>& Tensor<T>::exp_() {
  return detail::write_result_in_place(*this, tensorlib::exp(*this));
}
template <Element T>
Tensor<T>& Tensor<T>::exp2_() {
  return detail::write_result_in_place(*this, tensorlib::exp2(*this));
}
template <Element T>
Tensor<T>& Tensor<T>::expm1_() {
  return detail::write_result_in_place(*this, tensorlib::expm1(*this));
}
template <Element T>
Tensor<T>& Tensor<T>::floor_() {
  return detail::write_result_in_place(*this, tensorlib::floor(*this));
}
template <Element T>
Tensor<T>& Tensor<T>::frac_() {
  return detail::write_result_in_place(*this, tensorlib::frac(*this));
}
template <Element T>
Tensor<T>& Tensor<T>::lgamma_() {
  return detail::write_result_in_place(*this, tensorlib::lgamma(*this));
}
template <Element T>
Tensor<T>& Tensor<T>::log_() {
  return detail::write_result_in_place(*this, tensorlib::log(*this));
}
template <Element T>
Tensor<T>& Tensor<T>::log10_() {
  return detail::write_result_in_place(*this, tensorlib::log10(*this));
}
template <Element T>
Tensor<T>& Tensor<T>::log1p_() {
  return detail::write_result_in_place(*this, tensorlib::log1p(*this));
}
template <Element T>
Tensor<T>& Tensor<T>::log2_() {
  return detail::write_result_in_place(*this, tensorlib::log2(*this));
}
template <Element T>
Tensor<T>& Tensor<T>::neg_() {
  return detail::write_result_in_place(*this, tensorlib::neg(*this));
}
template <Element T>
Tensor<T>& Tensor<T>::reciprocal_() {
  return detail::write_result_in_place(*this, tensorlib::reciprocal(*this));
}
template <Element T>
Tensor<T>& Tensor<T>::relu_() {
  return detail::write_result_in_place(*this, tensorlib::relu(*this));
}
template <Element T>
Tensor<T>& Tensor<T>::round_() {
  return detail::write_result_in_place(*this, tensorlib::round(*this));
}
template <Element T>
Tensor<T>& Tensor<T>::rsqrt_() {
  return detail::write_result_in_place(*this, tensorlib::rsqrt(*this));
}
template <Element T>
Tensor<T>& Tensor<T>::sigmoid_() {
  return detail::write_result_in_place(*this, tensorlib::sigmoid(*this));
}
template <Element T>
Tensor<T>& Tensor<T>::sign_() {
  return detail::write_result_in_place(*this, tensorlib::sign(*this));
}
template <Element T>
Tensor<T>& Tensor<T>::sin_() {
  return detail::write_result_in_place(*this, tensorlib::sin(*this));
}
template <Element T>
Tensor<T>& Tensor<T>::sinh_() {
  return detail::write_result_in_place(*this, tensorlib::sinh(*this));
}
template <Element T>
Tensor<T>& Tensor<T>::sqrt_() {
  return detail::write_result_in_place(*this, tensorlib::sqrt(*this));
}
template <Element T>
Tensor<T>& Tensor<T>::square_() {
  return detail::write_result_in_place(*this, tensorlib::square(*this));
}
template <Element T>
Tensor<T>& Tensor<T>::tan_() {
  return detail::write_result_in_place(*this, tensorlib::tan(*this));
}
template <Element T>
Tensor<T>& Tensor<T>::tanh_() {
  return detail::write_result_in_place(*this, tensorlib::tanh(*this));
}
template <Element T>
Tensor<T>& Tensor<T>::trunc_() {
  return detail::write_result_in_place(*this, tensorlib::trunc(*this));
}

}  // namespace tensorlib
