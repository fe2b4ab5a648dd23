#pragma once
/// \file
/// The user-defined schedules: LambdaLR (lr = base_lr * f(epoch)) and
/// MultiplicativeLR (lr *= f(epoch) each step). Their functions are not part
/// of `state_dict()`, as PyTorch saves no plain function either.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

#include "tensorlib/core/error.hpp"
#include "tensorlib/optim/lr_scheduler.hpp"
#include "tensorlib/optim/optimizer_base.hpp"

namespace tensorlib::optim::lr_scheduler {

/// A factor as a function of the epoch (PyTorch's `lr_lambda`).
using LRLambda = std::function<double(std::int64_t)>;

}  // namespace tensorlib::optim::lr_scheduler

namespace tensorlib::detail {

/// One function for every group, or one per group (PyTorch's "function or list").
inline std::vector<optim::lr_scheduler::LRLambda> per_group_lambdas(const char* op,
                                                                    std::vector<optim::lr_scheduler::LRLambda> lambdas,
                                                                    std::size_t groups) {
  if (lambdas.size() == 1) lambdas = std::vector<optim::lr_scheduler::LRLambda>(groups, lambdas[0]);
  check<ValueError>(lambdas.size() == groups, op, ": Expected ", groups, " lr_lambdas, but got ", lambdas.size());
  for (const auto& f : lambdas) check<ValueError>(static_cast<bool>(f), op, ": lr_lambda is empty");
  return lambdas;
}

}  // namespace tensorlib::detail

namespace tensorlib::optim::lr_scheduler {

/// Sets the lr to base_lr times a function of the epoch.
class LambdaLR final : public LRScheduler {
 public:
  /// One function for every group.
  LambdaLR(OptimizerBase& optimizer, LRLambda lr_lambda, std::int64_t last_epoch = -1)
      : LambdaLR(optimizer, std::vector<LRLambda>{std::move(lr_lambda)}, last_epoch) {}
  /// One function per group (or a single one for all).
  LambdaLR(OptimizerBase& optimizer, std::vector<LRLambda> lr_lambdas, std::int64_t last_epoch = -1)
      : LRScheduler(optimizer, last_epoch, "LambdaLR"),
        lambdas_(tensorlib::detail::per_group_lambdas("LambdaLR", std::move(lr_lambdas), optimizer.group_count())) {
    initial_step();
  }

 protected:
  double closed_form_lr(std::size_t group, std::int64_t epoch) const override {
    return base_lrs()[group] * lambdas_[group](epoch);
  }
  // PyTorch's get_lr is the closed form too: it ignores the current lr.
  double chained_lr(std::size_t group, std::int64_t epoch, double) const override {
    return closed_form_lr(group, epoch);
  }

 private:
  std::vector<LRLambda> lambdas_;
};

/// Multiplies the lr by a function of the epoch at every step after the
/// first. Defined only recursively, so it always uses the chainable update.
class MultiplicativeLR final : public LRScheduler {
 public:
  /// One function for every group.
  MultiplicativeLR(OptimizerBase& optimizer, LRLambda lr_lambda, std::int64_t last_epoch = -1)
      : MultiplicativeLR(optimizer, std::vector<LRLambda>{std::move(lr_lambda)}, last_epoch) {}
  /// One function per group (or a single one for all).
  MultiplicativeLR(OptimizerBase& optimizer, std::vector<LRLambda> lr_lambdas, std::int64_t last_epoch = -1)
      : LRScheduler(optimizer, last_epoch, "MultiplicativeLR"),
        lambdas_(
            tensorlib::detail::per_group_lambdas("MultiplicativeLR", std::move(lr_lambdas), optimizer.group_count())) {
    initial_step();
  }

 protected:
  bool has_closed_form() const override { return false; }
  // Never called: has_closed_form() is false.
  double closed_form_lr(std::size_t group, std::int64_t) const override { return base_lrs()[group]; }
  double chained_lr(std::size_t group, std::int64_t epoch, double lr) const override {
    return initial() ? lr : lr * lambdas_[group](epoch);
  }

 private:
  std::vector<LRLambda> lambdas_;
};

}  // namespace tensorlib::optim::lr_scheduler
