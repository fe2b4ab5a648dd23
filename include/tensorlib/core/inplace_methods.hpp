#pragma once
/// \file
/// `InplaceMethods<T>`: the in-place pointwise methods of `Tensor<T>`
/// (`add_`, `exp_`, `clamp_`, `+=`, ...), declared here and defined in
/// ops/inplace.hpp. A base class of Tensor<T>, so that the tensor's own
/// header stays the size of its accessors and views; each method writes an
/// expression of the tensor back into its memory, alias-safely. The result
/// type must be castable to T, as in PyTorch (Note [assignment semantics] in
/// core/tensor.hpp).

#include <cstdint>
#include <optional>
#include <string_view>

#include "tensorlib/core/dtype.hpp"
#include "tensorlib/core/expression.hpp"
#include "tensorlib/core/pointwise_methods.hpp"

namespace tensorlib {

template <Element T>
class Tensor;

template <Element T>
class InplaceMethods {
 public:
  /// Sets every element to `value`.
  Tensor<T>& fill_(T value);
  /// Sets every element to 0.
  Tensor<T>& zero_();
  /// Sets the main diagonal (i, i, ..., i) to `value`; with `wrap`, a tall
  /// matrix's diagonal restarts every cols + 1 rows (ops/triangular.hpp).
  Tensor<T>& fill_diagonal_(T value, bool wrap = false);
  /// x += alpha * other.
  template <Operand O>
  Tensor<T>& add_(const O& other, T alpha = T(1));
  /// x -= alpha * other.
  template <Operand O>
  Tensor<T>& sub_(const O& other, T alpha = T(1));
  /// x = x * other.
  template <Operand O>
  Tensor<T>& mul_(const O& other);
  /// x = x / other.
  template <Operand O>
  Tensor<T>& div_(const O& other);
  /// x = div(x, other, rounding_mode), x = x // other.
  template <Operand O>
  Tensor<T>& div_(const O& other, std::string_view rounding_mode);
  template <Operand O>
  Tensor<T>& floor_divide_(const O& other);
  /// x = x raised to exponent.
  template <Operand O>
  Tensor<T>& pow_(const O& other);
  /// x = C's fmod.
  template <Operand O>
  Tensor<T>& fmod_(const O& other);
  /// x = Python's modulus.
  template <Operand O>
  Tensor<T>& remainder_(const O& other);
  /// x = atan2(x, other).
  template <Operand O>
  Tensor<T>& atan2_(const O& other);
  /// x = maximum(x, other).
  template <Operand O>
  Tensor<T>& maximum_(const O& other);
  /// x = minimum(x, other).
  template <Operand O>
  Tensor<T>& minimum_(const O& other);
  /// x = x & other.
  template <Operand O>
  Tensor<T>& bitwise_and_(const O& other);
  /// x = x | other.
  template <Operand O>
  Tensor<T>& bitwise_or_(const O& other);
  /// x = x ^ other.
  template <Operand O>
  Tensor<T>& bitwise_xor_(const O& other);
  /// x = x << other, x = x >> other.
  template <Operand O>
  Tensor<T>& bitwise_left_shift_(const O& other);
  template <Operand O>
  Tensor<T>& bitwise_right_shift_(const O& other);
  /// x = gcd(x, other), x = lcm(x, other).
  template <Operand O>
  Tensor<T>& gcd_(const O& other);
  template <Operand O>
  Tensor<T>& lcm_(const O& other);
  /// x = copysign(x, other), x = nextafter(x, other).
  template <Operand O>
  Tensor<T>& copysign_(const O& other);
  template <Operand O>
  Tensor<T>& nextafter_(const O& other);
  /// x = heaviside(x, values).
  template <Expression O>
  Tensor<T>& heaviside_(const O& values);
  /// x = x && other (as 0/1).
  template <Operand O>
  Tensor<T>& logical_and_(const O& other);
  /// x = x || other (as 0/1).
  template <Operand O>
  Tensor<T>& logical_or_(const O& other);
  /// x = x xor other (as 0/1).
  template <Operand O>
  Tensor<T>& logical_xor_(const O& other);
  /// x = lerp(x, end, weight).
  template <Operand A, Operand B>
  Tensor<T>& lerp_(const A& end, const B& weight);
  /// NaN and infinities replaced in place (see tl::nan_to_num).
  Tensor<T>& nan_to_num_(double nan = 0.0, std::optional<double> posinf = std::nullopt,
                         std::optional<double> neginf = std::nullopt);
  /// x = x * log(other), 0 where x is 0.
  template <Expression O>
  Tensor<T>& xlogy_(const O& other);
  /// x = hypot(x, other).
  template <Expression O>
  Tensor<T>& hypot_(const O& other);
  /// x = igamma(x, other).
  template <Expression O>
  Tensor<T>& igamma_(const O& other);
  /// x = igammac(x, other).
  template <Expression O>
  Tensor<T>& igammac_(const O& other);
  /// x = x ** exponent in double; double tensors only, as in PyTorch.
  template <Operand O>
  Tensor<T>& float_power_(const O& exponent);
  /// x = sin(pi x) / (pi x).
  Tensor<T>& sinc_();
  /// Degrees to radians and back in place.
  Tensor<T>& deg2rad_();
  Tensor<T>& rad2deg_();
  /// x = x + value * tensor1 * tensor2.
  template <Expression B, Expression C, Scalar S = int64_t>
  Tensor<T>& addcmul_(const B& tensor1, const C& tensor2, S value = 1);
  /// x = x + value * tensor1 / tensor2.
  template <Expression B, Expression C, Scalar S = int64_t>
  Tensor<T>& addcdiv_(const B& tensor1, const C& tensor2, S value = 1);
  template <Operand O>
  Tensor<T>& operator+=(const O& other) {
    return add_(other);
  }
  template <Operand O>
  Tensor<T>& operator-=(const O& other) {
    return sub_(other);
  }
  template <Operand O>
  Tensor<T>& operator*=(const O& other) {
    return mul_(other);
  }
  template <Operand O>
  Tensor<T>& operator/=(const O& other) {
    return div_(other);
  }
  template <Operand O>
  Tensor<T>& operator&=(const O& other) {
    return bitwise_and_(other);
  }
  template <Operand O>
  Tensor<T>& operator|=(const O& other) {
    return bitwise_or_(other);
  }
  template <Operand O>
  Tensor<T>& operator^=(const O& other) {
    return bitwise_xor_(other);
  }
  /// Clamps in place; either bound may be `tl::None`.
  template <ClampBound Lo, ClampBound Hi = NoneType>
  Tensor<T>& clamp_(Lo min, Hi max = None);
  /// clamp_(min, None).
  template <Scalar S>
  Tensor<T>& clamp_min_(S min);
  /// clamp_(None, max).
  template <Scalar S>
  Tensor<T>& clamp_max_(S max);
  /// Alias of clamp_.
  template <ClampBound Lo, ClampBound Hi = NoneType>
  Tensor<T>& clip_(Lo min, Hi max = None);
  /// Applies a pointwise functor in place: `x.apply_(fn::Exp{})`.
  template <class F>
  Tensor<T>& apply_(F f);

