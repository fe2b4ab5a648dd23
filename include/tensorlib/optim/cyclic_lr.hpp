#pragma once
/// \file
/// `CyclicLR`: the cyclical learning-rate policy (Smith, "Cyclical Learning
/// Rates for Training Neural Networks"), with momentum cycled inversely.

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <utility>
#include <vector>

#include "tensorlib/core/error.hpp"
#include "tensorlib/optim/lr_scheduler.hpp"
#include "tensorlib/optim/lr_scheduler_base.hpp"
#include "tensorlib/optim/optimizer_base.hpp"

namespace tensorlib::optim::lr_scheduler {

/// CyclicLR's built-in amplitude policies.
enum class CyclicMode {
  triangular,   ///< constant amplitude
  triangular2,  ///< amplitude halved every cycle
  exp_range,    ///< amplitude scaled by gamma^iteration
};

/// What a custom `scale_fn` is evaluated on.
enum class ScaleMode {
  cycle,       ///< the cycle number, from 1
  iterations,  ///< the step index
};

/// CyclicLR's options (PyTorch's defaults); `base_lr` and `max_lr` are required.
struct CyclicLROptions {
  /// The lower lr boundary, which is also the lr at the start of a cycle.
  PerGroup base_lr{};
  /// The upper lr boundary.
  PerGroup max_lr{};
  /// Steps in the increasing half of a cycle.
  std::int64_t step_size_up = 2000;
  /// Steps in the decreasing half; `step_size_up` when empty.
  std::optional<std::int64_t> step_size_down{};
  CyclicMode mode = CyclicMode::triangular;
  /// The base of `exp_range`'s scaling.
  double gamma = 1.0;
  /// A custom amplitude scaling in [0, 1]; replaces `mode` when set.
  std::function<double(double)> scale_fn{};
  /// What `scale_fn` takes (only used with a custom `scale_fn`).
  ScaleMode scale_mode = ScaleMode::cycle;
  /// Cycle momentum (beta1 for the Adam family) between the two bounds below.
  bool cycle_momentum = true;
  PerGroup base_momentum = 0.8;
  PerGroup max_momentum = 0.9;
  std::int64_t last_epoch = -1;
};

/// Cycles the lr between `base_lr` and `max_lr` (and momentum between
/// `max_momentum` and `base_momentum`); meant to be stepped every batch.
/// Its lr depends on the step only, so closed form and chainable update are
/// the same (PyTorch calls it not chainable).
class CyclicLR final : public LRScheduler {
 public:
  using Options = CyclicLROptions;

  CyclicLR(OptimizerBase& optimizer, Options options)
      : LRScheduler(prepare(optimizer, options), options.last_epoch, "CyclicLR"),
        lower_lrs_(options.base_lr.resolve("CyclicLR", "base_lr", optimizer.group_count())),
        upper_lrs_(options.max_lr.resolve("CyclicLR", "max_lr", optimizer.group_count())),
        total_size_(static_cast<double>(options.step_size_up + options.step_size_down.value_or(options.step_size_up))),
        step_ratio_(static_cast<double>(options.step_size_up) / total_size_),
        mode_(options.mode),
        gamma_(options.gamma),
        scale_fn_(std::move(options.scale_fn)),
        scale_mode_(scale_fn_ ? options.scale_mode
                              : (options.mode == CyclicMode::exp_range ? ScaleMode::iterations : ScaleMode::cycle)),
        cycle_momentum_(options.cycle_momentum) {
    if (cycle_momentum_) {
      base_momentums_ = options.base_momentum.resolve("CyclicLR", "base_momentum", optimizer.group_count());
      max_momentums_ = options.max_momentum.resolve("CyclicLR", "max_momentum", optimizer.group_count());
    }
    initial_step();
    // As PyTorch: the base lrs are the cycle's lower bounds, not initial_lr.
    set_base_lrs(lower_lrs_);
  }

