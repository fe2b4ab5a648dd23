#pragma once
/// \file
/// `linalg::eigh` and `linalg::eigvalsh`: eigenvalues (ascending) and
/// eigenvectors of symmetric matrices by the cyclic Jacobi method
/// (backend/cpu/jacobi.hpp, Note [jacobi accuracy]). Only the triangle named
/// by UPLO is read. Float and double only (static_assert). Eigenvectors are
/// unique up to sign (and to rotations within repeated eigenvalues), so they
/// may differ from PyTorch's by those; A V = V diag(w) holds either way.
///
/// Shapes: (*) batch dimensions, (n, n) A.

#include <cstdint>
#include <string_view>
#include <type_traits>
#include <vector>

#include "tensorlib/backend/cpu/jacobi.hpp"
#include "tensorlib/core/error.hpp"
#include "tensorlib/core/expression.hpp"
#include "tensorlib/core/tensor.hpp"
#include "tensorlib/ops/factories.hpp"
#include "tensorlib/ops/linalg.hpp"
#include "tensorlib/ops/linalg_batch.hpp"

namespace tensorlib {
namespace linalg {

/// `torch.linalg.eigh`'s result. An aggregate:
/// `auto [eigenvalues, eigenvectors] = tl::linalg::eigh(A);`.
template <Element T>
struct Eigh {
  Tensor<T> eigenvalues;   // (*, n), ascending
  Tensor<T> eigenvectors;  // (*, n, n), column i belongs to eigenvalue i
};

}  // namespace linalg
namespace autograd {

// The recording form (autograd/decomposition_backward.hpp).
template <Element T>
linalg::Eigh<T> eigh(const Tensor<T>& a, std::string_view uplo);

}  // namespace autograd
namespace detail {

inline void check_uplo(std::string_view uplo) {
  check<ValueError>(uplo == "L" || uplo == "U", "Expected UPLO argument to be 'L' or 'U', but got ", uplo);
}

/// The symmetric (n, n) working matrix from the `lower` or upper triangle of
/// the row-major `src`.
template <class T>
void load_symmetric(const T* src, int64_t n, bool lower, double* dst) {
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j <= i; ++j) {
      const double v = static_cast<double>(lower ? src[i * n + j] : src[j * n + i]);
      dst[i * n + j] = dst[j * n + i] = v;
    }
}

template <Element T>
linalg::Eigh<T> eigh_impl(const Tensor<T>& A, std::string_view uplo, bool vectors, const char* op) {
  check_uplo(uplo);
  check_square(A, op);
  const int64_t n = A.size(-1);
  const Shape batch = batch_of(A.sizes());
  const Tensor<T> As = as_matrix_batch(A);
  auto w = empty<T>(batch_with(batch, {n}), {.device = A.device()});
  auto v = vectors ? empty<T>(A.sizes(), {.device = A.device()}) : Tensor<T>();
  const T* pa = As.data_ptr();
  T* pw = w.data_ptr();
  T* pv = vectors ? v.data_ptr() : nullptr;
  for_each_matrix(A.device(), op, As.size(0), 10 * n * n * n + 1, [&](int64_t b) {
    std::vector<double> a(static_cast<std::size_t>(n * n)), vals(static_cast<std::size_t>(n));
    std::vector<double> vecs(static_cast<std::size_t>(vectors ? n * n : 0));
    load_symmetric(pa + b * n * n, n, uplo == "L", a.data());
    cpu::jacobi_eigh(a.data(), n, vals.data(), vecs.data(), vectors);
    for (int64_t i = 0; i < n; ++i) pw[b * n + i] = static_cast<T>(vals[static_cast<std::size_t>(i)]);
    if (vectors) store_matrix(vecs.data(), n, n, pv + b * n * n);
    return int64_t{0};
  });
  return {w, v};
}

}  // namespace detail

namespace linalg {

/// Eigenvalues in ascending order and orthonormal eigenvectors (columns) of
/// each symmetric matrix, from its lower ("L") or upper ("U") triangle
/// (`torch.linalg.eigh`).
template <Expression E, class T = value_type_t<E>>
Eigh<T> eigh(const E& A_expr, std::string_view UPLO = "L") {
  static_assert(detail::linalg_float<T>,
                "linalg.eigh: expected a float or double tensor; convert it with .to<float>()");
  const Tensor<T> A = detail::materialize(A_expr);
  if (!A.is_cpu()) {  // Note [decompositions of CUDA tensors]
    const auto [w, V] = linalg::eigh(A.cpu(), UPLO);
    return {w.to(A.device()), V.to(A.device())};
  }
  if (detail::records_grad(A)) return autograd::eigh(A, UPLO);
  return detail::eigh_impl(A, UPLO, true, "linalg.eigh");
}

/// The eigenvalues of each symmetric matrix in ascending order, (*, n)
/// (`torch.linalg.eigvalsh`).
template <Expression E, class T = value_type_t<E>>
Tensor<T> eigvalsh(const E& A_expr, std::string_view UPLO = "L") {
  static_assert(detail::linalg_float<T>,
                "linalg.eigvalsh: expected a float or double tensor; convert it with .to<float>()");
  const Tensor<T> A = detail::materialize(A_expr);
  if (!A.is_cpu()) return linalg::eigvalsh(A.cpu(), UPLO).to(A.device());  // Note [decompositions of CUDA tensors]
  if (detail::records_grad(A)) return autograd::eigh(A, UPLO).eigenvalues;
  return detail::eigh_impl(A, UPLO, false, "linalg.eigh").eigenvalues;  // PyTorch names eigh in its errors
}

}  // namespace linalg
}  // namespace tensorlib
