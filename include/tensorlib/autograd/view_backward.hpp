#pragma once
/// \file
/// The recording form of views (declared in ops/views.hpp). Each view
/// states its backward next to itself there (a reshape, an inverse
/// permutation, a sum over expanded dimensions, or a zero tensor with the
/// gradient written into the same view); this records it. The view's output
/// shares its input's storage and so its version counter.

#include <array>
#include <vector>

#include "tensorlib/autograd/op_backward.hpp"
#include "tensorlib/core/tensor.hpp"
#include "tensorlib/ops/views.hpp"

namespace tensorlib::autograd {

template <Element T, class ViewFn, class BackwardFn>
Tensor<T> record_view(const Tensor<T>& self, const char* name, ViewFn view, BackwardFn backward) {
  auto formula = [backward](const std::vector<Tensor<T>>& g, const std::array<Tensor<T>, 0>&,
                            const std::vector<bool>&) { return std::vector<Tensor<T>>{backward(g[0])}; };
  return record<T>(
      name, [&] { return view(self); }, formula, std::array<SavedTensor<T>, 0>{}, self);
}

}  // namespace tensorlib::autograd
