#pragma once
/// \file
/// `LBFGS`: limited-memory BFGS with an optional strong-Wolfe line search,
/// PyTorch's `torch.optim.LBFGS` (itself after minFunc). Each `step(closure)`
/// runs up to `max_iter` iterations, re-evaluating the model through the
/// closure. The gradient, direction and history are flat vectors holding every
/// parameter's elements in order.
/// Shapes: N = the number of elements of all parameters together.
///
/// Note [LBFGS scalars]
/// PyTorch keeps the scalars of the algorithm (gtd, ys, ro, H_diag, the step
/// t) partly as 0-d tensors of the parameters' dtype and partly as Python
/// floats; we keep them all as doubles. For double parameters that is the same
/// arithmetic, so trajectories match PyTorch's to the rounding of reductions
/// (and of one quotient in the line search, which PyTorch computes as a
/// product with a reciprocal when the step is a 0-d tensor).
/// For float parameters PyTorch rounds some of these scalars to float32 and we
/// do not, so float trajectories may drift apart, most visibly where the line
/// search compares nearly equal losses. Comparisons against the tolerances on
/// tensors (`max |g| <= tolerance_grad`) are made in T, as PyTorch makes them.

#include <algorithm>
#include <cmath>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "tensorlib/autograd/tensor_methods.hpp"
#include "tensorlib/core/error.hpp"
#include "tensorlib/core/grad_mode.hpp"
#include "tensorlib/core/tensor.hpp"
#include "tensorlib/ops/copy.hpp"
#include "tensorlib/ops/factories.hpp"
#include "tensorlib/ops/inplace.hpp"
#include "tensorlib/ops/join.hpp"
#include "tensorlib/ops/linalg.hpp"
#include "tensorlib/ops/reduce.hpp"
#include "tensorlib/ops/views.hpp"
#include "tensorlib/optim/lbfgs_state.hpp"
#include "tensorlib/optim/optimizer_base.hpp"
#include "tensorlib/optim/strong_wolfe.hpp"

namespace tensorlib::optim {

/// A closure for `step`: re-evaluates the model, calls backward and returns
/// the 0-d loss.
template <class F, class T>
concept LossClosure = std::invocable<F&> && std::convertible_to<std::invoke_result_t<F&>, Tensor<T>>;

/// L-BFGS over one group of parameters on one device (PyTorch's
/// `torch.optim.LBFGS`). On a GPU the flat vectors live there too; each
/// scalar of the algorithm (a dot product, a norm) is one reduction read back
/// to the host, as in PyTorch.
template <std::floating_point T = float>
class LBFGS : public OptimizerBase {
 public:
  using State = LBFGSState<T>;
  using StateDict = LBFGSStateDict<T>;

  /// Optimizes `params`: distinct leaf tensors, all on one device.
  explicit LBFGS(std::vector<Tensor<T>> params, LBFGSOptions options = {})
      : params_(std::move(params)), options_(std::move(options)) {
    tensorlib::detail::check<ValueError>(!params_.empty(), "LBFGS: optimizer got an empty parameter list");
    for (std::size_t i = 0; i < params_.size(); ++i) {
      const Tensor<T>& p = params_[i];
      tensorlib::detail::check<ValueError>(p.defined(), "LBFGS: parameter ", i, " is an undefined tensor");
      tensorlib::detail::check<ValueError>(p.is_leaf(), "LBFGS: can't optimize a non-leaf Tensor (parameter ", i, ")");
      tensorlib::detail::check<DeviceError>(p.device() == params_[0].device(),
                                            "LBFGS: parameters must be on one device, parameter ", i, " is on ",
                                            p.device(), " and parameter 0 on ", params_[0].device());
      for (std::size_t j = 0; j < i; ++j)
        tensorlib::detail::check<ValueError>(!p.is_same(params_[j]), "LBFGS: parameter ", i,
                                             " is the same tensor as parameter ", j,
                                             "; each parameter may appear only once");
      numel_ += p.numel();
    }
    if (!options_.max_eval) options_.max_eval = options_.max_iter * 5 / 4;
    check_options(options_, "LBFGS");
  }

  /// One step: up to `max_iter` iterations (and about `max_eval` closure
  /// calls), stopping early on the tolerances. Returns the loss the first
  /// closure call returned, before any update (PyTorch's `orig_loss`).
  Tensor<T> step(LossClosure<T> auto&& closure);

  /// Always a `ValueError`: LBFGS re-evaluates the model several times per
  /// step, so it needs the closure.
  [[noreturn]] Tensor<T> step() {
    throw ValueError("LBFGS: step() requires a closure that reevaluates the model and returns the loss");
  }

