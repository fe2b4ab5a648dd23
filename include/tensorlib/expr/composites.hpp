#pragma once
/// \file
/// Pointwise ops PyTorch has that are compositions of the catalogue's
/// functors (expr/functions.hpp): `addcmul`, `addcdiv`, `nan_to_num`,
/// `logaddexp`, `logaddexp2`, `xlogy`, `xlog1py`, `fmax`, `fmin`, `deg2rad`,
/// `rad2deg`, `sinc`, `float_power`, `ldexp`, `threshold`, `ndtr`. Each is still one
/// fused expression: one loop or kernel, its gradient from the parts.

#include <cstdint>
#include <limits>
#include <optional>
#include <type_traits>

#include "tensorlib/core/dtype.hpp"
#include "tensorlib/core/expression.hpp"
#include "tensorlib/core/scalar_cast.hpp"
#include "tensorlib/expr/build.hpp"
#include "tensorlib/expr/functions.hpp"
#include "tensorlib/expr/operators.hpp"
#include "tensorlib/expr/promotion.hpp"

namespace tensorlib {

/// input + value * tensor1 * tensor2, computed in the three operands' common
/// type in PyTorch's order (value times tensor1 first). Misuse PyTorch
/// rejects at run time is a compile-time error here: bool tensors, and a
/// floating `value` with integral tensors (PyTorch's documented rule; 1.13
/// truncated it silently).
template <Expression A, Expression B, Expression C, Scalar S = int64_t>
auto addcmul(const A& input, const B& tensor1, const C& tensor2, S value = 1) {
  using T = result_type_t<A, B, C>;
  static_assert(!std::is_same_v<T, bool>, "tl::addcmul: not implemented for bool tensors");
  static_assert(is_floating<T> || !std::is_floating_point_v<S>,
                "tl::addcmul: for integral tensors, value must be an integer, not a floating-point number");
  using V = std::conditional_t<is_floating<T>, double, int64_t>;
  return input + static_cast<V>(value) * cast<T>(tensor1) * tensor2;
}

/// input + value * tensor1 / tensor2, computed in the three operands' common
/// type in PyTorch's order. As in PyTorch, tensor1 and tensor2 may not both
/// be integral (integer division was removed from addcdiv), a compile-time
/// error here.
template <Expression A, Expression B, Expression C, Scalar S = int64_t>
auto addcdiv(const A& input, const B& tensor1, const C& tensor2, S value = 1) {
  using T = result_type_t<A, B, C>;
  static_assert(is_floating<value_type_t<B>> || is_floating<value_type_t<C>>,
                "tl::addcdiv: integer division with addcdiv is no longer supported (as in PyTorch); use "
                "input + value * tl::trunc(tensor1 / tensor2) for the historic behaviour, or give a floating tensor");
  using V = std::conditional_t<is_floating<T>, double, int64_t>;
  return input + static_cast<V>(value) * cast<T>(tensor1) / tensor2;
}

/// NaN, +inf and -inf replaced by `nan`, `posinf` and `neginf` (by default
/// 0 and the element type's largest and lowest finite values), as PyTorch's
/// nan_to_num; the gradient passes where x is finite. Integral tensors come
/// back as a copy.
template <Expression E>
auto nan_to_num(const E& x, double nan = 0.0, std::optional<double> posinf = std::nullopt,
                std::optional<double> neginf = std::nullopt) {
  using T = value_type_t<E>;
  if constexpr (!is_floating<T>) {
    if constexpr (std::is_same_v<std::remove_cvref_t<E>, Tensor<T>>)
      return x.clone();
    else
      return Tensor<T>(x);  // an expression evaluates into a new tensor
  } else {
    constexpr double inf = std::numeric_limits<double>::infinity();
    const double hi = posinf.value_or(static_cast<double>(std::numeric_limits<T>::max()));
    const double lo = neginf.value_or(static_cast<double>(std::numeric_limits<T>::lowest()));
    // PyTorch's gradient is grad * isfinite(x): multiplied, not masked.
    return detail::where_multiplying(
        eq(x, inf), hi, detail::where_multiplying(eq(x, -inf), lo, detail::where_multiplying(isnan(x), nan, x)));
  }
}

/// log(exp(a) + exp(b)) without overflow: max(a, b) + log1p(exp(-|a - b|)),
/// and a where both are the same infinity (PyTorch's formula). Floating
/// operands only, as in PyTorch.
template <Expression A, Expression B>
auto logaddexp(const A& a, const B& b) {
  static_assert(is_floating<result_type_t<A, B>>, "tl::logaddexp: not implemented for integral or bool tensors");
  return where(logical_and(isinf(a), eq(a, b)), a, add(maximum(a, b), log1p(exp(neg(abs(sub(a, b)))))));
}

/// log2(2^a + 2^b), as logaddexp in base 2.
template <Expression A, Expression B>
auto logaddexp2(const A& a, const B& b) {
  static_assert(is_floating<result_type_t<A, B>>, "tl::logaddexp2: not implemented for integral or bool tensors");
  constexpr double inv_ln2 = 1.4426950408889634;  // 1 / ln 2
  return where(logical_and(isinf(a), eq(a, b)), a, add(maximum(a, b), mul(log1p(exp2(neg(abs(sub(a, b))))), inv_ln2)));
}

namespace detail {
/// x * L, with L = log_of(y) except where x is 0 and y <= lowest or y = +inf
/// (where the product would be NaN): xlogy's and xlog1py's values, 0 where x
/// is 0 unless y is NaN, and PyTorch's gradients: d/dx = L, d/dy = x *
/// log_of'(y) (PyTorch's grad * x / y for xlogy). Integral operands compute
/// in the default floating type.
template <Expression A, Expression B, class Log>
auto x_times_log(const A& x, const B& y, double lowest, Log log_of) {
  using F = floating_t<result_type_t<A, B>>;
  const auto fx = cast<F>(x);
  const auto fy = cast<F>(y);
  const auto zero_x_outside =
      logical_and(eq(fx, 0), logical_or(le(fy, lowest), eq(fy, std::numeric_limits<double>::infinity())));
  return mul(fx, where_multiplying(zero_x_outside, 0, log_of(fy)));
}
}  // namespace detail

/// x * log(y), 0 where x is 0 unless y is NaN (PyTorch's xlogy): d/dx =
/// log(y) at x = 0 for a finite positive y, NaN for a NaN y.
template <Expression A, Expression B>
auto xlogy(const A& x, const B& y) {
  return detail::x_times_log(x, y, 0.0, [](const auto& v) { return tensorlib::log(v); });
}

/// x * log1p(y), 0 where x is 0 unless y is NaN (PyTorch's
/// special.xlog1py): d/dx = log1p(y) at x = 0 for y > -1, d/dy = x / (1 + y)
/// (NaN at x = 0, y = -1, as PyTorch's). Known differences, as xlogy's: at
/// x = 0, y = +inf d/dx is 0 here, inf in PyTorch; for x != 0 and y < -1
/// (a NaN value) an incoming gradient of 0 still gives d/dx NaN (PyTorch:
/// 0); x = 0 with -1 < y < 0 gives -0.0 where PyTorch gives +0.0.
template <Expression A, Expression B>
auto xlog1py(const A& x, const B& y) {
  return detail::x_times_log(x, y, -1.0, [](const auto& v) { return tensorlib::log1p(v); });
}

/// The larger of a and b, or the one that is not NaN (NaN only where both
/// are), as PyTorch's fmax. The gradient goes to a where a >= b or b is NaN
/// and to b elsewhere: ties go to a, not half to each as maximum's.
template <Expression A, Expression B>
auto fmax(const A& a, const B& b) {
  return where(logical_or(ge(a, b), isnan(b)), a, b);
}

/// The smaller of a and b, or the one that is not NaN, as PyTorch's fmin
/// (ties give a the gradient).
template <Expression A, Expression B>
auto fmin(const A& a, const B& b) {
  return where(logical_or(le(a, b), isnan(b)), a, b);
}

/// Degrees to radians, x * (pi / 180); integral operands compute in the
/// default floating type.
template <Expression E>
auto deg2rad(const E& x) {
  return mul(cast<floating_t<value_type_t<E>>>(x), 0.017453292519943295);  // pi / 180
}

/// Radians to degrees, x * (180 / pi).
template <Expression E>
auto rad2deg(const E& x) {
  return mul(cast<floating_t<value_type_t<E>>>(x), 57.295779513082323);  // 180 / pi
}

/// The normalized sinc, sin(pi x) / (pi x), 1 at 0; integral operands
/// compute in the default floating type. The gradient is 0 at 0, as
/// PyTorch's: the quotient there is taken of 1, not of 0, since a masked
/// branch's 0/0 derivative would still make the gradient NaN.
template <Expression E>
auto sinc(const E& x) {
  const auto fx = cast<floating_t<value_type_t<E>>>(x);
  const auto px = where(eq(fx, 0), 1, mul(fx, 3.141592653589793));
  return where(eq(fx, 0), 1, div(sin(px), px));
}

/// base ** exponent in double whatever the operands' types (PyTorch's
/// float_power); either operand may be a scalar.
template <Operand A, Operand B>
requires(Expression<A> || Expression<B>) auto float_power(const A& base, const B& exponent) {
  const auto as_double = []<class X>(const X& v) {
    if constexpr (Expression<X>)
      return cast<double>(v);
    else
      return static_cast<double>(v);
  };
  return pow(as_double(base), as_double(exponent));
}

/// x where x > threshold, else `value` (`torch.threshold`, nn's Threshold):
/// in x's type; NaN stays NaN.
template <Expression E, Scalar S, Scalar V>
auto threshold(const E& x, S threshold, V value) {
  return where(le(x, threshold), detail::checked_scalar_cast<value_type_t<E>>(value), x);
}

/// input * 2^other (`torch.ldexp`), in floating point: integral operands give
/// the default floating type, as PyTorch's input * 2.0 ** other does.
template <Expression A, Expression B>
auto ldexp(const A& input, const B& other) {
  return mul(input, exp2(cast<floating_t<value_type_t<B>>>(other)));
}

/// The standard normal distribution function, erfc(-x / sqrt 2) / 2
/// (PyTorch's special.ndtr); integral operands compute in the default
/// floating type.
template <Expression E>
auto ndtr(const E& x) {
  return mul(erfc(mul(cast<floating_t<value_type_t<E>>>(x), -0.7071067811865476)), 0.5);  // -1 / sqrt 2
}

}  // namespace tensorlib
