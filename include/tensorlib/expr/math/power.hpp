#pragma once
/// \file
/// pow and fmod on floating scalars (host and device): the C library's, whose
/// special cases (pow(x, 0) = 1, pow(-inf, y), fmod(x, +-inf) = x, ...) are the
/// semantics PyTorch documents. Integer powers are handled by the functors.

#include <cmath>

#include "tensorlib/core/config.hpp"

namespace tensorlib::math {

#if defined(__CUDA_ARCH__)
TENSORLIB_HOST_DEVICE inline float pow(float x, float y) { return ::powf(x, y); }
TENSORLIB_HOST_DEVICE inline double pow(double x, double y) { return ::pow(x, y); }
TENSORLIB_HOST_DEVICE inline float fmod(float x, float y) { return ::fmodf(x, y); }
TENSORLIB_HOST_DEVICE inline double fmod(double x, double y) { return ::fmod(x, y); }
#else
/// x raised to the power y.
inline float pow(float x, float y) { return std::pow(x, y); }
inline double pow(double x, double y) { return std::pow(x, y); }
/// Remainder of x / y with the sign of x (C's fmod; exact).
inline float fmod(float x, float y) { return std::fmod(x, y); }
inline double fmod(double x, double y) { return std::fmod(x, y); }
#endif

}  // namespace tensorlib::math
