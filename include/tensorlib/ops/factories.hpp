#pragma once
/// \file
/// Tensor factories: `empty`, `zeros`, `ones`, `full`, their `*_like` forms,
/// `arange`, `linspace`, `logspace`, `eye`, `scalar_tensor`, `from_blob` and
/// `tensor` from nested initializer lists. The element type is the template
/// argument (default float; `tensor` and `arange` deduce it as PyTorch does).

#include <cmath>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <limits>
#include <optional>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

#include "tensorlib/core/dtype.hpp"
#include "tensorlib/core/error.hpp"
#include "tensorlib/core/scalar_cast.hpp"
#include "tensorlib/core/shape.hpp"
#include "tensorlib/core/storage.hpp"
#include "tensorlib/core/tensor.hpp"
#include "tensorlib/core/tensor_options.hpp"
#include "tensorlib/ops/dispatch.hpp"

namespace tensorlib {

/// An uninitialized contiguous tensor.
template <Element T = float>
Tensor<T> empty(const Shape& sizes, TensorOptions options = {}) {
  check_sizes(sizes, "empty");
  const Shape strides = contiguous_strides(sizes);
  const int64_t bytes = storage_bytes(storage_extent(sizes, strides, "empty"), sizeof(T), "empty");
  auto t = Tensor<T>::from_storage(detail::make_storage(bytes, options, "empty"), sizes, strides, 0);
  // Factories fill through raw writes, which a leaf requiring grad allows.
  if (options.requires_grad) t.requires_grad_();
  return t;
}

/// An uninitialized tensor with the given strides (elements), large enough for them.
template <Element T = float>
Tensor<T> empty_strided(const Shape& sizes, const Shape& strides, TensorOptions options = {}) {
  const int64_t bytes = storage_bytes(storage_extent(sizes, strides, "empty_strided"), sizeof(T), "empty_strided");
  auto t = Tensor<T>::from_storage(detail::make_storage(bytes, options, "empty_strided"), sizes, strides, 0);
  if (options.requires_grad) t.requires_grad_();
  return t;
}

/// A tensor of `sizes` filled with `value`.
template <Element T = float>
Tensor<T> full(const Shape& sizes, T value, TensorOptions options = {}) {
  auto t = empty<T>(sizes, options);
  detail::dispatch_fill(t, value);
  return t;
}

/// A tensor of `sizes` filled with 0 (`tl::zeros<int64_t>({2, 3})`).
template <Element T = float>
Tensor<T> zeros(const Shape& sizes, TensorOptions options = {}) {
  return full<T>(sizes, T(0), options);
}

/// A tensor of `sizes` filled with 1.
template <Element T = float>
Tensor<T> ones(const Shape& sizes, TensorOptions options = {}) {
  return full<T>(sizes, T(1), options);
}

template <Element T>
Tensor<T> Tensor<T>::new_empty(const Shape& sizes) const {
  return empty<T>(sizes, {.device = device()});
}
template <Element T>
Tensor<T> Tensor<T>::new_zeros(const Shape& sizes) const {
  return zeros<T>(sizes, {.device = device()});
}
template <Element T>
Tensor<T> Tensor<T>::new_ones(const Shape& sizes) const {
  return ones<T>(sizes, {.device = device()});
}
template <Element T>
Tensor<T> Tensor<T>::new_full(const Shape& sizes, T value) const {
  return full<T>(sizes, value, {.device = device()});
}

/// An uninitialized tensor like `like`: same shape, device and element type
/// (or U); dense layouts (e.g. a transpose) are preserved, as in PyTorch.
template <class U = void, Expression E>
auto empty_like(const E& like) {
  using T = std::conditional_t<std::is_void_v<U>, value_type_t<E>, U>;
  if constexpr (std::is_same_v<E, Tensor<value_type_t<E>>>) {
    if (like.is_non_overlapping_and_dense() && !like.is_contiguous())
      return empty_strided<T>(like.sizes(), like.strides(), {.device = like.device()});
  }
  return empty<T>(like.shape(), {.device = like.device()});
}

/// A tensor like `like` (shape, device, element type, dense layout) filled with `value`.
template <Expression E>
auto full_like(const E& like, value_type_t<E> value) {
  auto t = empty_like(like);
  detail::dispatch_fill(t, value);
  return t;
}

/// `full_like(like, 0)`.
template <Expression E>
auto zeros_like(const E& like) {
  return full_like(like, value_type_t<E>(0));
}

/// `full_like(like, 1)`.
template <Expression E>
auto ones_like(const E& like) {
  return full_like(like, value_type_t<E>(1));
}

/// A 0-d tensor holding `value`.
template <Element T>
Tensor<T> scalar_tensor(T value, TensorOptions options = {}) {
  return full<T>(Shape{}, value, options);
}

namespace detail {

// Element type of `arange`/`tensor` when none is given: PyTorch's defaults.
template <class S>
using deduced_element_t = std::conditional_t<
    std::is_same_v<S, bool>, bool,
    std::conditional_t<std::is_floating_point_v<S>, float,
                       std::conditional_t<std::is_same_v<S, uint8_t> || std::is_same_v<S, int64_t>, S, int64_t>>>;

// Fills a CPU buffer of `n` elements from f(i) (host-side factories).
template <Element T, class F>
Tensor<T> generate(const Shape& sizes, TensorOptions options, F f) {
  if (!options.device.is_cpu()) {  // made on the host, then copied (these factories are small)
    const Device device = options.device;
    options.device = Device(kCPU);
    const bool grad = options.requires_grad;
    options.requires_grad = false;
    auto t = generate<T>(sizes, options, f).to(device);
    if (grad) t.requires_grad_();
    return t;
  }
  auto t = empty<T>(sizes, options);
  T* p = t.data_ptr();
  const int64_t n = t.numel();
  for (int64_t i = 0; i < n; ++i) p[i] = f(i);
  return t;
}

}  // namespace detail

/// Values start, start + step, ... below end (above, for a negative step).
/// An integer result takes start, end and step truncated to int64 first, as
/// PyTorch's int64 arange does (so a step of 0.5 is a zero step).
template <class T = void, Scalar A, Scalar B, Scalar C>
auto arange(A start, B end, C step, TensorOptions options = {}) {
  using R = std::conditional_t<std::is_void_v<T>, detail::deduced_element_t<std::common_type_t<A, B, C>>, T>;
  const double s = static_cast<double>(start), e = static_cast<double>(end), d = static_cast<double>(step);
  detail::check<ValueError>(std::isfinite(s) && std::isfinite(e), "arange: unsupported range: ", s, " -> ", e);
  if constexpr (std::is_integral_v<R>) {
    const int64_t si = detail::checked_scalar_cast<int64_t>(start), ei = detail::checked_scalar_cast<int64_t>(end),
                  di = detail::checked_scalar_cast<int64_t>(step);
    detail::check<ValueError>(di != 0, "arange: step must be nonzero");
    detail::check<ValueError>((di > 0 && ei >= si) || (di < 0 && ei <= si),
                              "arange: upper bound and larger bound inconsistent with step sign (start ", si, ", end ",
                              ei, ", step ", di, ")");
    // In uint64, where neither the span nor the step's magnitude overflows.
    const uint64_t span = di > 0 ? static_cast<uint64_t>(ei) - static_cast<uint64_t>(si)
                                 : static_cast<uint64_t>(si) - static_cast<uint64_t>(ei);
    const uint64_t stride = di > 0 ? static_cast<uint64_t>(di) : uint64_t{0} - static_cast<uint64_t>(di);
    const uint64_t count = span / stride + (span % stride != 0);
    detail::check<ValueError>(count <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max()),
                              "arange: invalid size, possible overflow?");
    return detail::generate<R>(Shape{static_cast<int64_t>(count)}, options, [&](int64_t i) {
      // Every value lies in [start, end), so the wrapped uint64 sum is exact.
      return static_cast<R>(
          static_cast<int64_t>(static_cast<uint64_t>(si) + static_cast<uint64_t>(i) * static_cast<uint64_t>(di)));
    });
  } else {
    detail::check<ValueError>(d != 0, "arange: step must be nonzero");
    detail::check<ValueError>((d > 0 && e >= s) || (d < 0 && e <= s),
                              "arange: upper bound and larger bound inconsistent with step sign (start ", s, ", end ",
                              e, ", step ", d, ")");
    const double count = std::ceil((e - s) / d);
    detail::check<ValueError>(count < 0x1p63, "arange: invalid size, possible overflow?");
    return detail::generate<R>(Shape{static_cast<int64_t>(count)}, options,
                               [&](int64_t i) { return static_cast<R>(s + d * static_cast<double>(i)); });
  }
}
template <class T = void, Scalar A, Scalar B>
auto arange(A start, B end, TensorOptions options = {}) {
  return arange<T>(start, end, 1, options);
}
template <class T = void, Scalar B>
auto arange(B end, TensorOptions options = {}) {
  return arange<T>(B(0), end, 1, options);
}

