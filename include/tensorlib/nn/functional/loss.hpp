#pragma once
/// \file
/// torch.nn.functional's losses, with PyTorch's arguments, defaults
/// (reduction "mean"), formulas and messages: `mse_loss`, `l1_loss`,
/// `smooth_l1_loss`, `huber_loss`, `soft_margin_loss`, `binary_cross_entropy`,
/// `binary_cross_entropy_with_logits`, `kl_div`, `poisson_nll_loss`,
/// `gaussian_nll_loss`, `margin_ranking_loss`, `hinge_embedding_loss`,
/// `cosine_embedding_loss`, `triplet_margin_loss`,
/// `multilabel_soft_margin_loss`, `nll_loss`, `cross_entropy` (class indices
/// or probabilities, weights, ignore_index, label_smoothing).
///
/// Each is a composition of fused expressions and recorded ops, so its
/// gradient comes from the parts (one fused pass for the pointwise ones).
/// Inputs and targets broadcast where PyTorch's do (it warns; here silent).

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <type_traits>

#include "tensorlib/autograd/function.hpp"
#include "tensorlib/core/error.hpp"
#include "tensorlib/core/tensor.hpp"
#include "tensorlib/expr/activations.hpp"
#include "tensorlib/expr/functions.hpp"
#include "tensorlib/expr/operators.hpp"
#include "tensorlib/ops/compare.hpp"
#include "tensorlib/ops/distances.hpp"
#include "tensorlib/ops/factories.hpp"
#include "tensorlib/ops/gather_scatter.hpp"
#include "tensorlib/ops/reduce.hpp"
#include "tensorlib/ops/softmax.hpp"

