#pragma once
/// \file
/// `ChainedScheduler`: steps several schedulers on one optimizer together, so
/// their factors multiply (e.g. ConstantLR warm-up times ExponentialLR decay).

#include <cstddef>
#include <functional>
#include <utility>
#include <vector>

#include "tensorlib/core/error.hpp"
#include "tensorlib/optim/lr_scheduler_base.hpp"
#include "tensorlib/optim/optimizer_base.hpp"

namespace tensorlib::optim::lr_scheduler {

/// Calls every scheduler's `step()` in order. The members compose through
/// PyTorch's chainable update, which each switches to as soon as it sees
/// another member's write (Note [closed form or chained] in
/// lr_scheduler.hpp). The schedulers are referenced, not owned: they must
/// outlive this object. `last_epoch()` counts this object's steps.
class ChainedScheduler final : public LRSchedulerBase {
 public:
  /// Binds to the first scheduler's optimizer.
  explicit ChainedScheduler(std::vector<std::reference_wrapper<LRSchedulerBase>> schedulers)
      // Copied, not moved: the order in which the two arguments are evaluated is unspecified.
      : ChainedScheduler(first_optimizer(schedulers), schedulers) {}

  /// Binds to `optimizer`, which every scheduler must use.
  ChainedScheduler(OptimizerBase& optimizer, std::vector<std::reference_wrapper<LRSchedulerBase>> schedulers)
      : LRSchedulerBase(optimizer), schedulers_(std::move(schedulers)) {
    tensorlib::detail::check<ValueError>(
        !schedulers_.empty(), "ChainedScheduler expects at least one scheduler to be chained, but got no scheduler.");
    for (std::size_t i = 0; i < schedulers_.size(); ++i)
      tensorlib::detail::check<ValueError>(
          &schedulers_[i].get().optimizer() == &optimizer,
          "ChainedScheduler expects all schedulers to belong to the same optimizer, but got "
          "scheduler at index ",
          i, " bound to a different optimizer");
    last_epoch_ = 0;
    last_lrs_ = current_lrs();
  }

  /// Steps every scheduler, in order.
  void step() override {
    for (auto& s : schedulers_) s.get().step();
    ++last_epoch_;
    last_lrs_ = current_lrs();
  }

  /// last_epoch, last_lrs and every wrapped scheduler's state in `schedulers`.
  LRSchedulerState state_dict() const override { return composite_state_dict(schedulers_); }
  void load_state_dict(const LRSchedulerState& state) override {
    load_composite_state_dict(state, schedulers_, "ChainedScheduler");
  }

 private:
  static OptimizerBase& first_optimizer(const std::vector<std::reference_wrapper<LRSchedulerBase>>& schedulers) {
    tensorlib::detail::check<ValueError>(
        !schedulers.empty(), "ChainedScheduler expects at least one scheduler to be chained, but got no scheduler.");
    return schedulers.front().get().optimizer();
  }

  std::vector<std::reference_wrapper<LRSchedulerBase>> schedulers_;
};

}  // namespace tensorlib::optim::lr_scheduler