  /// Always a `ValueError`: LBFGS has one group (PyTorch's restriction).
  [[noreturn]] void add_param_group(const std::vector<Tensor<T>>& /*params*/) {
    throw ValueError("LBFGS doesn't support per-parameter options (parameter groups)");
  }

  /// The parameters, in the order of the flat vectors.
  const std::vector<Tensor<T>>& params() const noexcept { return params_; }
  /// The options, `max_eval` filled in.
  const LBFGSOptions& options() const noexcept { return options_; }
  /// The carried state; empty before the first step.
  const std::optional<State>& state() const noexcept { return state_; }

  /// A deep copy of the state and options (PyTorch's `state_dict()`, whose
  /// tensors a later step would otherwise change in place).
  StateDict state_dict() const {
    StateDict dict;
    if (state_) dict.state = clone_state(*state_);
    LBFGSParamGroup group{options_, initial_lr_, {}};
    for (std::size_t i = 0; i < params_.size(); ++i) group.params.push_back(static_cast<int64_t>(i));
    dict.param_groups.push_back(std::move(group));
    return dict;
  }

  /// Restores what `state_dict()` returned, after checking that it fits these
  /// parameters; a `ValueError` otherwise (this optimizer is then unchanged).
  void load_state_dict(const StateDict& dict) {
    tensorlib::detail::check<ValueError>(
        dict.param_groups.size() == 1,
        "LBFGS: loaded state dict has a different number of parameter groups: expected 1, got ",
        dict.param_groups.size());
    const LBFGSParamGroup& group = dict.param_groups.front();
    tensorlib::detail::check<ValueError>(
        group.params.size() == params_.size(),
        "LBFGS: loaded state dict contains a parameter group that doesn't match the size of "
        "optimizer's group: ",
        group.params.size(), " parameters, expected ", params_.size());
    LBFGSOptions options = group.options;
    if (!options.max_eval) options.max_eval = options.max_iter * 5 / 4;
    check_options(options, "LBFGS: load_state_dict");
    if (dict.state) check_state(*dict.state, options);
    options_ = std::move(options);
    initial_lr_ = group.initial_lr;
    state_ = dict.state ? std::optional<State>(clone_state(*dict.state)) : std::nullopt;
  }

  std::size_t group_count() const override { return 1; }
  double lr(std::size_t group) const override {
    check_group(group);
    return options_.lr;
  }
  void set_lr(std::size_t group, double lr) override {
    check_group(group);
    options_.lr = lr;
  }
  std::optional<double> initial_lr(std::size_t group) const override {
    check_group(group);
    return initial_lr_;
  }
  void set_initial_lr(std::size_t group, double lr) override {
    check_group(group);
    initial_lr_ = lr;
  }
  /// Empty: LBFGS has no momentum.
  std::optional<double> momentum(std::size_t group) const override {
    check_group(group);
    return std::nullopt;
  }
  [[noreturn]] void set_momentum(std::size_t /*group*/, double /*momentum*/) override {
    throw ValueError("LBFGS: has no momentum to set (neither 'momentum' nor 'betas')");
  }
  bool momentum_is_beta1() const override { return false; }

  void zero_grad(bool set_to_none = true) override {
    for (const Tensor<T>& p : params_) {
      if (set_to_none) {
        p.set_grad(Tensor<T>());
      } else if (Tensor<T> g = p.grad(); g.defined()) {
        g.zero_();
      }
    }
  }

 private:
  static void check_options(const LBFGSOptions& o, const char* op) {
    tensorlib::detail::check<ValueError>(!o.line_search_fn || *o.line_search_fn == "strong_wolfe", op,
                                         ": only 'strong_wolfe' is supported as line_search_fn, got '",
                                         o.line_search_fn.value_or(""), "'");
    // PyTorch fails on its first history update with a history of 0.
    tensorlib::detail::check<ValueError>(o.history_size > 0, op, ": history_size must be positive, got ",
                                         o.history_size);
  }

  void check_group(std::size_t group) const {
    tensorlib::detail::check<IndexError>(group == 0, "LBFGS: parameter group ", group,
                                         " out of range (LBFGS has one group)");
  }

  void check_flat(const Tensor<T>& x, const char* name) const {
    tensorlib::detail::check<DeviceError>(x.device() == params_[0].device(), "LBFGS: load_state_dict: state '", name,
                                          "' is on ", x.device(), ", expected the parameters' device ",
                                          params_[0].device());
    tensorlib::detail::check<ValueError>(x.dim() == 1 && x.numel() == numel_, "LBFGS: load_state_dict: state '", name,
                                         "' has shape ", x.sizes(), ", expected [", numel_,
                                         "] (the parameters' elements); the parameters don't match");
  }

