#pragma once
/// \file
/// What every decomposition in `tl::linalg` shares: the argument checks with
/// PyTorch's wording, batch shapes, the double working copy of one matrix
/// and the parallel loop over a batch that reports the first failing matrix.
///
/// Note [linalg working precision]
/// Every factorization runs on a row-major `double` copy of one matrix
/// (backend/cpu/factorizations.hpp, jacobi.hpp), for float inputs too;
/// results are rounded to the input's type once, at the end. PyTorch runs
/// float inputs through LAPACK in float, so our float results are at least
/// as accurate as its, and differ from them by float rounding (more on
/// ill-conditioned inputs, where PyTorch's own float error is larger).
///
/// Note [decompositions of CUDA tensors]
/// The factorizations have no CUDA kernels (cuSOLVER is not used yet). A
/// CUDA tensor given to one of them (cholesky, qr, eigh, eigvalsh, svd,
/// svdvals, matrix_rank, pinv, lstsq, solve, solve_triangular (so
/// cholesky_solve), inv, det, slogdet, lu_factor(_ex), lu, lu_solve, and so
/// matrix_power with a negative power) is copied to the host, decomposed
/// there by the code that decomposes CPU tensors, and
/// the results are copied back to its device: the op synchronizes with the
/// device, as PyTorch's linalg.eig does on a GPU, and gives the CPU's values
/// and errors exactly. The copies are `to`, which records: with autograd the
/// op's node and its backward run on the host between two copy nodes, and
/// the gradients arrive on the input's device. Each public op stages its
/// inputs before anything else (after the device check of two-input ops),
/// so nothing below it ever sees a CUDA tensor. Two differences from
/// PyTorch's CUDA ops follow: lstsq fills `rank` (PyTorch's only CUDA driver,
/// gels, leaves it empty), and writing into the CUDA input in place after
/// the op is not an error at backward (the op saved the host copy, so the
/// gradient uses the values it saw).
///
/// Shapes: (*) batch dimensions, (m, n) a matrix.

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "tensorlib/backend/cpu/thread_pool.hpp"
#include "tensorlib/core/error.hpp"
#include "tensorlib/core/shape.hpp"
#include "tensorlib/core/tensor.hpp"
#include "tensorlib/ops/copy.hpp"
#include "tensorlib/ops/dispatch.hpp"
#include "tensorlib/ops/factories.hpp"
#include "tensorlib/ops/views.hpp"

namespace tensorlib::detail {

/// The static check every decomposition makes on its element type.
template <class T>
inline constexpr bool linalg_float = std::is_same_v<T, float> || std::is_same_v<T, double>;

template <Element T>
void check_at_least_matrix(const Tensor<T>& a, const char* op) {
  check<ShapeError>(a.dim() >= 2, op, ": The input tensor A must have at least 2 dimensions.");
}

template <Element T>
void check_square(const Tensor<T>& a, const char* op) {
  check_at_least_matrix(a, op);
  check<ShapeError>(a.size(-1) == a.size(-2), op, ": A must be batches of square matrices, but they are ", a.size(-2),
                    " by ", a.size(-1), " matrices");
}

/// The equation's right-hand side `b` (a batch of matrices) fits an n x n
/// coefficient matrix: AX = B reads its rows, XA = B its columns.
template <Element T>
void check_equation_shapes(const Tensor<T>& b, int64_t n, bool left, const char* op) {
  check<ShapeError>(b.size(left ? -2 : -1) == n, op, ": Incompatible shapes of A and B for the equation ",
                    left ? "AX = B" : "XA = B", " (", n, "x", n, " and ", b.size(-2), "x", b.size(-1), ")");
}

/// The batch dimensions of a (*, m, n) shape.
inline Shape batch_of(const Shape& s) {
  Shape b = s;
  b.resize(s.size() - 2);
  return b;
}

/// `batch` with (rows, cols) appended.
inline Shape batch_with(Shape batch, std::initializer_list<int64_t> tail) {
  for (int64_t t : tail) batch.push_back(t);
  return batch;
}

/// A (*, m, n) tensor as the contiguous (B, m, n) block the kernels read.
template <Element T>
Tensor<T> as_matrix_batch(const Tensor<T>& a) {
  return a.contiguous().reshape({batch_of(a.sizes()).numel(), a.size(-2), a.size(-1)});
}

/// Copies the row-major (rows, cols) `src` into the working buffer `dst`,
/// transposed when asked (then dst is (cols, rows)).
template <class T>
void load_matrix(const T* src, int64_t rows, int64_t cols, double* dst, bool transpose = false) {
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c)
      dst[transpose ? c * rows + r : r * cols + c] = static_cast<double>(src[r * cols + c]);
}

