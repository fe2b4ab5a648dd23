#pragma once
/// \file
/// Window functions with `torch`'s names and semantics: `hann_window`,
/// `hamming_window`, `blackman_window`, `bartlett_window`, `kaiser_window`.
/// Each takes `window_length` and `periodic` (default true: the window of
/// length window_length + 1 without its last value, the form spectral
/// analysis wants); length 0 gives an empty tensor and length 1 a single 1.
/// Values are computed in double and rounded once to T.

#include <cmath>
#include <cstdint>
#include <numbers>

#include "tensorlib/core/dtype.hpp"
#include "tensorlib/core/error.hpp"
#include "tensorlib/core/tensor.hpp"
#include "tensorlib/core/tensor_options.hpp"
#include "tensorlib/ops/factories.hpp"

namespace tensorlib {
namespace detail {

/// A window of `window_length` values f(i, N), where N is the length of the
/// symmetric window the values come from (window_length + 1 when periodic).
template <Element T, class F>
Tensor<T> make_window(int64_t window_length, bool periodic, TensorOptions options, const char* op, F f) {
  static_assert(is_floating<T>, "window functions: the element type must be float or double");
  check<ValueError>(window_length >= 0, op, " requires non-negative window_length, got window_length=", window_length);
  if (window_length == 1) return ones<T>({1}, options);
  const int64_t full = periodic ? window_length + 1 : window_length;
  return generate<T>({window_length}, options, [&](int64_t i) { return static_cast<T>(f(i, full)); });
}

/// The modified Bessel function of the first kind of order 0, by its power
/// series sum ((x/2)^k / k!)^2 (every term positive, so no cancellation).
inline double bessel_i0(double x) {
  const double q = x * x / 4;
  double term = 1, sum = 1;
  for (int k = 1; k < 500 && term > sum * 1e-17; ++k) {
    term *= q / (static_cast<double>(k) * static_cast<double>(k));
    sum += term;
  }
  return sum;
}

}  // namespace detail

/// alpha - beta cos(2 pi i / (N - 1)) (torch.hamming_window).
template <Element T = float>
Tensor<T> hamming_window(int64_t window_length, bool periodic = true, double alpha = 0.54, double beta = 0.46,
                         TensorOptions options = {}) {
  return detail::make_window<T>(window_length, periodic, options, "hamming_window", [=](int64_t i, int64_t n) {
    return alpha - beta * std::cos(2 * std::numbers::pi * static_cast<double>(i) / static_cast<double>(n - 1));
  });
}

/// The periodic or symmetric Hann window (torch.hann_window).
template <Element T = float>
Tensor<T> hann_window(int64_t window_length, bool periodic = true, TensorOptions options = {}) {
  return detail::make_window<T>(window_length, periodic, options, "hann_window", [](int64_t i, int64_t n) {
    return 0.5 - 0.5 * std::cos(2 * std::numbers::pi * static_cast<double>(i) / static_cast<double>(n - 1));
  });
}

/// 0.42 - 0.5 cos(2 pi i / (N - 1)) + 0.08 cos(4 pi i / (N - 1)) (torch.blackman_window).
template <Element T = float>
Tensor<T> blackman_window(int64_t window_length, bool periodic = true, TensorOptions options = {}) {
  return detail::make_window<T>(window_length, periodic, options, "blackman_window", [](int64_t i, int64_t n) {
    const double a = 2 * std::numbers::pi * static_cast<double>(i) / static_cast<double>(n - 1);
    return 0.42 - 0.5 * std::cos(a) + 0.08 * std::cos(2 * a);
  });
}

/// The triangle 1 - |2 i / (N - 1) - 1| (torch.bartlett_window).
template <Element T = float>
Tensor<T> bartlett_window(int64_t window_length, bool periodic = true, TensorOptions options = {}) {
  return detail::make_window<T>(window_length, periodic, options, "bartlett_window", [](int64_t i, int64_t n) {
    return 1 - std::fabs(2 * static_cast<double>(i) / static_cast<double>(n - 1) - 1);
  });
}

/// I0(beta sqrt(1 - ((i - a) / a)^2)) / I0(beta), a = (N - 1) / 2 (torch.kaiser_window).
template <Element T = float>
Tensor<T> kaiser_window(int64_t window_length, bool periodic = true, double beta = 12.0, TensorOptions options = {}) {
  const double denominator = detail::bessel_i0(beta);
  return detail::make_window<T>(window_length, periodic, options, "kaiser_window", [=](int64_t i, int64_t n) {
    const double a = static_cast<double>(n - 1) / 2, r = (static_cast<double>(i) - a) / a;
    return detail::bessel_i0(beta * std::sqrt(std::fmax(0.0, 1 - r * r))) / denominator;
  });
}

}  // namespace tensorlib
