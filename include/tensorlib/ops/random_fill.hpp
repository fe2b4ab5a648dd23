#pragma once
/// \file
/// The in-place random fills of `Tensor<T>` (PyTorch's `uniform_`, `normal_`,
/// `bernoulli_`, `exponential_`, `geometric_`, `log_normal_`, `cauchy_`,
/// `random_`), each one draw of ops/random.hpp's Philox streams (so the same
/// numbers on every device for the same seed) transformed by one fused
/// expression and copied into the tensor with `copy_` (so views, strides and
/// the autograd rules of in-place writes are copy_'s). Arguments are checked
/// with PyTorch's messages.
///
/// Note [inverse-transform fills]
/// Each distribution is a function of one uniform u in [0, 1) (`rand`):
/// exponential -log1p(-u) / lambda, geometric ceil(log1p(-u) / log1p(-p))
/// (at least 1), cauchy median + sigma tan(pi (u - 1/2)), bernoulli u < p.
/// log_normal is exp of `normal`. The draws are in double for double tensors
/// and for the integer results of geometric_, in float otherwise. PyTorch
/// uses other transforms and another generator, so only the distributions,
/// not the numbers, are PyTorch's.

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <type_traits>

#include "tensorlib/core/dtype.hpp"
#include "tensorlib/core/error.hpp"
#include "tensorlib/core/generator.hpp"
#include "tensorlib/core/tensor.hpp"
#include "tensorlib/expr/build.hpp"
#include "tensorlib/expr/functions.hpp"
#include "tensorlib/expr/operators.hpp"
#include "tensorlib/ops/copy.hpp"
#include "tensorlib/ops/random.hpp"

