#pragma once
/// \file
/// The recording forms of the indexing ops (declared in
/// ops/gather_scatter.hpp, ops/index_ops.hpp, ops/masked.hpp), with
/// PyTorch's formulas:
///
///     gather(x, d, i)              dx = zeros.scatter_add(d, i, g)
///     scatter(x, d, i, src)        dx = g.scatter(d, i, 0)   dsrc = g.gather(d, i)
///     scatter(x, d, i, value)      dx = g.scatter(d, i, 0)
///     scatter_add(x, d, i, src)    dx = g                    dsrc = g.gather(d, i)
///     scatter_reduce(x, d, i, src, r, include_self): PyTorch's scatter_reduce_backward
///                                  (below), dx zero where include_self=false scattered
///     index_select(x, d, i)        dx = zeros.index_add(d, i, g)
///     index_add(x, d, i, s, a)     dx = g                    ds = a * g.index_select(d, i)
///     index_copy(x, d, i, s)       dx = g.index_fill(d, i, 0) ds = g.index_select(d, i)
///     index_fill(x, d, i, v)       dx = g.index_fill(d, i, 0)
///     take(x, i)                   dx = zeros.put(i, g, accumulate)
///     masked_fill(x, m, v)         dx = g.masked_fill(m, 0)  dv = sum(g where m)  (v a 0-d
///                                  tensor; with a number v it is a fused `where`)
///     masked_select(x, m)          dx = zeros.masked_scatter(m, g), summed to x's shape
///     masked_scatter(x, m, s)      dx = g.masked_fill(m, 0)  ds = g.masked_select(m), zero-padded
///     index_put(x, idx, v, acc)    dx = acc ? g : g.index_put(idx, 0)   dv = g.index(idx), summed to v's shape
///
/// `x.index({...})` with index tensors records in ops/advanced_index.hpp
/// (dx = zeros with g added at the indexed positions; create_graph through
/// it is refused, as through as_strided, rather than silently wrong).
///
/// Index tensors and masks are saved and version-checked like saved inputs;
/// unlike them they are kept until the graph dies rather than freed after
/// backward. (The index tensors of `x.index({...})` are kept unchecked.)
/// The formulas use the public ops; those that scatter into zeros do not
/// record under create_graph (a second derivative of them is zero except
/// through the scattered gradient, which scatter_add's own form records).

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "tensorlib/autograd/op_backward.hpp"
#include "tensorlib/autograd/saved_tensor.hpp"
#include "tensorlib/core/tensor.hpp"
#include "tensorlib/expr/functions.hpp"
#include "tensorlib/ops/advanced_index.hpp"
#include "tensorlib/ops/factories.hpp"
#include "tensorlib/ops/gather_scatter.hpp"
#include "tensorlib/ops/index_ops.hpp"
#include "tensorlib/ops/join.hpp"
#include "tensorlib/ops/masked.hpp"
#include "tensorlib/ops/reduce.hpp"

