#pragma once
/// \file
/// `tl::optim::NAdam` (PyTorch's `torch.optim.NAdam`): Adam with Nesterov
/// momentum and a momentum schedule, L2 or decoupled weight decay.
/// Follows current PyTorch: `mu_product_next = mu_product * mu_next`
/// (PyTorch 1.13 multiplied by `mu` twice, a bug fixed since).

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

/// NAdam's options, PyTorch's names and defaults.
struct NAdamOptions {
  double lr = 2e-3;
  Betas betas{0.9, 0.999};
  double eps = 1e-8;
  double weight_decay = 0;
  double momentum_decay = 4e-3;
  bool decoupled_weight_decay = false;
  bool maximize = false;
  TENSORLIB_FIELDS(lr, betas, eps, weight_decay, momentum_decay, decoupled_weight_decay, maximize)
};

namespace detail {

using math::mul_add;

// g = ±g (+ wd*p | p *= 1 - lr*wd); m = beta1*m + (1 - beta1)*g;
// v = beta2*v + (1 - beta2)*g*g; d = sqrt(v/bc2) + eps;
// p += grad_coef * g/d; p += avg_coef * m/d.
template <class T>
struct NAdamStep {
  T beta1, one_minus_beta1, beta2, one_minus_beta2, weight_decay, decay, bias_correction2, eps, grad_coef, avg_coef;
  bool maximize, decoupled;
  bool operator==(const NAdamStep&) const = default;  // items of one launch share it (same_functor)

  template <class V>
  TENSORLIB_HOST_DEVICE void operator()(V& p, V g, V& m, V& v) const {
    using math::sqrt;
    if (maximize) g = -g;
    if (decoupled)
      p = p * V(decay);
    else if (weight_decay != T(0))
      g = mul_add(V(weight_decay), p, g);
    m = mul_add(V(one_minus_beta1), g, m * V(beta1));
    v = mul_add(V(one_minus_beta2) * g, g, v * V(beta2));
    const V denom = sqrt(v / V(bias_correction2)) + V(eps);
    p = p + V(grad_coef) * g / denom;
    p = p + V(avg_coef) * m / denom;
  }
};

}  // namespace detail

/// NAdam's update rule.
struct NAdamRule {
  static constexpr std::string_view name = "NAdam";
  using Options = NAdamOptions;
  template <Element T>
  struct State {
    int64_t step = 0;
    /// The product of the momentum schedule so far, rounded to T each step
    /// (PyTorch rounds it to its default dtype, float32 unless changed).
    T mu_product = T(1);
    Tensor<T> exp_avg, exp_avg_sq;
    auto tensors() { return std::tie(exp_avg, exp_avg_sq); }
    TENSORLIB_FIELDS(step, mu_product, exp_avg, exp_avg_sq)
  };

  static void check(const Options& o) {
    detail::check_lr(o.lr);
    detail::check_eps(o.eps);
    detail::check_betas(o.betas);
    detail::check_weight_decay(o.weight_decay);
    tensorlib::detail::check<ValueError>(o.momentum_decay >= 0, "Invalid momentum_decay value: ", o.momentum_decay);
  }
  template <Element T>
  static State<T> init(const Options&, const Tensor<T>& p) {
    return {0, T(1), zeros<T>(p.sizes(), {.device = p.device()}), zeros<T>(p.sizes(), {.device = p.device()})};
  }
  template <Element T>
  static void update(const Options& o, State<T>& s, Tensor<T>& p, const Tensor<T>& g) {
    const double step = static_cast<double>(++s.step);
    const double beta1 = o.betas[0];
    const double mu = beta1 * (1 - 0.5 * std::pow(0.96, step * o.momentum_decay));
    const double mu_next = beta1 * (1 - 0.5 * std::pow(0.96, (step + 1) * o.momentum_decay));
    s.mu_product = static_cast<T>(s.mu_product * static_cast<T>(mu));
    const double mu_product = s.mu_product;
    const double mu_product_next = mu_product * mu_next;
    const detail::NAdamStep<T> f{T(beta1),
                                 T(1 - beta1),
                                 T(o.betas[1]),
                                 T(1 - o.betas[1]),
                                 T(o.weight_decay),
                                 T(1 - o.lr * o.weight_decay),
                                 T(1 - std::pow(o.betas[1], step)),
                                 T(o.eps),
                                 T(-o.lr * (1 - mu) / (1 - mu_product)),
                                 T(-o.lr * mu_next / (1 - mu_product_next)),
                                 o.maximize,
                                 o.decoupled_weight_decay};
    fused_update(f, p, g, s.exp_avg, s.exp_avg_sq);
  }
};

/// PyTorch's `torch.optim.NAdam`.
template <Element T = float>
class NAdam : public Optimizer<NAdamRule, T> {
 public:
  using Optimizer<NAdamRule, T>::Optimizer;
};
template <Element T>
NAdam(std::vector<Tensor<T>>) -> NAdam<T>;
template <Element T>
NAdam(std::vector<Tensor<T>>, NAdamOptions) -> NAdam<T>;
template <Element T>
NAdam(std::vector<ParamGroup<NAdamRule, T>>, NAdamOptions) -> NAdam<T>;
template <Element T>
NAdam(std::vector<ParamGroup<NAdamRule, T>>) -> NAdam<T>;

}  // namespace tensorlib::optim
