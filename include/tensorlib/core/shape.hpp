#pragma once
/// \file
/// `Shape`: the sizes (or strides) of a tensor, stored inline up to
/// TENSORLIB_MAX_DIMS entries, plus the shape arithmetic every layer shares.

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <ostream>
#include <span>
#include <vector>

#include "tensorlib/core/config.hpp"
#include "tensorlib/core/error.hpp"

namespace tensorlib {

/// A list of at most TENSORLIB_MAX_DIMS signed 64-bit extents. Used for both
/// sizes and strides (PyTorch's IntArrayRef / DimVector). Prints as `[2, 3]`.
class Shape {
 public:
  static constexpr int kMaxDims = TENSORLIB_MAX_DIMS;

  /// The 0-d shape `[]`.
  constexpr Shape() = default;
  /// `Shape{2, 3}`; more than kMaxDims entries throw ShapeError.
  Shape(std::initializer_list<int64_t> dims) { assign(dims.begin(), dims.end()); }
  explicit Shape(std::span<const int64_t> dims) { assign(dims.begin(), dims.end()); }
  explicit Shape(const std::vector<int64_t>& dims) { assign(dims.begin(), dims.end()); }

  /// A shape of `ndim` entries all equal to `value`.
  static Shape filled(int64_t ndim, int64_t value) {
    Shape s;
    s.resize(ndim, value);
    return s;
  }

  /// Number of dimensions (a vector-like interface: size, [], iterators, data).
  constexpr int64_t size() const noexcept { return n_; }
  constexpr bool empty() const noexcept { return n_ == 0; }
  constexpr int64_t& operator[](int64_t i) noexcept { return d_[i]; }
  constexpr const int64_t& operator[](int64_t i) const noexcept { return d_[i]; }
  constexpr int64_t* begin() noexcept { return d_; }
  constexpr int64_t* end() noexcept { return d_ + n_; }
  constexpr const int64_t* begin() const noexcept { return d_; }
  constexpr const int64_t* end() const noexcept { return d_ + n_; }
  constexpr const int64_t* data() const noexcept { return d_; }
  int64_t back() const noexcept { return d_[n_ - 1]; }

  /// Editing in place; growing past kMaxDims throws ShapeError. Indices are not checked.
  void push_back(int64_t v) {
    if (n_ >= kMaxDims) [[unlikely]]
      too_many_dims(n_ + 1);
    d_[n_++] = v;
  }
  void insert(int64_t pos, int64_t v) {
    push_back(0);
    for (int64_t i = n_ - 1; i > pos; --i) d_[i] = d_[i - 1];
    d_[pos] = v;
  }
  void erase(int64_t pos) {
    for (int64_t i = pos; i + 1 < n_; ++i) d_[i] = d_[i + 1];
    --n_;
  }
  void resize(int64_t n, int64_t value = 0) {
    if (n > kMaxDims) [[unlikely]]
      too_many_dims(n);
    for (int64_t i = n_; i < n; ++i) d_[i] = value;
    n_ = n;
  }

  /// Product of the entries (1 for a 0-d shape): the element count of a tensor.
  int64_t numel() const noexcept {
    int64_t p = 1;
    for (int64_t i = 0; i < n_; ++i) p *= d_[i];
    return p;
  }

  /// The entries as a std::vector.
  std::vector<int64_t> vec() const { return {begin(), end()}; }

  friend bool operator==(const Shape& a, const Shape& b) noexcept {
    return std::equal(a.begin(), a.end(), b.begin(), b.end());
  }

  friend std::ostream& operator<<(std::ostream& os, const Shape& s) {
    os << '[';
    for (int64_t i = 0; i < s.n_; ++i) os << (i ? ", " : "") << s.d_[i];
    return os << ']';
  }

 private:
  [[noreturn]] static void too_many_dims(int64_t n) {
    throw ShapeError(detail::concat("tensor: at most ", kMaxDims, " dimensions are supported, got ", n));
  }

  template <class It>
  void assign(It first, It last) {
    const auto n = static_cast<int64_t>(last - first);
    if (n > kMaxDims) [[unlikely]]
      too_many_dims(n);
    std::copy(first, last, d_);
    n_ = n;
  }

