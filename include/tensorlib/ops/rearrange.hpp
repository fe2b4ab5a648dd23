#pragma once
/// \file
/// Rearranging elements: copies (`repeat`, `tile`, `repeat_interleave`,
/// `flip`, `fliplr`, `flipud`, `roll`, `rot90`, `cartesian_prod`,
/// `combinations`) and views that alias their input (`movedim`,
/// `broadcast_to`, `broadcast_tensors`, `meshgrid`), with PyTorch's
/// semantics. Copies run as one strided pass of the pointwise executor
/// (Note [copies as strided views]) or as block copies (backend/cpu/block_copy.hpp).
///
/// Note [copies as strided views]
/// `repeat`, `repeat_interleave` (int), `flip` and `roll` describe their
/// source as a strided view of the input that has the output's shape:
/// stride 0 along repeated dimensions, negated strides along flipped ones,
/// shifted windows for a roll. One `dispatch_pointwise` then copies it; its
/// loop planner merges contiguous runs, so a large contiguous input is copied
/// in long packet loops with no per-element index arithmetic. Negative-stride
/// views exist only inside these functions.

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <initializer_list>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "tensorlib/backend/cpu/block_copy.hpp"
#include "tensorlib/core/error.hpp"
#include "tensorlib/core/shape.hpp"
#include "tensorlib/core/tensor.hpp"
#include "tensorlib/expr/broadcast.hpp"
#include "tensorlib/ops/copy.hpp"
#include "tensorlib/ops/dispatch.hpp"
#include "tensorlib/ops/factories.hpp"
#include "tensorlib/ops/index_ops.hpp"
#include "tensorlib/ops/join.hpp"
#include "tensorlib/ops/views.hpp"

