#pragma once
/// \file
/// `tl::optim::Adagrad` (PyTorch's `torch.optim.Adagrad`) and
/// `tl::optim::Adadelta` (`torch.optim.Adadelta`): the accumulated-square
/// rules. Dense gradients only (tensorlib has no sparse tensors).

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

/// Adagrad's options, PyTorch's names and defaults.
struct AdagradOptions {
  double lr = 1e-2;
  double lr_decay = 0;
  double weight_decay = 0;
  double initial_accumulator_value = 0;
  double eps = 1e-10;
  bool maximize = false;
  TENSORLIB_FIELDS(lr, lr_decay, weight_decay, initial_accumulator_value, eps, maximize)
};

/// Adadelta's options, PyTorch's names and defaults.
struct AdadeltaOptions {
  double lr = 1.0;
  double rho = 0.9;
  double eps = 1e-6;
  double weight_decay = 0;
  bool maximize = false;
  TENSORLIB_FIELDS(lr, rho, eps, weight_decay, maximize)
};

namespace detail {

using math::mul_add;

// g = ±g + wd*p; sum += g*g; p -= clr * g/(sqrt(sum) + eps).
template <class T>
struct AdagradStep {
  T weight_decay, eps, neg_clr;
  bool maximize;
  bool operator==(const AdagradStep&) const = default;  // items of one launch share it (same_functor)

  template <class V>
  TENSORLIB_HOST_DEVICE void operator()(V& p, V g, V& sum) const {
    using math::sqrt;
    if (maximize) g = -g;
    if (weight_decay != T(0)) g = mul_add(V(weight_decay), p, g);
    sum = mul_add(V(T(1)) * g, g, sum);
    p = p + V(neg_clr) * g / (sqrt(sum) + V(eps));
  }
};

// g = ±g + wd*p; sq = rho*sq + (1 - rho)*g*g;
// delta = sqrt(acc + eps)/sqrt(sq + eps) * g; acc = rho*acc + (1 - rho)*delta^2;
// p -= lr*delta.
template <class T>
struct AdadeltaStep {
  T rho, one_minus_rho, eps, weight_decay, neg_lr;
  bool maximize;
  bool operator==(const AdadeltaStep&) const = default;  // items of one launch share it (same_functor)

  template <class V>
  TENSORLIB_HOST_DEVICE void operator()(V& p, V g, V& sq, V& acc) const {
    using math::sqrt;
    if (maximize) g = -g;
    if (weight_decay != T(0)) g = mul_add(V(weight_decay), p, g);
    sq = mul_add(V(one_minus_rho) * g, g, sq * V(rho));
    const V delta = sqrt(acc + V(eps)) / sqrt(sq + V(eps)) * g;
    acc = mul_add(V(one_minus_rho) * delta, delta, acc * V(rho));
    p = mul_add(V(neg_lr), delta, p);
  }
};

}  // namespace detail

/// Adagrad's update rule.
struct AdagradRule {
  static constexpr std::string_view name = "Adagrad";
  using Options = AdagradOptions;
  template <Element T>
  struct State {
    int64_t step = 0;
    Tensor<T> sum;
    auto tensors() { return std::tie(sum); }
    TENSORLIB_FIELDS(step, sum)
  };

  static void check(const Options& o) {
    detail::check_lr(o.lr);
    tensorlib::detail::check<ValueError>(o.lr_decay >= 0, "Invalid lr_decay value: ", o.lr_decay);
    detail::check_weight_decay(o.weight_decay);
    tensorlib::detail::check<ValueError>(o.initial_accumulator_value >= 0,
                                         "Invalid initial_accumulator_value value: ", o.initial_accumulator_value);
    detail::check_eps(o.eps);
  }
  template <Element T>
  static State<T> init(const Options& o, const Tensor<T>& p) {
    return {0, full<T>(p.sizes(), T(o.initial_accumulator_value), {.device = p.device()})};
  }
  template <Element T>
  static void update(const Options& o, State<T>& s, Tensor<T>& p, const Tensor<T>& g) {
    const double clr = o.lr / (1 + static_cast<double>(s.step++) * o.lr_decay);
    fused_update(detail::AdagradStep<T>{T(o.weight_decay), T(o.eps), T(-clr), o.maximize}, p, g, s.sum);
  }
};

/// Adadelta's update rule.
struct AdadeltaRule {
  static constexpr std::string_view name = "Adadelta";
  using Options = AdadeltaOptions;
  template <Element T>
  struct State {
    int64_t step = 0;
    Tensor<T> square_avg, acc_delta;
    auto tensors() { return std::tie(square_avg, acc_delta); }
    TENSORLIB_FIELDS(step, square_avg, acc_delta)
  };

  static void check(const Options& o) {
    detail::check_lr(o.lr);
    tensorlib::detail::check<ValueError>(o.rho >= 0 && o.rho <= 1, "Invalid rho value: ", o.rho);
    detail::check_eps(o.eps);
    detail::check_weight_decay(o.weight_decay);
  }
  template <Element T>
  static State<T> init(const Options&, const Tensor<T>& p) {
    return {0, zeros<T>(p.sizes(), {.device = p.device()}), zeros<T>(p.sizes(), {.device = p.device()})};
  }
  template <Element T>
  static void update(const Options& o, State<T>& s, Tensor<T>& p, const Tensor<T>& g) {
    ++s.step;
    fused_update(detail::AdadeltaStep<T>{T(o.rho), T(1 - o.rho), T(o.eps), T(o.weight_decay), T(-o.lr), o.maximize}, p,
                 g, s.square_avg, s.acc_delta);
  }
};

/// PyTorch's `torch.optim.Adagrad`.
template <Element T = float>
class Adagrad : public Optimizer<AdagradRule, T> {
 public:
  using Optimizer<AdagradRule, T>::Optimizer;
};
template <Element T>
Adagrad(std::vector<Tensor<T>>) -> Adagrad<T>;
template <Element T>
Adagrad(std::vector<Tensor<T>>, AdagradOptions) -> Adagrad<T>;
template <Element T>
Adagrad(std::vector<ParamGroup<AdagradRule, T>>, AdagradOptions) -> Adagrad<T>;
template <Element T>
Adagrad(std::vector<ParamGroup<AdagradRule, T>>) -> Adagrad<T>;

/// PyTorch's `torch.optim.Adadelta`.
template <Element T = float>
class Adadelta : public Optimizer<AdadeltaRule, T> {
 public:
  using Optimizer<AdadeltaRule, T>::Optimizer;
};
template <Element T>
Adadelta(std::vector<Tensor<T>>) -> Adadelta<T>;
template <Element T>
Adadelta(std::vector<Tensor<T>>, AdadeltaOptions) -> Adadelta<T>;
template <Element T>
Adadelta(std::vector<ParamGroup<AdadeltaRule, T>>, AdadeltaOptions) -> Adadelta<T>;
template <Element T>
Adadelta(std::vector<ParamGroup<AdadeltaRule, T>>) -> Adadelta<T>;

}  // namespace tensorlib::optim
