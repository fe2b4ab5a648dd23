#pragma once
/// \file
/// Reductions: `sum, nansum, mean, nanmean, prod, amax, amin, max, min,
/// argmax, argmin, all, any, count_nonzero, norm, var, std, var_mean,
/// std_mean, logsumexp` over all elements, one dimension or a list of them,
/// with `keepdim`. Every one of them consumes a pointwise expression directly:
/// `((p - y) * (p - y)).mean()` computes the expression block by block inside
/// the reduction loop and never materializes it (backend/cpu/reduce.hpp).
/// Composite reductions are written as reductions of expressions: `norm` is
/// `sum(abs(x)^p)^(1/p)`, `var` is `sum(square(x - mean))`, `logsumexp` is
/// `log(sum(exp(x - amax)))`: two passes over the input, no temporaries.
/// Result types follow PyTorch: integer and bool sums and products give int64,
/// `all`/`any` give bool, `argmax`/`count_nonzero` int64.

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

#include "tensorlib/backend/cpu/reduce.hpp"
#include "tensorlib/backend/cpu/simd.hpp"
#include "tensorlib/core/dim_list.hpp"
#include "tensorlib/core/error.hpp"
#include "tensorlib/core/shape.hpp"
#include "tensorlib/core/tensor.hpp"
#include "tensorlib/expr/functions.hpp"
#include "tensorlib/expr/operators.hpp"
#include "tensorlib/ops/dispatch.hpp"
#include "tensorlib/ops/evaluate.hpp"
#include "tensorlib/ops/factories.hpp"
#include "tensorlib/ops/reducers.hpp"
#include "tensorlib/ops/values_indices.hpp"
#include "tensorlib/ops/views.hpp"

