#pragma once
/// \file
/// `Optimizer<Rule, T>`: parameter groups, lazily created per-parameter
/// state, `step`, `zero_grad` and state dicts for any update rule (DESIGN
/// 3.6). The rule says only what is particular to it: its options, its
/// per-parameter state and its update, written as one fused element
/// functor (optim/fused_update.hpp). optim/sgd.hpp is the smallest rule;
/// examples/custom_optimizer.cpp shows a user's own (Lion).

#include <array>
#include <concepts>
#include <cstdint>
#include <map>
#include <optional>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "tensorlib/autograd/tensor_methods.hpp"
#include "tensorlib/core/error.hpp"
#include "tensorlib/core/grad_mode.hpp"
#include "tensorlib/core/named_fields.hpp"  // TENSORLIB_FIELDS in a rule
#include "tensorlib/core/tensor.hpp"
#include "tensorlib/ops/copy.hpp"
#include "tensorlib/ops/inplace.hpp"
#include "tensorlib/optim/optimizer_base.hpp"
#include "tensorlib/optim/step_batch.hpp"

namespace tensorlib::optim {

/// A pair of decay rates (Adam's `betas`, Rprop's `etas`, ...).
using Betas = std::array<double, 2>;

/// What `Optimizer` needs from an update rule R for element type T:
/// - `R::name`, used in error messages;
/// - `R::Options`, an aggregate of the rule's options with PyTorch's defaults
///   (including `double lr`);
/// - `R::State<T>`, the per-parameter state, whose `tensors()` ties its tensor
///   members (for state dicts);
/// - `R::check(options)`, throwing PyTorch's message for bad values;
/// - `R::init(options, param)`, the state before the first step;
/// - `R::update(options, state, param, grad)`, the step of one parameter,
///   whose tensor work ends with one `fused_update`: inside `step` the GPU
///   updates are deferred to multi-tensor kernels (Note [multi-tensor
///   steps]), so an update must not read back on the GPU what it wrote.
template <class R, class T>
concept UpdateRule = Element<T> &&
    requires(const typename R::Options& o, typename R::template State<T>& s, Tensor<T>& p, const Tensor<T>& g) {
  { R::name } -> std::convertible_to<std::string_view>;
  { o.lr } -> std::convertible_to<double>;
  R::check(o);
  { R::init(o, std::as_const(p)) } -> std::same_as<typename R::template State<T>>;
  R::update(o, s, p, g);
  s.tensors();
};

/// A group of parameters sharing options; the options are its base, so
/// `group.lr` reads as in PyTorch's `param_groups[i]['lr']`.
template <class R, Element T>
struct ParamGroup : R::Options {
  std::vector<Tensor<T>> params;
  /// Set by learning-rate schedulers (PyTorch's `initial_lr`).
  std::optional<double> initial_lr;

  ParamGroup(std::vector<Tensor<T>> parameters, const typename R::Options& options)
      : R::Options(options), params(std::move(parameters)) {}
  /// The group's options.
  const typename R::Options& options() const { return *this; }
  typename R::Options& options() { return *this; }
};

/// An optimizer's state as plain data: options per group and state per
/// parameter, parameters numbered in group order (PyTorch's layout). Tensors
/// are copies, so the dict outlives changes to the optimizer.
template <class R, Element T>
struct OptimizerStateDict {
  struct Group {
    typename R::Options options;
    std::vector<int64_t> params;
    std::optional<double> initial_lr;
  };
  std::map<int64_t, typename R::template State<T>> state;
  std::vector<Group> param_groups;
};

namespace detail {

// The state with every defined tensor cloned onto `device` (a deep copy).
template <class S>
S clone_state(const S& s, std::optional<Device> device = std::nullopt) {
  S copy = s;
  std::apply([&](auto&... t) { ((t = t.defined() ? (device ? t.to(*device).clone() : t.clone()) : t), ...); },
             copy.tensors());
  return copy;
}

}  // namespace detail

/// An optimizer: PyTorch's `torch.optim.Optimizer` for update rule R over
/// parameters of element type T.
template <class R, Element T = float>
requires UpdateRule<R, T>
class Optimizer : public OptimizerBase {
 public:
  using Rule = R;
  using Options = typename R::Options;
  using State = typename R::template State<T>;
  using Group = ParamGroup<R, T>;
  using StateDict = OptimizerStateDict<R, T>;

