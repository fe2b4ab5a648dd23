#pragma once
/// \file
/// The warm-up schedules: LinearLR and ConstantLR scale the lr by a factor
/// until `total_iters`, then leave it at base_lr (times `end_factor`).

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "tensorlib/core/error.hpp"
#include "tensorlib/optim/lr_scheduler.hpp"
#include "tensorlib/optim/optimizer_base.hpp"

namespace tensorlib::optim::lr_scheduler {

/// LinearLR's options (PyTorch's defaults).
struct LinearLROptions {
  /// The lr factor at epoch 0, in (0, 1].
  double start_factor = 1.0 / 3;
  /// The lr factor from `total_iters` on, in [0, 1].
  double end_factor = 1.0;
  /// Epochs over which the factor moves linearly.
  std::int64_t total_iters = 5;
  std::int64_t last_epoch = -1;
};

/// Scales the lr by a factor moving linearly from `start_factor` to
/// `end_factor` over `total_iters` epochs:
/// lr = base_lr * (start + (end - start) * min(total_iters, epoch) / total_iters).
class LinearLR final : public LRScheduler {
 public:
  using Options = LinearLROptions;

  explicit LinearLR(OptimizerBase& optimizer, Options options = {})
      : LRScheduler(optimizer, options.last_epoch, "LinearLR"), options_(options) {
    // Current PyTorch refuses start_factor == 0 (1.13 took it and divided by
    // zero in the chainable form).
    tensorlib::detail::check<ValueError>(
        options.start_factor > 0 && options.start_factor <= 1.0,
        "LinearLR: Starting multiplicative factor expected to be greater than 0 and less or ", "equal to 1, but got ",
        options.start_factor);
    tensorlib::detail::check<ValueError>(
        options.end_factor >= 0 && options.end_factor <= 1.0,
        "LinearLR: Ending multiplicative factor expected to be between 0 and 1, but got ", options.end_factor);
    // PyTorch fails later with ZeroDivisionError.
    tensorlib::detail::check<ValueError>(
        options.total_iters > 0, "LinearLR: expected positive integer total_iters, but got ", options.total_iters);
    initial_step();
  }

 protected:
  double closed_form_lr(std::size_t group, std::int64_t epoch) const override {
    const auto& o = options_;
    return base_lrs()[group] *
           (o.start_factor + (o.end_factor - o.start_factor) * static_cast<double>(std::min(o.total_iters, epoch)) /
                                 static_cast<double>(o.total_iters));
  }
  double chained_lr(std::size_t, std::int64_t epoch, double lr) const override {
    const auto& o = options_;
    if (epoch == 0) return lr * o.start_factor;
    if (initial() || epoch > o.total_iters) return lr;
    return lr *
           (1.0 + (o.end_factor - o.start_factor) / (static_cast<double>(o.total_iters) * o.start_factor +
                                                     static_cast<double>(epoch - 1) * (o.end_factor - o.start_factor)));
  }

 private:
  Options options_;
};

/// ConstantLR's options (PyTorch's defaults).
struct ConstantLROptions {
  /// The lr factor before `total_iters`, in [0, 1].
  double factor = 1.0 / 3;
  /// The epoch from which the lr is base_lr again.
  std::int64_t total_iters = 5;
  std::int64_t last_epoch = -1;
};

/// Scales the lr by `factor` until `total_iters`:
/// lr = base_lr * (epoch < total_iters ? factor : 1).
class ConstantLR final : public LRScheduler {
 public:
  using Options = ConstantLROptions;

  explicit ConstantLR(OptimizerBase& optimizer, Options options = {})
      : LRScheduler(optimizer, options.last_epoch, "ConstantLR"), options_(options) {
    tensorlib::detail::check<ValueError>(
        options.factor >= 0 && options.factor <= 1.0,
        "ConstantLR: Constant multiplicative factor expected to be between 0 and 1, but got ", options.factor);
    initial_step();
  }

 protected:
  double closed_form_lr(std::size_t group, std::int64_t epoch) const override {
    const auto& o = options_;
    return base_lrs()[group] * (o.factor + (epoch >= o.total_iters ? 1.0 : 0.0) * (1 - o.factor));
  }
  double chained_lr(std::size_t, std::int64_t epoch, double lr) const override {
    if (epoch == 0) return lr * options_.factor;
    if (epoch != options_.total_iters) return lr;
    return lr * (1.0 / options_.factor);
  }

 private:
  Options options_;
};

}  // namespace tensorlib::optim::lr_scheduler
