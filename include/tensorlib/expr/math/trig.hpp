#pragma once
/// \file
/// sin, cos, tan, asin, acos, atan, atan2: scalar entry points (host and
/// device). The host versions call the C library for now.

#include <cmath>

#include "tensorlib/expr/math/primitives.hpp"

namespace tensorlib::math {

TENSORLIB_HOST_DEVICE inline float sin(float x) { return std::sin(x); }
TENSORLIB_HOST_DEVICE inline double sin(double x) { return std::sin(x); }
TENSORLIB_HOST_DEVICE inline float cos(float x) { return std::cos(x); }
TENSORLIB_HOST_DEVICE inline double cos(double x) { return std::cos(x); }
TENSORLIB_HOST_DEVICE inline float tan(float x) { return std::tan(x); }
TENSORLIB_HOST_DEVICE inline double tan(double x) { return std::tan(x); }
TENSORLIB_HOST_DEVICE inline float asin(float x) { return std::asin(x); }
TENSORLIB_HOST_DEVICE inline double asin(double x) { return std::asin(x); }
TENSORLIB_HOST_DEVICE inline float acos(float x) { return std::acos(x); }
TENSORLIB_HOST_DEVICE inline double acos(double x) { return std::acos(x); }
TENSORLIB_HOST_DEVICE inline float atan(float x) { return std::atan(x); }
TENSORLIB_HOST_DEVICE inline double atan(double x) { return std::atan(x); }
TENSORLIB_HOST_DEVICE inline float atan2(float y, float x) { return std::atan2(y, x); }
TENSORLIB_HOST_DEVICE inline double atan2(double y, double x) { return std::atan2(y, x); }

}  // namespace tensorlib::math
