#pragma once
/// \file
/// One-dimensional FFTs of contiguous lines on the GPU through cuFFT (any
/// translation unit linking the `tensorlib::cuda` component): cuFFT's three
/// transforms, complex-to-complex in either direction, real-to-complex
/// (forward, one-sided) and complex-to-real (inverse), unscaled. ops/fft.hpp
/// builds torch.fft's directions, scalings and layouts from them (Note
/// [cuFFT transforms] there). The plan's work area comes from the caching
/// allocator (cuFFT's own allocation is switched off), so a transform makes
/// no cudaMalloc in steady state; a plan is made per call.

#include <cufft.h>

#include <cstddef>
#include <cstdint>
#include <source_location>
#include <type_traits>

#include "tensorlib/backend/cuda/caching_allocator.hpp"
#include "tensorlib/backend/cuda/runtime.hpp"
#include "tensorlib/core/device.hpp"
#include "tensorlib/core/error.hpp"

namespace tensorlib::cuda {
namespace detail {

inline const char* cufft_message(cufftResult s) {
  switch (s) {
    case CUFFT_INVALID_PLAN:
      return "CUFFT_INVALID_PLAN";
    case CUFFT_ALLOC_FAILED:
      return "CUFFT_ALLOC_FAILED";
    case CUFFT_INVALID_TYPE:
      return "CUFFT_INVALID_TYPE";
    case CUFFT_INVALID_VALUE:
      return "CUFFT_INVALID_VALUE";
    case CUFFT_INTERNAL_ERROR:
      return "CUFFT_INTERNAL_ERROR";
    case CUFFT_EXEC_FAILED:
      return "CUFFT_EXEC_FAILED";
    case CUFFT_SETUP_FAILED:
      return "CUFFT_SETUP_FAILED";
    case CUFFT_INVALID_SIZE:
      return "CUFFT_INVALID_SIZE";
    case CUFFT_NOT_SUPPORTED:
      return "CUFFT_NOT_SUPPORTED";
    default:
      return "cuFFT error";
  }
}

/// Throws `CudaError` for a failed cuFFT call (file:line and cuFFT's name).
inline void check_cufft(cufftResult status, const char* what,
                        std::source_location where = std::source_location::current()) {
  if (status == CUFFT_SUCCESS) [[likely]]
    return;
  throw_cuda_error(where, what, cufft_message(status));
}

/// A cuFFT plan handle, destroyed with its owner.
class FftPlan {
 public:
  FftPlan() { check_cufft(cufftCreate(&handle_), "cufftCreate"); }
  FftPlan(const FftPlan&) = delete;
  FftPlan& operator=(const FftPlan&) = delete;
  ~FftPlan() { cufftDestroy(handle_); }
  cufftHandle get() const { return handle_; }

 private:
  cufftHandle handle_{};
};

}  // namespace detail

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
  detail::FftPlan plan;
  detail::check_cufft(cufftSetAutoAllocation(plan.get(), 0), "cufftSetAutoAllocation");
  long long points = n;
  std::size_t work_bytes = 0;
  detail::check_cufft(cufftMakePlanMany64(plan.get(), 1, &points, nullptr, 1, 0, nullptr, 1, 0, kind,
                                          static_cast<long long>(batch), &work_bytes),
                      "cufftMakePlanMany64");
  // Freed after the launch: the caching allocator orders its reuse on this stream.
  const DataPtr work = CachingAllocator::instance().allocate(static_cast<int64_t>(work_bytes), device);
  if (work_bytes > 0) detail::check_cufft(cufftSetWorkArea(plan.get(), work.get()), "cufftSetWorkArea");
  detail::check_cufft(cufftSetStream(plan.get(), current_stream(device.index).handle()), "cufftSetStream");
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
}

}  // namespace tensorlib::cuda
