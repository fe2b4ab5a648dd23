#pragma once
/// \file
/// `tl::gradient`: NumPy's and PyTorch's `gradient`, the derivative of
/// sampled values along each requested dimension by second-order central
/// differences inside and first- or second-order one-sided differences at
/// the two ends (`edge_order`). Samples are a uniform `spacing` apart (one
/// for every dimension, or one per dimension) or at given coordinates (one
/// 1-d tensor per dimension, possibly uneven). Each derivative is one fused
/// expression of narrowed views, so it differentiates and runs on any device;
/// integral inputs compute in the default floating type.
///
/// Shapes: n samples along a dimension; every result has the input's shape.

#include <cstdint>
#include <optional>
#include <type_traits>
#include <vector>

#include "tensorlib/core/dim_list.hpp"
#include "tensorlib/core/error.hpp"
#include "tensorlib/core/shape.hpp"
#include "tensorlib/core/tensor.hpp"
#include "tensorlib/expr/functions.hpp"
#include "tensorlib/expr/operators.hpp"
#include "tensorlib/ops/diff.hpp"
#include "tensorlib/ops/evaluate.hpp"
#include "tensorlib/ops/index_common.hpp"
#include "tensorlib/ops/join.hpp"
#include "tensorlib/ops/views.hpp"

