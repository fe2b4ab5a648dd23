#pragma once
/// \file
/// Norms and distances: `linalg::vector_norm`, `linalg::matrix_norm`,
/// `linalg::norm` and `cdist`. Floating-point element types only (PyTorch
/// rejects integer inputs at run time; here it is a compile error). Sums
/// accumulate in double.
/// The nuclear and spectral matrix norms ('nuc', 2, -2) take the singular
/// values from `linalg::svdvals` (ops/svd.hpp).

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "tensorlib/backend/cpu/thread_pool.hpp"
#include "tensorlib/core/dim_list.hpp"
#include "tensorlib/core/error.hpp"
#include "tensorlib/core/shape.hpp"
#include "tensorlib/core/tensor.hpp"
#include "tensorlib/expr/broadcast.hpp"
#include "tensorlib/expr/functions.hpp"
#include "tensorlib/ops/copy.hpp"
#include "tensorlib/ops/dispatch.hpp"
#include "tensorlib/ops/evaluate.hpp"
#include "tensorlib/ops/factories.hpp"
#include "tensorlib/ops/linalg.hpp"
#include "tensorlib/ops/reduce.hpp"
#include "tensorlib/ops/svd.hpp"
#include "tensorlib/ops/views.hpp"

namespace tensorlib {

namespace detail {

/// The reduced dimensions as a mask over x's dims (all when none are given),
/// checked for range and repeats.
inline std::vector<bool> reduction_mask(const DimList& dims, int64_t ndim, const char* op) {
  std::vector<bool> mask(static_cast<std::size_t>(ndim), dims.dims().empty());
  for (int64_t d : dims.dims()) {
    const auto w = static_cast<std::size_t>(wrap_dim(d, ndim, op));
    if (ndim == 0) continue;
    check<ValueError>(!mask[w], op, ": dim ", w, " appears multiple times in the list of dims");
    mask[w] = true;
  }
  return mask;
}

/// Reduces x over the masked dims: f(row pointer, row length) gives one
/// output value from a contiguous row of the reduced elements.
template <Element T, class F>
Tensor<T> reduce_rows(const Tensor<T>& x, const std::vector<bool>& mask, bool keepdim, F f) {
  Shape perm, out_shape, kept_shape;
  int64_t inner = 1;
  for (int64_t d = 0; d < x.dim(); ++d) {
    if (mask[static_cast<std::size_t>(d)]) {
      if (keepdim) out_shape.push_back(1);
      continue;
    }
    perm.push_back(d);
    out_shape.push_back(x.size(d));
    kept_shape.push_back(x.size(d));
  }
  for (int64_t d = 0; d < x.dim(); ++d)
    if (mask[static_cast<std::size_t>(d)]) {
      perm.push_back(d);
      inner *= x.size(d);
    }
  const int64_t outer = kept_shape.numel();
  const Tensor<T> rows = x.permute(perm).contiguous();
  auto out = empty<T>(out_shape, {.device = x.device()});
  const T* src = rows.data_ptr();
  T* dst = out.data_ptr();
  cpu::parallel_for(0, outer, std::max<int64_t>(1, 32768 / std::max<int64_t>(inner, 1)), [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) dst[r] = f(src + r * inner, inner);
  });
  return out;
}

// Note [norm NaNs]: a NaN anywhere in a row makes its norm NaN, whatever the
// order (max/min included), as in PyTorch.
template <class T>
T vector_norm_row(const T* p, int64_t n, double ord) {
  if (std::isinf(ord)) {
    double best = ord > 0 ? 0.0 : std::numeric_limits<double>::infinity();
    for (int64_t i = 0; i < n; ++i) {
      const double a = std::fabs(static_cast<double>(p[i]));
      if (std::isnan(a)) return std::numeric_limits<T>::quiet_NaN();
      best = ord > 0 ? std::max(best, a) : std::min(best, a);
    }
    return static_cast<T>(best);
  }
  double acc = 0;
  if (ord == 0) {
    for (int64_t i = 0; i < n; ++i) acc += p[i] != T(0) ? 1.0 : 0.0;
    return static_cast<T>(acc);
  }
  if (ord == 1) {
    for (int64_t i = 0; i < n; ++i) acc += std::fabs(static_cast<double>(p[i]));
    return static_cast<T>(acc);
  }
  if (ord == 2) {
    for (int64_t i = 0; i < n; ++i) acc += static_cast<double>(p[i]) * static_cast<double>(p[i]);
    return static_cast<T>(std::sqrt(acc));
  }
  for (int64_t i = 0; i < n; ++i) acc += std::pow(std::fabs(static_cast<double>(p[i])), ord);
  return static_cast<T>(std::pow(acc, 1.0 / ord));
}

template <Element T>
Tensor<T> vector_norm_impl(const Tensor<T>& x, double ord, const DimList& dim, bool keepdim) {
  const char* op = "linalg.vector_norm";
  const std::vector<bool> mask = reduction_mask(dim, x.dim(), op);
  if (ord < 0 || std::isinf(ord)) {
    // Max, min and negative powers have no identity on empty rows.
    if (dim.dims().empty()) {
      check<ValueError>(x.numel() > 0, op, " cannot compute the ", ord,
                        " norm on an empty tensor because the operation does not have an identity");
    } else {
      for (int64_t d = 0; d < x.dim(); ++d)
        check<ValueError>(!mask[static_cast<std::size_t>(d)] || x.size(d) > 0, op, " cannot compute the ", ord,
                          " norm on the dimension ", d,
                          " because this dimension is empty and the operation does not have an identity");
    }
  }
  // On a GPU: fused reductions (tensorlib::norm). Each term (x^2, |x|^p) is
  // computed in T and summed in double, as in PyTorch's CUDA norms; the
  // CPU's rows compute the terms in double too, so only the GPU overflows
  // for float terms beyond FLT_MAX (|x| > ~1.8e19 at p = 2).
  if (!x.is_cpu()) return tensorlib::norm(x, ord, dim, keepdim);
  return reduce_rows(x, mask, keepdim, [ord](const T* p, int64_t n) { return vector_norm_row(p, n, ord); });
}

// amax / amin over one dimension of a non-negative tensor, kept as size 1.
template <Element T>
Tensor<T> extreme_over(const Tensor<T>& x, int64_t dim, bool max, const char* op) {
  check<IndexError>(x.size(dim) > 0, op, ": Expected reduction dim ", dim, " to have non-zero size.");
  std::vector<bool> mask(static_cast<std::size_t>(x.dim()), false);
  mask[static_cast<std::size_t>(dim)] = true;
  return reduce_rows(x, mask, true, [max](const T* p, int64_t n) {
    return vector_norm_row(p, n,
                           max ? std::numeric_limits<double>::infinity() : -std::numeric_limits<double>::infinity());
  });
}

/// The permutation moving dims d0, d1 last (in that order).
inline Shape matrix_last(int64_t ndim, int64_t d0, int64_t d1) {
  Shape perm;
  for (int64_t d = 0; d < ndim; ++d)
    if (d != d0 && d != d1) perm.push_back(d);
  perm.push_back(d0);
  perm.push_back(d1);
  return perm;
}

/// Whether a matrix_norm order is 'nuc', 2 or -2 (from the singular values).
inline bool spectral_order(std::string_view ord_name, double ord) {
  return ord_name == "nuc" || (ord_name.empty() && (ord == 2 || ord == -2));
}

/// matrix_norm from reductions that record and run on any device (fused
/// sums, amax/amin, and svdvals for the spectral norms, which a CUDA tensor
/// reaches through the host: Note [decompositions of CUDA tensors]):
/// autograd's form, a GPU's, and the CPU's spectral norms.
/// d0 != d1 are wrapped and the order is valid (matrix_norm_impl checks).
template <Element T>
Tensor<T> matrix_norm_by_reductions(const Tensor<T>& a, std::string_view ord_name, double ord, int64_t d0, int64_t d1,
                                    bool keepdim) {
  const char* op = "linalg.matrix_norm";
  if (ord_name == "fro") return tensorlib::norm(a, 2.0, DimList{d0, d1}, keepdim);
  if (spectral_order(ord_name, ord)) {  // sum, largest or smallest singular value
    const Tensor<T> s = linalg::svdvals(a.permute(matrix_last(a.dim(), d0, d1)));
    Tensor<T> r = ord_name == "nuc" ? s.sum(DimList{-1}) : ord > 0 ? amax(s, DimList{-1}) : amin(s, DimList{-1});
    if (keepdim) r = r.unsqueeze(std::min(d0, d1)).unsqueeze(std::max(d0, d1));
    return r;
  }
  const bool columns = std::fabs(ord) == 1;
  const int64_t summed = columns ? d0 : d1, other = columns ? d1 : d0;
  check<IndexError>(a.size(other) > 0, op, ": Expected reduction dim ", other, " to have non-zero size.");
  const Tensor<T> sums = tensorlib::norm(a, 1.0, DimList{summed}, true);
  Tensor<T> r = ord > 0 ? amax(sums, DimList{other}, true) : amin(sums, DimList{other}, true);
  if (!keepdim) r = r.squeeze(std::max(d0, d1)).squeeze(std::min(d0, d1));
  return r;
}

/// cdist as all pairwise differences and one fused norm over the last
/// dimension: autograd's form and a GPU's.
template <Element T>
Tensor<T> cdist_by_reductions(const Tensor<T>& x1, const Tensor<T>& x2, double p) {
  // Rows without coordinates are 0 apart for every p (the inf-norm's amax
  // has no identity, the 1-norm's sum does).
  const double q = x1.size(-1) == 0 ? 1.0 : p;
  return tensorlib::norm(x1.unsqueeze(-2) - x2.unsqueeze(-3), q, {-1});
}

template <Element T>
Tensor<T> matrix_norm_impl(const Tensor<T>& a, std::string_view ord_name, double ord, std::array<int64_t, 2> dim,
                           bool keepdim) {
  const char* op = "linalg.matrix_norm";
  check<ShapeError>(a.dim() >= 2, op, ": The input tensor A must have at least 2 dimensions.");
  const int64_t d0 = wrap_dim(dim[0], a.dim(), op), d1 = wrap_dim(dim[1], a.dim(), op);
  check<ValueError>(d0 != d1, op, ": dims must be different. Got (", dim[0], ", ", dim[1], ")");
  const bool spectral = spectral_order(ord_name, ord);
  check<ValueError>(ord_name == "fro" || spectral || (ord_name.empty() && (std::fabs(ord) == 1 || std::isinf(ord))), op,
                    ": Order ", ord_name.empty() ? concat(ord) : std::string(ord_name), " not supported.");
  // Reductions that record, that run on a GPU, and the singular values' norms.
  if (spectral || records_grad(a) || !a.is_cpu()) return matrix_norm_by_reductions(a, ord_name, ord, d0, d1, keepdim);
  if (ord_name == "fro") return vector_norm_impl(a, 2.0, DimList{dim[0], dim[1]}, keepdim);
  // 1 / -1: max / min over columns of the column sums; inf / -inf: over rows of the row sums.
  const bool columns = std::fabs(ord) == 1;
  const int64_t summed = columns ? d0 : d1, other = columns ? d1 : d0;
  Tensor<T> r = extreme_over(vector_norm_impl(a, 1.0, DimList{summed}, true), other, ord > 0, op);
  if (!keepdim) r = r.squeeze(std::max(d0, d1)).squeeze(std::min(d0, d1));
  return r;
}

}  // namespace detail