namespace tensorlib {
namespace autograd {

// The recording form of index_select (autograd/index_backward.hpp):
// repeat_interleave and combinations record as a selection of positions.
template <Element T>
Tensor<T> index_select(const Tensor<T>& input, int64_t dim, const Tensor<int64_t>& index);

}  // namespace autograd
namespace detail {

/// A 1-d index tensor of `positions` on `device`.
inline Tensor<int64_t> positions(const std::vector<int64_t>& values, Device device) {
  auto t = empty<int64_t>({static_cast<int64_t>(values.size())});
  std::copy(values.begin(), values.end(), t.data_ptr());
  return device == Device(kCPU) ? t : t.to(device);
}

/// The positions 0, 1, ... each repeated counts[i] times (`total` in all),
/// as an index on `device`. Built as a tensor, so a total too large for
/// memory is the allocator's tl::Error rather than std::bad_alloc.
inline Tensor<int64_t> repeated_positions(const std::vector<int64_t>& counts, int64_t total, Device device) {
  auto t = empty<int64_t>({total});
  int64_t* p = t.data_ptr();
  for (std::size_t i = 0; i < counts.size(); ++i) p = std::fill_n(p, counts[i], static_cast<int64_t>(i));
  return device == Device(kCPU) ? t : t.to(device);
}

/// Wraps every dim of `dims` and rejects repeats (flip's wording).
inline std::vector<bool> dim_mask(const Shape& dims, int64_t ndim, const char* op) {
  std::vector<bool> mask(static_cast<std::size_t>(std::max<int64_t>(ndim, 1)), false);
  for (int64_t dim : dims) {
    const auto d = static_cast<std::size_t>(wrap_dim(dim, ndim, op));
    detail::check<ValueError>(!mask[d], op, ": dim ", d, " appears multiple times in the list of dims");
    mask[d] = true;
  }
  return mask;
}

/// `repeat` in one pass (Note [copies as strided views]): the output, viewed
/// as (r0, s0, r1, s1, ...), is the input read with stride 0 along each r.
template <Element T>
Tensor<T> repeat_into_new(const Tensor<T>& x, const Shape& repeats, const char* op) {
  detail::check<ShapeError>(repeats.size() >= x.dim(), op,
                            ": number of dimensions of repeat dims can not be smaller than number of dimensions of "
                            "tensor (got ",
                            repeats.size(), " repeat dims for a tensor of ", x.dim(), " dims)");
  const int64_t lead = repeats.size() - x.dim();
  Shape target = repeats;
  for (int64_t i = lead; i < repeats.size(); ++i) target[i] = checked_mul(repeats[i], x.size(i - lead), op);
  for (int64_t i = 0; i < target.size(); ++i)
    detail::check<ValueError>(target[i] >= 0, op, ": trying to create tensor with negative dimension ", target[i], ": ",
                              target);
  auto out = empty<T>(target, {.device = x.device()});
  if (out.numel() == 0) return out;
  // Size-1 factors are left out, so the view needs fewer dimensions.
  Shape sizes, src_strides;
  int64_t factors = 0;
  for (int64_t i = 0; i < repeats.size(); ++i) {
    const int64_t s = i < lead ? 1 : x.size(i - lead);
    factors += (repeats[i] != 1) + (s != 1);
  }
  if (factors <= Shape::kMaxDims) {
    for (int64_t i = 0; i < repeats.size(); ++i) {
      const int64_t s = i < lead ? 1 : x.size(i - lead);
      if (repeats[i] != 1) {
        sizes.push_back(repeats[i]);
        src_strides.push_back(0);
      }
      if (s != 1) {
        sizes.push_back(s);
        src_strides.push_back(x.stride(i - lead));
      }
    }
    dispatch_pointwise(out.view(sizes), Tensor<T>::from_storage(x.storage(), sizes, src_strides, x.storage_offset()));
    return out;
  }
  // Too many factors for one view: repeat one dimension at a time, each
  // stage a contiguous (pre, s, post) -> (pre, r * s, post) copy.
  Shape padded = Shape::filled(lead, 1);
  for (int64_t s : x.sizes()) padded.push_back(s);
  Tensor<T> cur = x.contiguous().view(padded);
  for (int64_t i = 0; i < repeats.size(); ++i) {
    if (repeats[i] == 1) continue;
    int64_t pre = 1;
    for (int64_t k = 0; k < i; ++k) pre *= cur.size(k);
    Shape next = cur.sizes();
    next[i] *= repeats[i];
    cur = repeat_into_new(cur.view({pre, cur.size(i), -1}), {1, repeats[i], 1}, op).view(next);
  }
  return cur;
}

/// Copies `src` into `dst` with each dimension in `shifts` rotated: two
/// windows per rolled dimension (2^k copies for k rolled dimensions).
template <Element T>
void roll_windows(const Tensor<T>& dst, const Tensor<T>& src, const std::vector<std::pair<int64_t, int64_t>>& shifts,
                  std::size_t next) {
  if (next == shifts.size()) {
    dispatch_pointwise(dst, src);
    return;
  }
  const auto [d, s] = shifts[next];
  const int64_t n = src.size(d);
  roll_windows(dst.narrow(d, s, n - s), src.narrow(d, 0, n - s), shifts, next + 1);
  roll_windows(dst.narrow(d, 0, s), src.narrow(d, n - s, s), shifts, next + 1);
}

}  // namespace detail

/// The tensor tiled `repeats[i]` times along each dimension; extra leading
/// repeats add dimensions (torch.Tensor.repeat).
template <Expression E>
Tensor<value_type_t<E>> repeat(const E& input, const Shape& repeats) {
  using T = value_type_t<E>;
  const Tensor<T> x = input;
  if constexpr (differentiable<T>) {
    if (detail::records_grad(x))
      // Backward: each repeated dimension, split into (repeats, size), summed over the repeats.
      return autograd::record_view(
          x, "RepeatBackward", [&](const Tensor<T>& s) { return repeat(s, repeats); },
          [repeats, in = x.sizes()](const Tensor<T>& g) {
            Tensor<T> r = g;
            const int64_t lead = repeats.size() - in.size();
            for (int64_t i = 0; i < repeats.size(); ++i)
              if (repeats[i] != 1) r = r.unflatten(i, {repeats[i], i < lead ? 1 : in[i - lead]}).sum(i);
            return r.reshape(in);
          });
  }
  return detail::repeat_into_new(x, repeats, "repeat");
}

/// `repeat`, with missing leading repeats taken as 1 (torch.tile).
template <Expression E>
Tensor<value_type_t<E>> tile(const E& input, const Shape& dims) {
  const Tensor<value_type_t<E>> x = input;
  Shape repeats = Shape::filled(std::max<int64_t>(x.dim() - dims.size(), 0), 1);
  for (int64_t r : dims) repeats.push_back(r);
  if (detail::records_grad(x)) return repeat(x, repeats);
  return detail::repeat_into_new(x, repeats, "tile");
}

/// Each slice along `dim` repeated `repeats` times in place (torch.repeat_interleave);
/// without `dim`, over the flattened input. `output_size`, when given, must
/// equal the result's size along `dim`.
template <Expression E>
Tensor<value_type_t<E>> repeat_interleave(const E& input, int64_t repeats, std::optional<int64_t> dim = std::nullopt,
                                          std::optional<int64_t> output_size = std::nullopt) {
  using T = value_type_t<E>;
  Tensor<T> x = input;
  detail::check<ValueError>(repeats >= 0, "repeat_interleave: repeats can not be negative, got ", repeats);
  if (!dim) x = x.reshape({-1});
  detail::check<IndexError>(x.dim() > 0, "repeat_interleave: dimension specified as ", dim.value_or(0),
                            " but tensor has no dimensions");
  int64_t d = wrap_dim(dim.value_or(0), x.dim(), "repeat_interleave");
  Shape target = x.sizes();
  target[d] = checked_mul(target[d], repeats, "repeat_interleave");
  detail::check<ValueError>(!output_size || *output_size == target[d],
                            "repeat_interleave: allocated size does not match required size (output_size ",
                            output_size.value_or(0), ", required ", target[d], ")");
  if constexpr (differentiable<T>) {
    if (detail::records_grad(x)) {  // as PyTorch: an index_select, whose backward sums each group of copies
      const std::vector<int64_t> counts(static_cast<std::size_t>(x.size(d)), repeats);
      return autograd::index_select(x, d, detail::repeated_positions(counts, target[d], x.device()));
    }
  }
  auto out = empty<T>(target, {.device = x.device()});
  if (out.numel() == 0) return out;
  if (x.dim() == Shape::kMaxDims) {  // make room for the repeat dimension
    int64_t pre = 1;
    for (int64_t k = 0; k < d; ++k) pre *= x.size(k);
    x = x.contiguous().view({pre, x.size(d), -1});
    d = 1;
  }
  // out viewed as (..., n, repeats, ...) = x with a stride-0 repeat dimension.
  Shape sizes = x.sizes(), strides = x.strides();
  sizes.insert(d + 1, repeats);
  strides.insert(d + 1, 0);
  detail::dispatch_pointwise(out.view(sizes), Tensor<T>::from_storage(x.storage(), sizes, strides, x.storage_offset()));
  return out;
}

/// `repeat_interleave` with a repeat count per slice along `dim` (a 0-d or
/// one-element `repeats` applies to every slice).
template <Expression E>
Tensor<value_type_t<E>> repeat_interleave(const E& input, const Tensor<int64_t>& repeats,
                                          std::optional<int64_t> dim = std::nullopt,
                                          std::optional<int64_t> output_size = std::nullopt) {
  using T = value_type_t<E>;
  Tensor<T> x = input;
  detail::check<ShapeError>(repeats.dim() <= 1, "repeat_interleave: repeats must be 0-dim or 1-dim tensor, got ",
                            repeats.dim(), "-dim");
  if (repeats.numel() == 1) return repeat_interleave(x, repeats.item(), dim, output_size);
  if (!dim) x = x.reshape({-1});
  detail::check<IndexError>(x.dim() > 0, "repeat_interleave: dimension specified as ", dim.value_or(0),
                            " but tensor has no dimensions");
  const int64_t d = wrap_dim(dim.value_or(0), x.dim(), "repeat_interleave");
  detail::check<ShapeError>(repeats.size(0) == x.size(d),
                            "repeat_interleave: repeats must have the same size as input along dim, but got "
                            "repeats.size(0) = ",
                            repeats.size(0), " and input.size(", d, ") = ", x.size(d));
  const auto counts = repeats.to_vector();
  int64_t total = 0;
  for (const int64_t c : counts) {
    detail::check<ValueError>(c >= 0, "repeat_interleave: repeats can not be negative, got ", c);
    detail::check<ValueError>(!__builtin_add_overflow(total, c, &total),
                              "repeat_interleave: the sum of repeats overflows int64");
  }
  detail::check<ValueError>(!output_size || *output_size == total,
                            "repeat_interleave: allocated size does not match required size (output_size ",
                            output_size.value_or(0), ", required ", total, ")");
  const Tensor<int64_t> index = detail::repeated_positions(counts, total, Device(kCPU));
  if constexpr (differentiable<T>) {
    if (detail::records_grad(x))
      return autograd::index_select(x, d, x.device() == Device(kCPU) ? index : index.to(x.device()));
  }
  // A GPU gathers the slices with index_select's kernel.
  if (!x.is_cpu()) return index_select(x, d, index.to(x.device()));
  Shape target = x.sizes();
  target[d] = total;
  auto out = empty<T>(target, {.device = x.device()});
  if (out.numel() == 0) return out;
  const Tensor<T> src = x.contiguous();
  int64_t outer = 1, inner = 1;
  for (int64_t k = 0; k < d; ++k) outer *= x.size(k);
  for (int64_t k = d + 1; k < x.dim(); ++k) inner *= x.size(k);
  detail::dispatch_cpu_only(x.device(), "repeat_interleave", [&] {
    cpu::gather_slices(out.data_ptr(), src.data_ptr(), outer, x.size(d), inner, index.data_ptr(), total);
  });
  return out;
}

/// The indices 0, 1, ... each repeated `repeats[i]` times
/// (torch.repeat_interleave(repeats)).
inline Tensor<int64_t> repeat_interleave(const Tensor<int64_t>& repeats,
                                         std::optional<int64_t> output_size = std::nullopt) {
  detail::check<ShapeError>(repeats.dim() == 1, "repeat_interleave: only accept 1D vector as repeat, got ",
                            repeats.dim(), "-dim");
  return repeat_interleave(arange(repeats.size(0), {.device = repeats.device()}), repeats, 0, output_size);
}

/// A copy with the order of elements reversed along each of `dims` (torch.flip).
template <Expression E>
Tensor<value_type_t<E>> flip(const E& input, const Shape& dims) {
  using T = value_type_t<E>;
  const Tensor<T> x = input;
  if constexpr (differentiable<T>) {
    if (detail::records_grad(x))
      return autograd::record_view(
          x, "FlipBackward", [&](const Tensor<T>& s) { return flip(s, dims); },
          [dims](const Tensor<T>& g) { return flip(g, dims); });
  }
  const auto mask = detail::dim_mask(dims, x.dim(), "flip");
  auto out = empty<T>(x.sizes(), {.device = x.device()});
  if (out.numel() == 0) return out;
  Shape strides = x.strides();
  int64_t offset = x.storage_offset();
  for (int64_t d = 0; d < x.dim(); ++d) {
    if (!mask[static_cast<std::size_t>(d)]) continue;
    offset += (x.size(d) - 1) * strides[d];
    strides[d] = -strides[d];
  }
  detail::dispatch_pointwise(out, Tensor<T>::from_storage(x.storage(), x.sizes(), strides, offset));
  return out;
}

/// `flip` of dimension 1 (left-right) of a tensor with at least 2 dims.
template <Expression E>
Tensor<value_type_t<E>> fliplr(const E& input) {
  const Tensor<value_type_t<E>> x = input;
  detail::check<ShapeError>(x.dim() >= 2, "fliplr: input must be >= 2-d, got ", x.dim(), "-d");
  return flip(x, {1});
}

/// `flip` of dimension 0 (up-down) of a tensor with at least 1 dim.
template <Expression E>
Tensor<value_type_t<E>> flipud(const E& input) {
  const Tensor<value_type_t<E>> x = input;
  detail::check<ShapeError>(x.dim() >= 1, "flipud: input must be >= 1-d, got ", x.dim(), "-d");
  return flip(x, {0});
}

/// A copy with elements shifted circularly by `shifts[i]` along `dims[i]`
/// (torch.roll); with no dims, along the flattened tensor (one shift).
template <Expression E>
Tensor<value_type_t<E>> roll(const E& input, const Shape& shifts, const Shape& dims = {}) {
  using T = value_type_t<E>;
  const Tensor<T> x = input;
  if (dims.empty()) {
    detail::check<ValueError>(!shifts.empty(), "roll: `shifts` required");
    detail::check<ValueError>(shifts.size() == 1, "roll: shifts and dimensions must align. shifts: ", shifts.size(),
                              ", dims:0");
    return roll(x.reshape({-1}), shifts, {0}).view(x.sizes());
  }
  detail::check<ValueError>(shifts.size() == dims.size(),
                            "roll: shifts and dimensions must align. shifts: ", shifts.size(), ", dims:", dims.size());
  if constexpr (differentiable<T>) {
    if (detail::records_grad(x))
      return autograd::record_view(
          x, "RollBackward", [&](const Tensor<T>& s) { return roll(s, shifts, dims); },
          [shifts, dims](const Tensor<T>& g) {
            Shape back = shifts;
            for (int64_t& s : back) s = -s;
            return roll(g, back, dims);
          });
  }
  detail::check<IndexError>(x.dim() > 0, "roll: dimension specified as ", dims[0], " but tensor has no dimensions");
  Shape dims_wrapped = dims;
  for (int64_t& d : dims_wrapped) d = wrap_dim(d, x.dim(), "roll");
  auto out = empty<T>(x.sizes(), {.device = x.device()});
  if (out.numel() == 0) return out;
  Shape total = Shape::filled(x.dim(), 0);  // a dim named twice rolls by the sum
  for (int64_t i = 0; i < dims.size(); ++i) {
    const int64_t d = dims_wrapped[i];
    total[d] = (total[d] + shifts[i] % x.size(d)) % x.size(d);
  }
  std::vector<std::pair<int64_t, int64_t>> rolled;
  for (int64_t d = 0; d < x.dim(); ++d)
    if (const int64_t s = (total[d] + x.size(d)) % x.size(d); s != 0) rolled.emplace_back(d, s);
  detail::roll_windows(out, x, rolled, 0);
  return out;
}
/// `roll` of the flattened tensor by one shift.
template <Expression E>
Tensor<value_type_t<E>> roll(const E& input, int64_t shift) {
  return roll(input, Shape{shift});
}
/// `roll` along one dimension.
template <Expression E>
Tensor<value_type_t<E>> roll(const E& input, int64_t shift, int64_t dim) {
  return roll(input, Shape{shift}, Shape{dim});
}

/// Rotates by 90 degrees `k` times in the plane of `dims`, from the first
/// towards the second (torch.rot90).
template <Expression E>
Tensor<value_type_t<E>> rot90(const E& input, int64_t k = 1, const Shape& dims = {0, 1}) {
  const Tensor<value_type_t<E>> x = input;
  detail::check<ValueError>(dims.size() == 2, "rot90: expected total rotation dims == 2, but got dims = ", dims.size());
  detail::check<ShapeError>(x.dim() >= 2, "rot90: expected total dims >= 2, but got total dims = ", x.dim());
  detail::check<ValueError>(dims[0] != dims[1] && std::abs(dims[0] - dims[1]) != x.dim(),
                            "rot90: expected rotation dims to be different, but got dim0 = ", dims[0],
                            " and dim1 = ", dims[1]);
  const int64_t d0 = wrap_dim(dims[0], x.dim(), "rot90"), d1 = wrap_dim(dims[1], x.dim(), "rot90");
  switch (((k % 4) + 4) % 4) {
    case 1:
      return flip(x, {d1}).transpose(d0, d1);
    case 2:
      return flip(x, {d0, d1});
    case 3:
      return flip(x, {d0}).transpose(d0, d1);
    default:
      return x.is_contiguous() ? x.clone() : x.contiguous();
  }
}

/// A view with dims `source` moved to positions `destination`, the other
/// dims keeping their order (torch.movedim).
template <Expression E>
Tensor<value_type_t<E>> movedim(const E& input, const Shape& source, const Shape& destination) {
  const Tensor<value_type_t<E>> x = input;
  detail::check<ValueError>(source.size() == destination.size(),
                            "movedim: Invalid source or destination dims: source (", source,
                            " dims) should contain the same number of dims as destination (", destination, " dims)");
  const int64_t n = x.dim();
  if (n == 0) {
    for (int64_t s : source) wrap_dim(s, 0, "movedim");
    for (int64_t s : destination) wrap_dim(s, 0, "movedim");
    return x.view(x.sizes());
  }
  std::vector<int64_t> order(static_cast<std::size_t>(n), -1);
  std::vector<bool> moved(static_cast<std::size_t>(n), false), taken(static_cast<std::size_t>(n), false);
  for (int64_t i = 0; i < source.size(); ++i) {
    const auto s = static_cast<std::size_t>(wrap_dim(source[i], n, "movedim"));
    const auto d = static_cast<std::size_t>(wrap_dim(destination[i], n, "movedim"));
    detail::check<ValueError>(!moved[s], "movedim: repeated dim in `source` (", source, ")");
    detail::check<ValueError>(!taken[d], "movedim: repeated dim in `destination` (", destination, ")");
    moved[s] = taken[d] = true;
    order[d] = static_cast<int64_t>(s);
  }
  std::size_t next = 0;  // the unmoved dims fill the free positions in order
  for (std::size_t pos = 0; pos < order.size(); ++pos) {
    if (order[pos] >= 0) continue;
    while (moved[next]) ++next;
    order[pos] = static_cast<int64_t>(next++);
  }
  return x.permute(Shape(order));
}
/// `movedim` of one dimension.
template <Expression E>
Tensor<value_type_t<E>> movedim(const E& input, int64_t source, int64_t destination) {
  return movedim(input, Shape{source}, Shape{destination});
}

/// The input broadcast to `size` (-1 keeps a size): a view with stride 0
/// along broadcast dims (torch.broadcast_to, same as `expand`).
template <Expression E>
Tensor<value_type_t<E>> broadcast_to(const E& input, const Shape& size) {
  const Tensor<value_type_t<E>> x = input;
  return x.expand(size);
}

/// Every tensor broadcast to their common shape, as views (torch.broadcast_tensors).
template <Element T>
std::vector<Tensor<T>> broadcast_tensors(const std::vector<Tensor<T>>& tensors) {
  Shape shape;
  for (const auto& t : tensors) shape = broadcast_shapes(shape, t.sizes(), "broadcast_tensors");
  detail::check_same_device(tensors, "broadcast_tensors");
  std::vector<Tensor<T>> out;
  out.reserve(tensors.size());
  for (const auto& t : tensors) out.push_back(t.expand(shape));
  return out;
}
/// `broadcast_tensors` of a braced list: `tl::broadcast_tensors({a, b})`.
template <Element T>
std::vector<Tensor<T>> broadcast_tensors(std::initializer_list<Tensor<T>> tensors) {
  return broadcast_tensors(std::vector<Tensor<T>>(tensors));
}

/// Coordinate grids of 0-d or 1-d tensors, as expanded views of them
/// (torch.meshgrid). With `indexing` "ij" output i varies along dim i; with
/// "xy" the first two dims are swapped (Cartesian, as in NumPy).
template <Element T>
std::vector<Tensor<T>> meshgrid(const std::vector<Tensor<T>>& tensors, std::string_view indexing = "ij") {
  detail::check<ValueError>(!tensors.empty(), "meshgrid: expects a non-empty TensorList");
  detail::check<ValueError>(indexing == "ij" || indexing == "xy",
                            "meshgrid: indexing must be one of \"xy\" or \"ij\", but received: ", indexing);
  for (std::size_t i = 0; i < tensors.size(); ++i)
    detail::check<ShapeError>(tensors[i].dim() <= 1,
                              "meshgrid: expected 0D or 1D tensor in the tensor list but got a tensor of shape ",
                              tensors[i].sizes(), " at position ", i);
  detail::check_same_device(tensors, "meshgrid");
  const bool swap = indexing == "xy" && tensors.size() >= 2;
  std::vector<Tensor<T>> inputs = tensors;
  if (swap) std::swap(inputs[0], inputs[1]);
  Shape shape;
  for (const auto& t : inputs) shape.push_back(t.numel());
  std::vector<Tensor<T>> grids;
  grids.reserve(inputs.size());
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    Shape view_shape = Shape::filled(shape.size(), 1);
    view_shape[static_cast<int64_t>(i)] = shape[static_cast<int64_t>(i)];
    grids.push_back(inputs[i].view(view_shape).expand(shape));
  }
  if (swap) std::swap(grids[0], grids[1]);
  return grids;
}
/// `meshgrid` of a braced list: `tl::meshgrid({a, b})`.
template <Element T>
std::vector<Tensor<T>> meshgrid(std::initializer_list<Tensor<T>> tensors, std::string_view indexing = "ij") {
  return meshgrid(std::vector<Tensor<T>>(tensors), indexing);
}

