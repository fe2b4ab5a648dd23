#pragma once
/// \file
/// `SequentialLR`: hands the optimizer's lr from one scheduler to the next at
/// given milestones (e.g. a LinearLR warm-up, then a decay).

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

#include "tensorlib/core/error.hpp"
#include "tensorlib/optim/lr_scheduler.hpp"
#include "tensorlib/optim/lr_scheduler_base.hpp"
#include "tensorlib/optim/optimizer_base.hpp"

namespace tensorlib::optim::lr_scheduler {

/// Steps `schedulers[i]` between `milestones[i - 1]` and `milestones[i]`; at
/// a milestone the next scheduler restarts at its epoch 0 (in closed form
/// where it has one, PyTorch's `step(0)`). The schedulers are referenced, not
/// owned: they must outlive this object, and only this object should step
/// them. As PyTorch, the constructor resets the lrs to `initial_lr`, moves
/// every scheduler back one epoch (undoing the steps their constructors took)
/// and replays the first scheduler's initial step.
class SequentialLR final : public LRSchedulerBase {
 public:
  SequentialLR(OptimizerBase& optimizer, std::vector<std::reference_wrapper<LRScheduler>> schedulers,
               std::vector<std::int64_t> milestones, std::int64_t last_epoch = -1)
      : LRSchedulerBase(optimizer), schedulers_(std::move(schedulers)), milestones_(std::move(milestones)) {
    tensorlib::detail::check<ValueError>(!schedulers_.empty(),
                                         "SequentialLR expects at least one scheduler, but got no scheduler.");
    for (std::size_t i = 0; i < schedulers_.size(); ++i)
      tensorlib::detail::check<ValueError>(
          &schedulers_[i].get().optimizer() == &optimizer,
          "SequentialLR expects all schedulers to belong to the same optimizer, but got "
          "scheduler at index ",
          i, " bound to a different optimizer");
    tensorlib::detail::check<ValueError>(
        milestones_.size() + 1 == schedulers_.size(),
        "Sequential Schedulers expects number of schedulers provided to be one more than the "
        "number of milestone points, but got number of schedulers ",
        schedulers_.size(), " and the number of milestones to be equal to ", milestones_.size());
    last_epoch_ = last_epoch + 1;
    for (std::size_t g = 0; g < optimizer.group_count(); ++g) {
      const auto initial = optimizer.initial_lr(g);
      tensorlib::detail::check<ValueError>(
          initial.has_value(), "SequentialLR: param 'initial_lr' is not specified in param_groups[", g, "]");
      optimizer.set_lr(g, *initial);
    }
    for (auto& s : schedulers_) s.get().rewind();
    schedulers_[0].get().initial_step();
    last_lrs_ = schedulers_[0].get().get_last_lr();
  }

  /// Steps the scheduler whose interval holds the next epoch.
  void step() override {
    ++last_epoch_;
    const auto idx = static_cast<std::size_t>(std::upper_bound(milestones_.begin(), milestones_.end(), last_epoch_) -
                                              milestones_.begin());
    LRScheduler& scheduler = schedulers_[idx].get();
    if (idx > 0 && milestones_[idx - 1] == last_epoch_)
      scheduler.step_to(0);
    else
      scheduler.step();
    last_lrs_ = scheduler.get_last_lr();
  }

  /// The milestones, as given.
  const std::vector<std::int64_t>& milestones() const { return milestones_; }

  /// last_epoch, last_lrs and every wrapped scheduler's state in `schedulers`.
  LRSchedulerState state_dict() const override { return composite_state_dict(schedulers_); }
  void load_state_dict(const LRSchedulerState& state) override {
    load_composite_state_dict(state, schedulers_, "SequentialLR");
  }

 private:
  std::vector<std::reference_wrapper<LRScheduler>> schedulers_;
  std::vector<std::int64_t> milestones_;
};

}  // namespace tensorlib::optim::lr_scheduler