namespace tensorlib {
namespace detail {

/// The dimensions `gradient` differentiates along, wrapped, after its checks.
template <Element T>
std::vector<int64_t> gradient_dims(const Tensor<T>& f, const DimList& dim, int64_t edge_order) {
  check<ValueError>(edge_order == 1 || edge_order == 2,
                    "gradient: torch.gradient only supports edge_order=1 and edge_order=2, got ", edge_order);
  std::vector<int64_t> dims;
  if (dim.dims().empty())
    for (int64_t d = 0; d < f.dim(); ++d) dims.push_back(d);
  else
    for (int64_t d : dim.dims()) {
      const int64_t w = wrap_dim(d, f.dim(), "gradient");
      for (int64_t seen : dims)
        check<ValueError>(seen != w, "gradient: dim ", w, " appears multiple times in the list of dims");
      dims.push_back(w);
    }
  for (int64_t d : dims)
    check<ValueError>(f.size(d) >= edge_order + 1,
                      "gradient: torch.gradient expected each dimension size to be at least edge_order+1, got size ",
                      f.size(d), " in dimension ", d, " with edge_order ", edge_order);
  return dims;
}

/// `a` (1-d, n - 1 or so values) laid along dimension d of an ndim-d tensor.
template <Element F>
Tensor<F> along(const Tensor<F>& a, int64_t d, int64_t ndim) {
  Shape sizes;
  for (int64_t k = 0; k < ndim; ++k) sizes.push_back(k == d ? a.numel() : 1);
  return a.reshape(sizes);
}

/// The derivative of f along d for samples h apart, in F. The central and
/// first-order differences of integers are taken in their own type (exact,
/// as PyTorch's) before the division.
template <Element F, Element T>
Tensor<F> uniform_gradient(const Tensor<T>& x, int64_t d, double h, int64_t edge_order) {
  static_assert(!std::is_same_v<T, bool>, "tl::gradient: bool tensors have no differences; convert with .to<float>()");
  const Tensor<F> f = x.template to<F>();
  const int64_t n = f.size(d);
  auto at = [&](int64_t start, int64_t length) { return f.narrow(d, start, length); };
  auto exact = [&](int64_t start, int64_t from, int64_t length) {
    return cast<F>(x.narrow(d, start, length) - x.narrow(d, from, length));
  };
  const Tensor<F> inner = exact(2, 0, n - 2) / (2 * h);
  Tensor<F> first, last;
  if (edge_order == 1) {
    first = exact(1, 0, 1) / h;
    last = exact(n - 1, n - 2, 1) / h;
  } else {
    first = (at(0, 1) * -1.5 + at(1, 1) * 2.0 - at(2, 1) * 0.5) / h;
    last = (at(n - 3, 1) * 0.5 - at(n - 2, 1) * 2.0 + at(n - 1, 1) * 1.5) / h;
  }
  return cat({first, inner, last}, d);
}

/// The derivative of f along d for samples at the 1-d coordinates x (NumPy's
/// formulas for uneven spacing, exact for quadratics inside and, with
/// edge_order 2, at the ends).
template <Element F>
Tensor<F> coordinate_gradient(const Tensor<F>& f, int64_t d, const Tensor<F>& x, int64_t edge_order) {
  const int64_t n = f.size(d), nd = f.dim();
  check<ShapeError>(x.dim() == 1 && x.size(0) == n, "gradient: expected the coordinates of dimension ", d,
                    " to be a 1-D tensor of ", n, " values, but got shape ", x.sizes());
  check_devices("gradient", f.device(), x);
  auto at = [&](int64_t start, int64_t length) { return f.narrow(d, start, length); };
  const Tensor<F> h = diff(x);  // (n - 1)
  auto step = [&](int64_t start, int64_t length) { return along(h.narrow(0, start, length), d, nd); };
  const Tensor<F> h1 = step(0, n - 2), h2 = step(1, n - 2);
  const Tensor<F> inner = at(0, n - 2) * (-h2 / (h1 * (h1 + h2))) + at(1, n - 2) * ((h2 - h1) / (h1 * h2)) +
                          at(2, n - 2) * (h1 / (h2 * (h1 + h2)));
  Tensor<F> first, last;
  if (edge_order == 1) {
    first = (at(1, 1) - at(0, 1)) / step(0, 1);
    last = (at(n - 1, 1) - at(n - 2, 1)) / step(n - 2, 1);
  } else {
    const Tensor<F> a1 = step(0, 1), a2 = step(1, 1), b1 = step(n - 3, 1), b2 = step(n - 2, 1);
    first = at(0, 1) * (-(a1 * 2.0 + a2) / (a1 * (a1 + a2))) + at(1, 1) * ((a1 + a2) / (a1 * a2)) +
            at(2, 1) * (-a1 / (a2 * (a1 + a2)));
    last = at(n - 3, 1) * (b2 / (b1 * (b1 + b2))) + at(n - 2, 1) * (-(b1 + b2) / (b1 * b2)) +
           at(n - 1, 1) * ((b2 * 2.0 + b1) / (b2 * (b1 + b2)));
  }
  return cat({first, inner, last}, d);
}

/// PyTorch's check that a list of spacings has one entry per dimension.
inline void check_spacing_count(std::size_t given, std::size_t dims) {
  check<ValueError>(given == dims,
                    "gradient: torch.gradient expected spacing to be unspecified, a scalar or a list "
                    "of length ",
                    dims, " but got a list of length ", given);
}

}  // namespace detail

/// The derivative of `input` along each dimension in `dim` (all by default)
/// for samples `spacing` apart (`torch.gradient(input, spacing=h, dim,
/// edge_order)`): one tensor per dimension, each of input's shape.
template <Expression E, class F = floating_t<value_type_t<E>>>
std::vector<Tensor<F>> gradient(const E& input, double spacing = 1.0, const DimList& dim = {}, int64_t edge_order = 1) {
  const Tensor<value_type_t<E>> x = input;
  std::vector<Tensor<F>> out;
  for (int64_t d : detail::gradient_dims(x, dim, edge_order))
    out.push_back(detail::uniform_gradient<F>(x, d, spacing, edge_order));
  return out;
}

/// `gradient` with one uniform spacing per differentiated dimension.
template <Expression E, class F = floating_t<value_type_t<E>>>
std::vector<Tensor<F>> gradient(const E& input, const std::vector<double>& spacing, const DimList& dim = {},
                                int64_t edge_order = 1) {
  const Tensor<value_type_t<E>> x = input;
  const std::vector<int64_t> dims = detail::gradient_dims(x, dim, edge_order);
  detail::check_spacing_count(spacing.size(), dims.size());
  std::vector<Tensor<F>> out;
  for (std::size_t i = 0; i < dims.size(); ++i)
    out.push_back(detail::uniform_gradient<F>(x, dims[i], spacing[i], edge_order));
  return out;
}

/// `gradient` with the samples' coordinates: one 1-d tensor per
/// differentiated dimension, as many values as the dimension has.
template <Expression E, class F = floating_t<value_type_t<E>>>
std::vector<Tensor<F>> gradient(const E& input, const std::vector<Tensor<F>>& coordinates, const DimList& dim = {},
                                int64_t edge_order = 1) {
  const Tensor<F> f = Tensor<value_type_t<E>>(input).template to<F>();
  const std::vector<int64_t> dims = detail::gradient_dims(f, dim, edge_order);
  detail::check_spacing_count(coordinates.size(), dims.size());
  std::vector<Tensor<F>> out;
  for (std::size_t i = 0; i < dims.size(); ++i)
    out.push_back(detail::coordinate_gradient(f, dims[i], coordinates[i], edge_order));
  return out;
}

}  // namespace tensorlib