namespace tensorlib::autograd {
namespace detail {

template <Element T>
Tensor<T> zeros_of(const Shape& sizes, const Tensor<T>& like) {
  return zeros<T>(sizes, {.device = like.device()});
}

template <Element T>
using Grads = std::vector<Tensor<T>>;
template <Element T>
using NoSaved = std::array<SavedTensor<T>, 0>;

}  // namespace detail

template <Element T>
Tensor<T> gather(const Tensor<T>& input, int64_t dim, const Tensor<int64_t>& index) {
  const char* name = "GatherBackward";
  auto f = [name, d = wrap_dim(dim, input.dim(), "gather"), idx = SavedTensor<int64_t>(index, false),
            sizes = input.sizes()](const detail::Grads<T>& g, const auto&, const std::vector<bool>&) {
    return detail::Grads<T>{tensorlib::scatter_add(detail::zeros_of(sizes, g[0]), d, idx.unpack(name), g[0])};
  };
  return record<T>(
      name, [&] { return tensorlib::gather(input, dim, index); }, f, detail::NoSaved<T>{}, input);
}

template <Element T>
Tensor<T> scatter(const Tensor<T>& input, int64_t dim, const Tensor<int64_t>& index, const Tensor<T>& src) {
  const char* name = "ScatterBackward";
  auto f = [name, d = wrap_dim(dim, input.dim(), "scatter"), idx = SavedTensor<int64_t>(index, false)](
               const detail::Grads<T>& g, const auto&, const std::vector<bool>& needs) {
    const Tensor<int64_t> i = idx.unpack(name);
    return detail::Grads<T>{needs[0] ? tensorlib::scatter(g[0], d, i, T(0)) : Tensor<T>(),
                            needs[1] ? tensorlib::gather(g[0], d, i) : Tensor<T>()};
  };
  return record<T>(
      name, [&] { return tensorlib::scatter(input, dim, index, src); }, f, detail::NoSaved<T>{}, input, src);
}

template <Element T>
Tensor<T> scatter(const Tensor<T>& input, int64_t dim, const Tensor<int64_t>& index, T value) {
  const char* name = "ScatterBackward";
  auto f = [name, d = wrap_dim(dim, input.dim(), "scatter"), idx = SavedTensor<int64_t>(index, false)](
               const detail::Grads<T>& g, const auto&, const std::vector<bool>&) {
    return detail::Grads<T>{tensorlib::scatter(g[0], d, idx.unpack(name), T(0))};
  };
  return record<T>(
      name, [&] { return tensorlib::scatter(input, dim, index, value); }, f, detail::NoSaved<T>{}, input);
}

template <Element T>
Tensor<T> scatter_add(const Tensor<T>& input, int64_t dim, const Tensor<int64_t>& index, const Tensor<T>& src) {
  const char* name = "ScatterAddBackward";
  auto f = [name, d = wrap_dim(dim, input.dim(), "scatter_add"), idx = SavedTensor<int64_t>(index, false)](
               const detail::Grads<T>& g, const auto&, const std::vector<bool>& needs) {
    return detail::Grads<T>{g[0], needs[1] ? tensorlib::gather(g[0], d, idx.unpack(name)) : Tensor<T>()};
  };
  return record<T>(
      name, [&] { return tensorlib::scatter_add(input, dim, index, src); }, f, detail::NoSaved<T>{}, input, src);
}

/// PyTorch's scatter_reduce_backward, y = scatter_reduce(x, d, i, src, r):
///   sum   dx = g                               dsrc = g.gather(d, i)
///   mean  dx = g / N                           dsrc = (g / N).gather(d, i)
///         N: the number of values averaged at each position (1 where none)
///   amax, amin: the gradient shared evenly among the values equal to the result
///   prod  dx = g * y' / x' (x' = x with zeros as 1, y' the product over x'),
///         dsrc = (g * y).gather / src, or, for the one zero of a position,
///         g times the product of the other values
/// With include_self = false, dx is zero where anything was scattered.
template <Element T>
Tensor<T> scatter_reduce(const Tensor<T>& input, int64_t dim, const Tensor<int64_t>& index, const Tensor<T>& src,
                         std::string_view reduce, bool include_self) {
  const char* name = "ScatterReduceBackward";
  using R = tensorlib::detail::ScatterReduce;
  const R r = tensorlib::detail::parse_scatter_reduce(reduce, false, "scatter_reduce");
  auto f = [name, r, reduce = std::string(reduce), include_self, d = wrap_dim(dim, input.dim(), "scatter_reduce"),
            idx = SavedTensor<int64_t>(index, false)](const detail::Grads<T>& g, const std::array<Tensor<T>, 3>& s,
                                                      const std::vector<bool>& needs) {
    const Tensor<int64_t> i = idx.unpack(name);
    const Tensor<T>&self = s[0], &source = s[1], &result = s[2], &grad = g[0];
    Tensor<T> grad_self, grad_src;
    switch (r) {
      case R::sum:
        grad_self = grad;
        grad_src = tensorlib::gather(grad, d, i);
        break;
      case R::mean: {
        const Tensor<T> start =
            include_self ? Tensor<T>(tensorlib::ones_like(grad)) : detail::zeros_of(grad.sizes(), grad);
        Tensor<T> n = tensorlib::scatter_add(start, d, i, Tensor<T>(tensorlib::ones_like(source)));
        n = where(n == T(0), T(1), n);
        grad_self = grad / n;
        grad_src = tensorlib::gather(grad_self, d, i);
        break;
      }
      case R::amax:
      case R::amin: {
        const Tensor<T> value = tensorlib::gather(result, d, i);
        const Tensor<T> self_is = cast<T>(self == result), src_is = cast<T>(source == value);
        const Tensor<T> share = grad / tensorlib::scatter_add(self_is, d, i, src_is);
        grad_self = self_is * share;
        grad_src = src_is * tensorlib::gather(share, d, i);
        break;
      }
      case R::prod: {
        const Tensor<T> self_ones = where(self == T(0), T(1), self);
        grad_self = grad * tensorlib::scatter_reduce(self_ones, d, i, source, reduce, include_self) / self_ones;
        const Tensor<bool> src_zero = source == T(0);
        const Tensor<T> zeros_at = tensorlib::gather(
            tensorlib::scatter_add(detail::zeros_of(self.sizes(), self), d, i, Tensor<T>(cast<T>(src_zero))), d, i);
        const Tensor<bool> single_zero = logical_and(src_zero, zeros_at == T(1));
        const Tensor<T> others =
            tensorlib::scatter_reduce(self, d, i, Tensor<T>(where(single_zero, T(1), source)), reduce, include_self);
        grad_src = where(single_zero, tensorlib::gather(Tensor<T>(grad * others), d, i),
                         tensorlib::gather(Tensor<T>(grad * result), d, i) / where(src_zero, T(1), source));
        break;
      }
      case R::none:
        break;
    }
    if (!include_self && needs[0]) grad_self = tensorlib::scatter(grad_self, d, i, T(0));
    return detail::Grads<T>{needs[0] ? grad_self : Tensor<T>(), needs[1] ? grad_src : Tensor<T>()};
  };
  return record_with_output<T>(
      name, [&] { return tensorlib::scatter_reduce(input, dim, index, src, reduce, include_self); }, f,
      detail::save_all<T>(input, src), input, src);
}

template <Element T>
Tensor<T> index_select(const Tensor<T>& input, int64_t dim, const Tensor<int64_t>& index) {
  const char* name = "IndexSelectBackward";
  auto f = [name, d = wrap_dim(dim, input.dim(), "index_select"), idx = SavedTensor<int64_t>(index, false),
            sizes = input.sizes()](const detail::Grads<T>& g, const auto&, const std::vector<bool>&) {
    if (sizes.empty()) return detail::Grads<T>{g[0]};  // a 0-d input: its one element
    return detail::Grads<T>{tensorlib::index_add(detail::zeros_of(sizes, g[0]), d, idx.unpack(name), g[0])};
  };
  return record<T>(
      name, [&] { return tensorlib::index_select(input, dim, index); }, f, detail::NoSaved<T>{}, input);
}

template <Element T>
Tensor<T> index_add(const Tensor<T>& input, int64_t dim, const Tensor<int64_t>& index, const Tensor<T>& source,
                    T alpha) {
  const char* name = "IndexAddBackward";
  auto f = [name, d = wrap_dim(dim, input.dim(), "index_add"), idx = SavedTensor<int64_t>(index, false),
            source_sizes = source.sizes(),
            alpha](const detail::Grads<T>& g, const auto&, const std::vector<bool>& needs) {
    Tensor<T> ds;
    if (needs[1]) ds = Tensor<T>(tensorlib::index_select(g[0], d, idx.unpack(name)) * alpha).reshape(source_sizes);
    return detail::Grads<T>{g[0], ds};
  };
  return record<T>(
      name, [&] { return tensorlib::index_add(input, dim, index, source, alpha); }, f, detail::NoSaved<T>{}, input,
      source);
}

template <Element T>
Tensor<T> index_copy(const Tensor<T>& input, int64_t dim, const Tensor<int64_t>& index, const Tensor<T>& source) {
  const char* name = "IndexCopyBackward";
  auto f = [name, d = wrap_dim(dim, input.dim(), "index_copy"), idx = SavedTensor<int64_t>(index, false),
            source_sizes = source.sizes()](const detail::Grads<T>& g, const auto&, const std::vector<bool>& needs) {
    const Tensor<int64_t> i = idx.unpack(name);
    return detail::Grads<T>{needs[0] ? tensorlib::index_fill(g[0], d, i, T(0)) : Tensor<T>(),
                            needs[1] ? tensorlib::index_select(g[0], d, i).reshape(source_sizes) : Tensor<T>()};
  };
  return record<T>(
      name, [&] { return tensorlib::index_copy(input, dim, index, source); }, f, detail::NoSaved<T>{}, input, source);
}

template <Element T>
Tensor<T> index_fill(const Tensor<T>& input, int64_t dim, const Tensor<int64_t>& index, T value) {
  const char* name = "IndexFillBackward";
  auto f = [name, d = wrap_dim(dim, input.dim(), "index_fill"), idx = SavedTensor<int64_t>(index, false)](
               const detail::Grads<T>& g, const auto&, const std::vector<bool>&) {
    return detail::Grads<T>{tensorlib::index_fill(g[0], d, idx.unpack(name), T(0))};
  };
  return record<T>(
      name, [&] { return tensorlib::index_fill(input, dim, index, value); }, f, detail::NoSaved<T>{}, input);
}

template <Element T>
Tensor<T> take(const Tensor<T>& input, const Tensor<int64_t>& index) {
  const char* name = "TakeBackward";
  auto f = [name, idx = SavedTensor<int64_t>(index, false), sizes = input.sizes()](
               const detail::Grads<T>& g, const auto&, const std::vector<bool>&) {
    return detail::Grads<T>{tensorlib::put(detail::zeros_of(sizes, g[0]), idx.unpack(name), g[0], true)};
  };
  return record<T>(
      name, [&] { return tensorlib::take(input, index); }, f, detail::NoSaved<T>{}, input);
}

template <Element T>
Tensor<T> masked_fill(const Tensor<T>& input, const Tensor<bool>& mask, const Tensor<T>& value) {
  const char* name = "MaskedFillBackward";
  auto f = [name, m = SavedTensor<bool>(mask, false), sizes = input.sizes()](const detail::Grads<T>& g, const auto&,
                                                                             const std::vector<bool>& needs) {
    const Tensor<bool> mk = m.unpack(name);
    return detail::Grads<T>{needs[0] ? tensorlib::masked_fill(g[0], mk, T(0)).sum_to_size(sizes) : Tensor<T>(),
                            needs[1] ? tensorlib::sum(where(mk, g[0], T(0))) : Tensor<T>()};
  };
  return record<T>(
      name, [&] { return tensorlib::masked_fill(input, mask, value); }, f, detail::NoSaved<T>{}, input, value);
}

template <Element T>
Tensor<T> masked_select(const Tensor<T>& input, const Tensor<bool>& mask) {
  const char* name = "MaskedSelectBackward";
  auto f = [name, m = SavedTensor<bool>(mask, false), sizes = input.sizes()](const detail::Grads<T>& g, const auto&,
                                                                             const std::vector<bool>&) {
    const Tensor<bool> mk = m.unpack(name);
    const Shape shape = broadcast_shapes(sizes, mk.sizes());
    return detail::Grads<T>{
        tensorlib::masked_scatter(detail::zeros_of(shape, g[0]), mk.expand(shape), g[0]).sum_to_size(sizes)};
  };
  return record<T>(
      name, [&] { return tensorlib::masked_select(input, mask); }, f, detail::NoSaved<T>{}, input);
}

template <Element T>
Tensor<T> masked_scatter(const Tensor<T>& input, const Tensor<bool>& mask, const Tensor<T>& source) {
  const char* name = "MaskedScatterBackward";
  auto f = [name, m = SavedTensor<bool>(mask, false), sizes = input.sizes(), source_sizes = source.sizes()](
               const detail::Grads<T>& g, const auto&, const std::vector<bool>& needs) {
    const Tensor<bool> mk = m.unpack(name);
    Tensor<T> ds;
    if (needs[1]) {
      const Tensor<T> picked = tensorlib::masked_select(g[0], mk);
      const int64_t pad = source_sizes.numel() - picked.numel();
      ds = tensorlib::cat({picked, detail::zeros_of(Shape{pad}, picked)}).reshape(source_sizes);
    }
    return detail::Grads<T>{needs[0] ? tensorlib::masked_fill(g[0], mk, T(0)).sum_to_size(sizes) : Tensor<T>(), ds};
  };
  return record<T>(
      name, [&] { return tensorlib::masked_scatter(input, mask, source); }, f, detail::NoSaved<T>{}, input, source);
}

template <Element T>
Tensor<T> index_put(const Tensor<T>& input, const std::vector<std::optional<Tensor<int64_t>>>& indices,
                    const Tensor<T>& values, bool accumulate) {
  const char* name = "IndexPutBackward";
  std::vector<SavedTensor<int64_t>> saved;
  for (const auto& i : indices) saved.emplace_back(i ? *i : Tensor<int64_t>(), false);
  auto f = [name, saved, values_sizes = values.sizes(), accumulate](const detail::Grads<T>& g, const auto&,
                                                                    const std::vector<bool>& needs) {
    std::vector<std::optional<Tensor<int64_t>>> idx;
    for (const auto& s : saved) {
      Tensor<int64_t> t = s.unpack(name);
      idx.push_back(t.defined() ? std::optional<Tensor<int64_t>>(t) : std::nullopt);
    }
    Tensor<T> dx = g[0], dv;
    if (needs[0] && !accumulate) dx = tensorlib::index_put(g[0], idx, zeros<T>({}, {.device = g[0].device()}));
    if (needs[1]) dv = g[0].index(::tensorlib::detail::index_list(g[0], idx, "index_put")).sum_to_size(values_sizes);
    return detail::Grads<T>{dx, dv};
  };
  return record<T>(
      name, [&] { return tensorlib::index_put(input, indices, values, accumulate); }, f, detail::NoSaved<T>{}, input,
      values);
}

}  // namespace tensorlib::autograd
