#pragma once
/// \file
/// Cumulative ops along one dimension: `cumsum, cumprod` (integer and bool
/// inputs give int64; float accumulates in double, as PyTorch's CPU kernels
/// do), `logcumsumexp` and `cummax, cummin` (values and indices). An expression input is
/// evaluated first. Each op is a scan functor run over [outer, n, inner]
/// with the inner dimension contiguous, by the host loop
/// (backend/cpu/scan.hpp, each step a row operation) or on a GPU (Note
/// [GPU scans] in backend/cuda/scan.hpp).

#include <algorithm>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "tensorlib/core/shape.hpp"
#include "tensorlib/core/tensor.hpp"
#include "tensorlib/expr/math/exp_log.hpp"
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
template <Element T>
Tensor<T> logcumsumexp(const Tensor<T>& x, int64_t dim);

}  // namespace autograd
namespace detail {

/// The running sum (Product: product) of a contiguous [outer, n, inner]
/// input `in` into `out`, accumulated in Acc: a scan functor, run by the
/// host loop (backend/cpu/scan.hpp) and the GPU (Note [GPU scans]).
template <class Acc, Element T, Element Out, bool Product>
struct AccumulateScan {
  using State = Acc;
  const T* in;
  Out* out;

  TENSORLIB_HOST_DEVICE State identity() const { return Acc(Product ? 1 : 0); }
  TENSORLIB_HOST_DEVICE State load(int64_t offset, int64_t /*j*/) const { return static_cast<Acc>(in[offset]); }
  TENSORLIB_HOST_DEVICE State combine(State a, State b) const {
    if constexpr (Product)
      return a * b;
    else
      return a + b;
  }
  TENSORLIB_HOST_DEVICE void store(int64_t offset, State s) const { out[offset] = static_cast<Out>(s); }
};

/// The running log(sum(exp)) of a contiguous [outer, n, inner] input, in Acc.
/// The combine is PyTorch's log-add-exp (`_log_add_exp_helper`): the larger
/// plus log1p(exp(smaller - larger)); NaN propagates, and two equal
/// infinities stay (-inf with -inf is -inf, the identity).
template <class Acc, Element T>
struct LogAddExpScan {
  using State = Acc;
  const T* in;
  T* out;

  TENSORLIB_HOST_DEVICE State identity() const { return -std::numeric_limits<Acc>::infinity(); }
  TENSORLIB_HOST_DEVICE State load(int64_t offset, int64_t /*j*/) const { return static_cast<Acc>(in[offset]); }
  TENSORLIB_HOST_DEVICE State combine(State a, State b) const {
    using math::exp;
    using math::isinf;
    using math::isnan;
    using math::log1p;
    if (isnan(a)) return a;
    if (isnan(b)) return b;
    const Acc lo = a < b ? a : b, hi = a < b ? b : a;
    if (lo == hi && isinf(lo)) return a;  // the same infinity twice
    return hi + log1p(exp(lo - hi));
  }
  TENSORLIB_HOST_DEVICE void store(int64_t offset, State s) const { out[offset] = static_cast<T>(s); }
};

/// A running extremum and the index along the dimension it came from; an
/// index below 0 means no element yet.
template <Element T>
struct ExtremumState {
  T value;
  int64_t index;
};

/// Running max (Max) or min with the index where it was last set: ties and
/// NaNs move the index forward (PyTorch's cummax/cummin). Combining selects
/// one of the two states, so any grouping gives the same result.
template <Element T, bool Max>
struct ExtremumScan {
  using State = ExtremumState<T>;
  const T* in;
  T* values;
  int64_t* indices;

  TENSORLIB_HOST_DEVICE State identity() const { return {T(), -1}; }
  TENSORLIB_HOST_DEVICE State load(int64_t offset, int64_t j) const { return {in[offset], j}; }
  TENSORLIB_HOST_DEVICE State combine(State a, State b) const {
    if (a.index < 0) return b;
    if (b.index < 0) return a;
    bool take;
    if constexpr (is_floating<T>)
      take = b.value != b.value || (a.value == a.value && (Max ? b.value >= a.value : b.value <= a.value));
    else
      take = Max ? b.value >= a.value : b.value <= a.value;
    return take ? b : a;
  }
  TENSORLIB_HOST_DEVICE void store(int64_t offset, State s) const {
    values[offset] = s.value;
    indices[offset] = s.index;
  }
};

/// The running state of cumsum and cumprod: float for float16 and bfloat16
/// (PyTorch's CPU acc_type, so each output is the float running value
/// rounded, bit for bit; PyTorch's CUDA scans keep a 16-bit running value,
/// less accurate, where ours run the CPU's loop), else the reduction's
/// accumulator.
template <Element T, class ReducerAcc>
using scan_acc_t = std::conditional_t<is_reduced_float<T>, float, ReducerAcc>;

/// The scan functor `Scan{input, output}` (AccumulateScan, LogAddExpScan)
/// run along `dim` of x into a new tensor of element type Out.
template <class Scan, Element Out, Element T>
Tensor<Out> scan_along(const Tensor<T>& x, int64_t dim, const char* op) {
  const int64_t d = wrap_dim(dim, x.dim(), op);
  auto out = empty<Out>(x.shape(), {.device = x.device()});
  if (x.numel() == 0) return out;
  const auto c = x.contiguous();
  const AlongDim a = along_dim(x.dim() == 0 ? Shape{1} : x.shape(), d);
  dispatch_scan(x.device(), Scan{c.data_ptr(), out.data_ptr()}, a.outer, a.n, a.inner, op);
  return out;
}

/// cummax (Max) or cummin of x along `dim`.
template <bool Max, Element T>
ValuesIndices<T> cum_extremum(const Tensor<T>& x, int64_t dim, const char* op) {
  const int64_t d = wrap_dim(dim, x.dim(), op);
  auto values = empty<T>(x.shape(), {.device = x.device()});
  auto indices = empty<int64_t>(x.shape(), {.device = x.device()});
  if (x.numel() == 0) return {values, indices};
  const auto c = x.contiguous();
  const AlongDim a = along_dim(x.dim() == 0 ? Shape{1} : x.shape(), d);
  dispatch_scan(x.device(), ExtremumScan<T, Max>{c.data_ptr(), values.data_ptr(), indices.data_ptr()}, a.outer, a.n,
                a.inner, op);
  return {values, indices};
}

}  // namespace detail

