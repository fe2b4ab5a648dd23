#pragma once
/// \file
/// The decaying schedules: StepLR, MultiStepLR, ExponentialLR, PolynomialLR
/// and CosineAnnealingLR, each with PyTorch's closed form and chainable update
/// (Note [closed form or chained] in lr_scheduler.hpp).

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <numbers>
#include <utility>
#include <vector>

#include "tensorlib/core/error.hpp"
#include "tensorlib/optim/lr_scheduler.hpp"
#include "tensorlib/optim/optimizer_base.hpp"

namespace tensorlib::optim::lr_scheduler {

/// Multiplies the lr by `gamma` every `step_size` epochs:
/// lr = base_lr * gamma^(epoch / step_size).
class StepLR final : public LRScheduler {
 public:
  StepLR(OptimizerBase& optimizer, std::int64_t step_size, double gamma = 0.1, std::int64_t last_epoch = -1)
      : LRScheduler(optimizer, last_epoch, "StepLR"), step_size_(step_size), gamma_(gamma) {
    // PyTorch fails later with ZeroDivisionError; here `%` by zero is undefined.
    tensorlib::detail::check<ValueError>(step_size > 0, "StepLR: expected positive integer step_size, but got ",
                                         step_size);
    initial_step();
  }

 protected:
  double closed_form_lr(std::size_t group, std::int64_t epoch) const override {
    return base_lrs()[group] * std::pow(gamma_, static_cast<double>(floor_div(epoch, step_size_)));
  }
  double chained_lr(std::size_t, std::int64_t epoch, double lr) const override {
    if (epoch == 0 || epoch % step_size_ != 0) return lr;
    return lr * gamma_;
  }

 private:
  // Python's `//`, which rounds towards minus infinity.
  static std::int64_t floor_div(std::int64_t a, std::int64_t b) {
    const std::int64_t q = a / b;
    return (a % b != 0 && a < 0) ? q - 1 : q;
  }

  std::int64_t step_size_;
  double gamma_;
};

/// Multiplies the lr by `gamma` at each milestone:
/// lr = base_lr * gamma^(number of milestones <= epoch). A milestone listed
/// twice counts twice, as in PyTorch's Counter.
class MultiStepLR final : public LRScheduler {
 public:
  MultiStepLR(OptimizerBase& optimizer, std::vector<std::int64_t> milestones, double gamma = 0.1,
              std::int64_t last_epoch = -1)
      : LRScheduler(optimizer, last_epoch, "MultiStepLR"), milestones_(std::move(milestones)), gamma_(gamma) {
    // PyTorch documents "Must be increasing" without checking; a decreasing
    // list is almost certainly a typo, so it is refused here.
    for (std::size_t i = 1; i < milestones_.size(); ++i)
      tensorlib::detail::check<ValueError>(milestones_[i - 1] <= milestones_[i],
                                           "MultiStepLR: milestones must be increasing, but got ", milestones_[i - 1],
                                           " before ", milestones_[i]);
    initial_step();
  }

  /// The milestones, in increasing order.
  const std::vector<std::int64_t>& milestones() const { return milestones_; }

 protected:
  double closed_form_lr(std::size_t group, std::int64_t epoch) const override {
    const auto passed = std::upper_bound(milestones_.begin(), milestones_.end(), epoch) - milestones_.begin();
    return base_lrs()[group] * std::pow(gamma_, static_cast<double>(passed));
  }
  double chained_lr(std::size_t, std::int64_t epoch, double lr) const override {
    const auto hits = std::count(milestones_.begin(), milestones_.end(), epoch);
    if (hits == 0) return lr;
    return lr * std::pow(gamma_, static_cast<double>(hits));
  }

 private:
  std::vector<std::int64_t> milestones_;
  double gamma_;
};

/// Multiplies the lr by `gamma` every epoch: lr = base_lr * gamma^epoch.
class ExponentialLR final : public LRScheduler {
 public:
  ExponentialLR(OptimizerBase& optimizer, double gamma, std::int64_t last_epoch = -1)
      : LRScheduler(optimizer, last_epoch, "ExponentialLR"), gamma_(gamma) {
    initial_step();
  }

