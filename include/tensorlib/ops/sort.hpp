#pragma once
/// \file
/// Sorting along a dimension: `sort`, `argsort`, `msort` and `topk`, with
/// PyTorch's CPU semantics.
///
/// Ordering: NaN sorts as larger than +inf (ascending puts NaNs last,
/// descending first); -0.0 and 0.0 are equal. Ties: `stable=true` keeps the
/// original order of equal elements; `stable=false` runs the same unstable
/// algorithm as PyTorch's CPU kernel (std::sort on (value, index) pairs with
/// the comparator above), so the tie order matches PyTorch on CPU too.
/// `topk` reproduces PyTorch's CPU selection (std::partial_sort when
/// k * 64 <= n, else std::nth_element and, when `sorted`, a sort of the first
/// k - 1), so the index returned for tied values is the one PyTorch returns.
/// Results are contiguous. On a GPU, rows are radix-sorted (Note [GPU row
/// sort] in backend/cuda/sort.hpp): ties always keep their input order, and
/// `topk` sorts whole rows and keeps the first k.

#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <utility>
#include <vector>

#include "tensorlib/core/error.hpp"
#include "tensorlib/core/expression.hpp"
#include "tensorlib/core/tensor.hpp"
#include "tensorlib/ops/along_dim.hpp"
#include "tensorlib/ops/evaluate.hpp"
#include "tensorlib/ops/factories.hpp"
#include "tensorlib/ops/values_indices.hpp"