/// Cumulative sum along `dim`. Integer and bool inputs give int64.
template <Expression E>
Tensor<detail::sum_result_t<value_type_t<E>>> cumsum(const E& x, int64_t dim) {
  using T = value_type_t<E>;
  if constexpr (differentiable<T>) {
    if (detail::records_grad(x)) return autograd::cumsum(Tensor<T>(x), dim);
  }
  using Acc = detail::scan_acc_t<T, typename detail::SumReducer<T>::acc_type>;
  using Out = detail::sum_result_t<T>;
  return detail::scan_along<detail::AccumulateScan<Acc, T, Out, false>, Out>(Tensor<T>(x), dim, "cumsum");
}

/// Cumulative product along `dim`. Integer and bool inputs give int64.
template <Expression E>
Tensor<detail::sum_result_t<value_type_t<E>>> cumprod(const E& x, int64_t dim) {
  using T = value_type_t<E>;
  if constexpr (differentiable<T>) {
    if (detail::records_grad(x)) return autograd::cumprod(Tensor<T>(x), dim);
  }
  using Acc = detail::scan_acc_t<T, typename detail::ProdReducer<T>::acc_type>;
  using Out = detail::sum_result_t<T>;
  return detail::scan_along<detail::AccumulateScan<Acc, T, Out, true>, Out>(Tensor<T>(x), dim, "cumprod");
}

/// log(cumsum(exp(x))) along `dim` without overflow (`torch.logcumsumexp`),
/// for floating types. The running value is cumsum's: double for float (as
/// in PyTorch 1.13's CPU kernel, whose float results equal a double running
/// value's on 1e5 elements), float for the 16-bit types.
template <Expression E>
Tensor<value_type_t<E>> logcumsumexp(const E& x, int64_t dim) {
  using T = value_type_t<E>;
  static_assert(is_floating<T>, "logcumsumexp: floating-point input only (as in PyTorch)");
  if constexpr (differentiable<T>) {
    if (detail::records_grad(x)) return autograd::logcumsumexp(Tensor<T>(x), dim);
  }
  using Acc = detail::scan_acc_t<T, double>;
  return detail::scan_along<detail::LogAddExpScan<Acc, T>, T>(Tensor<T>(x), dim, "logcumsumexp");
}

/// Running maximum along `dim` and the index of the element it came from.
template <Expression E>
ValuesIndices<value_type_t<E>> cummax(const E& x, int64_t dim) {
  using T = value_type_t<E>;
  if constexpr (differentiable<T>) {
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
  if constexpr (differentiable<T>) {
    if (detail::records_grad(x))
      return autograd::record_selection("CumminBackward", Tensor<T>(x), dim, true,
                                        [&](const Tensor<T>& t) { return cummin(t, dim); });
  }
  return detail::cum_extremum<false>(Tensor<T>(x), dim, "cummin");
}

// In place (declared in core/tensor.hpp): the result in the tensor's own
// type, as PyTorch's cumsum_ keeps an int32 tensor int32.
template <Element T>
Tensor<T>& Tensor<T>::cumsum_(int64_t dim) {
  static_assert(!std::is_same_v<T, bool>, "cumsum_: not implemented for bool tensors (the sum is int64); use cumsum");
  wrap_dim(dim, std::max<int64_t>(this->dim(), 1), "cumsum_");
  detail::write_into(*this, tensorlib::cumsum(*this, dim), "cumsum_");
  return *this;
}
template <Element T>
Tensor<T>& Tensor<T>::cumprod_(int64_t dim) {
  static_assert(!std::is_same_v<T, bool>,
                "cumprod_: not implemented for bool tensors (the product is int64); use cumprod");
  wrap_dim(dim, std::max<int64_t>(this->dim(), 1), "cumprod_");
  // cumprod's backward needs its input, which the write replaces: a recorded
  // cumprod_ reads a copy (PyTorch's in-place ops save the original too).
  Tensor<T> input = *this;
  if constexpr (differentiable<T>) {
    if (detail::records_grad(*this)) input = clone();
  }
  detail::write_into(*this, tensorlib::cumprod(input, dim), "cumprod_");
  return *this;
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
auto PointwiseMethods<Derived>::logcumsumexp(int64_t dim) const {
  return tensorlib::logcumsumexp(self(), dim);
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
