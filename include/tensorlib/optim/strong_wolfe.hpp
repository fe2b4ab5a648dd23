#pragma once
/// \file
/// The strong-Wolfe line search of `LBFGS` (PyTorch's private
/// `_strong_wolfe` and `_cubic_interpolate` in torch/optim/lbfgs.py, which
/// port minFunc's / torch7's lswolfe.lua): bracket a step length, then zoom
/// into the bracket with safeguarded cubic interpolation.
///
/// Scalars (losses, step lengths, directional derivatives) are doubles. In
/// float64 that is exactly PyTorch's arithmetic (its 0-d float64 tensors and
/// Python floats); for float parameters PyTorch rounds some of them to float32
/// (Note [LBFGS scalars] in optim/lbfgs.hpp).

#include <array>
#include <cmath>
#include <concepts>
#include <cstdint>
#include <utility>

#include "tensorlib/core/tensor.hpp"
#include "tensorlib/ops/linalg.hpp"
#include "tensorlib/ops/reduce.hpp"

namespace tensorlib::detail {

/// Python's `max(a, b)` and `min(a, b)`: the first argument unless the second
/// compares strictly beyond it, so NaNs propagate exactly as in PyTorch.
inline double py_max(double a, double b) { return b > a ? b : a; }
inline double py_min(double a, double b) { return b < a ? b : a; }

/// The minimizer of the cubic through (x1, f1) and (x2, f2) with slopes g1 and
/// g2, clamped to [lo, hi]; the midpoint when the cubic has no minimum.
inline double cubic_interpolate(double x1, double f1, double g1, double x2, double f2, double g2, double lo,
                                double hi) {
  const double d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2);
  const double d2_square = d1 * d1 - g1 * g2;
  if (d2_square >= 0) {
    const double d2 = std::sqrt(d2_square);
    // Written from whichever end is farther right, as minFunc does, so the
    // subtraction never mixes the two ends' roles.
    const double min_pos = x1 <= x2 ? x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
                                    : x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2));
    return py_min(py_max(min_pos, lo), hi);
  }
  return (lo + hi) / 2.;
}

/// `cubic_interpolate` bounded by the two abscissas.
inline double cubic_interpolate(double x1, double f1, double g1, double x2, double f2, double g2) {
  return x1 <= x2 ? cubic_interpolate(x1, f1, g1, x2, f2, g2, x1, x2)
                  : cubic_interpolate(x1, f1, g1, x2, f2, g2, x2, x1);
}

/// The loss and flat gradient at one trial step.
template <class T>
struct LineSearchPoint {
  double loss;
  Tensor<T> flat_grad;
};

/// What the line search found: the accepted step `t`, the loss and flat
/// gradient there, and how many times the objective was evaluated.
template <class T>
struct LineSearchResult {
  double loss;
  Tensor<T> flat_grad;
  double t;
  int64_t func_evals;
};

/// `obj(t)` evaluates the loss and flat gradient at x + t d (and restores x).
template <class F, class T>
concept DirectionalObjective = requires(F& obj, double t) {
  { obj(t) } -> std::convertible_to<LineSearchPoint<T>>;
};

