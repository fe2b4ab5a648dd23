#pragma once
/// \file
/// `tl::mvlgamma` (torch.mvlgamma, torch.special.multigammaln): the
/// multivariate log-gamma function of dimension p,
///
///     log Gamma_p(x) = p (p - 1) / 4 log(pi) + sum_{j < p} lgamma(x - j / 2),
///
/// computed as PyTorch does: lgamma of x against the p shifts in a new last
/// dimension, summed over it. So it is a fused lgamma and a reduction, and
/// differentiates through them. Like PyTorch since 2.0, the elements are not
/// checked against (p - 1) / 2 (which would synchronize with a GPU): below
/// it, lgamma's poles and negative values give inf or a finite value.

#include <cmath>
#include <cstdint>
#include <numbers>
#include <type_traits>

#include "tensorlib/core/error.hpp"
#include "tensorlib/core/expression.hpp"
#include "tensorlib/core/inplace_methods.hpp"
#include "tensorlib/core/pointwise_methods.hpp"
#include "tensorlib/core/tensor.hpp"
#include "tensorlib/expr/functions.hpp"
#include "tensorlib/expr/operators.hpp"
#include "tensorlib/ops/evaluate.hpp"
#include "tensorlib/ops/factories.hpp"
#include "tensorlib/ops/inplace.hpp"
#include "tensorlib/ops/reduce.hpp"

namespace tensorlib {

/// The multivariate log-gamma function of dimension p >= 1; integral inputs
/// compute in the default floating type.
template <Expression E, class T = floating_t<value_type_t<E>>>
Tensor<T> mvlgamma(const E& x, int64_t p) {
  static_assert(!std::is_same_v<value_type_t<E>, bool>,
                "mvlgamma: the input may not be a boolean tensor (as in PyTorch); convert it with .to<float>()");
  detail::check<ValueError>(p >= 1, "mvlgamma: p has to be greater than or equal to 1, got ", p);
  const Tensor<T> a = cast<T>(x);
  // 0, -1/2, ..., -(p - 1)/2, as a trailing dimension.
  const Tensor<T> shifts = arange<T>(0.0, -0.5 * static_cast<double>(p), -0.5, {.device = a.device()});
  const Tensor<T> terms = lgamma(a.unsqueeze(-1) + shifts);
  const double constant = static_cast<double>(p) * static_cast<double>(p - 1) / 4 * std::log(std::numbers::pi);
  return Tensor<T>(terms.sum(-1) + static_cast<T>(constant));
}

namespace special {

/// `torch.special.multigammaln`: `tl::mvlgamma`.
template <Expression E>
auto multigammaln(const E& x, int64_t p) {
  return tensorlib::mvlgamma(x, p);
}

}  // namespace special

template <class D>
auto PointwiseMethods<D>::mvlgamma(int64_t p) const {
  return tensorlib::mvlgamma(self(), p);
}

template <Element T>
Tensor<T>& InplaceMethods<T>::mvlgamma_(int64_t p) {
  return detail::write_result_in_place(self(), tensorlib::mvlgamma(self(), p), "mvlgamma_");
}

}  // namespace tensorlib
