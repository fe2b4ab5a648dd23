#pragma once
/// \file
/// `LRScheduler`: the base of every scheduler whose lr is a function of the
/// epoch (PyTorch's `LRScheduler` with `get_lr` and `_get_closed_form_lr`).
/// The schedules themselves live in decay_lr.hpp, warmup_lr.hpp, lambda_lr.hpp,
/// cyclic_lr.hpp, one_cycle_lr.hpp and cosine_annealing_warm_restarts.hpp.
///
/// Note [closed form or chained]
/// PyTorch's `step()` updates each lr recursively from the group's current lr
/// (`get_lr`, e.g. ExponentialLR: lr * gamma). That is what lets schedulers be
/// stacked on one optimizer or put in a ChainedScheduler: each multiplies in
/// its own factor. Used alone, the recursion only accumulates rounding, so
/// here a scheduler starts in closed form (lr = f(base_lr, epoch), e.g.
/// base_lr * gamma^epoch) and switches for good to PyTorch's recursive update
/// the first time it finds a group's lr differing from the value it last wrote
/// (or, at construction, from `initial_lr`): someone else writes the lr too (a
/// second scheduler, a ChainedScheduler's other members, the user), and from
/// then on only the recursion composes as PyTorch does. Up to rounding both
/// give PyTorch's values; `chained()` says which one is in use. A scheduler
/// resumed with `last_epoch != -1` follows the recursion from the start, as
/// PyTorch's first step there keeps the optimizer's lr (`_is_initial`);
/// `load_state_dict` restores the form that was in use, and takes a state
/// whose last lrs are not the closed form's (one PyTorch saved, which has no
/// such flag, of a chained scheduler) as chained.

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "tensorlib/core/error.hpp"
#include "tensorlib/optim/lr_scheduler_base.hpp"
#include "tensorlib/optim/optimizer_base.hpp"

namespace tensorlib::optim::lr_scheduler {

class SequentialLR;

/// The base of the epoch-driven schedulers; a derived class supplies the
/// closed form and PyTorch's chainable update (Note [closed form or chained]).
class LRScheduler : public LRSchedulerBase {
 public:
  /// Advances one epoch: PyTorch's `step()`.
  void step() override {
    const std::int64_t epoch = last_epoch_ + 1;
    if (!chained_) chained_ = lr_changed_elsewhere();
    ++step_count_;
    update(epoch, !chained_);
  }

  /// Each group's starting lr (PyTorch's `base_lrs`).
  const std::vector<double>& base_lrs() const { return base_lrs_; }
  /// True once `step()` follows PyTorch's recursive update instead of the
  /// closed form (Note [closed form or chained]).
  bool chained() const { return chained_; }

  LRSchedulerState state_dict() const override {
    LRSchedulerState state;
    state.last_epoch = last_epoch_;
    state.step_count = step_count_;
    state.base_lrs = base_lrs_;
    state.last_lrs = last_lrs_;
    state.chained = chained_;
    save_values(state);
    return state;
  }

  void load_state_dict(const LRSchedulerState& state) override {
    const std::size_t groups = optimizer_->group_count();
    tensorlib::detail::check<ValueError>(state.base_lrs.size() == groups && state.last_lrs.size() == groups,
                                         "LRScheduler.load_state_dict: expected a state for ", groups,
                                         " param groups, got base_lrs for ", state.base_lrs.size(),
                                         " and last_lrs for ", state.last_lrs.size());
    // All or nothing: a state that load_values refuses (or whose closed form
    // throws) leaves the scheduler as it was.
    const LRSchedulerState before = state_dict();
    try {
      assign(state);
      if (!chained_) chained_ = last_lrs_differ_from_closed_form();
    } catch (...) {
      assign(before);
      throw;
    }
  }

 protected:
  /// PyTorch's `LRScheduler.__init__` up to the initial step, which the
  /// derived constructor runs with `initial_step()` once its options are set
  /// (a base constructor cannot call the derived formulas). `op` names the
  /// scheduler in error messages.
  LRScheduler(OptimizerBase& optimizer, std::int64_t last_epoch, const char* op) : LRSchedulerBase(optimizer) {
    const std::size_t groups = optimizer.group_count();
    base_lrs_.resize(groups);
    for (std::size_t g = 0; g < groups; ++g) {
      if (last_epoch == -1) {
        if (!optimizer.initial_lr(g)) optimizer.set_initial_lr(g, optimizer.lr(g));
      } else {
        // PyTorch raises KeyError here.
        tensorlib::detail::check<ValueError>(optimizer.initial_lr(g).has_value(), op,
                                             ": param 'initial_lr' is not specified in ", "param_groups[", g,
                                             "] when resuming an optimizer");
      }
      base_lrs_[g] = *optimizer.initial_lr(g);
    }
    last_epoch_ = last_epoch;
    // At construction the lr this scheduler expects is its base lr.
    last_lrs_ = base_lrs_;
    chained_ = last_epoch != -1;
  }

