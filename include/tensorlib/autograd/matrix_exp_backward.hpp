#pragma once
/// \file
/// The recording form of linalg.matrix_exp (declared in ops/matrix_exp.hpp).
/// Its backward is PyTorch's: the Frechet derivative of exp at A^T applied
/// to the incoming gradient G, read off the exponential of one block matrix
/// twice A's size (Mathias' identity),
///
///     exp([[A^T, G], [0, A^T]]) = [[exp(A^T), dA], [0, exp(A^T)]],
///
/// computed with the public ops, so a backward with create_graph records it
/// (and differentiates matrix_exp again).

#include <array>
#include <cstdint>
#include <vector>

#include "tensorlib/autograd/op_backward.hpp"
#include "tensorlib/core/tensor.hpp"
#include "tensorlib/ops/factories.hpp"
#include "tensorlib/ops/join.hpp"
#include "tensorlib/ops/matrix_exp.hpp"

namespace tensorlib::autograd {

template <Element T>
Tensor<T> matrix_exp(const Tensor<T>& a) {
  auto formula = [](const std::vector<Tensor<T>>& g, const std::array<Tensor<T>, 1>& s, const std::vector<bool>&) {
    const Tensor<T> at = s[0].transpose(-1, -2);
    const int64_t n = at.size(-1);
    const Tensor<T> block =
        tensorlib::cat({tensorlib::cat({at, g[0]}, -1), tensorlib::cat({tensorlib::zeros_like(at), at}, -1)}, -2);
    return std::vector<Tensor<T>>{linalg::matrix_exp(block).narrow(-2, 0, n).narrow(-1, n, n)};
  };
  return record<T>(
      "LinalgMatrixExpBackward", [&] { return linalg::matrix_exp(a); }, formula, save<T>(a), a);
}

}  // namespace tensorlib::autograd
