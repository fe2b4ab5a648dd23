#pragma once
/// \file
/// The expression tree: `ScalarLeaf<T>` (a C++ scalar operand) and
/// `Map<F, Children...>` (a pointwise functor applied to child expressions).
/// Together with `Tensor<T>` as the leaf, these are the whole vocabulary of a
/// fused computation (DESIGN 3.2): a pure description, evaluated only by an
/// executor (backend/) through ops/evaluate.hpp.
///
/// Nodes own their children by value. Tensor children are handles (a shared
/// pointer copy), so `auto e = a * b;` keeps `a` and `b` alive and can never
/// dangle, whatever happens to the variables it was built from (STYLE 9).

#include <concepts>
#include <optional>
#include <string_view>
#include <type_traits>
#include <utility>

#include "tensorlib/core/config.hpp"
#include "tensorlib/core/device.hpp"
#include "tensorlib/core/dtype.hpp"
#include "tensorlib/core/error.hpp"
#include "tensorlib/core/expression.hpp"
#include "tensorlib/core/pointwise_methods.hpp"
#include "tensorlib/core/shape.hpp"
#include "tensorlib/core/tensor.hpp"
#include "tensorlib/core/tuple.hpp"
#include "tensorlib/expr/broadcast.hpp"

namespace tensorlib {

/// A C++ scalar inside an expression: 0-d, on every device, never dualised.
template <Element T>
struct ScalarLeaf {
  using value_type = T;
  T value;

  const Shape& shape() const {
    static const Shape scalar_shape;
    return scalar_shape;
  }
};

/// A child of a `Map`: an expression or a scalar leaf.
template <class N>
concept Node = Expression<N> || std::same_as<N, ScalarLeaf<typename N::value_type>>;

/// A pointwise functor usable in a `Map`: it names itself for error messages.
template <class F>
concept Functor = std::copy_constructible<F> && requires {
  { F::name } -> std::convertible_to<std::string_view>;
};

template <Functor F, Node... Cs>
class Map;

namespace detail {

template <class N>
std::optional<Device> device_of(const N& n) {
  if constexpr (Expression<N>)
    return n.device();
  else
    return std::nullopt;
}

}  // namespace detail

/// Applies a pointwise functor to element values: every executor calls
/// functors through it. Element types with their own rule overload it in
/// their namespace, found by argument-dependent lookup (dual numbers:
/// autograd/dual.hpp). Reduced floats compute in float and round a result of
/// their own type back (Note [reduced floats] in core/half.hpp).
template <class F, class... A>
TENSORLIB_FORCE_INLINE TENSORLIB_HOST_DEVICE inline decltype(auto) invoke_functor(const F& f, const A&... a) {
  if constexpr ((is_reduced_float<A> || ...)) {
    using R = std::remove_cvref_t<std::invoke_result_t<const F&, const A&...>>;
    if constexpr (is_reduced_float<R>)
      return R(f(to_opmath(a)...));
    else
      return f(to_opmath(a)...);
  } else {
    return f(a...);
  }
}

/// `F` applied elementwise to the (broadcast) children. The shape and device
/// are checked once, when the node is built, so errors name the op at the
/// line that wrote it.
template <Functor F, Node... Cs>
class Map : public PointwiseMethods<Map<F, Cs...>> {
 public:
  using expression_tag = void;
  using functor_type = F;
  using value_type = std::remove_cvref_t<std::invoke_result_t<const F&, const typename Cs::value_type&...>>;
  static_assert(Element<value_type>, "Map: a functor must return a tensor element type");

  explicit Map(F f, Cs... children) : f_(std::move(f)), children_(std::move(children)...) {
    tensorlib::detail::apply(
        [this](const auto&... c) { ((shape_ = broadcast_shapes(shape_, c.shape(), F::name)), ...); }, children_);
    std::optional<Device> device;
    tensorlib::detail::apply(
        [&](const auto&... c) {
          (
              [&] {
                const auto d = detail::device_of(c);
                if (!d) return;
                if (device && *device != *d) detail::throw_device_mismatch(F::name, *device, *d);
                device = d;
              }(),
              ...);
        },
        children_);
    device_ = device.value_or(Device(kCPU));
  }

  const Shape& shape() const noexcept { return shape_; }
  const Shape& sizes() const noexcept { return shape_; }
  int64_t dim() const noexcept { return shape_.size(); }
  int64_t numel() const noexcept { return shape_.numel(); }
  Device device() const noexcept { return device_; }
  const F& functor() const noexcept { return f_; }
  const detail::Tuple<Cs...>& children() const noexcept { return children_; }

  /// Evaluates into a new contiguous tensor (one fused loop).
  Tensor<value_type> eval() const;
  /// A lazy conversion of this expression's elements to U.
  template <Element U>
  auto to() const;

 private:
  F f_;
  detail::Tuple<Cs...> children_;
  Shape shape_;
  Device device_;
};

}  // namespace tensorlib
