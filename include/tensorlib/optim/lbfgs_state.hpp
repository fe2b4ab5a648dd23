#pragma once
/// \file
/// What `LBFGS` is configured with and what it carries from step to step:
/// `LBFGSOptions`, `LBFGSState` and the state dict that resumes it. Kept
/// apart from optim/lbfgs.hpp so the algorithm reads on its own.
/// Shapes: N = the number of elements of all parameters together.

#include <concepts>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tensorlib/core/named_fields.hpp"
#include "tensorlib/core/tensor.hpp"

namespace tensorlib::optim {

/// PyTorch's LBFGS arguments. An empty `max_eval` means `max_iter * 5 / 4`
/// (filled in by the constructor); `line_search_fn` is "strong_wolfe" or empty.
struct LBFGSOptions {
  double lr = 1;
  int64_t max_iter = 20;
  std::optional<int64_t> max_eval{};
  double tolerance_grad = 1e-7;
  double tolerance_change = 1e-9;
  int64_t history_size = 100;
  std::optional<std::string> line_search_fn{};
  TENSORLIB_FIELDS(lr, max_iter, max_eval, tolerance_grad, tolerance_change, history_size, line_search_fn)
};

/// What LBFGS carries from one step to the next (PyTorch's `state` of the
/// first parameter). Tensors are (N) and undefined until the first iteration.
template <std::floating_point T = float>
struct LBFGSState {
  int64_t func_evals = 0;           ///< closure calls over all steps
  int64_t n_iter = 0;               ///< iterations over all steps
  Tensor<T> d;                      ///< the last search direction
  double t = 0;                     ///< the last step length
  std::vector<Tensor<T>> old_dirs;  ///< gradient differences y, oldest first
  std::vector<Tensor<T>> old_stps;  ///< steps s = t d, oldest first
  std::vector<double> ro;           ///< 1 / (y . s) of each pair
  double H_diag = 1;                ///< scale of the initial inverse Hessian
  Tensor<T> prev_flat_grad;         ///< the gradient the last direction started from
  double prev_loss = 0;
  TENSORLIB_FIELDS(func_evals, n_iter, d, t, old_dirs, old_stps, ro, H_diag, prev_flat_grad, prev_loss)
};

/// PyTorch's `param_groups[0]` of a state dict: the options and the indices
/// of the group's parameters.
struct LBFGSParamGroup {
  LBFGSOptions options;
  std::optional<double> initial_lr;
  std::vector<int64_t> params;
};

/// Everything needed to resume: PyTorch's `{'state': ..., 'param_groups':
/// [...]}`. `state` is empty before the first step.
template <std::floating_point T = float>
struct LBFGSStateDict {
  std::optional<LBFGSState<T>> state;
  std::vector<LBFGSParamGroup> param_groups;
};

}  // namespace tensorlib::optim
