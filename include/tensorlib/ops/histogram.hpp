#pragma once
/// \file
/// Counting values: `bincount` (occurrences of each non-negative integer,
/// optionally weighted) and `histc` (a histogram with equal-width bins),
/// each one functor that the CPU loop and the GPU kernel both run (adding
/// atomically there); and `histogram` (equal-width or given bin edges,
/// weights, density, and the edges returned), a search of the edges and an
/// index_add.

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <type_traits>
#include <utility>

#include "tensorlib/core/error.hpp"
#include "tensorlib/core/expression.hpp"
#include "tensorlib/core/print.hpp"
#include "tensorlib/core/tensor.hpp"
#include "tensorlib/ops/dispatch.hpp"
#include "tensorlib/ops/factories.hpp"
#include "tensorlib/ops/index_common.hpp"
#include "tensorlib/ops/index_ops.hpp"
#include "tensorlib/ops/join.hpp"
#include "tensorlib/ops/masked.hpp"
#include "tensorlib/ops/reduce.hpp"
#include "tensorlib/ops/search.hpp"

namespace tensorlib {
namespace detail {

/// Element type of `bincount` with weights of type W: float for float
/// weights, double for every other type (as in PyTorch).
template <Element W>
using bincount_weight_t = std::conditional_t<std::is_same_v<W, float>, float, double>;

/// The minimum and maximum of a non-empty tensor: two reductions on its
/// device and one copy of both to the host (one synchronization on a GPU).
template <Element T>
std::array<T, 2> extremes(const Tensor<T>& x) {
  NoGradGuard no_grad;
  const Tensor<T> both = stack({amin(x), amax(x)}).cpu();
  return {both.data_ptr()[0], both.data_ptr()[1]};
}

/// The number of bins after PyTorch's checks.
template <Element T>
int64_t bincount_bins(const Tensor<T>& x, int64_t minlength) {
  static_assert(std::is_integral_v<T> && !std::is_same_v<T, bool>,
                "tl::bincount: the input must be an integer tensor (PyTorch rejects floating and bool inputs)");
  detail::check<ValueError>(minlength >= 0, "bincount: minlength should be >= 0, but got ", minlength);
  // PyTorch checks the rank before the values, which an empty input skips.
  const auto check_input = [&](bool ok, const char* negative) {
    detail::check<ValueError>(ok,
                              "bincount: only supports 1-d non-negative integral inputs, but got a tensor of shape ",
                              x.sizes(), negative);
  };
  check_input(x.dim() == 1, "");
  if (x.numel() == 0) return minlength;
  const auto [bottom, top_t] = extremes(x);
  check_input(static_cast<int64_t>(bottom) >= 0, " with negative values");
  const auto top = static_cast<int64_t>(top_t);
  // A bin count of max + 1 must fit in int64 (PyTorch 1.13 crashes here).
  detail::check<ValueError>(top < std::numeric_limits<int64_t>::max(), "bincount: the input's maximum ", top,
                            " leaves no room for ", top, " + 1 bins");
  return std::max(minlength, top + 1);
}

/// out[x[o0]] += weights[o1] (1 without weights): bincount's loop on the CPU
/// and its kernel on a GPU (atomic there).
template <Element T, Element W, Element Out>
struct CountInto {
  Out* out;
  const T* x;
  const W* weights;
  TENSORLIB_HOST_DEVICE void operator()(const std::array<int64_t, 2>& o) const {
    write_or_add(out + static_cast<int64_t>(x[o[0]]), weights ? static_cast<Out>(weights[o[1]]) : Out(1), true);
  }
};

/// bin(a) += 1 for each x element `a` in [left, right] (NaN and the rest
/// ignored): PyTorch's linear binning in T, the last bin closed. Clamped so
/// that a range too wide for T (inf / inf) cannot index out of bounds.
template <Element T>
struct HistogramInto {
  T* out;
  const T* x;
  T left, right;
  int64_t bins;
  TENSORLIB_HOST_DEVICE void operator()(const std::array<int64_t, 1>& o) const {
    const T a = x[o[0]];
    if (!(a >= left && a <= right)) return;
    const T scaled = (a - left) * static_cast<T>(bins) / (right - left);
    const int64_t pos = scaled >= static_cast<T>(bins - 1) ? bins - 1 : scaled > 0 ? static_cast<int64_t>(scaled) : 0;
    write_or_add(out + pos, T(1), true);
  }
};

}  // namespace detail

/// `torch.bincount(input, minlength=0)`: how many times each value
/// 0, 1, ..., max(input) occurs in a 1-d non-negative integer tensor, with at
/// least `minlength` bins. On the input's device (a GPU adds atomically).
template <Expression E>
Tensor<int64_t> bincount(const E& input, int64_t minlength = 0) {
  using T = value_type_t<E>;
  const Tensor<T> x = input;
  auto out = zeros<int64_t>({detail::bincount_bins(x, minlength)}, {.device = x.device()});
  const detail::CountInto<T, int64_t, int64_t> f{out.data_ptr(), x.data_ptr(), nullptr};
  detail::dispatch_offsets<2>(x.device(), x.sizes(), {x.strides(), x.strides()}, f, "bincount");
  return out;
}

/// `torch.bincount(input, weights, minlength=0)`: the sum of `weights[i]` over
/// the i with input[i] == value, for each value. Float weights give a float
/// tensor, other weights a double tensor, as in PyTorch.
template <Expression E, Expression W>
Tensor<detail::bincount_weight_t<value_type_t<W>>> bincount(const E& input, const W& weights, int64_t minlength = 0) {
  using T = value_type_t<E>;
  using Out = detail::bincount_weight_t<value_type_t<W>>;
  const Tensor<T> x = input;
  const Tensor<value_type_t<W>> w = weights;
  detail::check_devices("bincount", x.device(), w);
  const int64_t bins = detail::bincount_bins(x, minlength);
  // PyTorch returns the empty input's zeros before it looks at the weights
  // (as int64 there: here the weighted result's type, which is static).
  if (x.numel() == 0) return zeros<Out>({bins}, {.device = x.device()});
  detail::check<ShapeError>(w.dim() == 1 && w.numel() == x.numel(),
                            "bincount: weights should be 1-d and have the same length as input, but got weights of "
                            "shape ",
                            w.sizes(), " for input of shape ", x.sizes());
  auto out = zeros<Out>({bins}, {.device = x.device()});
  const detail::CountInto<T, value_type_t<W>, Out> f{out.data_ptr(), x.data_ptr(), w.data_ptr()};
  detail::dispatch_offsets<2>(x.device(), x.sizes(), {x.strides(), w.strides()}, f, "bincount");
  return out;
}

/// `torch.histc(input, bins=100, min=0, max=0)`: counts of the elements in
/// `bins` equal-width bins spanning [min, max]; the last bin includes max.
/// Elements outside the range and NaNs are ignored (PyTorch 1.13 counts NaN
/// in the first bin through an undefined float-to-integer conversion; we do
/// not copy that). When min == max the data's minimum and maximum are used
/// (two reductions, one copy to the host; a NaN makes the range non-finite,
/// an error), widened by 1 on each side if equal. On the input's device (a
/// GPU adds atomically).
template <Expression E>
Tensor<value_type_t<E>> histc(const E& input, int64_t bins = 100, double min = 0, double max = 0) {
  using T = value_type_t<E>;
  static_assert(std::is_floating_point_v<T>,
                "tl::histc: the input must be a floating-point tensor (PyTorch's CPU histc rejects integers)");
  const Tensor<T> x = input;
  detail::check<ValueError>(bins > 0, "histc: bins must be > 0, but got ", bins);
  double lo = min, hi = max;
  if (lo == hi && x.numel() > 0) {
    const auto [bottom, top] = detail::extremes(x);
    lo = static_cast<double>(bottom);
    hi = static_cast<double>(top);
  }
  if (lo == hi) {
    lo -= 1;
    hi += 1;
  }
  detail::check<ValueError>(std::isfinite(lo) && std::isfinite(hi), "histc: range of [", lo, ", ", hi,
                            "] is not finite");
  detail::check<ValueError>(lo < hi, "histc: max must be larger than min, but got min ", lo, " and max ", hi);
  constexpr double largest = static_cast<double>(std::numeric_limits<T>::max());
  detail::check<ValueError>(std::abs(lo) <= largest && std::abs(hi) <= largest,
                            "histc: value cannot be converted to type ", DTypeTraits<T>::name,
                            " without overflow (range [", lo, ", ", hi, "])");
  // PyTorch's linear binning, in T: the edges are linspace(min, max, bins + 1)
  // in T, whose first and last elements are exactly min and max.
  auto out = zeros<T>({bins}, {.device = x.device()});
  const detail::HistogramInto<T> f{out.data_ptr(), x.data_ptr(), static_cast<T>(lo), static_cast<T>(hi), bins};
  detail::dispatch_offsets<1>(x.device(), x.sizes(), {x.strides()}, f, "histc");
  return out;
}

/// `torch.histogram`'s result: the (weighted) count of each bin, or its
/// density, and the bins' edges.
template <Element T>
struct Histogram {
  Tensor<T> hist;
  Tensor<T> bin_edges;
};

namespace detail {

/// The histogram of x's elements over `edges` (increasing, the last bin
/// closed): each element's bin by a search of the edges, then one index_add
/// of its weight (1 without weights). NaN and elements outside are left out.
template <Element T>
Histogram<T> histogram_over(const Tensor<T>& x, const Tensor<T>& edges, const std::optional<Tensor<T>>& weight,
                            bool density) {
  const char* op = "histogram";
  check<ShapeError>(edges.dim() == 1 && edges.numel() >= 2, op,
                    ": bins must be a 1D tensor of at least 2 edges, but got shape ", edges.sizes());
  check_devices(op, x.device(), edges);
  if (weight) {
    check<ShapeError>(weight->numel() == x.numel(), op,
                      ": weight should have as many elements as input, but got input ", x.sizes(), " and weight ",
                      weight->sizes());
    check_devices(op, x.device(), *weight);
  }
  const Tensor<T> e = edges.clone();  // the result's own edges, as PyTorch's
  check<ValueError>(Tensor<bool>(e.narrow(0, 1, e.numel() - 1) >= e.narrow(0, 0, e.numel() - 1)).all().item(), op,
                    ": bin edges must increase monotonically, got ", e);
  const int64_t bins = e.numel() - 1;
  const Tensor<T> flat = x.reshape({-1});
  const Tensor<T> first = e.narrow(0, 0, 1), last = e.narrow(0, bins, 1);
  const Tensor<bool> inside = logical_and(flat >= first, flat <= last);  // NaN is outside
  const Tensor<T> kept = masked_select(flat, inside);
  // The last edge belongs to the last bin: clamp the search's bin bins to bins - 1.
  const Tensor<int64_t> bin = minimum(searchsorted(e, kept, true) - 1, bins - 1);
  const Tensor<T> amounts =
      weight ? masked_select(weight->reshape({-1}), inside) : ones<T>({kept.numel()}, {.device = x.device()});
  Tensor<T> hist = zeros<T>({bins}, {.device = x.device()}).index_add(0, bin, amounts);
  if (density) hist = hist / (hist.sum() * (e.narrow(0, 1, bins) - e.narrow(0, 0, bins)));
  return {hist, e};
}

}  // namespace detail

/// `torch.histogram(input, bins, range, weight, density)` with `bins` equal
/// bins: edges linspace(min, max, bins + 1) in T over `range`, or over the
/// input's minimum and maximum (0 and 1 when empty), widened by 0.5 on each
/// side when equal. `weight` (input's shape) weights each element; `density`
/// divides each bin by the total and by its width. Floating types.
template <Expression E, class T = value_type_t<E>>
Histogram<T> histogram(const E& input, int64_t bins, std::optional<std::pair<double, double>> range = std::nullopt,
                       const std::optional<Tensor<std::type_identity_t<T>>>& weight = std::nullopt,
                       bool density = false) {
  static_assert(std::is_floating_point_v<T>, "tl::histogram: expected a float or double input (as PyTorch)");
  const Tensor<T> x = input;
  detail::check<ValueError>(bins > 0, "histogram: bins must be > 0, but got ", bins);
  double lo = 0, hi = 1;
  if (range) {
    std::tie(lo, hi) = *range;
  } else if (x.numel() > 0) {
    const auto [bottom, top] = detail::extremes(x);
    lo = static_cast<double>(bottom);
    hi = static_cast<double>(top);
  }
  detail::check<ValueError>(std::isfinite(lo) && std::isfinite(hi), "histogram: range of [", lo, ", ", hi,
                            "] is not finite");
  detail::check<ValueError>(lo <= hi, "histogram: min should not exceed max, but got min ", lo, " max ", hi);
  if (lo == hi) {
    lo -= 0.5;
    hi += 0.5;
  }
  return detail::histogram_over(x, linspace<T>(lo, hi, bins + 1, {.device = x.device()}), weight, density);
}

/// `torch.histogram(input, bins, weight, density)` with the bin edges given
/// (increasing; each bin [e_i, e_i+1), the last closed).
template <Expression E, class T = value_type_t<E>>
Histogram<T> histogram(const E& input, const Tensor<std::type_identity_t<T>>& bins,
                       const std::optional<Tensor<std::type_identity_t<T>>>& weight = std::nullopt,
                       bool density = false) {
  static_assert(std::is_floating_point_v<T>, "tl::histogram: expected a float or double input (as PyTorch)");
  return detail::histogram_over(Tensor<T>(input), bins, weight, density);
}

template <class Derived>
auto PointwiseMethods<Derived>::histc(int64_t bins, double min, double max) const {
  return tensorlib::histc(self(), bins, min, max);
}
template <class Derived>
auto PointwiseMethods<Derived>::bincount(int64_t minlength) const {
  return tensorlib::bincount(self(), minlength);
}

}  // namespace tensorlib
