#pragma once
/// \file
/// `ReduceLROnPlateau`: lowers the lr when a watched metric stops improving.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

#include "tensorlib/core/error.hpp"
#include "tensorlib/optim/lr_scheduler_base.hpp"
#include "tensorlib/optim/optimizer_base.hpp"

namespace tensorlib::optim::lr_scheduler {

/// Whether ReduceLROnPlateau's metric should fall or rise.
enum class PlateauMode {
  min,  ///< a loss: improving means decreasing
  max,  ///< an accuracy: improving means increasing
};

/// How ReduceLROnPlateau measures a significant improvement.
enum class ThresholdMode {
  rel,  ///< beyond best * (1 -/+ threshold)
  abs,  ///< beyond best -/+ threshold
};

/// ReduceLROnPlateau's options (PyTorch's defaults).
struct ReduceLROnPlateauOptions {
  PlateauMode mode = PlateauMode::min;
  /// new_lr = lr * factor; must be < 1.
  double factor = 0.1;
  /// Epochs without improvement tolerated before the lr is reduced.
  std::int64_t patience = 10;
  /// The size of a significant improvement (see `threshold_mode`).
  double threshold = 1e-4;
  ThresholdMode threshold_mode = ThresholdMode::rel;
  /// Epochs after a reduction during which bad epochs are not counted.
  std::int64_t cooldown = 0;
  /// The lowest lr, for every group or per group.
  PerGroup min_lr = 0.0;
  /// Reductions smaller than this are skipped.
  double eps = 1e-8;
};

/// Multiplies every lr by `factor` after more than `patience` epochs without
/// a significant improvement of the metric passed to `step(metric)`. Not an
/// `LRSchedulerBase` (its step needs the metric), so it cannot be put in a
/// SequentialLR or ChainedScheduler, as in PyTorch.
class ReduceLROnPlateau {
 public:
  using Options = ReduceLROnPlateauOptions;

  explicit ReduceLROnPlateau(OptimizerBase& optimizer, Options options = {})
      : optimizer_(&optimizer), options_(options) {
    tensorlib::detail::check<ValueError>(options.factor < 1.0, "ReduceLROnPlateau: Factor should be < 1.0, but got ",
                                         options.factor);
    min_lrs_ = options.min_lr.resolve("ReduceLROnPlateau", "min_lr", optimizer.group_count());
    last_lrs_ = current_lrs();
    best_ = worst();
  }

  /// Records the metric of the epoch just finished and reduces the lrs if it
  /// has not improved for more than `patience` epochs.
  void step(double metric) {
    ++last_epoch_;
    if (is_better(metric, best_)) {
      best_ = metric;
      num_bad_epochs_ = 0;
    } else {
      ++num_bad_epochs_;
    }
    if (cooldown_counter_ > 0) {
      --cooldown_counter_;
      num_bad_epochs_ = 0;  // bad epochs in cooldown are ignored
    }
    if (num_bad_epochs_ > options_.patience) {
      reduce_lr();
      cooldown_counter_ = options_.cooldown;
      num_bad_epochs_ = 0;
    }
    last_lrs_ = current_lrs();
  }

  /// The lrs after the last step.
  const std::vector<double>& get_last_lr() const { return last_lrs_; }
  /// The number of `step` calls so far.
  std::int64_t last_epoch() const { return last_epoch_; }
  /// The optimizer whose lrs this scheduler sets.
  OptimizerBase& optimizer() const { return *optimizer_; }
  /// The best metric so far (+inf or -inf before the first step).
  double best() const { return best_; }
  /// Epochs since the last significant improvement.
  std::int64_t num_bad_epochs() const { return num_bad_epochs_; }
  /// True while bad epochs are not counted after a reduction.
  bool in_cooldown() const { return cooldown_counter_ > 0; }

  /// Progress: last_epoch, last_lrs, and `best`, `num_bad_epochs`,
  /// `cooldown_counter` in `values`.
  LRSchedulerState state_dict() const {
    LRSchedulerState state;
    state.last_epoch = last_epoch_;
    state.last_lrs = last_lrs_;
    state.values = {{"best", best_},
                    {"num_bad_epochs", static_cast<double>(num_bad_epochs_)},
                    {"cooldown_counter", static_cast<double>(cooldown_counter_)}};
    return state;
  }

  /// Restores what `state_dict()` saved.
  void load_state_dict(const LRSchedulerState& state) {
    for (const char* key : {"best", "num_bad_epochs", "cooldown_counter"})
      tensorlib::detail::check<ValueError>(state.values.count(key) != 0,
                                           "ReduceLROnPlateau.load_state_dict: the state has no ", key);
    last_epoch_ = state.last_epoch;
    last_lrs_ = state.last_lrs;
    best_ = state.values.at("best");
    num_bad_epochs_ = static_cast<std::int64_t>(state.values.at("num_bad_epochs"));
    cooldown_counter_ = static_cast<std::int64_t>(state.values.at("cooldown_counter"));
  }

 private:
  double worst() const {
    const double inf = std::numeric_limits<double>::infinity();
    return options_.mode == PlateauMode::min ? inf : -inf;
  }

  bool is_better(double a, double best) const {
    const double t = options_.threshold;
    const bool rel = options_.threshold_mode == ThresholdMode::rel;
    if (options_.mode == PlateauMode::min) return rel ? a < best * (1. - t) : a < best - t;
    return rel ? a > best * (t + 1.) : a > best + t;
  }

  void reduce_lr() {
    for (std::size_t g = 0; g < min_lrs_.size(); ++g) {
      const double old_lr = optimizer_->lr(g);
      const double new_lr = std::max(old_lr * options_.factor, min_lrs_[g]);
      if (old_lr - new_lr > options_.eps) optimizer_->set_lr(g, new_lr);
    }
  }

  std::vector<double> current_lrs() const {
    std::vector<double> lrs(optimizer_->group_count());
    for (std::size_t g = 0; g < lrs.size(); ++g) lrs[g] = optimizer_->lr(g);
    return lrs;
  }

  OptimizerBase* optimizer_;
  Options options_;
  std::vector<double> min_lrs_;
  std::vector<double> last_lrs_;
  std::int64_t last_epoch_ = 0;
  double best_ = 0;
  std::int64_t num_bad_epochs_ = 0;
  std::int64_t cooldown_counter_ = 0;
};

}  // namespace tensorlib::optim::lr_scheduler
