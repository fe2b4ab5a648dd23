#pragma once
/// \file
/// Order statistics and the mode along a dimension: `kthvalue`, `median`,
/// `nanmedian`, `mode`, `quantile` and `nanquantile`, with PyTorch's CPU semantics.
///
/// Which index is returned for tied values (PyTorch's CPU kernels are
/// deterministic, and these run the same algorithms):
/// * `kthvalue`: PyTorch's quickselect (median-of-three pivot), so the index
///   of a tied k-th value is the one PyTorch returns.
/// * `median(dim)`/`nanmedian(dim)`: ties broken by index, so the index is the
///   one a stable sort would put at position (n - 1) / 2 (the lower median).
///   `median` returns the first NaN (value and index) if a slice has one;
///   `nanmedian` ignores NaNs and returns NaN only for an all-NaN slice.
/// * `mode`: the smallest of the most frequent values; its index is the one
///   PyTorch's std::sort of (value, index) pairs leaves last among the ties.
///   Each NaN is its own value (NaN != NaN) and sorts last, so a NaN is the
///   mode only of a slice whose values all occur once and are all NaN. Here
///   we differ from PyTorch 1.13, whose kernel sorts with `<` (no ordering
///   once NaNs are present) and returns e.g. NaN for [nan, 1, nan, 2, 3, 1];
///   slices without NaN give PyTorch's value and index.
///
/// Note [order statistics from a sort]
/// On a GPU these sort every slice stably (Note [GPU row sort]) and read one
/// position per slice with `gather`; every step is a tensor op that runs
/// there, and the same code runs on the CPU in the tests against the loops
/// above. Positions: kthvalue k - 1; median (n - 1) / 2, or the first NaN
/// (n - nans, NaNs sort last) when the slice has one; nanmedian
/// (n - nans - 1) / 2; mode the last element of the longest run of equal
/// sorted values (the first such run: the smallest value), found as the
/// first maximum of each position's distance from its run's start (a
/// cummax of the run starts). Values equal the CPU's, and so do the indices
/// of median and nanmedian (ties by index on both sides), except that an
/// all-NaN slice's nanmedian is its first NaN (the CPU's is PyTorch CPU's
/// std::nth_element's choice). A tied kthvalue or mode may be another element
/// holding the same value (so 0.0 for -0.0) at another index: the stable
/// order's (kthvalue), the largest (mode), where the CPU follows PyTorch's
/// quickselect and std::sort.

#include <algorithm>
#include <cstdint>
#include <limits>
#include <numeric>
#include <optional>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "tensorlib/core/error.hpp"
#include "tensorlib/core/expression.hpp"
#include "tensorlib/core/grad_mode.hpp"
#include "tensorlib/core/tensor.hpp"
#include "tensorlib/expr/functions.hpp"
#include "tensorlib/expr/operators.hpp"
#include "tensorlib/ops/along_dim.hpp"
#include "tensorlib/ops/evaluate.hpp"
#include "tensorlib/ops/factories.hpp"
#include "tensorlib/ops/gather_scatter.hpp"
#include "tensorlib/ops/rearrange.hpp"
#include "tensorlib/ops/reduce.hpp"
#include "tensorlib/ops/scan.hpp"
#include "tensorlib/ops/sort.hpp"
#include "tensorlib/ops/values_indices.hpp"

