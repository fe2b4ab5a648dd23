#pragma once
/// \file
/// `ctc_loss` (F.ctc_loss): the connectionist temporal classification loss
/// of log-probabilities (T, N, C) or (T, C) against targets (N, S) padded or
/// 1-D concatenated, with input and target lengths, the blank class,
/// reductions ("mean" divides each loss by its target length first) and
/// zero_infinity, as PyTorch's.
///
/// Note [CTC by recorded ops]. The forward (alpha) recursion over the
/// extended label sequence (blanks between and around the targets) runs as
/// tensor ops over the batch and all positions at once, one time step at a
/// time: shifts of the previous alphas, a stable three-way log-sum-exp, the
/// step's gathered log-probabilities. Autograd records it, so the gradient
/// is the exact derivative of the loss. Unreachable states hold a large
/// negative finite value instead of -inf, so no 0 * inf reaches a gradient;
/// a loss beyond 1e29 is an impossible alignment and reads as +inf (or 0
/// with zero_infinity, its gradient 0). PyTorch's own backward returns
/// exp(log_probs) minus the occupancies, which is the gradient through a
/// log_softmax, not of the log-probabilities themselves: the gradients of
/// logits that went through `log_softmax` agree; those of raw log_probs
/// differ by exp(log_probs) (Known differences).

#include <algorithm>
#include <cstdint>
#include <limits>
#include <span>
#include <string_view>
#include <vector>

#include "tensorlib/core/error.hpp"
#include "tensorlib/core/tensor.hpp"
#include "tensorlib/expr/comparison_functions.hpp"
#include "tensorlib/expr/functions.hpp"
#include "tensorlib/expr/operators.hpp"
#include "tensorlib/nn/functional/loss.hpp"
#include "tensorlib/ops/factories.hpp"
#include "tensorlib/ops/gather_scatter.hpp"
#include "tensorlib/ops/join.hpp"
#include "tensorlib/ops/reduce.hpp"

