#pragma once
/// \file
/// `DimList`: the `dim` argument of reductions, which PyTorch accepts as one
/// dimension or a list of them: `x.sum(1)`, `x.sum({0, 2})`, `tl::mean(x, dims)`.

#include <cstdint>
#include <initializer_list>
#include <vector>

#include "tensorlib/core/shape.hpp"

namespace tensorlib {

/// One dimension or a list of dimensions (negative ones count from the end).
/// An empty list (the default) means every dimension, as in PyTorch's
/// `sum(dim=None)` and `sum(dim=[])`.
class DimList {
 public:
  DimList() = default;
  DimList(int64_t dim) { dims_.push_back(dim); }  // NOLINT: implicit, like PyTorch's int-or-list
  DimList(std::initializer_list<int64_t> dims) : dims_(dims) {}
  DimList(const Shape& dims) : dims_(dims) {}                        // NOLINT
  DimList(const std::vector<int64_t>& dims) : dims_(Shape(dims)) {}  // NOLINT

  const Shape& dims() const { return dims_; }

 private:
  Shape dims_;
};

}  // namespace tensorlib
