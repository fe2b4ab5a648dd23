#pragma once
/// \file
/// `tl::optim::Adamax` (PyTorch's `torch.optim.Adamax`): Adam with the
/// infinity norm in place of the second moment.

#include <cmath>
#include <cstdint>
#include <string_view>
#include <tuple>
#include <vector>

#include "tensorlib/core/config.hpp"
#include "tensorlib/core/named_fields.hpp"
#include "tensorlib/core/tensor.hpp"
#include "tensorlib/expr/math/primitives.hpp"
#include "tensorlib/ops/factories.hpp"
#include "tensorlib/optim/fused_update.hpp"
#include "tensorlib/optim/optimizer.hpp"
#include "tensorlib/optim/option_checks.hpp"

namespace tensorlib::optim {

/// Adamax's options, PyTorch's names and defaults.
struct AdamaxOptions {
  double lr = 2e-3;
  Betas betas{0.9, 0.999};
  double eps = 1e-8;
  double weight_decay = 0;
  bool maximize = false;
  TENSORLIB_FIELDS(lr, betas, eps, weight_decay, maximize)
};

namespace detail {

using math::mul_add;

// g = ±g + wd*p; m = beta1*m + (1 - beta1)*g; u = max(beta2*u, |g| + eps);
// p += -lr/(1 - beta1^t) * m/u.
template <class T>
struct AdamaxStep {
  T beta1, one_minus_beta1, beta2, eps, weight_decay, neg_clr;
  bool maximize;
  bool operator==(const AdamaxStep&) const = default;  // items of one launch share it (same_functor)

  template <class V>
  TENSORLIB_HOST_DEVICE void operator()(V& p, V g, V& m, V& u) const {
    using math::abs;
    using math::select;
    if (maximize) g = -g;
    if (weight_decay != T(0)) g = mul_add(V(weight_decay), p, g);
    m = mul_add(V(one_minus_beta1), g, m * V(beta1));
    const V decayed = u * V(beta2);
    const V bound = abs(g) + V(eps);
    u = select(decayed < bound, bound, decayed);
    p = p + V(neg_clr) * m / u;
  }
};

}  // namespace detail

/// Adamax's update rule.
struct AdamaxRule {
  static constexpr std::string_view name = "Adamax";
  using Options = AdamaxOptions;
  template <Element T>
  struct State {
    int64_t step = 0;
    Tensor<T> exp_avg, exp_inf;
    auto tensors() { return std::tie(exp_avg, exp_inf); }
    TENSORLIB_FIELDS(step, exp_avg, exp_inf)
  };

  static void check(const Options& o) {
    detail::check_lr(o.lr);
    detail::check_eps(o.eps);
    detail::check_betas(o.betas);
    detail::check_weight_decay(o.weight_decay);
  }
  template <Element T>
  static State<T> init(const Options&, const Tensor<T>& p) {
    return {0, zeros<T>(p.sizes(), {.device = p.device()}), zeros<T>(p.sizes(), {.device = p.device()})};
  }
  template <Element T>
  static void update(const Options& o, State<T>& s, Tensor<T>& p, const Tensor<T>& g) {
    const double clr = o.lr / (1 - std::pow(o.betas[0], static_cast<double>(++s.step)));
    const detail::AdamaxStep<T> f{T(o.betas[0]),     T(1 - o.betas[0]), T(o.betas[1]), T(o.eps),
                                  T(o.weight_decay), T(-clr),           o.maximize};
    fused_update(f, p, g, s.exp_avg, s.exp_inf);
  }
};

/// PyTorch's `torch.optim.Adamax`.
template <Element T = float>
class Adamax : public Optimizer<AdamaxRule, T> {
 public:
  using Optimizer<AdamaxRule, T>::Optimizer;
};
template <Element T>
Adamax(std::vector<Tensor<T>>) -> Adamax<T>;
template <Element T>
Adamax(std::vector<Tensor<T>>, AdamaxOptions) -> Adamax<T>;
template <Element T>
Adamax(std::vector<ParamGroup<AdamaxRule, T>>, AdamaxOptions) -> Adamax<T>;
template <Element T>
Adamax(std::vector<ParamGroup<AdamaxRule, T>>) -> Adamax<T>;

}  // namespace tensorlib::optim