 protected:
  double closed_form_lr(std::size_t group, std::int64_t epoch) const override {
    const auto [scale_factor, scale] = position(epoch);
    const double base_height = (upper_lrs_[group] - lower_lrs_[group]) * scale_factor;
    return lower_lrs_[group] + base_height * scale;
  }
  double chained_lr(std::size_t group, std::int64_t epoch, double) const override {
    return closed_form_lr(group, epoch);
  }
  void on_epoch(std::int64_t epoch) override {
    if (!cycle_momentum_) return;
    const auto [scale_factor, scale] = position(epoch);
    for (std::size_t g = 0; g < base_momentums_.size(); ++g) {
      const double base_height = (max_momentums_[g] - base_momentums_[g]) * scale_factor;
      optimizer_->set_momentum(g, max_momentums_[g] - base_height * scale);
    }
  }

 private:
  struct Position {
    double scale_factor;  // 0 at the cycle's start, 1 at its peak
    double scale;         // the amplitude's scaling
  };

  // Validates the options and, for a fresh start, sets each group's lr to
  // base_lr and its momentum to max_momentum before the base constructor
  // reads the lrs (PyTorch's order).
  static OptimizerBase& prepare(OptimizerBase& optimizer, const Options& o) {
    const std::size_t groups = optimizer.group_count();
    const auto base_lrs = o.base_lr.resolve("CyclicLR", "base_lr", groups);
    o.max_lr.resolve("CyclicLR", "max_lr", groups);
    // PyTorch fails later with ZeroDivisionError for these.
    tensorlib::detail::check<ValueError>(o.step_size_up > 0,
                                         "CyclicLR: expected positive integer step_size_up, but got ", o.step_size_up);
    tensorlib::detail::check<ValueError>(o.step_size_down.value_or(0) >= 0,
                                         "CyclicLR: expected non-negative integer step_size_down, but got ",
                                         o.step_size_down.value_or(0));
    if (o.cycle_momentum) {
      tensorlib::detail::check<ValueError>(
          groups == 0 || optimizer.momentum(0).has_value(),
          "CyclicLR: optimizer must support momentum or beta1 with `cycle_momentum` option "
          "enabled");
      o.base_momentum.resolve("CyclicLR", "base_momentum", groups);
      const auto max_momentums = o.max_momentum.resolve("CyclicLR", "max_momentum", groups);
      if (o.last_epoch == -1)
        for (std::size_t g = 0; g < groups; ++g) optimizer.set_momentum(g, max_momentums[g]);
    }
    if (o.last_epoch == -1)
      for (std::size_t g = 0; g < groups; ++g) optimizer.set_lr(g, base_lrs[g]);
    return optimizer;
  }

  Position position(std::int64_t epoch) const {
    const double e = static_cast<double>(epoch);
    const double cycle = std::floor(1 + e / total_size_);
    const double x = 1. + e / total_size_ - cycle;
    const double scale_factor = x <= step_ratio_ ? x / step_ratio_ : (x - 1) / (step_ratio_ - 1);
    return {scale_factor, scale_at(scale_mode_ == ScaleMode::cycle ? cycle : e)};
  }

  double scale_at(double x) const {
    if (scale_fn_) return scale_fn_(x);
    switch (mode_) {
      case CyclicMode::triangular2:
        return 1 / std::pow(2., x - 1);
      case CyclicMode::exp_range:
        return std::pow(gamma_, x);
      case CyclicMode::triangular:
        break;
    }
    return 1.;
  }

  std::vector<double> lower_lrs_;
  std::vector<double> upper_lrs_;
  double total_size_;
  double step_ratio_;
  CyclicMode mode_;
  double gamma_;
  std::function<double(double)> scale_fn_{};
  ScaleMode scale_mode_;
  bool cycle_momentum_;
  std::vector<double> base_momentums_;
  std::vector<double> max_momentums_;
};

}  // namespace tensorlib::optim::lr_scheduler