  // The unary functions in place: x = f(x).
  Tensor<T>& abs_();
  Tensor<T>& acos_();
  Tensor<T>& acosh_();
  Tensor<T>& asin_();
  Tensor<T>& asinh_();
  Tensor<T>& atan_();
  Tensor<T>& atanh_();
  Tensor<T>& ceil_();
  Tensor<T>& cos_();
  Tensor<T>& cosh_();
  Tensor<T>& digamma_();
  Tensor<T>& polygamma_(int64_t n);
  /// `mvlgamma(p)` in place (ops/mvlgamma.hpp).
  Tensor<T>& mvlgamma_(int64_t p);
  Tensor<T>& i0_();
  Tensor<T>& erf_();
  Tensor<T>& erfc_();
  Tensor<T>& erfinv_();
  Tensor<T>& exp_();
  Tensor<T>& exp2_();
  Tensor<T>& expm1_();
  Tensor<T>& floor_();
  Tensor<T>& frac_();
  Tensor<T>& lgamma_();
  Tensor<T>& log_();
  Tensor<T>& log10_();
  Tensor<T>& log1p_();
  Tensor<T>& log2_();
  Tensor<T>& neg_();
  Tensor<T>& reciprocal_();
  Tensor<T>& relu_();
  Tensor<T>& round_();
  Tensor<T>& rsqrt_();
  Tensor<T>& sigmoid_();
  Tensor<T>& sign_();
  Tensor<T>& sin_();
  Tensor<T>& sinh_();
  Tensor<T>& sqrt_();
  Tensor<T>& square_();
  Tensor<T>& tan_();
  Tensor<T>& tanh_();
  Tensor<T>& trunc_();
  Tensor<T>& bitwise_not_();
  Tensor<T>& logical_not_();
  /// x = logit(x, eps).
  Tensor<T>& logit_(std::optional<double> eps = std::nullopt);
  /// x = x * 2^other.
  template <Expression O>
  Tensor<T>& ldexp_(const O& other);
  /// x = (x == other) as 1 and 0 of the tensor's type; `other` broadcasts to x.
  template <Operand O>
  Tensor<T>& eq_(const O& other);
  /// x = (x != other) as 1 and 0.
  template <Operand O>
  Tensor<T>& ne_(const O& other);
  /// x = (x < other) as 1 and 0.
  template <Operand O>
  Tensor<T>& lt_(const O& other);
  /// x = (x <= other) as 1 and 0.
  template <Operand O>
  Tensor<T>& le_(const O& other);
  /// x = (x > other) as 1 and 0.
  template <Operand O>
  Tensor<T>& gt_(const O& other);
  /// x = (x >= other) as 1 and 0.
  template <Operand O>
  Tensor<T>& ge_(const O& other);