  /// PyTorch's `_initial_step`: the first step, taken by the constructor.
  void initial_step() {
    if (!has_closed_form()) chained_ = true;
    step_count_ = 0;
    initial_ = true;
    try {
      step();
    } catch (...) {
      initial_ = false;
      throw;
    }
    initial_ = false;
  }

  /// PyTorch's `_get_closed_form_lr` for one group at `epoch`.
  virtual double closed_form_lr(std::size_t group, std::int64_t epoch) const = 0;
  /// PyTorch's chainable `get_lr` for one group at `epoch`, from its current
  /// lr `lr`.
  virtual double chained_lr(std::size_t group, std::int64_t epoch, double lr) const = 0;
  /// False for schedules defined only recursively (MultiplicativeLR).
  virtual bool has_closed_form() const { return true; }
  /// Runs before the lrs of `epoch` are computed: checks that it may be
  /// reached and updates what moves with the lr (momentum).
  virtual void on_epoch(std::int64_t /*epoch*/) {}
  /// Scheduler-specific progress for `state_dict` / `load_state_dict`.
  virtual void save_values(LRSchedulerState& /*state*/) const {}
  virtual void load_values(const LRSchedulerState& /*state*/) {}

  /// True inside the constructor's first step (PyTorch's `_is_initial`).
  bool initial() const { return initial_; }
  /// PyTorch's `_step_count`.
  std::int64_t step_count() const { return step_count_; }

  /// Replaces the base lrs (CyclicLR's `base_lr` option, as PyTorch does after
  /// its base constructor).
  void set_base_lrs(std::vector<double> lrs) { base_lrs_ = std::move(lrs); }

  /// Moves to `epoch` and writes its lrs, in closed form when `closed`.
  void update(std::int64_t epoch, bool closed) {
    on_epoch(epoch);
    last_epoch_ = epoch;
    const std::size_t groups = optimizer_->group_count();
    std::vector<double> lrs(groups);
    for (std::size_t g = 0; g < groups; ++g)
      lrs[g] = closed ? closed_form_lr(g, epoch) : chained_lr(g, epoch, optimizer_->lr(g));
    for (std::size_t g = 0; g < groups; ++g) optimizer_->set_lr(g, lrs[g]);
    last_lrs_ = current_lrs();
  }

 private:
  friend class SequentialLR;

  // A loaded state whose last lrs are not the closed form's was chained: a
  // state PyTorch saved has no `chained` flag, and PyTorch's ChainedScheduler
  // members (or stacked schedulers) multiply each other's factors in
  // (Note [closed form or chained]). The tolerance passes PyTorch's rounding
  // drift of a scheduler used alone.
  bool last_lrs_differ_from_closed_form() const {
    if (last_epoch_ < 0) return false;
    for (std::size_t g = 0; g < last_lrs_.size(); ++g) {
      const double closed = closed_form_lr(g, last_epoch_);
      if (!(std::abs(closed - last_lrs_[g]) <= 1e-9 * std::abs(closed))) return true;
    }
    return false;
  }

  // Takes `state` as it is (load_state_dict checks it).
  void assign(const LRSchedulerState& state) {
    last_epoch_ = state.last_epoch;
    step_count_ = state.step_count;
    base_lrs_ = state.base_lrs;
    last_lrs_ = state.last_lrs;
    chained_ = state.chained || !has_closed_form();
    load_values(state);
  }

  /// Whether a group's lr is not the one this scheduler last wrote.
  bool lr_changed_elsewhere() const {
    const std::size_t groups = optimizer_->group_count();
    if (groups != last_lrs_.size()) return true;
    for (std::size_t g = 0; g < groups; ++g)
      if (optimizer_->lr(g) != last_lrs_[g]) return true;
    return false;
  }

  /// PyTorch's `step(epoch)` as SequentialLR uses it at a milestone: jumps to
  /// `epoch`, in closed form where the schedule has one.
  void step_to(std::int64_t epoch) {
    update(epoch, has_closed_form());
    if (has_closed_form()) chained_ = false;
  }

  /// SequentialLR's "undo" of the constructor's step: back one epoch, and the
  /// lr SequentialLR has just reset is taken as this scheduler's own.
  void rewind() {
    --last_epoch_;
    last_lrs_ = current_lrs();
    chained_ = !has_closed_form();
  }

  std::vector<double> base_lrs_;
  std::int64_t step_count_ = 0;
  bool chained_ = false;
  bool initial_ = false;
};

}  // namespace tensorlib::optim::lr_scheduler