namespace linalg {

/// The ord-norm of x over `dim` (all dimensions when none given): ord = 2
/// Euclidean, 1 sum of magnitudes, inf / -inf largest / smallest magnitude,
/// 0 number of non-zeros, other p (sum |x|^p)^(1/p) (`torch.linalg.vector_norm`).
template <Element T>
Tensor<T> vector_norm(const Tensor<T>& x, double ord = 2, DimList dim = {}, bool keepdim = false) {
  static_assert(std::is_floating_point_v<T>,
                "linalg.vector_norm: expected a floating point tensor as input; convert it with .to<float>()");
  if (detail::records_grad(x)) {
    detail::reduction_mask(dim, x.dim(), "linalg.vector_norm");  // validates
    return tensorlib::norm(x, ord, dim, keepdim);                // records
  }
  return detail::vector_norm_impl(x, ord, dim, keepdim);
}

/// Matrix norm over the two dimensions `dim` (`torch.linalg.matrix_norm`):
/// "fro" (Frobenius) or "nuc" (nuclear: the sum of the singular values).
template <Element T>
Tensor<T> matrix_norm(const Tensor<T>& a, std::string_view ord = "fro", std::array<int64_t, 2> dim = {-2, -1},
                      bool keepdim = false) {
  static_assert(std::is_floating_point_v<T>,
                "linalg.matrix_norm: expected a floating point tensor as input; convert it with .to<float>()");
  return detail::matrix_norm_impl(a, ord, 0.0, dim, keepdim);
}

/// Matrix norm with a numeric order: 1 / -1 the largest / smallest column
/// sum of magnitudes, inf / -inf the largest / smallest row sum, 2 / -2 the
/// largest / smallest singular value.
template <Element T>
Tensor<T> matrix_norm(const Tensor<T>& a, double ord, std::array<int64_t, 2> dim = {-2, -1}, bool keepdim = false) {
  static_assert(std::is_floating_point_v<T>,
                "linalg.matrix_norm: expected a floating point tensor as input; convert it with .to<float>()");
  return detail::matrix_norm_impl(a, "", ord, dim, keepdim);
}

/// `torch.linalg.norm` with a numeric or no order: a vector norm over one
/// dimension, a matrix norm over two; without `dim`, x must be 1-D or 2-D when
/// `ord` is given, and without both, the 2-norm of all elements.
template <Element T>
Tensor<T> norm(const Tensor<T>& x, std::optional<double> ord = std::nullopt, DimList dim = {}, bool keepdim = false) {
  static_assert(std::is_floating_point_v<T>,
                "linalg.norm: expected a floating point tensor as input; convert it with .to<float>()");
  const Shape& dims = dim.dims();
  if (!dims.empty()) {
    detail::check<ShapeError>(dims.size() == 1 || dims.size() == 2,
                              "linalg.norm: If dim is specified, it must be of length 1 or 2. Got ", dims);
    if (dims.size() == 1) return vector_norm(x, ord.value_or(2.0), dim, keepdim);
    if (!ord) return matrix_norm(x, "fro", {dims[0], dims[1]}, keepdim);
    return matrix_norm(x, *ord, {dims[0], dims[1]}, keepdim);
  }
  if (!ord) return vector_norm(x, 2.0, {}, keepdim);
  detail::check<ShapeError>(x.dim() == 1 || x.dim() == 2,
                            "linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. Got ",
                            x.dim(), "D.");
  return x.dim() == 1 ? vector_norm(x, *ord, {}, keepdim) : matrix_norm(x, *ord, {-2, -1}, keepdim);
}

/// `torch.linalg.norm` with a string order ("fro", "nuc"): a matrix norm.
template <Element T>
Tensor<T> norm(const Tensor<T>& x, std::string_view ord, DimList dim = {}, bool keepdim = false) {
  static_assert(std::is_floating_point_v<T>,
                "linalg.norm: expected a floating point tensor as input; convert it with .to<float>()");
  const Shape& dims = dim.dims();
  if (dims.empty()) {
    detail::check<ShapeError>(x.dim() == 1 || x.dim() == 2,
                              "linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. Got ",
                              x.dim(), "D.");
    return matrix_norm(x, ord, {-2, -1}, keepdim);
  }
  detail::check<ShapeError>(x.dim() >= 2, "linalg.matrix_norm: The input tensor A must have at least 2 dimensions.");
  detail::check<ShapeError>(dims.size() == 2, "linalg.matrix_norm: dim must be a 2-tuple. Got ", dims);
  return matrix_norm(x, ord, {dims[0], dims[1]}, keepdim);
}

}  // namespace linalg

