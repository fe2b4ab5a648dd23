#pragma once
/// \file
/// `tl::optim::RAdam` (PyTorch's `torch.optim.RAdam`): Adam with the
/// variance rectification term; plain bias-corrected momentum while the
/// variance estimate is not yet tractable (rho_t <= 5).

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

/// RAdam's options, PyTorch's names and defaults.
struct RAdamOptions {
  double lr = 1e-3;
  Betas betas{0.9, 0.999};
  double eps = 1e-8;
  double weight_decay = 0;
  bool decoupled_weight_decay = false;
  bool maximize = false;
  TENSORLIB_FIELDS(lr, betas, eps, weight_decay, decoupled_weight_decay, maximize)
};

namespace detail {

using math::mul_add;

// g = ±g (+ wd*p | p *= 1 - lr*wd); m = beta1*m + (1 - beta1)*g;
// v = beta2*v + (1 - beta2)*g*g; mc = m/bc1;
// rectified: p -= mc*lr * (sqrt(bc2)/(sqrt(v) + eps)) * rect, else p -= mc*lr.
template <class T>
struct RAdamStep {
  T beta1, one_minus_beta1, beta2, one_minus_beta2, weight_decay, decay, bias_correction1, bias_correction2_sqrt, lr,
      rect, eps;
  bool maximize, decoupled, rectified;
  bool operator==(const RAdamStep&) const = default;  // items of one launch share it (same_functor)

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
    const V corrected = m / V(bias_correction1);
    if (rectified) {
      const V adaptive_lr = V(bias_correction2_sqrt) / (sqrt(v) + V(eps));
      p = p - corrected * V(lr) * adaptive_lr * V(rect);
    } else {
      p = p - corrected * V(lr);
    }
  }
};

}  // namespace detail

/// RAdam's update rule.
struct RAdamRule {
  static constexpr std::string_view name = "RAdam";
  using Options = RAdamOptions;
  template <Element T>
  struct State {
    int64_t step = 0;
    Tensor<T> exp_avg, exp_avg_sq;
    auto tensors() { return std::tie(exp_avg, exp_avg_sq); }
    TENSORLIB_FIELDS(step, exp_avg, exp_avg_sq)
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
    const double step = static_cast<double>(++s.step);
    const double beta2 = o.betas[1];
    const double bias_correction1 = 1 - std::pow(o.betas[0], step);
    const double bias_correction2 = 1 - std::pow(beta2, step);
    const double rho_inf = 2 / (1 - beta2) - 1;
    const double rho_t = rho_inf - 2 * step * std::pow(beta2, step) / bias_correction2;
    const bool rectified = rho_t > 5;
    const double rect =
        rectified ? std::sqrt((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t)) : 1;
    const detail::RAdamStep<T> f{T(o.betas[0]),
                                 T(1 - o.betas[0]),
                                 T(beta2),
                                 T(1 - beta2),
                                 T(o.weight_decay),
                                 T(1 - o.lr * o.weight_decay),
                                 T(bias_correction1),
                                 T(std::sqrt(bias_correction2)),
                                 T(o.lr),
                                 T(rect),
                                 T(o.eps),
                                 o.maximize,
                                 o.decoupled_weight_decay,
                                 rectified};
    fused_update(f, p, g, s.exp_avg, s.exp_avg_sq);
  }
};

/// PyTorch's `torch.optim.RAdam`.
template <Element T = float>
class RAdam : public Optimizer<RAdamRule, T> {
 public:
  using Optimizer<RAdamRule, T>::Optimizer;
};
template <Element T>
RAdam(std::vector<Tensor<T>>) -> RAdam<T>;
template <Element T>
RAdam(std::vector<Tensor<T>>, RAdamOptions) -> RAdam<T>;
template <Element T>
RAdam(std::vector<ParamGroup<RAdamRule, T>>, RAdamOptions) -> RAdam<T>;
template <Element T>
RAdam(std::vector<ParamGroup<RAdamRule, T>>) -> RAdam<T>;

}  // namespace tensorlib::optim
