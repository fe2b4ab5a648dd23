#pragma once
/// \file
/// The recording form of one FFT (declared in ops/fft.hpp): every `tl::fft`
/// op is a sequence of 1-D transforms of a real tensor or of (re, im) pairs,
/// each a real-linear map, so each records a node whose backward is the
/// transposed map, itself a transform (so it records under create_graph).
/// With L the input length along the dimension, n the transform length, s the
/// scale and F, F' the transforms in the op's direction and the other one:
///
///     C2C:          y = s F P x             ->  gx = P^T s F' gy
///     R2C:          y = s F P x (x real)    ->  gx = P^T Re(s F' gy)
///     R2COneSided:  y = K s F P x           ->  gx = P^T Re(s F' K^T gy)
///     C2R:          y = s F H P x           ->  gx = P^T (c * s R2COneSided'(gy))
///
/// P cuts or zero-pads the input to the kernel's length (n, or n/2 + 1 bins
/// for C2R) and P^T undoes it on the gradient; K keeps bins 0..n/2 (K^T
/// zero-pads them back to n); H completes a one-sided spectrum to the
/// Hermitian one, whose transpose doubles bins 1..n - n/2 - 1 (c) and drops the
/// imaginary parts of DC and Nyquist (their gradient is 0). These are
/// PyTorch's _fft_c2c/_fft_r2c/_fft_c2r backwards; as in PyTorch, the gradient
/// of a complex input is dL/d(re) + i dL/d(im), here the gradient of its pairs.

#include <array>
#include <cstdint>
#include <vector>

#include "tensorlib/autograd/op_backward.hpp"
#include "tensorlib/core/grad_mode.hpp"
#include "tensorlib/core/tensor.hpp"
#include "tensorlib/ops/factories.hpp"
#include "tensorlib/ops/fft.hpp"
#include "tensorlib/ops/join.hpp"

namespace tensorlib::autograd {
template <ComplexPart T>
Tensor<T> fft_transform(const Tensor<T>& x, bool complex_in, int64_t d, fft::detail::Kind kind, int64_t n, bool inverse,
                        double scale) {
  using fft::detail::Kind;
  const int64_t length = x.size(d);
  auto formula = [d, kind, n, inverse, scale, length](const std::vector<Tensor<T>>& g, const std::array<Tensor<T>, 0>&,
                                                      const std::vector<bool>&) {
    using fft::detail::transform_dim;
    Tensor<T> gx;
    switch (kind) {
      case Kind::C2C:
        gx = transform_dim(g[0], true, d, Kind::C2C, n, !inverse, scale);
        break;
      case Kind::R2C:
        gx = transform_dim(g[0], true, d, Kind::C2C, n, !inverse, scale).select(-1, 0);
        break;
      case Kind::R2COneSided:
        gx = transform_dim(fft::detail::fit_length(g[0], d, n), true, d, Kind::C2C, n, !inverse, scale).select(-1, 0);
        break;
      case Kind::C2R: {
        const Tensor<T> bins = transform_dim(g[0], false, d, Kind::R2COneSided, n, !inverse, scale);
        const int64_t m = n / 2 + 1;
        Shape shape = Shape::filled(bins.dim(), 1);
        shape[d] = m;
        auto weight = full<T>(shape, T(2), {.device = bins.device()});
        weight.narrow(d, 0, 1).fill_(T(1));
        if (n % 2 == 0) weight.narrow(d, m - 1, 1).fill_(T(1));
        gx = Tensor<T>(bins * weight);
        break;
      }
    }
    return std::vector<Tensor<T>>{fft::detail::fit_length(gx, d, length)};
  };
  return record<T>(
      "FftBackward", [&] { return fft::detail::transform_dim(x, complex_in, d, kind, n, inverse, scale); }, formula,
      std::array<SavedTensor<T>, 0>{}, x);
}

}  // namespace tensorlib::autograd
