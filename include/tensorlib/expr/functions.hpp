#pragma once
/// \file
/// The pointwise catalogue as free functions: `tl::exp(x)`, `tl::maximum(a, b)`,
/// `tl::where(c, a, b)`, ... Each returns an unevaluated `Map` built by
/// `make_map` (promotion in one place); nothing is computed until the
/// expression is assigned, consumed or `.eval()`-ed. Dtype misuse that PyTorch
/// rejects at run time is rejected here at compile time with a readable
/// static_assert (e.g. `bitwise_and` on floats). The comparisons, logical and
/// bitwise functions are in expr/comparison_functions.hpp, copysign, nextafter
/// and signbit in expr/ieee_functions.hpp (both included here).

#include <optional>
#include <string_view>
#include <type_traits>

#include "tensorlib/core/dtype.hpp"
#include "tensorlib/core/error.hpp"
#include "tensorlib/core/expression.hpp"
#include "tensorlib/core/pointwise_methods.hpp"
#include "tensorlib/expr/build.hpp"
#include "tensorlib/expr/comparison_functions.hpp"
#include "tensorlib/expr/functors/activation.hpp"
#include "tensorlib/expr/functors/arithmetic.hpp"
#include "tensorlib/expr/functors/bessel.hpp"
#include "tensorlib/expr/functors/comparison.hpp"
#include "tensorlib/expr/functors/logical.hpp"
#include "tensorlib/expr/functors/polynomial.hpp"
#include "tensorlib/expr/functors/special.hpp"
#include "tensorlib/expr/functors/transcendental.hpp"
#include "tensorlib/expr/ieee_functions.hpp"
#include "tensorlib/expr/promotion.hpp"

