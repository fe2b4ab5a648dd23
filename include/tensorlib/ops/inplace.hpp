#pragma once
/// \file
/// In-place pointwise ops (`add_`, `exp_`, `clamp_`, `+=`, ...): each writes an
/// expression of `self()` back into its memory, alias-safely. As in PyTorch,
/// the result type must be castable to the tensor's type: `int_tensor.add_(1.5)`
/// or `int_tensor.exp_()` is rejected (here at compile time).

#include <string_view>
#include <type_traits>

#include "tensorlib/core/dtype.hpp"
#include "tensorlib/core/tensor.hpp"
#include "tensorlib/expr/aliases.hpp"
#include "tensorlib/expr/composites.hpp"
#include "tensorlib/expr/functions.hpp"
#include "tensorlib/expr/promotion.hpp"
#include "tensorlib/ops/dispatch.hpp"
#include "tensorlib/ops/evaluate.hpp"

namespace tensorlib {
namespace detail {

template <Element T, Expression E>
Tensor<T>& write_result_in_place(Tensor<T>& self, const E& result, const char* op) {
  static_assert(can_cast_v<value_type_t<E>, T>,
                "in-place op: the result type cannot be cast to the tensor's element type (e.g. a float result into "
                "an integer tensor); use the out-of-place form");
  write_into(self, result, op);
  return self;
}

}  // namespace detail

// Note [fills of expanded tensors]: PyTorch fills (and zeroes) an expanded
// tensor without its internal-overlap check, since every write of the shared
// element stores the same value; so does this.
template <Element T>
Tensor<T>& InplaceMethods<T>::fill_(T value) {
  if constexpr (differentiable<T> && !is_dual_tag(scalar_type_of<T>)) {
    if (is_grad_enabled() && detail::in_graph(self(), "fill_")) {
      autograd::fill_recorded(self(), value);  // Note [in-place on graph tensors]
      return self();
    }
  }
  detail::begin_inplace(self(), "fill_", false);
  detail::dispatch_fill(self(), value);
  return self();
}

template <Element T>
Tensor<T>& InplaceMethods<T>::zero_() {
  return fill_(T(0));
}

template <Element T>
template <Operand O>
Tensor<T>& InplaceMethods<T>::add_(const O& other, T alpha) {
  if (alpha == T(1)) return detail::write_result_in_place(self(), tensorlib::add(self(), other), "add_");
  return detail::write_result_in_place(self(), tensorlib::add(self(), other, alpha), "add_");
}

template <Element T>
template <Operand O>
Tensor<T>& InplaceMethods<T>::sub_(const O& other, T alpha) {
  if (alpha == T(1)) return detail::write_result_in_place(self(), tensorlib::sub(self(), other), "sub_");
  return detail::write_result_in_place(self(), tensorlib::sub(self(), other, alpha), "sub_");
}

template <Element T>
template <Operand O>
Tensor<T>& InplaceMethods<T>::mul_(const O& other) {
  return detail::write_result_in_place(self(), tensorlib::mul(self(), other), "mul_");
}

template <Element T>
template <Operand O>
Tensor<T>& InplaceMethods<T>::div_(const O& other) {
  return detail::write_result_in_place(self(), tensorlib::div(self(), other), "div_");
}

template <Element T>
template <Operand O>
Tensor<T>& InplaceMethods<T>::div_(const O& other, std::string_view rounding_mode) {
  return detail::write_result_in_place(self(), tensorlib::div(self(), other, rounding_mode), "div_");
}

template <Element T>
template <Operand O>
Tensor<T>& InplaceMethods<T>::floor_divide_(const O& other) {
  return detail::write_result_in_place(self(), tensorlib::floor_divide(self(), other), "floor_divide_");
}

template <Element T>
template <Operand O>
Tensor<T>& InplaceMethods<T>::pow_(const O& other) {
  return detail::write_result_in_place(self(), tensorlib::pow(self(), other), "pow_");
}

template <Element T>
template <Operand O>
Tensor<T>& InplaceMethods<T>::fmod_(const O& other) {
  return detail::write_result_in_place(self(), tensorlib::fmod(self(), other), "fmod_");
}

template <Element T>
template <Operand O>
Tensor<T>& InplaceMethods<T>::remainder_(const O& other) {
  return detail::write_result_in_place(self(), tensorlib::remainder(self(), other), "remainder_");
}

template <Element T>
template <Operand O>
Tensor<T>& InplaceMethods<T>::atan2_(const O& other) {
  return detail::write_result_in_place(self(), tensorlib::atan2(self(), other), "atan2_");
}

template <Element T>
template <Operand O>
Tensor<T>& InplaceMethods<T>::maximum_(const O& other) {
  return detail::write_result_in_place(self(), tensorlib::maximum(self(), other), "maximum_");
}

template <Element T>
template <Operand O>
Tensor<T>& InplaceMethods<T>::minimum_(const O& other) {
  return detail::write_result_in_place(self(), tensorlib::minimum(self(), other), "minimum_");
}

template <Element T>
template <Operand O>
Tensor<T>& InplaceMethods<T>::bitwise_left_shift_(const O& other) {
  return detail::write_result_in_place(self(), tensorlib::bitwise_left_shift(self(), other), "bitwise_left_shift_");
}

template <Element T>
template <Operand O>
Tensor<T>& InplaceMethods<T>::bitwise_right_shift_(const O& other) {
  return detail::write_result_in_place(self(), tensorlib::bitwise_right_shift(self(), other), "bitwise_right_shift_");
}

template <Element T>
template <Operand O>
Tensor<T>& InplaceMethods<T>::gcd_(const O& other) {
  return detail::write_result_in_place(self(), tensorlib::gcd(self(), other), "gcd_");
}

template <Element T>
template <Operand O>
Tensor<T>& InplaceMethods<T>::lcm_(const O& other) {
  return detail::write_result_in_place(self(), tensorlib::lcm(self(), other), "lcm_");
}

template <Element T>
template <Operand O>
Tensor<T>& InplaceMethods<T>::copysign_(const O& other) {
  return detail::write_result_in_place(self(), tensorlib::copysign(self(), other), "copysign_");
}

template <Element T>
template <Operand O>
Tensor<T>& InplaceMethods<T>::nextafter_(const O& other) {
  return detail::write_result_in_place(self(), tensorlib::nextafter(self(), other), "nextafter_");
}

template <Element T>
template <Expression O>
Tensor<T>& InplaceMethods<T>::heaviside_(const O& values) {
  return detail::write_result_in_place(self(), tensorlib::heaviside(self(), values), "heaviside_");
}

template <Element T>
template <Operand O>
Tensor<T>& InplaceMethods<T>::bitwise_and_(const O& other) {
  return detail::write_result_in_place(self(), tensorlib::bitwise_and(self(), other), "bitwise_and_");
}

template <Element T>
template <Operand O>
Tensor<T>& InplaceMethods<T>::bitwise_or_(const O& other) {
  return detail::write_result_in_place(self(), tensorlib::bitwise_or(self(), other), "bitwise_or_");
}

template <Element T>
template <Operand O>
Tensor<T>& InplaceMethods<T>::bitwise_xor_(const O& other) {
  return detail::write_result_in_place(self(), tensorlib::bitwise_xor(self(), other), "bitwise_xor_");
}

template <Element T>
template <Operand O>
Tensor<T>& InplaceMethods<T>::logical_and_(const O& other) {
  return detail::write_result_in_place(self(), tensorlib::logical_and(self(), other), "logical_and_");
}

template <Element T>
template <Operand O>
Tensor<T>& InplaceMethods<T>::logical_or_(const O& other) {
  return detail::write_result_in_place(self(), tensorlib::logical_or(self(), other), "logical_or_");
}

template <Element T>
template <Operand O>
Tensor<T>& InplaceMethods<T>::logical_xor_(const O& other) {
  return detail::write_result_in_place(self(), tensorlib::logical_xor(self(), other), "logical_xor_");
}

template <Element T>
template <Operand A, Operand B>
Tensor<T>& InplaceMethods<T>::lerp_(const A& end, const B& weight) {
  return detail::write_result_in_place(self(), tensorlib::lerp(self(), end, weight), "lerp_");
}

template <Element T>
Tensor<T>& InplaceMethods<T>::nan_to_num_(double nan, std::optional<double> posinf, std::optional<double> neginf) {
  if constexpr (!is_floating<T>)
    return self();
  else
    return detail::write_result_in_place(self(), tensorlib::nan_to_num(self(), nan, posinf, neginf), "nan_to_num_");
}

template <Element T>
template <Expression O>
Tensor<T>& InplaceMethods<T>::xlogy_(const O& other) {
  return detail::write_result_in_place(self(), tensorlib::xlogy(self(), other), "xlogy_");
}

template <Element T>
template <Expression O>
Tensor<T>& InplaceMethods<T>::hypot_(const O& other) {
  return detail::write_result_in_place(self(), tensorlib::hypot(self(), other), "hypot_");
}

template <Element T>
template <Expression O>
Tensor<T>& InplaceMethods<T>::igamma_(const O& other) {
  return detail::write_result_in_place(self(), tensorlib::igamma(self(), other), "igamma_");
}

template <Element T>
template <Expression O>
Tensor<T>& InplaceMethods<T>::igammac_(const O& other) {
  return detail::write_result_in_place(self(), tensorlib::igammac(self(), other), "igammac_");
}

template <Element T>
template <Operand O>
Tensor<T>& InplaceMethods<T>::float_power_(const O& exponent) {
  static_assert(
      std::is_same_v<T, double>,
      "float_power_: the result is double, so the tensor must be double (as in PyTorch); use the out-of-place "
      "form");
  return detail::write_result_in_place(self(), tensorlib::float_power(self(), exponent), "float_power_");
}

template <Element T>
Tensor<T>& InplaceMethods<T>::sinc_() {
  return detail::write_result_in_place(self(), tensorlib::sinc(self()), "sinc_");
}

template <Element T>
Tensor<T>& InplaceMethods<T>::deg2rad_() {
  return detail::write_result_in_place(self(), tensorlib::deg2rad(self()), "deg2rad_");
}

template <Element T>
Tensor<T>& InplaceMethods<T>::rad2deg_() {
  return detail::write_result_in_place(self(), tensorlib::rad2deg(self()), "rad2deg_");
}

template <Element T>
template <Expression B, Expression C, Scalar S>
Tensor<T>& InplaceMethods<T>::addcmul_(const B& tensor1, const C& tensor2, S value) {
  return detail::write_result_in_place(self(), tensorlib::addcmul(self(), tensor1, tensor2, value), "addcmul_");
}

template <Element T>
template <Expression B, Expression C, Scalar S>
Tensor<T>& InplaceMethods<T>::addcdiv_(const B& tensor1, const C& tensor2, S value) {
  return detail::write_result_in_place(self(), tensorlib::addcdiv(self(), tensor1, tensor2, value), "addcdiv_");
}

template <Element T>
template <ClampBound Lo, ClampBound Hi>
Tensor<T>& InplaceMethods<T>::clamp_(Lo min, Hi max) {
  return detail::write_result_in_place(self(), tensorlib::clamp(self(), min, max), "clamp_");
}

template <Element T>
template <Scalar S>
Tensor<T>& InplaceMethods<T>::clamp_min_(S min) {
  return clamp_(min, None);
}

template <Element T>
template <Scalar S>
Tensor<T>& InplaceMethods<T>::clamp_max_(S max) {
  return clamp_(None, max);
}

template <Element T>
template <ClampBound Lo, ClampBound Hi>
Tensor<T>& InplaceMethods<T>::clip_(Lo min, Hi max) {
  return clamp_(min, max);
}

template <Element T>
template <class F>
Tensor<T>& InplaceMethods<T>::apply_(F f) {
  return detail::write_result_in_place(self(), make_map(std::move(f), self()), "apply_");
}

template <Element T>
Tensor<T>& InplaceMethods<T>::abs_() {
  return detail::write_result_in_place(self(), tensorlib::abs(self()), "abs_");
}
template <Element T>
Tensor<T>& InplaceMethods<T>::acos_() {
  return detail::write_result_in_place(self(), tensorlib::acos(self()), "acos_");
}
template <Element T>
Tensor<T>& InplaceMethods<T>::acosh_() {
  return detail::write_result_in_place(self(), tensorlib::acosh(self()), "acosh_");
}
template <Element T>
Tensor<T>& InplaceMethods<T>::asin_() {
  return detail::write_result_in_place(self(), tensorlib::asin(self()), "asin_");
}
template <Element T>
Tensor<T>& InplaceMethods<T>::asinh_() {
  return detail::write_result_in_place(self(), tensorlib::asinh(self()), "asinh_");
}
template <Element T>
Tensor<T>& InplaceMethods<T>::atan_() {
  return detail::write_result_in_place(self(), tensorlib::atan(self()), "atan_");
}
template <Element T>
Tensor<T>& InplaceMethods<T>::atanh_() {
  return detail::write_result_in_place(self(), tensorlib::atanh(self()), "atanh_");
}
template <Element T>
Tensor<T>& InplaceMethods<T>::ceil_() {
  return detail::write_result_in_place(self(), tensorlib::ceil(self()), "ceil_");
}
template <Element T>
Tensor<T>& InplaceMethods<T>::cos_() {
  return detail::write_result_in_place(self(), tensorlib::cos(self()), "cos_");
}
template <Element T>
Tensor<T>& InplaceMethods<T>::cosh_() {
  return detail::write_result_in_place(self(), tensorlib::cosh(self()), "cosh_");
}
template <Element T>
Tensor<T>& InplaceMethods<T>::digamma_() {
  return detail::write_result_in_place(self(), tensorlib::digamma(self()), "digamma_");
}
template <Element T>
Tensor<T>& InplaceMethods<T>::polygamma_(int64_t n) {
  return detail::write_result_in_place(self(), tensorlib::polygamma(n, self()), "polygamma_");
}
template <Element T>
Tensor<T>& InplaceMethods<T>::i0_() {
  return detail::write_result_in_place(self(), tensorlib::i0(self()), "i0_");
}
template <Element T>
Tensor<T>& InplaceMethods<T>::erf_() {
  return detail::write_result_in_place(self(), tensorlib::erf(self()), "erf_");
}
template <Element T>
Tensor<T>& InplaceMethods<T>::erfc_() {
  return detail::write_result_in_place(self(), tensorlib::erfc(self()), "erfc_");
}
template <Element T>
Tensor<T>& InplaceMethods<T>::erfinv_() {
  return detail::write_result_in_place(self(), tensorlib::erfinv(self()), "erfinv_");
}
template <Element T>
Tensor<T>& InplaceMethods<T>::exp_() {
  return detail::write_result_in_place(self(), tensorlib::exp(self()), "exp_");
}
template <Element T>
Tensor<T>& InplaceMethods<T>::exp2_() {
  return detail::write_result_in_place(self(), tensorlib::exp2(self()), "exp2_");
}
template <Element T>
Tensor<T>& InplaceMethods<T>::expm1_() {
  return detail::write_result_in_place(self(), tensorlib::expm1(self()), "expm1_");
}
template <Element T>
Tensor<T>& InplaceMethods<T>::floor_() {
  return detail::write_result_in_place(self(), tensorlib::floor(self()), "floor_");
}
template <Element T>
Tensor<T>& InplaceMethods<T>::frac_() {
  return detail::write_result_in_place(self(), tensorlib::frac(self()), "frac_");
}
template <Element T>
Tensor<T>& InplaceMethods<T>::lgamma_() {
  return detail::write_result_in_place(self(), tensorlib::lgamma(self()), "lgamma_");
}
template <Element T>
Tensor<T>& InplaceMethods<T>::log_() {
  return detail::write_result_in_place(self(), tensorlib::log(self()), "log_");
}
template <Element T>
Tensor<T>& InplaceMethods<T>::log10_() {
  return detail::write_result_in_place(self(), tensorlib::log10(self()), "log10_");
}
template <Element T>
Tensor<T>& InplaceMethods<T>::log1p_() {
  return detail::write_result_in_place(self(), tensorlib::log1p(self()), "log1p_");
}
template <Element T>
Tensor<T>& InplaceMethods<T>::log2_() {
  return detail::write_result_in_place(self(), tensorlib::log2(self()), "log2_");
}
template <Element T>
Tensor<T>& InplaceMethods<T>::neg_() {
  return detail::write_result_in_place(self(), tensorlib::neg(self()), "neg_");
}
template <Element T>
Tensor<T>& InplaceMethods<T>::reciprocal_() {
  return detail::write_result_in_place(self(), tensorlib::reciprocal(self()), "reciprocal_");
}
template <Element T>
Tensor<T>& InplaceMethods<T>::relu_() {
  return detail::write_result_in_place(self(), tensorlib::relu(self()), "relu_");
}
template <Element T>
Tensor<T>& InplaceMethods<T>::round_() {
  return detail::write_result_in_place(self(), tensorlib::round(self()), "round_");
}
template <Element T>
Tensor<T>& InplaceMethods<T>::rsqrt_() {
  return detail::write_result_in_place(self(), tensorlib::rsqrt(self()), "rsqrt_");
}
template <Element T>
Tensor<T>& InplaceMethods<T>::sigmoid_() {
  return detail::write_result_in_place(self(), tensorlib::sigmoid(self()), "sigmoid_");
}
template <Element T>
Tensor<T>& InplaceMethods<T>::sign_() {
  return detail::write_result_in_place(self(), tensorlib::sign(self()), "sign_");
}
template <Element T>
Tensor<T>& InplaceMethods<T>::sin_() {
  return detail::write_result_in_place(self(), tensorlib::sin(self()), "sin_");
}
template <Element T>
Tensor<T>& InplaceMethods<T>::sinh_() {
  return detail::write_result_in_place(self(), tensorlib::sinh(self()), "sinh_");
}
template <Element T>
Tensor<T>& InplaceMethods<T>::sqrt_() {
  return detail::write_result_in_place(self(), tensorlib::sqrt(self()), "sqrt_");
}
template <Element T>
Tensor<T>& InplaceMethods<T>::square_() {
  return detail::write_result_in_place(self(), tensorlib::square(self()), "square_");
}
template <Element T>
Tensor<T>& InplaceMethods<T>::tan_() {
  return detail::write_result_in_place(self(), tensorlib::tan(self()), "tan_");
}
template <Element T>
Tensor<T>& InplaceMethods<T>::tanh_() {
  return detail::write_result_in_place(self(), tensorlib::tanh(self()), "tanh_");
}
template <Element T>
Tensor<T>& InplaceMethods<T>::trunc_() {
  return detail::write_result_in_place(self(), tensorlib::trunc(self()), "trunc_");
}

template <Element T>
Tensor<T>& InplaceMethods<T>::bitwise_not_() {
  return detail::write_result_in_place(self(), tensorlib::bitwise_not(self()).template to<T>(), "bitwise_not_");
}

template <Element T>
Tensor<T>& InplaceMethods<T>::logical_not_() {
  return detail::write_result_in_place(self(), tensorlib::logical_not(self()).template to<T>(), "logical_not_");
}

template <Element T>
Tensor<T>& InplaceMethods<T>::logit_(std::optional<double> eps) {
  return detail::write_result_in_place(self(), tensorlib::logit(self(), eps), "logit_");
}

template <Element T>
template <Expression O>
Tensor<T>& InplaceMethods<T>::ldexp_(const O& other) {
  return detail::write_result_in_place(self(), tensorlib::ldexp(self(), other), "ldexp_");
}

/// x = threshold(x, threshold, value), in place (`torch.threshold_`).
template <Element T, Scalar S, Scalar V>
Tensor<T>& threshold_(Tensor<T>& self, S threshold, V value) {
  return detail::write_result_in_place(self, tensorlib::threshold(self, threshold, value), "threshold_");
}

// The comparisons write bool into T, which every type accepts (PyTorch's
// canCast): 1 where the relation holds, 0 elsewhere. Their gradient is 0.
template <Element T>
template <Operand O>
Tensor<T>& InplaceMethods<T>::eq_(const O& other) {
  return detail::write_result_in_place(self(), tensorlib::eq(self(), other).template to<T>(), "eq_");
}
template <Element T>
template <Operand O>
Tensor<T>& InplaceMethods<T>::ne_(const O& other) {
  return detail::write_result_in_place(self(), tensorlib::ne(self(), other).template to<T>(), "ne_");
}
template <Element T>
template <Operand O>
Tensor<T>& InplaceMethods<T>::lt_(const O& other) {
  return detail::write_result_in_place(self(), tensorlib::lt(self(), other).template to<T>(), "lt_");
}
template <Element T>
template <Operand O>
Tensor<T>& InplaceMethods<T>::le_(const O& other) {
  return detail::write_result_in_place(self(), tensorlib::le(self(), other).template to<T>(), "le_");
}
template <Element T>
template <Operand O>
Tensor<T>& InplaceMethods<T>::gt_(const O& other) {
  return detail::write_result_in_place(self(), tensorlib::gt(self(), other).template to<T>(), "gt_");
}
template <Element T>
template <Operand O>
Tensor<T>& InplaceMethods<T>::ge_(const O& other) {
  return detail::write_result_in_place(self(), tensorlib::ge(self(), other).template to<T>(), "ge_");
}

}  // namespace tensorlib