/// Searches along `d` from the point with loss `f`, flat gradient `g` and
/// directional derivative `gtd` (negative), starting at step `t`, for a step
/// meeting the strong Wolfe conditions with constants `c1` (sufficient
/// decrease) and `c2` (curvature). At most `max_ls` evaluations after the
/// first; the search also stops once the bracket is shorter than
/// `tolerance_change` in max-norm of the step.
template <class T, DirectionalObjective<T> F>
LineSearchResult<T> strong_wolfe(F&& obj, double t, const Tensor<T>& d, double f, const Tensor<T>& g, double gtd,
                                 double c1 = 1e-4, double c2 = 0.9, double tolerance_change = 1e-9,
                                 int64_t max_ls = 25) {
  const double d_norm = static_cast<double>(d.abs().max().item());
  LineSearchPoint<T> trial = obj(t);
  int64_t func_evals = 1;
  double gtd_new = static_cast<double>(trial.flat_grad.dot(d).item());

  // The bracket's two ends (or one point, `done`, that already satisfies the
  // conditions). Flat gradients are fresh tensors that nothing writes into
  // afterwards, so the bracket shares them where PyTorch clones.
  std::array<double, 2> bracket{}, bracket_f{}, bracket_gtd{};
  std::array<Tensor<T>, 2> bracket_g;
  const auto set_bracket = [&](double t0, double f0, const Tensor<T>& g0, double gtd0, double t1, double f1,
                               const Tensor<T>& g1, double gtd1) {
    bracket = {t0, t1};
    bracket_f = {f0, f1};
    bracket_g = {g0, g1};
    bracket_gtd = {gtd0, gtd1};
  };

  double t_prev = 0, f_prev = f, gtd_prev = gtd;
  Tensor<T> g_prev = g;
  bool done = false;
  int64_t ls_iter = 0;
  while (ls_iter < max_ls) {
    if (trial.loss > f + c1 * t * gtd || (ls_iter > 1 && trial.loss >= f_prev)) {
      set_bracket(t_prev, f_prev, g_prev, gtd_prev, t, trial.loss, trial.flat_grad, gtd_new);
      break;
    }
    if (std::abs(gtd_new) <= -c2 * gtd) {
      set_bracket(t, trial.loss, trial.flat_grad, gtd_new, t, trial.loss, trial.flat_grad, gtd_new);
      done = true;
      break;
    }
    if (gtd_new >= 0) {
      set_bracket(t_prev, f_prev, g_prev, gtd_prev, t, trial.loss, trial.flat_grad, gtd_new);
      break;
    }
    // Still descending and decreasing: extrapolate, at least 1% beyond t and
    // at most ten times t.
    const double min_step = t + 0.01 * (t - t_prev);
    const double max_step = t * 10;
    const double previous = t;
    t = cubic_interpolate(t_prev, f_prev, gtd_prev, t, trial.loss, gtd_new, min_step, max_step);
    t_prev = previous;
    f_prev = trial.loss;
    g_prev = trial.flat_grad;
    gtd_prev = gtd_new;
    trial = obj(t);
    ++func_evals;
    gtd_new = static_cast<double>(trial.flat_grad.dot(d).item());
    ++ls_iter;
  }
  // Out of evaluations while bracketing: the bracket is [0, t]. Its slopes
  // are never read (the zoom below does not run), as in PyTorch.
  if (ls_iter == max_ls) set_bracket(0, f, g, gtd, t, trial.loss, trial.flat_grad, gtd_new);

  // Zoom: shrink the bracket until a point satisfies the conditions.
  bool insufficient_progress = false;
  std::size_t low = bracket_f[0] <= bracket_f[1] ? 0 : 1;
  std::size_t high = 1 - low;
  while (!done && ls_iter < max_ls) {
    if (std::abs(bracket[1] - bracket[0]) * d_norm < tolerance_change) break;
    t = cubic_interpolate(bracket[0], bracket_f[0], bracket_gtd[0], bracket[1], bracket_f[1], bracket_gtd[1]);

    // A trial too close to an end makes little progress; the second time in a
    // row (or when it is at an end) move it 10% of the bracket inside.
    const double b_max = py_max(bracket[0], bracket[1]);
    const double b_min = py_min(bracket[0], bracket[1]);
    const double eps = 0.1 * (b_max - b_min);
    if (py_min(b_max - t, t - b_min) < eps) {
      if (insufficient_progress || t >= b_max || t <= b_min) {
        t = std::abs(t - b_max) < std::abs(t - b_min) ? b_max - eps : b_min + eps;
        insufficient_progress = false;
      } else {
        insufficient_progress = true;
      }
    } else {
      insufficient_progress = false;
    }

    trial = obj(t);
    ++func_evals;
    gtd_new = static_cast<double>(trial.flat_grad.dot(d).item());
    ++ls_iter;

    if (trial.loss > f + c1 * t * gtd || trial.loss >= bracket_f[low]) {
      // No sufficient decrease, or not below the low end: the trial is the
      // new high end.
      bracket[high] = t;
      bracket_f[high] = trial.loss;
      bracket_g[high] = trial.flat_grad;
      bracket_gtd[high] = gtd_new;
      low = bracket_f[0] <= bracket_f[1] ? 0 : 1;
      high = 1 - low;
    } else {
      if (std::abs(gtd_new) <= -c2 * gtd) {
        done = true;
      } else if (gtd_new * (bracket[high] - bracket[low]) >= 0) {
        // The slope points away from the high end: the old low end takes
        // its place.
        bracket[high] = bracket[low];
        bracket_f[high] = bracket_f[low];
        bracket_g[high] = bracket_g[low];
        bracket_gtd[high] = bracket_gtd[low];
      }
      bracket[low] = t;
      bracket_f[low] = trial.loss;
      bracket_g[low] = trial.flat_grad;
      bracket_gtd[low] = gtd_new;
    }
  }
  return {bracket_f[low], bracket_g[low], bracket[low], func_evals};
}

}  // namespace tensorlib::detail