/// `steps` evenly spaced values from start to end inclusive. Computed from
/// both ends toward the middle so both endpoints are exact (PyTorch).
template <Element T = float>
Tensor<T> linspace(double start, double end, int64_t steps, TensorOptions options = {}) {
  detail::check<ValueError>(steps >= 0, "linspace: number of steps must be non-negative, got ", steps);
  if constexpr (std::is_integral_v<T>) {  // every value lies between the two ends
    (void)detail::checked_scalar_cast<T>(start);
    (void)detail::checked_scalar_cast<T>(end);
  }
  const double step = steps > 1 ? (end - start) / static_cast<double>(steps - 1) : 0.0;
  const int64_t half = steps / 2;
  return detail::generate<T>(Shape{steps}, options, [&](int64_t i) {
    const double v = i < half || steps == 1 ? start + step * static_cast<double>(i)
                                            : end - step * static_cast<double>(steps - 1 - i);
    if constexpr (std::is_integral_v<T>)
      return detail::checked_scalar_cast<T>(std::trunc(v));
    else
      return static_cast<T>(v);
  });
}

/// base raised to `steps` evenly spaced exponents from start to end.
template <Element T = float>
Tensor<T> logspace(double start, double end, int64_t steps, double base = 10.0, TensorOptions options = {}) {
  detail::check<ValueError>(steps >= 0, "logspace: number of steps must be non-negative, got ", steps);
  const double step = steps > 1 ? (end - start) / static_cast<double>(steps - 1) : 0.0;
  const int64_t half = steps / 2;
  return detail::generate<T>(Shape{steps}, options, [&](int64_t i) {
    const double e = i < half || steps == 1 ? start + step * static_cast<double>(i)
                                            : end - step * static_cast<double>(steps - 1 - i);
    return static_cast<T>(std::pow(base, e));
  });
}

