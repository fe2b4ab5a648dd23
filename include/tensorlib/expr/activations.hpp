#pragma once
/// \file
/// The activations of torch.nn.functional that compose the catalogue's
/// functors: `relu6`, `hardsigmoid`, `hardswish`, `mish`, `logsigmoid`,
/// `softsign`, `tanhshrink`, `softshrink`, `celu`, `selu`. Each is one fused
/// expression (one loop or kernel, forward and backward), written so that
/// its value rounds as PyTorch's kernel does and its derivative, from the
/// parts, is PyTorch's formula at the breakpoints too (the `where` branches
/// carry the one-sided slopes PyTorch's backward picks). Floating-point
/// operands only, as in PyTorch.

#include <type_traits>

#include "tensorlib/core/dtype.hpp"
#include "tensorlib/core/error.hpp"
#include "tensorlib/core/expression.hpp"
#include "tensorlib/expr/functions.hpp"
#include "tensorlib/expr/operators.hpp"

namespace tensorlib {
namespace detail {
template <Expression E>
constexpr void check_floating_activation() {
  static_assert(is_floating<value_type_t<E>>, "activation: expected a floating-point operand");
}
}  // namespace detail

/// min(max(x, 0), 6) (F.relu6: hardtanh(x, 0, 6)); gradient 0 at 0 and 6.
template <Expression E>
auto relu6(const E& x) {
  detail::check_floating_activation<E>();
  return hardtanh(x, 0.0, 6.0);
}

/// relu6(x + 3) / 6 (F.hardsigmoid); gradient 1/6 strictly inside (-3, 3).
template <Expression E>
auto hardsigmoid(const E& x) {
  detail::check_floating_activation<E>();
  return where(le(x, -3), 0, where(ge(x, 3), 1, div(add(x, 3), 6)));
}

/// x relu6(x + 3) / 6 (F.hardswish). Gradient x / 3 + 1/2 on [-3, 3), 0
/// below, 1 from 3 up: PyTorch's vectorized hardswish_backward (its scalar
/// tail gives 3 the slope 3/2). -inf gives NaN, as PyTorch's -inf * 0, and
/// x >= 3 rounds as x * 6 / 6 (inf beyond the largest float / 6). The
/// quadratic reads x only where it is selected, so an infinite x puts no
/// infinite partial behind the mask (Note [masked adjoints]).
template <Expression E>
auto hardswish(const E& x) {
  detail::check_floating_activation<E>();
  const auto inside = where(ge(x, -3), where(lt(x, 3), x, 0), 0);
  return where(lt(x, -3), mul(x, 0), where(lt(x, 3), div(mul(inside, add(inside, 3)), 6), div(mul(x, 6), 6)));
}

/// x tanh(softplus(x)) (F.mish); softplus's threshold keeps an overflowing
/// exp out of the gradient (tanh is 1 there either way).
template <Expression E>
auto mish(const E& x) {
  detail::check_floating_activation<E>();
  return mul(x, tanh(softplus(x)));
}

/// log(sigmoid(x)) = min(x, 0) - log1p(exp(-|x|)) (F.logsigmoid, PyTorch's
/// stable form).
template <Expression E>
auto logsigmoid(const E& x) {
  detail::check_floating_activation<E>();
  return sub(minimum(x, 0), log1p(exp(neg(abs(x)))));
}

/// x / (1 + |x|) (F.softsign).
template <Expression E>
auto softsign(const E& x) {
  detail::check_floating_activation<E>();
  return div(x, add(abs(x), 1));
}

/// x - tanh(x) (F.tanhshrink).
template <Expression E>
auto tanhshrink(const E& x) {
  detail::check_floating_activation<E>();
  return sub(x, tanh(x));
}

/// x - lambd above lambd, x + lambd below -lambd, else 0 (F.softshrink);
/// lambd >= 0.
template <Expression E>
auto softshrink(const E& x, double lambd = 0.5) {
  detail::check_floating_activation<E>();
  detail::check<ValueError>(lambd >= 0, "softshrink: lambda must be greater or equal to 0, but found to be ", lambd,
                            ".");
  return where(gt(x, lambd), sub(x, lambd), where(lt(x, -lambd), add(x, lambd), 0));
}

/// x above 0, else alpha (exp(x / alpha) - 1) (F.celu, torch.celu). As
/// PyTorch's elu kernel, exp then minus 1 (not expm1): the same rounding,
/// and the gradient alpha exp(x / alpha) / alpha exact where expm1's
/// (result + 1) cancels.
template <Expression E>
auto celu(const E& x, double alpha = 1.0) {
  detail::check_floating_activation<E>();
  detail::check<ValueError>(alpha != 0, "celu: ZeroDivisionError: alpha cannot be 0 for CELU");
  const auto negative = where(gt(x, 0), 0, x);  // no overflowing exp behind the mask
  return where(gt(x, 0), x, mul(sub(exp(mul(negative, 1.0 / alpha)), 1), alpha));
}

/// scale x above 0, else scale alpha (exp(x) - 1), with the self-normalizing
/// constants (F.selu, torch.selu); exp then minus 1, as celu.
template <Expression E>
auto selu(const E& x) {
  detail::check_floating_activation<E>();
  constexpr double alpha = 1.6732632423543772848170429916717, scale = 1.0507009873554804934193349852946;
  const auto negative = where(gt(x, 0), 0, x);
  return where(gt(x, 0), mul(x, scale), mul(sub(exp(negative), 1), alpha * scale));
}

}  // namespace tensorlib
