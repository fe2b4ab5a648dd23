#pragma once
/// \file
/// The short-time Fourier transform and its inverse, `tl::stft` and
/// `tl::istft`, with `torch.stft`'s and `torch.istft`'s arguments and
/// semantics (current PyTorch: the result is always complex, as
/// `return_complex=True`; 1.13 also allows a real (..., 2) result). Built from
/// padding by an index gather, `unfold`, the window product, `fft::rfft` /
/// `fft::irfft` and an overlap-add by `index_add`, so both differentiate and
/// run where those run.
///
/// Shapes: B batch (optional), L samples, F frequencies (n_fft / 2 + 1 when
/// onesided, else n_fft), N frames. stft: (B, L) -> (B, F, N); istft: (B, F, N)
/// -> (B, L').

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <type_traits>
#include <vector>

#include "tensorlib/core/error.hpp"
#include "tensorlib/core/shape.hpp"
#include "tensorlib/core/tensor.hpp"
#include "tensorlib/expr/functions.hpp"
#include "tensorlib/expr/operators.hpp"
#include "tensorlib/ops/complex_tensor.hpp"
#include "tensorlib/ops/evaluate.hpp"
#include "tensorlib/ops/factories.hpp"
#include "tensorlib/ops/fft.hpp"
#include "tensorlib/ops/index_ops.hpp"
#include "tensorlib/ops/join.hpp"
#include "tensorlib/ops/reduce.hpp"
#include "tensorlib/ops/views.hpp"

