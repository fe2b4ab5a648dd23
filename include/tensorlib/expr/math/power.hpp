#pragma once
/// \file
/// pow and fmod on floating scalars (host and device).

#include <cmath>

#include "tensorlib/core/config.hpp"

namespace tensorlib::math {

TENSORLIB_HOST_DEVICE inline float pow(float x, float y) { return std::pow(x, y); }
TENSORLIB_HOST_DEVICE inline double pow(double x, double y) { return std::pow(x, y); }
TENSORLIB_HOST_DEVICE inline float fmod(float x, float y) { return std::fmod(x, y); }
TENSORLIB_HOST_DEVICE inline double fmod(double x, double y) { return std::fmod(x, y); }

}  // namespace tensorlib::math