  /// PyTorch's other names (expr/aliases.hpp): each is the method it names.
  Tensor<T>& absolute_() { return abs_(); }
  Tensor<T>& arccos_() { return acos_(); }
  Tensor<T>& arccosh_() { return acosh_(); }
  Tensor<T>& arcsin_() { return asin_(); }
  Tensor<T>& arcsinh_() { return asinh_(); }
  Tensor<T>& arctan_() { return atan_(); }
  Tensor<T>& arctanh_() { return atanh_(); }
  Tensor<T>& negative_() { return neg_(); }
  Tensor<T>& fix_() { return trunc_(); }
  Tensor<T>& sgn_() { return sign_(); }
  template <Operand O>
  Tensor<T>& arctan2_(const O& other) {
    return atan2_(other);
  }
  template <Operand O>
  Tensor<T>& subtract_(const O& other, T alpha = T(1)) {
    return sub_(other, alpha);
  }
  template <Operand O>
  Tensor<T>& multiply_(const O& other) {
    return mul_(other);
  }
  template <Operand O>
  Tensor<T>& divide_(const O& other) {
    return div_(other);
  }
  template <Operand O>
  Tensor<T>& divide_(const O& other, std::string_view rounding_mode) {
    return div_(other, rounding_mode);
  }
  template <Operand O>
  Tensor<T>& true_divide_(const O& other) {
    return div_(other);
  }
  template <Operand O>
  Tensor<T>& greater_(const O& other) {
    return gt_(other);
  }
  template <Operand O>
  Tensor<T>& greater_equal_(const O& other) {
    return ge_(other);
  }
  template <Operand O>
  Tensor<T>& less_(const O& other) {
    return lt_(other);
  }
  template <Operand O>
  Tensor<T>& less_equal_(const O& other) {
    return le_(other);
  }
  template <Operand O>
  Tensor<T>& not_equal_(const O& other) {
    return ne_(other);
  }

 protected:
  InplaceMethods() = default;

 private:
  Tensor<T>& self() { return static_cast<Tensor<T>&>(*this); }
};

}  // namespace tensorlib
