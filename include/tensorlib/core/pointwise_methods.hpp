#pragma once
/// \file
/// `PointwiseMethods<Derived>`: the method forms of the pointwise catalogue
/// (`x.exp()`, `(a + b).sigmoid()`, `x.clamp(0, 1)`), shared by `Tensor<T>`
/// and the lazy expression nodes. Each method returns exactly what the free
/// function `tl::name(x, ...)` returns: an unevaluated expression.
///
/// Why CRTP: a concept can constrain functions but cannot add member functions
/// to two unrelated class templates; this base is the one place the method
/// list is written. The methods are declared here (core/) and defined in
/// expr/methods.hpp, the layer that builds expressions (DESIGN section 2).

#include <concepts>
#include <optional>
#include <string_view>
#include <type_traits>

#include "tensorlib/core/dim_list.hpp"
#include "tensorlib/core/dtype.hpp"
#include "tensorlib/core/expression.hpp"
#include "tensorlib/core/slice.hpp"

namespace tensorlib {

/// A value usable as the other operand of a pointwise op: an expression or a
/// C++ scalar.
template <class X>
concept Operand = Expression<X> || Scalar<std::remove_cvref_t<X>>;

/// A bound of `clamp`: a scalar, or `tl::None` for "unbounded".
template <class B>
concept ClampBound = Scalar<B> || std::same_as<B, NoneType>;

template <class Derived>
class PointwiseMethods {
 public:
  /// Unary ops: `x.name()` is `tl::name(x)` (expr/functions.hpp documents each).
  auto abs() const;
  auto acos() const;
  auto acosh() const;
  auto asin() const;
  auto asinh() const;
  auto atan() const;
  auto atanh() const;
  auto ceil() const;
  auto cos() const;
  auto cosh() const;
  auto digamma() const;
  auto polygamma(int64_t n) const;
  /// The multivariate log-gamma function of dimension p (ops/mvlgamma.hpp).
  auto mvlgamma(int64_t p) const;
  auto i0() const;
  auto erf() const;
  auto erfc() const;
  auto erfinv() const;
  auto exp() const;
  auto exp2() const;
  auto expm1() const;
  auto floor() const;
  auto frac() const;
  auto lgamma() const;
  auto log() const;
  auto log10() const;
  auto log1p() const;
  auto log2() const;
  auto neg() const;
  auto reciprocal() const;
  auto relu() const;
  auto round() const;
  auto rsqrt() const;
  auto sigmoid() const;
  auto sign() const;
  auto sin() const;
  auto sinh() const;
  auto sqrt() const;
  auto square() const;
  auto tan() const;
  auto tanh() const;
  auto trunc() const;
  auto isnan() const;
  auto isinf() const;
  auto isposinf() const;
  auto isneginf() const;
  auto signbit() const;
  auto isfinite() const;
  /// `tl::hardshrink(x, lambd)`: x outside [-lambd, lambd], else 0.
  auto hardshrink(double lambd = 0.5) const;
  auto logical_not() const;
  auto bitwise_not() const;
  /// `tl::logit(x, eps)`: with `eps`, the input is clamped to [eps, 1 - eps] first.
  auto logit(std::optional<double> eps = std::nullopt) const;
  /// Composites (expr/composites.hpp): degrees to radians and back, sin(pi x) / (pi x).
  auto deg2rad() const;
  auto rad2deg() const;
  auto sinc() const;

  /// Binary ops: `x.name(other)` is `tl::name(x, other)`, with broadcasting and
  /// type promotion; `other` may be an expression or a scalar.

