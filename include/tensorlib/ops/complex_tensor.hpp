#pragma once
/// \file
/// `ComplexTensor<T>`: a complex tensor stored in PyTorch's `view_as_real`
/// layout, a `Tensor<T>` whose last dimension of size 2 and stride 1 holds
/// (re, im) pairs. What the spectral ops (`ops/fft.hpp`) take and return;
/// `view_as_real` / `view_as_complex` convert without copying, as in PyTorch;
/// `complex`, `polar`, `conj`, `abs`, `angle` and `isreal` build and read them.
///
/// Note [complex representation]
/// tensorlib has no complex element type: adding one would touch every switch
/// over `ScalarType`, the promotion lattice, printing, comparisons and the
/// SIMD functor catalogue. A typed wrapper keeps the element type real (so
/// every pointwise op applies to `z.real()`, `z.imag()` or `view_as_real(z)`)
/// while overloads still tell a complex spectrum from a real signal at compile
/// time: `fft(Tensor<T>)` is the transform of real data, `fft(ComplexTensor<T>)`
/// the one of complex data. Dimensions of a `ComplexTensor` are the complex
/// tensor's (the pair dimension is not counted), as in PyTorch.

#include <cmath>
#include <complex>
#include <concepts>
#include <cstdint>
#include <utility>
#include <vector>

#include "tensorlib/core/error.hpp"
#include "tensorlib/core/shape.hpp"
#include "tensorlib/core/tensor.hpp"
#include "tensorlib/expr/functions.hpp"
#include "tensorlib/expr/operators.hpp"
#include "tensorlib/ops/factories.hpp"
#include "tensorlib/ops/join.hpp"
#include "tensorlib/ops/views.hpp"

namespace tensorlib {

/// Element types a `ComplexTensor` can have parts of.
template <class T>
concept ComplexPart = std::same_as<T, float> || std::same_as<T, double>;

/// A complex tensor as (re, im) pairs in the last dimension of a real tensor
/// (Note [complex representation]). Cheap to copy; copies share memory.
template <ComplexPart T>
class ComplexTensor {
 public:
  ComplexTensor() = default;
  /// Views `pairs` (last dimension of size 2 and stride 1) as complex.
  explicit ComplexTensor(Tensor<T> pairs) : pairs_(std::move(pairs)) {
    detail::check<ShapeError>(pairs_.dim() >= 1 && pairs_.size(-1) == 2,
                              "view_as_complex: Tensor must have a last dimension of size 2, got shape ",
                              pairs_.sizes());
    detail::check<ShapeError>(pairs_.stride(-1) == 1,
                              "view_as_complex: Tensor must have a last dimension with stride 1, got strides ",
                              pairs_.strides());
  }

  bool defined() const { return pairs_.defined(); }
  /// The real tensor of pairs, shape `sizes() + [2]`.
  const Tensor<T>& pairs() const { return pairs_; }
  /// Extent of each complex dimension.
  Shape sizes() const {
    Shape s = pairs_.sizes();
    s.erase(s.size() - 1);
    return s;
  }
  int64_t dim() const { return pairs_.dim() - 1; }
  /// Extent of one complex dimension (negative dims count from the end).
  /// A 0-d tensor has none (IndexError, as PyTorch).
  int64_t size(int64_t d) const {
    detail::check<IndexError>(dim() > 0, "size: dimension specified as ", d, " but tensor has no dimensions");
    return pairs_.size(wrap_dim(d, dim(), "size"));
  }
  int64_t numel() const { return pairs_.numel() / 2; }
  Device device() const { return pairs_.device(); }

  /// The real parts (a view).
  Tensor<T> real() const { return pairs_.select(-1, 0); }
  /// The imaginary parts (a view).
  Tensor<T> imag() const { return pairs_.select(-1, 1); }
  /// A contiguous copy unless already contiguous.
  ComplexTensor contiguous() const { return ComplexTensor(pairs_.contiguous()); }
  /// All elements in row-major order.
  std::vector<std::complex<T>> to_vector() const {
    const std::vector<T> flat = pairs_.to_vector();
    std::vector<std::complex<T>> out(flat.size() / 2);
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = {flat[2 * i], flat[2 * i + 1]};
    return out;
  }

 private:
  Tensor<T> pairs_;
};

/// The (re, im) pairs of `z` as a real tensor with a trailing dimension of 2 (no copy).
template <ComplexPart T>
Tensor<T> view_as_real(const ComplexTensor<T>& z) {
  return z.pairs();
}

/// `x` (last dimension of size 2 and stride 1) viewed as complex (no copy).
template <ComplexPart T>
ComplexTensor<T> view_as_complex(const Tensor<T>& x) {
  return ComplexTensor<T>(x);
}

/// The complex tensor real + i imag (same shapes), as `torch.complex`.
template <ComplexPart T>
ComplexTensor<T> complex(const Tensor<T>& real, const Tensor<T>& imag) {
  detail::check<ShapeError>(real.sizes() == imag.sizes(), "complex: real and imag must have the same shape, got ",
                            real.sizes(), " and ", imag.sizes());
  return ComplexTensor<T>(stack({real, imag}, -1));
}

/// The complex conjugate (a new tensor).
template <ComplexPart T>
ComplexTensor<T> conj(const ComplexTensor<T>& z) {
  return complex(z.real().contiguous(), Tensor<T>(-z.imag()));
}

/// The magnitude sqrt(re^2 + im^2) of each element.
template <ComplexPart T>
Tensor<T> abs(const ComplexTensor<T>& z) {
  const Tensor<T> re = z.real(), im = z.imag();
  return sqrt(re * re + im * im);
}

/// The argument atan2(im, re) of each element.
template <ComplexPart T>
Tensor<T> angle(const ComplexTensor<T>& z) {
  return atan2(z.imag(), z.real());
}

/// The complex numbers abs * (cos angle + i sin angle) (`torch.polar`); abs
/// and angle broadcast.
template <ComplexPart T>
ComplexTensor<T> polar(const Tensor<T>& abs, const Tensor<T>& angle) {
  return complex(Tensor<T>(abs * cos(angle)), Tensor<T>(abs * sin(angle)));
}

/// Whether each element has a zero imaginary part (`torch.isreal`).
template <ComplexPart T>
Tensor<bool> isreal(const ComplexTensor<T>& z) {
  return z.imag() == T(0);
}
/// `torch.isreal` of a real tensor: true everywhere.
template <Expression E>
Tensor<bool> isreal(const E& x) {
  const Tensor<value_type_t<E>> t = x;
  return full<bool>(t.sizes(), true, {.device = t.device()});
}

}  // namespace tensorlib
