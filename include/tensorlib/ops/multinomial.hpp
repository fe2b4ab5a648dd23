#pragma once
/// \file
/// `multinomial`: category indices drawn from each row of a tensor of
/// probabilities or weights (`torch.multinomial`). It is written in tensor
/// ops (rand, topk, cumsum, searchsorted), so it runs on every device.
///
/// Note [multinomial sampling]
/// Without replacement, and for one sample, it is PyTorch's algorithm: each
/// category gets the key p / q with q ~ Exp(1), and the samples are the
/// categories with the num_samples largest keys, largest first. This is the
/// Gumbel-max trick: the first sample is category i with probability
/// p_i / sum(p), and each later one is drawn the same way from the
/// categories still left. Zero weights get key 0, so they come last.
///
/// With replacement it uses the inverse transform. A uniform u in [0, 1) is
/// scaled by the row's total and searched in the row's running sum: the
/// sample is the first index whose running sum exceeds it. The running sums
/// are made flat over zero weights (a running maximum of the sums at the
/// weighted categories), so a zero weight is never drawn even where a GPU
/// scan rounds its pieces differently. When u * total rounds up to the
/// total, the sample is the last category with weight.
///
/// The uniforms are tensorlib's Philox streams, not PyTorch's. A seed gives
/// other samples than PyTorch's, but the same ones on every device (up to
/// keys within an ulp of each other, which the device's log may order
/// differently).

#include <cstdint>
#include <limits>

#include "tensorlib/core/dtype.hpp"
#include "tensorlib/core/error.hpp"
#include "tensorlib/core/generator.hpp"
#include "tensorlib/core/tensor.hpp"
#include "tensorlib/expr/functions.hpp"
#include "tensorlib/expr/operators.hpp"
#include "tensorlib/ops/random.hpp"
#include "tensorlib/ops/rearrange.hpp"
#include "tensorlib/ops/reduce.hpp"
#include "tensorlib/ops/scan.hpp"
#include "tensorlib/ops/search.hpp"
#include "tensorlib/ops/sort.hpp"

namespace tensorlib {
namespace detail {

/// Throws PyTorch's error for the first invalid row of weights `p` (rows,
/// categories) with replacement: rows in order, each element checked for
/// being negative (or NaN), then infinite, then the row's sum for being 0.
template <Element T>
[[noreturn]] void throw_multinomial_error(const Tensor<T>& p) {
  const Tensor<T> host = p.cpu().contiguous();
  const T* w = host.data_ptr();
  const int64_t rows = host.size(0), n = host.size(1);
  for (int64_t r = 0; r < rows; ++r) {
    double total = 0;
    for (int64_t i = 0; i < n; ++i) {
      const T v = w[r * n + i];
      check(v >= T(0), "invalid multinomial distribution (encountering probability entry < 0)");
      check(v < std::numeric_limits<T>::infinity(),
            "invalid multinomial distribution (encountering probability entry = infinity or NaN)");
      total += static_cast<double>(v);
    }
    check(total > 0, "invalid multinomial distribution (sum of probabilities <= 0)");
  }
  throw Error("multinomial: invalid weights");  // not reached: the caller found one
}

}  // namespace detail

/// `num_samples` category indices per row of `input` (1-D: one row, giving
/// (num_samples); 2-D: (rows, num_samples)), drawn with probabilities
/// proportional to the row's non-negative weights, with or without
/// `replacement` (Note [multinomial sampling]). PyTorch's errors: a
/// negative, infinite or NaN weight, a row summing to 0, more samples than
/// categories without replacement. Not differentiable (the indices are
/// integers).
template <Element T>
Tensor<int64_t> multinomial(const Tensor<T>& input, int64_t num_samples, bool replacement = false,
                            Generator& gen = default_generator()) {
  static_assert(is_floating<T>, "tl::multinomial: only floating-point weights are supported (as in PyTorch)");
  if constexpr (is_reduced_float<T>) {
    return multinomial(input.template to<float>(), num_samples, replacement, gen);
  } else {
    detail::check(input.dim() == 1 || input.dim() == 2, "prob_dist must be 1 or 2 dim");
    detail::check<ValueError>(num_samples > 0, "cannot sample n_sample <= 0 samples");
    const int64_t categories = input.size(-1);
    detail::check<ValueError>(replacement || num_samples <= categories,
                              "cannot sample n_sample > prob_dist.size(-1) samples without replacement");
    detail::check<ValueError>(categories <= (int64_t{1} << 24), "number of categories cannot exceed 2^24");
    const Tensor<T> p = input.dim() == 1 ? input.detach().unsqueeze(0) : input.detach();
    const Device device = p.device();
    const auto shaped = [&](const Tensor<int64_t>& r) { return input.dim() == 1 ? r.squeeze(0) : r; };
    if (p.size(0) == 0) return shaped(empty<int64_t>({0, num_samples}, {.device = device}));
    if (!replacement || num_samples == 1) {
      detail::check(all(logical_and(p < std::numeric_limits<T>::infinity(), p >= T(0))).item(),
                    "probability tensor contains either `inf`, `nan` or element < 0");
      detail::check(categories > 0 && !any(eq(sum(p, {1}), T(0))).item(),
                    "invalid multinomial distribution (sum of probabilities <= 0)");
      const Tensor<T> u = rand<T>(p.sizes(), gen, {.device = device});
      const Tensor<T> keys = where(p > T(0), p / -log1p(-u), T(0));
      return shaped(num_samples == 1 ? argmax(keys, 1, true) : topk(keys, num_samples, 1).indices);
    }
    if (categories == 0 || !all(logical_and(isfinite(p), p >= T(0))).item() || any(eq(sum(p, {1}), T(0))).item())
      detail::throw_multinomial_error(p);
    const Tensor<T> running = cummax(where(p > T(0), cumsum(p, 1), T(0)), 1).values;
    const Tensor<T> total = running.narrow(1, categories - 1, 1);
    const Tensor<T> u = rand<T>({p.size(0), num_samples}, gen, {.device = device});
    const Tensor<int64_t> found = searchsorted(running, u * total, /*right=*/true);
    const Tensor<bool> weighted = p > T(0);
    const Tensor<int64_t> last_weighted =
        (categories - 1) - argmax(flip(weighted.template to<int32_t>(), {1}), 1, true);
    return shaped(minimum(found, last_weighted));
  }
}

}  // namespace tensorlib
