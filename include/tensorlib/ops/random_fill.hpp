#pragma once
/// \file
/// The in-place random fills of `Tensor<T>` (PyTorch's `uniform_`, `normal_`,
/// `bernoulli_`, `exponential_`, `geometric_`, `log_normal_`, `cauchy_`,
/// `random_`), each one draw of ops/random.hpp's Philox streams (so the same
/// numbers on every device for the same seed) transformed by one fused
/// expression and written into the tensor as `copy_` writes (views, strides
/// and the autograd rules of in-place writes are copy_'s; errors name the
/// fill). Arguments are checked with PyTorch's messages.
///
/// Note [inverse-transform fills]
/// Each distribution is a function of one uniform u in [0, 1) (`rand`):
/// exponential -log1p(-u) / lambda, geometric ceil(log1p(-u) / log1p(-p))
/// (at least 1), cauchy median + sigma tan(pi (u - 1/2)) (the angle in
/// double), bernoulli u < p. log_normal is exp of `normal`. The draws are in
/// double for double tensors and for geometric_ on every type but float, in
/// float otherwise. PyTorch
/// uses other transforms and another generator, so only the distributions,
/// not the numbers, are PyTorch's.

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>

#include "tensorlib/core/device.hpp"
#include "tensorlib/core/dtype.hpp"
#include "tensorlib/core/error.hpp"
#include "tensorlib/core/generator.hpp"
#include "tensorlib/core/grad_mode.hpp"
#include "tensorlib/core/half.hpp"
#include "tensorlib/core/tensor.hpp"
#include "tensorlib/expr/build.hpp"
#include "tensorlib/expr/functions.hpp"
#include "tensorlib/expr/operators.hpp"
#include "tensorlib/ops/copy.hpp"
#include "tensorlib/ops/evaluate.hpp"
#include "tensorlib/ops/inplace.hpp"
#include "tensorlib/ops/random.hpp"

