#pragma once
/// \file
/// In-place pointwise ops (`add_`, `exp_`, `clamp_`, `+=`, ...): each writes an
/// expression of `*this` back into its memory, alias-safely. As in PyTorch,
/// the result type must be castable to the tensor's type: `int_tensor.add_(1.5)`
/// or `int_tensor.exp_()` is rejected (here at compile time).

#include <type_traits>

#include "tensorlib/core/dtype.hpp"
#include "tensorlib/core/tensor.hpp"
#include "tensorlib/expr/composites.hpp"
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
Tensor<T>& write_result_in_place(Tensor<T>& self, const E& result, const char* op) {
  static_assert(can_cast<value_type_t<E>, T>,
                "in-place op: the result type cannot be cast to the tensor's element type (e.g. a float result into "
                "an integer tensor); use the out-of-place form");
  write_into(self, result, op);
  return self;
}

}  // namespace detail

template <Element T>
Tensor<T>& Tensor<T>::fill_(T value) {
  detail::check_no_internal_overlap(*this, "fill_");
  if constexpr (differentiable<T> && !is_dual_tag(scalar_type_of<T>)) {
    if (is_grad_enabled() && detail::in_graph(*this)) {
      autograd::fill_recorded(*this, value);  // Note [in-place on graph tensors]
      return *this;
    }
  }
  detail::begin_inplace(*this, "fill_", false);
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
  if (alpha == T(1)) return detail::write_result_in_place(*this, tensorlib::add(*this, other), "add_");
  return detail::write_result_in_place(*this, tensorlib::add(*this, other, alpha), "add_");
}

template <Element T>
template <Operand O>
Tensor<T>& Tensor<T>::sub_(const O& other, T alpha) {
  if (alpha == T(1)) return detail::write_result_in_place(*this, tensorlib::sub(*this, other), "sub_");
  return detail::write_result_in_place(*this, tensorlib::sub(*this, other, alpha), "sub_");
}

template <Element T>
template <Operand O>
Tensor<T>& Tensor<T>::mul_(const O& other) {
  return detail::write_result_in_place(*this, tensorlib::mul(*this, other), "mul_");
}

template <Element T>
template <Operand O>
Tensor<T>& Tensor<T>::div_(const O& other) {
  return detail::write_result_in_place(*this, tensorlib::div(*this, other), "div_");
}

template <Element T>
template <Operand O>
Tensor<T>& Tensor<T>::pow_(const O& other) {
  return detail::write_result_in_place(*this, tensorlib::pow(*this, other), "pow_");
}

template <Element T>
template <Operand O>
Tensor<T>& Tensor<T>::fmod_(const O& other) {
  return detail::write_result_in_place(*this, tensorlib::fmod(*this, other), "fmod_");
}

template <Element T>
template <Operand O>
Tensor<T>& Tensor<T>::remainder_(const O& other) {
  return detail::write_result_in_place(*this, tensorlib::remainder(*this, other), "remainder_");
}

template <Element T>
template <Operand O>
Tensor<T>& Tensor<T>::atan2_(const O& other) {
  return detail::write_result_in_place(*this, tensorlib::atan2(*this, other), "atan2_");
}

template <Element T>
template <Operand O>
Tensor<T>& Tensor<T>::maximum_(const O& other) {
  return detail::write_result_in_place(*this, tensorlib::maximum(*this, other), "maximum_");
}

template <Element T>
template <Operand O>
Tensor<T>& Tensor<T>::minimum_(const O& other) {
  return detail::write_result_in_place(*this, tensorlib::minimum(*this, other), "minimum_");
}

template <Element T>
template <Operand O>
Tensor<T>& Tensor<T>::bitwise_and_(const O& other) {
  return detail::write_result_in_place(*this, tensorlib::bitwise_and(*this, other), "bitwise_and_");
}

template <Element T>
template <Operand O>
Tensor<T>& Tensor<T>::bitwise_or_(const O& other) {
  return detail::write_result_in_place(*this, tensorlib::bitwise_or(*this, other), "bitwise_or_");
}

template <Element T>
template <Operand O>
Tensor<T>& Tensor<T>::bitwise_xor_(const O& other) {
  return detail::write_result_in_place(*this, tensorlib::bitwise_xor(*this, other), "bitwise_xor_");
}

template <Element T>
template <Operand O>
Tensor<T>& Tensor<T>::logical_and_(const O& other) {
  return detail::write_result_in_place(*this, tensorlib::logical_and(*this, other), "logical_and_");
}

template <Element T>
template <Operand O>
Tensor<T>& Tensor<T>::logical_or_(const O& other) {
  return detail::write_result_in_place(*this, tensorlib::logical_or(*this, other), "logical_or_");
}

