#pragma once
/// \file
/// `AnyTensor`: a tensor whose element type is known only at run time, for
/// heterogeneous collections (state dicts, files). It shares the same
/// `TensorImpl` as the typed handle it came from: no copy either way.

#include <memory>
#include <ostream>
#include <utility>

#include "tensorlib/core/dtype.hpp"
#include "tensorlib/core/error.hpp"
#include "tensorlib/core/print.hpp"
#include "tensorlib/core/tensor.hpp"

namespace tensorlib {

/// A type-erased tensor handle.
class AnyTensor {
 public:
  AnyTensor() = default;
  template <Element T>
  AnyTensor(const Tensor<T>& t) : impl_(t.impl()) {}  // NOLINT: implicit, like storing into a state dict
  /// Wraps untyped tensor state (null gives an undefined handle).
  static AnyTensor from_impl(std::shared_ptr<TensorImpl> impl) {
    AnyTensor t;
    t.impl_ = std::move(impl);
    return t;
  }

  bool defined() const noexcept { return impl_ != nullptr; }
  ScalarType dtype() const { return checked().dtype; }
  const Shape& sizes() const { return checked().sizes; }
  const Shape& strides() const { return checked().strides; }
  int64_t dim() const { return checked().sizes.size(); }
  int64_t numel() const { return checked().numel(); }
  Device device() const { return checked().storage.device(); }
  const std::shared_ptr<TensorImpl>& impl() const noexcept { return impl_; }

  /// True when the element type is T.
  template <Element T>
  bool is() const {
    return defined() && impl_->dtype == scalar_type_of<T>;
  }
  /// The typed tensor; a `TypeError` naming both types when T is wrong.
  template <Element T>
  Tensor<T> as() const {
    detail::check<TypeError>(is<T>(), "AnyTensor::as: the tensor has dtype ", defined() ? dtype() : scalar_type_of<T>,
                             ", requested ", DTypeTraits<T>::name);
    return Tensor<T>(impl_);
  }
  /// Calls f(Tensor<T>) with T the run-time element type.
  template <class F>
  decltype(auto) visit(F&& f) const {
    switch (dtype()) {
      case kBool:
        return f(Tensor<bool>(impl_));
      case kUInt8:
        return f(Tensor<uint8_t>(impl_));
      case kInt32:
        return f(Tensor<int32_t>(impl_));
      case kInt64:
        return f(Tensor<int64_t>(impl_));
      case kFloat32:
        return f(Tensor<float>(impl_));
      case kFloat64:
        return f(Tensor<double>(impl_));
      case kFloat16:
        return f(Tensor<Half>(impl_));
      case kBFloat16:
        return f(Tensor<BFloat16>(impl_));
    }
    throw TypeError("AnyTensor::visit: unknown dtype");
  }
  /// A typed copy converted to U (the same tensor when already U).
  template <Element U>
  Tensor<U> to() const {
    return visit([](const auto& t) { return t.template to<U>(); });
  }

  /// Prints like the typed tensor. A template so that it is instantiated
  /// where it is used, after the layers that define `to_vector` (clang
  /// instantiates eagerly inside non-template functions).
  template <class CharT, class Traits>
  friend std::basic_ostream<CharT, Traits>& operator<<(std::basic_ostream<CharT, Traits>& os, const AnyTensor& t) {
    if (!t.defined()) return os << "tensor(undefined)";
    return t.visit([&](const auto& typed) -> std::basic_ostream<CharT, Traits>& { return os << repr(typed); });
  }

 private:
  const TensorImpl& checked() const {
    detail::check<ValueError>(impl_ != nullptr, "AnyTensor: operation on an undefined tensor");
    return *impl_;
  }
  std::shared_ptr<TensorImpl> impl_;
};

}  // namespace tensorlib