namespace tensorlib {
namespace detail {

/// Positions that pad a length-n signal by `pad` on both sides
/// (torch.nn.functional.pad's modes "reflect", "replicate", "circular"), or
/// -1 where "constant" pads with zeros.
inline std::vector<int64_t> padded_positions(int64_t n, int64_t pad, std::string_view mode, const char* op) {
  check<ValueError>(mode == "reflect" || mode == "constant" || mode == "replicate" || mode == "circular", op,
                    ": unknown pad_mode '", mode, "'; expected reflect, constant, replicate or circular");
  check<ValueError>(mode != "reflect" || pad < n, op, ": reflect padding of ", pad,
                    " must be smaller than the input's length ", n);
  check<ValueError>(mode != "circular" || pad <= n, op, ": circular padding of ", pad,
                    " must not exceed the input's length ", n);
  check<ValueError>(mode == "constant" || n > 0, op, ": cannot pad an empty input in mode ", mode);
  std::vector<int64_t> at;
  for (int64_t i = -pad; i < n + pad; ++i) {
    if (i >= 0 && i < n)
      at.push_back(i);
    else if (mode == "constant")
      at.push_back(-1);
    else if (mode == "reflect")
      at.push_back(i < 0 ? -i : 2 * (n - 1) - i);
    else if (mode == "replicate")
      at.push_back(i < 0 ? 0 : n - 1);
    else
      at.push_back((i % n + n) % n);
  }
  return at;
}

/// x (B, L) padded along its last dimension: a gather of the positions
/// (zeros appended as position L for "constant").
template <Element T>
Tensor<T> pad_last(const Tensor<T>& x, int64_t pad, std::string_view mode, const char* op) {
  const int64_t n = x.size(-1);
  std::vector<int64_t> at = padded_positions(n, pad, mode, op);
  Tensor<T> source = x;
  if (mode == "constant") {
    source = cat({x, zeros<T>({x.size(0), 1}, {.device = x.device()})}, 1);
    for (auto& i : at)
      if (i < 0) i = n;
  }
  const auto index =
      from_blob(std::span<int64_t>(at), {static_cast<int64_t>(at.size())}).clone().to(Device(x.device()));
  return source.index_select(1, index);
}

/// The window of `win_length` samples centred in n_fft (PyTorch pads it with
/// zeros on both sides, the left (n_fft - win_length) / 2); ones by default.
template <Element T>
Tensor<T> centred_window(const std::optional<Tensor<T>>& window, int64_t n_fft, int64_t win_length, Device device,
                         const char* op) {
  check<ValueError>(win_length > 0 && win_length <= n_fft, op,
                    ": expected 0 < win_length <= n_fft, but got win_length=", win_length);
  if (window) {
    check<ShapeError>(window->dim() == 1 && window->size(0) == win_length, op,
                      ": expected a 1D window tensor of size equal to win_length=", win_length,
                      ", but got window with size ", window->sizes());
    check<DeviceError>(window->device() == device, op, ": the window is on ", window->device(), ", the input on ",
                       device);
  }
  const Tensor<T> w = window ? *window : ones<T>({win_length}, {.device = device});
  if (win_length == n_fft) return w;
  const int64_t left = (n_fft - win_length) / 2;
  return cat({zeros<T>({left}, {.device = device}), w, zeros<T>({n_fft - win_length - left}, {.device = device})});
}

/// Sums frames (B, N, n_fft) placed `hop` apart into a (B, n_fft + hop (N - 1)) signal.
template <Element T>
Tensor<T> overlap_add(const Tensor<T>& frames, int64_t hop) {
  const int64_t batch = frames.size(0), n = frames.size(1), n_fft = frames.size(2);
  const int64_t length = n_fft + hop * (n - 1);
  std::vector<int64_t> at;
  at.reserve(static_cast<std::size_t>(n * n_fft));
  for (int64_t f = 0; f < n; ++f)
    for (int64_t k = 0; k < n_fft; ++k) at.push_back(f * hop + k);
  const auto index =
      from_blob(std::span<int64_t>(at), {static_cast<int64_t>(at.size())}).clone().to(Device(frames.device()));
  return zeros<T>({batch, length}, {.device = frames.device()}).index_add(1, index, frames.reshape({batch, n * n_fft}));
}

}  // namespace detail

/// The short-time Fourier transform of a (L) or (B, L) real signal
/// (`torch.stft`): frames of n_fft samples `hop_length` apart (default
/// n_fft / 4), each multiplied by the window (`win_length` samples, default
/// n_fft, centred; ones when none is given) and transformed. With `center`
/// the signal is first padded by n_fft / 2 on both sides in `pad_mode`;
/// `normalized` scales by n_fft^(-1/2); `onesided` (the default for real
/// signals) keeps the n_fft / 2 + 1 non-negative frequencies. (F, N) or (B, F, N).
template <Expression E, class T = value_type_t<E>>
ComplexTensor<T> stft(const E& input, int64_t n_fft, std::optional<int64_t> hop_length = std::nullopt,
                      std::optional<int64_t> win_length = std::nullopt,
                      const std::optional<Tensor<std::type_identity_t<T>>>& window = std::nullopt, bool center = true,
                      std::string_view pad_mode = "reflect", bool normalized = false, bool onesided = true) {
  static_assert(ComplexPart<T>, "stft: expected a float or double signal; convert it with .to<float>()");
  const char* op = "stft";
  const Tensor<T> x = input;
  detail::check<ShapeError>(x.dim() == 1 || x.dim() == 2, op, ": expected a 1D or 2D tensor, but got ", x.dim(), "D");
  const Tensor<T> signal = x.dim() == 1 ? x.unsqueeze(0) : x;
  const int64_t hop = hop_length.value_or(n_fft / 4), win = win_length.value_or(n_fft);
  detail::check<ValueError>(n_fft > 0, op, ": expected 0 < n_fft, but got n_fft=", n_fft);
  detail::check<ValueError>(hop > 0, op, ": expected hop_length > 0, but got hop_length=", hop);
  const Tensor<T> padded = center ? detail::pad_last(signal, n_fft / 2, pad_mode, op) : signal;
  const int64_t length = padded.size(1);
  detail::check<ValueError>(n_fft <= length, op, ": expected 0 < n_fft <= ", length, ", but got n_fft=", n_fft);
  const Tensor<T> w = detail::centred_window(window, n_fft, win, x.device(), op);
  // (B, N, n_fft) windowed frames, transformed along n_fft read as (B, n_fft, N).
  const Tensor<T> frames = padded.unfold(1, n_fft, hop) * w;
  const std::string_view norm = normalized ? "ortho" : "backward";
  const Tensor<T> columns = frames.transpose(1, 2);
  ComplexTensor<T> spectrum =
      onesided ? fft::rfft(columns, std::nullopt, 1, norm) : fft::fft(columns, std::nullopt, 1, norm);
  return x.dim() == 1 ? ComplexTensor<T>(spectrum.pairs().squeeze(0)) : spectrum;
}

/// The inverse of `stft` by overlap-add (`torch.istft`): (F, N) or (B, F, N)
/// to (L') or (B, L'). `onesided` defaults to F != n_fft; the frames are
/// multiplied by the window again and the sum divided by the summed squared
/// window, which must not vanish anywhere in the kept range (PyTorch's NOLA
/// check). `length` trims or zero-pads the result; otherwise `center` trims
/// n_fft / 2 at both ends. The result is real (return_complex=False).
template <ComplexPart T>
Tensor<T> istft(const ComplexTensor<T>& input, int64_t n_fft, std::optional<int64_t> hop_length = std::nullopt,
                std::optional<int64_t> win_length = std::nullopt,
                const std::optional<Tensor<std::type_identity_t<T>>>& window = std::nullopt, bool center = true,
                bool normalized = false, std::optional<bool> onesided = std::nullopt,
                std::optional<int64_t> length = std::nullopt) {
  const char* op = "istft";
  detail::check<ShapeError>(input.dim() == 2 || input.dim() == 3, op,
                            ": expected a tensor with 2 or 3 dimensions of complex values, but got ", input.dim(), "D");
  detail::check<ValueError>(input.numel() > 0, op, ": input tensor cannot be empty, got shape ", input.sizes());
  const ComplexTensor<T> z = input.dim() == 2 ? ComplexTensor<T>(input.pairs().unsqueeze(0)) : input;
  const int64_t hop = hop_length.value_or(n_fft / 4), win = win_length.value_or(n_fft);
  const int64_t freqs = z.size(1), n_frames = z.size(2);
  const bool half = onesided.value_or(freqs != n_fft);
  detail::check<ValueError>(n_fft > 0, op, ": expected 0 < n_fft, but got n_fft=", n_fft);
  detail::check<ValueError>(hop > 0 && hop <= win, op,
                            ": expected 0 < hop_length <= win_length, but got hop_length=", hop, ", win_length=", win);
  detail::check<ShapeError>(half ? freqs == n_fft / 2 + 1 : freqs == n_fft, op, ": expected the frequency dimension (",
                            freqs, ") to be ",
                            half ? "n_fft / 2 + 1 (onesided) = " : "n_fft = ", half ? n_fft / 2 + 1 : n_fft);
  const Tensor<T> w = detail::centred_window(window, n_fft, win, z.device(), op);
  const std::string_view norm = normalized ? "ortho" : "backward";
  // (B, n_fft, N) frames in time, then (B, N, n_fft) to add up. A real
  // result of a two-sided spectrum reads its n_fft / 2 + 1 non-negative
  // frequencies only, as PyTorch's (a real inverse transform).
  const Tensor<T> columns =
      fft::irfft(half ? z : ComplexTensor<T>(z.pairs().narrow(1, 0, n_fft / 2 + 1)), n_fft, 1, norm);
  const Tensor<T> frames = columns.transpose(1, 2) * w;
  const int64_t expected = n_fft + hop * (n_frames - 1);
  const Tensor<T> w2 = w * w;
  const Tensor<T> envelope = detail::overlap_add(w2.expand({1, n_frames, n_fft}), hop).squeeze(0);
  Tensor<T> y = detail::overlap_add(frames, hop);
  const int64_t start = center ? n_fft / 2 : 0;
  int64_t end = length ? start + *length : (center ? expected - n_fft / 2 : expected);
  detail::check<ValueError>(end >= start, op, ": expected a non-negative length, got ", end - start);
  const int64_t kept = std::min(end, expected) - start;
  const Tensor<T> scale = envelope.narrow(0, start, std::max<int64_t>(kept, 0));
  const T lowest = scale.numel() ? Tensor<T>(abs(scale)).min().item() : T(1);
  detail::check<ValueError>(!(lowest < T(1e-11)), op, ": window overlap add min: ", lowest,
                            " (the window and hop_length do not satisfy the NOLA condition)");
  y = y.narrow(1, start, std::max<int64_t>(kept, 0)) / scale;
  if (end - start > kept) y = cat({y, zeros<T>({y.size(0), end - start - kept}, {.device = y.device()})}, 1);
  return input.dim() == 2 ? y.squeeze(0) : y;
}

}  // namespace tensorlib