  void check_state(const State& s, const LBFGSOptions& o) const {
    tensorlib::detail::check<ValueError>(s.old_dirs.size() == s.ro.size() && s.old_stps.size() == s.ro.size(),
                                         "LBFGS: load_state_dict: old_dirs, old_stps and ro differ in length: ",
                                         s.old_dirs.size(), ", ", s.old_stps.size(), ", ", s.ro.size());
    tensorlib::detail::check<ValueError>(static_cast<int64_t>(s.ro.size()) <= o.history_size,
                                         "LBFGS: load_state_dict: ", s.ro.size(), " history pairs exceed history_size ",
                                         o.history_size);
    // An iteration always leaves a direction and a previous gradient.
    tensorlib::detail::check<ValueError>(s.n_iter == 0 || (s.d.defined() && s.prev_flat_grad.defined()),
                                         "LBFGS: load_state_dict: n_iter is ", s.n_iter,
                                         " but d or prev_flat_grad is missing");
    if (s.d.defined()) check_flat(s.d, "d");
    if (s.prev_flat_grad.defined()) check_flat(s.prev_flat_grad, "prev_flat_grad");
    for (const Tensor<T>& y : s.old_dirs) check_flat(y, "old_dirs");
    for (const Tensor<T>& x : s.old_stps) check_flat(x, "old_stps");
  }

  static State clone_state(const State& s) {
    State c = s;
    const auto clone = [](const Tensor<T>& x) { return x.defined() ? x.clone() : x; };
    c.d = clone(s.d);
    c.prev_flat_grad = clone(s.prev_flat_grad);
    std::transform(s.old_dirs.begin(), s.old_dirs.end(), c.old_dirs.begin(), clone);
    std::transform(s.old_stps.begin(), s.old_stps.end(), c.old_stps.begin(), clone);
    return c;
  }

  static double dot(const Tensor<T>& a, const Tensor<T>& b) { return static_cast<double>(a.dot(b).item()); }
  template <class E>
  static T max_abs(const E& x) {
    return x.abs().max().item();
  }

  /// Runs the closure with grad mode on (the step itself runs without).
  template <class F>
  static Tensor<T> evaluate(F& closure) {
    AutoGradMode enable_grad(true);
    Tensor<T> loss = closure();
    tensorlib::detail::check<ValueError>(loss.defined() && loss.numel() == 1,
                                         "LBFGS: the closure must return the loss as a one-element tensor, got shape ",
                                         loss.defined() ? loss.sizes() : Shape{});
    return loss;
  }

  /// (N) every parameter's gradient, zeros for parameters without one.
  Tensor<T> gather_flat_grad() const {
    std::vector<Tensor<T>> views;
    views.reserve(params_.size());
    for (const Tensor<T>& p : params_) {
      const Tensor<T> g = p.grad();
      views.push_back(g.defined() ? g.reshape({-1}) : zeros<T>({p.numel()}, {.device = p.device()}));
    }
    return cat(views, 0);
  }

  /// params += step * update, slice by slice (in-place adds bump versions).
  void add_grad(double step, const Tensor<T>& update) {
    int64_t offset = 0;
    for (Tensor<T>& p : params_) {
      const int64_t n = p.numel();
      p.add_(update.narrow(0, offset, n).view(p.sizes()), static_cast<T>(step));
      offset += n;
    }
  }

  std::vector<Tensor<T>> clone_params() const {
    std::vector<Tensor<T>> out;
    out.reserve(params_.size());
    for (const Tensor<T>& p : params_) out.push_back(p.clone());
    return out;
  }

  void set_params(const std::vector<Tensor<T>>& values) {
    for (std::size_t i = 0; i < params_.size(); ++i) params_[i].copy_(values[i]);
  }

  /// The two-loop recursion: -H g for the inverse Hessian approximation H
  /// built from the stored pairs.
  Tensor<T> two_loop_direction(const State& s, const Tensor<T>& flat_grad) const {
    const std::size_t num_old = s.ro.size();
    std::vector<double> al(num_old);
    Tensor<T> q = -flat_grad;
    for (std::size_t i = num_old; i-- > 0;) {
      al[i] = dot(s.old_stps[i], q) * s.ro[i];
      q.add_(s.old_dirs[i], static_cast<T>(-al[i]));
    }
    Tensor<T> r = q * static_cast<T>(s.H_diag);
    for (std::size_t i = 0; i < num_old; ++i) {
      const double be_i = dot(s.old_dirs[i], r) * s.ro[i];
      r.add_(s.old_stps[i], static_cast<T>(al[i] - be_i));
    }
    return r;
  }

