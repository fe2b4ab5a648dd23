#pragma once
/// \file
/// The exception hierarchy. Every user-reachable misuse throws one of these
/// with a message naming the op, what was expected and what was got (DESIGN 3.8).

#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>

#include "tensorlib/core/config.hpp"

namespace tensorlib {

/// Base of every error tensorlib throws.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Shapes that cannot be combined: broadcasting, view, size mismatches.
class ShapeError : public Error {
 public:
  using Error::Error;
};

/// A dimension or element index outside its range (PyTorch's IndexError).
class IndexError : public Error {
 public:
  using Error::Error;
};

/// A name that a keyed collection lacks, e.g. a state dict key (Python's
/// KeyError).
class KeyError : public Error {
 public:
  using Error::Error;
};

/// An argument value out of its domain: negative sizes, zero steps, `item()`
/// on many elements (PyTorch's ValueError / RuntimeError for bad values).
class ValueError : public Error {
 public:
  using Error::Error;
};

/// A run-time dtype mismatch, e.g. `AnyTensor::as<float>()` on a double tensor.
class TypeError : public Error {
 public:
  using Error::Error;
};

/// A linear-algebra input for which the result does not exist: a singular
/// matrix in `linalg::inv`/`solve`, a matrix that is not positive-definite in
/// `linalg::cholesky` (PyTorch's `torch.linalg.LinAlgError`).
class LinAlgError : public ValueError {
 public:
  using ValueError::ValueError;
};

/// Tensors on different devices in one op, or a device that is not available.
class DeviceError : public Error {
 public:
  using Error::Error;
};

/// A failed CUDA runtime, cuBLAS or CUB call, or CUDA out of memory. The
/// message names the file and line of the call and the library's own text.
class CudaError : public Error {
 public:
  using Error::Error;
};

/// Misuse of the autograd graph: backward through freed buffers, a saved
/// tensor modified in place, a gradient of the wrong shape (PyTorch raises
/// RuntimeError for these).
class AutogradError : public Error {
 public:
  using Error::Error;
};

/// An operation that exists but has no implementation for these inputs yet
/// (PyTorch's NotImplementedError, e.g. a derivative not implemented).
class NotImplementedError : public Error {
 public:
  using Error::Error;
};

namespace detail {

/// Concatenates streamable parts into one message.
template <class... Parts>
std::string concat(const Parts&... parts) {
  std::ostringstream out;
  (out << ... << parts);
  return out.str();
}

/// Throws `E` with the concatenated message when `condition` is false.
/// Use: `check<ShapeError>(ok, op, ": shapes ", a, " and ", b, " cannot broadcast")`.
template <class E = Error, class... Parts>
void check(bool condition, const Parts&... parts) {
  if (!condition) [[unlikely]] {
    throw E(concat(parts...));
  }
}

}  // namespace detail
}  // namespace tensorlib
