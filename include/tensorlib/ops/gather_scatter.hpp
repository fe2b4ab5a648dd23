#pragma once
/// \file
/// Gathers and scatters along one dimension with an index tensor of the same
/// rank: `gather`, `scatter` (tensor or value source, optional reduce "add" /
/// "multiply"), `scatter_add` and `scatter_reduce` ("sum", "prod", "mean",
/// "amax", "amin", `include_self`), with PyTorch 1.13's CPU semantics.
/// Indices must lie in [0, size) (no negatives, as in PyTorch). Repeated
/// indices: the accumulating forms combine every source element; plain
/// `scatter` writes in row-major order of `index`, so the last write wins.
///
/// For dim = 1 of a 3-d input (i, j, k run over `index`'s shape):
///   gather:  out[i][j][k] = self[i][index[i][j][k]][k]
///   scatter: self[i][index[i][j][k]][k] = src[i][j][k]
/// The loops run over `index`'s shape with `self`'s stride along `dim` set to
/// 0 (detail::dispatch_offsets); the index value times that stride is added.
/// On a GPU the same functors run as one kernel: indices are checked by a
/// reduction before it, repeated indices of `scatter` write in no particular
/// order and every reduction combines atomically (cuda::detail::atomic_update,
/// for every element type), as in PyTorch's CUDA scatter.

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>

#include "tensorlib/backend/cuda/atomic_update.hpp"
#include "tensorlib/core/error.hpp"
#include "tensorlib/core/shape.hpp"
#include "tensorlib/core/tensor.hpp"
#include "tensorlib/expr/broadcast.hpp"
#include "tensorlib/expr/functions.hpp"
#include "tensorlib/expr/operators.hpp"
#include "tensorlib/ops/along_dim.hpp"
#include "tensorlib/ops/copy.hpp"
#include "tensorlib/ops/dispatch.hpp"
#include "tensorlib/ops/evaluate.hpp"
#include "tensorlib/ops/factories.hpp"
#include "tensorlib/ops/index_common.hpp"