namespace tensorlib {
namespace detail {

/// The element type a fill draws its uniforms in (Note [inverse-transform fills]).
template <class T>
using draw_t = std::conditional_t<std::is_same_v<T, double>, double, float>;

/// Whether v fits T's range (for random_'s bounds).
template <Element T>
bool fits(double v) {
  return v >= static_cast<double>(std::numeric_limits<T>::lowest()) &&
         v <= static_cast<double>(std::numeric_limits<T>::max());
}

}  // namespace detail

template <Element T>
Tensor<T>& Tensor<T>::uniform_(double from, double to, Generator& gen) {
  static_assert(is_floating<T>, "uniform_: the tensor must be floating point");
  detail::check<ValueError>(from <= to, "uniform_: expects to return a [from, to) range, but found from=", from,
                            " > to=", to);
  const double largest = static_cast<double>(std::numeric_limits<T>::max());
  detail::check<ValueError>(std::abs(from) <= largest, "uniform_: from is out of bounds for ", DTypeTraits<T>::name);
  detail::check<ValueError>(std::abs(to) <= largest, "uniform_: to is out of bounds for ", DTypeTraits<T>::name);
  detail::check<ValueError>(to - from <= largest, "uniform_: expects to-from <= the largest ", DTypeTraits<T>::name,
                            ", but found to=", to, " and from=", from, " which result in to-from to exceed the limit");
  return copy_(rand<T>(sizes(), gen, {.device = device()}) * (to - from) + from);
}

template <Element T>
Tensor<T>& Tensor<T>::normal_(double mean, double std, Generator& gen) {
  static_assert(is_floating<T>, "normal_: the tensor must be floating point");
  return copy_(normal<T>(mean, std, sizes(), gen, {.device = device()}));
}

template <Element T>
Tensor<T>& Tensor<T>::bernoulli_(double p, Generator& gen) {
  detail::check<ValueError>(p >= 0 && p <= 1, "bernoulli_ expects p to be in [0, 1], but got p=", p);
  using D = detail::draw_t<T>;
  return copy_(cast<T>(rand<D>(sizes(), gen, {.device = device()}) < static_cast<D>(p)));
}

template <Element T>
template <Element P>
Tensor<T>& Tensor<T>::bernoulli_(const Tensor<P>& p, Generator& gen) {
  static_assert(is_floating<P>, "bernoulli_: the probabilities must be floating point");
  if (p.device() != device()) detail::throw_device_mismatch("bernoulli_", device(), p.device());
  const Tensor<P> probs = p.expand(sizes());
  {
    NoGradGuard no_grad;  // the check reads p's values only
    if (any(logical_not(logical_and(probs >= P(0), probs <= P(1)))).item())
      detail::check_probabilities(probs.cpu().contiguous());
  }
  return copy_(cast<T>(rand<P>(sizes(), gen, {.device = device()}) < probs.detach()));
}

template <Element T>
Tensor<T>& Tensor<T>::exponential_(double lambd, Generator& gen) {
  static_assert(is_floating<T>, "exponential_: the tensor must be floating point (as in PyTorch)");
  detail::check<ValueError>(lambd >= 0, "exponential_ expects lambda >= 0.0, but found lambda=", lambd);
  if (lambd == 0) return this->fill_(std::numeric_limits<T>::infinity());  // -log1p(-0) / 0 would be NaN
  using D = detail::draw_t<T>;
  return copy_(cast<T>(-log1p(-rand<D>(sizes(), gen, {.device = device()})) / static_cast<D>(lambd)));
}

template <Element T>
Tensor<T>& Tensor<T>::geometric_(double p, Generator& gen) {
  detail::check<ValueError>(p > 0 && p < 1, "geometric_ expects p to be in (0, 1), but got p=", p);
  using D = std::conditional_t<std::is_same_v<T, float>, float, double>;
  const auto trials = ceil(log1p(-rand<D>(sizes(), gen, {.device = device()})) / static_cast<D>(std::log1p(-p)));
  return copy_(cast<T>(maximum(trials, D(1))));
}

template <Element T>
Tensor<T>& Tensor<T>::log_normal_(double mean, double std, Generator& gen) {
  static_assert(is_floating<T>, "log_normal_: the tensor must be floating point (as in PyTorch)");
  detail::check<ValueError>(std > 0, "log_normal_ expects std > 0.0, but found std=", std);
  return copy_(exp(normal<T>(mean, std, sizes(), gen, {.device = device()})));
}

template <Element T>
Tensor<T>& Tensor<T>::cauchy_(double median, double sigma, Generator& gen) {
  static_assert(is_floating<T>, "cauchy_: the tensor must be floating point (as in PyTorch)");
  using D = detail::draw_t<T>;
  const D pi = static_cast<D>(3.14159265358979323846);
  return copy_(
      cast<T>(tan((rand<D>(sizes(), gen, {.device = device()}) - D(0.5)) * pi) * static_cast<D>(sigma) + median));
}

template <Element T>
Tensor<T>& Tensor<T>::random_(int64_t from, std::optional<int64_t> to, Generator& gen) {
  const char* name = DTypeTraits<T>::name.data();
  uint64_t range;
  if (to) {
    detail::check<ValueError>(from < *to, "random_ expects 'from' to be less than 'to', but got from=", from,
                              " >= to=", *to);
    detail::check<ValueError>(detail::fits<T>(static_cast<double>(*to - 1)), "to - 1 is out of bounds for ", name);
    range = static_cast<uint64_t>(*to) - static_cast<uint64_t>(from);
  } else if constexpr (is_floating<T>) {  // [from, 2^digits]: every integer exact
    constexpr int64_t top = int64_t{1} << std::numeric_limits<T>::digits;
    detail::check<ValueError>(from <= top, "random_ expects 'from' to be less than 'to', but got from=", from,
                              " >= to=", top + 1);
    range = static_cast<uint64_t>(top + 1) - static_cast<uint64_t>(from);
  } else {  // [from, the largest T]; the whole int64 range has 2^64 values, range 0
    range =
        static_cast<uint64_t>(static_cast<int64_t>(std::numeric_limits<T>::max())) - static_cast<uint64_t>(from) + 1;
  }
  detail::check<ValueError>(detail::fits<T>(static_cast<double>(from)), "from is out of bounds for ", name);
  return copy_(detail::random_tensor<int64_t>(sizes(), {.device = device()}, gen,
                                              detail::IntegerLane<int64_t>{static_cast<uint64_t>(from), range}));
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