namespace tensorlib {
namespace detail {

/// The rows of `rows` sorted, in the row layout (contiguous, `outer + [n]`).
template <Element T>
ValuesIndices<T> sort_row_layout(const Rows<T>& rows, bool descending, bool stable) {
  auto values = empty<T>(row_result_shape(rows, rows.length), {.device = rows.data.device()});
  auto indices = empty<int64_t>(row_result_shape(rows, rows.length), {.device = rows.data.device()});
  dispatch_sort_rows(rows.data, values, indices, rows.count, rows.length, descending, [&] {
    std::vector<std::pair<T, int64_t>> row(static_cast<std::size_t>(rows.length));
    T* v = values.data_ptr();
    int64_t* ix = indices.data_ptr();
    auto run = [&](auto less) {
      auto by_key = [less](const auto& a, const auto& b) { return less(a.first, b.first); };
      for (int64_t r = 0; r < rows.count; ++r) {
        const T* in = rows.row(r);
        for (int64_t j = 0; j < rows.length; ++j) row[static_cast<std::size_t>(j)] = {in[j], j};
        if (stable)
          std::stable_sort(row.begin(), row.end(), by_key);
        else
          std::sort(row.begin(), row.end(), by_key);
        for (int64_t j = 0; j < rows.length; ++j) {
          v[r * rows.length + j] = row[static_cast<std::size_t>(j)].first;
          ix[r * rows.length + j] = row[static_cast<std::size_t>(j)].second;
        }
      }
    };
    if (descending)
      run(GreaterNanFirst{});
    else
      run(LessNanLast{});
  });
  return {values, indices};
}

template <Element T>
ValuesIndices<T> sort_rows(const Tensor<T>& x, int64_t dim, bool descending, bool stable, const char* op) {
  const Rows<T> rows = rows_along_on_device(x, dim, op);
  const ValuesIndices<T> sorted = sort_row_layout(rows, descending, stable);
  return {from_rows(rows, sorted.values), from_rows(rows, sorted.indices)};
}

template <Element T>
ValuesIndices<T> topk_rows(const Tensor<T>& x, int64_t k, int64_t dim, bool largest, bool sorted) {
  const Rows<T> rows = rows_along_on_device(x, dim, "topk");
  detail::check<IndexError>(k >= 0 && k <= rows.length, "topk: selected index k out of range (expected k in [0, ",
                            rows.length, "] for dimension ", rows.dim, " of size ", rows.length, ", but got k = ", k,
                            ")");
  // A 0-d result cannot be empty: PyTorch returns the element for k = 0 too.
  if (rows.ndim == 0) return {x.clone(), zeros<int64_t>({}, {.device = x.device()})};
  if (!x.is_cpu()) {
    // A GPU sorts whole rows (Note [GPU row sort]) and keeps the first k of
    // each, put back in the input's dimension order by one copy.
    const ValuesIndices<T> all = sort_row_layout(rows, largest, true);
    // from_rows returns a view where the first k already lie in order (one
    // row, or all other sizes 1): copied then, not to keep n elements alive.
    const auto first_k = [&](const auto& whole) {
      auto kept = from_rows(rows, whole.narrow(-1, 0, k));
      return k < rows.length && kept.data_ptr() == whole.data_ptr() ? kept.clone() : kept;
    };
    return {first_k(all.values), first_k(all.indices)};
  }
  auto values = empty<T>(row_result_shape(rows, k));
  auto indices = empty<int64_t>(row_result_shape(rows, k));
  std::vector<std::pair<T, int64_t>> queue(static_cast<std::size_t>(rows.length));
  T* v = values.data_ptr();
  int64_t* ix = indices.data_ptr();
  auto run = [&](auto better) {
    auto by_key = [better](const auto& a, const auto& b) { return better(a.first, b.first); };
    for (int64_t r = 0; r < rows.count && k > 0; ++r) {
      const T* in = rows.row(r);
      for (int64_t j = 0; j < rows.length; ++j) queue[static_cast<std::size_t>(j)] = {in[j], j};
      // The same calls as PyTorch's topk_impl_loop, so ties resolve the same way.
      if (k * 64 <= rows.length) {
        std::partial_sort(queue.begin(), queue.begin() + k, queue.end(), by_key);
      } else {
        std::nth_element(queue.begin(), queue.begin() + k - 1, queue.end(), by_key);
        if (sorted) std::sort(queue.begin(), queue.begin() + k - 1, by_key);
      }
      for (int64_t j = 0; j < k; ++j) {
        v[r * k + j] = queue[static_cast<std::size_t>(j)].first;
        ix[r * k + j] = queue[static_cast<std::size_t>(j)].second;
      }
    }
  };
  if (largest)
    run(GreaterNanFirst{});
  else
    run(LessNanLast{});
  return {from_rows(rows, values), from_rows(rows, indices)};
}

}  // namespace detail

/// `torch.sort(input, dim=-1, descending=False, stable=False)`: the elements
/// of each slice along `dim` in order, and their positions in the input.
/// NaN is larger than +inf; see the file comment for ties.
template <Expression E>
ValuesIndices<value_type_t<E>> sort(const E& input, int64_t dim = -1, bool descending = false, bool stable = false) {
  using T = value_type_t<E>;
  const Tensor<T> x = input;
  if constexpr (differentiable<T>) {
    if (detail::records_grad(x))
      return autograd::record_selection("SortBackward", x, dim, true,
                                        [&](const Tensor<T>& t) { return sort(t, dim, descending, stable); });
  }
  return detail::sort_rows(x, dim, descending, stable, "sort");
}

/// `torch.argsort(input, dim=-1, descending=False, stable=False)`: the
/// indices `sort` returns.
template <Expression E>
Tensor<int64_t> argsort(const E& input, int64_t dim = -1, bool descending = false, bool stable = false) {
  const Tensor<value_type_t<E>> x = input;
  return detail::sort_rows(x, dim, descending, stable, "argsort").indices;
}

/// `torch.msort(input)`: the values of `sort(input, 0)`.
template <Expression E>
Tensor<value_type_t<E>> msort(const E& input) {
  using T = value_type_t<E>;
  const Tensor<T> x = input;
  if constexpr (differentiable<T>) {
    if (detail::records_grad(x))
      return autograd::record_selection("SortBackward", x, 0, true, [](const Tensor<T>& t) { return sort(t, 0); })
          .values;
  }
  return detail::sort_rows(x, 0, false, false, "msort").values;
}

/// `torch.topk(input, k, dim=-1, largest=True, sorted=True)`: the k largest
/// (or smallest) elements of each slice along `dim` and their indices; NaN
/// counts as the largest value. An `IndexError` unless 0 <= k <= size(dim).
/// With `sorted=false` the k results come in PyTorch's (unspecified) order.
template <Expression E>
ValuesIndices<value_type_t<E>> topk(const E& input, int64_t k, int64_t dim = -1, bool largest = true,
                                    bool sorted = true) {
  static_assert(!std::is_same_v<value_type_t<E>, bool>, "tl::topk: bool tensors are not supported (as in PyTorch)");
  using T = value_type_t<E>;
  const Tensor<T> x = input;
  if constexpr (differentiable<T>) {
    if (detail::records_grad(x))
      return autograd::record_selection("TopkBackward", x, dim, true,
                                        [&](const Tensor<T>& t) { return topk(t, k, dim, largest, sorted); });
  }
  return detail::topk_rows(x, k, dim, largest, sorted);
}

template <Element T>
ValuesIndices<T> Tensor<T>::sort(int64_t dim, bool descending, bool stable) const {
  return tl::sort(*this, dim, descending, stable);
}

template <Element T>
Tensor<int64_t> Tensor<T>::argsort(int64_t dim, bool descending, bool stable) const {
  return tl::argsort(*this, dim, descending, stable);
}

template <Element T>
ValuesIndices<T> Tensor<T>::topk(int64_t k, int64_t dim, bool largest, bool sorted) const {
  return tl::topk(*this, k, dim, largest, sorted);
}

}  // namespace tensorlib