  // A copy would share the state tensors but not the step counts.
  Optimizer(const Optimizer&) = delete;
  Optimizer& operator=(const Optimizer&) = delete;

  /// One group of `params` with `defaults`.
  explicit Optimizer(std::vector<Tensor<T>> params, const Options& defaults = {}) : defaults_(defaults) {
    R::check(defaults_);
    tensorlib::detail::check<ValueError>(!params.empty(), "optimizer got an empty parameter list");
    add_param_group(std::move(params));
  }
  /// Several groups, each with its own options (`defaults` is what
  /// `add_param_group(params)` uses later).
  explicit Optimizer(std::vector<Group> groups, const Options& defaults = {}) : defaults_(defaults) {
    R::check(defaults_);
    tensorlib::detail::check<ValueError>(!groups.empty(), "optimizer got an empty parameter list");
    for (auto& g : groups) add_param_group(std::move(g));
  }

  /// Adds a group with the optimizer's default options.
  void add_param_group(std::vector<Tensor<T>> params) { add_param_group(Group(std::move(params), defaults_)); }
  /// Adds a group with its own options. To change a few defaults, start
  /// from `defaults()`: `auto o = opt.defaults(); o.lr = 0.1;`.
  void add_param_group(Group group) {
    R::check(group.options());
    std::unordered_set<const TensorImpl*> seen;
    for (const auto& p : group.params) {
      tensorlib::detail::check<ValueError>(p.defined(), R::name, ": a parameter is an undefined tensor");
      tensorlib::detail::check<ValueError>(p.is_leaf(), "can't optimize a non-leaf Tensor");
      tensorlib::detail::check<ValueError>(seen.insert(p.impl().get()).second,
                                           "optimizer contains a parameter group with duplicate parameters");
    }
    for (const auto& g : groups_)
      for (const auto& p : g.params)
        tensorlib::detail::check<ValueError>(!seen.count(p.impl().get()),
                                             "some parameters appear in more than one parameter group");
    groups_.push_back(std::move(group));
  }

  std::vector<Group>& param_groups() { return groups_; }
  const std::vector<Group>& param_groups() const { return groups_; }
  /// The options new groups get.
  const Options& defaults() const { return defaults_; }
  /// The state of `param` (null before its first step).
  const State* state(const Tensor<T>& param) const {
    auto it = state_.find(param.impl().get());
    return it == state_.end() ? nullptr : &it->second;
  }

  /// One update of every parameter that has a gradient: one fused pass each
  /// (on a GPU, one multi-tensor kernel for all: Note [multi-tensor steps]).
  void step() {
    NoGradGuard no_grad;
    detail::StepBatch batch;
    for (auto& group : groups_) {
      for (auto& p : group.params) {
        const Tensor<T> grad = p.grad();
        if (!grad.defined()) continue;
        auto it = state_.find(p.impl().get());
        if (it == state_.end()) it = state_.emplace(p.impl().get(), R::init(group.options(), std::as_const(p))).first;
        R::update(group.options(), it->second, p, grad);
      }
    }
    batch.flush();
  }
  /// Evaluates `closure` (which recomputes the loss and its gradients) with
  /// gradients enabled, then steps; returns the closure's loss.
  template <std::invocable F>
  auto step(F&& closure) {
    auto loss = [&] {
      AutoGradMode enable(true);
      return closure();
    }();
    step();
    return loss;
  }

  void zero_grad(bool set_to_none = true) override {
    for (auto& group : groups_) {
      for (auto& p : group.params) {
        if (set_to_none) {
          p.set_grad({});
        } else if (Tensor<T> g = p.grad(); g.defined()) {
          NoGradGuard no_grad;
          g.detach_();
          g.zero_();
        }
      }
    }
  }