  template <Operand O>
  auto add(const O& other) const;
  template <Operand O>
  auto sub(const O& other) const;
  /// `tl::add(self, other, alpha)`, `tl::sub(self, other, alpha)`: self +- alpha * other.
  template <Operand O, Scalar S>
  auto add(const O& other, S alpha) const;
  template <Operand O, Scalar S>
  auto sub(const O& other, S alpha) const;
  template <Operand O>
  auto mul(const O& other) const;
  template <Operand O>
  auto div(const O& other) const;
  /// `tl::div(self, other, rounding_mode)`: "trunc" or "floor".
  template <Operand O>
  auto div(const O& other, std::string_view rounding_mode) const;
  template <Operand O>
  auto floor_divide(const O& other) const;
  template <Operand O>
  auto pow(const O& exponent) const;
  template <Operand O>
  auto atan2(const O& other) const;
  template <Operand O>
  auto fmod(const O& other) const;
  template <Operand O>
  auto remainder(const O& other) const;
  template <Operand O>
  auto maximum(const O& other) const;
  template <Operand O>
  auto minimum(const O& other) const;
  template <Operand O>
  auto eq(const O& other) const;
  template <Operand O>
  auto ne(const O& other) const;
  template <Operand O>
  auto lt(const O& other) const;
  template <Operand O>
  auto le(const O& other) const;
  template <Operand O>
  auto gt(const O& other) const;
  template <Operand O>
  auto ge(const O& other) const;
  template <Operand O>
  auto logical_and(const O& other) const;
  template <Operand O>
  auto logical_or(const O& other) const;
  template <Operand O>
  auto logical_xor(const O& other) const;
  template <Operand O>
  auto bitwise_and(const O& other) const;
  template <Operand O>
  auto bitwise_or(const O& other) const;
  template <Operand O>
  auto bitwise_xor(const O& other) const;
  template <Operand O>
  auto bitwise_left_shift(const O& other) const;
  template <Operand O>
  auto bitwise_right_shift(const O& other) const;
  template <Operand O>
  auto gcd(const O& other) const;
  template <Operand O>
  auto lcm(const O& other) const;
  /// `tl::copysign(self, other)`, `tl::nextafter(self, other)`.
  template <Operand O>
  auto copysign(const O& other) const;
  template <Operand O>
  auto nextafter(const O& other) const;
  /// `tl::heaviside(self, values)`.
  template <Expression O>
  auto heaviside(const O& values) const;
  /// `self + weight * (end - self)`.
  template <Operand A, Operand B>
  auto lerp(const A& end, const B& weight) const;
  /// `tl::clamp(x, min, max)`; either bound may be `tl::None`. A NaN bound gives NaN.
  template <ClampBound Lo, ClampBound Hi = NoneType>
  auto clamp(Lo min, Hi max = None) const;
  template <Scalar S>
  auto clamp_min(S min) const;
  template <Scalar S>
  auto clamp_max(S max) const;
  /// Alias of clamp.
  template <ClampBound Lo, ClampBound Hi = NoneType>
  auto clip(Lo min, Hi max = None) const;
  /// `tl::nan_to_num(self, nan, posinf, neginf)`.
  auto nan_to_num(double nan = 0.0, std::optional<double> posinf = std::nullopt,
                  std::optional<double> neginf = std::nullopt) const;
  /// `tl::logaddexp(self, other)`: log(exp(self) + exp(other)).
  template <Expression O>
  auto logaddexp(const O& other) const;
  /// `tl::logaddexp2(self, other)`: log2(2^self + 2^other).
  template <Expression O>
  auto logaddexp2(const O& other) const;
  /// `tl::xlogy(self, other)`: self * log(other), 0 where self is 0.
  template <Expression O>
  auto xlogy(const O& other) const;
  /// `tl::fmax(self, other)`, `tl::fmin(self, other)`: maximum and minimum that ignore a NaN.
  template <Expression O>
  auto fmax(const O& other) const;
  template <Expression O>
  auto fmin(const O& other) const;
  /// `tl::hypot(self, other)`: sqrt(self^2 + other^2) without overflow.
  template <Expression O>
  auto hypot(const O& other) const;
  /// `tl::igamma(self, other)`: the regularized lower incomplete gamma P(self, other).
  template <Expression O>
  auto igamma(const O& other) const;
  /// `tl::igammac(self, other)`: the regularized upper incomplete gamma Q(self, other).
  template <Expression O>
  auto igammac(const O& other) const;
  /// `tl::float_power(self, exponent)`: the power in double.
  template <Operand O>
  auto float_power(const O& exponent) const;
  /// `tl::addcmul(self, tensor1, tensor2, value)`: self + value * tensor1 * tensor2.
  template <Expression B, Expression C, Scalar S = int64_t>
  auto addcmul(const B& tensor1, const C& tensor2, S value = 1) const;
  /// `tl::addcdiv(self, tensor1, tensor2, value)`: self + value * tensor1 / tensor2.
  template <Expression B, Expression C, Scalar S = int64_t>
  auto addcdiv(const B& tensor1, const C& tensor2, S value = 1) const;
  /// `where(condition, self, other)`.
  template <Expression C, Operand O>
  auto where(const C& condition, const O& other) const;

  /// PyTorch's other names (expr/aliases.hpp): each is the method it names.
  auto absolute() const { return self().abs(); }
  auto arccos() const { return self().acos(); }
  auto arccosh() const { return self().acosh(); }
  auto arcsin() const { return self().asin(); }
  auto arcsinh() const { return self().asinh(); }
  auto arctan() const { return self().atan(); }
  auto arctanh() const { return self().atanh(); }
  auto negative() const { return self().neg(); }
  auto fix() const { return self().trunc(); }
  auto sgn() const { return self().sign(); }
  /// The operand itself (`x.positive()`); not defined for bool, as in PyTorch.
  Derived positive() const {
    static_assert(!std::is_same_v<value_type_t<Derived>, bool>,
                  "positive: the unary + is not supported for bool tensors; use the tensor itself");
    return self();
  }
  template <Operand O>
  auto arctan2(const O& other) const {
    return self().atan2(other);
  }
  template <Operand O>
  auto subtract(const O& other) const {
    return self().sub(other);
  }
  template <Operand O, Scalar S>
  auto subtract(const O& other, S alpha) const {
    return self().sub(other, alpha);
  }
  template <Operand O>
  auto multiply(const O& other) const {
    return self().mul(other);
  }
  template <Operand O>
  auto divide(const O& other) const {
    return self().div(other);
  }
  template <Operand O>
  auto divide(const O& other, std::string_view rounding_mode) const {
    return self().div(other, rounding_mode);
  }
  template <Operand O>
  auto true_divide(const O& other) const {
    return self().div(other);
  }
  template <Operand O>
  auto greater(const O& other) const {
    return self().gt(other);
  }
  template <Operand O>
  auto greater_equal(const O& other) const {
    return self().ge(other);
  }
  template <Operand O>
  auto less(const O& other) const {
    return self().lt(other);
  }
  template <Operand O>
  auto less_equal(const O& other) const {
    return self().le(other);
  }
  template <Operand O>
  auto not_equal(const O& other) const {
    return self().ne(other);
  }

