#pragma once
/// \file
/// `LRSchedulerBase`: what every learning-rate scheduler in
/// `tl::optim::lr_scheduler` shares (PyTorch's `LRScheduler` interface:
/// `step()`, `get_last_lr()`, `last_epoch`, `state_dict()`), and
/// `LRSchedulerState`, the one state type they all save and load.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "tensorlib/core/error.hpp"
#include "tensorlib/optim/optimizer_base.hpp"

namespace tensorlib::optim::lr_scheduler {

/// A scheduler's progress, PyTorch's `state_dict()` as a plain struct.
/// Options (gamma, milestones, ...) are not saved: a scheduler is rebuilt with
/// the same options and then loads its progress. Lambdas are not saved either,
/// as in PyTorch for plain functions.
struct LRSchedulerState {
  /// The index of the last step taken (`-1` before the first one).
  std::int64_t last_epoch = -1;
  /// PyTorch's `_step_count`: `step()` calls, the constructor's included.
  std::int64_t step_count = 0;
  /// Each group's starting lr (`initial_lr`, or CyclicLR's `base_lr`).
  std::vector<double> base_lrs;
  /// The lrs after the last step (`get_last_lr()`).
  std::vector<double> last_lrs;
  /// Whether the scheduler had switched to PyTorch's chainable update
  /// (Note [closed form or chained] in lr_scheduler.hpp).
  bool chained = false;
  /// Scheduler-specific numbers under PyTorch's attribute names (`T_cur`,
  /// `best`, `num_bad_epochs`, ...).
  std::map<std::string, double> values;
  /// The wrapped schedulers' states (SequentialLR, ChainedScheduler).
  std::vector<LRSchedulerState> schedulers;
};

/// A value for every parameter group, or one value for all of them (PyTorch's
/// "float or list" arguments such as `max_lr`). Converts from a `double` and
/// from a braced list, so `.max_lr = 0.1` and `.max_lr = {0.1, 0.01}` both work.
class PerGroup {
 public:
  /// No value: `resolve` reports the argument as missing.
  PerGroup() = default;
  /// One value for every group.
  PerGroup(double value) : values_{value} {}  // NOLINT: implicit on purpose
  /// One value per group.
  PerGroup(std::initializer_list<double> values) : values_(values) {}
  /// One value per group.
  PerGroup(std::vector<double> values) : values_(std::move(values)) {}  // NOLINT: implicit on purpose

  /// True when no value was given.
  bool empty() const { return values_.empty(); }

  /// The value of each of `groups` groups; a `ValueError` naming `op` and
  /// `name` when missing or when the count is neither 1 nor `groups`.
  std::vector<double> resolve(const char* op, const char* name, std::size_t groups) const {
    tensorlib::detail::check<ValueError>(!values_.empty(), op, ": ", name, " is required");
    if (values_.size() == 1) return std::vector<double>(groups, values_[0]);
    tensorlib::detail::check<ValueError>(values_.size() == groups, op, ": ", name,
                                         " must have the same length as optimizer.param_groups. ", name, " has ",
                                         values_.size(), " values, param_groups has ", groups, ".");
    return values_;
  }

 private:
  std::vector<double> values_;
};

/// The face every scheduler but ReduceLROnPlateau shows (its `step` takes a
/// metric). Schedulers are bound to one optimizer and referenced by
/// SequentialLR and ChainedScheduler, so they are neither copied nor moved.
class LRSchedulerBase {
 public:
  LRSchedulerBase(const LRSchedulerBase&) = delete;
  LRSchedulerBase& operator=(const LRSchedulerBase&) = delete;
  LRSchedulerBase(LRSchedulerBase&&) = delete;
  LRSchedulerBase& operator=(LRSchedulerBase&&) = delete;
  virtual ~LRSchedulerBase() = default;

  /// Advances one epoch (or batch) and writes the new lrs into the optimizer.
  virtual void step() = 0;
  /// The lrs the last `step()` (or the constructor) left in the optimizer.
  const std::vector<double>& get_last_lr() const { return last_lrs_; }
  /// The index of the last step taken.
  std::int64_t last_epoch() const { return last_epoch_; }
  /// The optimizer whose lrs this scheduler sets.
  OptimizerBase& optimizer() const { return *optimizer_; }

  /// The scheduler's progress (see `LRSchedulerState`).
  virtual LRSchedulerState state_dict() const = 0;
  /// Restores progress saved by `state_dict()` of a scheduler built with the
  /// same options; the optimizer's lrs are not touched (load its own state).
  virtual void load_state_dict(const LRSchedulerState& state) = 0;

 protected:
  explicit LRSchedulerBase(OptimizerBase& optimizer) : optimizer_(&optimizer) {}

  /// The optimizer's current lrs, one per group.
  std::vector<double> current_lrs() const {
    std::vector<double> lrs(optimizer_->group_count());
    for (std::size_t g = 0; g < lrs.size(); ++g) lrs[g] = optimizer_->lr(g);
    return lrs;
  }

  /// The state of a scheduler that wraps others (SequentialLR,
  /// ChainedScheduler): last_epoch, last_lrs and each wrapped state.
  template <class S>
  LRSchedulerState composite_state_dict(const std::vector<std::reference_wrapper<S>>& schedulers) const {
    LRSchedulerState state;
    state.last_epoch = last_epoch_;
    state.last_lrs = last_lrs_;
    for (const auto& s : schedulers) state.schedulers.push_back(s.get().state_dict());
    return state;
  }
  /// Restores what composite_state_dict saved; `name` is the caller's class.
  template <class S>
  void load_composite_state_dict(const LRSchedulerState& state,
                                 const std::vector<std::reference_wrapper<S>>& schedulers, const char* name) {
    tensorlib::detail::check<ValueError>(state.schedulers.size() == schedulers.size(), name,
                                         ".load_state_dict: expected the states of ", schedulers.size(),
                                         " schedulers, got ", state.schedulers.size());
    // All or nothing: when scheduler i refuses its state, those before it
    // get their own states back.
    std::vector<LRSchedulerState> before;
    for (const auto& s : schedulers) before.push_back(s.get().state_dict());
    std::size_t loaded = 0;
    try {
      for (; loaded < schedulers.size(); ++loaded) schedulers[loaded].get().load_state_dict(state.schedulers[loaded]);
    } catch (...) {
      for (std::size_t i = 0; i < loaded; ++i) schedulers[i].get().load_state_dict(before[i]);
      throw;
    }
    last_epoch_ = state.last_epoch;
    last_lrs_ = state.last_lrs;
  }

  OptimizerBase* optimizer_;
  std::int64_t last_epoch_ = -1;
  std::vector<double> last_lrs_;
};

}  // namespace tensorlib::optim::lr_scheduler
