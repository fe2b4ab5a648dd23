#pragma once
/// \file
/// One-dimensional FFTs of contiguous lines on the GPU through cuFFT (any
/// translation unit linking the `tensorlib::cuda` component): cuFFT's three
/// transforms, complex-to-complex in either direction, real-to-complex
/// (forward, one-sided) and complex-to-real (inverse), unscaled. ops/fft.hpp
/// builds torch.fft's directions, scalings and layouts from them (Note
/// [cuFFT transforms] there). The plan's work area comes from the caching
/// allocator (cuFFT's own allocation is switched off), so a transform makes
/// no cudaMalloc in steady state; plans are kept in the device's
/// `cufft_plan_cache` (Note [cuFFT plan cache]).

#include <cufft.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "tensorlib/backend/cuda/caching_allocator.hpp"
#include "tensorlib/backend/cuda/fft_plan_cache.hpp"
#include "tensorlib/backend/cuda/runtime.hpp"
#include "tensorlib/core/device.hpp"
#include "tensorlib/core/error.hpp"

namespace tensorlib::cuda {

/// cuFFT's transforms: C2C (direction given apart), R2C (forward,
/// exp(-2 pi i jk / n), n / 2 + 1 outputs) and C2R (inverse, exp(+2 pi i jk
/// / n), reading n / 2 + 1 inputs).
enum class FftType { C2C, R2C, C2R };

/// Transforms `batch` contiguous lines of `n` points on `device`'s current
/// stream, unscaled: C2C reads and writes n (re, im) pairs per line, R2C
/// reads n reals and writes n / 2 + 1 pairs, C2R reads n / 2 + 1 pairs (which
/// cuFFT may overwrite) and writes n reals. T is float or double.
template <class T>
void fft_lines(T* in, T* out, int64_t batch, int64_t n, FftType type, bool inverse, Device device) {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>, "fft_lines: float or double");
  if (batch == 0 || n == 0) return;
  constexpr bool single = std::is_same_v<T, float>;
  const cufftType kind = type == FftType::C2C   ? (single ? CUFFT_C2C : CUFFT_Z2Z)
                         : type == FftType::R2C ? (single ? CUFFT_R2C : CUFFT_D2Z)
                                                : (single ? CUFFT_C2R : CUFFT_Z2D);
  DeviceGuard guard(device.index);
  cufft_plan_cache(device.index).with_plan({n, batch, kind}, [&](const detail::FftPlan& plan) {
    // The stream first, as PyTorch does, then the work area; a cached plan
    // goes back to the legacy stream after its run, however it ends, so it
    // never keeps the handle of a stream destroyed before its next use.
    detail::check_cufft(cufftSetStream(plan.get(), current_stream(device.index).handle()), "cufftSetStream");
    struct LegacyStreamAfter {
      cufftHandle handle;
      ~LegacyStreamAfter() { (void)cufftSetStream(handle, nullptr); }
    } const reset{plan.get()};
    // Freed after the launch: the caching allocator orders its reuse on this stream.
    const DataPtr work = CachingAllocator::instance().allocate(static_cast<int64_t>(plan.work_bytes()), device);
    if (plan.work_bytes() > 0) detail::check_cufft(cufftSetWorkArea(plan.get(), work.get()), "cufftSetWorkArea");
    const int direction = inverse ? CUFFT_INVERSE : CUFFT_FORWARD;
    if constexpr (single) {
      auto* cin = reinterpret_cast<cufftComplex*>(in);
      auto* cout = reinterpret_cast<cufftComplex*>(out);
      if (type == FftType::C2C)
        detail::check_cufft(cufftExecC2C(plan.get(), cin, cout, direction), "cufftExecC2C");
      else if (type == FftType::R2C)
        detail::check_cufft(cufftExecR2C(plan.get(), in, cout), "cufftExecR2C");
      else
        detail::check_cufft(cufftExecC2R(plan.get(), cin, out), "cufftExecC2R");
    } else {
      auto* zin = reinterpret_cast<cufftDoubleComplex*>(in);
      auto* zout = reinterpret_cast<cufftDoubleComplex*>(out);
      if (type == FftType::C2C)
        detail::check_cufft(cufftExecZ2Z(plan.get(), zin, zout, direction), "cufftExecZ2Z");
      else if (type == FftType::R2C)
        detail::check_cufft(cufftExecD2Z(plan.get(), in, zout), "cufftExecD2Z");
      else
        detail::check_cufft(cufftExecZ2D(plan.get(), zin, out), "cufftExecZ2D");
    }
  });
}

}  // namespace tensorlib::cuda
