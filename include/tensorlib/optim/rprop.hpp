#pragma once
/// \file
/// `tl::optim::Rprop` (PyTorch's `torch.optim.Rprop`) and `tl::optim::ASGD`
/// (`torch.optim.ASGD`): the two rules whose state carries more than
/// moment estimates (per-element step sizes; the running average of the
/// parameter and scalar schedules).

#include <algorithm>
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

/// Rprop's options, PyTorch's names and defaults (`etas` = (etaminus,
/// etaplus), `step_sizes` = (min, max)).
struct RpropOptions {
  double lr = 1e-2;
  Betas etas{0.5, 1.2};
  Betas step_sizes{1e-6, 50};
  bool maximize = false;
  TENSORLIB_FIELDS(lr, etas, step_sizes, maximize)
};

/// ASGD's options, PyTorch's names and defaults.
struct ASGDOptions {
  double lr = 1e-2;
  double lambd = 1e-4;
  double alpha = 0.75;
  double t0 = 1e6;
  double weight_decay = 0;
  bool maximize = false;
  TENSORLIB_FIELDS(lr, lambd, alpha, t0, weight_decay, maximize)
};

namespace detail {

using math::mul_add;

// s = sign(g*prev) mapped to etaplus (>0), etaminus (<0), 1 (0);
// step = clamp(step*s, min, max); g = 0 where s == etaminus;
// p -= sign(g)*step; prev = g.
template <class T>
struct RpropStep {
  T etaminus, etaplus, step_min, step_max;
  bool maximize;
  bool operator==(const RpropStep&) const = default;  // items of one launch share it (same_functor)

  template <class V>
  TENSORLIB_HOST_DEVICE void operator()(V& p, V g, V& prev, V& step) const {
    using math::select;
    if (maximize) g = -g;
    const V zero(T(0)), one(T(1));
    const V product = g * prev;
    const V factor = select(product > zero, V(etaplus), select(product < zero, V(etaminus), one));
    step = step * factor;
    step = select(step < V(step_min), V(step_min), select(step > V(step_max), V(step_max), step));
    g = select(factor == V(etaminus), zero, g);
    const V sign = select(g > zero, one, select(g < zero, -one, zero));
    p = p + V(T(-1)) * sign * step;
    prev = g;
  }
};

// g = ±g + wd*p; p *= 1 - lambd*eta; p -= eta*g; ax += (p - ax)*mu, or
// ax = p while mu == 1.
template <class T>
struct ASGDStep {
  T weight_decay, decay, neg_eta, mu;
  bool maximize, averaging;
  bool operator==(const ASGDStep&) const = default;  // items of one launch share it (same_functor)

  template <class V>
  TENSORLIB_HOST_DEVICE void operator()(V& p, V g, V& ax) const {
    if (maximize) g = -g;
    if (weight_decay != T(0)) g = mul_add(V(weight_decay), p, g);
    p = p * V(decay);
    p = mul_add(V(neg_eta), g, p);
    ax = averaging ? ax + (p - ax) * V(mu) : p;
  }
};

}  // namespace detail

/// Rprop's update rule.
struct RpropRule {
  static constexpr std::string_view name = "Rprop";
  using Options = RpropOptions;
  template <Element T>
  struct State {
    int64_t step = 0;
    Tensor<T> prev, step_size;
    auto tensors() { return std::tie(prev, step_size); }
    TENSORLIB_FIELDS(step, prev, step_size)
  };

  static void check(const Options& o) {
    detail::check_lr(o.lr);
    tensorlib::detail::check<ValueError>(0 < o.etas[0] && o.etas[0] < 1 && 1 < o.etas[1],
                                         "Invalid eta values: ", o.etas[0], ", ", o.etas[1]);
  }
  template <Element T>
  static State<T> init(const Options& o, const Tensor<T>& p) {
    return {0, zeros<T>(p.sizes(), {.device = p.device()}), full<T>(p.sizes(), T(o.lr), {.device = p.device()})};
  }
  template <Element T>
  static void update(const Options& o, State<T>& s, Tensor<T>& p, const Tensor<T>& g) {
    ++s.step;
    const detail::RpropStep<T> f{T(o.etas[0]), T(o.etas[1]), T(o.step_sizes[0]), T(o.step_sizes[1]), o.maximize};
    fused_update(f, p, g, s.prev, s.step_size);
  }
};

/// ASGD's update rule.
struct ASGDRule {
  static constexpr std::string_view name = "ASGD";
  using Options = ASGDOptions;
  template <Element T>
  struct State {
    int64_t step = 0;
    /// The step size and averaging rate, rounded to T (PyTorch rounds them
    /// to its default dtype, float32 unless changed).
    T eta = T(0), mu = T(1);
    Tensor<T> ax;
    auto tensors() { return std::tie(ax); }
    TENSORLIB_FIELDS(step, eta, mu, ax)
  };

  static void check(const Options& o) {
    detail::check_lr(o.lr);
    detail::check_weight_decay(o.weight_decay);
  }
  template <Element T>
  static State<T> init(const Options& o, const Tensor<T>& p) {
    return {0, T(o.lr), T(1), zeros<T>(p.sizes(), {.device = p.device()})};
  }
  template <Element T>
  static void update(const Options& o, State<T>& s, Tensor<T>& p, const Tensor<T>& g) {
    const double step = static_cast<double>(++s.step);
    const double eta = s.eta;
    const detail::ASGDStep<T> f{T(o.weight_decay), T(1 - o.lambd * eta), T(-eta), s.mu, o.maximize, s.mu != T(1)};
    fused_update(f, p, g, s.ax);
    s.eta = static_cast<T>(o.lr / std::pow(1 + o.lambd * o.lr * step, o.alpha));
    s.mu = static_cast<T>(1 / std::max(1.0, step - o.t0));
  }
};

/// PyTorch's `torch.optim.Rprop`.
template <Element T = float>
class Rprop : public Optimizer<RpropRule, T> {
 public:
  using Optimizer<RpropRule, T>::Optimizer;
};
template <Element T>
Rprop(std::vector<Tensor<T>>) -> Rprop<T>;
template <Element T>
Rprop(std::vector<Tensor<T>>, RpropOptions) -> Rprop<T>;
template <Element T>
Rprop(std::vector<ParamGroup<RpropRule, T>>, RpropOptions) -> Rprop<T>;
template <Element T>
Rprop(std::vector<ParamGroup<RpropRule, T>>) -> Rprop<T>;

/// PyTorch's `torch.optim.ASGD`.
template <Element T = float>
class ASGD : public Optimizer<ASGDRule, T> {
 public:
  using Optimizer<ASGDRule, T>::Optimizer;
};
template <Element T>
ASGD(std::vector<Tensor<T>>) -> ASGD<T>;
template <Element T>
ASGD(std::vector<Tensor<T>>, ASGDOptions) -> ASGD<T>;
template <Element T>
ASGD(std::vector<ParamGroup<ASGDRule, T>>, ASGDOptions) -> ASGD<T>;
template <Element T>
ASGD(std::vector<ParamGroup<ASGDRule, T>>) -> ASGD<T>;

}  // namespace tensorlib::optim