namespace tensorlib {

/// |x|.
template <Expression E>
auto abs(const E& x) {
  static_assert(!std::is_same_v<value_type_t<E>, bool>, "tl::abs: not supported for bool tensors");
  return make_map(fn::Abs{}, x);
}

/// Arccosine.
template <Expression E>
auto acos(const E& x) {
  return make_map(fn::Acos{}, x);
}

/// Inverse hyperbolic cosine (`torch.acosh`; NaN below 1).
template <Expression E>
auto acosh(const E& x) {
  return make_map(fn::Acosh{}, x);
}

/// Arcsine.
template <Expression E>
auto asin(const E& x) {
  return make_map(fn::Asin{}, x);
}

/// Inverse hyperbolic sine (`torch.asinh`).
template <Expression E>
auto asinh(const E& x) {
  return make_map(fn::Asinh{}, x);
}

/// Arctangent.
template <Expression E>
auto atan(const E& x) {
  return make_map(fn::Atan{}, x);
}

/// Inverse hyperbolic tangent (`torch.atanh`; +-inf at +-1, NaN beyond).
template <Expression E>
auto atanh(const E& x) {
  return make_map(fn::Atanh{}, x);
}

/// Smallest integer not below x.
template <Expression E>
auto ceil(const E& x) {
  return make_map(fn::Ceil{}, x);
}

/// Cosine.
template <Expression E>
auto cos(const E& x) {
  return make_map(fn::Cos{}, x);
}

/// Hyperbolic cosine.
template <Expression E>
auto cosh(const E& x) {
  return make_map(fn::Cosh{}, x);
}

/// Digamma function.
template <Expression E>
auto digamma(const E& x) {
  return make_map(fn::Digamma{}, x);
}

/// The n-th derivative of digamma, n >= 0 (`torch.polygamma(n, x)`).
template <Expression E>
auto polygamma(int64_t n, const E& x) {
  detail::check<ValueError>(n >= 0, "polygamma(n, x) does not support negative n, got ", n);
  return make_map(fn::Polygamma{n}, x);
}

/// Modified Bessel function of the first kind of order 0 (`torch.i0`).
template <Expression E>
auto i0(const E& x) {
  return make_map(fn::I0{}, x);
}

/// Error function.
template <Expression E>
auto erf(const E& x) {
  return make_map(fn::Erf{}, x);
}

/// Complementary error function.
template <Expression E>
auto erfc(const E& x) {
  return make_map(fn::Erfc{}, x);
}

/// Inverse error function.
template <Expression E>
auto erfinv(const E& x) {
  return make_map(fn::Erfinv{}, x);
}

/// e^x.
template <Expression E>
auto exp(const E& x) {
  return make_map(fn::Exp{}, x);
}

/// 2^x.
template <Expression E>
auto exp2(const E& x) {
  return make_map(fn::Exp2{}, x);
}

/// e^x - 1.
template <Expression E>
auto expm1(const E& x) {
  return make_map(fn::Expm1{}, x);
}

/// Largest integer not above x.
template <Expression E>
auto floor(const E& x) {
  return make_map(fn::Floor{}, x);
}

/// x - trunc(x).
template <Expression E>
auto frac(const E& x) {
  static_assert(is_floating<value_type_t<E>>, "tl::frac: only floating-point tensors have a fractional part");
  return make_map(fn::Frac{}, x);
}

/// log|Gamma(x)|.
template <Expression E>
auto lgamma(const E& x) {
  return make_map(fn::Lgamma{}, x);
}

/// Natural logarithm.
template <Expression E>
auto log(const E& x) {
  return make_map(fn::Log{}, x);
}

/// Base-10 logarithm.
template <Expression E>
auto log10(const E& x) {
  return make_map(fn::Log10{}, x);
}

/// log(1 + x).
template <Expression E>
auto log1p(const E& x) {
  return make_map(fn::Log1p{}, x);
}

/// Base-2 logarithm.
template <Expression E>
auto log2(const E& x) {
  return make_map(fn::Log2{}, x);
}

/// -x.
template <Expression E>
auto neg(const E& x) {
  static_assert(!std::is_same_v<value_type_t<E>, bool>,
                "tl::neg: negation of a bool tensor is not supported; use logical_not");
  return make_map(fn::Neg{}, x);
}

/// 1 / x.
template <Expression E>
auto reciprocal(const E& x) {
  return make_map(fn::Reciprocal{}, x);
}

/// max(x, 0).
template <Expression E>
auto relu(const E& x) {
  return make_map(fn::Relu{}, x);
}

/// Nearest integer, ties to even.
template <Expression E>
auto round(const E& x) {
  return make_map(fn::Round{}, x);
}

/// 1 / sqrt(x).
template <Expression E>
auto rsqrt(const E& x) {
  return make_map(fn::Rsqrt{}, x);
}

/// 1 / (1 + e^-x).
template <Expression E>
auto sigmoid(const E& x) {
  return make_map(fn::Sigmoid{}, x);
}

/// -1, 0 or 1.
template <Expression E>
auto sign(const E& x) {
  return make_map(fn::Sign{}, x);
}

/// Sine.
template <Expression E>
auto sin(const E& x) {
  return make_map(fn::Sin{}, x);
}

/// Hyperbolic sine.
template <Expression E>
auto sinh(const E& x) {
  return make_map(fn::Sinh{}, x);
}

/// Square root.
template <Expression E>
auto sqrt(const E& x) {
  return make_map(fn::Sqrt{}, x);
}

/// x * x (bool squares in int64, as PyTorch's pow(x, 2) does).
template <Expression E>
auto square(const E& x) {
  if constexpr (std::is_same_v<value_type_t<E>, bool>)
    return make_map(fn::Square{}, as_node<int64_t>(x));
  else
    return make_map(fn::Square{}, x);
}

/// Tangent.
template <Expression E>
auto tan(const E& x) {
  return make_map(fn::Tan{}, x);
}

/// Hyperbolic tangent.
template <Expression E>
auto tanh(const E& x) {
  return make_map(fn::Tanh{}, x);
}

/// x rounded toward zero.
template <Expression E>
auto trunc(const E& x) {
  return make_map(fn::Trunc{}, x);
}

/// x * sigmoid(x).
template <Expression E>
auto silu(const E& x) {
  return make_map(fn::Silu{}, x);
}

/// True where x is NaN.
template <Expression E>
auto isnan(const E& x) {
  return make_map(fn::IsNan{}, x);
}

/// True where x is infinite.
template <Expression E>
auto isinf(const E& x) {
  return make_map(fn::IsInf{}, x);
}

/// True where x is +inf (never for integers).
template <Expression E>
auto isposinf(const E& x) {
  return make_map(fn::IsPosInf{}, x);
}

/// True where x is -inf (never for integers).
template <Expression E>
auto isneginf(const E& x) {
  return make_map(fn::IsNegInf{}, x);
}

/// True where x is finite.
template <Expression E>
auto isfinite(const E& x) {
  return make_map(fn::IsFinite{}, x);
}

/// !x.
template <Expression E>
auto logical_not(const E& x) {
  return make_map(fn::LogicalNot{}, x);
}

/// ~x (integral and bool only).
template <Expression E>
auto bitwise_not(const E& x) {
  static_assert(is_integral_or_bool<value_type_t<E>>,
                "tl::bitwise_not: requires an integral or bool tensor; use logical_not for truthiness");
  return make_map(fn::BitwiseNot{}, x);
}

/// a + b.
template <Operand A, Operand B>
requires(Expression<A> || Expression<B>) auto add(const A& a, const B& b) { return make_map(fn::Add{}, a, b); }

/// a - b.
template <Operand A, Operand B>
requires(Expression<A> || Expression<B>) auto sub(const A& a, const B& b) {
  static_assert(!std::is_same_v<result_type_t<A, B>, bool>,
                "tl::sub: subtraction of two bool tensors is not supported; use logical_xor");
  return make_map(fn::Sub{}, a, b);
}

/// a * b.
template <Operand A, Operand B>
requires(Expression<A> || Expression<B>) auto mul(const A& a, const B& b) { return make_map(fn::Mul{}, a, b); }

/// a / b, true division (integers divide in float).
template <Operand A, Operand B>
requires(Expression<A> || Expression<B>) auto div(const A& a, const B& b) { return make_map(fn::Div{}, a, b); }

/// atan2(a, b), the angle of (b, a).
template <Operand A, Operand B>
requires(Expression<A> || Expression<B>) auto atan2(const A& a, const B& b) { return make_map(fn::Atan2{}, a, b); }
/// 0 for input < 0, `values` where input == 0, 1 for input > 0, 0 for NaN
/// (fn::Heaviside); input and values of one dtype, as PyTorch requires. No
/// derivative (PyTorch): a backward that needs one throws.
template <Expression A, Expression B>
auto heaviside(const A& input, const B& values) {
  // A dual (forward mode) beside a plain operand is allowed: it is refused
  // when it runs, as PyTorch's forward mode refuses heaviside.
  static_assert(std::is_same_v<value_type_t<A>, value_type_t<B>> || is_dual_tag(scalar_type_of<value_type_t<A>>) ||
                    is_dual_tag(scalar_type_of<value_type_t<B>>),
                "tl::heaviside: input and values must have the same dtype (PyTorch: heaviside is not yet implemented "
                "for tensors with different dtypes)");
  return make_map(fn::Heaviside{}, input, values);
}

/// x outside [-lambd, lambd], else 0 (fn::Hardshrink); floating only.
template <Expression E>
auto hardshrink(const E& x, double lambd = 0.5) {
  static_assert(is_floating<value_type_t<E>>, "tl::hardshrink: not implemented for integral or bool tensors");
  return make_map(fn::Hardshrink{lambd}, x);
}

/// sqrt(a^2 + b^2) without overflow (fn::Hypot); floating operands only, as
/// in PyTorch. Its gradient is PyTorch's a / hypot and b / hypot.
template <Expression A, Expression B>
auto hypot(const A& a, const B& b) {
  static_assert(is_floating<result_type_t<A, B>>, "tl::hypot: not implemented for integral or bool tensors");
  return make_map(fn::Hypot{}, a, b);
}

/// The regularized lower incomplete gamma function P(a, x) (`torch.igamma`,
/// `special::gammainc`); floating operands only, as in PyTorch. Its gradient
/// is PyTorch's, in x only: a backward that needs d/da throws.
template <Expression A, Expression B>
auto igamma(const A& a, const B& x) {
  static_assert(is_floating<result_type_t<A, B>>, "tl::igamma: not implemented for integral or bool tensors");
  return make_map(fn::Igamma{}, a, x);
}
/// The regularized upper incomplete gamma function Q(a, x) = 1 - P(a, x)
/// (`torch.igammac`, `special::gammaincc`); floating operands only.
template <Expression A, Expression B>
auto igammac(const A& a, const B& x) {
  static_assert(is_floating<result_type_t<A, B>>, "tl::igammac: not implemented for integral or bool tensors");
  return make_map(fn::Igammac{}, a, x);
}

/// a / b rounded as torch.div's `rounding_mode` says: "trunc" (towards
/// zero) or "floor" (down, Python's //), in the operands' common type, so
/// integers stay integers (division by zero throws, as in PyTorch). Their
/// gradient is 0. (PyTorch's rounding_mode=None is `div(a, b)`.)
template <Operand A, Operand B>
requires(Expression<A> || Expression<B>) auto div(const A& a, const B& b, std::string_view rounding_mode) {
  static_assert(!std::is_same_v<result_type_t<A, B>, bool>, "tl::div: rounding modes are not implemented for bool");
  detail::check<ValueError>(rounding_mode == "trunc" || rounding_mode == "floor",
                            "div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '",
                            rounding_mode, "'");
  return make_map(fn::DivRounded{rounding_mode == "floor"}, a, b);
}

/// a // b: `div(a, b, "floor")` (torch.floor_divide, which rounds down since
/// PyTorch 1.13).
template <Operand A, Operand B>
requires(Expression<A> || Expression<B>) auto floor_divide(const A& a, const B& b) { return div(a, b, "floor"); }

/// C's fmod (sign of the dividend).
template <Operand A, Operand B>
requires(Expression<A> || Expression<B>) auto fmod(const A& a, const B& b) { return make_map(fn::Fmod{}, a, b); }

/// Python's modulus (sign of the divisor).
template <Operand A, Operand B>
requires(Expression<A> || Expression<B>) auto remainder(const A& a, const B& b) {
  return make_map(fn::Remainder{}, a, b);
}

/// Elementwise maximum (NaN propagates).
template <Operand A, Operand B>
requires(Expression<A> || Expression<B>) auto maximum(const A& a, const B& b) { return make_map(fn::Maximum{}, a, b); }

/// Elementwise minimum (NaN propagates).
template <Operand A, Operand B>
requires(Expression<A> || Expression<B>) auto minimum(const A& a, const B& b) { return make_map(fn::Minimum{}, a, b); }

/// a + alpha * b.
template <Operand A, Operand B, Scalar S>
requires(Expression<A> || Expression<B>) auto add(const A& a, const B& b, S alpha) {
  if constexpr (Scalar<B>)
    return add(a, b * alpha);
  else
    return add(a, mul(b, alpha));
}

/// a - alpha * b.
template <Operand A, Operand B, Scalar S>
requires(Expression<A> || Expression<B>) auto sub(const A& a, const B& b, S alpha) {
  if constexpr (Scalar<B>)
    return sub(a, b * alpha);
  else
    return sub(a, mul(b, alpha));
}

/// base raised to exponent. An integral base with a negative scalar exponent
/// is rejected, as in PyTorch.
template <Operand A, Operand B>
requires(Expression<A> || Expression<B>) auto pow(const A& base, const B& exponent) {
  if constexpr (Scalar<B> && !is_floating<result_type_t<A, B>>) {
    detail::check<ValueError>(!(exponent < B(0)), "pow: Integers to negative integer powers are not allowed.");
  }
  return make_map(fn::Pow{}, base, exponent);
}

/// start + weight * (end - start).
template <Operand A, Operand B, Operand C>
requires(Expression<A> || Expression<B> || Expression<C>) auto lerp(const A& start, const B& end, const C& weight) {
  return make_map(fn::Lerp{}, start, end, weight);
}

namespace detail {
template <class B>
using bound_operand_t = std::conditional_t<Scalar<B>, B, bool>;  // bool never raises the type
}  // namespace detail

/// min(max(x, min), max); either bound may be `tl::None`. The bounds take
/// part in type promotion (an int tensor clamped to 0.5 becomes float).
template <Expression E, ClampBound Lo, ClampBound Hi = NoneType>
auto clamp(const E& x, Lo min, Hi max = None) {
  static_assert(Scalar<Lo> || Scalar<Hi>, "tl::clamp: at least one of 'min' or 'max' must not be None");
  using T = result_type_t<E, detail::bound_operand_t<Lo>, detail::bound_operand_t<Hi>>;
  using S = math::scalar_of_t<T>;  // the bounds of a dual chain are plain numbers
  fn::Clamp<S> f;
  if constexpr (Scalar<Lo>) {
    f.lo = detail::checked_scalar_cast<S>(min);
    f.has_lo = true;
  }
  if constexpr (Scalar<Hi>) {
    f.hi = detail::checked_scalar_cast<S>(max);
    f.has_hi = true;
  }
  return make_map(f, as_node<T>(x));
}

/// Alias of clamp (PyTorch's `torch.clip`).
template <Expression E, ClampBound Lo, ClampBound Hi = NoneType>
auto clip(const E& x, Lo min, Hi max = None) {
  return clamp(x, min, max);
}
/// max(x, min).
template <Expression E, Scalar S>
auto clamp_min(const E& x, S min) {
  return clamp(x, min, None);
}
/// min(x, max).
template <Expression E, Scalar S>
auto clamp_max(const E& x, S max) {
  return clamp(x, None, max);
}

namespace detail {
// Two scalar branches take their default element types (torch.where(c, 1.0, 0.0) is float).
template <class A, class B>
constexpr auto where_type() {
  if constexpr (Scalar<A> && Scalar<B>)
    return std::type_identity<promote_t<default_element_t<A>, default_element_t<B>>>{};
  else
    return std::type_identity<result_type_t<A, B>>{};
}
}  // namespace detail

/// condition ? a : b, elementwise with broadcasting; a and b promote together.
template <Expression C, Operand A, Operand B>
auto where(const C& condition, const A& a, const B& b) {
  static_assert(std::is_same_v<value_type_t<C>, bool>,
                "tl::where: the condition must be a bool expression (e.g. x > 0)");
  using T = typename decltype(detail::where_type<A, B>())::type;
  return make_map(fn::Where{}, condition, as_node<T>(a), as_node<T>(b));
}

namespace detail {
/// `where` whose backward multiplies the gradient by 0 or 1 instead of
/// masking it (fn::BasicWhere), for composites whose PyTorch formula does.
template <Expression C, Operand A, Operand B>
auto where_multiplying(const C& condition, const A& a, const B& b) {
  using T = typename decltype(where_type<A, B>())::type;
  return make_map(fn::BasicWhere<false>{}, condition, as_node<T>(a), as_node<T>(b));
}
}  // namespace detail

/// log(x / (1 - x)), with x clamped to [eps, 1 - eps] when eps is given.
template <Expression E>
auto logit(const E& x, std::optional<double> eps = std::nullopt) {
  return make_map(fn::Logit{eps.value_or(-1.0)}, x);
}

/// Gaussian error linear unit; approximate is "none" (erf) or "tanh".
template <Expression E>
auto gelu(const E& x, std::string_view approximate = "none") {
  detail::check<ValueError>(approximate == "none" || approximate == "tanh",
                            "gelu: approximate must be 'none' or 'tanh', got '", approximate, "'");
  return make_map(fn::Gelu{approximate == "tanh"}, x);
}
/// log(1 + e^(beta x)) / beta, linear where beta x > threshold.
template <Expression E>
auto softplus(const E& x, double beta = 1, double threshold = 20) {
  return make_map(fn::Softplus{beta, threshold}, x);
}
/// Clamp to [min_val, max_val].
template <Expression E>
auto hardtanh(const E& x, double min_val = -1, double max_val = 1) {
  detail::check<ValueError>(min_val <= max_val, "hardtanh: min_val (", min_val, ") must not exceed max_val (", max_val,
                            ")");
  return make_map(fn::Hardtanh{min_val, max_val}, x);
}
/// x for x > 0, else negative_slope * x.
template <Expression E>
auto leaky_relu(const E& x, double negative_slope = 0.01) {
  return make_map(fn::LeakyRelu{negative_slope}, x);
}
/// x for x > 0, else alpha * (e^x - 1).
template <Expression E>
auto elu(const E& x, double alpha = 1) {
  return make_map(fn::Elu{alpha}, x);
}

}  // namespace tensorlib
