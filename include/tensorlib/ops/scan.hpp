#pragma once
/// \file
/// Cumulative ops along one dimension: `cumsum, cumprod` (integer and bool
/// inputs give int64; float accumulates in double, as PyTorch's CPU kernels
/// do) and `cummax, cummin` (values and indices). An expression input is
/// evaluated first. The scan walks [outer, n, inner] with the inner
/// dimension contiguous, so each step is a vectorizable row operation.

#include <cstdint>
#include <vector>

#include "tensorlib/core/shape.hpp"
#include "tensorlib/core/tensor.hpp"
#include "tensorlib/ops/dispatch.hpp"
#include "tensorlib/ops/evaluate.hpp"
#include "tensorlib/ops/factories.hpp"
#include "tensorlib/ops/reduce.hpp"
#include "tensorlib/ops/values_indices.hpp"

namespace tensorlib {
namespace autograd {

// The recording forms of cumsum and cumprod (autograd/scan_backward.hpp).
template <Element T>
Tensor<T> cumsum(const Tensor<T>& x, int64_t dim);
template <Element T>
Tensor<T> cumprod(const Tensor<T>& x, int64_t dim);

}  // namespace autograd
namespace detail {

/// out[o, j, k] = out[o, j - 1, k] (op) x[o, j, k], accumulated in Acc.
template <class Acc, Element Out, Element T, class Op>
Tensor<Out> scan_along(const Tensor<T>& x, int64_t dim, const char* op_name, Acc identity, Op op) {
  check_cpu(x, op_name);
  const int64_t d = wrap_dim(dim, x.dim(), op_name);
  auto out = empty<Out>(x.shape(), {.device = x.device()});
  if (x.numel() == 0) return out;
  const auto c = x.contiguous();
  const AlongDim a = along_dim(x.dim() == 0 ? Shape{1} : x.shape(), d);
  std::vector<Acc> acc(static_cast<std::size_t>(a.inner));
  const T* src = c.data_ptr();
  Out* dst = out.data_ptr();
  for (int64_t o = 0; o < a.outer; ++o) {
    std::fill(acc.begin(), acc.end(), identity);
    for (int64_t j = 0; j < a.n; ++j) {
      const int64_t base = (o * a.n + j) * a.inner;
      for (int64_t k = 0; k < a.inner; ++k) {
        acc[k] = op(acc[k], static_cast<Acc>(src[base + k]));
        dst[base + k] = static_cast<Out>(acc[k]);
      }
    }
  }
  return out;
}

/// Running max (Max) or min with the index where it was last set: ties and
/// NaNs move the index forward (PyTorch's cummax/cummin).
template <bool Max, Element T>
ValuesIndices<T> cum_extremum(const Tensor<T>& x, int64_t dim, const char* op) {
  check_cpu(x, op);
  const int64_t d = wrap_dim(dim, x.dim(), op);
  auto values = empty<T>(x.shape(), {.device = x.device()});
  auto indices = empty<int64_t>(x.shape(), {.device = x.device()});
  if (x.numel() == 0) return {values, indices};
  const auto c = x.contiguous();
  const AlongDim a = along_dim(x.dim() == 0 ? Shape{1} : x.shape(), d);
  const T* src = c.data_ptr();
  T* v = values.data_ptr();
  int64_t* ix = indices.data_ptr();
  for (int64_t o = 0; o < a.outer; ++o) {
    for (int64_t j = 0; j < a.n; ++j) {
      const int64_t base = (o * a.n + j) * a.inner;
      for (int64_t k = 0; k < a.inner; ++k) {
        const T xv = src[base + k];
        if (j == 0) {
          v[base + k] = xv;
          ix[base + k] = 0;
          continue;
        }
        const T prev = v[base - a.inner + k];
        bool take;
        if constexpr (is_floating<T>)
          take = xv != xv || (prev == prev && (Max ? xv >= prev : xv <= prev));
        else
          take = Max ? xv >= prev : xv <= prev;
        v[base + k] = take ? xv : prev;
        ix[base + k] = take ? j : ix[base - a.inner + k];
      }
    }
  }
  return {values, indices};
}

}  // namespace detail

/// Cumulative sum along `dim`. Integer and bool inputs give int64.
template <Expression E>
Tensor<detail::sum_result_t<value_type_t<E>>> cumsum(const E& x, int64_t dim) {
  using T = value_type_t<E>;
  if constexpr (is_floating<T>) {
    if (detail::records_grad(x)) return autograd::cumsum(Tensor<T>(x), dim);
  }
  using Acc = typename detail::SumReducer<T>::acc_type;
  return detail::scan_along<Acc, detail::sum_result_t<T>>(Tensor<T>(x), dim, "cumsum", Acc(0),
                                                          [](Acc a, Acc v) { return a + v; });
}

/// Cumulative product along `dim`. Integer and bool inputs give int64.
template <Expression E>
Tensor<detail::sum_result_t<value_type_t<E>>> cumprod(const E& x, int64_t dim) {
  using T = value_type_t<E>;
  if constexpr (is_floating<T>) {
    if (detail::records_grad(x)) return autograd::cumprod(Tensor<T>(x), dim);
  }
  using Acc = typename detail::ProdReducer<T>::acc_type;
  return detail::scan_along<Acc, detail::sum_result_t<T>>(Tensor<T>(x), dim, "cumprod", Acc(1),
                                                          [](Acc a, Acc v) { return a * v; });
}

/// Running maximum along `dim` and the index of the element it came from.
template <Expression E>
ValuesIndices<value_type_t<E>> cummax(const E& x, int64_t dim) {
  using T = value_type_t<E>;
  if constexpr (is_floating<T>) {
    if (detail::records_grad(x))
      return autograd::record_selection("CummaxBackward", Tensor<T>(x), dim, true,
                                        [&](const Tensor<T>& t) { return cummax(t, dim); });
  }
  return detail::cum_extremum<true>(Tensor<T>(x), dim, "cummax");
}

/// Running minimum along `dim` and the index of the element it came from.
template <Expression E>
ValuesIndices<value_type_t<E>> cummin(const E& x, int64_t dim) {
  using T = value_type_t<E>;
  if constexpr (is_floating<T>) {
    if (detail::records_grad(x))
      return autograd::record_selection("CumminBackward", Tensor<T>(x), dim, true,
                                        [&](const Tensor<T>& t) { return cummin(t, dim); });
  }
  return detail::cum_extremum<false>(Tensor<T>(x), dim, "cummin");
}

// Method forms (declared in core/pointwise_methods.hpp).
template <class Derived>
auto PointwiseMethods<Derived>::cumsum(int64_t dim) const {
  return tensorlib::cumsum(self(), dim);
}
template <class Derived>
auto PointwiseMethods<Derived>::cumprod(int64_t dim) const {
  return tensorlib::cumprod(self(), dim);
}
template <class Derived>
auto PointwiseMethods<Derived>::cummax(int64_t dim) const {
  return tensorlib::cummax(self(), dim);
}
template <class Derived>
auto PointwiseMethods<Derived>::cummin(int64_t dim) const {
  return tensorlib::cummin(self(), dim);
}

}  // namespace tensorlib
