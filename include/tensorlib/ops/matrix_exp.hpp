#pragma once
/// \file
/// `linalg::matrix_exp` (and `tl::matrix_exp`, torch.matrix_exp): the
/// exponential of each square matrix of a (*, n, n) tensor, by scaling and
/// squaring (Note [matrix exponential] in backend/cpu/matrix_exp.hpp), in
/// double for float inputs too (Note [linalg working precision]).

#include <cstdint>
#include <tuple>

#include "tensorlib/backend/cpu/matrix_exp.hpp"
#include "tensorlib/core/pointwise_methods.hpp"
#include "tensorlib/core/tensor.hpp"
#include "tensorlib/ops/evaluate.hpp"
#include "tensorlib/ops/factories.hpp"
#include "tensorlib/ops/linalg_batch.hpp"

namespace tensorlib {
namespace autograd {

// The recording form (autograd/matrix_exp_backward.hpp).
template <Element T>
Tensor<T> matrix_exp(const Tensor<T>& a);

}  // namespace autograd
namespace linalg {

/// exp(A) = sum_k A^k / k! for each square matrix (`torch.linalg.matrix_exp`);
/// a matrix with a NaN or infinite element gives NaN.
template <Expression E, class T = value_type_t<E>>
Tensor<T> matrix_exp(const E& A_expr) {
  static_assert(detail::linalg_float<T>,
                "linalg.matrix_exp: expected a float or double tensor; convert it with .to<float>()");
  const char* op = "linalg.matrix_exp";
  const Tensor<T> A = detail::materialize(A_expr);
  if (!A.is_cpu()) return linalg::matrix_exp(A.cpu()).to(A.device());  // Note [decompositions of CUDA tensors]
  if (detail::records_grad(A)) return autograd::matrix_exp(A);
  detail::check_square(A, op);
  const int64_t n = A.size(-1);
  return std::get<0>(detail::map_square_matrices(A, op, 20 * n * n * n, false, false, [](double* x, int64_t size) {
    cpu::matrix_exp(x, size);
    return int64_t{0};
  }));
}

}  // namespace linalg

/// `torch.matrix_exp`: `linalg::matrix_exp`.
using linalg::matrix_exp;

template <class Derived>
auto PointwiseMethods<Derived>::matrix_exp() const {
  return linalg::matrix_exp(self());
}

}  // namespace tensorlib
