#pragma once
/// \file
/// `softmax` and `log_softmax` along one dimension, and their method forms.
/// The last dimension runs the row kernel (backend/cpu/softmax.hpp: one read,
/// one write); other dimensions run three fused passes over the expression
/// (amax, the sum of exponentials, the output). float16 and bfloat16 inputs
/// are computed in float and rounded once, as PyTorch does.

#include <cstdint>
#include <optional>
#include <type_traits>

#include "tensorlib/core/shape.hpp"
#include "tensorlib/core/tensor.hpp"
#include "tensorlib/expr/functions.hpp"
#include "tensorlib/expr/operators.hpp"
#include "tensorlib/ops/dispatch.hpp"
#include "tensorlib/ops/evaluate.hpp"
#include "tensorlib/ops/factories.hpp"
#include "tensorlib/ops/reduce.hpp"

namespace tensorlib {
namespace autograd {

// The recording forms (autograd/softmax_backward.hpp).
template <Element T>
Tensor<T> softmax(const Tensor<T>& x, int64_t dim);
template <Element T>
Tensor<T> log_softmax(const Tensor<T>& x, int64_t dim);

}  // namespace autograd

namespace detail {

/// softmax/log_softmax along the last dimension by the row kernel (a strided
/// input is made contiguous first); an empty optional for other dims, and on
/// the CPU for fewer rows than threads when a row outgrows L2 (the kernel
/// splits rows only and sweeps each row three times; the fused passes use
/// every thread).
template <bool Log, Element T>
std::optional<Tensor<T>> softmax_last_dim(const Tensor<T>& x, int64_t dim) {
  if (dim != x.dim() - 1) return std::nullopt;
  const int64_t cols = x.size(dim), rows = x.numel() / cols;
  if (x.is_cpu() && rows < get_num_threads() && cols * static_cast<int64_t>(sizeof(T)) > (int64_t{256} << 10))
    return std::nullopt;
  // A strided last dim is copied first: one copy costs less than the three
  // passes, which compute exp twice.
  const Tensor<T> in = x.is_contiguous() ? x : x.contiguous();
  auto y = empty<T>(x.sizes(), {.device = x.device()});
  dispatch_softmax_rows<Log>(in, y);
  return y;
}

}  // namespace detail

/// Softmax along `dim`: `exp(x - m) / sum(exp(x - m))` with `m` the maximum
/// along `dim`. Contiguous rows along the last dimension run the row kernel
/// (one read, one write); other layouts run three fused passes (amax, the
/// sum, the output).
template <Expression E>
Tensor<value_type_t<E>> softmax(const E& x, int64_t dim) {
  using T = value_type_t<E>;
  detail::require_floating<E>("softmax");
  if constexpr (is_reduced_float<T>) {
    // Computed in float and rounded once, as PyTorch's kernels do for
    // 16-bit inputs (no autograd through 16-bit results yet).
    detail::refuse_untracked_grad<T>("softmax", x);
    return softmax(Tensor<T>(x).template to<float>(), dim).template to<T>();
  } else {
    dim = wrap_dim(dim, x.dim(), "softmax");
    if (detail::records_grad(x)) return autograd::softmax(Tensor<T>(x), dim);
    if (x.numel() == 0) return Tensor<T>(x);
    if constexpr (std::is_same_v<E, Tensor<T>>) {
      if (auto y = detail::softmax_last_dim<false>(x, dim)) return *y;
    }
    const auto m = amax(x, dim, true);
    const auto s = sum(exp(x - m), dim, true);
    return Tensor<T>(exp(x - m) / s);
  }
}

/// Log-softmax along `dim`: `x - m - log(sum(exp(x - m)))`.
template <Expression E>
Tensor<value_type_t<E>> log_softmax(const E& x, int64_t dim) {
  using T = value_type_t<E>;
  detail::require_floating<E>("log_softmax");
  if constexpr (is_reduced_float<T>) {
    // Computed in float and rounded once, as PyTorch's kernels do for
    // 16-bit inputs (no autograd through 16-bit results yet).
    detail::refuse_untracked_grad<T>("log_softmax", x);
    return log_softmax(Tensor<T>(x).template to<float>(), dim).template to<T>();
  } else {
    dim = wrap_dim(dim, x.dim(), "log_softmax");
    if (detail::records_grad(x)) return autograd::log_softmax(Tensor<T>(x), dim);
    if (x.numel() == 0) return Tensor<T>(x);
    if constexpr (std::is_same_v<E, Tensor<T>>) {
      if (auto y = detail::softmax_last_dim<true>(x, dim)) return *y;
    }
    // (x - m) - log(sum): adding log(sum) to a large m first would lose it.
    const auto m = amax(x, dim, true);
    const Tensor<T> log_sum = log(sum(exp(x - m), dim, true));
    return Tensor<T>((x - m) - log_sum);
  }
}

// Method forms (declared in core/pointwise_methods.hpp).
template <class Derived>
auto PointwiseMethods<Derived>::softmax(int64_t dim) const {
  return tensorlib::softmax(self(), dim);
}
template <class Derived>
auto PointwiseMethods<Derived>::log_softmax(int64_t dim) const {
  return tensorlib::log_softmax(self(), dim);
}

}  // namespace tensorlib