/// Rounds the row-major (rows, cols) working buffer `src` into `dst`,
/// transposed when asked (then dst is (cols, rows)).
template <class T>
void store_matrix(const double* src, int64_t rows, int64_t cols, T* dst, bool transpose = false) {
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) dst[transpose ? c * rows + r : r * cols + c] = static_cast<T>(src[r * cols + c]);
}

/// Runs f(b) -> info for every matrix b < count on the CPU, in parallel;
/// returns the first matrix whose info is non-zero and that info, or
/// {-1, 0}. `flops` is a rough cost of one matrix, for the task split.
template <class F>
std::pair<int64_t, int64_t> for_each_matrix(Device device, const char* op, int64_t count, int64_t flops, const F& f) {
  std::vector<int64_t> info(static_cast<std::size_t>(count), 0);
  dispatch_cpu_only(device, op, [&] {
    cpu::parallel_for(0, count, std::max<int64_t>(1, 65536 / std::max<int64_t>(flops, 1)), [&](int64_t b0, int64_t b1) {
      for (int64_t b = b0; b < b1; ++b) info[static_cast<std::size_t>(b)] = f(b);
    });
  });
  for (int64_t b = 0; b < count; ++b)
    if (info[static_cast<std::size_t>(b)] != 0) return {b, info[static_cast<std::size_t>(b)]};
  return {-1, 0};
}

/// The loop of the ops that map each square matrix of `A` (a CPU tensor,
/// checked square) to a matrix of its size: loads the matrix into a double
/// buffer (transposed when `load_transposed`), runs `kernel(m, n) -> info`
/// on it, and where info is 0 stores the buffer (transposed when
/// `store_transposed`) at the same place of a new tensor shaped like A.
/// Returns that tensor and for_each_matrix's {first failing matrix, info}.
template <Element T, class Kernel>
std::tuple<Tensor<T>, int64_t, int64_t> map_square_matrices(const Tensor<T>& A, const char* op, int64_t flops,
                                                            bool load_transposed, bool store_transposed,
                                                            const Kernel& kernel) {
  const int64_t n = A.size(-1);
  const Tensor<T> As = as_matrix_batch(A);
  auto out = empty<T>(A.sizes(), {.device = A.device()});
  const T* pa = As.data_ptr();
  T* po = out.data_ptr();
  const auto result = for_each_matrix(A.device(), op, As.size(0), flops, [&](int64_t b) {
    std::vector<double> m(static_cast<std::size_t>(n * n));
    load_matrix(pa + b * n * n, n, n, m.data(), load_transposed);
    const int64_t info = kernel(m.data(), n);
    if (info == 0) store_matrix(m.data(), n, n, po + b * n * n, store_transposed);
    return info;
  });
  return {out, result.first, result.second};
}

/// Throws PyTorch's LinAlgError text for matrix `index` of a batch:
/// "op: (Batch element 3): message" when the input had batch dimensions.
[[noreturn]] inline void throw_linalg_error(const char* op, bool batched, int64_t index, const std::string& message) {
  if (batched) throw LinAlgError(concat(op, ": (Batch element ", index, "): ", message));
  throw LinAlgError(concat(op, ": ", message));
}

}  // namespace tensorlib::detail