 protected:
  double closed_form_lr(std::size_t group, std::int64_t epoch) const override {
    return base_lrs()[group] * std::pow(gamma_, static_cast<double>(epoch));
  }
  double chained_lr(std::size_t, std::int64_t, double lr) const override { return initial() ? lr : lr * gamma_; }

 private:
  double gamma_;
};

/// PolynomialLR's options (PyTorch's defaults).
struct PolynomialLROptions {
  /// Steps over which the lr decays to 0.
  std::int64_t total_iters = 5;
  /// The power of the polynomial.
  double power = 1.0;
  std::int64_t last_epoch = -1;
};

/// Decays the lr polynomially to 0 over `total_iters` epochs:
/// lr = base_lr * (1 - min(total_iters, epoch) / total_iters)^power.
class PolynomialLR final : public LRScheduler {
 public:
  using Options = PolynomialLROptions;

  explicit PolynomialLR(OptimizerBase& optimizer, Options options = {})
      : LRScheduler(optimizer, options.last_epoch, "PolynomialLR"), options_(options) {
    // PyTorch fails later with ZeroDivisionError.
    tensorlib::detail::check<ValueError>(
        options.total_iters > 0, "PolynomialLR: expected positive integer total_iters, but got ", options.total_iters);
    // PyTorch fails with ZeroDivisionError when the lr reaches 0 (0 ** power).
    tensorlib::detail::check<ValueError>(options.power >= 0, "PolynomialLR: power must be non-negative, but got ",
                                         options.power);
    initial_step();
  }

 protected:
  double closed_form_lr(std::size_t group, std::int64_t epoch) const override {
    const double t = static_cast<double>(options_.total_iters);
    const double e = static_cast<double>(std::min(options_.total_iters, epoch));
    return base_lrs()[group] * std::pow(1.0 - e / t, options_.power);
  }
  double chained_lr(std::size_t, std::int64_t epoch, double lr) const override {
    if (initial() || epoch > options_.total_iters) return lr;
    const double t = static_cast<double>(options_.total_iters);
    const double e = static_cast<double>(epoch);
    return lr * std::pow((1.0 - e / t) / (1.0 - (e - 1) / t), options_.power);
  }

 private:
  Options options_;
};

/// Cosine annealing from base_lr to `eta_min` over `T_max` epochs (and back up
/// after, as PyTorch's cosine keeps going):
/// lr = eta_min + (base_lr - eta_min) * (1 + cos(pi * epoch / T_max)) / 2.
class CosineAnnealingLR final : public LRScheduler {
 public:
  CosineAnnealingLR(OptimizerBase& optimizer, std::int64_t T_max, double eta_min = 0.0, std::int64_t last_epoch = -1)
      : LRScheduler(optimizer, last_epoch, "CosineAnnealingLR"), T_max_(T_max), eta_min_(eta_min) {
    // PyTorch fails later with ZeroDivisionError; `%` by zero is undefined here.
    tensorlib::detail::check<ValueError>(T_max > 0, "CosineAnnealingLR: expected positive integer T_max, but got ",
                                         T_max);
    initial_step();
  }

 protected:
  double closed_form_lr(std::size_t group, std::int64_t epoch) const override {
    return eta_min_ + (base_lrs()[group] - eta_min_) * (1 + std::cos(pi * static_cast<double>(epoch) / t_max())) / 2;
  }
  double chained_lr(std::size_t group, std::int64_t epoch, double lr) const override {
    const double e = static_cast<double>(epoch);
    if (initial()) return lr;
    if (step_count() == 1 && epoch > 0)  // PyTorch: the first step after resuming jumps to the closed form
      return eta_min_ + (base_lrs()[group] - eta_min_) * (1 + std::cos(e * pi / t_max())) / 2;
    if ((epoch - 1 - T_max_) % (2 * T_max_) == 0)  // the minimum, where the ratio below would be 0/0
      return lr + (base_lrs()[group] - eta_min_) * (1 - std::cos(pi / t_max())) / 2;
    return (1 + std::cos(pi * e / t_max())) / (1 + std::cos(pi * (e - 1) / t_max())) * (lr - eta_min_) + eta_min_;
  }

 private:
  static constexpr double pi = std::numbers::pi;
  double t_max() const { return static_cast<double>(T_max_); }

  std::int64_t T_max_;
  double eta_min_;
};

}  // namespace tensorlib::optim::lr_scheduler
