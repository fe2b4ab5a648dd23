#pragma once
/// \file
/// `OneCycleLR`: the 1cycle policy (Smith and Topin, "Super-Convergence"):
/// the lr rises from max_lr / div_factor to max_lr, then anneals far below
/// the start, with momentum moving the other way.

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <numbers>
#include <optional>
#include <string>
#include <vector>

#include "tensorlib/core/error.hpp"
#include "tensorlib/core/shape.hpp"
#include "tensorlib/optim/lr_scheduler.hpp"
#include "tensorlib/optim/lr_scheduler_base.hpp"
#include "tensorlib/optim/optimizer_base.hpp"

namespace tensorlib::optim::lr_scheduler {

/// How OneCycleLR moves between two values.
enum class AnnealStrategy {
  cos,     ///< half a cosine
  linear,  ///< a straight line
};

/// OneCycleLR's options (PyTorch's defaults). `max_lr` is required, and
/// either `total_steps` or both `epochs` and `steps_per_epoch`.
struct OneCycleLROptions {
  /// The peak lr of each group.
  PerGroup max_lr{};
  /// Steps in the cycle; takes precedence over epochs * steps_per_epoch.
  std::optional<std::int64_t> total_steps{};
  std::optional<std::int64_t> epochs{};
  std::optional<std::int64_t> steps_per_epoch{};
  /// The fraction of the cycle spent raising the lr.
  double pct_start = 0.3;
  AnnealStrategy anneal_strategy = AnnealStrategy::cos;
  /// Cycle momentum (beta1 for the Adam family) between the two bounds below.
  bool cycle_momentum = true;
  PerGroup base_momentum = 0.85;
  PerGroup max_momentum = 0.95;
  /// initial_lr = max_lr / div_factor.
  double div_factor = 25.;
  /// min_lr = initial_lr / final_div_factor.
  double final_div_factor = 1e4;
  /// Rise, fall back to initial_lr, then anneal to min_lr (the paper's three
  /// phases) instead of fastai's two.
  bool three_phase = false;
  std::int64_t last_epoch = -1;
};

/// The 1cycle schedule; meant to be stepped every batch, at most
/// `total_steps` times. Its lr depends on the step only, so closed form and
/// chainable update are the same (PyTorch calls it not chainable).
class OneCycleLR final : public LRScheduler {
 public:
  using Options = OneCycleLROptions;

  OneCycleLR(OptimizerBase& optimizer, const Options& options)
      : LRScheduler(prepare(optimizer, options), options.last_epoch, "OneCycleLR"),
        total_steps_(total_steps_of(options)),
        anneal_(options.anneal_strategy),
        cycle_momentum_(options.cycle_momentum) {
    const std::size_t groups = optimizer.group_count();
    max_lrs_ = options.max_lr.resolve("OneCycleLR", "max_lr", groups);
    for (std::size_t g = 0; g < groups; ++g) min_lrs_.push_back(base_lrs()[g] / options.final_div_factor);
    if (cycle_momentum_) {
      base_momentums_ = options.base_momentum.resolve("OneCycleLR", "base_momentum", groups);
      max_momentums_ = options.max_momentum.resolve("OneCycleLR", "max_momentum", groups);
    }
    const double steps = static_cast<double>(total_steps_);
    if (options.three_phase) {
      phases_ = {{options.pct_start * steps - 1, Level::initial, Level::max, Level::max, Level::base},
                 {2 * options.pct_start * steps - 2, Level::max, Level::initial, Level::base, Level::max},
                 {steps - 1, Level::initial, Level::min, Level::max, Level::max}};
    } else {
      phases_ = {{options.pct_start * steps - 1, Level::initial, Level::max, Level::max, Level::base},
                 {steps - 1, Level::max, Level::min, Level::base, Level::max}};
    }
    // Step 0 falls in an empty first phase when pct_start * total_steps == 1:
    // PyTorch divides 0 by 0 there (ZeroDivisionError).
    tensorlib::detail::check<ValueError>(phases_[0].end_step != 0, "OneCycleLR: pct_start (", options.pct_start,
                                         ") times total_steps (", total_steps_,
                                         ") is 1, which leaves the first phase empty (a division by zero)");
    initial_step();
  }

  /// The number of steps in the cycle.
  std::int64_t total_steps() const { return total_steps_; }

 protected:
  double closed_form_lr(std::size_t group, std::int64_t epoch) const override {
    const auto [phase, pct] = locate(epoch);
    return anneal(lr_level(group, phase->start_lr), lr_level(group, phase->end_lr), pct);
  }
  double chained_lr(std::size_t group, std::int64_t epoch, double) const override {
    return closed_form_lr(group, epoch);
  }
  void on_epoch(std::int64_t epoch) override {
    // Current PyTorch reports the step index; 1.13 reported it plus one.
    tensorlib::detail::check<ValueError>(epoch <= total_steps_, "OneCycleLR: Tried to step ", epoch,
                                         " times. The specified number of total steps is ", total_steps_);
    if (!cycle_momentum_) return;
    const auto [phase, pct] = locate(epoch);
    for (std::size_t g = 0; g < max_momentums_.size(); ++g)
      optimizer_->set_momentum(
          g, anneal(momentum_level(g, phase->start_momentum), momentum_level(g, phase->end_momentum), pct));
  }