/// The n x m identity (m = n when not given).
template <Element T = float>
Tensor<T> eye(int64_t n, std::optional<int64_t> m = std::nullopt, TensorOptions options = {}) {
  const int64_t cols = m.value_or(n);
  detail::check<ValueError>(n >= 0, "eye: n must be greater or equal to 0, got ", n);
  detail::check<ValueError>(cols >= 0, "eye: m must be greater or equal to 0, got ", cols);
  return detail::generate<T>(Shape{n, cols}, options, [cols](int64_t i) { return T(i / cols == i % cols); });
}

/// A tensor viewing memory it does not own. `deleter`, when given, is called
/// with `data` when the last view of it is gone.
template <Element T>
Tensor<T> from_blob(T* data, const Shape& sizes, const Shape& strides, std::function<void(void*)> deleter = {},
                    Device device = Device(kCPU)) {
  const int64_t bytes = storage_bytes(storage_extent(sizes, strides, "from_blob"), sizeof(T), "from_blob");
  DataPtr ptr;
  if (deleter) {
    auto* ctx = new std::function<void(void*)>(std::move(deleter));
    ptr = DataPtr(
        data, ctx,
        [](void* p, void* c) {
          auto* fn = static_cast<std::function<void(void*)>*>(c);
          (*fn)(p);
          delete fn;
        },
        device);
  } else {
    ptr = DataPtr(data, nullptr, nullptr, device);
  }
  return Tensor<T>::from_storage(Storage(std::move(ptr), bytes), sizes, strides, 0);
}
template <Element T>
Tensor<T> from_blob(T* data, const Shape& sizes, std::function<void(void*)> deleter = {}) {
  return from_blob(data, sizes, contiguous_strides(sizes), std::move(deleter));
}
/// A tensor viewing a span; the span must hold exactly the shape's elements.
template <Element T>
Tensor<T> from_blob(std::span<T> data, const Shape& sizes) {
  detail::check<ShapeError>(static_cast<int64_t>(data.size()) == sizes.numel(), "from_blob: shape ", sizes, " needs ",
                            sizes.numel(), " elements, got a buffer of ", data.size());
  return from_blob(data.data(), sizes);
}

