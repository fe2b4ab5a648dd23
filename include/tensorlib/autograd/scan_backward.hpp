#pragma once
/// \file
/// The recording forms of `prod`, `cumsum`, `cumprod` and `logcumsumexp`
/// (declared in ops/reduce.hpp and ops/scan.hpp), with PyTorch's formulas:
///
/// * prod:    dx = g * out / x when no element is 0; otherwise g times the
///            product of the other elements, computed from exclusive
///            cumulative products from both ends (exact with zeros).
/// * cumsum:  dx = reverse cumulative sum of g.
/// * cumprod: dx = reverse_cumsum(g * out) / x when no element is 0;
///            otherwise per slice, with z the first zero: positions before
///            z as before, position z gets sum_{k >= z} g_k prod_{j <= k,
///            j != z} x_j, positions after z get 0 (PyTorch's
///            cumprod_backward). That slice loop runs on the host and does
///            not record: under create_graph it is refused
///            (NotImplementedError), not silently wrong.
/// * logcumsumexp: dx_j = sum_{k >= j} g_k exp(x_j - out_k), summed in log
///            space for the positive and the negative g separately (reverse
///            logcumsumexp of log|g| - out), as PyTorch's
///            logcumsumexp_backward does, so it neither overflows nor
///            underflows where the terms are large or tiny.
///
/// The other formulas use the public ops, so they record under create_graph.

#include <array>
#include <cstdint>
#include <limits>
#include <vector>

#include "tensorlib/autograd/op_backward.hpp"
#include "tensorlib/core/dim_list.hpp"
#include "tensorlib/core/error.hpp"
#include "tensorlib/core/grad_mode.hpp"
#include "tensorlib/core/shape.hpp"
#include "tensorlib/core/tensor.hpp"
#include "tensorlib/expr/functions.hpp"
#include "tensorlib/expr/operators.hpp"
#include "tensorlib/ops/dispatch.hpp"
#include "tensorlib/ops/factories.hpp"
#include "tensorlib/ops/join.hpp"
#include "tensorlib/ops/rearrange.hpp"
#include "tensorlib/ops/reduce.hpp"
#include "tensorlib/ops/scan.hpp"

