#pragma once
/// \file
/// `nll_loss`, `cross_entropy`, `multi_margin_loss` and
/// `multilabel_margin_loss` (torch.nn.functional), with PyTorch's
/// shapes ((C), (N, C) or (N, C, d...) inputs; class indices (), (N) or
/// (N, d...), or class probabilities of the input's shape), per-class
/// weights, ignore_index, label_smoothing, reductions and messages. A
/// composition of log_softmax, gather and fused expressions, so the
/// gradient comes from the parts.

#include <cstdint>
#include <optional>
#include <string_view>
#include <type_traits>

#include "tensorlib/core/error.hpp"
#include "tensorlib/core/tensor.hpp"
#include "tensorlib/expr/functions.hpp"
#include "tensorlib/expr/operators.hpp"
#include "tensorlib/nn/functional/loss.hpp"
#include "tensorlib/ops/compare.hpp"
#include "tensorlib/ops/factories.hpp"
#include "tensorlib/ops/gather_scatter.hpp"
#include "tensorlib/ops/index_ops.hpp"
#include "tensorlib/ops/reduce.hpp"
#include "tensorlib/ops/scan.hpp"
#include "tensorlib/ops/softmax.hpp"

namespace tensorlib {
namespace detail {

/// PyTorch's nll_loss_nd checks: target's shape against input's, the
/// weight's length, the classes named. Returns the class count.
template <Element T>
int64_t check_class_targets(const Tensor<T>& input, const Tensor<int64_t>& target,
                            const std::optional<Tensor<T>>& weight, int64_t ignore_index, const char* op) {
  check<ShapeError>(input.dim() >= 1, op, ": input tensor should be 1D or more, got 0D");
  if (input.dim() == 1) {
    check<ShapeError>(target.dim() == 0, op, ": 0D or 1D target tensor expected, multi-target not supported");
  } else {
    check<ShapeError>(target.dim() >= 1 && input.size(0) == target.size(0), op, ": Expected input batch_size (",
                      input.size(0), ") to match target batch_size (", target.dim() ? target.size(0) : 0, ").");
    Shape expected = input.sizes();
    expected.erase(1);
    check<ShapeError>(target.sizes() == expected, op, ": Expected target size ", expected, ", got ", target.sizes());
  }
  const int64_t classes = input.dim() == 1 ? input.size(0) : input.size(1);
  if (weight)
    check<ShapeError>(weight->dim() == 1 && weight->numel() == classes, op,
                      ": weight tensor should be defined either for all ", classes,
                      " classes or no classes but got weight tensor of shape: ", weight->sizes());
  if (target.numel() > 0) {
    const Tensor<int64_t> named = where(eq(target, ignore_index), 0, target);
    const int64_t lo = named.min().item(), hi = named.max().item();
    check<IndexError>(lo >= 0 && hi < classes, op, ": Target ", lo < 0 ? lo : hi, " is out of bounds.");
  }
  return classes;
}

/// -w[t] x[t] per target (0 where ignored) and the weights it used.
template <Element T>
std::pair<Tensor<T>, Tensor<T>> picked_log_probabilities(const Tensor<T>& input, const Tensor<int64_t>& target,
                                                         const std::optional<Tensor<T>>& weight, int64_t ignore_index) {
  const Tensor<T> x = input.dim() == 1 ? input.unsqueeze(0) : input;
  const Tensor<int64_t> t = target.dim() == 0 ? target.unsqueeze(0) : target;
  const Tensor<bool> kept = ne(t, ignore_index);
  const Tensor<int64_t> safe = where(kept, t, 0);
  const Tensor<T> picked = x.gather(1, safe.unsqueeze(1)).squeeze(1);
  const Tensor<T> w = weight ? Tensor<T>(where(kept, weight->index_select(0, safe.flatten()).reshape(t.sizes()), 0))
                             : Tensor<T>(cast<T>(kept));
  Tensor<T> loss = -picked * w;
  if (target.dim() == 0) return {loss.squeeze(0), w.squeeze(0)};
  return {loss, w};
}

}  // namespace detail

namespace nn::functional {

/// The negative log likelihood of the classes `target` names in
/// log-probabilities `input` (F.nll_loss): -weight[t] input[t]; "mean"
/// divides by the weights' sum over the targets not ignored (NaN when all
/// are).
template <Element T>
Tensor<T> nll_loss(const Tensor<T>& input, const Tensor<int64_t>& target,
                   const std::optional<Tensor<std::type_identity_t<T>>>& weight = std::nullopt,
                   int64_t ignore_index = -100, std::string_view reduction = "mean") {
  tensorlib::detail::check_floating_loss<T>();
  tensorlib::detail::check_class_targets(input, target, weight, ignore_index, "nll_loss");
  const auto [loss, w] = tensorlib::detail::picked_log_probabilities(input, target, weight, ignore_index);
  if (reduction == "mean") return Tensor<T>(loss.sum() / w.sum());
  return tensorlib::detail::reduce_loss(loss, reduction);
}

/// log_softmax over the class dimension and nll_loss (F.cross_entropy with
/// class indices). label_smoothing e mixes in the uniform distribution:
/// (1 - e) nll + e / C times the (weighted) sum of -log-probabilities, that
/// part normalized as nll's under "mean" (PyTorch's formula).
template <Element T>
Tensor<T> cross_entropy(const Tensor<T>& input, const Tensor<int64_t>& target,
                        const std::optional<Tensor<std::type_identity_t<T>>>& weight = std::nullopt,
                        int64_t ignore_index = -100, std::string_view reduction = "mean",
                        double label_smoothing = 0.0) {
  tensorlib::detail::check_floating_loss<T>();
  tensorlib::detail::check<ValueError>(
      label_smoothing >= 0 && label_smoothing <= 1,
      "cross_entropy: label_smoothing must be between 0.0 and 1.0. Got: ", label_smoothing);
  const int64_t classes = tensorlib::detail::check_class_targets(input, target, weight, ignore_index, "cross_entropy");
  const int64_t class_dim = input.dim() == 1 ? 0 : 1;
  const Tensor<T> logp = log_softmax(input, class_dim);
  const Tensor<T> nll = nll_loss(logp, target, weight, ignore_index, reduction);
  if (label_smoothing == 0) return nll;
  Tensor<T> weighted = logp;
  if (weight) {
    Shape along = Shape::filled(input.dim(), 1);
    along[class_dim] = classes;
    weighted = logp * weight->reshape(along);
  }
  const Tensor<bool> ignored = eq(target, ignore_index);
  const Tensor<T> smooth = where(ignored, T(0), -weighted.sum(class_dim));
  Tensor<T> smoothed;
  if (reduction == "mean") {
    const auto [picked, w] = tensorlib::detail::picked_log_probabilities(logp, target, weight, ignore_index);
    (void)picked;
    smoothed = smooth.sum() / w.sum();
  } else {
    smoothed = tensorlib::detail::reduce_loss(smooth, reduction);
  }
  return (1 - label_smoothing) * nll + smoothed * (label_smoothing / static_cast<double>(classes));
}

/// F.cross_entropy with class probabilities: -sum over classes of target
/// log_softmax(input) (weighted per class), the target smoothed toward
/// uniform by label_smoothing; "mean" divides by the count of distributions.
/// The arguments are those of the class-index form; a non-negative
/// ignore_index is refused, as in PyTorch.
template <Element T>
Tensor<T> cross_entropy(const Tensor<T>& input, const Tensor<T>& target,
                        const std::optional<Tensor<std::type_identity_t<T>>>& weight = std::nullopt,
                        int64_t ignore_index = -100, std::string_view reduction = "mean",
                        double label_smoothing = 0.0) {
  tensorlib::detail::check<ValueError>(ignore_index < 0,
                                       "cross_entropy: ignore_index is not supported for floating "
                                       "point target");
  tensorlib::detail::check_floating_loss<T>();
  tensorlib::detail::check<ValueError>(
      label_smoothing >= 0 && label_smoothing <= 1,
      "cross_entropy: label_smoothing must be between 0.0 and 1.0. Got: ", label_smoothing);
  tensorlib::detail::check<ShapeError>(input.dim() >= 1 && target.sizes() == input.sizes(),
                                       "cross_entropy: Expected target of the input's size ", input.sizes(),
                                       " for class probabilities, got ", target.sizes());
  const int64_t class_dim = input.dim() == 1 ? 0 : 1, classes = input.size(class_dim);
  if (weight)
    tensorlib::detail::check<ShapeError>(weight->dim() == 1 && weight->numel() == classes,
                                         "cross_entropy: weight tensor should be defined either for all ", classes,
                                         " classes or no classes but got weight tensor of shape: ", weight->sizes());
  const Tensor<T> logp = log_softmax(input, class_dim);
  Tensor<T> t = label_smoothing > 0 ? Tensor<T>(target * (1 - label_smoothing) + label_smoothing / classes) : target;
  Tensor<T> terms = logp * t;
  if (weight) {
    Shape along = Shape::filled(input.dim(), 1);
    along[class_dim] = classes;
    terms = terms * weight->reshape(along);
  }
  const Tensor<T> loss = -terms.sum(class_dim);
  if (reduction == "mean") return Tensor<T>(loss.sum() / static_cast<T>(input.numel() / std::max<int64_t>(classes, 1)));
  return tensorlib::detail::reduce_loss(loss, reduction);
}

/// sum over i != y of max(0, margin - x[y] + x[i])^p, weighted by
/// weight[y], divided by the class count (F.multi_margin_loss); p is 1 or 2.
template <Element T>
Tensor<T> multi_margin_loss(const Tensor<T>& input, const Tensor<int64_t>& target, int64_t p = 1, double margin = 1,
                            const std::optional<Tensor<std::type_identity_t<T>>>& weight = std::nullopt,
                            std::string_view reduction = "mean") {
  tensorlib::detail::check_floating_loss<T>();
  tensorlib::detail::check<ValueError>(p == 1 || p == 2, "multi_margin_loss: only p == 1 and p == 2 supported");
  // PyTorch's multi_margin_loss_shape_check: a 0-d input is one frame of one class.
  tensorlib::detail::check<ShapeError>(
      input.dim() <= 2 && (input.numel() > 0 || (input.dim() == 2 && input.size(1) > 0)),
      "multi_margin_loss: Expected non-empty vector or matrix with optional 0-dim "
      "batch size, but got: ",
      input.sizes());
  const Tensor<T> x = input.dim() == 2 ? input : input.reshape({1, -1});
  const int64_t classes = x.size(1);
  tensorlib::detail::check<ShapeError>(target.dim() <= 1 && target.numel() == x.size(0),
                                       "multi_margin_loss: inconsistent target size, expected ", x.size(0), " but got ",
                                       target.sizes());
  const Tensor<int64_t> t = target.reshape({-1});
  if (t.numel() > 0)
    tensorlib::detail::check<IndexError>(t.min().item() >= 0 && t.max().item() < classes,
                                         "multi_margin_loss: target out of range");
  if (weight)
    tensorlib::detail::check<ShapeError>(weight->dim() == 1 && weight->numel() == classes,
                                         "multi_margin_loss: weight must be a 1-D tensor of ", classes,
                                         " elements, got ", weight->sizes());
  const Tensor<T> picked = x.gather(1, t.unsqueeze(1));
  const Tensor<T> hinge = relu(margin - picked + x);
  Tensor<T> terms = p == 1 ? hinge : Tensor<T>(square(hinge));
  terms = where(eq(arange<int64_t>(0, classes, 1, {.device = x.device()}), t.unsqueeze(1)), T(0), terms);
  if (weight) terms = terms * weight->index_select(0, t).unsqueeze(1);
  Tensor<T> loss = terms.sum(1) / static_cast<T>(classes);
  if (input.dim() < 2) loss = loss.squeeze(0);
  return tensorlib::detail::reduce_loss(loss, reduction);
}

/// For every class y_j target lists (up to its first -1) and every class i
/// it does not, max(0, 1 - (x[y_j] - x[i])), summed and divided by the
/// class count (F.multilabel_margin_loss).
template <Element T>
Tensor<T> multilabel_margin_loss(const Tensor<T>& input, const Tensor<int64_t>& target,
                                 std::string_view reduction = "mean") {
  tensorlib::detail::check_floating_loss<T>();
  tensorlib::detail::check<ShapeError>(target.sizes() == input.sizes() && input.dim() >= 1 && input.dim() <= 2,
                                       "multilabel_margin_loss: inconsistent target size: ", target.sizes(),
                                       " for input of size: ", input.sizes());
  const int64_t classes = input.size(-1);
  const Tensor<T> x = input.dim() == 1 ? input.unsqueeze(0) : input;
  const Tensor<int64_t> t = input.dim() == 1 ? target.unsqueeze(0) : target;
  if (t.numel() > 0)
    tensorlib::detail::check<IndexError>(t.min().item() >= -1 && t.max().item() < classes,
                                         "multilabel_margin_loss: target values must lie in [-1, ", classes, ")");
  // Entries up to the first -1 name the target classes.
  const Tensor<int64_t> listed = Tensor<int64_t>(cast<int64_t>(ne(t, -1))).cumprod(1);
  const Tensor<int64_t> safe = where(eq(listed, 1), t, 0);
  const Tensor<T> picked = x.gather(1, safe);
  const Tensor<int64_t> classes_of = arange<int64_t>(0, classes, 1, {.device = x.device()});
  const Tensor<T> is_target =
      Tensor<T>(cast<T>(gt(Tensor<int64_t>(eq(safe.unsqueeze(2), classes_of) * listed.unsqueeze(2)).sum(1), 0)));
  const Tensor<T> hinge = relu(1 - (picked.unsqueeze(2) - x.unsqueeze(1)));
  const Tensor<T> pairs = hinge * Tensor<T>(cast<T>(listed)).unsqueeze(2) * Tensor<T>(1 - is_target).unsqueeze(1);
  Tensor<T> loss = pairs.sum({1, 2}) / static_cast<T>(classes);
  if (input.dim() == 1) loss = loss.squeeze(0);
  return tensorlib::detail::reduce_loss(loss, reduction);
}

}  // namespace nn::functional
}  // namespace tensorlib