namespace tensorlib {
namespace autograd {

// The recording forms (autograd/index_backward.hpp).
template <Element T>
Tensor<T> gather(const Tensor<T>& input, int64_t dim, const Tensor<int64_t>& index);
template <Element T>
Tensor<T> scatter(const Tensor<T>& input, int64_t dim, const Tensor<int64_t>& index, const Tensor<T>& src);
template <Element T>
Tensor<T> scatter(const Tensor<T>& input, int64_t dim, const Tensor<int64_t>& index, T value);
template <Element T>
Tensor<T> scatter_add(const Tensor<T>& input, int64_t dim, const Tensor<int64_t>& index, const Tensor<T>& src);
template <Element T>
Tensor<T> scatter_reduce(const Tensor<T>& input, int64_t dim, const Tensor<int64_t>& index, const Tensor<T>& src,
                         std::string_view reduce, bool include_self);

}  // namespace autograd
namespace detail {

/// How `scatter_reduce` combines a source element into the destination.
enum class ScatterReduce { none, sum, prod, mean, amax, amin };

inline ScatterReduce parse_scatter_reduce(std::string_view reduce, bool two_arg_form, const char* op) {
  if (two_arg_form) {  // scatter_'s `reduce`: "add" or "multiply" (or none)
    if (reduce.empty()) return ScatterReduce::none;
    if (reduce == "add") return ScatterReduce::sum;
    if (reduce == "multiply") return ScatterReduce::prod;
    throw ValueError(concat(op, "(): reduce argument must be either add or multiply, got ", reduce));
  }
  if (reduce == "sum") return ScatterReduce::sum;
  if (reduce == "prod") return ScatterReduce::prod;
  if (reduce == "mean") return ScatterReduce::mean;
  if (reduce == "amax") return ScatterReduce::amax;
  if (reduce == "amin") return ScatterReduce::amin;
  throw ValueError(concat(op, "(): reduce argument must be either sum, prod, mean, amax or amin, got ", reduce));
}

/// dst combined with v; amax/amin propagate NaN like PyTorch's CPU kernel.
template <Element T>
TENSORLIB_HOST_DEVICE T combine(ScatterReduce r, T dst, T v) {
  switch (r) {
    case ScatterReduce::sum:
    case ScatterReduce::mean:
      if constexpr (std::is_same_v<T, bool>)
        return dst || v;
      else
        return static_cast<T>(dst + v);
    case ScatterReduce::prod:
      if constexpr (std::is_same_v<T, bool>)
        return dst && v;
      else
        return static_cast<T>(dst * v);
    case ScatterReduce::amax:
      return is_nan(v) || is_nan(dst) ? (is_nan(v) ? v : dst) : (v > dst ? v : dst);
    case ScatterReduce::amin:
      return is_nan(v) || is_nan(dst) ? (is_nan(v) ? v : dst) : (v < dst ? v : dst);
    case ScatterReduce::none:
      break;
  }
  return v;
}

/// The value a destination starts from when `include_self` is false.
template <Element T>
T reduce_identity(ScatterReduce r) {
  if (r == ScatterReduce::prod) return T(1);
  using limits = std::numeric_limits<T>;
  if (r == ScatterReduce::amax) return limits::has_infinity ? T(-limits::infinity()) : limits::lowest();
  if (r == ScatterReduce::amin) return limits::has_infinity ? limits::infinity() : limits::max();
  return T(0);
}

inline const char* scatter_reduce_name(ScatterReduce r) {
  switch (r) {
    case ScatterReduce::none:
      return "none";
    case ScatterReduce::sum:
      return "sum";
    case ScatterReduce::prod:
      return "prod";
    case ScatterReduce::mean:
      return "mean";
    case ScatterReduce::amax:
      return "amax";
    case ScatterReduce::amin:
      return "amin";
  }
  return "?";
}

/// out[o0] = in[o1 + index[o2] * step]: gather and index_select. On the CPU
/// each index is checked as it is read; on a GPU before the launch
/// (check_indices_on_device).
template <Element T>
struct SelectAlong {
  T* out;
  const T* in;
  const int64_t* index;
  int64_t size, step, dim;
  const char* op;
  TENSORLIB_HOST_DEVICE void operator()(const std::array<int64_t, 3>& o) const {
#if defined(__CUDA_ARCH__)
    const int64_t i = index[o[2]];
#else
    const int64_t i = checked_index(index[o[2]], size, dim, Negative::rejected, op);
#endif
    out[o[0]] = in[o[1] + i * step];
  }
};

/// out[o2 + index[o0] * step] = v, or combined with v by `reduce`, where v
/// is src[o1] (or `value` when src is null); `counts` (mean) counts the
/// writes at o3 + i * count_step. On a GPU: plain stores or atomic updates
/// (cuda::detail::atomic_update), so every reduction and element type runs
/// there; repeated indices combine in no particular order.
template <Element T>
struct ScatterAlong {
  T* out;
  const T* src;
  T value;
  const int64_t* index;
  int64_t* counts;
  int64_t size, step, count_step, dim;
  ScatterReduce reduce;
  const char* op;
  TENSORLIB_HOST_DEVICE void operator()(const std::array<int64_t, 4>& o) const {
#if defined(__CUDA_ARCH__)
    const int64_t i = index[o[0]];
    const T v = src ? src[o[1]] : value;
    T* dst = out + o[2] + i * step;
    if (reduce == ScatterReduce::none)
      *dst = v;
    else if (reduce == ScatterReduce::sum || reduce == ScatterReduce::mean)
      cuda::detail::atomic_add(dst, v);
    else
      cuda::detail::atomic_update(dst, [r = reduce, v](T d) { return combine(r, d, v); });
    if (counts) cuda::detail::atomic_add(counts + o[3] + i * count_step, int64_t{1});
#else
    const int64_t i = checked_index(index[o[0]], size, dim, Negative::rejected, op);
    const T v = src ? src[o[1]] : value;
    T& dst = out[o[2] + i * step];
    dst = reduce == ScatterReduce::none ? v : combine(reduce, dst, v);
    if (counts) ++counts[o[3] + i * count_step];
#endif
  }
};

/// PyTorch's gather_shape_check: same rank (0-d counts as 1-d) and index no
/// larger than self outside `dim`.
template <Element T>
void check_gather_shape(const Tensor<T>& self, int64_t dim, const Tensor<int64_t>& index, const char* op) {
  check<ShapeError>(nonempty_dim(index) == nonempty_dim(self), op,
                    "(): Index tensor must have the same number of dimensions as input tensor");
  const Tensor<T> s = at_least_1d(self);
  const Tensor<int64_t> ix = at_least_1d(index);
  for (int64_t d = 0; d < ix.dim(); ++d)
    check<ShapeError>(d == dim || ix.size(d) <= s.size(d), op, "(): Size does not match at dimension ", d,
                      " expected index ", index.sizes(), " to be smaller than self ", self.sizes(),
                      " apart from dimension ", dim);
}

/// PyTorch's scatter_shape_check (skipped for an empty index, as there).
template <Element T>
void check_scatter_shape(const Tensor<T>& self, int64_t dim, const Tensor<int64_t>& index, const Tensor<T>* src,
                         const char* op) {
  if (index.numel() == 0) return;
  check<ShapeError>(nonempty_dim(index) == nonempty_dim(self), op,
                    "(): Index tensor must have the same number of dimensions as self tensor");
  if (src)
    check<ShapeError>(nonempty_dim(index) == nonempty_dim(*src), op,
                      "(): Index tensor must have the same number of dimensions as src tensor");
  const Tensor<T> s = at_least_1d(self);
  const Tensor<int64_t> ix = at_least_1d(index);
  for (int64_t d = 0; d < ix.dim(); ++d) {
    const bool ok = (d == dim || ix.size(d) <= s.size(d)) && (!src || ix.size(d) <= at_least_1d(*src).size(d));
    check<ShapeError>(ok, op, "(): Expected index ", index.sizes(), " to be smaller than self ", self.sizes(),
                      " apart from dimension ", dim, src ? " and to be smaller size than src " : "",
                      src ? concat(src->sizes()) : std::string());
  }
}

/// self[.. index ..] = combine(self, src) over index's shape; `src` may be
/// null for a value scatter. `counts` (mean only) counts the writes per
/// destination element, laid out like `self` (contiguous).
template <Element T>
void scatter_into(const Tensor<T>& self, int64_t dim, const Tensor<int64_t>& index, const Tensor<T>* src, T value,
                  ScatterReduce reduce, const Tensor<int64_t>* counts, const char* op) {
  const Tensor<T> s = at_least_1d(self);
  const Tensor<int64_t> ix = at_least_1d(index);
  const Tensor<T> sv = src ? at_least_1d(*src) : s;
  const int64_t size = s.size(dim), step = s.stride(dim);
  T* out = s.data_ptr();
  const int64_t* idx = ix.data_ptr();
  const T* in = sv.data_ptr();
  int64_t* cnt = counts ? counts->data_ptr() : nullptr;
  const Shape count_strides = counts ? without_dim(contiguous_strides(s.sizes()), dim) : Shape::filled(s.dim(), 0);
  const int64_t count_step = counts ? contiguous_strides(s.sizes())[dim] : 0;
  // Strides of self/src restricted to index's dimensions (index is never larger).
  Shape self_strides = without_dim(s.strides(), dim);
  Shape src_strides = src ? sv.strides() : Shape::filled(s.dim(), 0);
  check_indices_on_device(ix, size, dim, op);
  const ScatterAlong<T> f{out, src ? in : nullptr, value, idx, cnt, size, step, count_step, dim, reduce, op};
  dispatch_offsets<4>(self.device(), ix.sizes(), {ix.strides(), src_strides, self_strides, count_strides}, f, op);
}

/// p[o0] = floor(p[o0] / n), n = counts[o1] in T: the integer mean of
/// scatter_reduce, rounded toward -inf. As in PyTorch, the count is kept in
/// T (so it wraps: 256 writes count 0 in uint8) and a zero count divides by 1.
template <Element T>
struct FloorDivideBy {
  T* p;
  const int64_t* counts;
  TENSORLIB_HOST_DEVICE void operator()(const std::array<int64_t, 2>& o) const {
    auto n = static_cast<T>(counts[o[1]]);
    if (n == T(0)) n = T(1);
    const T a = p[o[0]];
    T q = static_cast<T>(a / n);
    if constexpr (std::is_signed_v<T>)
      if (a % n != 0 && (a < 0) != (n < 0)) --q;
    p[o[0]] = q;
  }
};

template <Element T>
void scatter_reduce_into(const Tensor<T>& self, int64_t dim_, const Tensor<int64_t>& index_, const Tensor<T>& src_,
                         ScatterReduce reduce, bool include_self, const char* op) {
  const int64_t dim = wrap_dim(dim_, self.dim(), op);
  check_devices(op, self.device(), index_, src_);
  check_scatter_shape(self, dim, index_, &src_, op);
  check_no_internal_overlap(self, op);
  const Tensor<int64_t> index = unaliased(index_, self);
  const Tensor<T> src = unaliased(src_, self);
  if (!include_self)
    scatter_into<T>(self, dim, index, nullptr, reduce_identity<T>(reduce), ScatterReduce::none, nullptr, op);
  if (reduce != ScatterReduce::mean) {
    scatter_into(self, dim, index, &src, T(0), reduce, nullptr, op);
    return;
  }
  // mean: sum, then divide by the number of terms (self counts as one when
  // included); integers divide with floor, as in PyTorch.
  auto counts = full<int64_t>(self.sizes(), include_self ? 1 : 0, {.device = self.device()});
  scatter_into(self, dim, index, &src, T(0), ScatterReduce::sum, &counts, op);
  const Tensor<int64_t> divisor = tl::where(counts == int64_t(0), int64_t(1), counts);
  if constexpr (is_floating<T>) {
    write_into(self, self / divisor.to<T>(), op);
  } else {
    dispatch_offsets<2>(self.device(), self.sizes(), {self.strides(), divisor.strides()},
                        FloorDivideBy<T>{self.data_ptr(), divisor.data_ptr()}, op);
  }
}

}  // namespace detail

/// `torch.gather(input, dim, index)`: out[i][j][k] = input[i][index[i][j][k]][k]
/// (dim 1); the result has index's shape. Indices must be in [0, size(dim)).
template <Element T>
Tensor<T> gather(const Tensor<T>& input, int64_t dim, const Tensor<int64_t>& index) {
  if constexpr (differentiable<T>) {
    if (detail::records_grad(input)) return autograd::gather(input, dim, index);
  }
  const int64_t d = wrap_dim(dim, input.dim(), "gather");
  detail::check_devices("gather", input.device(), index);
  detail::check_gather_shape(input, d, index, "gather");
  auto out = empty<T>(index.sizes(), {.device = input.device()});
  const Tensor<T> x = detail::at_least_1d(input);
  const Tensor<int64_t> ix = detail::at_least_1d(index);
  const Tensor<T> o1 = detail::at_least_1d(out);
  detail::check_indices_on_device(ix, x.size(d), d, "gather");
  const detail::SelectAlong<T> f{o1.data_ptr(), x.data_ptr(), ix.data_ptr(), x.size(d), x.stride(d), d, "gather"};
  detail::dispatch_offsets<3>(input.device(), ix.sizes(),
                              {o1.strides(), detail::without_dim(x.strides(), d), ix.strides()}, f, "gather");
  return out;
}

/// `torch.take_along_dim(input, indices, dim)`: gather along `dim` after
/// broadcasting input and indices against each other in every other
/// dimension; without `dim`, gathers from the flattened input by the
/// flattened indices.
template <Element T>
Tensor<T> take_along_dim(const Tensor<T>& input, const Tensor<int64_t>& indices,
                         std::optional<int64_t> dim = std::nullopt) {
  if (!dim) return gather(input.reshape({-1}), 0, indices.reshape({-1}));
  detail::check<ShapeError>(input.dim() == indices.dim(),
                            "take_along_dim(): input and indices should have the same number of dimensions, but got ",
                            input.dim(), " dimensions for input, and ", indices.dim(), " dimensions for indices");
  const int64_t d = wrap_dim(*dim, input.dim(), "take_along_dim");
  Shape sizes = input.sizes();
  sizes[d] = indices.size(d);
  const Shape shape = broadcast_shapes(sizes, indices.sizes(), "take_along_dim");
  Shape input_shape = shape;
  input_shape[d] = input.size(d);
  return gather(input.expand(input_shape), d, indices.expand(shape));
}

/// `Tensor.scatter_(dim, index, src, reduce=None)`: self[i][index[i][j][k]][k] = src[i][j][k]
/// (dim 1), or combined by `reduce` "add" / "multiply". Returns self.
template <Element T>
Tensor<T> scatter_(const Tensor<T>& self, int64_t dim, const Tensor<int64_t>& index, const Tensor<T>& src,
                   std::string_view reduce = {}) {
  if (detail::inplace_through(self, "scatter_", src.requires_grad(),
                              [&](const Tensor<T>& old) { return scatter(old, dim, index, src, reduce); }))
    return self;
  detail::begin_inplace(self, "scatter_", src.requires_grad());
  const auto r = detail::parse_scatter_reduce(reduce, true, "scatter_");
  detail::scatter_reduce_into(self, dim, index, src, r, true, "scatter_");
  return self;
}

/// `Tensor.scatter_(dim, index, value, reduce=None)`: writes one value at every indexed position.
template <Element T>
Tensor<T> scatter_(const Tensor<T>& self, int64_t dim, const Tensor<int64_t>& index, T value,
                   std::string_view reduce = {}) {
  if (detail::inplace_through(self, "scatter_", false,
                              [&](const Tensor<T>& old) { return scatter(old, dim, index, value, reduce); }))
    return self;
  detail::begin_inplace(self, "scatter_", false);
  const auto r = detail::parse_scatter_reduce(reduce, true, "scatter_");
  const int64_t d = wrap_dim(dim, self.dim(), "scatter_");
  detail::check_devices("scatter_", self.device(), index);
  detail::check_scatter_shape<T>(self, d, index, nullptr, "scatter_");
  detail::check_no_internal_overlap(self, "scatter_");
  detail::scatter_into<T>(self, d, detail::unaliased(index, self), nullptr, value, r, nullptr, "scatter_");
  return self;
}

/// `torch.scatter(input, dim, index, src)`: a copy of input with `scatter_` applied.
template <Element T>
Tensor<T> scatter(const Tensor<T>& input, int64_t dim, const Tensor<int64_t>& index, const Tensor<T>& src,
                  std::string_view reduce = {}) {
  if constexpr (differentiable<T>) {
    if (detail::records_grad(input, src)) {
      detail::check<NotImplementedError>(reduce.empty(), "scatter: the derivative of scatter with reduce='", reduce,
                                         "' is not implemented");
      return autograd::scatter(input, dim, index, src);
    }
  }
  Tensor<T> out = input.clone();
  return scatter_(out, dim, index, src, reduce);
}

/// `torch.scatter(input, dim, index, value)`.
template <Element T>
Tensor<T> scatter(const Tensor<T>& input, int64_t dim, const Tensor<int64_t>& index, T value,
                  std::string_view reduce = {}) {
  if constexpr (differentiable<T>) {
    if (detail::records_grad(input)) {
      detail::check<NotImplementedError>(reduce.empty(), "scatter: the derivative of scatter with reduce='", reduce,
                                         "' is not implemented");
      return autograd::scatter(input, dim, index, value);
    }
  }
  Tensor<T> out = input.clone();
  return scatter_(out, dim, index, value, reduce);
}

/// `Tensor.scatter_add_(dim, index, src)`: adds every src element into its
/// indexed position (repeated indices accumulate).
template <Element T>
Tensor<T> scatter_add_(const Tensor<T>& self, int64_t dim, const Tensor<int64_t>& index, const Tensor<T>& src) {
  if (detail::inplace_through(self, "scatter_add_", src.requires_grad(),
                              [&](const Tensor<T>& old) { return scatter_add(old, dim, index, src); }))
    return self;
  detail::begin_inplace(self, "scatter_add_", src.requires_grad());
  detail::scatter_reduce_into(self, dim, index, src, detail::ScatterReduce::sum, true, "scatter_add_");
  return self;
}

/// `torch.scatter_add(input, dim, index, src)`.
template <Element T>
Tensor<T> scatter_add(const Tensor<T>& input, int64_t dim, const Tensor<int64_t>& index, const Tensor<T>& src) {
  if constexpr (differentiable<T>) {
    if (detail::records_grad(input, src)) return autograd::scatter_add(input, dim, index, src);
  }
  Tensor<T> out = input.clone();
  return scatter_add_(out, dim, index, src);
}

/// `Tensor.scatter_reduce_(dim, index, src, reduce, include_self=True)`:
/// reduce ("sum", "prod", "mean", "amax", "amin") every src element into its
/// indexed position; with include_self=false the positions written to start
/// from the reduction's identity instead of self's value.
template <Element T>
Tensor<T> scatter_reduce_(const Tensor<T>& self, int64_t dim, const Tensor<int64_t>& index, const Tensor<T>& src,
                          std::string_view reduce, bool include_self = true) {
  if (detail::inplace_through(self, "scatter_reduce_", src.requires_grad(), [&](const Tensor<T>& old) {
        return scatter_reduce(old, dim, index, src, reduce, include_self);
      }))
    return self;
  detail::begin_inplace(self, "scatter_reduce_", src.requires_grad());
  const auto r = detail::parse_scatter_reduce(reduce, false, "scatter_reduce_");
  detail::scatter_reduce_into(self, dim, index, src, r, include_self, "scatter_reduce_");
  return self;
}

/// `torch.scatter_reduce(input, dim, index, src, reduce, include_self=True)`,
/// with PyTorch's gradient (autograd/index_backward.hpp).
template <Element T>
Tensor<T> scatter_reduce(const Tensor<T>& input, int64_t dim, const Tensor<int64_t>& index, const Tensor<T>& src,
                         std::string_view reduce, bool include_self = true) {
  if constexpr (differentiable<T>) {
    if (detail::records_grad(input, src)) return autograd::scatter_reduce(input, dim, index, src, reduce, include_self);
  }
  Tensor<T> out = input.clone();
  return scatter_reduce_(out, dim, index, src, reduce, include_self);
}

namespace detail {

/// index_reduce's index (n) laid along `dim` and expanded to the source's
/// shape: the scatter_reduce index that sends source slice k to slice index[k].
template <Element T>
Tensor<int64_t> index_as_scatter(const Tensor<T>& input, int64_t dim, const Tensor<int64_t>& index,
                                 const Tensor<T>& source, std::string_view reduce, const char* op) {
  check<ValueError>(reduce == "prod" || reduce == "mean" || reduce == "amax" || reduce == "amin", op,
                    "(): Expected reduce to be one of prod, mean, amax or amin but got ", reduce, ".");
  check<IndexError>(index.dim() <= 1, op, "(): Index is supposed to be a vector, but got a ", index.dim(), "-D tensor");
  check<ShapeError>(source.dim() == input.dim(), op,
                    "(): Source/destination tensor must have same dimensionality, got ", source.dim(), " and ",
                    input.dim());
  const int64_t d = wrap_dim(dim, std::max<int64_t>(input.dim(), 1), op);
  check<ShapeError>(input.dim() > 0, op, "(): expected a tensor of at least one dimension");
  check<ShapeError>(index.numel() == source.size(d), op, "(): Number of indices (", index.numel(),
                    ") should be equal to source.size(dim) (", source.size(d), ")");
  for (int64_t k = 0; k < input.dim(); ++k)
    check<ShapeError>(k == d || source.size(k) == input.size(k), op, "(): source ", source.sizes(), " and destination ",
                      input.sizes(), " differ in dimension ", k);
  Shape along;
  for (int64_t k = 0; k < input.dim(); ++k) along.push_back(k == d ? index.numel() : 1);
  return index.reshape(along).expand(source.sizes());
}

}  // namespace detail

/// `torch.index_reduce(input, dim, index, source, reduce, include_self=True)`:
/// reduce ("prod", "mean", "amax", "amin") each slice k of `source` along
/// `dim` into slice index[k] of a copy of input; without include_self the
/// slices written to start from the reduction's identity. It is
/// scatter_reduce with the index expanded over source, and differentiates so.
template <Element T>
Tensor<T> index_reduce(const Tensor<T>& input, int64_t dim, const Tensor<int64_t>& index, const Tensor<T>& source,
                       std::string_view reduce, bool include_self = true) {
  const auto expanded = detail::index_as_scatter(input, dim, index, source, reduce, "index_reduce");
  return scatter_reduce(input, wrap_dim(dim, input.dim(), "index_reduce"), expanded, source, reduce, include_self);
}

/// `index_reduce` into `self` (`Tensor.index_reduce_`).
template <Element T>
Tensor<T> index_reduce_(const Tensor<T>& self, int64_t dim, const Tensor<int64_t>& index, const Tensor<T>& source,
                        std::string_view reduce, bool include_self = true) {
  const auto expanded = detail::index_as_scatter(self, dim, index, source, reduce, "index_reduce_");
  return scatter_reduce_(self, wrap_dim(dim, self.dim(), "index_reduce_"), expanded, source, reduce, include_self);
}

template <Element T>
Tensor<T> Tensor<T>::gather(int64_t dim, const Tensor<int64_t>& index) const {
  return tl::gather(*this, dim, index);
}
template <Element T>
Tensor<T> Tensor<T>::scatter(int64_t dim, const Tensor<int64_t>& index, const Tensor& src) const {
  return tl::scatter(*this, dim, index, src);
}
template <Element T>
Tensor<T> Tensor<T>::scatter(int64_t dim, const Tensor<int64_t>& index, T value) const {
  return tl::scatter(*this, dim, index, value);
}
template <Element T>
Tensor<T>& Tensor<T>::scatter_(int64_t dim, const Tensor<int64_t>& index, const Tensor& src, std::string_view reduce) {
  tl::scatter_(*this, dim, index, src, reduce);
  return *this;
}
template <Element T>
Tensor<T>& Tensor<T>::scatter_(int64_t dim, const Tensor<int64_t>& index, T value, std::string_view reduce) {
  tl::scatter_(*this, dim, index, value, reduce);
  return *this;
}
template <Element T>
Tensor<T> Tensor<T>::scatter_add(int64_t dim, const Tensor<int64_t>& index, const Tensor& src) const {
  return tl::scatter_add(*this, dim, index, src);
}
template <Element T>
Tensor<T>& Tensor<T>::scatter_add_(int64_t dim, const Tensor<int64_t>& index, const Tensor& src) {
  tl::scatter_add_(*this, dim, index, src);
  return *this;
}
template <Element T>
Tensor<T> Tensor<T>::scatter_reduce(int64_t dim, const Tensor<int64_t>& index, const Tensor& src,
                                    std::string_view reduce, bool include_self) const {
  return tl::scatter_reduce(*this, dim, index, src, reduce, include_self);
}
template <Element T>
Tensor<T>& Tensor<T>::scatter_reduce_(int64_t dim, const Tensor<int64_t>& index, const Tensor& src,
                                      std::string_view reduce, bool include_self) {
  tl::scatter_reduce_(*this, dim, index, src, reduce, include_self);
  return *this;
}

template <Element T>
Tensor<T> Tensor<T>::index_reduce(int64_t dim, const Tensor<int64_t>& index, const Tensor& source,
                                  std::string_view reduce, bool include_self) const {
  return tl::index_reduce(*this, dim, index, source, reduce, include_self);
}
template <Element T>
Tensor<T>& Tensor<T>::index_reduce_(int64_t dim, const Tensor<int64_t>& index, const Tensor& source,
                                    std::string_view reduce, bool include_self) {
  tl::index_reduce_(*this, dim, index, source, reduce, include_self);
  return *this;
}

}  // namespace tensorlib