  /// A deep copy of the options and the state (see OptimizerStateDict).
  StateDict state_dict() const {
    StateDict dict;
    int64_t index = 0;
    for (const auto& group : groups_) {
      typename StateDict::Group entry{group.options(), {}, group.initial_lr};
      for (const auto& p : group.params) {
        if (auto it = state_.find(p.impl().get()); it != state_.end())
          dict.state.emplace(index, detail::clone_state(it->second));
        entry.params.push_back(index++);
      }
      dict.param_groups.push_back(std::move(entry));
    }
    return dict;
  }

  /// Replaces options and state with copies of `dict`'s, matched to the
  /// parameters by position; the dict must come from an optimizer with the
  /// same group sizes and parameter shapes.
  void load_state_dict(const StateDict& dict) {
    tensorlib::detail::check<ValueError>(dict.param_groups.size() == groups_.size(),
                                         "loaded state dict has a different number of parameter groups");
    std::vector<const Tensor<T>*> by_index;
    for (std::size_t i = 0; i < groups_.size(); ++i) {
      tensorlib::detail::check<ValueError>(
          dict.param_groups[i].params.size() == groups_[i].params.size(),
          "loaded state dict contains a parameter group that doesn't match the size of "
          "optimizer's group");
      R::check(dict.param_groups[i].options);
      for (std::size_t j = 0; j < groups_[i].params.size(); ++j) {
        tensorlib::detail::check<ValueError>(
            dict.param_groups[i].params[j] == static_cast<int64_t>(by_index.size()),
            "load_state_dict: parameter indices must number the groups' parameters in order");
        by_index.push_back(&groups_[i].params[j]);
      }
    }
    std::unordered_map<const TensorImpl*, State> state;
    for (const auto& entry : dict.state) {
      // Not a structured binding: clang 14 cannot capture one in a lambda.
      const int64_t index = entry.first;
      const State& s = entry.second;
      tensorlib::detail::check<ValueError>(index >= 0 && index < static_cast<int64_t>(by_index.size()),
                                           "load_state_dict: state for parameter ", index, " but the optimizer has ",
                                           by_index.size(), " parameters");
      const Tensor<T>& p = *by_index[static_cast<std::size_t>(index)];
      State copy = detail::clone_state(s, p.device());
      auto check_shape = [&](const Tensor<T>& t) {
        if (t.defined() && t.sizes() != p.sizes())
          tensorlib::detail::check<ValueError>(false, "load_state_dict: a state tensor of parameter ", index,
                                               " has shape ", t.sizes(), ", the parameter has ", p.sizes());
      };
      std::apply([&](const auto&... t) { (check_shape(t), ...); }, copy.tensors());
      state.emplace(p.impl().get(), std::move(copy));
    }
    for (std::size_t i = 0; i < groups_.size(); ++i) {
      groups_[i].options() = dict.param_groups[i].options;
      groups_[i].initial_lr = dict.param_groups[i].initial_lr;
    }
    state_ = std::move(state);
  }

  // OptimizerBase: what schedulers use.
  std::size_t group_count() const override { return groups_.size(); }
  double lr(std::size_t group) const override { return groups_.at(group).lr; }
  void set_lr(std::size_t group, double lr) override { groups_.at(group).lr = lr; }
  std::optional<double> initial_lr(std::size_t group) const override { return groups_.at(group).initial_lr; }
  void set_initial_lr(std::size_t group, double lr) override { groups_.at(group).initial_lr = lr; }
  std::optional<double> momentum(std::size_t group) const override {
    const Options& o = groups_.at(group);
    if constexpr (requires { o.momentum; })
      return o.momentum;
    else if constexpr (requires { o.betas; })
      return o.betas[0];
    else
      return std::nullopt;
  }
  void set_momentum(std::size_t group, double momentum) override {
    Options& o = groups_.at(group);
    if constexpr (requires { o.momentum; })
      o.momentum = momentum;
    else if constexpr (requires { o.betas; })
      o.betas[0] = momentum;
    else
      throw ValueError(std::string(R::name) + " has neither momentum nor betas");
  }
  bool momentum_is_beta1() const override {
    return !requires(Options o) { o.momentum; }
    &&requires(Options o) { o.betas; };
  }

 private:
  Options defaults_;
  std::vector<Group> groups_;
  std::unordered_map<const TensorImpl*, State> state_;
};

}  // namespace tensorlib::optim
