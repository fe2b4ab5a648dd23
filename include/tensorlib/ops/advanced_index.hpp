#pragma once
/// \file
/// `x.index({...})` and `x.index_put_({...}, value)` with index tensors
/// (NumPy/PyTorch "advanced indexing"), and PyTorch's list form
/// `index_put_(indices, values, accumulate)`. Without index tensors `index`
/// stays a view (detail::basic_index in ops/views.hpp).
///
/// Note [advanced indexing]
/// The entries are applied left to right: integers select (the dimension
/// goes away, as in PyTorch, which unlike NumPy does not count them as
/// advanced), slices slice, None inserts a dimension, Ellipsis skips
/// dimensions, an int64 tensor claims one dimension and a k-d bool mask
/// claims k, becoming the k coordinate lists of `nonzero(mask)` (a 0-d mask
/// inserts a dimension of size 1 or 0 and claims it). The index tensors then
/// broadcast together to a shape B. When the claimed dimensions are adjacent
/// the result is the view's shape with them replaced by B in place;
/// otherwise B comes first, followed by the unclaimed dimensions in order.
/// Computation: the index values (checked, negatives wrapped) times the
/// view's strides are summed into one offset tensor of shape B, and the
/// result is a strided walk over the result shape reading (or, for
/// index_put, writing) view_data[rest_offset + offset[b]].

#include <array>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

#include "tensorlib/backend/cpu/strided_loop.hpp"
#include "tensorlib/core/error.hpp"
#include "tensorlib/core/grad_mode.hpp"
#include "tensorlib/core/shape.hpp"
#include "tensorlib/core/slice.hpp"
#include "tensorlib/core/tensor.hpp"
#include "tensorlib/core/tensor_index.hpp"
#include "tensorlib/expr/broadcast.hpp"
#include "tensorlib/expr/build.hpp"
#include "tensorlib/ops/copy.hpp"
#include "tensorlib/ops/dispatch.hpp"
#include "tensorlib/ops/evaluate.hpp"
#include "tensorlib/ops/factories.hpp"
#include "tensorlib/ops/index_common.hpp"
#include "tensorlib/ops/index_ops.hpp"
#include "tensorlib/ops/views.hpp"