namespace tensorlib {
namespace autograd {

// The recording forms of sum and mean (autograd/reduction_backward.hpp).
template <Expression E>
Tensor<value_type_t<E>> sum(const E& x, DimList dims, bool keepdim);
template <Expression E>
Tensor<value_type_t<E>> mean(const E& x, DimList dims, bool keepdim);
// prod's (autograd/scan_backward.hpp).
template <Element T>
Tensor<T> prod(const Tensor<T>& x, DimList dims, bool keepdim);
// norm's (autograd/reduction_backward.hpp).
template <Element T>
Tensor<T> norm(const Tensor<T>& x, double p, DimList dims, bool keepdim);

}  // namespace autograd
namespace detail {

// ---- shapes ----

/// The reduced dimensions of a tensor of `ndim` dims as a bit mask; all of
/// them when `dims` is empty or absent. Duplicates are an error.
inline uint32_t reduce_mask(const DimList& dims, int64_t ndim, const char* op) {
  if (dims.dims().empty()) return ndim == 0 ? 0u : (ndim >= 32 ? ~0u : (1u << ndim) - 1);
  uint32_t mask = 0;
  for (int64_t d : dims.dims()) {
    const int64_t w = wrap_dim(d, ndim, op);
    detail::check<ValueError>(!(mask >> w & 1u), op, ": dim ", w, " appears multiple times in the list of dims");
    mask |= 1u << w;
  }
  return ndim == 0 ? 0u : mask;
}

/// Output shape: reduced dims removed, or kept as 1 with `keepdim`.
inline Shape reduced_shape(const Shape& shape, uint32_t mask, bool keepdim) {
  Shape out;
  for (int64_t d = 0; d < shape.size(); ++d) {
    if (!(mask >> d & 1u))
      out.push_back(shape[d]);
    else if (keepdim)
      out.push_back(1);
  }
  return out;
}

/// Number of elements folded into each output element.
inline int64_t reduced_count(const Shape& shape, uint32_t mask) {
  int64_t n = 1;
  for (int64_t d = 0; d < shape.size(); ++d)
    if (mask >> d & 1u) n *= shape[d];
  return n;
}

/// Runs reducer R over `x` and converts each accumulator with `finish`.
template <class R, Element Out, class E, class F>
Tensor<Out> reduce(const E& x, const DimList& dims, bool keepdim, const char* op, F finish) {
  refuse_untracked_grad<Out>(op, x);
  const Shape shape = x.shape();
  const uint32_t mask = reduce_mask(dims, shape.size(), op);
  auto out = empty<Out>(reduced_shape(shape, mask, keepdim), {.device = x.device()});
  dispatch_reduce<R>(out, x, mask, finish, [&] {
    std::vector<typename R::acc_type> acc(static_cast<std::size_t>(out.numel()), R::identity());
    cpu::run_reduce<R>(x, shape, mask, acc.data());
    Out* o = out.data_ptr();
    for (std::size_t i = 0; i < acc.size(); ++i) o[i] = finish(acc[i]);
  });
  return out;
}

/// amax/amin/max/min need a non-empty reduction (PyTorch's wording: `op`,
/// then `separator`, which aminmax's message makes ": ").
inline void check_nonempty_reduction(const Shape& shape, uint32_t mask, const char* op, bool has_dim,
                                     const char* separator = "(): ") {
  if (!has_dim) {
    detail::check<IndexError>(shape.numel() != 0, op, separator,
                              "Expected reduction dim to be specified for input.numel() == 0. Specify the "
                              "reduction dim with the 'dim' argument.");
    return;
  }
  for (int64_t d = 0; d < shape.size(); ++d)
    detail::check<IndexError>(!(mask >> d & 1u) || shape[d] != 0, op, separator, "Expected reduction dim ", d,
                              " to have non-zero size.");
}

template <Expression E>
constexpr void require_floating(const char* /*op*/) {
  static_assert(is_floating<value_type_t<E>>,
                "this reduction needs a floating-point input (PyTorch: 'could not infer output dtype'); convert "
                "it with .to<float>() first");
}

}  // namespace detail

/// Sum of all elements, or over `dims` (`keepdim` keeps them as size 1).
/// Integer and bool inputs give int64.
template <Expression E>
Tensor<detail::sum_result_t<value_type_t<E>>> sum(const E& x, DimList dims = {}, bool keepdim = false) {
  using T = value_type_t<E>;
  if constexpr (differentiable<T>) {
    if (detail::records_grad(x)) return autograd::sum(x, dims, keepdim);
  }
  using R = detail::SumReducer<T>;
  return detail::reduce<R, detail::sum_result_t<T>>(x, dims, keepdim, "sum",
                                                    detail::Convert<detail::sum_result_t<T>>{});
}

/// Sum treating NaN as zero.
template <Expression E>
auto nansum(const E& x, DimList dims = {}, bool keepdim = false) {
  if constexpr (is_floating<value_type_t<E>>)
    return sum(detail::where_multiplying(isnan(x), value_type_t<E>(0), x), dims, keepdim);  // grad * !isnan(x)
  else
    return sum(x, dims, keepdim);
}

/// Product of the elements. Integer and bool inputs give int64.
template <Expression E>
Tensor<detail::sum_result_t<value_type_t<E>>> prod(const E& x, DimList dims = {}, bool keepdim = false) {
  using T = value_type_t<E>;
  if constexpr (differentiable<T>) {
    if (detail::records_grad(x)) return autograd::prod(Tensor<T>(x), dims, keepdim);
  }
  using R = detail::ProdReducer<T>;
  return detail::reduce<R, detail::sum_result_t<T>>(x, dims, keepdim, "prod",
                                                    detail::Convert<detail::sum_result_t<T>>{});
}

/// Arithmetic mean (floating-point inputs only, as in PyTorch). The mean of
/// no elements is NaN.
template <Expression E>
Tensor<value_type_t<E>> mean(const E& x, DimList dims = {}, bool keepdim = false) {
  using T = value_type_t<E>;
  detail::require_floating<E>("mean");
  if constexpr (differentiable<T>) {
    if (detail::records_grad(x)) return autograd::mean(x, dims, keepdim);
  }
  using R = detail::SumReducer<T>;
  const Shape shape = x.shape();
  const double n = static_cast<double>(detail::reduced_count(shape, detail::reduce_mask(dims, shape.size(), "mean")));
  return detail::reduce<R, T>(x, dims, keepdim, "mean", detail::DivideBy<T>{n});
}

/// Mean of the non-NaN elements.
template <Expression E>
Tensor<value_type_t<E>> nanmean(const E& x, DimList dims = {}, bool keepdim = false) {
  using T = value_type_t<E>;
  detail::require_floating<E>("nanmean");
  const auto total = nansum(x, dims, keepdim);
  const auto count = sum(logical_not(isnan(x)), dims, keepdim);
  return Tensor<T>(total / count.template to<T>());
}

/// Largest element(s), NaN if any is NaN (PyTorch's amax). Needs a non-empty reduction.
template <Expression E>
Tensor<value_type_t<E>> amax(const E& x, DimList dims = {}, bool keepdim = false) {
  using T = value_type_t<E>;
  if constexpr (differentiable<T>) {
    if (detail::records_grad(x))
      return autograd::record_evenly("AmaxBackward", Tensor<T>(x), dims, false,
                                     [&](const Tensor<T>& t) { return amax(t, dims, keepdim); });
  }
  using R = detail::ExtremumReducer<T, true>;
  detail::check_nonempty_reduction(x.shape(), detail::reduce_mask(dims, x.dim(), "amax"), "amax", true);
  return detail::reduce<R, T>(x, dims, keepdim, "amax", detail::Convert<T>{});
}

/// Smallest element(s), NaN if any is NaN (PyTorch's amin).
template <Expression E>
Tensor<value_type_t<E>> amin(const E& x, DimList dims = {}, bool keepdim = false) {
  using T = value_type_t<E>;
  if constexpr (differentiable<T>) {
    if (detail::records_grad(x))
      return autograd::record_evenly("AminBackward", Tensor<T>(x), dims, false,
                                     [&](const Tensor<T>& t) { return amin(t, dims, keepdim); });
  }
  using R = detail::ExtremumReducer<T, false>;
  detail::check_nonempty_reduction(x.shape(), detail::reduce_mask(dims, x.dim(), "amin"), "amin", true);
  return detail::reduce<R, T>(x, dims, keepdim, "amin", detail::Convert<T>{});
}

/// True when every element (over `dims`) is non-zero.
template <Expression E>
Tensor<bool> all(const E& x, DimList dims = {}, bool keepdim = false) {
  using R = detail::LogicalReducer<value_type_t<E>, true>;
  return detail::reduce<R, bool>(x, dims, keepdim, "all", detail::Convert<bool>{});
}

/// True when some element (over `dims`) is non-zero.
template <Expression E>
Tensor<bool> any(const E& x, DimList dims = {}, bool keepdim = false) {
  using R = detail::LogicalReducer<value_type_t<E>, false>;
  return detail::reduce<R, bool>(x, dims, keepdim, "any", detail::Convert<bool>{});
}

/// Number of non-zero elements (over `dims`, never kept), as int64.
template <Expression E>
Tensor<int64_t> count_nonzero(const E& x, DimList dims = {}) {
  using R = detail::CountNonzeroReducer<value_type_t<E>>;
  return detail::reduce<R, int64_t>(x, dims, false, "count_nonzero", detail::Convert<int64_t>{});
}

/// Vector p-norm over all elements or `dims` (PyTorch's `torch.norm` with a
/// numeric p / `linalg.vector_norm`): p = 2 (default), 1, inf, -inf, 0
/// (count of non-zeros) or any other real p.
template <Expression E>
Tensor<value_type_t<E>> norm(const E& x, double p = 2, DimList dims = {}, bool keepdim = false) {
  using T = value_type_t<E>;
  detail::require_floating<E>("norm");
  if constexpr (differentiable<T>) {
    if (detail::records_grad(x)) return autograd::norm(Tensor<T>(x), p, dims, keepdim);
  }
  if (p == 2) return Tensor<T>(sqrt(sum(square(x), dims, keepdim)));
  if (p == 1) return sum(abs(x), dims, keepdim);
  if (std::isinf(p)) {
    // PyTorch gives 0 for the inf-norms of an empty input.
    if (x.numel() == 0 && dims.dims().empty()) return zeros<T>({}, {.device = x.device()});
    return p > 0 ? amax(abs(x), dims, keepdim) : amin(abs(x), dims, keepdim);
  }
  if (p == 0) return sum(ne(x, T(0)).template to<T>(), dims, keepdim);
  return Tensor<T>(pow(sum(pow(abs(x), static_cast<T>(p)), dims, keepdim), static_cast<T>(1 / p)));
}

/// Variance with Bessel's correction by default (`correction` = 1; 0 gives
/// the population variance). Two passes: the mean, then the squared deviations.
/// Fewer elements than `correction` + 1 give NaN or inf, as in PyTorch.
template <Expression E>
Tensor<value_type_t<E>> var(const E& x, DimList dims = {}, int64_t correction = 1, bool keepdim = false) {
  using T = value_type_t<E>;
  detail::require_floating<E>("var");
  const Shape shape = x.shape();
  const int64_t n = detail::reduced_count(shape, detail::reduce_mask(dims, shape.size(), "var"));
  const auto m = mean(x, dims, true);
  const auto ss = sum(square(x - m), dims, keepdim);
  const T denom = static_cast<T>(std::max<int64_t>(n - correction, 0));
  return Tensor<T>(ss / denom);
}

/// Standard deviation: `sqrt(var(x, dims, correction, keepdim))`.
template <Expression E>
Tensor<value_type_t<E>> std(const E& x, DimList dims = {}, int64_t correction = 1, bool keepdim = false) {
  return Tensor<value_type_t<E>>(sqrt(var(x, dims, correction, keepdim)));
}

/// A pair of results, as PyTorch's `(var, mean)` / `(std, mean)` tuples.
template <Element T>
struct TensorPair {
  Tensor<T> first;
  Tensor<T> second;
};

/// `(var, mean)` in one call.
template <Expression E>
TensorPair<value_type_t<E>> var_mean(const E& x, DimList dims = {}, int64_t correction = 1, bool keepdim = false) {
  return {var(x, dims, correction, keepdim), mean(x, dims, keepdim)};
}

/// `(std, mean)` in one call.
template <Expression E>
TensorPair<value_type_t<E>> std_mean(const E& x, DimList dims = {}, int64_t correction = 1, bool keepdim = false) {
  return {std(x, dims, correction, keepdim), mean(x, dims, keepdim)};
}

/// `log(sum(exp(x)))` over `dims`, computed stably as
/// `m + log(sum(exp(x - m)))` with `m = amax(x)` (infinite maxima handled as PyTorch).
template <Expression E>
Tensor<value_type_t<E>> logsumexp(const E& x, DimList dims, bool keepdim = false) {
  using T = value_type_t<E>;
  detail::require_floating<E>("logsumexp");
  if (x.numel() == 0) return Tensor<T>(log(sum(exp(x), dims, keepdim)));
  const auto m = amax(x, dims, true);
  const Tensor<T> shift = where(isinf(m), T(0), m);
  const auto s = sum(exp(x - shift), dims, keepdim);
  if (keepdim) return Tensor<T>(log(s) + shift);
  return Tensor<T>(log(s) + shift.view(s.sizes()));
}

namespace detail {

/// A contiguous tensor seen as [outer, n, inner] around dimension `dim`.
struct AlongDim {
  int64_t outer = 1, n = 1, inner = 1;
};

inline AlongDim along_dim(const Shape& shape, int64_t dim) {
  AlongDim a;
  for (int64_t d = 0; d < shape.size(); ++d) {
    if (d < dim) a.outer *= shape[d];
    if (d == dim) a.n = shape[d];
    if (d > dim) a.inner *= shape[d];
  }
  return a;
}

/// Note [selections from reductions]
/// max/min along a dimension (and argmax/argmin) return an index, which
/// the reduction kernels (identity/step/merge over values) do not carry. On
/// a GPU they are composed from three reductions instead of a kernel of
/// their own; each reads the input once, so the cost is about three times a
/// plain amax. The CPU keeps its one-pass loop; the tests run this path on
/// the CPU against PyTorch's fixtures.
///
/// `extremum_along` from reductions, on any device: the extremum of each slice (amax/amin: NaN if the slice has
/// one), the first position holding it (amin over the positions that match,
/// n where none does; a NaN matches a NaN extremum), and the element at that
/// position (a third reduction over the slice with every other element
/// replaced by the reduction's identity, so -0.0 and NaN payloads are the
/// input's). Three passes, each one fused kernel on a GPU.
template <bool Max, Element T>
ValuesIndices<T> extremum_by_reductions(const Tensor<T>& x, int64_t d, const Shape& out_shape) {
  const Tensor<T> xs = x.dim() == 0 ? x.reshape({1}) : x;
  const int64_t n = xs.size(d);
  Shape at = Shape::filled(xs.dim(), 1);
  at[d] = n;
  const Tensor<int64_t> position = arange(int64_t{0}, n, TensorOptions{.device = x.device()}).reshape(at);
  const Tensor<T> best = Max ? amax(xs, {d}, true) : amin(xs, {d}, true);
  Tensor<int64_t> first;
  if constexpr (is_floating<T>)
    first = amin(where((xs == best) | (isnan(xs) & isnan(best)), position, n), {d}, true);
  else
    first = amin(where(xs == best, position, n), {d}, true);
  // The reduction's identity: -inf/inf for floating types (as float for the
  // 16-bit ones, a C++ scalar), the type's limits otherwise.
  using S = std::conditional_t<is_reduced_float<T>, float, T>;
  S fill;
  if constexpr (is_floating<T>)
    fill = Max ? -std::numeric_limits<S>::infinity() : std::numeric_limits<S>::infinity();
  else
    fill = Max ? std::numeric_limits<T>::lowest() : std::numeric_limits<T>::max();
  const auto only_first = where(position == first, xs, fill);
  const Tensor<T> values = Max ? amax(only_first, {d}, true) : amin(only_first, {d}, true);
  return {values.reshape(out_shape), first.reshape(out_shape)};
}

/// Values and indices of the max (Max) or min along `dim`: the first
/// occurrence on ties, the first NaN if there is one (PyTorch). On a GPU,
/// from reductions (`extremum_by_reductions`).
template <bool Max, Element T>
ValuesIndices<T> extremum_along(const Tensor<T>& x, int64_t dim, bool keepdim, const char* op) {
  const int64_t d = wrap_dim(dim, x.dim(), op);
  const Shape shape = x.dim() == 0 ? Shape{1} : x.shape();
  detail::check<IndexError>(shape[d] != 0, op, "(): Expected reduction dim ", d, " to have non-zero size.");
  Shape out_shape = x.dim() == 0 ? Shape{} : reduced_shape(shape, 1u << d, keepdim);
  if (!x.is_cpu()) return extremum_by_reductions<Max>(x, d, out_shape);
  auto values = empty<T>(out_shape, {.device = x.device()});
  auto indices = empty<int64_t>(out_shape, {.device = x.device()});
  const auto c = x.contiguous();
  const AlongDim a = along_dim(shape, d);
  using R = ExtremumReducer<T, Max>;
  const T* src = c.data_ptr();
  T* best = values.data_ptr();
  int64_t* bi = indices.data_ptr();
  for (int64_t o = 0; o < a.outer; ++o) {
    T* bv = best + o * a.inner;
    int64_t* bx = bi + o * a.inner;
    for (int64_t k = 0; k < a.inner; ++k) {
      bv[k] = src[o * a.n * a.inner + k];
      bx[k] = 0;
    }
    for (int64_t j = 1; j < a.n; ++j) {
      const T* row = src + (o * a.n + j) * a.inner;
      for (int64_t k = 0; k < a.inner; ++k) {
        if (R::better(static_cast<typename R::acc_type>(row[k]), static_cast<typename R::acc_type>(bv[k]))) {
          bv[k] = row[k];
          bx[k] = j;
        }
      }
    }
  }
  return {values, indices};
}

}  // namespace detail

/// Largest element (0-d; NaN if any is NaN). Errors on an empty input.
template <Expression E>
Tensor<value_type_t<E>> max(const E& x) {
  using T = value_type_t<E>;
  if constexpr (differentiable<T>) {
    if (detail::records_grad(x))
      return autograd::record_evenly("MaxBackward", Tensor<T>(x), {}, true, [](const Tensor<T>& t) { return max(t); });
  }
  detail::check_nonempty_reduction(x.shape(), 0, "max", false);
  return amax(x);
}

/// Largest values along `dim` and their indices (first occurrence on ties,
/// first NaN if any), as `auto [values, indices] = tl::max(x, 1);`.
template <Expression E>
ValuesIndices<value_type_t<E>> max(const E& x, int64_t dim, bool keepdim = false) {
  using T = value_type_t<E>;
  if constexpr (differentiable<T>) {
    if (detail::records_grad(x))
      return autograd::record_selection("MaxBackward", Tensor<T>(x), dim, keepdim,
                                        [&](const Tensor<T>& t) { return max(t, dim, keepdim); });
  }
  return detail::extremum_along<true>(Tensor<T>(x), dim, keepdim, "max");
}

/// Smallest element (0-d; NaN if any is NaN). Errors on an empty input.
template <Expression E>
Tensor<value_type_t<E>> min(const E& x) {
  using T = value_type_t<E>;
  if constexpr (differentiable<T>) {
    if (detail::records_grad(x))
      return autograd::record_evenly("MinBackward", Tensor<T>(x), {}, true, [](const Tensor<T>& t) { return min(t); });
  }
  detail::check_nonempty_reduction(x.shape(), 0, "min", false);
  return amin(x);
}

/// Smallest values along `dim` and their indices.
template <Expression E>
ValuesIndices<value_type_t<E>> min(const E& x, int64_t dim, bool keepdim = false) {
  using T = value_type_t<E>;
  if constexpr (differentiable<T>) {
    if (detail::records_grad(x))
      return autograd::record_selection("MinBackward", Tensor<T>(x), dim, keepdim,
                                        [&](const Tensor<T>& t) { return min(t, dim, keepdim); });
  }
  return detail::extremum_along<false>(Tensor<T>(x), dim, keepdim, "min");
}

/// Index of the largest element of the flattened input, or along `dim`.
template <Expression E>
Tensor<int64_t> argmax(const E& x, std::optional<int64_t> dim = std::nullopt, bool keepdim = false) {
  using T = value_type_t<E>;
  if (dim) return detail::extremum_along<true>(Tensor<T>(x), *dim, keepdim, "argmax").indices;
  detail::check_nonempty_reduction(x.shape(), 0, "argmax", false);
  auto r = detail::extremum_along<true>(Tensor<T>(x).reshape({-1}), 0, false, "argmax").indices;
  return keepdim ? r.view(Shape::filled(x.dim(), 1)) : r;
}

/// Index of the smallest element of the flattened input, or along `dim`.
template <Expression E>
Tensor<int64_t> argmin(const E& x, std::optional<int64_t> dim = std::nullopt, bool keepdim = false) {
  using T = value_type_t<E>;
  if (dim) return detail::extremum_along<false>(Tensor<T>(x), *dim, keepdim, "argmin").indices;
  detail::check_nonempty_reduction(x.shape(), 0, "argmin", false);
  auto r = detail::extremum_along<false>(Tensor<T>(x).reshape({-1}), 0, false, "argmin").indices;
  return keepdim ? r.view(Shape::filled(x.dim(), 1)) : r;
}

template <Element T>
Tensor<T> Tensor<T>::sum_to_size(const Shape& size) const {
  const int64_t lead = dim() - size.size();
  bool expandable = lead >= 0;
  std::vector<int64_t> dims;
  for (int64_t d = 0; expandable && d < dim(); ++d) {
    if (d >= lead && size[d - lead] == this->size(d)) continue;
    if (d >= lead) expandable = size[d - lead] == 1;
    dims.push_back(d);
  }
  detail::check<ShapeError>(expandable, "sum_to_size: size ", size, " is not expandable to size ", sizes());
  if (dims.empty()) return *this;  // nothing was broadcast
  return tensorlib::sum(*this, DimList(dims), /*keepdim=*/true).reshape(size).template to<T>();
}

// Method forms (declared in core/pointwise_methods.hpp).
template <class Derived>
auto PointwiseMethods<Derived>::sum(DimList dims, bool keepdim) const {
  return tensorlib::sum(self(), dims, keepdim);
}
template <class Derived>
auto PointwiseMethods<Derived>::nansum(DimList dims, bool keepdim) const {
  return tensorlib::nansum(self(), dims, keepdim);
}
template <class Derived>
auto PointwiseMethods<Derived>::mean(DimList dims, bool keepdim) const {
  return tensorlib::mean(self(), dims, keepdim);
}
template <class Derived>
auto PointwiseMethods<Derived>::nanmean(DimList dims, bool keepdim) const {
  return tensorlib::nanmean(self(), dims, keepdim);
}
template <class Derived>
auto PointwiseMethods<Derived>::prod(DimList dims, bool keepdim) const {
  return tensorlib::prod(self(), dims, keepdim);
}
template <class Derived>
auto PointwiseMethods<Derived>::amax(DimList dims, bool keepdim) const {
  return tensorlib::amax(self(), dims, keepdim);
}
template <class Derived>
auto PointwiseMethods<Derived>::amin(DimList dims, bool keepdim) const {
  return tensorlib::amin(self(), dims, keepdim);
}
template <class Derived>
auto PointwiseMethods<Derived>::all(DimList dims, bool keepdim) const {
  return tensorlib::all(self(), dims, keepdim);
}
template <class Derived>
auto PointwiseMethods<Derived>::any(DimList dims, bool keepdim) const {
  return tensorlib::any(self(), dims, keepdim);
}
template <class Derived>
auto PointwiseMethods<Derived>::count_nonzero(DimList dims) const {
  return tensorlib::count_nonzero(self(), dims);
}
template <class Derived>
auto PointwiseMethods<Derived>::norm(double p, DimList dims, bool keepdim) const {
  return tensorlib::norm(self(), p, dims, keepdim);
}
template <class Derived>
auto PointwiseMethods<Derived>::var(DimList dims, int64_t correction, bool keepdim) const {
  return tensorlib::var(self(), dims, correction, keepdim);
}
template <class Derived>
auto PointwiseMethods<Derived>::std(DimList dims, int64_t correction, bool keepdim) const {
  return tensorlib::std(self(), dims, correction, keepdim);
}
template <class Derived>
auto PointwiseMethods<Derived>::logsumexp(DimList dims, bool keepdim) const {
  return tensorlib::logsumexp(self(), dims, keepdim);
}
template <class Derived>
auto PointwiseMethods<Derived>::max() const {
  return tensorlib::max(self());
}
template <class Derived>
auto PointwiseMethods<Derived>::max(int64_t dim, bool keepdim) const {
  return tensorlib::max(self(), dim, keepdim);
}
template <class Derived>
auto PointwiseMethods<Derived>::min() const {
  return tensorlib::min(self());
}
template <class Derived>
auto PointwiseMethods<Derived>::min(int64_t dim, bool keepdim) const {
  return tensorlib::min(self(), dim, keepdim);
}
template <class Derived>
auto PointwiseMethods<Derived>::argmax(std::optional<int64_t> dim, bool keepdim) const {
  return tensorlib::argmax(self(), dim, keepdim);
}
template <class Derived>
auto PointwiseMethods<Derived>::argmin(std::optional<int64_t> dim, bool keepdim) const {
  return tensorlib::argmin(self(), dim, keepdim);
}
}  // namespace tensorlib