namespace tensorlib {
namespace detail {

/// A loss's per-element values reduced as `reduction` asks ("none", "mean",
/// "sum"; PyTorch's message otherwise).
template <Element T>
Tensor<T> reduce_loss(const Tensor<T>& loss, std::string_view reduction) {
  check<ValueError>(reduction == "none" || reduction == "mean" || reduction == "sum", reduction,
                    " is not a valid value for reduction");
  if (reduction == "none") return loss;
  return reduction == "sum" ? Tensor<T>(loss.sum()) : Tensor<T>(loss.mean());
}

template <Element T>
void check_floating_loss() {
  static_assert(is_floating<T>, "loss: expected floating-point inputs");
}

}  // namespace detail

namespace nn::functional {

/// mean((input - target)^2) (F.mse_loss).
template <Element T>
Tensor<T> mse_loss(const Tensor<T>& input, const Tensor<T>& target, std::string_view reduction = "mean") {
  tensorlib::detail::check_floating_loss<T>();
  return tensorlib::detail::reduce_loss(Tensor<T>(square(input - target)), reduction);
}

/// mean(|input - target|) (F.l1_loss).
template <Element T>
Tensor<T> l1_loss(const Tensor<T>& input, const Tensor<T>& target, std::string_view reduction = "mean") {
  tensorlib::detail::check_floating_loss<T>();
  return tensorlib::detail::reduce_loss(Tensor<T>(abs(input - target)), reduction);
}

/// 0.5 d^2 / beta where |d| < beta, else |d| - 0.5 beta (F.smooth_l1_loss);
/// beta 0 is l1_loss.
template <Element T>
Tensor<T> smooth_l1_loss(const Tensor<T>& input, const Tensor<T>& target, std::string_view reduction = "mean",
                         double beta = 1.0) {
  tensorlib::detail::check_floating_loss<T>();
  tensorlib::detail::check<ValueError>(beta >= 0, "smooth_l1_loss does not support negative values for beta.");
  if (beta == 0) return l1_loss(input, target, reduction);
  const Tensor<T> d = abs(input - target);
  return tensorlib::detail::reduce_loss(Tensor<T>(where(lt(d, beta), square(d) * (0.5 / beta), d - 0.5 * beta)),
                                        reduction);
}

/// 0.5 d^2 where |d| < delta, else delta (|d| - 0.5 delta) (F.huber_loss).
template <Element T>
Tensor<T> huber_loss(const Tensor<T>& input, const Tensor<T>& target, std::string_view reduction = "mean",
                     double delta = 1.0) {
  tensorlib::detail::check_floating_loss<T>();
  tensorlib::detail::check<ValueError>(delta > 0, "huber_loss does not support non-positive values for delta.");
  const Tensor<T> d = abs(input - target);
  return tensorlib::detail::reduce_loss(Tensor<T>(where(lt(d, delta), square(d) * 0.5, (d - 0.5 * delta) * delta)),
                                        reduction);
}

/// log(1 + exp(-target input)) (F.soft_margin_loss).
template <Element T>
Tensor<T> soft_margin_loss(const Tensor<T>& input, const Tensor<T>& target, std::string_view reduction = "mean") {
  tensorlib::detail::check_floating_loss<T>();
  return tensorlib::detail::reduce_loss(Tensor<T>(log1p(exp(-target * input))), reduction);
}

/// Binary cross entropy, unreduced, as a node with PyTorch's backward:
/// d/dx = w (x - t) / max(x (1 - x), 1e-12) (finite at 0 and 1, where the
/// clamped logs' own slopes are not), d/dt = w (log(1 - x) - log(x)) with
/// the logs clamped at -100; none for the weight. Written with recorded ops,
/// so a create_graph backward differentiates it again.
template <Element T>
struct BinaryCrossEntropy : autograd::Function<BinaryCrossEntropy<T>> {
  static Tensor<T> clamped_log(const Tensor<T>& x) { return clamp(log(x), -100, None); }
  static Tensor<T> forward(autograd::FunctionCtx& ctx, const Tensor<T>& input, const Tensor<T>& target,
                           const Tensor<T>& weight) {
    ctx.save_for_backward(input, target, weight);
    return Tensor<T>((target - 1) * clamped_log(Tensor<T>(1 - input)) - target * clamped_log(input)) * weight;
  }
  static std::vector<Tensor<T>> backward(autograd::FunctionCtx& ctx, const std::vector<Tensor<T>>& grads) {
    const auto saved = ctx.saved_tensors();
    const Tensor<T> x = saved[0].template as<T>(), t = saved[1].template as<T>(), w = saved[2].template as<T>();
    const Tensor<T> g = grads[0] * w;
    Tensor<T> dx, dt;
    // PyTorch's EPSILON is the float 1e-12f in every type.
    if (ctx.needs_input_grad(0)) dx = g * (x - t) / clamp(x * (1 - x), static_cast<double>(1e-12f), None);
    if (ctx.needs_input_grad(1)) dt = g * (clamped_log(Tensor<T>(1 - x)) - clamped_log(x));
    return {dx, dt, Tensor<T>()};
  }
};

/// -w (t log(x) + (1 - t) log(1 - x)), each log clamped to >= -100
/// (F.binary_cross_entropy); input in [0, 1], of the target's size. The
/// gradient is PyTorch's (the node BinaryCrossEntropy).
template <Element T>
Tensor<T> binary_cross_entropy(const Tensor<T>& input, const Tensor<T>& target,
                               const std::optional<Tensor<std::type_identity_t<T>>>& weight = std::nullopt,
                               std::string_view reduction = "mean") {
  tensorlib::detail::check_floating_loss<T>();
  tensorlib::detail::check<ValueError>(target.sizes() == input.sizes(), "binary_cross_entropy: Using a target size (",
                                       target.sizes(), ") that is different to the input size (", input.sizes(),
                                       ") is deprecated. Please ensure they have the same size.");
  tensorlib::detail::check<ValueError>(
      input.numel() == 0 || (bool(all(ge(input, 0)).item()) && bool(all(le(input, 1)).item())),
      "binary_cross_entropy: all elements of input should be between 0 and 1");
  const Tensor<T> w = weight ? *weight : ones<T>({}, {.device = input.device()});
  return tensorlib::detail::reduce_loss(BinaryCrossEntropy<T>::apply(input, target, w), reduction);
}

/// BCE of sigmoid(input), stably: (1 - t) x - lw logsigmoid(x), lw = 1 +
/// (pos_weight - 1) t (F.binary_cross_entropy_with_logits).
template <Element T>
Tensor<T> binary_cross_entropy_with_logits(
    const Tensor<T>& input, const Tensor<T>& target,
    const std::optional<Tensor<std::type_identity_t<T>>>& weight = std::nullopt, std::string_view reduction = "mean",
    const std::optional<Tensor<std::type_identity_t<T>>>& pos_weight = std::nullopt) {
  tensorlib::detail::check_floating_loss<T>();
  tensorlib::detail::check<ValueError>(target.sizes() == input.sizes(),
                                       "binary_cross_entropy_with_logits: Target size (", target.sizes(),
                                       ") must be the same as input size (", input.sizes(), ")");
  Tensor<T> loss = pos_weight ? Tensor<T>((1 - target) * input - ((*pos_weight - 1) * target + 1) * logsigmoid(input))
                              : Tensor<T>((1 - target) * input - logsigmoid(input));
  if (weight) loss = loss * *weight;
  return tensorlib::detail::reduce_loss(loss, reduction);
}

/// target (log target - input), input being log-probabilities (F.kl_div);
/// reduction "batchmean" divides the sum by the batch size, "mean" by the
/// element count; log_target takes the target as log-probabilities. Where
/// the target is 0 the term is 0 (xlogy).
template <Element T>
Tensor<T> kl_div(const Tensor<T>& input, const Tensor<T>& target, std::string_view reduction = "mean",
                 bool log_target = false) {
  tensorlib::detail::check_floating_loss<T>();
  const Tensor<T> loss =
      log_target ? Tensor<T>(exp(target) * (target - input)) : Tensor<T>(xlogy(target, target) - target * input);
  if (reduction == "batchmean")
    return input.dim() == 0 ? Tensor<T>(loss.sum()) : Tensor<T>(loss.sum() / static_cast<T>(input.size(0)));
  return tensorlib::detail::reduce_loss(loss, reduction);
}

/// Poisson negative log likelihood (F.poisson_nll_loss): exp(x) - t x for
/// log inputs, else x - t log(x + eps); `full` adds Stirling's t log t - t +
/// log(2 pi t) / 2 where t > 1.
template <Element T>
Tensor<T> poisson_nll_loss(const Tensor<T>& input, const Tensor<T>& target, bool log_input = true, bool full = false,
                           double eps = 1e-8, std::string_view reduction = "mean") {
  tensorlib::detail::check_floating_loss<T>();
  Tensor<T> loss = log_input ? Tensor<T>(exp(input) - target * input) : Tensor<T>(input - target * log(input + eps));
  if (full)
    loss = loss + where(gt(target, 1), target * log(target) - target + log(target * 6.283185307179586) * 0.5, 0);
  return tensorlib::detail::reduce_loss(loss, reduction);
}

/// Gaussian negative log likelihood (F.gaussian_nll_loss): (log(max(var,
/// eps)) + (input - target)^2 / max(var, eps)) / 2, plus log(2 pi) / 2 when
/// full; var has the input's shape or one dimension fewer or of size 1 at
/// the end (homoscedastic).
template <Element T>
Tensor<T> gaussian_nll_loss(const Tensor<T>& input, const Tensor<T>& target, const Tensor<T>& var, bool full = false,
                            double eps = 1e-6, std::string_view reduction = "mean") {
  tensorlib::detail::check_floating_loss<T>();
  // PyTorch's rule: var of the input's size, of its size without the last
  // dimension (unsqueezed), or with a last dimension of 1.
  Tensor<T> v = var;
  const auto all_but_last = [](const Shape& s) {
    return s.empty() ? Shape() : Shape(std::span<const int64_t>(s.begin(), s.end() - 1));
  };
  if (var.sizes() != input.sizes()) {
    if (var.sizes() == all_but_last(input.sizes()))
      v = var.unsqueeze(-1);
    else
      tensorlib::detail::check<ValueError>(
          var.dim() >= 1 && all_but_last(var.sizes()) == all_but_last(input.sizes()) && var.size(-1) == 1,
          "gaussian_nll_loss: var is of incorrect size");
  }
  tensorlib::detail::check<ValueError>(reduction == "none" || reduction == "mean" || reduction == "sum", reduction,
                                       " is not valid");
  tensorlib::detail::check<ValueError>(v.numel() == 0 || !bool(any(lt(v, 0)).item()),
                                       "gaussian_nll_loss: var has negative entry/entries");
  const Tensor<T> vc = clamp(v.detach(), eps, None) + (v - v.detach());  // clamped without cutting the gradient
  Tensor<T> loss = (log(vc) + square(input - target) / vc) * 0.5;
  if (full) loss = loss + 0.5 * 1.8378770664093453;  // log(2 pi)
  return tensorlib::detail::reduce_loss(loss, reduction);
}

/// max(0, -y (x1 - x2) + margin) (F.margin_ranking_loss).
template <Element T>
Tensor<T> margin_ranking_loss(const Tensor<T>& input1, const Tensor<T>& input2, const Tensor<T>& target,
                              double margin = 0, std::string_view reduction = "mean") {
  tensorlib::detail::check_floating_loss<T>();
  return tensorlib::detail::reduce_loss(Tensor<T>(clamp(-target * (input1 - input2) + margin, 0, None)), reduction);
}

/// x where y = 1, max(0, margin - x) where y = -1 (F.hinge_embedding_loss).
template <Element T>
Tensor<T> hinge_embedding_loss(const Tensor<T>& input, const Tensor<T>& target, double margin = 1.0,
                               std::string_view reduction = "mean") {
  tensorlib::detail::check_floating_loss<T>();
  const Tensor<T> loss = where(ne(target, 1), clamp(margin - input, 0, None), 0) + where(ne(target, -1), input, 0);
  return tensorlib::detail::reduce_loss(loss, reduction);
}

/// 1 - cos(x1, x2) where y = 1, max(0, cos(x1, x2) - margin) where y = -1
/// (F.cosine_embedding_loss), along the last dimension; cos with PyTorch's
/// eps 1e-12 on the squared norms.
template <Element T>
Tensor<T> cosine_embedding_loss(const Tensor<T>& input1, const Tensor<T>& input2, const Tensor<T>& target,
                                double margin = 0, std::string_view reduction = "mean") {
  tensorlib::detail::check_floating_loss<T>();
  tensorlib::detail::check<ShapeError>(
      input1.dim() == target.dim() + 1 && input1.dim() <= 2 && input1.sizes() == input2.sizes(),
      "cosine_embedding_loss: ", target.dim(), "D target tensor expects ", target.dim() + 1,
      "D input tensors of one size, but found inputs with sizes ", input1.sizes(), " and ", input2.sizes(), ".");
  const int64_t d = input1.dim() - 1;
  const Tensor<T> prod = (input1 * input2).sum(d), mag1 = (square(input1)).sum(d) + 1e-12,
                  mag2 = (square(input2)).sum(d) + 1e-12;
  const Tensor<T> cos = prod / sqrt(mag1 * mag2);
  const Tensor<T> loss = where(eq(target, 1), 1 - cos, 0) + where(eq(target, -1), clamp(cos - margin, 0, None), 0);
  return tensorlib::detail::reduce_loss(loss, reduction);
}

/// max(d(a, p) - d(a, n) + margin, 0) with pairwise p-norm distances
/// (F.triplet_margin_loss); swap uses min(d(a, n), d(p, n)).
template <Element T>
Tensor<T> triplet_margin_loss(const Tensor<T>& anchor, const Tensor<T>& positive, const Tensor<T>& negative,
                              double margin = 1.0, double p = 2, double eps = 1e-6, bool swap = false,
                              std::string_view reduction = "mean") {
  tensorlib::detail::check_floating_loss<T>();
  tensorlib::detail::check<ShapeError>(anchor.dim() == positive.dim() && anchor.dim() == negative.dim(),
                                       "triplet_margin_loss: The anchor, positive, and negative tensors are expected "
                                       "to have the same number of dimensions, but got: anchor ",
                                       anchor.dim(), "D, positive ", positive.dim(), "D, and negative ", negative.dim(),
                                       "D inputs");
  const Tensor<T> dp = pairwise_distance(anchor, positive, p, eps);
  Tensor<T> dn = pairwise_distance(anchor, negative, p, eps);
  if (swap) dn = minimum(dn, pairwise_distance(positive, negative, p, eps));
  return tensorlib::detail::reduce_loss(Tensor<T>(clamp(dp - dn + margin, 0, None)), reduction);
}

/// -mean over classes of (t logsigmoid(x) + (1 - t) logsigmoid(-x)), weighted
/// per class (F.multilabel_soft_margin_loss).
template <Element T>
Tensor<T> multilabel_soft_margin_loss(const Tensor<T>& input, const Tensor<T>& target,
                                      const std::optional<Tensor<std::type_identity_t<T>>>& weight = std::nullopt,
                                      std::string_view reduction = "mean") {
  tensorlib::detail::check_floating_loss<T>();
  Tensor<T> loss = -(target * logsigmoid(input) + (1 - target) * logsigmoid(-input));
  if (weight) loss = loss * *weight;
  return tensorlib::detail::reduce_loss(Tensor<T>(loss.mean(input.dim() - 1)), reduction);
}

}  // namespace nn::functional
}  // namespace tensorlib
