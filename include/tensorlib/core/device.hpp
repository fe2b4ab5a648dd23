#pragma once
/// \file
/// `Device`: where a tensor's storage lives. CPU now; CUDA joins through the
/// allocator registry (core/allocator.hpp) without changes here.

#include <cstdint>
#include <ostream>
#include <string_view>

#include "tensorlib/core/config.hpp"
#include "tensorlib/core/error.hpp"

namespace tensorlib {

/// The kind of a device (PyTorch's DeviceType).
enum class DeviceType : int8_t { CPU = 0, CUDA = 1 };

inline constexpr DeviceType kCPU = DeviceType::CPU;
inline constexpr DeviceType kCUDA = DeviceType::CUDA;

/// A device kind plus an index (-1: "the current one", as in PyTorch).
struct Device {
  DeviceType type = DeviceType::CPU;
  int8_t index = -1;

  constexpr Device() = default;
  constexpr Device(DeviceType t, int8_t i = -1) : type(t), index(i) {}  // NOLINT: implicit like PyTorch

  constexpr bool is_cpu() const noexcept { return type == DeviceType::CPU; }
  constexpr bool is_cuda() const noexcept { return type == DeviceType::CUDA; }

  friend constexpr bool operator==(const Device& a, const Device& b) noexcept {
    return a.type == b.type && a.index == b.index;
  }

  /// Prints `cpu`, `cuda` or `cuda:1`.
  friend std::ostream& operator<<(std::ostream& os, const Device& d) {
    os << (d.is_cpu() ? "cpu" : "cuda");
    if (d.index >= 0) os << ':' << static_cast<int>(d.index);
    return os;
  }
};

namespace detail {

/// The error of an op given tensors on two devices (PyTorch's wording).
[[noreturn]] inline void throw_device_mismatch(std::string_view op, Device a, Device b) {
  throw DeviceError(
      concat(op, ": expected all tensors to be on the same device, but found at least two devices, ", a, " and ", b));
}

}  // namespace detail
}  // namespace tensorlib
