#pragma once
/// \file
/// `TensorOptions`: where and how a factory creates a tensor. The element
/// type is the factory's template argument (`tl::zeros<double>({2, 3})`).

#include "tensorlib/core/device.hpp"

namespace tensorlib {

/// Options of tensor factories, written with designated initializers:
/// `tl::zeros({2, 3}, {.device = tl::kCPU, .requires_grad = true})`.
struct TensorOptions {
  Device device{kCPU};
  /// Makes the new tensor a leaf that requires grad (floating types only).
  bool requires_grad = false;
  /// Allocates in pinned host memory (CPU tensors; needs the CUDA runtime).
  bool pin_memory = false;
};

}  // namespace tensorlib
