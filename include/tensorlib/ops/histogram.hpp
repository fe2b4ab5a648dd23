#pragma once
/// \file
/// Counting values: `bincount` (occurrences of each non-negative integer,
/// optionally weighted) and `histc` (a histogram with equal-width bins).

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

#include "tensorlib/core/error.hpp"
#include "tensorlib/core/expression.hpp"
#include "tensorlib/core/tensor.hpp"
#include "tensorlib/ops/along_dim.hpp"
#include "tensorlib/ops/factories.hpp"

namespace tensorlib {
namespace detail {

/// Element type of `bincount` with weights of type W: float for float
/// weights, double for every other type (as in PyTorch).
template <Element W>
using bincount_weight_t = std::conditional_t<std::is_same_v<W, float>, float, double>;

/// The number of bins and the input values, after PyTorch's checks.
template <Element T>
std::vector<T> bincount_input(const Tensor<T>& x, int64_t minlength, int64_t& bins) {
  static_assert(std::is_integral_v<T> && !std::is_same_v<T, bool>,
                "tl::bincount: the input must be an integer tensor (PyTorch rejects floating and bool inputs)");
  check_cpu(x, "bincount");
  detail::check<ValueError>(minlength >= 0, "bincount: minlength should be >= 0, but got ", minlength);
  const std::vector<T> v = x.dim() == 1 ? x.to_vector() : std::vector<T>{};
  const bool non_negative = std::all_of(v.begin(), v.end(), [](T a) { return a >= 0; });
  detail::check<ValueError>(x.dim() == 1 && non_negative,
                            "bincount: only supports 1-d non-negative integral inputs, but got a tensor of shape ",
                            x.sizes(), non_negative ? "" : " with negative values");
  bins = minlength;
  for (T a : v) {
    // A bin count of max + 1 must fit in int64 (PyTorch 1.13 crashes here).
    detail::check<ValueError>(static_cast<int64_t>(a) < std::numeric_limits<int64_t>::max(),
                              "bincount: the input's maximum ", static_cast<int64_t>(a), " leaves no room for ",
                              static_cast<int64_t>(a), " + 1 bins");
    bins = std::max<int64_t>(bins, static_cast<int64_t>(a) + 1);
  }
  return v;
}

}  // namespace detail

/// `torch.bincount(input, minlength=0)`: how many times each value
/// 0, 1, ..., max(input) occurs in a 1-d non-negative integer tensor, with at
/// least `minlength` bins.
template <Expression E>
Tensor<int64_t> bincount(const E& input, int64_t minlength = 0) {
  const Tensor<value_type_t<E>> x = input;
  int64_t bins = 0;
  const auto v = detail::bincount_input(x, minlength, bins);
  auto out = zeros<int64_t>({bins});
  for (auto a : v) ++out.data_ptr()[a];
  return out;
}

/// `torch.bincount(input, weights, minlength=0)`: the sum of `weights[i]` over
/// the i with input[i] == value, for each value. Float weights give a float
/// tensor, other weights a double tensor, as in PyTorch.
template <Expression E, Expression W>
Tensor<detail::bincount_weight_t<value_type_t<W>>> bincount(const E& input, const W& weights, int64_t minlength = 0) {
  using Out = detail::bincount_weight_t<value_type_t<W>>;
  const Tensor<value_type_t<E>> x = input;
  const Tensor<value_type_t<W>> w = weights;
  int64_t bins = 0;
  const auto v = detail::bincount_input(x, minlength, bins);
  detail::check<ShapeError>(w.dim() == 1 && w.numel() == static_cast<int64_t>(v.size()),
                            "bincount: weights should be 1-d and have the same length as input, but got weights of "
                            "shape ",
                            w.sizes(), " for input of shape ", x.sizes());
  const auto wv = w.to_vector();
  auto out = zeros<Out>({bins});
  for (std::size_t i = 0; i < v.size(); ++i) out.data_ptr()[v[i]] += static_cast<Out>(wv[i]);
  return out;
}

/// `torch.histc(input, bins=100, min=0, max=0)`: counts of the elements in
/// `bins` equal-width bins spanning [min, max]; the last bin includes max.
/// Elements outside the range and NaNs are ignored (PyTorch 1.13 counts NaN
/// in the first bin through an undefined float-to-integer conversion; we do
/// not copy that). When min == max the
/// data's minimum and maximum are used, widened by 1 on each side if equal.
template <Expression E>
Tensor<value_type_t<E>> histc(const E& input, int64_t bins = 100, double min = 0, double max = 0) {
  using T = value_type_t<E>;
  static_assert(std::is_floating_point_v<T>,
                "tl::histc: the input must be a floating-point tensor (PyTorch's CPU histc rejects integers)");
  const Tensor<T> x = input;
  detail::check_cpu(x, "histc");
  detail::check<ValueError>(bins > 0, "histc: bins must be > 0, but got ", bins);
  const std::vector<T> v = x.to_vector();
  double lo = min, hi = max;
  if (lo == hi && !v.empty()) {
    // aminmax: NaN propagates, so a NaN input gives a non-finite range below.
    lo = hi = static_cast<double>(v.front());
    for (T a : v) {
      if (detail::is_nan(a)) {
        lo = hi = static_cast<double>(a);
        break;
      }
      lo = std::min(lo, static_cast<double>(a));
      hi = std::max(hi, static_cast<double>(a));
    }
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
  const T left = static_cast<T>(lo), right = static_cast<T>(hi);
  auto out = zeros<T>({bins});
  for (T a : v) {
    if (!(a >= left && a <= right)) continue;
    // Clamped so that a range too wide for T (inf / inf) cannot index out of bounds.
    const T scaled = (a - left) * static_cast<T>(bins) / (right - left);
    const int64_t pos = scaled >= static_cast<T>(bins - 1) ? bins - 1 : scaled > 0 ? static_cast<int64_t>(scaled) : 0;
    out.data_ptr()[pos] += T(1);
  }
  return out;
}

}  // namespace tensorlib