namespace tensorlib {
namespace detail {

/// PyTorch's quick_select_template (SortingUtils.h): partially orders
/// `values` (and `indices` alongside) so that position k holds the k-th
/// smallest, NaN largest.
template <Element T>
void quick_select(std::vector<T>& values, std::vector<int64_t>& indices, int64_t k) {
  const GreaterNanFirst gt_or_nan;
  auto at = [&](int64_t i) -> T& { return values[static_cast<std::size_t>(i)]; };
  auto swap = [&](int64_t i, int64_t j) {
    std::swap(at(i), at(j));
    std::swap(indices[static_cast<std::size_t>(i)], indices[static_cast<std::size_t>(j)]);
  };
  int64_t left = 0, right = static_cast<int64_t>(values.size()) - 1;
  while (true) {
    if (right <= left) return;
    if (right == left + 1) {
      if (gt_or_nan(at(left), at(right))) swap(left, right);
      return;
    }
    const int64_t pivot_at = left + (right - left) / 2;
    swap(pivot_at, left + 1);
    if (gt_or_nan(at(left + 1), at(right))) swap(left + 1, right);
    if (gt_or_nan(at(left), at(right))) swap(left, right);
    if (gt_or_nan(at(left + 1), at(left))) swap(left + 1, left);
    int64_t i = left + 1, j = right;
    const T pivot = at(left);
    while (true) {
      do ++i;
      while (gt_or_nan(pivot, at(i)));
      do --j;
      while (gt_or_nan(at(j), pivot));
      if (j < i) break;
      swap(i, j);
    }
    swap(left, j);
    if (j <= k) left = i;
    if (j >= k) right = j - 1;
  }
}

/// Every slice of x along `dim` sorted stably, as [count, n] rows (Note
/// [order statistics from a sort]).
template <Element T>
struct SortedRows {
  Rows<T> rows;
  Tensor<T> values;
  Tensor<int64_t> indices;
};

template <Element T>
SortedRows<T> sorted_rows(const Tensor<T>& x, int64_t dim, const char* op) {
  Rows<T> rows = rows_along_on_device(x, dim, op);
  detail::check<IndexError>(rows.length > 0, op, ": Expected reduction dim ", rows.dim, " to have non-zero size.");
  const ValuesIndices<T> sorted = sort_row_layout(rows, false, true);
  const Shape shape{rows.count, rows.length};
  return {std::move(rows), sorted.values.reshape(shape), sorted.indices.reshape(shape)};
}

/// The element at `position` ([count, 1]) of each sorted row, and its index
/// in the input, shaped as the reduction's result.
template <Element T>
ValuesIndices<T> pick_sorted(const SortedRows<T>& s, const Tensor<int64_t>& position, bool keepdim) {
  const Shape shape = reduced_shape(s.rows, keepdim);
  return {gather(s.values, 1, position).reshape(shape), gather(s.indices, 1, position).reshape(shape)};
}

/// The number of NaNs in each sorted row, [count, 1] (zeros for integers).
template <Element T>
Tensor<int64_t> nan_counts(const SortedRows<T>& s) {
  if constexpr (is_floating<T>)
    return sum(isnan(s.values), {1}, true);
  else
    return zeros<int64_t>({s.rows.count, 1}, {.device = s.values.device()});
}

template <Element T>
ValuesIndices<T> kthvalue_sorted(const Tensor<T>& x, int64_t k, int64_t dim, bool keepdim) {
  const SortedRows<T> s = sorted_rows(x, dim, "kthvalue");
  detail::check<IndexError>(k >= 1 && k <= s.rows.length, "kthvalue: selected number k out of range for dimension ",
                            s.rows.dim, " (expected k in [1, ", s.rows.length, "], but got k = ", k, ")");
  return pick_sorted(s, full<int64_t>({s.rows.count, 1}, k - 1, {.device = x.device()}), keepdim);
}

template <Element T>
ValuesIndices<T> median_sorted(const Tensor<T>& x, int64_t dim, bool keepdim, bool ignore_nan, const char* op) {
  const SortedRows<T> s = sorted_rows(x, dim, op);
  const int64_t n = s.rows.length;
  const Tensor<int64_t> nans = nan_counts(s);
  if (!ignore_nan) return pick_sorted(s, Tensor<int64_t>(where(nans > 0, n - nans, (n - 1) / 2)), keepdim);
  // (n - nans - 1) / 2 rounded down, 0 for an all-NaN row.
  const Tensor<double> half = floor(maximum(static_cast<double>(n - 1) - nans.template to<double>(), 0.0) * 0.5);
  return pick_sorted(s, half.template to<int64_t>(), keepdim);
}

template <Element T>
ValuesIndices<T> mode_sorted(const Tensor<T>& x, int64_t dim, bool keepdim) {
  const SortedRows<T> s = sorted_rows(x, dim, "mode");
  const int64_t n = s.rows.length;
  const Device device = x.device();
  // Where each run of equal values starts (NaN != NaN: each NaN is a run).
  auto starts = ones<bool>({s.rows.count, n}, {.device = device});
  if (n > 1) starts.narrow(1, 1, n - 1).copy_(s.values.narrow(1, 1, n - 1) != s.values.narrow(1, 0, n - 1));
  const Tensor<int64_t> position = arange(int64_t{0}, n, TensorOptions{.device = device}).reshape({1, n});
  const Tensor<int64_t> run_start = cummax(where(starts, position, 0), 1).values;
  const Tensor<int64_t> last = argmax(position - run_start, 1, true);
  return pick_sorted(s, last, keepdim);
}

template <Element T>
ValuesIndices<T> kthvalue_rows(const Tensor<T>& x, int64_t k, int64_t dim, bool keepdim) {
  if (!x.is_cpu()) return kthvalue_sorted(x, k, dim, keepdim);
  const Rows<T> rows = rows_along(x, dim, "kthvalue");
  detail::check<IndexError>(rows.length > 0, "kthvalue: Expected reduction dim ", rows.dim, " to have non-zero size.");
  detail::check<IndexError>(k >= 1 && k <= rows.length, "kthvalue: selected number k out of range for dimension ",
                            rows.dim, " (expected k in [1, ", rows.length, "], but got k = ", k, ")");
  auto values = empty<T>(reduced_shape(rows, keepdim));
  auto indices = empty<int64_t>(reduced_shape(rows, keepdim));
  std::vector<T> v(static_cast<std::size_t>(rows.length));
  std::vector<int64_t> ix(static_cast<std::size_t>(rows.length));
  for (int64_t r = 0; r < rows.count; ++r) {
    std::copy(rows.row(r), rows.row(r) + rows.length, v.begin());
    std::iota(ix.begin(), ix.end(), int64_t{0});
    quick_select(v, ix, k - 1);
    values.data_ptr()[r] = v[static_cast<std::size_t>(k - 1)];
    indices.data_ptr()[r] = ix[static_cast<std::size_t>(k - 1)];
  }
  return {values, indices};
}

template <Element T>
ValuesIndices<T> median_rows(const Tensor<T>& x, int64_t dim, bool keepdim, bool ignore_nan, const char* op) {
  if (!x.is_cpu()) return median_sorted(x, dim, keepdim, ignore_nan, op);
  const Rows<T> rows = rows_along(x, dim, op);
  detail::check<IndexError>(rows.length > 0, op, ": Expected reduction dim ", rows.dim, " to have non-zero size.");
  auto values = empty<T>(reduced_shape(rows, keepdim));
  auto indices = empty<int64_t>(reduced_shape(rows, keepdim));
  std::vector<int64_t> idx(static_cast<std::size_t>(rows.length));
  for (int64_t r = 0; r < rows.count; ++r) {
    const T* in = rows.row(r);
    int64_t nth = 0;
    std::iota(idx.begin(), idx.end(), int64_t{0});
    if (!ignore_nan) {
      const T* nan = std::find_if(in, in + rows.length, [](T a) { return is_nan(a); });
      if (nan != in + rows.length) {
        values.data_ptr()[r] = *nan;
        indices.data_ptr()[r] = nan - in;
        continue;
      }
      nth = (rows.length - 1) / 2;
      std::nth_element(idx.begin(), idx.begin() + nth, idx.end(),
                       [in](int64_t i, int64_t j) { return in[i] < in[j] || (in[i] == in[j] && i < j); });
    } else {
      const auto nans = std::count_if(in, in + rows.length, [](T a) { return is_nan(a); });
      nth = (rows.length - nans - 1) / 2;
      std::nth_element(idx.begin(), idx.begin() + nth, idx.end(), [in](int64_t i, int64_t j) {
        return in[i] < in[j] || (in[i] == in[j] && i < j) || (is_nan(in[j]) && !is_nan(in[i]));
      });
    }
    const int64_t at = idx[static_cast<std::size_t>(nth)];
    values.data_ptr()[r] = in[at];
    indices.data_ptr()[r] = at;
  }
  return {values, indices};
}

template <Element T>
Tensor<T> median_all(const Tensor<T>& x, bool ignore_nan, const char* op) {
  if constexpr (is_floating<T>) {
    if (x.numel() == 0) return full<T>({}, std::numeric_limits<T>::quiet_NaN(), {.device = x.device()});
  } else {
    detail::check<ValueError>(x.numel() > 0, op, ": cannot take the median of an empty ", DTypeTraits<T>::name,
                              " tensor (expected at least one element; the result would be NaN)");
  }
  if (!x.is_cpu()) return median_sorted(x.reshape({-1}), 0, false, ignore_nan, op).values.reshape({});
  std::vector<T> v = x.to_vector();
  auto median = v.begin() + (static_cast<int64_t>(v.size()) - 1) / 2;
  if (!ignore_nan) {
    for (T a : v)
      if (is_nan(a)) return full<T>({}, a);
    std::nth_element(v.begin(), median, v.end());
  } else {
    const auto nans = std::count_if(v.begin(), v.end(), [](T a) { return is_nan(a); });
    median = v.begin() + (static_cast<int64_t>(v.size()) - nans - 1) / 2;
    std::nth_element(v.begin(), median, v.end(), [](T a, T b) { return a < b || (is_nan(b) && !is_nan(a)); });
  }
  return full<T>({}, *median);
}

template <Element T>
ValuesIndices<T> mode_rows(const Tensor<T>& x, int64_t dim, bool keepdim) {
  if (!x.is_cpu()) return mode_sorted(x, dim, keepdim);
  const Rows<T> rows = rows_along(x, dim, "mode");
  detail::check<IndexError>(rows.length > 0, "mode: Expected reduction dim ", rows.dim, " to have non-zero size.");
  auto values = empty<T>(reduced_shape(rows, keepdim));
  auto indices = empty<int64_t>(reduced_shape(rows, keepdim));
  std::vector<std::pair<T, int64_t>> elements(static_cast<std::size_t>(rows.length));
  for (int64_t r = 0; r < rows.count; ++r) {
    const T* in = rows.row(r);
    for (int64_t j = 0; j < rows.length; ++j) elements[static_cast<std::size_t>(j)] = {in[j], j};
    // PyTorch sorts with `a.first < b.first`; NaN last keeps that order for
    // NaN-free rows and is a strict weak ordering when NaNs are present.
    std::sort(elements.begin(), elements.end(),
              [](const auto& a, const auto& b) { return LessNanLast{}(a.first, b.first); });
    T mode{};
    int64_t mode_index = 0, run = 0, best = 0;
    for (std::size_t i = 0; i < elements.size(); ++i) {
      ++run;
      if (i + 1 == elements.size() || elements[i].first != elements[i + 1].first) {
        if (run > best) {
          mode = elements[i].first;
          mode_index = elements[i].second;
          best = run;
        }
        run = 0;
      }
    }
    values.data_ptr()[r] = mode;
    indices.data_ptr()[r] = mode_index;
  }
  return {values, indices};
}

}  // namespace detail

/// `torch.kthvalue(input, k, dim=-1, keepdim=False)`: the k-th smallest
/// element (1-based) of each slice along `dim` and its index; NaN is larger
/// than everything. An `IndexError` unless 1 <= k <= size(dim).
template <Expression E>
ValuesIndices<value_type_t<E>> kthvalue(const E& input, int64_t k, int64_t dim = -1, bool keepdim = false) {
  static_assert(!std::is_same_v<value_type_t<E>, bool>, "tl::kthvalue: bool tensors are not supported (as in PyTorch)");
  using T = value_type_t<E>;
  const Tensor<T> x = input;
  if constexpr (differentiable<T>) {
    if (detail::records_grad(x))
      return autograd::record_selection("KthvalueBackward", x, dim, keepdim,
                                        [&](const Tensor<T>& t) { return kthvalue(t, k, dim, keepdim); });
  }
  return detail::kthvalue_rows(x, k, dim, keepdim);
}

/// `torch.median(input)`: the lower median of all elements as a 0-d tensor
/// (the element at position (n - 1) / 2 in sorted order); NaN if any element
/// is NaN or the input is empty (an empty integer input is a `ValueError`).
template <Expression E>
Tensor<value_type_t<E>> median(const E& input) {
  static_assert(!std::is_same_v<value_type_t<E>, bool>, "tl::median: bool tensors are not supported (as in PyTorch)");
  using T = value_type_t<E>;
  const Tensor<T> x = input;
  if constexpr (differentiable<T>) {
    if (detail::records_grad(x))
      return autograd::record_evenly("MedianBackward", x, {}, true, [](const Tensor<T>& t) { return median(t); });
  }
  return detail::median_all(x, false, "median");
}

/// `torch.median(input, dim, keepdim=False)`: the lower median of each slice
/// along `dim` and its index (ties by lowest index in sorted position); a
/// slice containing NaN gives its first NaN.
template <Expression E>
ValuesIndices<value_type_t<E>> median(const E& input, int64_t dim, bool keepdim = false) {
  static_assert(!std::is_same_v<value_type_t<E>, bool>, "tl::median: bool tensors are not supported (as in PyTorch)");
  using T = value_type_t<E>;
  const Tensor<T> x = input;
  if constexpr (differentiable<T>) {
    if (detail::records_grad(x))
      return autograd::record_selection("MedianBackward", x, dim, keepdim,
                                        [&](const Tensor<T>& t) { return median(t, dim, keepdim); });
  }
  return detail::median_rows(x, dim, keepdim, false, "median");
}

/// `torch.nanmedian(input)`: the lower median of the non-NaN elements as a
/// 0-d tensor; NaN when every element is NaN or the input is empty.
template <Expression E>
Tensor<value_type_t<E>> nanmedian(const E& input) {
  static_assert(!std::is_same_v<value_type_t<E>, bool>,
                "tl::nanmedian: bool tensors are not supported (as in PyTorch)");
  using T = value_type_t<E>;
  const Tensor<T> x = input;
  if constexpr (differentiable<T>) {
    if (detail::records_grad(x))
      return autograd::record_evenly("NanmedianBackward", x, {}, true, [](const Tensor<T>& t) { return nanmedian(t); });
  }
  return detail::median_all(x, true, "nanmedian");
}

/// `torch.nanmedian(input, dim, keepdim=False)`: `median(input, dim)`
/// ignoring NaNs; an all-NaN slice gives NaN.
template <Expression E>
ValuesIndices<value_type_t<E>> nanmedian(const E& input, int64_t dim, bool keepdim = false) {
  static_assert(!std::is_same_v<value_type_t<E>, bool>,
                "tl::nanmedian: bool tensors are not supported (as in PyTorch)");
  using T = value_type_t<E>;
  const Tensor<T> x = input;
  if constexpr (differentiable<T>) {
    if (detail::records_grad(x))
      return autograd::record_selection("NanmedianBackward", x, dim, keepdim,
                                        [&](const Tensor<T>& t) { return nanmedian(t, dim, keepdim); });
  }
  return detail::median_rows(x, dim, keepdim, true, "nanmedian");
}

/// `torch.mode(input, dim=-1, keepdim=False)`: the most frequent value of
/// each slice along `dim` (the smallest of equally frequent ones) and an
/// index where it occurs (PyTorch's choice, see the file comment).
template <Expression E>
ValuesIndices<value_type_t<E>> mode(const E& input, int64_t dim = -1, bool keepdim = false) {
  using T = value_type_t<E>;
  const Tensor<T> x = input;
  if constexpr (differentiable<T>) {
    if (detail::records_grad(x))
      return autograd::record_selection("ModeBackward", x, dim, keepdim,
                                        [&](const Tensor<T>& t) { return mode(t, dim, keepdim); });
  }
  return detail::mode_rows(x, dim, keepdim);
}

namespace detail {

/// The interpolations of quantile/nanquantile (PyTorch's names).
enum class QuantileMethod { kLinear, kLower, kHigher, kMidpoint, kNearest };

inline QuantileMethod quantile_method(std::string_view interpolation, const char* op) {
  if (interpolation == "linear") return QuantileMethod::kLinear;
  if (interpolation == "lower") return QuantileMethod::kLower;
  if (interpolation == "higher") return QuantileMethod::kHigher;
  if (interpolation == "midpoint") return QuantileMethod::kMidpoint;
  if (interpolation == "nearest") return QuantileMethod::kNearest;
  throw ValueError(concat(op, "() interpolation must be one of linear, lower, higher, midpoint or nearest, but got ",
                          interpolation));
}

/// Note [quantiles from a sort]
/// PyTorch's algorithm, in tensor ops so that it runs on either device and
/// records for autograd: each slice is sorted (NaN last), the position
/// q * (n - 1) is taken (n the count of non-NaN values for nanquantile; for
/// quantile a slice holding a NaN reads its last, NaN, element), and the
/// values at its floor and ceiling are combined by the interpolation. A
/// vector q gives the result a new first dimension of q's length.
template <Element T>
Tensor<T> quantile(const Tensor<T>& input, const Tensor<T>& q, bool scalar_q, std::optional<int64_t> dim, bool keepdim,
                   std::string_view interpolation, bool ignore_nan, const char* op) {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>,
                "tl::quantile: the input tensor must be float or double (as in PyTorch)");
  const QuantileMethod method = quantile_method(interpolation, op);
  check<ShapeError>(q.dim() <= 1, op, "() q must be a scalar or 1D tensor");
  check<ValueError>(input.numel() > 0, op, "() input tensor must be non-empty");
  check_devices(op, input.device(), q);
  {
    NoGradGuard no_grad;
    const auto qv = q.cpu().to_vector();
    for (const T v : qv) check<ValueError>(v >= 0 && v <= 1, op, "() q values must be in the range [0, 1]");
  }
  // The reduced values along the last dimension, and the result's shape.
  Tensor<T> x;
  Shape out;
  int64_t d = 0;
  if (!dim) {
    x = input.reshape({-1});
    if (keepdim) out = Shape(std::vector<int64_t>(static_cast<std::size_t>(input.dim()), 1));
  } else {
    d = input.dim() == 0 ? wrap_dim(*dim, 1, op) : wrap_dim(*dim, input.dim(), op);
    x = input.dim() == 0 ? input.reshape({1}) : movedim(input, d, -1);
    for (int64_t i = 0; i < input.dim(); ++i)
      if (i != d || keepdim) out.push_back(i == d ? 1 : input.size(i));
  }
  const Tensor<T> sorted = sort(x, -1).values;
  const int64_t n = sorted.size(-1);
  Shape rank_shape = sorted.sizes();
  rank_shape[rank_shape.size() - 1] = q.numel();
  Shape q_shape(std::vector<int64_t>(static_cast<std::size_t>(sorted.dim()), 1));
  q_shape[q_shape.size() - 1] = q.numel();
  // The exact ranks keep q's gradient (the linear weights depend on q, as
  // in PyTorch); their floors and ceilings only pick positions.
  const Tensor<T> qb = q.reshape(q_shape);
  Tensor<T> exact;
  Tensor<bool> nan_result;  // slices whose quantile is NaN
  if (ignore_nan) {
    Tensor<T> valid;
    {
      NoGradGuard no_grad;
      valid = sum(logical_not(isnan(sorted)), {-1}, true).template to<T>();
      nan_result = eq(valid, T(0));
    }
    exact = Tensor<T>(clamp(qb * (valid - T(1)), T(0), None)).expand(rank_shape);
  } else {
    {
      NoGradGuard no_grad;
      nan_result = any(isnan(sorted), {-1}, true);
    }
    exact = Tensor<T>(where(nan_result, T(n - 1), qb * T(n - 1))).expand(rank_shape);
  }
  const Tensor<T> ranks = exact.detach().contiguous();
  Tensor<T> values;
  auto at = [&](const auto& positions) {
    return take_along_dim(sorted, Tensor<T>(positions).template to<int64_t>(), -1);
  };
  switch (method) {
    case QuantileMethod::kLower:
      values = at(floor(ranks));
      break;
    case QuantileMethod::kHigher:
      values = at(ceil(ranks));
      break;
    case QuantileMethod::kNearest:
      values = at(round(ranks));
      break;
    case QuantileMethod::kLinear:
    case QuantileMethod::kMidpoint: {
      const Tensor<T> below = floor(ranks);
      const Tensor<T> weights = method == QuantileMethod::kMidpoint
                                    ? full<T>(ranks.sizes(), T(0.5), {.device = ranks.device()})
                                    : Tensor<T>(exact - below);
      // A NaN slice interpolates zeros, so that its NaNs never reach q's
      // gradient (a zero partial times NaN is NaN), and returns its NaN,
      // which takes the gradient as in PyTorch.
      const Tensor<T> lo = at(below), hi = at(ceil(ranks));
      values = where(nan_result, lo, lerp(where(nan_result, T(0), lo), where(nan_result, T(0), hi), weights));
      break;
    }
  }
  // [..., Q] -> [Q, out...], or out when q is a scalar.
  values = movedim(values, -1, 0);
  Shape final_shape;
  if (!scalar_q) final_shape.push_back(q.numel());
  for (int64_t i = 0; i < out.size(); ++i) final_shape.push_back(out[i]);
  return values.reshape(final_shape);
}

/// quantile/nanquantile of a scalar q (PyTorch's messages name `quantile()` for both).
template <Element T>
Tensor<T> quantile_of_scalar(const Tensor<T>& input, double q, std::optional<int64_t> dim, bool keepdim,
                             std::string_view interpolation, bool ignore_nan) {
  check<ValueError>(q >= 0 && q <= 1, "quantile() q must be in the range [0, 1] but got ", q);
  return quantile(input, full<T>({}, static_cast<T>(q), {.device = input.device()}), true, dim, keepdim, interpolation,
                  ignore_nan, "quantile");
}

}  // namespace detail