/// All tuples (a0, a1, ...) of elements of the 1-d inputs, in row-major
/// order, as the rows of an (N, k) tensor (torch.cartesian_prod). One input
/// is returned as it is.
template <Element T>
Tensor<T> cartesian_prod(const std::vector<Tensor<T>>& tensors) {
  detail::check<ValueError>(!tensors.empty(), "cartesian_prod: expects a non-empty TensorList");
  for (const auto& t : tensors)
    detail::check<ShapeError>(t.dim() == 1, "cartesian_prod: expect a 1D vector, but got shape ", t.sizes());
  if (tensors.size() == 1) return tensors.front();
  const auto grids = meshgrid(tensors, "ij");
  return stack(grids, -1).view({-1, static_cast<int64_t>(tensors.size())});
}
/// `cartesian_prod` of a braced list: `tl::cartesian_prod({a, b})`.
template <Element T>
Tensor<T> cartesian_prod(std::initializer_list<Tensor<T>> tensors) {
  return cartesian_prod(std::vector<Tensor<T>>(tensors));
}

/// All length-`r` combinations of the elements of a 1-d tensor, in
/// lexicographic order of positions, as the rows of an (N, r) tensor
/// (torch.combinations; Python's itertools.combinations, or
/// combinations_with_replacement). r = 0 gives an empty 1-d tensor.
template <Expression E>
Tensor<value_type_t<E>> combinations(const E& input, int64_t r = 2, bool with_replacement = false) {
  using T = value_type_t<E>;
  const Tensor<T> x = input;
  detail::check<ShapeError>(x.dim() == 1, "combinations: expect a 1D vector, but got shape ", x.sizes());
  detail::check<ValueError>(r >= 0, "combinations: expect a non-negative number, but got ", r);
  if (r == 0) return empty<T>({0}, {.device = x.device()});
  const int64_t n = x.size(0);
  std::vector<int64_t> index;  // row after row of positions
  std::vector<int64_t> pos(static_cast<std::size_t>(r), 0);
  bool valid = with_replacement ? n > 0 : r <= n;
  if (!with_replacement)
    for (int64_t j = 0; j < r; ++j) pos[static_cast<std::size_t>(j)] = j;
  while (valid) {
    index.insert(index.end(), pos.begin(), pos.end());
    int64_t i = r - 1;  // the rightmost position that can still grow
    while (i >= 0 && pos[static_cast<std::size_t>(i)] == (with_replacement ? n - 1 : n - r + i)) --i;
    if (i < 0) break;
    ++pos[static_cast<std::size_t>(i)];
    for (int64_t j = i + 1; j < r; ++j)
      pos[static_cast<std::size_t>(j)] = pos[static_cast<std::size_t>(j - 1)] + (with_replacement ? 0 : 1);
  }
  const auto rows = static_cast<int64_t>(index.size()) / r;
  if constexpr (differentiable<T>) {
    if (detail::records_grad(x) && rows > 0)
      return autograd::index_select(x, 0, detail::positions(index, x.device())).view({rows, r});
  }
  // A GPU gathers the elements with index_select's kernel.
  if (!x.is_cpu() && rows > 0) return index_select(x, 0, detail::positions(index, x.device())).view({rows, r});
  auto out = empty<T>({rows, r}, {.device = x.device()});
  if (out.numel() == 0) return out;
  const Tensor<T> src = x.contiguous();
  detail::dispatch_cpu_only(x.device(), "combinations", [&] {
    cpu::gather_slices(out.data_ptr(), src.data_ptr(), 1, n, 1, index.data(), rows * r);
  });
  return out;
}

template <Element T>
Tensor<T> Tensor<T>::repeat(const Shape& repeats) const {
  return tensorlib::repeat(*this, repeats);
}

template <Element T>
Tensor<T> Tensor<T>::flip(const Shape& dims) const {
  return tensorlib::flip(*this, dims);
}

template <Element T>
Tensor<T> Tensor<T>::roll(const Shape& shifts, const Shape& dims) const {
  return tensorlib::roll(*this, shifts, dims);
}

template <Element T>
Tensor<T> Tensor<T>::movedim(const Shape& source, const Shape& destination) const {
  return tensorlib::movedim(*this, source, destination);
}

template <Element T>
Tensor<T> Tensor<T>::movedim(int64_t source, int64_t destination) const {
  return tensorlib::movedim(*this, Shape{source}, Shape{destination});
}

}  // namespace tensorlib
