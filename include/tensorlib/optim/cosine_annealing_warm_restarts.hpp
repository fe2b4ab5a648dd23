#pragma once
/// \file
/// `CosineAnnealingWarmRestarts`: SGDR (Loshchilov and Hutter), cosine
/// annealing that restarts from base_lr every T_i epochs, T_i growing by
/// T_mult after each restart.

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <numbers>

#include "tensorlib/core/error.hpp"
#include "tensorlib/core/shape.hpp"
#include "tensorlib/optim/lr_scheduler.hpp"
#include "tensorlib/optim/lr_scheduler_base.hpp"
#include "tensorlib/optim/optimizer_base.hpp"

namespace tensorlib::optim::lr_scheduler {

/// lr = eta_min + (base_lr - eta_min) * (1 + cos(pi * T_cur / T_i)) / 2, where
/// T_cur counts the epochs since the last restart. `step()` advances T_cur by
/// one; `step(epoch)` jumps to a (possibly fractional) epoch, as in PyTorch's
/// `scheduler.step(epoch + i / iters)` within an epoch. The lr depends on
/// (T_cur, T_i) only, so closed form and chainable update are the same.
class CosineAnnealingWarmRestarts final : public LRScheduler {
 public:
  CosineAnnealingWarmRestarts(OptimizerBase& optimizer, std::int64_t T_0, std::int64_t T_mult = 1, double eta_min = 0.0,
                              std::int64_t last_epoch = -1)
      : LRScheduler(optimizer, last_epoch, "CosineAnnealingWarmRestarts"),
        T_0_(T_0),
        T_mult_(T_mult),
        eta_min_(eta_min),
        T_i_(T_0),
        T_cur_(static_cast<double>(last_epoch)) {
    tensorlib::detail::check<ValueError>(T_0 > 0,
                                         "CosineAnnealingWarmRestarts: Expected positive integer T_0, but got ", T_0);
    tensorlib::detail::check<ValueError>(T_mult >= 1,
                                         "CosineAnnealingWarmRestarts: Expected integer T_mult >= 1, but got ", T_mult);
    initial_step();
  }

  using LRScheduler::step;

  /// Jumps to `epoch` (fractional epochs allowed) and sets the lrs there.
  void step(double epoch) {
    tensorlib::detail::check<ValueError>(epoch >= 0,
                                         "CosineAnnealingWarmRestarts: Expected non-negative epoch, but got ", epoch);
    // PyTorch: "cannot convert float infinity to integer" (OverflowError).
    tensorlib::detail::check<ValueError>(epoch < 0x1p63, "CosineAnnealingWarmRestarts: epoch ", epoch,
                                         " does not fit in int64");
    const double t0 = static_cast<double>(T_0_);
    if (epoch >= t0) {
      if (T_mult_ == 1) {
        T_cur_ = std::fmod(epoch, t0);
      } else {
        const double mult = static_cast<double>(T_mult_);
        const auto n = static_cast<std::int64_t>(std::log(epoch / t0 * (mult - 1) + 1) / std::log(mult));
        const double grown = std::pow(mult, static_cast<double>(n));
        tensorlib::detail::check<ValueError>(t0 * grown < 0x1p63, "CosineAnnealingWarmRestarts: the period T_0 * ",
                                             "T_mult^", n, " at epoch ", epoch, " does not fit in int64");
        T_cur_ = epoch - t0 * (grown - 1) / (mult - 1);
        T_i_ = T_0_ * static_cast<std::int64_t>(grown);
      }
    } else {
      T_i_ = T_0_;
      T_cur_ = epoch;
    }
    jumped_ = true;
    update(static_cast<std::int64_t>(std::floor(epoch)), true);
    jumped_ = false;
  }

  /// Epochs since the last restart (fractional after `step(epoch)`).
  double T_cur() const { return T_cur_; }
  /// The length of the current period.
  std::int64_t T_i() const { return T_i_; }

 protected:
  double closed_form_lr(std::size_t group, std::int64_t) const override {
    return eta_min_ +
           (base_lrs()[group] - eta_min_) * (1 + std::cos(std::numbers::pi * T_cur_ / static_cast<double>(T_i_))) / 2;
  }
  double chained_lr(std::size_t group, std::int64_t epoch, double) const override {
    return closed_form_lr(group, epoch);
  }
  // PyTorch's step() without an epoch: one more epoch in the period, or a
  // restart; the very first step starts the first period.
  void on_epoch(std::int64_t) override {
    if (jumped_) return;
    if (last_epoch_ < 0) {
      T_i_ = T_0_;
      T_cur_ = 0;
      return;
    }
    T_cur_ += 1;
    if (T_cur_ >= static_cast<double>(T_i_)) {
      T_cur_ = std::fmod(T_cur_, static_cast<double>(T_i_));
      T_i_ = checked_mul(T_i_, T_mult_, "CosineAnnealingWarmRestarts: the period T_i * T_mult");
    }
  }
  void save_values(LRSchedulerState& state) const override {
    state.values["T_cur"] = T_cur_;
    state.values["T_i"] = static_cast<double>(T_i_);
  }
  void load_values(const LRSchedulerState& state) override {
    for (const char* key : {"T_cur", "T_i"})
      tensorlib::detail::check<ValueError>(state.values.count(key) != 0,
                                           "CosineAnnealingWarmRestarts.load_state_dict: the state has no ", key);
    T_cur_ = state.values.at("T_cur");
    T_i_ = static_cast<std::int64_t>(state.values.at("T_i"));
  }

 private:
  std::int64_t T_0_;
  std::int64_t T_mult_;
  double eta_min_;
  std::int64_t T_i_;
  double T_cur_;
  bool jumped_ = false;
};

}  // namespace tensorlib::optim::lr_scheduler