namespace tensorlib {
namespace detail {

/// The element type a fill draws its uniforms in (Note [inverse-transform
/// fills]): float, or double for double tensors.
template <Element T>
using draw_t = opmath_t<floating_t<T>>;

/// Whether v fits T's range (for random_'s bounds).
template <Element T>
bool fits(double v) {
  return v >= static_cast<double>(std::numeric_limits<T>::lowest()) &&
         v <= static_cast<double>(std::numeric_limits<T>::max());
}

/// The integer nearest to v that a floating T holds exactly (one with at
/// most T's `digits` significant bits), moving up or down only when T cannot
/// hold v; a double, which holds the result exactly. random_ moves its bounds
/// inwards by it, as PyTorch's update_from/update_to, so that no draw rounds
/// onto `to` or below `from`.
template <Element T>
double held_integer(int64_t v, bool up) {
  const uint64_t m = v >= 0 ? static_cast<uint64_t>(v) : 0 - static_cast<uint64_t>(v);
  if (m == 0) return 0;
  const int shift = std::max(0, 63 - std::countl_zero(m) - (std::numeric_limits<T>::digits - 1));
  const uint64_t down = (m >> shift) << shift;
  const bool magnitude_up = (v >= 0) == up && down != m;  // moving up a positive v, or down a negative one
  const double held = static_cast<double>(down) + (magnitude_up ? std::ldexp(1.0, shift) : 0.0);
  return v >= 0 ? held : -held;
}

// Note [fill checks]
// A fill checks its target before it draws, so that a refused fill leaves its
// generator where it was, as PyTorch's; and in PyTorch's order: the autograd
// refusals first (PyTorch's autograd layer runs before the op), then the
// op's own arguments, then internal overlap (found when the kernel's
// iterator is built; random_ checks its bounds inside the kernel, after it).
// The write checks them all again.

/// The autograd refusals of a write into `dst` with grad mode on: a view made
/// under no_grad, and for a tensor that requires grad a leaf, a view of a
/// leaf, memory shared with other live tensors (Note [fill checks]).
template <Element T>
void check_fill_autograd(const Tensor<T>& dst, const char* op) {
  if (!is_grad_enabled()) return;
  check_not_no_grad_view(*dst.impl(), op);
  if constexpr (differentiable<T> && !is_dual_tag(scalar_type_of<T>)) {
    if (dst.requires_grad()) autograd::detail::check_view_write(dst, op);
  }
}

}  // namespace detail

template <Element T>
Tensor<T>& Tensor<T>::uniform_(double from, double to, Generator& gen) {
  static_assert(is_floating<T>, "uniform_: the tensor must be floating point");
  detail::check_fill_autograd(*this, "uniform_");  // Note [fill checks]
  detail::check<ValueError>(from <= to, "uniform_: expects to return a [from, to) range, but found from=", from,
                            " > to=", to);
  const double largest = static_cast<double>(std::numeric_limits<T>::max());
  detail::check<ValueError>(std::abs(from) <= largest, "uniform_: from is out of bounds for ", DTypeTraits<T>::name);
  detail::check<ValueError>(std::abs(to) <= largest, "uniform_: to is out of bounds for ", DTypeTraits<T>::name);
  detail::check<ValueError>(to - from <= largest, "uniform_: expects to-from <= the largest ", DTypeTraits<T>::name,
                            ", but found to=", to, " and from=", from, " which result in to-from to exceed the limit");
  detail::check_no_internal_overlap(*this, "uniform_");
  detail::write_into(*this, rand<T>(sizes(), gen, {.device = device()}) * (to - from) + from, "uniform_");
  return *this;
}

template <Element T>
Tensor<T>& Tensor<T>::normal_(double mean, double std, Generator& gen) {
  static_assert(is_floating<T>, "normal_: the tensor must be floating point");
  detail::check_fill_autograd(*this, "normal_");  // Note [fill checks]
  detail::check<ValueError>(std >= 0, "normal: expects std >= 0.0, but found std ", std);
  detail::check_no_internal_overlap(*this, "normal_");
  detail::write_into(*this, normal<T>(mean, std, sizes(), gen, {.device = device()}), "normal_");
  return *this;
}

template <Element T>
Tensor<T>& Tensor<T>::bernoulli_(double p, Generator& gen) {
  detail::check_fill_autograd(*this, "bernoulli_");  // Note [fill checks]
  detail::check<ValueError>(p >= 0 && p <= 1, "bernoulli_ expects p to be in [0, 1], but got p=", p);
  detail::check_no_internal_overlap(*this, "bernoulli_");
  using D = detail::draw_t<T>;
  detail::write_into(*this, cast<T>(detail::bernoulli_draw<D>(sizes(), device(), static_cast<D>(p), gen)),
                     "bernoulli_");
  return *this;
}

template <Element T>
template <Element P>
Tensor<T>& Tensor<T>::bernoulli_(const Tensor<P>& p, Generator& gen) {
  static_assert(is_floating<P>, "bernoulli_: the probabilities must be floating point");
  detail::check_fill_autograd(*this, "bernoulli_");  // Note [fill checks]
  if (p.device() != device()) detail::throw_device_mismatch("bernoulli_", device(), p.device());
  detail::check_no_internal_overlap(*this, "bernoulli_");
  const Tensor<P> probs = p.detach().expand(sizes());
  detail::check_probabilities_on_device(probs);
  detail::write_into(*this, cast<T>(detail::bernoulli_draw<P>(sizes(), device(), probs, gen)), "bernoulli_");
  return *this;
}

template <Element T>
Tensor<T>& Tensor<T>::exponential_(double lambd, Generator& gen) {
  static_assert(is_floating<T>, "exponential_: the tensor must be floating point (as in PyTorch)");
  detail::check_fill_autograd(*this, "exponential_");  // Note [fill checks]
  detail::check<ValueError>(lambd >= 0, "exponential_ expects lambda >= 0.0, but found lambda=", lambd);
  detail::check_no_internal_overlap(*this, "exponential_");                // before the fill_, which allows overlap
  if (lambd == 0) return this->fill_(std::numeric_limits<T>::infinity());  // -log1p(-0) / 0 would be NaN
  using D = detail::draw_t<T>;
  detail::write_into(*this, cast<T>(-log1p(-rand<D>(sizes(), gen, {.device = device()})) / static_cast<D>(lambd)),
                     "exponential_");
  return *this;
}

template <Element T>
Tensor<T>& Tensor<T>::geometric_(double p, Generator& gen) {
  static_assert(!std::is_same_v<T, bool>, "geometric_: not implemented for bool tensors (as in PyTorch)");
  detail::check_fill_autograd(*this, "geometric_");  // Note [fill checks]
  detail::check<ValueError>(p > 0 && p < 1, "geometric_ expects p to be in (0, 1), but got p=", p);
  detail::check_no_internal_overlap(*this, "geometric_");
  using D = std::conditional_t<std::is_same_v<T, float>, float, double>;
  const auto trials = ceil(log1p(-rand<D>(sizes(), gen, {.device = device()})) / static_cast<D>(std::log1p(-p)));
  detail::write_into(*this, cast<T>(maximum(trials, D(1))), "geometric_");
  return *this;
}

template <Element T>
Tensor<T>& Tensor<T>::log_normal_(double mean, double std, Generator& gen) {
  static_assert(is_floating<T>, "log_normal_: the tensor must be floating point (as in PyTorch)");
  detail::check_fill_autograd(*this, "log_normal_");  // Note [fill checks]
  detail::check<ValueError>(std > 0, "log_normal_ expects std > 0.0, but found std=", std);
  detail::check_no_internal_overlap(*this, "log_normal_");
  using D = detail::draw_t<T>;
  detail::write_into(*this, cast<T>(exp(normal<D>(mean, std, sizes(), gen, {.device = device()}))), "log_normal_");
  return *this;
}

template <Element T>
Tensor<T>& Tensor<T>::cauchy_(double median, double sigma, Generator& gen) {
  static_assert(is_floating<T>, "cauchy_: the tensor must be floating point (as in PyTorch)");
  detail::check_fill_autograd(*this, "cauchy_");  // Note [fill checks]
  detail::check_no_internal_overlap(*this, "cauchy_");
  using D = detail::draw_t<T>;
  // The angle in double: float's pi exceeds pi, so tan at u = 0 would be positive.
  const auto angle = (cast<double>(rand<D>(sizes(), gen, {.device = device()})) - 0.5) * (detail::kTwoPi / 2);
  detail::write_into(*this, cast<T>(tan(angle) * sigma + median), "cauchy_");
  return *this;
}

template <Element T>
Tensor<T>& Tensor<T>::random_(int64_t from, std::optional<int64_t> to, Generator& gen) {
  const auto name = DTypeTraits<T>::name;
  detail::check_fill_autograd(*this, "random_");  // Note [fill checks]
  detail::check_no_internal_overlap(*this, "random_");
  detail::check<ValueError>(detail::fits<T>(static_cast<double>(from)), "random_: from is out of bounds for ", name);
  int64_t to_inc;
  if (to) {
    detail::check<ValueError>(from < *to, "random_ expects 'from' to be less than 'to', but got from=", from,
                              " >= to=", *to);
    detail::check<ValueError>(detail::fits<T>(static_cast<double>(*to - 1)), "random_: to - 1 is out of bounds for ",
                              name);
    to_inc = *to - 1;
  } else if constexpr (is_floating<T>) {  // up to 2^digits: every integer exact
    to_inc = int64_t{1} << std::numeric_limits<T>::digits;
    detail::check<ValueError>(from < to_inc, "random_ expects 'from' casted to dtype to be less than or equal to ",
                              "'to_inc' casted to dtype, but got from=", from, " > to_inc=", to_inc);
  } else {
    to_inc = static_cast<int64_t>(std::numeric_limits<T>::max());
  }
  if constexpr (is_floating<T>) {
    const double lo = detail::held_integer<T>(from, true), hi = detail::held_integer<T>(to_inc, false);
    detail::check<ValueError>(lo <= hi, "random_: no ", name, " value lies in [", from, ", ", to_inc, "]");
    from = static_cast<int64_t>(lo);
    to_inc = static_cast<int64_t>(hi);
  }
  // [from, to_inc] has to_inc - from + 1 values, 0 standing for all 2^64.
  const uint64_t range = static_cast<uint64_t>(to_inc) - static_cast<uint64_t>(from) + 1;
  detail::write_into(*this,
                     detail::random_tensor<int64_t>(sizes(), {.device = device()}, gen,
                                                    detail::IntegerLane<int64_t>{static_cast<uint64_t>(from), range}),
                     "random_");
  return *this;
}

template <Element T>
Tensor<T>& Tensor<T>::random_(int64_t to, Generator& gen) {
  return random_(0, to, gen);
}

template <Element T>
Tensor<T>& Tensor<T>::random_(Generator& gen) {
  return random_(0, std::nullopt, gen);
}

}  // namespace tensorlib