  /// Reductions (ops/reduce.hpp, ops/scan.hpp, ops/softmax.hpp): `x.name(...)` is
  /// `tl::name(x, ...)` and returns a tensor. On an expression they run as
  /// one pass over its leaves, with no temporary.
  auto sum(DimList dims = {}, bool keepdim = false) const;
  auto nansum(DimList dims = {}, bool keepdim = false) const;
  auto mean(DimList dims = {}, bool keepdim = false) const;
  auto nanmean(DimList dims = {}, bool keepdim = false) const;
  auto prod(DimList dims = {}, bool keepdim = false) const;
  auto amax(DimList dims = {}, bool keepdim = false) const;
  auto amin(DimList dims = {}, bool keepdim = false) const;
  auto all(DimList dims = {}, bool keepdim = false) const;
  auto any(DimList dims = {}, bool keepdim = false) const;
  auto count_nonzero(DimList dims = {}) const;
  auto norm(double p = 2, DimList dims = {}, bool keepdim = false) const;
  auto var(DimList dims = {}, int64_t correction = 1, bool keepdim = false) const;
  auto std(DimList dims = {}, int64_t correction = 1, bool keepdim = false) const;
  auto logsumexp(DimList dims, bool keepdim = false) const;
  auto max() const;
  auto max(int64_t dim, bool keepdim = false) const;
  auto min() const;
  auto min(int64_t dim, bool keepdim = false) const;
  auto argmax(std::optional<int64_t> dim = std::nullopt, bool keepdim = false) const;
  auto argmin(std::optional<int64_t> dim = std::nullopt, bool keepdim = false) const;
  auto softmax(int64_t dim) const;
  auto log_softmax(int64_t dim) const;
  auto cumsum(int64_t dim) const;
  auto cumprod(int64_t dim) const;
  auto logcumsumexp(int64_t dim) const;
  auto cummax(int64_t dim) const;
  auto cummin(int64_t dim) const;

  /// Order statistics, matrices and counts: `x.name(...)` is `tl::name(x, ...)`
  /// (ops/order_stats.hpp, ops/triangular.hpp, ops/solve.hpp,
  /// ops/products.hpp, ops/matrix_exp.hpp, ops/histogram.hpp, ops/unique.hpp, ops/norms.hpp,
  /// ops/rearrange.hpp document each); they evaluate an expression first.
  auto median() const;
  auto median(int64_t dim, bool keepdim = false) const;
  auto nanmedian() const;
  auto nanmedian(int64_t dim, bool keepdim = false) const;
  auto kthvalue(int64_t k, int64_t dim = -1, bool keepdim = false) const;
  auto mode(int64_t dim = -1, bool keepdim = false) const;
  auto quantile(double q, std::optional<int64_t> dim = std::nullopt, bool keepdim = false,
                std::string_view interpolation = "linear") const;
  auto nanquantile(double q, std::optional<int64_t> dim = std::nullopt, bool keepdim = false,
                   std::string_view interpolation = "linear") const;
  auto trace() const;
  auto diag(int64_t diagonal = 0) const;
  auto diag_embed(int64_t offset = 0, int64_t dim1 = -2, int64_t dim2 = -1) const;
  auto det() const;
  auto logdet() const;
  auto slogdet() const;
  auto inverse() const;
  auto matrix_power(int64_t n) const;
  auto matrix_exp() const;
  template <Expression O>
  auto cross(const O& other, std::optional<int64_t> dim = std::nullopt) const;
  template <Expression O>
  auto kron(const O& other) const;
  template <Expression O>
  auto dist(const O& other, double p = 2) const;
  auto histc(int64_t bins = 100, double min = 0, double max = 0) const;
  auto bincount(int64_t minlength = 0) const;
  auto unique(bool sorted = true, bool return_inverse = false, bool return_counts = false,
              std::optional<int64_t> dim = std::nullopt) const;
  /// Views: the same as transpose(a, b) and movedim(source, destination).
  auto swapaxes(int64_t axis0, int64_t axis1) const;
  auto swapdims(int64_t dim0, int64_t dim1) const;
  auto moveaxis(int64_t source, int64_t destination) const;

 protected:
  const Derived& self() const { return static_cast<const Derived&>(*this); }
};

}  // namespace tensorlib