namespace tensorlib {
namespace autograd {

// The recording form of index_put (autograd/index_backward.hpp).
template <Element T>
Tensor<T> index_put(const Tensor<T>& input, const std::vector<std::optional<Tensor<int64_t>>>& indices,
                    const Tensor<T>& values, bool accumulate);

}  // namespace autograd
namespace detail {

/// An index list resolved against a tensor (Note [advanced indexing]).
template <Element T>
struct AdvancedIndex {
  Tensor<T> view;  // the input after the basic entries; claimed dims still in it
  std::vector<std::pair<int64_t, Tensor<int64_t>>> claims;  // (dim of view, index tensor)
  Shape result;                                             // shape of the indexed result
  Shape view_strides;                                       // per result dim: view stride (0 on the B dims)
  Shape offset_strides;                                     // per result dim: stride into `offsets` (0 off the B dims)
  Tensor<int64_t> offsets;                                  // shape B: sum over claims of index * view stride
};

template <class Indices>
bool has_index_tensor(const Indices& indices) {
  for (const auto& i : indices)
    if (i.is_tensor()) return true;
  return false;
}

/// Applies the basic entries and records the tensor ones (first half of Note [advanced indexing]).
template <Element T, class Indices>
AdvancedIndex<T> resolve_index(const Tensor<T>& self, const Indices& indices) {
  int64_t consumed = 0, ellipses = 0;
  for (const auto& i : indices) {
    if (i.is_integer() || i.is_slice() || i.is_long_tensor()) ++consumed;
    if (i.is_bool_tensor()) consumed += i.bool_tensor().dim();
    if (i.is_ellipsis()) ++ellipses;
  }
  check<IndexError>(ellipses <= 1, "index: an index can only have a single ellipsis ('...')");
  check<IndexError>(consumed <= self.dim(), "index: too many indices for tensor of dimension ", self.dim());
  AdvancedIndex<T> a;
  a.view = self;
  int64_t d = 0;
  for (const auto& i : indices) {
    if (i.is_integer()) {
      a.view = a.view.select(d, i.integer());
    } else if (i.is_slice()) {
      const Slice& s = i.slice();
      a.view = a.view.slice(d, s.start, s.stop, s.step.value.value_or(1));
      ++d;
    } else if (i.is_none()) {
      a.view = a.view.unsqueeze(d++);
    } else if (i.is_ellipsis()) {
      d += self.dim() - consumed;
    } else if (i.is_long_tensor()) {
      check_devices("index", self.device(), i.long_tensor());
      a.claims.emplace_back(d++, i.long_tensor());
    } else {
      const Tensor<bool>& mask = i.bool_tensor();
      check_devices("index", self.device(), mask);
      if (mask.dim() == 0) {
        a.view = a.view.unsqueeze(d);
        a.claims.emplace_back(d++, zeros<int64_t>({mask.item() ? 1 : 0}, {.device = self.device()}));
        continue;
      }
      for (int64_t k = 0; k < mask.dim(); ++k)
        check<IndexError>(mask.size(k) == a.view.size(d + k), "index: The shape of the mask ", mask.sizes(),
                          " at index ", k, " does not match the shape of the indexed tensor ", a.view.sizes(),
                          " at index ", d + k);
      const Tensor<int64_t> nz = nonzero(mask);
      for (int64_t k = 0; k < mask.dim(); ++k) a.claims.emplace_back(d++, nz.select(1, k));
    }
  }
  return a;
}

/// offsets[o0] += index[o1] * step, the index checked (negatives counted
/// from the end): one claim's share of the offsets. On a GPU the indices
/// were checked before the launch; each offset has one writer per claim.
struct AddIndexOffset {
  int64_t* offsets;
  const int64_t* index;
  int64_t size, step, dim;
  const char* op;
  TENSORLIB_HOST_DEVICE void operator()(const std::array<int64_t, 2>& o) const {
#if defined(__CUDA_ARCH__)
    offsets[o[0]] += wrapped_index(index[o[1]], size) * step;
#else
    offsets[o[0]] += checked_index(index[o[1]], size, dim, Negative::wrapped, op) * step;
#endif
  }
};

/// out[o0] = view[o1 + offsets[o2]] (index), or, with `put`,
/// view[o1 + offsets[o2]] = values[o0] (+= with `accumulate`: atomically on
/// a GPU, where a repeated position without it keeps an unspecified write).
template <Element T>
struct IndexAtOffsets {
  T* data;  // index: the output; index_put: the values (read)
  T* view;  // index: the view (read); index_put: written
  const int64_t* offsets;
  bool put, accumulate;
  TENSORLIB_HOST_DEVICE void operator()(const std::array<int64_t, 3>& o) const {
    T* at = view + o[1] + offsets[o[2]];
    if (!put) {
      data[o[0]] = *at;
    } else {
      write_or_add(at, data[o[0]], accumulate);
    }
  }
};

/// Broadcasts the claims, lays out the result and fills the offsets
/// (second half of Note [advanced indexing]).
template <Element T>
void plan_index(AdvancedIndex<T>& a, const char* op) {
  Shape b;
  for (const auto& claim : a.claims) b = broadcast_shapes(b, claim.second.sizes(), op);
  const int64_t n = static_cast<int64_t>(a.claims.size());
  const bool adjacent = n == 0 || a.claims.back().first - a.claims.front().first + 1 == n;
  const int64_t first = n == 0 ? 0 : a.claims.front().first;
  auto claimed = [&](int64_t d) {
    for (const auto& c : a.claims)
      if (c.first == d) return true;
    return false;
  };
  const Shape b_strides = contiguous_strides(b);
  auto push_b = [&] {
    for (int64_t k = 0; k < b.size(); ++k) {
      a.result.push_back(b[k]);
      a.view_strides.push_back(0);
      a.offset_strides.push_back(b_strides[k]);
    }
  };
  if (!adjacent) push_b();
  for (int64_t d = 0; d < a.view.dim(); ++d) {
    if (adjacent && d == first && n > 0) push_b();
    if (claimed(d)) continue;
    a.result.push_back(a.view.size(d));
    a.view_strides.push_back(a.view.stride(d));
    a.offset_strides.push_back(0);
  }
  a.offsets = zeros<int64_t>(b, {.device = a.view.device()});
  for (const auto& claim : a.claims) {
    const int64_t d = claim.first;
    const Tensor<int64_t>& t = claim.second;
    const int64_t size = a.view.size(d), step = a.view.stride(d);
    check_indices_on_device(t, size, d, op, Negative::wrapped);
    const AddIndexOffset f{a.offsets.data_ptr(), t.data_ptr(), size, step, d, op};
    dispatch_offsets<2>(a.view.device(), b, {b_strides, broadcast_strides(t.sizes(), t.strides(), b)}, f, op);
  }
}

template <Element T>
Tensor<T> advanced_index(const AdvancedIndex<T>& a) {
  auto out = empty<T>(a.result, {.device = a.view.device()});
  const IndexAtOffsets<T> f{out.data_ptr(), a.view.data_ptr(), a.offsets.data_ptr(), false, false};
  dispatch_offsets<3>(out.device(), a.result, {out.strides(), a.view_strides, a.offset_strides}, f, "index");
  return out;
}

/// Writes (or adds) `values`, broadcast to the indexed shape, at the indexed positions.
template <Element T>
void advanced_index_put(const AdvancedIndex<T>& a, const Tensor<T>& values_, bool accumulate, const char* op) {
  check_devices(op, a.view.device(), values_);
  check_no_internal_overlap(a.view, op);
  check<ShapeError>(broadcasts_to(values_.sizes(), a.result), op, "(): shape mismatch: value tensor of shape ",
                    values_.sizes(), " cannot be broadcast to indexing result of shape ", a.result);
  const Tensor<T> values = unaliased(values_, a.view);
  const IndexAtOffsets<T> f{values.data_ptr(), a.view.data_ptr(), a.offsets.data_ptr(), true, accumulate};
  dispatch_offsets<3>(a.view.device(), a.result,
                      {broadcast_strides(values.sizes(), values.strides(), a.result), a.view_strides, a.offset_strides},
                      f, op);
}

template <Element T, class Indices>
Tensor<T> index_any(const Tensor<T>& self, const Indices& indices) {
  if (!has_index_tensor(indices)) return basic_index(self, indices);
  if (records_grad(self)) {
    // Backward: the gradient added into zeros at the indexed positions.
    std::vector<TensorIndex> list(indices.begin(), indices.end());
    return autograd::record_view(
        self, "IndexBackward", [&](const Tensor<T>& s) { return index_any(s, list); },
        [list, sizes = self.sizes()](const Tensor<T>& g) {
          // The put below does not record: refuse a second derivative rather
          // than give a wrong one.
          check<NotImplementedError>(!(is_grad_enabled() && g.requires_grad()),
                                     "IndexBackward: create_graph through indexing with index tensors is not "
                                     "implemented (the gradient's own gradient would be lost)");
          Tensor<T> z = zeros<T>(sizes, {.device = g.device()});
          AdvancedIndex<T> za = resolve_index(z, list);
          plan_index(za, "index");
          advanced_index_put(za, g, true, "index");
          return z;
        });
  }
  AdvancedIndex<T> a = resolve_index(self, indices);
  plan_index(a, "index");
  return advanced_index(a);
}

/// `x.index_put_({...}, value)`: a write into a view without index tensors,
/// else an advanced put; `value` is a scalar or an expression.
template <Element T, class Indices, Operand V>
void index_put_any(const Tensor<T>& self, const Indices& indices, const V& value) {
  if (!has_index_tensor(indices)) {
    Tensor<T> view = basic_index(self, indices);
    if constexpr (Scalar<V>)
      view.fill_(checked_scalar_cast<T>(value));
    else
      write_into(view, value, "index_put_");
    return;
  }
  bool value_requires_grad = false;
  if constexpr (!Scalar<V>)
    for_each_tensor(value,
                    [&](const auto& leaf) { value_requires_grad = value_requires_grad || leaf.requires_grad(); });
  AdvancedIndex<T> a = resolve_index(self, indices);
  plan_index(a, "index_put_");
  begin_inplace(self, "index_put_", value_requires_grad);
  if constexpr (Scalar<V>)
    advanced_index_put(a, scalar_tensor<T>(checked_scalar_cast<T>(value), {.device = self.device()}), false,
                       "index_put_");
  else
    advanced_index_put(a, Tensor<T>(evaluate(as_node<T>(value))), false, "index_put_");
}

/// PyTorch's index list: nullopt is a full slice of that dimension.
template <Element T>
std::vector<TensorIndex> index_list(const Tensor<T>& self, const std::vector<std::optional<Tensor<int64_t>>>& indices,
                                    const char* op) {
  check<IndexError>(static_cast<int64_t>(indices.size()) <= self.dim(), op,
                    "(): too many indices for tensor of dimension ", self.dim(), " (got ", indices.size(), ")");
  std::vector<TensorIndex> list;
  for (const auto& i : indices) {
    if (i)
      list.emplace_back(*i);
    else
      list.emplace_back(Slice());
  }
  return list;
}

}  // namespace detail

template <Element T>
Tensor<T> Tensor<T>::index(std::initializer_list<TensorIndex> indices) const {
  return detail::index_any(*this, indices);
}

template <Element T>
Tensor<T> Tensor<T>::index(const std::vector<TensorIndex>& indices) const {
  return detail::index_any(*this, indices);
}

template <Element T>
template <Operand V>
Tensor<T>& Tensor<T>::index_put_(std::initializer_list<TensorIndex> indices, const V& value) {
  detail::index_put_any(*this, indices, value);
  return *this;
}

template <Element T>
template <Operand V>
Tensor<T>& Tensor<T>::index_put_(const std::vector<TensorIndex>& indices, const V& value) {
  detail::index_put_any(*this, indices, value);
  return *this;
}

/// `Tensor.index_put_(indices, values, accumulate=False)`: indices is a list
/// of optional int64 tensors, one per leading dimension (nullopt = all of
/// it); values broadcast to the indexed shape; with `accumulate` repeated
/// positions add up.
template <Element T>
Tensor<T> index_put_(const Tensor<T>& self, const std::vector<std::optional<Tensor<int64_t>>>& indices,
                     const Tensor<T>& values, bool accumulate = false) {
  if (detail::inplace_through(self, "index_put_", values.requires_grad(),
                              [&](const Tensor<T>& old) { return index_put(old, indices, values, accumulate); }))
    return self;
  detail::begin_inplace(self, "index_put_", values.requires_grad());
  detail::AdvancedIndex<T> a = detail::resolve_index(self, detail::index_list(self, indices, "index_put_"));
  detail::plan_index(a, "index_put_");
  detail::advanced_index_put(a, values, accumulate, "index_put_");
  return self;
}

/// `torch.index_put(input, indices, values, accumulate=False)`: a copy with `index_put_` applied.
template <Element T>
Tensor<T> index_put(const Tensor<T>& input, const std::vector<std::optional<Tensor<int64_t>>>& indices,
                    const Tensor<T>& values, bool accumulate = false) {
  if constexpr (differentiable<T>) {
    if (detail::records_grad(input, values)) return autograd::index_put(input, indices, values, accumulate);
  }
  return index_put_(input.clone(), indices, values, accumulate);
}

template <Element T>
Tensor<T>& Tensor<T>::index_put_(const std::vector<std::optional<Tensor<int64_t>>>& indices, const Tensor& values,
                                 bool accumulate) {
  tl::index_put_(*this, indices, values, accumulate);
  return *this;
}

template <Element T>
Tensor<T> Tensor<T>::index_put(const std::vector<std::optional<Tensor<int64_t>>>& indices, const Tensor& values,
                               bool accumulate) const {
  return tl::index_put(*this, indices, values, accumulate);
}

}  // namespace tensorlib
