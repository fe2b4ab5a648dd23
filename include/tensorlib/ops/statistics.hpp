#pragma once
/// \file
/// Statistics of variables and their observations: `aminmax` (PyTorch's
/// (min, max) pair), `cov` and `corrcoef` (rows are variables, columns
/// observations). They are compositions of ops that record and run on every
/// device (reductions, `mm`, pointwise expressions), so they differentiate
/// and run on a GPU as their parts do.

#include <cstdint>
#include <optional>
#include <type_traits>

#include "tensorlib/core/error.hpp"
#include "tensorlib/core/expression.hpp"
#include "tensorlib/core/tensor.hpp"
#include "tensorlib/ops/evaluate.hpp"
#include "tensorlib/ops/factories.hpp"
#include "tensorlib/ops/linalg.hpp"
#include "tensorlib/ops/reduce.hpp"
#include "tensorlib/ops/triangular.hpp"

namespace tensorlib {

/// `torch.aminmax`'s result: the smallest and the largest element(s). An
/// aggregate: `auto [lo, hi] = tl::aminmax(x);`.
template <Element T>
struct MinMax {
  Tensor<T> min;
  Tensor<T> max;
};

/// The smallest and largest elements (`torch.aminmax`), of the whole tensor
/// or along `dim`; NaN where a slice holds one. An empty reduction is an
/// error. Gradients are amin's and amax's (ties share evenly); PyTorch 1.13
/// has no derivative for aminmax.
template <Expression E, class T = value_type_t<E>>
MinMax<T> aminmax(const E& x_expr, std::optional<int64_t> dim = std::nullopt, bool keepdim = false) {
  const Tensor<T> x = detail::materialize(x_expr);
  if (!dim) {
    detail::check(x.numel() != 0,
                  "aminmax(): cannot compute aminmax over an empty dimension as the operation has no identity.");
    return {amin(x, {}, keepdim), amax(x, {}, keepdim)};
  }
  // PyTorch's message has "aminmax:", not "aminmax():".
  detail::check_nonempty_reduction(x.shape(), detail::reduce_mask({*dim}, x.dim(), "aminmax"), "aminmax", true, ": ");
  return {amin(x, {*dim}, keepdim), amax(x, {*dim}, keepdim)};
}

namespace detail {

template <class W>
void check_observation_weights(const Tensor<W>& w, int64_t observations, Device device, const char* name) {
  detail::check<DeviceError>(w.device() == device, "cov(): expected ", name, " to be on the input's device (", device,
                             ") but got ", name, " on ", w.device());
  detail::check(w.dim() <= 1, "cov(): expected ", name, " to have one or fewer dimensions but got ", name, " with ",
                w.dim(), " dimensions");
  detail::check(w.numel() == observations, "cov(): expected ", name,
                " to have the same numel as there are observations in the input but got ", w.numel(),
                " != ", observations);
  detail::check(w.numel() == 0 || amin(w.detach()).item() >= W(0), "cov(): ", name, " cannot be negative");
}

}  // namespace detail

/// The covariance matrix of the variables in the rows of `input`, whose
/// columns are observations (`torch.cov`; a 1-D input is one variable).
/// `correction`: 1 for the unbiased estimate, 0 for the maximum-likelihood
/// one. `fweights`: how often each observation occurs; `aweights`: its
/// importance; both on the input's device. The result is (variables,
/// variables), squeezed: 0-d for one variable. Integral inputs give float.
/// Degrees of freedom at or below 0 give inf or NaN, as in PyTorch (which
/// warns). Typed weights: fweights is int64 and aweights the result type
/// (PyTorch takes any integral fweights and promotes with aweights).
template <Expression E, class T = value_type_t<E>, class R = floating_t<T>>
Tensor<R> cov(const E& input, int64_t correction = 1, const std::optional<Tensor<int64_t>>& fweights = std::nullopt,
              const std::optional<Tensor<std::type_identity_t<R>>>& aweights = std::nullopt) {
  static_assert(!std::is_same_v<T, bool>,
                "cov: bool tensors are not supported (as in PyTorch); convert with .to<float>()");
  const Tensor<T> in = detail::materialize(input);
  detail::check(in.dim() <= 2, "cov(): expected input to have two or fewer dimensions but got an input with ", in.dim(),
                " dimensions");
  Tensor<R> x;
  if constexpr (std::is_same_v<T, R>)
    x = in;
  else
    x = in.template to<R>();
  if (x.dim() < 2) x = x.reshape({1, -1});
  const int64_t observations = x.size(1);
  std::optional<Tensor<R>> w;
  if (fweights) {
    detail::check_observation_weights(*fweights, observations, x.device(), "fweights");
    w = fweights->template to<R>();
  }
  if (aweights) {
    detail::check_observation_weights(*aweights, observations, x.device(), "aweights");
    w = w ? Tensor<R>(*w * *aweights) : *aweights;
  }
  const Tensor<R> w_sum = w ? sum(*w) : full<R>({}, R(observations), {.device = x.device()});
  detail::check(!w || w_sum.item() != R(0), "cov(): weights sum to zero, can't be normalized");
  const Tensor<R> avg = (w ? sum(x * *w, {1}) : sum(x, {1})) / w_sum;
  Tensor<R> norm = w && aweights && correction != 0 ? Tensor<R>(w_sum - R(correction) * sum(*w * *aweights) / w_sum)
                                                    : Tensor<R>(w_sum - R(correction));
  if (norm.item() <= R(0)) norm = zeros<R>({}, {.device = x.device()});
  const Tensor<R> centered = x - avg.unsqueeze(1);
  const Tensor<R> c = mm(centered, (w ? Tensor<R>(centered * *w) : centered).t());
  return Tensor<R>(c / norm).squeeze();
}

/// Pearson's correlation coefficients of the variables in the rows of
/// `input` (`torch.corrcoef`): the covariance scaled by the standard
/// deviations and clipped to [-1, 1]. One variable gives c / c (1, or NaN
/// where its variance is 0, inf or NaN).
template <Expression E, class T = value_type_t<E>, class R = floating_t<T>>
Tensor<R> corrcoef(const E& input) {
  const Tensor<T> in = detail::materialize(input);
  detail::check(in.dim() <= 2, "corrcoef(): expected input to have two or fewer dimensions but got an input with ",
                in.dim(), " dimensions");
  const Tensor<R> c = cov(in);
  if (c.dim() == 0) return c / c;
  const Tensor<R> sd = sqrt(diag(c));
  return clip(c / sd.reshape({-1, 1}) / sd.reshape({1, -1}), -1.0, 1.0);
}

}  // namespace tensorlib
