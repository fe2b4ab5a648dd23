#pragma once
/// \file
/// `tl::optim::RMSprop` (PyTorch's `torch.optim.RMSprop`): centered or not,
/// with momentum, weight decay and maximize.

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

/// RMSprop's options, PyTorch's names and defaults.
struct RMSpropOptions {
  double lr = 1e-2;
  double alpha = 0.99;
  double eps = 1e-8;
  double weight_decay = 0;
  double momentum = 0;
  bool centered = false;
  bool maximize = false;
  TENSORLIB_FIELDS(lr, alpha, eps, weight_decay, momentum, centered, maximize)
};

namespace detail {

using math::mul_add;

// g = ±g + wd*p; sq = alpha*sq + (1 - alpha)*g*g;
// avg = sqrt(sq - ga*ga) + eps with ga = alpha*ga + (1 - alpha)*g (centered),
// sqrt(sq) + eps otherwise; buf = momentum*buf + g/avg, p -= lr*buf
// (momentum) or p -= lr*g/avg. The buffers present decide the overload.
template <class T, bool Centered, bool Momentum>
struct RMSpropStep {
  T alpha, one_minus_alpha, eps, weight_decay, momentum, neg_lr;
  bool maximize;
  bool operator==(const RMSpropStep&) const = default;  // items of one launch share it (same_functor)

  template <class V>
  TENSORLIB_HOST_DEVICE void run(V& p, V g, V& sq, V* ga, V* buf) const {
    using math::sqrt;
    if (maximize) g = -g;
    if (weight_decay != T(0)) g = mul_add(V(weight_decay), p, g);
    sq = mul_add(V(one_minus_alpha) * g, g, sq * V(alpha));
    V avg;
    if (ga) {
      *ga = mul_add(V(one_minus_alpha), g, *ga * V(alpha));
      avg = sqrt(mul_add(V(T(-1)) * *ga, *ga, sq));
    } else {
      avg = sqrt(sq);
    }
    avg = avg + V(eps);
    if (buf) {
      *buf = *buf * V(momentum) + g / avg;
      p = mul_add(V(neg_lr), *buf, p);
    } else {
      p = p + V(neg_lr) * g / avg;
    }
  }
  template <class V>
  TENSORLIB_HOST_DEVICE void operator()(V& p, V g, V& sq) const requires(!Centered && !Momentum) {
    run<V>(p, g, sq, nullptr, nullptr);
  }
  template <class V>
  TENSORLIB_HOST_DEVICE void operator()(V& p, V g, V& sq, V& extra) const requires(Centered != Momentum) {
    run<V>(p, g, sq, Centered ? &extra : nullptr, Momentum ? &extra : nullptr);
  }
  template <class V>
  TENSORLIB_HOST_DEVICE void operator()(V& p, V g, V& sq, V& ga, V& buf) const requires(Centered&& Momentum) {
    run<V>(p, g, sq, &ga, &buf);
  }
};

}  // namespace detail

/// RMSprop's update rule.
struct RMSpropRule {
  static constexpr std::string_view name = "RMSprop";
  using Options = RMSpropOptions;
  template <Element T>
  struct State {
    int64_t step = 0;
    Tensor<T> square_avg, momentum_buffer, grad_avg;  // the last two only when used
    auto tensors() { return std::tie(square_avg, momentum_buffer, grad_avg); }
    TENSORLIB_FIELDS(step, square_avg, momentum_buffer, grad_avg)
  };

  static void check(const Options& o) {
    detail::check_lr(o.lr);
    detail::check_eps(o.eps);
    tensorlib::detail::check<ValueError>(o.momentum >= 0, "Invalid momentum value: ", o.momentum);
    detail::check_weight_decay(o.weight_decay);
    tensorlib::detail::check<ValueError>(o.alpha >= 0, "Invalid alpha value: ", o.alpha);
  }
  template <Element T>
  static State<T> init(const Options& o, const Tensor<T>& p) {
    const TensorOptions at{.device = p.device()};
    State<T> s{0, zeros<T>(p.sizes(), at), {}, {}};
    if (o.momentum > 0) s.momentum_buffer = zeros<T>(p.sizes(), at);
    if (o.centered) s.grad_avg = zeros<T>(p.sizes(), at);
    return s;
  }
  template <Element T>
  static void update(const Options& o, State<T>& s, Tensor<T>& p, const Tensor<T>& g) {
    ++s.step;
    const TensorOptions at{.device = p.device()};
    if (o.momentum > 0 && !s.momentum_buffer.defined()) s.momentum_buffer = zeros<T>(p.sizes(), at);
    if (o.centered && !s.grad_avg.defined()) s.grad_avg = zeros<T>(p.sizes(), at);
    const T c[] = {T(o.alpha), T(1 - o.alpha), T(o.eps), T(o.weight_decay), T(o.momentum), T(-o.lr)};
    if (o.centered && o.momentum > 0)
      fused_update(detail::RMSpropStep<T, true, true>{c[0], c[1], c[2], c[3], c[4], c[5], o.maximize}, p, g,
                   s.square_avg, s.grad_avg, s.momentum_buffer);
    else if (o.centered)
      fused_update(detail::RMSpropStep<T, true, false>{c[0], c[1], c[2], c[3], c[4], c[5], o.maximize}, p, g,
                   s.square_avg, s.grad_avg);
    else if (o.momentum > 0)
      fused_update(detail::RMSpropStep<T, false, true>{c[0], c[1], c[2], c[3], c[4], c[5], o.maximize}, p, g,
                   s.square_avg, s.momentum_buffer);
    else
      fused_update(detail::RMSpropStep<T, false, false>{c[0], c[1], c[2], c[3], c[4], c[5], o.maximize}, p, g,
                   s.square_avg);
  }
};

/// PyTorch's `torch.optim.RMSprop`.
template <Element T = float>
class RMSprop : public Optimizer<RMSpropRule, T> {
 public:
  using Optimizer<RMSpropRule, T>::Optimizer;
};
template <Element T>
RMSprop(std::vector<Tensor<T>>) -> RMSprop<T>;
template <Element T>
RMSprop(std::vector<Tensor<T>>, RMSpropOptions) -> RMSprop<T>;
template <Element T>
RMSprop(std::vector<ParamGroup<RMSpropRule, T>>, RMSpropOptions) -> RMSprop<T>;
template <Element T>
RMSprop(std::vector<ParamGroup<RMSpropRule, T>>) -> RMSprop<T>;

}  // namespace tensorlib::optim
