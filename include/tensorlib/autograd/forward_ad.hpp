#pragma once
/// \file
/// `tl::autograd::forward_ad`: forward-mode differentiation of pointwise
/// chains on dual-number tensors (PyTorch's torch.autograd.forward_ad).
/// `make_dual(primal, tangents...)` packs a float or double tensor and K
/// tangents of its shape into a `Tensor<Dual<T, K>>`; every pointwise
/// expression of it (the functor catalogue, broadcasting, scalars, plain
/// tensors as constants) carries the K directional derivatives through the
/// same fused loop, and `unpack_dual` gives back the primal and the tangents:
///
///     auto x = forward_ad::make_dual(a, da);          // Tensor<Dual<float, 1>>
///     tl::Tensor<tl::Dual<float, 1>> y = tl::exp(x) * x + 2.0f;
///     auto [value, tangents] = forward_ad::unpack_dual(y);  // tangents[0] = J da
///
/// Each functor runs through `apply_dual` (`invoke_functor` in
/// autograd/dual.hpp), so the derivatives, special points included, are the
/// fused backward's (Note [dual derivatives at special points]). Unlike
/// PyTorch, a tensor holds K tangents (K directions in one pass), and no
/// dual level is needed. Only pointwise expressions take dual tensors:
/// reductions, matmul and type-erased code (AnyTensor) need a plain element
/// type, and dual tensors do not take part in reverse mode (requires_grad
/// is refused). Dual tensors live on either device; on a GPU a dual chain
/// is one fused kernel (in a translation unit compiled by nvcc, like every
/// fused expression) calling the same `apply_dual`.

#include <array>
#include <cstddef>
#include <string_view>
#include <type_traits>

#include "tensorlib/autograd/dual.hpp"
#include "tensorlib/core/error.hpp"
#include "tensorlib/core/expression.hpp"
#include "tensorlib/core/grad_mode.hpp"
#include "tensorlib/core/tensor.hpp"
#include "tensorlib/expr/map.hpp"

namespace tensorlib::autograd::forward_ad {

namespace detail {

/// (primal, tangent_0, ..., tangent_{K-1}) -> Dual<T, K>.
template <int K>
struct MakeDual {
  static constexpr std::string_view name = "make_dual";
  template <class T, class... Ts>
  TENSORLIB_HOST_DEVICE Dual<T, K> operator()(const T& primal, const Ts&... tangents) const {
    Dual<T, K> d(primal);
    int k = 0;
    ((d.tangent[k++] = tangents), ...);
    return d;
  }
};

/// One component of a dual: the primal (lane -1) or tangent `lane`.
struct DualPart {
  static constexpr std::string_view name = "unpack_dual";
  int lane = -1;
  template <class T, int K>
  TENSORLIB_HOST_DEVICE T operator()(const Dual<T, K>& d) const {
    return lane < 0 ? d.value : d.tangent[lane];
  }
};

}  // namespace detail

/// A dual tensor's parts (PyTorch's UnpackedDualTensor, with K tangents).
template <Element T, int K>
struct UnpackedDual {
  Tensor<T> primal;
  std::array<Tensor<T>, K> tangents;
};

/// `primal` with one tangent per direction, each of primal's shape: a
/// `Tensor<Dual<T, K>>`, K = the number of tangents.
template <Element T, class... Tangents>
requires(std::is_same_v<Tangents, Tensor<T>>&&...) auto make_dual(const Tensor<T>& primal,
                                                                  const Tangents&... tangents) {
  constexpr int K = static_cast<int>(sizeof...(Tangents));
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>,
                "make_dual: expected a float or double tensor; convert it with .to<float>()");
  static_assert(K >= 1 && K <= kMaxDualTangents, "make_dual: needs 1 to 32 tangents");
  std::size_t i = 0;
  (::tensorlib::detail::check<ShapeError>(tangents.sizes() == primal.sizes(), "make_dual: tangent ", i++, " has shape ",
                                          tangents.sizes(), " but the primal has shape ", primal.sizes()),
   ...);
  i = 0;
  (::tensorlib::detail::check<DeviceError>(tangents.device() == primal.device(), "make_dual: tangent ", i++, " is on ",
                                           tangents.device(), " but the primal is on ", primal.device()),
   ...);
  NoGradGuard no_grad;  // the parts' values, not their history
  return Tensor<Dual<T, K>>(Map<detail::MakeDual<K>, Tensor<T>, Tangents...>({}, primal, tangents...));
}

/// The primal and the tangents of a dual tensor or dual expression.
template <Expression E, class D = value_type_t<E>>
requires is_dual<D>
auto unpack_dual(const E& dual) {
  using T = decltype(D::value);
  constexpr int K = static_cast<int>(sizeof(D::tangent) / sizeof(T));
  const Tensor<D> d(dual);
  UnpackedDual<T, K> out{Tensor<T>(Map<detail::DualPart, Tensor<D>>({-1}, d)), {}};
  for (int k = 0; k < K; ++k) out.tangents[k] = Tensor<T>(Map<detail::DualPart, Tensor<D>>({k}, d));
  return out;
}

}  // namespace tensorlib::autograd::forward_ad
