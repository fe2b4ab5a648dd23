#pragma once
/// \file
/// Dense factorizations of one matrix on the CPU: LU with partial pivoting
/// (and the solve with it), Cholesky and Householder QR.
/// They work in place on a row-major `double` working copy (Note [linalg
/// working precision], ops/decompositions.hpp), one matrix per call; the
/// ops/ layer loops over batches. Unblocked algorithms: tensorlib's linear
/// algebra targets small and medium matrices.
///
/// Shapes: (n, n) square matrices, (m, n) rectangular ones, (n, k) right-hand
/// sides, k = min(m, n) Householder reflectors.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <utility>

namespace tensorlib::cpu {

/// LU factorization P A = L U of the row-major (m, n) matrix `a` in place, in
/// k = min(m, n) steps: U on and above the diagonal, L's multipliers below
/// (unit diagonal implied). piv[j] is the row swapped with row j at step j
/// (j < k). Returns 0, or the 1-based index of the first exactly zero pivot
/// (LAPACK's `info`); the factorization still completes, as getrf does, and
/// leaves a column whose pivot is zero as it is (with pivoting every element
/// below such a pivot is zero too). Without `pivot` no rows are swapped
/// (piv[j] = j) and a zero pivot divides: inf or NaN multipliers, as
/// cuSOLVER's unpivoted getrf gives. Whether a numerically singular matrix
/// gives an exactly zero pivot depends on rounding (and on whether the
/// compiler fuses the update into FMAs): it is certain when the elimination
/// is exact, e.g. small integers with power-of-two multipliers.
inline int64_t lu_factor(double* a, int64_t m, int64_t n, int64_t* piv, bool pivot = true) {
  int64_t info = 0;
  const int64_t k = std::min(m, n);
  for (int64_t j = 0; j < k; ++j) {
    int64_t p = j;
    if (pivot) {
      double best = std::fabs(a[j * n + j]);
      for (int64_t i = j + 1; i < m; ++i) {
        const double v = std::fabs(a[i * n + j]);
        if (v > best || std::isnan(v)) {
          best = v;
          p = i;
          if (std::isnan(v)) break;
        }
      }
    }
    piv[j] = p;
    if (p != j) std::swap_ranges(a + j * n, a + j * n + n, a + p * n);
    const double pivot_value = a[j * n + j];
    if (pivot_value == 0.0) {
      if (info == 0) info = j + 1;
      if (pivot) continue;
    }
    const double* row_j = a + j * n;
    for (int64_t i = j + 1; i < m; ++i) {
      double* row_i = a + i * n;
      const double l = row_i[j] / pivot_value;
      row_i[j] = l;
      if (l == 0.0) continue;
      for (int64_t c = j + 1; c < n; ++c) row_i[c] -= l * row_j[c];
    }
  }
  return info;
}

/// The square case with pivoting: P A = L U of the row-major (n, n) `a`.
inline int64_t lu_factor(double* a, int64_t n, int64_t* piv) { return lu_factor(a, n, n, piv); }

/// Solves A X = B in place in the row-major (n, k) `b`, given lu_factor's
/// output for A (P A = L U): P B (the swaps in order), then L Z = P B
/// forward, then U X = Z backward.
inline void lu_solve(const double* lu, const int64_t* piv, int64_t n, double* b, int64_t k) {
  for (int64_t j = 0; j < n; ++j)
    if (piv[j] != j) std::swap_ranges(b + j * k, b + j * k + k, b + piv[j] * k);
  for (int64_t i = 1; i < n; ++i) {
    double* row_i = b + i * k;
    for (int64_t j = 0; j < i; ++j) {
      const double l = lu[i * n + j];
      if (l == 0.0) continue;
      const double* row_j = b + j * k;
      for (int64_t c = 0; c < k; ++c) row_i[c] -= l * row_j[c];
    }
  }
  for (int64_t i = n - 1; i >= 0; --i) {
    double* row_i = b + i * k;
    for (int64_t j = i + 1; j < n; ++j) {
      const double u = lu[i * n + j];
      if (u == 0.0) continue;
      const double* row_j = b + j * k;
      for (int64_t c = 0; c < k; ++c) row_i[c] -= u * row_j[c];
    }
    const double d = lu[i * n + i];
    for (int64_t c = 0; c < k; ++c) row_i[c] /= d;
  }
}

/// Solves A X = B in place in the row-major (n, k) `b`, given lu_factor's
/// output for A^T (P A^T = L U, so A = U^T L^T P): U^T Y = B forward, then
/// L^T Z = Y backward, then X = P^T Z (the swaps in reverse order).
inline void lu_solve_transposed(const double* lu, const int64_t* piv, int64_t n, double* b, int64_t k) {
  for (int64_t i = 0; i < n; ++i) {
    double* row_i = b + i * k;
    for (int64_t j = 0; j < i; ++j) {
      const double u = lu[j * n + i];  // (U^T)[i, j]
      if (u == 0.0) continue;
      const double* row_j = b + j * k;
      for (int64_t c = 0; c < k; ++c) row_i[c] -= u * row_j[c];
    }
    const double d = lu[i * n + i];
    for (int64_t c = 0; c < k; ++c) row_i[c] /= d;
  }
  for (int64_t i = n - 2; i >= 0; --i) {
    double* row_i = b + i * k;
    for (int64_t j = i + 1; j < n; ++j) {
      const double l = lu[j * n + i];  // (L^T)[i, j]
      if (l == 0.0) continue;
      const double* row_j = b + j * k;
      for (int64_t c = 0; c < k; ++c) row_i[c] -= l * row_j[c];
    }
  }
  for (int64_t j = n - 1; j >= 0; --j)
    if (piv[j] != j) std::swap_ranges(b + j * k, b + j * k + k, b + piv[j] * k);
}

/// Cholesky factor A = L L^T of the row-major (n, n) `a` in place, reading
/// only the lower triangle; the strict upper triangle is zeroed. Returns 0,
/// or the order of the first leading minor that is not positive-definite
/// (its pivot is <= 0 or NaN), as potrf's `info`.
inline int64_t cholesky_lower(double* a, int64_t n) {
  for (int64_t j = 0; j < n; ++j) {
    double* row_j = a + j * n;
    double d = row_j[j];
    for (int64_t c = 0; c < j; ++c) d -= row_j[c] * row_j[c];
    if (!(d > 0.0)) return j + 1;
    const double ljj = std::sqrt(d);
    row_j[j] = ljj;
    for (int64_t i = j + 1; i < n; ++i) {
      double* row_i = a + i * n;
      double s = row_i[j];
      for (int64_t c = 0; c < j; ++c) s -= row_i[c] * row_j[c];
      row_i[j] = s / ljj;
    }
    for (int64_t c = j + 1; c < n; ++c) row_j[c] = 0.0;
  }
  return 0;
}

// Note [householder convention]
// Step j maps x = A[j:, j] to (beta, 0, ..., 0) with H = I - tau v v^T,
// v[0] = 1, beta = -sign(x[0]) ||x|| (no cancellation in x[0] - beta). When
// x[1:] is already zero, H = I (tau = 0) and R's diagonal keeps x[0]'s sign.
// This is the usual (LAPACK's) convention, so R's signs are those PyTorch
// gives in all but ties.

/// Householder QR of the row-major (m, n) `a` in place: R on and above the
/// diagonal, the reflectors' v[1:] below it, tau[j] for j < min(m, n).
inline void householder_qr(double* a, int64_t m, int64_t n, double* tau) {
  const int64_t k = std::min(m, n);
  for (int64_t j = 0; j < k; ++j) {
    double tail = 0;  // ||x[1:]||, scaled to avoid overflow
    double scale = 0;
    for (int64_t r = j + 1; r < m; ++r) scale = std::max(scale, std::fabs(a[r * n + j]));
    if (scale > 0)
      for (int64_t r = j + 1; r < m; ++r) {
        const double v = a[r * n + j] / scale;
        tail += v * v;
      }
    tail = scale * std::sqrt(tail);
    const double alpha = a[j * n + j];
    if (tail == 0.0 || std::isnan(tail)) {
      tau[j] = std::isnan(tail) ? std::nan("") : 0.0;
      continue;
    }
    const double beta = -std::copysign(std::hypot(alpha, tail), alpha);
    tau[j] = (beta - alpha) / beta;
    const double inv = 1.0 / (alpha - beta);
    for (int64_t r = j + 1; r < m; ++r) a[r * n + j] *= inv;
    a[j * n + j] = beta;
    // Apply H to the trailing columns: A[j:, c] -= tau v (v^T A[j:, c]).
    for (int64_t c = j + 1; c < n; ++c) {
      double w = a[j * n + c];
      for (int64_t r = j + 1; r < m; ++r) w += a[r * n + j] * a[r * n + c];
      w *= tau[j];
      a[j * n + c] -= w;
      for (int64_t r = j + 1; r < m; ++r) a[r * n + c] -= w * a[r * n + j];
    }
  }
}

/// The first `qcols` columns of Q = H_0 ... H_{k-1} (k = min(m, n)) from
/// householder_qr's output, into the row-major (m, qcols) `q`.
inline void householder_q(const double* a, int64_t m, int64_t n, const double* tau, double* q, int64_t qcols) {
  const int64_t k = std::min(m, n);
  for (int64_t r = 0; r < m; ++r)
    for (int64_t c = 0; c < qcols; ++c) q[r * qcols + c] = r == c ? 1.0 : 0.0;
  for (int64_t j = k - 1; j >= 0; --j) {
    if (tau[j] == 0.0) continue;
    for (int64_t c = j; c < qcols; ++c) {  // columns < j of H_j ... H_{k-1} I are still e_c
      double w = q[j * qcols + c];
      for (int64_t r = j + 1; r < m; ++r) w += a[r * n + j] * q[r * qcols + c];
      w *= tau[j];
      q[j * qcols + c] -= w;
      for (int64_t r = j + 1; r < m; ++r) q[r * qcols + c] -= w * a[r * n + j];
    }
  }
}

}  // namespace tensorlib::cpu