/// p-norm distances between the rows of x1 (..., P, M) and of x2 (..., R, M),
/// batch dimensions broadcast: a (..., P, R) tensor (`torch.cdist`). p = 0
/// counts differing coordinates, p = inf takes the largest difference. The
/// distances are computed directly (PyTorch's p = 2 may use a matrix-product
/// formula for large inputs, which rounds differently).
template <Element T>
Tensor<T> cdist(const Tensor<T>& x1, const Tensor<T>& x2, double p = 2.0) {
  static_assert(std::is_floating_point_v<T>,
                "cdist: cdist only supports floating-point dtypes; convert the inputs with .to<float>()");
  const char* op = "cdist";
  detail::check<ShapeError>(x1.dim() >= 2, op, ": cdist only supports at least 2D tensors, X1 got: ", x1.dim(), "D");
  detail::check<ShapeError>(x2.dim() >= 2, op, ": cdist only supports at least 2D tensors, X2 got: ", x2.dim(), "D");
  detail::check<ShapeError>(x1.size(-1) == x2.size(-1), op,
                            ": X1 and X2 must have the same number of columns. X1: ", x1.size(-1),
                            " X2: ", x2.size(-1));
  detail::check<ValueError>(p >= 0, op, ": cdist only supports non-negative p values, got ", p);
  detail::check_same_device(op, x1, x2);
  Shape b1 = x1.sizes(), b2 = x2.sizes();
  b1.resize(x1.dim() - 2);
  b2.resize(x2.dim() - 2);
  const Shape batch = broadcast_shapes(b1, b2, op);
  if (detail::records_grad(x1, x2) || !x1.is_cpu()) return detail::cdist_by_reductions(x1, x2, p);
  const int64_t nb = batch.numel(), P = x1.size(-2), R = x2.size(-2), M = x1.size(-1);
  Shape s1 = batch, s2 = batch, out_shape = batch;
  s1.push_back(P);
  s1.push_back(M);
  s2.push_back(R);
  s2.push_back(M);
  out_shape.push_back(P);
  out_shape.push_back(R);
  const Tensor<T> a = x1.expand(s1).reshape({nb, P, M}).contiguous();
  const Tensor<T> b = x2.expand(s2).reshape({nb, R, M}).contiguous();
  auto out = empty<T>(out_shape, {.device = x1.device()});
  const T *pa = a.data_ptr(), *pb = b.data_ptr();
  T* po = out.data_ptr();
  cpu::parallel_for(0, nb * P, std::max<int64_t>(1, 32768 / std::max<int64_t>(1, R * M)), [&](int64_t r0, int64_t r1) {
    std::vector<T> diff(static_cast<std::size_t>(M));
    for (int64_t r = r0; r < r1; ++r) {
      const T* u = pa + r * M;
      const T* vb = pb + (r / std::max<int64_t>(P, 1)) * R * M;
      for (int64_t j = 0; j < R; ++j) {
        const T* v = vb + j * M;
        for (int64_t c = 0; c < M; ++c) diff[static_cast<std::size_t>(c)] = u[c] - v[c];
        po[r * R + j] = detail::vector_norm_row(diff.data(), M, p);
      }
    }
  });
  return out;
}

/// `torch.dist`: the p-norm of a - b over all elements (broadcast), a 0-d tensor.
template <Expression A, Expression B>
auto dist(const A& a, const B& b, double p = 2) {
  return tensorlib::norm(sub(a, b), p);
}

template <class Derived>
template <Expression O>
auto PointwiseMethods<Derived>::dist(const O& other, double p) const {
  return tensorlib::dist(self(), other, p);
}

}  // namespace tensorlib