template <Element T>
template <Operand O>
Tensor<T>& Tensor<T>::logical_xor_(const O& other) {
  return detail::write_result_in_place(*this, tensorlib::logical_xor(*this, other), "logical_xor_");
}

template <Element T>
template <Operand A, Operand B>
Tensor<T>& Tensor<T>::lerp_(const A& end, const B& weight) {
  return detail::write_result_in_place(*this, tensorlib::lerp(*this, end, weight), "lerp_");
}

template <Element T>
Tensor<T>& Tensor<T>::nan_to_num_(double nan, std::optional<double> posinf, std::optional<double> neginf) {
  if constexpr (!is_floating<T>)
    return *this;
  else
    return detail::write_result_in_place(*this, tensorlib::nan_to_num(*this, nan, posinf, neginf), "nan_to_num_");
}

template <Element T>
template <Expression O>
Tensor<T>& Tensor<T>::xlogy_(const O& other) {
  return detail::write_result_in_place(*this, tensorlib::xlogy(*this, other), "xlogy_");
}

template <Element T>
template <Expression B, Expression C, Scalar S>
Tensor<T>& Tensor<T>::addcmul_(const B& tensor1, const C& tensor2, S value) {
  return detail::write_result_in_place(*this, tensorlib::addcmul(*this, tensor1, tensor2, value), "addcmul_");
}

template <Element T>
template <Expression B, Expression C, Scalar S>
Tensor<T>& Tensor<T>::addcdiv_(const B& tensor1, const C& tensor2, S value) {
  return detail::write_result_in_place(*this, tensorlib::addcdiv(*this, tensor1, tensor2, value), "addcdiv_");
}

template <Element T>
template <ClampBound Lo, ClampBound Hi>
Tensor<T>& Tensor<T>::clamp_(Lo min, Hi max) {
  return detail::write_result_in_place(*this, tensorlib::clamp(*this, min, max), "clamp_");
}

template <Element T>
template <Scalar S>
Tensor<T>& Tensor<T>::clamp_min_(S min) {
  return clamp_(min, None);
}

template <Element T>
template <Scalar S>
Tensor<T>& Tensor<T>::clamp_max_(S max) {
  return clamp_(None, max);
}

template <Element T>
template <ClampBound Lo, ClampBound Hi>
Tensor<T>& Tensor<T>::clip_(Lo min, Hi max) {
  return clamp_(min, max);
}

template <Element T>
template <class F>
Tensor<T>& Tensor<T>::apply_(F f) {
  return detail::write_result_in_place(*this, make_map(std::move(f), *this), "apply_");
}