namespace tensorlib::autograd {
namespace detail {

template <Element T>
bool has_zero(const Tensor<T>& x) {
  return tensorlib::any(eq(x, T(0))).item();
}

/// The scan `scan(v, dim)` (cumsum, logcumsumexp) run from the end of `dim`.
template <Element T, class Scan>
Tensor<T> reversed_scan(const Tensor<T>& g, int64_t dim, Scan scan) {
  if (g.dim() == 0) return g;
  return tensorlib::flip(scan(tensorlib::flip(g, {dim}), dim), {dim});
}

/// Reverse cumulative sum along `dim` (cumsum's backward).
template <Element T>
Tensor<T> reverse_cumsum(const Tensor<T>& g, int64_t dim) {
  return reversed_scan(g, dim, [](const Tensor<T>& v, int64_t d) { return tensorlib::cumsum(v, d); });
}

/// For every element, the product of the other elements of its reduction
/// group (the dims of `mask`): exclusive cumulative products from the left
/// and from the right, multiplied.
template <Element T>
Tensor<T> product_of_others(const Tensor<T>& x, uint32_t mask) {
  Shape perm, permuted;
  int64_t groups = 1, n = 1;
  for (int64_t d = 0; d < x.dim(); ++d)
    if (!(mask >> d & 1u)) {
      perm.push_back(d);
      permuted.push_back(x.size(d));
      groups *= x.size(d);
    }
  for (int64_t d = 0; d < x.dim(); ++d)
    if (mask >> d & 1u) {
      perm.push_back(d);
      permuted.push_back(x.size(d));
      n *= x.size(d);
    }
  if (x.numel() == 0) return zeros<T>(x.sizes(), {.device = x.device()});
  const Tensor<T> rows = x.permute(perm).reshape({groups, n});
  const Tensor<T> one = ones<T>({groups, 1}, {.device = x.device()});
  const Tensor<T> left = tensorlib::cat({one, tensorlib::cumprod(rows.narrow(1, 0, n - 1), 1)}, 1);
  const Tensor<T> right = tensorlib::flip(
      tensorlib::cat({one, tensorlib::cumprod(tensorlib::flip(rows, {1}).narrow(1, 0, n - 1), 1)}, 1), {1});
  Shape inverse = Shape::filled(x.dim(), 0);
  for (int64_t i = 0; i < x.dim(); ++i) inverse[perm[i]] = i;
  return Tensor<T>(left * right).reshape(permuted).permute(inverse);
}

/// cumprod's backward for inputs with zeros (see the file comment) along
/// one line of n elements `step` apart from offset o0 of contiguous g, x,
/// out and dx: the CPU's loop body and a GPU thread's (a line each).
template <Element T>
struct CumprodBackwardLine {
  T* dx;
  const T *g, *x, *out;
  int64_t n, step;
  TENSORLIB_HOST_DEVICE void operator()(const std::array<int64_t, 1>& o) const {
    const int64_t base = o[0];
    const auto at = [&](int64_t j) { return base + j * step; };
    int64_t z = 0;  // the first zero
    while (z < n && x[at(z)] != T(0)) ++z;
    T suffix = 0;  // sum_{k >= j} g_k out_k
    for (int64_t j = n - 1; j >= 0; --j) {
      suffix += g[at(j)] * out[at(j)];
      dx[at(j)] = j < z ? suffix / x[at(j)] : T(0);
    }
    if (z == n) return;
    T running = z == 0 ? T(1) : out[at(z - 1)];  // prod_{j < z} x_j, then times x_{z+1..k}
    T acc = 0;
    for (int64_t j = z; j < n; ++j) {
      if (j > z) running *= x[at(j)];
      acc += g[at(j)] * running;
    }
    dx[at(z)] = acc;
  }
};

template <Element T>
Tensor<T> cumprod_backward_with_zeros(const Tensor<T>& g_, const Tensor<T>& x_, const Tensor<T>& out_, int64_t d) {
  const Tensor<T> g = g_.contiguous(), x = x_.contiguous(), out = out_.contiguous();
  auto dx = empty<T>(x.sizes(), {.device = x.device()});
  const ::tensorlib::detail::AlongDim a = ::tensorlib::detail::along_dim(x.sizes(), d);
  const CumprodBackwardLine<T> line{dx.data_ptr(), g.data_ptr(), x.data_ptr(), out.data_ptr(), a.n, a.inner};
  ::tensorlib::detail::dispatch_offsets<1>(x.device(), Shape{a.outer, a.inner}, {Shape{a.n * a.inner, 1}}, line,
                                           "cumprod_backward");
  return dx;
}

}  // namespace detail

template <Element T>
Tensor<T> prod(const Tensor<T>& x, DimList dims, bool keepdim) {
  const uint32_t mask = ::tensorlib::detail::reduce_mask(dims, x.dim(), "prod");
  const Shape kept = ::tensorlib::detail::reduced_shape(x.sizes(), mask, true);
  auto formula = [mask, kept](const std::vector<Tensor<T>>& g, const std::array<Tensor<T>, 2>& s,
                              const std::vector<bool>&) {
    const Tensor<T>& input = s[0];
    const Tensor<T> gk = g[0].reshape(kept);
    if (!detail::has_zero(input)) return std::vector<Tensor<T>>{Tensor<T>(gk * s[1].reshape(kept) / input)};
    return std::vector<Tensor<T>>{Tensor<T>(gk * detail::product_of_others(input, mask))};
  };
  return record_with_output<T>(
      "ProdBackward", [&] { return tensorlib::prod(x, dims, keepdim); }, formula, save<T>(x), x);
}

template <Element T>
Tensor<T> cumsum(const Tensor<T>& x, int64_t dim) {
  const int64_t d = x.dim() == 0 ? 0 : wrap_dim(dim, x.dim(), "cumsum");
  auto formula = [d](const std::vector<Tensor<T>>& g, const std::array<Tensor<T>, 0>&, const std::vector<bool>&) {
    return std::vector<Tensor<T>>{detail::reverse_cumsum(g[0], d)};
  };
  return record<T>(
      "CumsumBackward", [&] { return tensorlib::cumsum(x, dim); }, formula, std::array<SavedTensor<T>, 0>{}, x);
}

template <Element T>
Tensor<T> cumprod(const Tensor<T>& x, int64_t dim) {
  const int64_t d = x.dim() == 0 ? 0 : wrap_dim(dim, x.dim(), "cumprod");
  auto formula = [d](const std::vector<Tensor<T>>& g, const std::array<Tensor<T>, 2>& s, const std::vector<bool>&) {
    const Tensor<T>& input = s[0];
    const Tensor<T>& result = s[1];
    if (input.dim() == 0) return std::vector<Tensor<T>>{g[0]};
    if (!detail::has_zero(input))
      return std::vector<Tensor<T>>{Tensor<T>(detail::reverse_cumsum(Tensor<T>(g[0] * result), d) / input)};
    ::tensorlib::detail::check<NotImplementedError>(
        !(is_grad_enabled() && (g[0].requires_grad() || input.requires_grad())),
        "CumprodBackward: create_graph through cumprod of an input with zeros is not implemented (its backward "
        "loop does not record)");
    return std::vector<Tensor<T>>{detail::cumprod_backward_with_zeros(g[0], input, result, d)};
  };
  return record_with_output<T>(
      "CumprodBackward", [&] { return tensorlib::cumprod(x, dim); }, formula, save<T>(x), x);
}

template <Element T>
Tensor<T> logcumsumexp(const Tensor<T>& x, int64_t dim) {
  const int64_t d = x.dim() == 0 ? 0 : wrap_dim(dim, x.dim(), "logcumsumexp");
  auto formula = [d](const std::vector<Tensor<T>>& g, const std::array<Tensor<T>, 2>& s, const std::vector<bool>&) {
    const Tensor<T>& grad = g[0];
    const Tensor<T>& input = s[0];
    const Tensor<T>& result = s[1];
    if (grad.dim() == 0 || grad.numel() == 0) return std::vector<Tensor<T>>{grad};
    const auto reverse_logcumsumexp = [d](const Tensor<T>& v) {
      return detail::reversed_scan(v, d, [](const Tensor<T>& w, int64_t dd) { return tensorlib::logcumsumexp(w, dd); });
    };
    const T lowest = std::numeric_limits<T>::lowest();
    const Tensor<T> log_positive = where(grad > T(0), log(grad), lowest);
    const Tensor<T> log_negative = where(grad < T(0), log(-grad), lowest);
    return std::vector<Tensor<T>>{Tensor<T>(exp(reverse_logcumsumexp(Tensor<T>(log_positive - result)) + input) -
                                            exp(reverse_logcumsumexp(Tensor<T>(log_negative - result)) + input))};
  };
  return record_with_output<T>(
      "LogcumsumexpBackward", [&] { return tensorlib::logcumsumexp(x, dim); }, formula, save<T>(x), x);
}

}  // namespace tensorlib::autograd
