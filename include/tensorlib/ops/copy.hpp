#pragma once
/// \file
/// Copies: `contiguous`, `clone`, `copy_` and `to<U>`. Each is a
/// one-leaf expression run by the same fused executor as everything else.

#include <type_traits>

#include "tensorlib/core/stats.hpp"
#include "tensorlib/core/tensor.hpp"
#include "tensorlib/expr/build.hpp"
#include "tensorlib/ops/evaluate.hpp"
#include "tensorlib/ops/factories.hpp"
#include "tensorlib/ops/views.hpp"

namespace tensorlib {
namespace autograd {

/// The recording form of a conversion between floating element types
/// (autograd/cast_backward.hpp).
template <Element To, Element From>
Tensor<To> cast_recorded(const Tensor<From>& x);

}  // namespace autograd

template <Element T>
Tensor<T> Tensor<T>::contiguous() const {
  if (is_contiguous()) return *this;
  if constexpr (differentiable<T>) {
    if (detail::records_grad(*this))
      return autograd::record_view(
          *this, "CloneBackward", [](const Tensor& s) { return s.contiguous(); }, [](const Tensor& g) { return g; });
  }
  stats::detail::count_copy();
  auto out = empty<T>(sizes(), {.device = device()});
  detail::dispatch_pointwise(out, *this);
  return out;
}

template <Element T>
Tensor<T> Tensor<T>::clone() const {
  if constexpr (differentiable<T>) {
    if (detail::records_grad(*this))
      return autograd::record_view(
          *this, "CloneBackward", [](const Tensor& s) { return s.clone(); }, [](const Tensor& g) { return g; });
  }
  stats::detail::count_copy();
  auto out = empty_like(*this);
  detail::dispatch_pointwise(out, *this);
  return out;
}

template <Element T>
Tensor<T> Tensor<T>::to(Device device, bool non_blocking) const {
  if (device.type == this->device().type && (device.index < 0 || device.index == this->device().index)) return *this;
  if constexpr (differentiable<T>) {
    if (detail::records_grad(*this))
      return autograd::record_view(
          *this, "ToCopyBackward0", [&](const Tensor& s) { return s.to(device, non_blocking); },
          [from = this->device()](const Tensor& g) { return g.to(from); });
  }
  const auto bytes = static_cast<std::size_t>(numel()) * sizeof(T);
  if (device.is_cpu() && !is_contiguous()) {
    // Copy the span of storage the view covers, then gather on the host:
    // no kernel needed, so this works from any translation unit.
    int64_t lo = 0, hi = 0;
    for (int64_t d = 0; d < dim(); ++d) {
      if (size(d) == 0) return empty<T>(sizes());
      (stride(d) < 0 ? lo : hi) += (size(d) - 1) * stride(d);
    }
    auto span = empty<T>({hi - lo + 1});
    detail::dispatch_copy_bytes(span.data_ptr(), Device(kCPU), data_ptr() + lo, this->device(),
                                static_cast<std::size_t>(hi - lo + 1) * sizeof(T), false);
    return span.as_strided(sizes(), strides(), -lo).contiguous();
  }
  const Tensor src = contiguous();
  // A non-blocking copy to the host lands in pinned memory, as in PyTorch
  // (into pageable memory the driver would finish the copy before returning).
  const bool pin = non_blocking && device.is_cpu() && detail::pinned_allocator_slot() != nullptr;
  auto out = empty<T>(sizes(), {.device = device, .pin_memory = pin});
  detail::dispatch_copy_bytes(out.data_ptr(), out.device(), src.data_ptr(), src.device(), bytes, non_blocking);
  return out;
}

template <Element T>
bool Tensor<T>::is_pinned() const {
  Allocator* pinned = detail::pinned_allocator_slot();
  return is_cpu() && pinned != nullptr && pinned->owns(data_ptr());
}

template <Element T>
Tensor<T> Tensor<T>::pin_memory() const {
  detail::check<DeviceError>(is_cpu(), "pin_memory: only CPU tensors can be pinned, not a tensor on ", device());
  if (is_pinned()) return *this;
  if constexpr (differentiable<T>) {
    if (detail::records_grad(*this))
      return autograd::record_view(
          *this, "PinMemoryBackward", [](const Tensor& s) { return s.pin_memory(); },
          [](const Tensor& g) { return g; });
  }
  stats::detail::count_copy();
  auto out = empty<T>(sizes(), {.pin_memory = true});
  detail::dispatch_pointwise(out, *this);
  return out;
}

template <Element T>
template <Expression E>
Tensor<T>& Tensor<T>::copy_(const E& src) {
  detail::write_into(*this, src, "copy_");
  return *this;
}

template <Element T>
template <Element U>
Tensor<U> Tensor<T>::to() const {
  if constexpr (std::is_same_v<T, U>) {
    return *this;
  } else {
    if constexpr (differentiable<U> && differentiable<T>) {
      // Recorded as a light node (Note [autograd's own arithmetic]).
      if (detail::records_grad(*this)) return autograd::cast_recorded<U>(*this);
    } else if constexpr (differentiable<T> && is_reduced_float<U>) {
      detail::check<TypeError>(!detail::records_grad(*this), "to: autograd does not follow ", DTypeTraits<U>::name,
                               " tensors yet; convert under tl::NoGradGuard or detach() first");
    }
    stats::detail::count_copy();
    return detail::evaluate(as_node<U>(*this));
  }
}

/// `torch.clone(x)`: x.clone().
template <Element T>
Tensor<T> clone(const Tensor<T>& x) {
  return x.clone();
}

}  // namespace tensorlib