template <Element T>
Tensor<T>& Tensor<T>::abs_() {
  return detail::write_result_in_place(*this, tensorlib::abs(*this), "abs_");
}
template <Element T>
Tensor<T>& Tensor<T>::acos_() {
  return detail::write_result_in_place(*this, tensorlib::acos(*this), "acos_");
}
template <Element T>
Tensor<T>& Tensor<T>::acosh_() {
  return detail::write_result_in_place(*this, tensorlib::acosh(*this), "acosh_");
}
template <Element T>
Tensor<T>& Tensor<T>::asin_() {
  return detail::write_result_in_place(*this, tensorlib::asin(*this), "asin_");
}
template <Element T>
Tensor<T>& Tensor<T>::asinh_() {
  return detail::write_result_in_place(*this, tensorlib::asinh(*this), "asinh_");
}
template <Element T>
Tensor<T>& Tensor<T>::atan_() {
  return detail::write_result_in_place(*this, tensorlib::atan(*this), "atan_");
}
template <Element T>
Tensor<T>& Tensor<T>::atanh_() {
  return detail::write_result_in_place(*this, tensorlib::atanh(*this), "atanh_");
}
template <Element T>
Tensor<T>& Tensor<T>::ceil_() {
  return detail::write_result_in_place(*this, tensorlib::ceil(*this), "ceil_");
}
template <Element T>
Tensor<T>& Tensor<T>::cos_() {
  return detail::write_result_in_place(*this, tensorlib::cos(*this), "cos_");
}
template <Element T>
Tensor<T>& Tensor<T>::cosh_() {
  return detail::write_result_in_place(*this, tensorlib::cosh(*this), "cosh_");
}
template <Element T>
Tensor<T>& Tensor<T>::digamma_() {
  return detail::write_result_in_place(*this, tensorlib::digamma(*this), "digamma_");
}
template <Element T>
Tensor<T>& Tensor<T>::erf_() {
  return detail::write_result_in_place(*this, tensorlib::erf(*this), "erf_");
}
template <Element T>
Tensor<T>& Tensor<T>::erfc_() {
  return detail::write_result_in_place(*this, tensorlib::erfc(*this), "erfc_");
}
template <Element T>
Tensor<T>& Tensor<T>::erfinv_() {
  return detail::write_result_in_place(*this, tensorlib::erfinv(*this), "erfinv_");
}
template <Element T>
Tensor<T>& Tensor<T>::exp_() {
  return detail::write_result_in_place(*this, tensorlib::exp(*this), "exp_");
}
template <Element T>
Tensor<T>& Tensor<T>::exp2_() {
  return detail::write_result_in_place(*this, tensorlib::exp2(*this), "exp2_");
}
template <Element T>
Tensor<T>& Tensor<T>::expm1_() {
  return detail::write_result_in_place(*this, tensorlib::expm1(*this), "expm1_");
}
template <Element T>
Tensor<T>& Tensor<T>::floor_() {
  return detail::write_result_in_place(*this, tensorlib::floor(*this), "floor_");
}
template <Element T>
Tensor<T>& Tensor<T>::frac_() {
  return detail::write_result_in_place(*this, tensorlib::frac(*this), "frac_");
}
template <Element T>
Tensor<T>& Tensor<T>::lgamma_() {
  return detail::write_result_in_place(*this, tensorlib::lgamma(*this), "lgamma_");
}
template <Element T>
Tensor<T>& Tensor<T>::log_() {
  return detail::write_result_in_place(*this, tensorlib::log(*this), "log_");
}
template <Element T>
Tensor<T>& Tensor<T>::log10_() {
  return detail::write_result_in_place(*this, tensorlib::log10(*this), "log10_");
}
template <Element T>
Tensor<T>& Tensor<T>::log1p_() {
  return detail::write_result_in_place(*this, tensorlib::log1p(*this), "log1p_");
}
template <Element T>
Tensor<T>& Tensor<T>::log2_() {
  return detail::write_result_in_place(*this, tensorlib::log2(*this), "log2_");
}
template <Element T>
Tensor<T>& Tensor<T>::neg_() {
  return detail::write_result_in_place(*this, tensorlib::neg(*this), "neg_");
}
template <Element T>
Tensor<T>& Tensor<T>::reciprocal_() {
  return detail::write_result_in_place(*this, tensorlib::reciprocal(*this), "reciprocal_");
}
template <Element T>
Tensor<T>& Tensor<T>::relu_() {
  return detail::write_result_in_place(*this, tensorlib::relu(*this), "relu_");
}
template <Element T>
Tensor<T>& Tensor<T>::round_() {
  return detail::write_result_in_place(*this, tensorlib::round(*this), "round_");
}
template <Element T>
Tensor<T>& Tensor<T>::rsqrt_() {
  return detail::write_result_in_place(*this, tensorlib::rsqrt(*this), "rsqrt_");
}
template <Element T>
Tensor<T>& Tensor<T>::sigmoid_() {
  return detail::write_result_in_place(*this, tensorlib::sigmoid(*this), "sigmoid_");
}
template <Element T>
Tensor<T>& Tensor<T>::sign_() {
  return detail::write_result_in_place(*this, tensorlib::sign(*this), "sign_");
}
template <Element T>
Tensor<T>& Tensor<T>::sin_() {
  return detail::write_result_in_place(*this, tensorlib::sin(*this), "sin_");
}
template <Element T>
Tensor<T>& Tensor<T>::sinh_() {
  return detail::write_result_in_place(*this, tensorlib::sinh(*this), "sinh_");
}
template <Element T>
Tensor<T>& Tensor<T>::sqrt_() {
  return detail::write_result_in_place(*this, tensorlib::sqrt(*this), "sqrt_");
}
template <Element T>
Tensor<T>& Tensor<T>::square_() {
  return detail::write_result_in_place(*this, tensorlib::square(*this), "square_");
}
template <Element T>
Tensor<T>& Tensor<T>::tan_() {
  return detail::write_result_in_place(*this, tensorlib::tan(*this), "tan_");
}
template <Element T>
Tensor<T>& Tensor<T>::tanh_() {
  return detail::write_result_in_place(*this, tensorlib::tanh(*this), "tanh_");
}
template <Element T>
Tensor<T>& Tensor<T>::trunc_() {
  return detail::write_result_in_place(*this, tensorlib::trunc(*this), "trunc_");
}

template <Element T>
Tensor<T>& Tensor<T>::bitwise_not_() {
  return detail::write_result_in_place(*this, tensorlib::bitwise_not(*this).template to<T>(), "bitwise_not_");
}

template <Element T>
Tensor<T>& Tensor<T>::logical_not_() {
  return detail::write_result_in_place(*this, tensorlib::logical_not(*this).template to<T>(), "logical_not_");
}

}  // namespace tensorlib