namespace detail {

template <class E>
struct ListDepth {
  static constexpr int value = 0;
};
template <class E>
struct ListDepth<std::initializer_list<E>> {
  static constexpr int value = 1 + ListDepth<E>::value;
};
template <class E>
struct ListLeaf {
  using type = E;
};
template <class E>
struct ListLeaf<std::initializer_list<E>> {
  using type = typename ListLeaf<E>::type;
};

template <class L>
void list_shape(const L& list, Shape& shape) {
  shape.push_back(static_cast<int64_t>(list.size()));
  if constexpr (ListDepth<L>::value > 1) {
    if (list.size() > 0)
      list_shape(*list.begin(), shape);
    else
      for (int d = 1; d < ListDepth<L>::value; ++d) shape.push_back(0);
  }
}

template <class T, class L>
void list_flatten(const L& list, const Shape& shape, int64_t dim, std::vector<T>& out) {
  detail::check<ValueError>(static_cast<int64_t>(list.size()) == shape[dim], "tensor: expected sequence of length ",
                            shape[dim], " at dim ", dim, " (got ", list.size(), ")");
  for (const auto& item : list) {
    if constexpr (ListDepth<L>::value > 1)
      list_flatten<T>(item, shape, dim + 1, out);
    else
      out.push_back(checked_scalar_cast<T>(item));
  }
}

template <class T, class L>
auto tensor_from_list(const L& list, TensorOptions options) {
  using Leaf = typename ListLeaf<L>::type;
  using R = std::conditional_t<std::is_void_v<T>, deduced_element_t<Leaf>, T>;
  Shape shape;
  list_shape(list, shape);
  std::vector<R> flat;
  flat.reserve(static_cast<std::size_t>(shape.numel()));
  list_flatten<R>(list, shape, 0, flat);
  return generate<R>(shape, options, [&](int64_t i) { return flat[static_cast<std::size_t>(i)]; });
}

}  // namespace detail

/// A tensor from nested braces: `tl::tensor({{1., 2.}, {3., 4.}})`. (The
/// nested initializer_list types are spelled out: clang 14 fails to deduce
/// through alias templates here.) Integer
/// literals give int64, floating literals float, unless T is given. Ragged
/// nesting is a `ValueError` naming the dimension.
template <class T = void, Scalar E>
auto tensor(std::initializer_list<E> values, TensorOptions options = {}) {
  return detail::tensor_from_list<T>(values, options);
}
template <class T = void, Scalar E>
auto tensor(std::initializer_list<std::initializer_list<E>> values, TensorOptions options = {}) {
  return detail::tensor_from_list<T>(values, options);
}
template <class T = void, Scalar E>
auto tensor(std::initializer_list<std::initializer_list<std::initializer_list<E>>> values, TensorOptions options = {}) {
  return detail::tensor_from_list<T>(values, options);
}
template <class T = void, Scalar E>
auto tensor(std::initializer_list<std::initializer_list<std::initializer_list<std::initializer_list<E>>>> values,
            TensorOptions options = {}) {
  return detail::tensor_from_list<T>(values, options);
}
template <class T = void, Scalar E>
auto tensor(
    std::initializer_list<std::initializer_list<std::initializer_list<std::initializer_list<std::initializer_list<E>>>>>
        values,
    TensorOptions options = {}) {
  return detail::tensor_from_list<T>(values, options);
}
/// A 0-d tensor from one value.
template <class T = void, Scalar E>
auto tensor(E value, TensorOptions options = {}) {
  using R = std::conditional_t<std::is_void_v<T>, detail::deduced_element_t<E>, T>;
  return scalar_tensor<R>(detail::checked_scalar_cast<R>(value), options);
}

}  // namespace tensorlib
