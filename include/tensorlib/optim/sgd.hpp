#pragma once
/// \file
/// `tl::optim::SGD`: stochastic gradient descent with momentum, dampening,
/// Nesterov momentum, weight decay and maximize (PyTorch's `torch.optim.SGD`,
/// current defaults: `lr = 1e-3`). The smallest update rule: read it to see
/// what a rule provides (optim/optimizer.hpp, `UpdateRule`).

#include <string_view>
#include <tuple>
#include <vector>

#include "tensorlib/core/config.hpp"
#include "tensorlib/core/error.hpp"
#include "tensorlib/core/named_fields.hpp"
#include "tensorlib/core/tensor.hpp"
#include "tensorlib/ops/factories.hpp"
#include "tensorlib/optim/fused_update.hpp"
#include "tensorlib/optim/optimizer.hpp"
#include "tensorlib/optim/option_checks.hpp"

namespace tensorlib::optim {

/// SGD's options, PyTorch's names and defaults.
struct SGDOptions {
  double lr = 1e-3;
  double momentum = 0;
  double dampening = 0;
  double weight_decay = 0;
  bool nesterov = false;
  bool maximize = false;
  TENSORLIB_FIELDS(lr, momentum, dampening, weight_decay, nesterov, maximize)
};

namespace detail {

using math::mul_add;

// One element of SGD's step, in PyTorch's order of operations:
// d = ±g + wd*p; buf = first ? d : momentum*buf + (1 - dampening)*d;
// d = nesterov ? d + momentum*buf : buf; p -= lr*d.
template <class T>
struct SGDStep {
  T neg_lr, momentum, one_minus_dampening, weight_decay;
  bool nesterov, maximize, first;
  bool operator==(const SGDStep&) const = default;  // items of one launch share it (same_functor)

  template <class V>
  TENSORLIB_HOST_DEVICE V direction(const V& p, V g) const {
    if (maximize) g = -g;
    if (weight_decay != T(0)) g = mul_add(V(weight_decay), p, g);
    return g;
  }
  template <class V>
  TENSORLIB_HOST_DEVICE void operator()(V& p, V g) const {
    p = mul_add(V(neg_lr), direction(p, g), p);
  }
  template <class V>
  TENSORLIB_HOST_DEVICE void operator()(V& p, V g, V& buf) const {
    V d = direction(p, g);
    buf = first ? d : mul_add(V(one_minus_dampening), d, buf * V(momentum));
    d = nesterov ? mul_add(V(momentum), buf, d) : buf;
    p = mul_add(V(neg_lr), d, p);
  }
};

}  // namespace detail

/// SGD's update rule.
struct SGDRule {
  static constexpr std::string_view name = "SGD";
  using Options = SGDOptions;
  template <Element T>
  struct State {
    /// Undefined until the first step with momentum (PyTorch's None).
    Tensor<T> momentum_buffer;
    auto tensors() { return std::tie(momentum_buffer); }
    TENSORLIB_FIELDS(momentum_buffer)
  };

  static void check(const Options& o) {
    detail::check_lr(o.lr);
    tensorlib::detail::check<ValueError>(o.momentum >= 0, "Invalid momentum value: ", o.momentum);
    detail::check_weight_decay(o.weight_decay);
    tensorlib::detail::check<ValueError>(!o.nesterov || (o.momentum > 0 && o.dampening == 0),
                                         "Nesterov momentum requires a momentum and zero dampening");
  }
  template <Element T>
  static State<T> init(const Options&, const Tensor<T>&) {
    return {};
  }
  template <Element T>
  static void update(const Options& o, State<T>& s, Tensor<T>& p, const Tensor<T>& g) {
    detail::SGDStep<T> f{T(-o.lr),   T(o.momentum), T(1 - o.dampening),          T(o.weight_decay),
                         o.nesterov, o.maximize,    !s.momentum_buffer.defined()};
    if (o.momentum == 0) return fused_update(f, p, g);
    if (f.first) s.momentum_buffer = zeros<T>(p.sizes(), {.device = p.device()});
    fused_update(f, p, g, s.momentum_buffer);
  }
};

/// PyTorch's `torch.optim.SGD`: `tl::optim::SGD opt(params, {.lr = 0.1, .momentum = 0.9})`.
template <Element T = float>
class SGD : public Optimizer<SGDRule, T> {
 public:
  using Optimizer<SGDRule, T>::Optimizer;
};
template <Element T>
SGD(std::vector<Tensor<T>>) -> SGD<T>;
template <Element T>
SGD(std::vector<Tensor<T>>, SGDOptions) -> SGD<T>;
template <Element T>
SGD(std::vector<ParamGroup<SGDRule, T>>, SGDOptions) -> SGD<T>;
template <Element T>
SGD(std::vector<ParamGroup<SGDRule, T>>) -> SGD<T>;

}  // namespace tensorlib::optim
