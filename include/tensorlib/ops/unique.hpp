#pragma once
/// \file
/// `unique` and `unique_consecutive`, with or without `dim`, returning a
/// `UniqueResult<T>` (output, inverse_indices, counts).
///
/// Ordering and equality: values are compared with `==` and sorted NaN last;
/// each NaN is distinct from every other value, NaNs included (NaN != NaN),
/// as in PyTorch. -0.0 and 0.0 are the same value; the one kept is the first
/// in the input (`unique`) or in PyTorch's sort order (`unique(dim)`), as in
/// PyTorch. Slices (`dim` given) are compared lexicographically. On a GPU
/// both forms run as tensor ops on x's device (unique_flat,
/// unique_slices_by_sorts); with `dim` the CPU runs host loops.

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <optional>
#include <utility>
#include <vector>

#include "tensorlib/core/error.hpp"
#include "tensorlib/core/expression.hpp"
#include "tensorlib/core/tensor.hpp"
#include "tensorlib/ops/along_dim.hpp"
#include "tensorlib/ops/factories.hpp"
#include "tensorlib/ops/gather_scatter.hpp"
#include "tensorlib/ops/index_ops.hpp"
#include "tensorlib/ops/reduce.hpp"
#include "tensorlib/ops/scan.hpp"
#include "tensorlib/ops/sort.hpp"
#include "tensorlib/ops/values_indices.hpp"