 private:
  enum class Level { initial, max, min, base };
  struct Phase {
    double end_step;
    Level start_lr, end_lr, start_momentum, end_momentum;
  };
  struct Location {
    const Phase* phase;
    double pct;  // progress through the phase, 0 to 1
  };

  static std::int64_t total_steps_of(const Options& o) {
    if (o.total_steps) return *o.total_steps;
    return checked_mul(*o.epochs, *o.steps_per_epoch, "OneCycleLR: epochs * steps_per_epoch");
  }

  // Validates the options and, for a fresh start, sets each group's
  // initial_lr to max_lr / div_factor and its momentum to max_momentum before
  // the base constructor reads them (PyTorch's order).
  static OptimizerBase& prepare(OptimizerBase& optimizer, const Options& o) {
    const char* op = "OneCycleLR";
    if (o.total_steps) {
      tensorlib::detail::check<ValueError>(*o.total_steps > 0, op, ": Expected positive integer total_steps, but got ",
                                           *o.total_steps);
    } else if (o.epochs && o.steps_per_epoch) {
      tensorlib::detail::check<ValueError>(*o.epochs > 0, op, ": Expected positive integer epochs, but got ",
                                           *o.epochs);
      tensorlib::detail::check<ValueError>(*o.steps_per_epoch > 0, op,
                                           ": Expected positive integer steps_per_epoch, but got ", *o.steps_per_epoch);
    } else {
      throw ValueError(std::string(op) + ": You must define either total_steps OR (epochs AND steps_per_epoch)");
    }
    tensorlib::detail::check<ValueError>(o.pct_start >= 0 && o.pct_start <= 1, op,
                                         ": Expected float between 0 and 1 pct_start, but got ", o.pct_start);
    // PyTorch divides by them (ZeroDivisionError); the lrs would be infinite.
    tensorlib::detail::check<ValueError>(o.div_factor != 0, op, ": div_factor must be nonzero");
    tensorlib::detail::check<ValueError>(o.final_div_factor != 0, op, ": final_div_factor must be nonzero");
    const std::size_t groups = optimizer.group_count();
    const auto max_lrs = o.max_lr.resolve(op, "max_lr", groups);
    if (o.cycle_momentum) {
      tensorlib::detail::check<ValueError>(
          groups == 0 || optimizer.momentum(0).has_value(), op,
          ": optimizer must support momentum or beta1 with `cycle_momentum` option enabled");
      o.base_momentum.resolve(op, "base_momentum", groups);
      const auto max_momentums = o.max_momentum.resolve(op, "max_momentum", groups);
      if (o.last_epoch == -1)
        for (std::size_t g = 0; g < groups; ++g) optimizer.set_momentum(g, max_momentums[g]);
    }
    if (o.last_epoch == -1)
      for (std::size_t g = 0; g < groups; ++g) optimizer.set_initial_lr(g, max_lrs[g] / o.div_factor);
    return optimizer;
  }

  Location locate(std::int64_t epoch) const {
    const double step = static_cast<double>(epoch);
    double start_step = 0;
    for (std::size_t i = 0; i < phases_.size(); ++i) {
      const Phase& phase = phases_[i];
      if (step <= phase.end_step || i + 1 == phases_.size())
        return {&phase, (step - start_step) / (phase.end_step - start_step)};
      start_step = phase.end_step;
    }
    return {&phases_.back(), 1.0};  // unreachable: the last phase always matches
  }

  double anneal(double start, double end, double pct) const {
    if (anneal_ == AnnealStrategy::linear) return (end - start) * pct + start;
    const double cos_out = std::cos(std::numbers::pi * pct) + 1;
    return end + (start - end) / 2.0 * cos_out;
  }

  double lr_level(std::size_t g, Level level) const {
    switch (level) {
      case Level::initial:
        return base_lrs()[g];
      case Level::max:
        return max_lrs_[g];
      case Level::min:
      case Level::base:
        break;
    }
    return min_lrs_[g];
  }

  double momentum_level(std::size_t g, Level level) const {
    return level == Level::max ? max_momentums_[g] : base_momentums_[g];
  }

  std::int64_t total_steps_;
  AnnealStrategy anneal_;
  bool cycle_momentum_;
  std::vector<double> max_lrs_;
  std::vector<double> min_lrs_;
  std::vector<double> base_momentums_;
  std::vector<double> max_momentums_;
  std::vector<Phase> phases_;
};

}  // namespace tensorlib::optim::lr_scheduler