/// `torch.quantile(input, q, dim=None, keepdim=False, interpolation='linear')`
/// for a scalar q in [0, 1] (Note [quantiles from a sort]): NaN where a
/// reduced slice holds a NaN.
template <Element T>
Tensor<T> quantile(const Tensor<T>& input, double q, std::optional<int64_t> dim = std::nullopt, bool keepdim = false,
                   std::string_view interpolation = "linear") {
  return detail::quantile_of_scalar(input, q, dim, keepdim, interpolation, false);
}

/// `torch.quantile` for a 0-d or 1-D q: a 1-D q of length Q puts a first
/// dimension of length Q in front of the result.
template <Element T>
Tensor<T> quantile(const Tensor<T>& input, const Tensor<T>& q, std::optional<int64_t> dim = std::nullopt,
                   bool keepdim = false, std::string_view interpolation = "linear") {
  return detail::quantile(input, q, q.dim() == 0, dim, keepdim, interpolation, false, "quantile");
}

/// `torch.nanquantile`: quantile ignoring NaNs (NaN only for an all-NaN slice).
template <Element T>
Tensor<T> nanquantile(const Tensor<T>& input, double q, std::optional<int64_t> dim = std::nullopt, bool keepdim = false,
                      std::string_view interpolation = "linear") {
  return detail::quantile_of_scalar(input, q, dim, keepdim, interpolation, true);
}

