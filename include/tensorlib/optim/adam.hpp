#pragma once
/// \file
/// `tl::optim::Adam` and `tl::optim::AdamW` (PyTorch's `torch.optim.Adam`,
/// `torch.optim.AdamW`): one rule, with L2 weight decay added to the
/// gradient (Adam) or decoupled into the parameter (AdamW), AMSGrad and
/// maximize. Each parameter's step is one fused pass over the parameter,
/// its gradient and its two (three with AMSGrad) moment buffers.

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

/// Adam's options, PyTorch's names and defaults.
struct AdamOptions {
  double lr = 1e-3;
  Betas betas{0.9, 0.999};
  double eps = 1e-8;
  double weight_decay = 0;
  bool amsgrad = false;
  bool maximize = false;
  TENSORLIB_FIELDS(lr, betas, eps, weight_decay, amsgrad, maximize)
};

/// AdamW's options: Adam's, with PyTorch's AdamW default `weight_decay = 1e-2`.
struct AdamWOptions {
  double lr = 1e-3;
  Betas betas{0.9, 0.999};
  double eps = 1e-8;
  double weight_decay = 1e-2;
  bool amsgrad = false;
  bool maximize = false;
  TENSORLIB_FIELDS(lr, betas, eps, weight_decay, amsgrad, maximize)
};

namespace detail {

using math::mul_add;

// One element of an Adam step, in PyTorch's order of operations:
// g = ±g (+ wd*p for Adam) | p *= 1 - lr*wd (AdamW);
// m = beta1*m + (1 - beta1)*g; v = beta2*v + (1 - beta2)*g*g;
// vmax = max(vmax, v) (AMSGrad); p += -step_size * m / (sqrt(v)/sqrt(bc2) + eps).
template <class T>
struct AdamStep {
  T beta1, one_minus_beta1, beta2, one_minus_beta2, weight_decay, decay, bias_correction2_sqrt, eps, neg_step_size;
  bool maximize, decoupled;
  bool operator==(const AdamStep&) const = default;  // items of one launch share it (same_functor)

  template <class V>
  TENSORLIB_HOST_DEVICE V moments(V& p, V g, V& m, V& v) const {
    if (maximize) g = -g;
    if (decoupled)
      p = p * V(decay);
    else if (weight_decay != T(0))
      g = mul_add(V(weight_decay), p, g);
    m = mul_add(V(one_minus_beta1), g, m * V(beta1));
    v = mul_add(V(one_minus_beta2) * g, g, v * V(beta2));
    return g;
  }
  template <class V>
  TENSORLIB_HOST_DEVICE void apply(V& p, const V& m, const V& v) const {
    using math::sqrt;
    const V denom = sqrt(v) / V(bias_correction2_sqrt) + V(eps);
    p = p + V(neg_step_size) * m / denom;
  }
  template <class V>
  TENSORLIB_HOST_DEVICE void operator()(V& p, V g, V& m, V& v) const {
    moments(p, g, m, v);
    apply(p, m, v);
  }
  template <class V>
  TENSORLIB_HOST_DEVICE void operator()(V& p, V g, V& m, V& v, V& vmax) const {
    using math::select;
    moments(p, g, m, v);
    vmax = select(vmax < v, v, vmax);
    apply(p, m, vmax);
  }
};

// Adam and AdamW: `Decoupled` picks how weight decay applies.
template <class Opts, bool Decoupled>
struct AdamFamilyRule {
  static constexpr std::string_view name = Decoupled ? "AdamW" : "Adam";
  using Options = Opts;
  template <Element T>
  struct State {
    int64_t step = 0;
    Tensor<T> exp_avg, exp_avg_sq, max_exp_avg_sq;  // the last only with amsgrad
    auto tensors() { return std::tie(exp_avg, exp_avg_sq, max_exp_avg_sq); }
    TENSORLIB_FIELDS(step, exp_avg, exp_avg_sq, max_exp_avg_sq)
  };

  static void check(const Options& o) {
    check_lr(o.lr);
    check_eps(o.eps);
    check_betas(o.betas);
    check_weight_decay(o.weight_decay);
  }
  template <Element T>
  static State<T> init(const Options& o, const Tensor<T>& p) {
    const TensorOptions at{.device = p.device()};
    State<T> s{0, zeros<T>(p.sizes(), at), zeros<T>(p.sizes(), at), {}};
    if (o.amsgrad) s.max_exp_avg_sq = zeros<T>(p.sizes(), at);
    return s;
  }
  template <Element T>
  static void update(const Options& o, State<T>& s, Tensor<T>& p, const Tensor<T>& g) {
    const double step = static_cast<double>(++s.step);
    const double bias_correction1 = 1 - std::pow(o.betas[0], step);
    const double bias_correction2 = 1 - std::pow(o.betas[1], step);
    const AdamStep<T> f{T(o.betas[0]),
                        T(1 - o.betas[0]),
                        T(o.betas[1]),
                        T(1 - o.betas[1]),
                        T(o.weight_decay),
                        T(1 - o.lr * o.weight_decay),
                        T(std::sqrt(bias_correction2)),
                        T(o.eps),
                        T(-(o.lr / bias_correction1)),
                        o.maximize,
                        Decoupled};
    if (o.amsgrad) {
      if (!s.max_exp_avg_sq.defined()) s.max_exp_avg_sq = zeros<T>(p.sizes(), {.device = p.device()});
      fused_update(f, p, g, s.exp_avg, s.exp_avg_sq, s.max_exp_avg_sq);
    } else {
      fused_update(f, p, g, s.exp_avg, s.exp_avg_sq);
    }
  }
};

}  // namespace detail

/// Adam's update rule.
using AdamRule = detail::AdamFamilyRule<AdamOptions, false>;
/// AdamW's update rule.
using AdamWRule = detail::AdamFamilyRule<AdamWOptions, true>;

/// PyTorch's `torch.optim.Adam`: `tl::optim::Adam opt(params, {.lr = 1e-3, .weight_decay = 1e-2})`.
template <Element T = float>
class Adam : public Optimizer<AdamRule, T> {
 public:
  using Optimizer<AdamRule, T>::Optimizer;
};
template <Element T>
Adam(std::vector<Tensor<T>>) -> Adam<T>;
template <Element T>
Adam(std::vector<Tensor<T>>, AdamOptions) -> Adam<T>;
template <Element T>
Adam(std::vector<ParamGroup<AdamRule, T>>, AdamOptions) -> Adam<T>;
template <Element T>
Adam(std::vector<ParamGroup<AdamRule, T>>) -> Adam<T>;

/// PyTorch's `torch.optim.AdamW` (decoupled weight decay).
template <Element T = float>
class AdamW : public Optimizer<AdamWRule, T> {
 public:
  using Optimizer<AdamWRule, T>::Optimizer;
};
template <Element T>
AdamW(std::vector<Tensor<T>>) -> AdamW<T>;
template <Element T>
AdamW(std::vector<Tensor<T>>, AdamWOptions) -> AdamW<T>;
template <Element T>
AdamW(std::vector<ParamGroup<AdamWRule, T>>, AdamWOptions) -> AdamW<T>;
template <Element T>
AdamW(std::vector<ParamGroup<AdamWRule, T>>) -> AdamW<T>;

}  // namespace tensorlib::optim