  std::vector<Tensor<T>> params_;
  LBFGSOptions options_;
  std::optional<double> initial_lr_;
  std::optional<State> state_;
  int64_t numel_ = 0;
};

template <class T>
LBFGS(std::vector<Tensor<T>>, LBFGSOptions = {}) -> LBFGS<T>;
template <class T>
LBFGS(std::initializer_list<Tensor<T>>, LBFGSOptions = {}) -> LBFGS<T>;

template <std::floating_point T>
Tensor<T> LBFGS<T>::step(LossClosure<T> auto&& closure) {
  NoGradGuard no_grad;
  const LBFGSOptions& o = options_;
  const int64_t max_eval = *o.max_eval;
  const T tolerance_grad = static_cast<T>(o.tolerance_grad);
  const T tolerance_change = static_cast<T>(o.tolerance_change);
  if (!state_) state_.emplace();
  State& st = *state_;

  const Tensor<T> orig_loss = evaluate(closure);
  double loss = static_cast<double>(orig_loss.item());
  int64_t current_evals = 1;
  ++st.func_evals;
  Tensor<T> flat_grad = gather_flat_grad();
  bool opt_cond = max_abs(flat_grad) <= tolerance_grad;
  if (opt_cond) return orig_loss;

  for (int64_t n_iter = 1; n_iter <= o.max_iter; ++n_iter) {
    ++st.n_iter;
    if (st.n_iter == 1) {
      st.d = -flat_grad;
      st.old_dirs.clear();
      st.old_stps.clear();
      st.ro.clear();
      st.H_diag = 1;
    } else {
      // Store the newest pair (y, s) unless its curvature y . s is too small
      // to keep H positive definite, dropping the oldest beyond history_size.
      Tensor<T> y = flat_grad - st.prev_flat_grad;
      Tensor<T> s = st.d * static_cast<T>(st.t);
      const double ys = dot(y, s);
      if (ys > 1e-10) {
        if (static_cast<int64_t>(st.ro.size()) == o.history_size) {
          st.old_dirs.erase(st.old_dirs.begin());
          st.old_stps.erase(st.old_stps.begin());
          st.ro.erase(st.ro.begin());
        }
        st.H_diag = ys / dot(y, y);
        st.old_dirs.push_back(std::move(y));
        st.old_stps.push_back(std::move(s));
        st.ro.push_back(1. / ys);
      }
      st.d = two_loop_direction(st, flat_grad);
    }
    // flat_grad is never written in place, so sharing it is a copy.
    st.prev_flat_grad = flat_grad;
    st.prev_loss = loss;

    // The first step ever is scaled to length at most lr in l1 norm.
    st.t = st.n_iter == 1 ? tensorlib::detail::py_min(1., 1. / static_cast<double>(flat_grad.abs().sum().item())) * o.lr
                          : o.lr;
    const double gtd = dot(flat_grad, st.d);
    if (gtd > -o.tolerance_change) break;  // not a descent direction (any more)

    int64_t ls_func_evals = 0;
    if (o.line_search_fn) {
      const std::vector<Tensor<T>> x_init = clone_params();
      auto directional_evaluate = [&](double t) {
        add_grad(t, st.d);
        const double f = static_cast<double>(evaluate(closure).item());
        tensorlib::detail::LineSearchPoint<T> point{f, gather_flat_grad()};
        set_params(x_init);
        return point;
      };
      // PyTorch leaves the search's own tolerance_change at its default
      // (1e-9) whatever the option says; so do we.
      auto found = tensorlib::detail::strong_wolfe<T>(directional_evaluate, st.t, st.d, loss, flat_grad, gtd);
      loss = found.loss;
      flat_grad = std::move(found.flat_grad);
      st.t = found.t;
      ls_func_evals = found.func_evals;
      add_grad(st.t, st.d);
      opt_cond = max_abs(flat_grad) <= tolerance_grad;
    } else {
      add_grad(st.t, st.d);
      // The last iteration's loss would only be thrown away: the next step
      // starts by evaluating it anyway.
      if (n_iter != o.max_iter) {
        loss = static_cast<double>(evaluate(closure).item());
        flat_grad = gather_flat_grad();
        opt_cond = max_abs(flat_grad) <= tolerance_grad;
        ls_func_evals = 1;
      }
    }
    current_evals += ls_func_evals;
    st.func_evals += ls_func_evals;

    if (n_iter == o.max_iter || current_evals >= max_eval || opt_cond) break;
    if (max_abs(st.d * static_cast<T>(st.t)) <= tolerance_change) break;  // the step no longer moves
    if (std::abs(loss - st.prev_loss) < o.tolerance_change) break;        // the loss no longer moves
  }
  return orig_loss;
}

}  // namespace tensorlib::optim