/// `torch.nanquantile` for a 0-d or 1-D q.
template <Element T>
Tensor<T> nanquantile(const Tensor<T>& input, const Tensor<T>& q, std::optional<int64_t> dim = std::nullopt,
                      bool keepdim = false, std::string_view interpolation = "linear") {
  return detail::quantile(input, q, q.dim() == 0, dim, keepdim, interpolation, true, "quantile");
}

template <class Derived>
auto PointwiseMethods<Derived>::median() const {
  return tensorlib::median(self());
}
template <class Derived>
auto PointwiseMethods<Derived>::median(int64_t dim, bool keepdim) const {
  return tensorlib::median(self(), dim, keepdim);
}
template <class Derived>
auto PointwiseMethods<Derived>::nanmedian() const {
  return tensorlib::nanmedian(self());
}
template <class Derived>
auto PointwiseMethods<Derived>::nanmedian(int64_t dim, bool keepdim) const {
  return tensorlib::nanmedian(self(), dim, keepdim);
}
template <class Derived>
auto PointwiseMethods<Derived>::kthvalue(int64_t k, int64_t dim, bool keepdim) const {
  return tensorlib::kthvalue(self(), k, dim, keepdim);
}
template <class Derived>
auto PointwiseMethods<Derived>::mode(int64_t dim, bool keepdim) const {
  return tensorlib::mode(self(), dim, keepdim);
}
template <class Derived>
auto PointwiseMethods<Derived>::quantile(double q, std::optional<int64_t> dim, bool keepdim,
                                         std::string_view interpolation) const {
  return tensorlib::quantile(Tensor<value_type_t<Derived>>(self()), q, dim, keepdim, interpolation);
}
template <class Derived>
auto PointwiseMethods<Derived>::nanquantile(double q, std::optional<int64_t> dim, bool keepdim,
                                            std::string_view interpolation) const {
  return tensorlib::nanquantile(Tensor<value_type_t<Derived>>(self()), q, dim, keepdim, interpolation);
}

}  // namespace tensorlib
