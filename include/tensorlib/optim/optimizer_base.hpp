#pragma once
/// \file
/// `OptimizerBase`: what learning-rate schedulers and generic training code
/// need from any optimizer, whatever its rule and element type. Groups are
/// numbered as in `param_groups()`.

#include <cstddef>
#include <optional>

namespace tensorlib::optim {

/// The type-independent face of an optimizer (schedulers hold one of these).
class OptimizerBase {
 public:
  OptimizerBase() = default;
  OptimizerBase(const OptimizerBase&) = default;
  OptimizerBase& operator=(const OptimizerBase&) = default;
  OptimizerBase(OptimizerBase&&) = default;
  OptimizerBase& operator=(OptimizerBase&&) = default;
  virtual ~OptimizerBase() = default;

  /// Number of parameter groups.
  virtual std::size_t group_count() const = 0;
  /// The learning rate of a group (PyTorch's `param_groups[i]['lr']`).
  virtual double lr(std::size_t group) const = 0;
  virtual void set_lr(std::size_t group, double lr) = 0;
  /// The learning rate a scheduler started from (PyTorch's
  /// `param_groups[i]['initial_lr']`); empty until a scheduler sets it.
  virtual std::optional<double> initial_lr(std::size_t group) const = 0;
  virtual void set_initial_lr(std::size_t group, double lr) = 0;
  /// The group's momentum for OneCycleLR and CyclicLR: `momentum` for rules
  /// that have one (SGD, RMSprop), `betas[0]` for the Adam family; empty for
  /// rules with neither.
  virtual std::optional<double> momentum(std::size_t group) const = 0;
  /// Sets what `momentum` reads; a `ValueError` for a rule with neither.
  virtual void set_momentum(std::size_t group, double momentum) = 0;
  /// True when the rule's momentum is `betas[0]` (PyTorch's `use_beta1`).
  virtual bool momentum_is_beta1() const = 0;
  /// Clears the gradients of every parameter (undefined when `set_to_none`,
  /// else zero-filled).
  virtual void zero_grad(bool set_to_none = true) = 0;
};

}  // namespace tensorlib::optim
