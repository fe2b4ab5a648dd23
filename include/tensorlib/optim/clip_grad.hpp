#pragma once
/// \file
/// Gradient clipping over a set of parameters (PyTorch's
/// `torch.nn.utils.clip_grad_norm_` / `clip_grad_value_`), under PyTorch's
/// names `tl::nn::utils::clip_grad_norm_` and `clip_grad_value_` and as
/// `tl::optim::clip_grad_norm_`. They are defined here, not in nn/, because
/// the clipping is a fused update (optim/fused_update.hpp), and optim comes
/// after nn in the data flow.

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "tensorlib/core/error.hpp"
#include "tensorlib/core/grad_mode.hpp"
#include "tensorlib/core/tensor.hpp"
#include "tensorlib/ops/factories.hpp"
#include "tensorlib/ops/norms.hpp"
#include "tensorlib/optim/fused_update.hpp"

namespace tensorlib::optim {

namespace clip_detail {

template <class T>
struct Scale {
  T factor;
  template <class V>
  TENSORLIB_HOST_DEVICE void operator()(V& g) const {
    g = g * V(factor);
  }
};

template <class T>
struct ClampValue {
  T low, high;
  template <class V>
  TENSORLIB_HOST_DEVICE void operator()(V& g) const {
    using math::select;
    g = select(g < V(low), V(low), select(g > V(high), V(high), g));
  }
};

}  // namespace clip_detail

/// Scales the gradients of `params` in place so that their joint
/// `norm_type`-norm (the norm of the per-parameter norms; `inf` for the
/// largest magnitude) is at most `max_norm`: each gradient is multiplied by
/// min(1, max_norm / (total + 1e-6)). Returns the total norm before
/// clipping (0-d, on the gradients' device). With `error_if_nonfinite`, a NaN or infinite total is an
/// error instead of being applied. Parameters without gradients are skipped.
template <Element T>
Tensor<T> clip_grad_norm_(const std::vector<Tensor<T>>& params, double max_norm, double norm_type = 2,
                          bool error_if_nonfinite = false) {
  static_assert(std::is_floating_point_v<T>, "clip_grad_norm_: gradients are floating point");
  NoGradGuard no_grad;
  std::vector<Tensor<T>> grads;
  for (const auto& p : params)
    if (Tensor<T> g = p.grad(); g.defined()) grads.push_back(g);
  if (grads.empty()) return zeros<T>({});
  // The norm_type-norm of the per-gradient norms, as PyTorch takes it.
  std::vector<double> norms;
  for (const auto& g : grads) norms.push_back(linalg::vector_norm(g, norm_type).item());
  double total = 0;
  if (std::isinf(norm_type)) {
    total =
        norm_type > 0 ? *std::max_element(norms.begin(), norms.end()) : *std::min_element(norms.begin(), norms.end());
  } else if (norm_type == 0) {
    for (double n : norms) total += n != 0;
  } else {
    for (double n : norms) total += std::pow(n, norm_type);
    total = std::pow(total, 1 / norm_type);
  }
  const T total_t = static_cast<T>(total);
  tensorlib::detail::check<ValueError>(
      !error_if_nonfinite || std::isfinite(total_t), "The total norm of order ", norm_type,
      " for gradients from `parameters` is non-finite, so it cannot be clipped. To disable this error and scale the "
      "gradients by the non-finite norm anyway, set `error_if_nonfinite=False`");
  const T coef = std::min(static_cast<T>(max_norm) / (total_t + T(1e-6)), T(1));
  for (auto& g : grads) fused_update(clip_detail::Scale<T>{coef}, g);
  return full<T>({}, total_t, {.device = grads.front().device()});  // on the gradients' device, as PyTorch
}

/// Clamps every gradient element of `params` into [-clip_value, clip_value]
/// in place (PyTorch's `clip_grad_value_`).
template <Element T>
void clip_grad_value_(const std::vector<Tensor<T>>& params, double clip_value) {
  static_assert(std::is_floating_point_v<T>, "clip_grad_value_: gradients are floating point");
  NoGradGuard no_grad;
  for (const auto& p : params)
    if (Tensor<T> g = p.grad(); g.defined())
      fused_update(clip_detail::ClampValue<T>{static_cast<T>(-clip_value), static_cast<T>(clip_value)}, g);
}

}  // namespace tensorlib::optim

namespace tensorlib::nn::utils {

using optim::clip_grad_norm_;
using optim::clip_grad_value_;

}  // namespace tensorlib::nn::utils
