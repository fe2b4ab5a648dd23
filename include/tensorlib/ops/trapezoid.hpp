#pragma once
/// \file
/// Integration by the trapezoidal rule along one dimension:
/// `tl::trapezoid` (alias `trapz`) and `tl::cumulative_trapezoid`, with
/// uniform spacing `dx` or sample points `x` (1-d along `dim`, or
/// broadcastable to y). Each trapezoid is (y[i+1] + y[i]) / 2 * dx[i], one
/// fused expression of narrowed views, then a sum or a cumsum; integral
/// samples compute in the default floating type, as PyTorch's do.
///
/// Shapes: n samples along `dim`; y (..., n, ...), x (n) or broadcastable.

#include <cstdint>
#include <type_traits>

#include "tensorlib/core/error.hpp"
#include "tensorlib/core/shape.hpp"
#include "tensorlib/core/tensor.hpp"
#include "tensorlib/expr/functions.hpp"
#include "tensorlib/expr/operators.hpp"
#include "tensorlib/ops/diff.hpp"
#include "tensorlib/ops/evaluate.hpp"
#include "tensorlib/ops/factories.hpp"
#include "tensorlib/ops/reduce.hpp"
#include "tensorlib/ops/scan.hpp"
#include "tensorlib/ops/views.hpp"

namespace tensorlib {
namespace detail {

/// The mean of each pair of neighbours along d, (y[i+1] + y[i]) / 2, as an
/// expression of two views (..., n - 1, ...) that the sum or cumsum reads.
template <Element F>
auto neighbour_means(const Tensor<F>& y, int64_t d) {
  const int64_t n = y.size(d);
  return (y.narrow(d, 1, n - 1) + y.narrow(d, 0, n - 1)) * 0.5;
}

/// The widths dx[i] = x[i+1] - x[i] along d, shaped to broadcast with y's
/// trapezoids: a 1-d x is laid along d (and must have a value per sample);
/// any other x broadcasts with y. Nothing to compute for an empty y.
template <Element F, Element X>
Tensor<F> sample_widths(const Tensor<X>& x, const Tensor<F>& y, int64_t d, const char* op) {
  check<ShapeError>(x.dim() != 1 || x.size(0) == y.size(d), op, ": There must be one `x` value for each sample point");
  const Tensor<F> xf = x.template to<F>();
  if (y.size(d) == 0) return xf;
  if (xf.dim() == 1) {
    Shape sizes;
    for (int64_t k = 0; k < y.dim(); ++k) sizes.push_back(k == d ? y.size(d) - 1 : 1);
    return diff(xf).view(sizes);
  }
  check<ShapeError>(xf.dim() >= y.dim() - d, op, ": x has ", xf.dim(), " dimensions, too few to hold dim ", d,
                    " of y's ", y.dim());
  return diff(xf, 1, d - y.dim());
}

}  // namespace detail

/// The integral of y along `dim` for samples `dx` apart (`torch.trapezoid`).
template <Expression E, class F = floating_t<value_type_t<E>>>
Tensor<F> trapezoid(const E& y_expr, double dx = 1, int64_t dim = -1) {
  const Tensor<F> y = Tensor<value_type_t<E>>(y_expr).template to<F>();
  const int64_t d = wrap_dim(dim, y.dim(), "trapezoid");
  if (y.size(d) == 0) return zeros<F>(y.sum(d).sizes(), {.device = y.device()});
  return (detail::neighbour_means(y, d) * dx).sum(d);
}

/// The integral of y along `dim` for samples at `x` (`torch.trapezoid(y, x)`).
template <Expression E, Expression X, class F = floating_t<promote_t<value_type_t<E>, value_type_t<X>>>>
Tensor<F> trapezoid(const E& y_expr, const X& x_expr, int64_t dim = -1) {
  const Tensor<F> y = Tensor<value_type_t<E>>(y_expr).template to<F>();
  const Tensor<value_type_t<X>> x = x_expr;
  const int64_t d = wrap_dim(dim, y.dim(), "trapezoid");
  const Tensor<F> widths = detail::sample_widths(x, y, d, "trapezoid");
  if (y.size(d) == 0) return zeros<F>(y.sum(d).sizes(), {.device = y.device()});
  return (detail::neighbour_means(y, d) * widths).sum(d);
}

/// `trapezoid` (NumPy's old name, torch.trapz).
template <Expression E>
auto trapz(const E& y, double dx = 1, int64_t dim = -1) {
  return trapezoid(y, dx, dim);
}
/// `trapezoid` with sample points.
template <Expression E, Expression X>
auto trapz(const E& y, const X& x, int64_t dim = -1) {
  return trapezoid(y, x, dim);
}

/// The running integral: element i is the integral over the first i + 2
/// samples, so `dim` has n - 1 elements (`torch.cumulative_trapezoid`).
template <Expression E, class F = floating_t<value_type_t<E>>>
Tensor<F> cumulative_trapezoid(const E& y_expr, double dx = 1, int64_t dim = -1) {
  const Tensor<F> y = Tensor<value_type_t<E>>(y_expr).template to<F>();
  const int64_t d = wrap_dim(dim, y.dim(), "cumulative_trapezoid");
  if (y.size(d) == 0) return y;
  return cumsum(detail::neighbour_means(y, d) * dx, d);
}

/// The running integral for samples at `x`.
template <Expression E, Expression X, class F = floating_t<promote_t<value_type_t<E>, value_type_t<X>>>>
Tensor<F> cumulative_trapezoid(const E& y_expr, const X& x_expr, int64_t dim = -1) {
  const Tensor<F> y = Tensor<value_type_t<E>>(y_expr).template to<F>();
  const Tensor<value_type_t<X>> x = x_expr;
  const int64_t d = wrap_dim(dim, y.dim(), "cumulative_trapezoid");
  const Tensor<F> widths = detail::sample_widths(x, y, d, "cumulative_trapezoid");
  if (y.size(d) == 0) return y;
  return cumsum(detail::neighbour_means(y, d) * widths, d);
}

}  // namespace tensorlib