namespace tensorlib {

/// What `unique` and `unique_consecutive` return. `inverse_indices` and
/// `counts` are computed only when asked for (`return_inverse`,
/// `return_counts`); otherwise they are undefined tensors (`defined() ==
/// false`). An aggregate, so `auto [out, inverse, counts] = tl::unique(...)` works.
template <Element T>
struct UniqueResult {
  /// The unique elements (1-d), or the unique slices along `dim`.
  Tensor<T> output;
  /// For each input element (or slice along `dim`), its position in `output`.
  /// Shape of the input without `dim`, or `[size(dim)]` with `dim`.
  Tensor<int64_t> inverse_indices;
  /// How many input elements (or slices) each output element stands for.
  Tensor<int64_t> counts;
};

namespace detail {

/// Fills the requested parts of a result from `groups`: for each output
/// position, the input positions it stands for, in order.
inline void fill_inverse_counts(const std::vector<std::vector<int64_t>>& groups, bool return_inverse,
                                bool return_counts, const Shape& inverse_shape, Tensor<int64_t>& inverse,
                                Tensor<int64_t>& counts) {
  if (return_inverse) {
    inverse = empty<int64_t>(inverse_shape);
    int64_t* p = inverse.data_ptr();
    for (std::size_t g = 0; g < groups.size(); ++g)
      for (int64_t i : groups[g]) p[i] = static_cast<int64_t>(g);
  }
  if (return_counts) {
    counts = empty<int64_t>({static_cast<int64_t>(groups.size())});
    for (std::size_t g = 0; g < groups.size(); ++g) counts.data_ptr()[g] = static_cast<int64_t>(groups[g].size());
  }
}

/// unique / unique_consecutive of all elements (flattened), on x's device,
/// in tensor ops: a stable sort (none for unique_consecutive), a mask of the
/// elements that start a group (each differs from its predecessor; NaN !=
/// NaN, so every NaN is its own group), its running sum as each element's
/// group, and scatters by group for the values (the first element of each
/// group: stability keeps the first occurrence of -0.0 and 0.0), the
/// inverse indices and the counts.
template <Element T>
UniqueResult<T> unique_flat(const Tensor<T>& x, bool consecutive, bool return_inverse, bool return_counts,
                            const char* op) {
  const TensorOptions on{.device = x.device()};
  const int64_t n = x.numel();
  UniqueResult<T> r;
  if (n == 0) {
    r.output = empty<T>({0}, on);
    if (return_inverse) r.inverse_indices = empty<int64_t>(x.sizes(), on);
    if (return_counts) r.counts = empty<int64_t>({0}, on);
    return r;
  }
  const Tensor<T> flat = x.detach().reshape({n});  // unique is not differentiable
  ValuesIndices<T> sorted{flat, Tensor<int64_t>()};
  if (!consecutive) sorted = sort_rows(flat, 0, false, true, op);
  const Tensor<T>& v = sorted.values;
  auto starts = empty<bool>({n}, on);
  starts.narrow(0, 0, 1).fill_(true);
  if (n > 1) starts.narrow(0, 1, n - 1) = v.narrow(0, 1, n - 1) != v.narrow(0, 0, n - 1);
  const Tensor<int64_t> group = cumsum(starts, 0) - int64_t{1};
  const int64_t groups = group.narrow(0, n - 1, 1).item() + 1;
  // A group's first element writes its slot; the others the extra slot `groups`.
  const Tensor<int64_t> slot = where(starts, group, groups);
  // Scattered in place: the buffers' unwritten bytes (the dump slot may stay
  // unwritten) are never read, which a copying scatter would do.
  auto values = empty<T>({groups + 1}, on);
  values.scatter_(0, slot, v);
  r.output = values.narrow(0, 0, groups).clone();
  if (return_inverse && consecutive) r.inverse_indices = group.reshape(x.sizes());
  if (return_inverse && !consecutive) {
    r.inverse_indices = empty<int64_t>({n}, on);
    r.inverse_indices.scatter_(0, sorted.indices, group);
    r.inverse_indices = r.inverse_indices.reshape(x.sizes());
  }
  if (return_counts) r.counts = scatter_add(zeros<int64_t>({groups}, on), 0, group, ones<int64_t>({n}, on));
  return r;
}

/// The slices along `dim` as the rows of a contiguous [n, len] matrix, and
/// the permutation that moved `dim` first.
template <Element T>
std::pair<Tensor<T>, Shape> slices_as_rows(const Tensor<T>& x, int64_t dim) {
  Shape order_dims{dim};
  for (int64_t d = 0; d < x.dim(); ++d)
    if (d != dim) order_dims.push_back(d);
  return {x.permute(order_dims).contiguous(), order_dims};
}

/// Rows [groups, len] of the moved layout back in the input's layout.
template <Element T>
Tensor<T> rows_as_slices(const Tensor<T>& rows, Shape moved_sizes, const Shape& order_dims) {
  moved_sizes[0] = rows.size(0);
  Shape inverse_order = Shape::filled(order_dims.size(), 0);
  for (int64_t i = 0; i < order_dims.size(); ++i) inverse_order[order_dims[i]] = i;
  return rows.reshape(moved_sizes).permute(inverse_order).contiguous();
}

/// unique / unique_consecutive of the slices along `dim` on x's device in
/// tensor ops (the GPU's path; the CPU runs the loops of unique_slices, and
/// the tests run this one there too): the slices as rows, ordered
/// lexicographically by one stable sort per column from the last to the
/// first (a least-significant-digit radix sort whose digits are the
/// columns, NaN last), then grouped as unique_flat groups elements (a row
/// starts a group when any element differs from the previous row's; NaN !=
/// NaN), the first row of each group kept. Slices equal but for the sign of
/// a zero are one group, represented by its first slice in the stable order
/// (PyTorch's std::sort may keep another). Its cost grows with the slice
/// width (a sort and two gathers per column): suited to narrow slices;
/// PyTorch's CUDA kernel sorts once with a comparator over whole rows.
template <Element T>
UniqueResult<T> unique_slices_by_sorts(const Tensor<T>& x, int64_t dim, bool consecutive, bool return_inverse,
                                       bool return_counts) {
  const TensorOptions on{.device = x.device()};
  const auto [moved, order_dims] = slices_as_rows(x.detach(), dim);
  const int64_t n = moved.size(0), len = moved.numel() / n;
  const Tensor<T> matrix = moved.reshape({n, len});
  Tensor<int64_t> order = arange(int64_t{0}, n, on);
  if (!consecutive) {
    for (int64_t c = len - 1; c >= 0; --c) {
      const Tensor<T> key = index_select(matrix.select(1, c), 0, order);
      order = index_select(order, 0, argsort(key, 0, false, true));
    }
  }
  const Tensor<T> rows = index_select(matrix, 0, order);
  auto starts = ones<bool>({n}, on);
  if (n > 1) starts.narrow(0, 1, n - 1).copy_(any(rows.narrow(0, 1, n - 1) != rows.narrow(0, 0, n - 1), {1}));
  const Tensor<int64_t> group = cumsum(starts, 0) - int64_t{1};
  const Tensor<int64_t> firsts = nonzero(starts).reshape({-1});
  UniqueResult<T> r;
  r.output = rows_as_slices(index_select(rows, 0, firsts), moved.sizes(), order_dims);
  if (return_inverse) {
    r.inverse_indices = empty<int64_t>({n}, on);
    r.inverse_indices.scatter_(0, order, group);
  }
  if (return_counts) r.counts = scatter_add(zeros<int64_t>({firsts.numel()}, on), 0, group, ones<int64_t>({n}, on));
  return r;
}

/// unique / unique_consecutive of the slices along `dim` (PyTorch's
/// _unique_dim_cpu_template: slices sorted lexicographically with std::sort).
template <Element T>
UniqueResult<T> unique_slices(const Tensor<T>& x, int64_t dim_, bool consecutive, bool return_inverse,
                              bool return_counts, const char* op) {
  detail::check<IndexError>(x.dim() > 0, op, ": Dimension specified as ", dim_, " but tensor has no dimensions");
  const int64_t dim = wrap_dim(dim_, x.dim(), op);
  const auto zero_dims = std::count(x.sizes().begin(), x.sizes().end(), int64_t{0});
  UniqueResult<T> r;
  if (x.size(dim) == 0) {
    detail::check<ValueError>(zero_dims == 1, op,
                              ": Number of zero sized dimensions is more than one, so unique cannot be applied");
    r.output = empty<T>(x.sizes(), {.device = x.device()});
    if (return_inverse) r.inverse_indices = empty<int64_t>({0}, {.device = x.device()});
    if (return_counts) r.counts = empty<int64_t>({0}, {.device = x.device()});
    return r;
  }
  detail::check<ValueError>(zero_dims == 0, op,
                            ": There are 0 sized dimensions, and they aren't selected, so unique cannot be applied");
  if (!x.is_cpu()) return unique_slices_by_sorts(x, dim, consecutive, return_inverse, return_counts);
  // Slice s is row s of `moved`: `dim` moved first, the rest flattened.
  const auto [moved, order_dims] = slices_as_rows(x, dim);
  const int64_t n = x.size(dim), len = x.numel() / n;
  const T* data = moved.data_ptr();
  auto less = [&](int64_t a, int64_t b) {
    for (int64_t i = 0; i < len; ++i) {
      const T l = data[a * len + i], h = data[b * len + i];
      if (LessNanLast{}(l, h)) return true;
      if (LessNanLast{}(h, l)) return false;
    }
    return false;
  };
  auto equal = [&](int64_t a, int64_t b) {
    for (int64_t i = 0; i < len; ++i)
      if (!(data[a * len + i] == data[b * len + i])) return false;
    return true;
  };
  std::vector<int64_t> order(static_cast<std::size_t>(n));
  std::iota(order.begin(), order.end(), int64_t{0});
  if (!consecutive) std::sort(order.begin(), order.end(), less);
  std::vector<std::vector<int64_t>> groups;
  for (std::size_t i = 0; i < order.size(); ++i) {
    if (i == 0 || !equal(order[i], groups.back().front())) groups.emplace_back();
    groups.back().push_back(order[i]);
  }
  auto out = empty<T>({static_cast<int64_t>(groups.size()), len});
  for (std::size_t g = 0; g < groups.size(); ++g)
    std::copy(data + groups[g].front() * len, data + (groups[g].front() + 1) * len,
              out.data_ptr() + static_cast<int64_t>(g) * len);
  r.output = rows_as_slices(out, moved.sizes(), order_dims);
  fill_inverse_counts(groups, return_inverse, return_counts, {n}, r.inverse_indices, r.counts);
  return r;
}

}  // namespace detail

/// `torch.unique(input, sorted=True, return_inverse=False,
/// return_counts=False, dim=None)`: the distinct elements in ascending order
/// (NaN last, each NaN kept), or with `dim` the distinct slices along `dim`
/// in lexicographic order. `sorted=false` also returns them sorted (PyTorch
/// leaves that order unspecified).
template <Expression E>
UniqueResult<value_type_t<E>> unique(const E& input, bool /*sorted*/ = true, bool return_inverse = false,
                                     bool return_counts = false, std::optional<int64_t> dim = std::nullopt) {
  const Tensor<value_type_t<E>> x = input;
  if (dim) return detail::unique_slices(x, *dim, false, return_inverse, return_counts, "unique");
  return detail::unique_flat(x, false, return_inverse, return_counts, "unique");
}

/// `torch.unique_consecutive(input, return_inverse=False,
/// return_counts=False, dim=None)`: keeps the first element (or slice along
/// `dim`) of every run of equal consecutive ones.
template <Expression E>
UniqueResult<value_type_t<E>> unique_consecutive(const E& input, bool return_inverse = false,
                                                 bool return_counts = false,
                                                 std::optional<int64_t> dim = std::nullopt) {
  const Tensor<value_type_t<E>> x = input;
  if (dim) return detail::unique_slices(x, *dim, true, return_inverse, return_counts, "unique_consecutive");
  return detail::unique_flat(x, true, return_inverse, return_counts, "unique_consecutive");
}

template <class Derived>
auto PointwiseMethods<Derived>::unique(bool sorted, bool return_inverse, bool return_counts,
                                       std::optional<int64_t> dim) const {
  return tensorlib::unique(self(), sorted, return_inverse, return_counts, dim);
}

}  // namespace tensorlib