  int64_t d_[kMaxDims] = {};
  int64_t n_ = 0;
};

/// Row-major (C-contiguous) strides for `sizes`, in elements. Size-0/1
/// dimensions get the stride they would have if they were size 1 (PyTorch).
inline Shape contiguous_strides(const Shape& sizes) {
  Shape strides = Shape::filled(sizes.size(), 1);
  int64_t running = 1;
  for (int64_t i = sizes.size() - 1; i >= 0; --i) {
    strides[i] = running;
    // Saturates instead of overflowing: storage_extent then reports the
    // overflow for sizes whose element count does not fit in int64.
    if (__builtin_mul_overflow(running, std::max<int64_t>(sizes[i], 1), &running))
      running = std::numeric_limits<int64_t>::max();
  }
  return strides;
}

/// Wraps a possibly negative dimension index into [0, ndim), PyTorch style.
/// A 0-d tensor accepts dims -1 and 0 (treated as a 1-d tensor of one element).
inline int64_t wrap_dim(int64_t dim, int64_t ndim, const char* op) {
  const int64_t n = std::max<int64_t>(ndim, 1);
  detail::check<IndexError>(dim >= -n && dim < n, op, ": dimension out of range (expected to be in range of [", -n,
                            ", ", n - 1, "], but got ", dim, ")");
  return dim < 0 ? dim + n : dim;
}

/// Checks that every size is non-negative.
inline void check_sizes(const Shape& sizes, const char* op) {
  for (int64_t s : sizes) {
    detail::check<ValueError>(s >= 0, op, ": negative dimension ", s, " in size ", sizes);
  }
}

/// `a * b` for non-negative sizes; a ValueError naming `op` when the product
/// does not fit in int64 (PyTorch: "integer multiplication overflow").
inline int64_t checked_mul(int64_t a, int64_t b, const char* op) {
  int64_t r = 0;
  detail::check<ValueError>(!__builtin_mul_overflow(a, b, &r), op, ": integer multiplication overflow (", a, " * ", b,
                            ")");
  return r;
}

/// The element count of `sizes` (non-negative), a ValueError naming `op`
/// when it does not fit in int64: a shape whose `numel()` would wrap.
inline int64_t checked_numel(const Shape& sizes, const char* op) {
  int64_t n = 1;
  for (int64_t s : sizes)
    detail::check<ValueError>(!__builtin_mul_overflow(n, s, &n), op,
                              ": numel: integer multiplication overflow for sizes ", sizes);
  return n;
}

/// Number of elements a tensor of these sizes and strides spans in its
/// storage (largest element offset + 1; 0 when it has no elements). Negative
/// sizes or strides and 64-bit overflow are `ValueError`s, so no tensor can
/// end up with less memory than its geometry needs.
inline int64_t storage_extent(const Shape& sizes, const Shape& strides, const char* op) {
  detail::check<ShapeError>(sizes.size() == strides.size(), op, ": sizes ", sizes, " and strides ", strides,
                            " differ in length");
  check_sizes(sizes, op);
  for (int64_t s : strides)
    detail::check<ValueError>(s >= 0, op, ": negative strides are not supported, got strides ", strides);
  for (int64_t s : sizes)
    if (s == 0) return 0;
  int64_t extent = 1;
  for (int64_t d = 0; d < sizes.size(); ++d) {
    int64_t span = 0;
    const bool overflow =
        __builtin_mul_overflow(sizes[d] - 1, strides[d], &span) || __builtin_add_overflow(extent, span, &extent);
    detail::check<ValueError>(!overflow, op, ": storage size calculation overflowed with sizes=", sizes,
                              " and strides=", strides);
  }
  return extent;
}

/// Bytes of `elements` elements of `element_size` bytes, checked for overflow.
inline int64_t storage_bytes(int64_t elements, int64_t element_size, const char* op) {
  int64_t bytes = 0;
  detail::check<ValueError>(!__builtin_mul_overflow(elements, element_size, &bytes), op,
                            ": storage size calculation overflowed (", elements, " elements of ", element_size,
                            " bytes)");
  return bytes;
}

}  // namespace tensorlib