namespace tensorlib {
namespace nn::functional {

/// F.ctc_loss(log_probs, targets, input_lengths, target_lengths, blank,
/// reduction, zero_infinity). Lengths are int64 tensors of N entries.
template <Element T>
Tensor<T> ctc_loss(const Tensor<T>& log_probs, const Tensor<int64_t>& targets, const Tensor<int64_t>& input_lengths,
                   const Tensor<int64_t>& target_lengths, int64_t blank = 0, std::string_view reduction = "mean",
                   bool zero_infinity = false) {
  static_assert(is_floating<T>, "ctc_loss: expected floating-point log_probs");
  using tensorlib::detail::check;
  check<ShapeError>(log_probs.dim() == 3 || log_probs.dim() == 2,
                    "ctc_loss: log_probs must be 3-D (T, N, C) or "
                    "2-D (T, C), got ",
                    log_probs.sizes());
  const Tensor<T> lp = log_probs.dim() == 2 ? log_probs.unsqueeze(1) : log_probs;
  const int64_t steps = lp.size(0), n = lp.size(1), classes = lp.size(2);
  check<ShapeError>(steps > 0, "ctc_loss: log_probs must have at least one time step, got ", log_probs.sizes());
  check<ValueError>(blank >= 0 && blank < classes, "ctc_loss: blank must be in label range");
  const std::vector<int64_t> in_len = input_lengths.cpu().reshape({-1}).to_vector(),
                             tg_len = target_lengths.cpu().reshape({-1}).to_vector();
  check<ShapeError>(static_cast<int64_t>(in_len.size()) == n, "ctc_loss: input_lengths must be of size batch_size");
  check<ShapeError>(static_cast<int64_t>(tg_len.size()) == n, "ctc_loss: target_lengths must be of size batch_size");
  int64_t longest = 0;
  for (int64_t i = 0; i < n; ++i) {
    check<ValueError>(in_len[i] >= 0 && in_len[i] <= steps, "ctc_loss: Expected input_lengths to have value at most ",
                      steps, ", but got value ", in_len[i]);
    check<ValueError>(tg_len[i] >= 0, "ctc_loss: target_lengths must be non-negative");
    longest = std::max(longest, tg_len[i]);
  }
  // Targets as (N, longest), from padded rows or the concatenation.
  const std::vector<int64_t> flat = targets.cpu().contiguous().to_vector();
  std::vector<int64_t> padded(static_cast<std::size_t>(n * longest), blank);
  int64_t offset = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (targets.dim() == 2)
      check<ShapeError>(targets.size(0) == n && targets.size(1) >= tg_len[i],
                        "ctc_loss: Expected tensor to have "
                        "size at least ",
                        tg_len[i], " at dimension 1, but got size ", targets.dim() == 2 ? targets.size(1) : 0,
                        " for argument #2 'targets'");
    else
      check<ShapeError>(targets.dim() == 1 && offset + tg_len[i] <= targets.numel(),
                        "ctc_loss: targets are shorter "
                        "than the sum of target_lengths");
    for (int64_t j = 0; j < tg_len[i]; ++j) {
      const int64_t label = targets.dim() == 2 ? flat[static_cast<std::size_t>(i * targets.size(1) + j)]
                                               : flat[static_cast<std::size_t>(offset + j)];
      check<IndexError>(label >= 0 && label < classes && label != blank, "ctc_loss: target ", label,
                        " is out of range or the blank");
      padded[static_cast<std::size_t>(i * longest + j)] = label;
    }
    offset += tg_len[i];
  }
  // The extended sequences (N, 2 longest + 1): blank, l1, blank, l2, ..., blank.
  const int64_t ext = 2 * longest + 1;
  std::vector<int64_t> labels(static_cast<std::size_t>(n * ext), blank);
  std::vector<T> skip(static_cast<std::size_t>(n * ext), T(0)), start(static_cast<std::size_t>(n * ext), T(0));
  std::vector<int64_t> last_steps, end_a, end_b;
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t j = 0; j < longest; ++j)
      labels[static_cast<std::size_t>(i * ext + 2 * j + 1)] = padded[static_cast<std::size_t>(i * longest + j)];
    for (int64_t s = 2; s < ext; ++s) {
      const int64_t l = labels[static_cast<std::size_t>(i * ext + s)];
      skip[static_cast<std::size_t>(i * ext + s)] =
          l != blank && l != labels[static_cast<std::size_t>(i * ext + s - 2)] ? T(1) : T(0);
    }
    start[static_cast<std::size_t>(i * ext)] = T(1);
    if (tg_len[i] > 0) start[static_cast<std::size_t>(i * ext + 1)] = T(1);
    last_steps.push_back(std::max<int64_t>(in_len[i] - 1, 0));
    end_a.push_back(2 * tg_len[i]);
    end_b.push_back(std::max<int64_t>(2 * tg_len[i] - 1, 0));
  }
  const Device device = log_probs.device();
  const auto upload_index = [&](std::vector<int64_t>& v, const Shape& shape) {
    return from_blob(std::span<int64_t>(v), shape).clone().to(device);
  };
  const auto upload = [&](std::vector<T>& v, const Shape& shape) {
    return from_blob(std::span<T>(v), shape).clone().to(device);
  };
  const Tensor<int64_t> ext_labels = upload_index(labels, {n, ext});
  const Tensor<T> may_skip = upload(skip, {n, ext}), starts = upload(start, {n, ext});
  constexpr double unreachable = -1e30;
  // Log-probabilities of the extended labels, (T, N, ext).
  // Log-probabilities of -inf (masked classes) count as unreachable, so no
  // -inf - -inf reaches the log-sum-exp.
  const Tensor<T> emit =
      clamp(lp.gather(2, ext_labels.unsqueeze(0).expand({steps, n, ext}).contiguous()), unreachable, None);
  const auto shifted = [&](const Tensor<T>& a, int64_t by) {
    if (by >= ext) return full<T>({n, ext}, static_cast<T>(unreachable), {.device = device});
    return cat({full<T>({n, by}, static_cast<T>(unreachable), {.device = device}), a.narrow(1, 0, ext - by)}, 1);
  };
  std::vector<Tensor<T>> alphas;
  Tensor<T> alpha = where(gt(starts, 0), emit.select(0, 0), unreachable);
  alphas.push_back(alpha);
  for (int64_t t = 1; t < steps; ++t) {
    const Tensor<T> a1 = shifted(alpha, 1);
    const Tensor<T> a2 = where(gt(may_skip, 0), shifted(alpha, 2), unreachable);
    const Tensor<T> m = Tensor<T>(maximum(maximum(alpha, a1), a2)).detach();
    alpha = Tensor<T>(m + log(exp(alpha - m) + exp(a1 - m) + exp(a2 - m)) + emit.select(0, t));
    alphas.push_back(alpha);
  }
  // Each sequence's alphas at its last step, then its two final states.
  const Tensor<T> all = stack(alphas, 0);  // (T, N, ext)
  const Tensor<T> at_end =
      all.gather(0, upload_index(last_steps, {1, n, 1}).expand({1, n, ext}).contiguous()).squeeze(0);
  const Tensor<T> fa = at_end.gather(1, upload_index(end_a, {n, 1})).squeeze(1);
  const Tensor<T> fb = at_end.gather(1, upload_index(end_b, {n, 1})).squeeze(1);
  std::vector<T> has_b;
  for (int64_t i = 0; i < n; ++i) has_b.push_back(tg_len[i] > 0 ? T(1) : T(0));
  const Tensor<T> fb_used = where(gt(upload(has_b, {n}), 0), fb, unreachable);
  const Tensor<T> m = Tensor<T>(maximum(fa, fb_used)).detach();
  Tensor<T> loss = -(m + log(exp(fa - m) + exp(fb_used - m)));
  // An empty input or an impossible alignment: infinite.
  // An empty input: 0 for an empty target, else impossible.
  std::vector<T> empty_input, nothing;
  for (int64_t i = 0; i < n; ++i) {
    empty_input.push_back(in_len[i] == 0 && tg_len[i] > 0 ? T(1) : T(0));
    nothing.push_back(in_len[i] == 0 && tg_len[i] == 0 ? T(1) : T(0));
  }
  loss = where(gt(upload(nothing, {n}), 0), T(0), loss);
  const Tensor<bool> impossible = logical_or(gt(loss, 1e29), gt(upload(empty_input, {n}), 0));
  loss = zero_infinity ? Tensor<T>(where(impossible, T(0), loss))
                       : Tensor<T>(where(impossible, std::numeric_limits<T>::infinity(), loss));
  if (log_probs.dim() == 2) loss = loss.squeeze(0);
  if (reduction == "mean") {
    std::vector<T> lengths;
    for (int64_t v : tg_len) lengths.push_back(static_cast<T>(std::max<int64_t>(v, 1)));
    const Tensor<T> per = log_probs.dim() == 2 ? Tensor<T>(loss / lengths[0]) : Tensor<T>(loss / upload(lengths, {n}));
    return Tensor<T>(per.mean());
  }
  return tensorlib::detail::reduce_loss(loss, reduction);
}

}  // namespace nn::functional
}  // namespace tensorlib
