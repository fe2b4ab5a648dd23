#pragma once
/// \file
/// Tensor products built on the matrix products and views: `tensordot`,
/// `kron`, `cross`, `linalg::cross` and `linalg::matrix_power`.

#include <cstdint>
#include <limits>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

#include "tensorlib/core/error.hpp"
#include "tensorlib/core/shape.hpp"
#include "tensorlib/core/tensor.hpp"
#include "tensorlib/expr/broadcast.hpp"
#include "tensorlib/expr/operators.hpp"
#include "tensorlib/ops/evaluate.hpp"
#include "tensorlib/ops/factories.hpp"
#include "tensorlib/ops/join.hpp"
#include "tensorlib/ops/linalg.hpp"
#include "tensorlib/ops/linalg_batch.hpp"
#include "tensorlib/ops/solve.hpp"
#include "tensorlib/ops/views.hpp"

namespace tensorlib {
namespace detail {

template <Element T>
Tensor<T> tensordot_impl(const Tensor<T>& a, const Tensor<T>& b, const std::vector<int64_t>& dims_a,
                         const std::vector<int64_t>& dims_b) {
  const char* op = "tensordot";
  check<ShapeError>(dims_a.size() == dims_b.size(), op, ": both dimension lists should have same length, got ",
                    dims_a.size(), " and ", dims_b.size());
  check_same_device(op, a, b);
  std::vector<bool> contracted_a(static_cast<std::size_t>(a.dim()), false),
      contracted_b(static_cast<std::size_t>(b.dim()), false);
  Shape perm_a, perm_b;
  Tensor<T> ea = a, eb = b;  // size-1 contracted dims broadcast against the other side
  int64_t k = 1;
  for (std::size_t i = 0; i < dims_a.size(); ++i) {
    const int64_t da = wrap_dim(dims_a[i], a.dim(), op), db = wrap_dim(dims_b[i], b.dim(), op);
    check<ValueError>(!contracted_a[static_cast<std::size_t>(da)], op, ": dim ", da,
                      " appears multiple times in the list of dims");
    check<ValueError>(!contracted_b[static_cast<std::size_t>(db)], op, ": dim ", db,
                      " appears multiple times in the list of dims");
    contracted_a[static_cast<std::size_t>(da)] = contracted_b[static_cast<std::size_t>(db)] = true;
    const int64_t sa = a.size(da), sb = b.size(db);
    check<ShapeError>(sa == sb || sa == 1 || sb == 1, op, ": contracted dimensions need to match, but first has size ",
                      sa, " in dim ", dims_a[i], " and second has size ", sb, " in dim ", dims_b[i]);
    if (sa != sb) {
      Shape ta = ea.sizes(), tb = eb.sizes();
      ta[da] = tb[db] = std::max(sa, sb);
      ea = ea.expand(ta);
      eb = eb.expand(tb);
    }
    k *= std::max(sa, sb);
    perm_a.push_back(da);
    perm_b.push_back(db);
  }
  Shape out_shape, ordered_a;
  int64_t n = 1, p = 1;
  for (int64_t d = 0; d < a.dim(); ++d) {
    if (contracted_a[static_cast<std::size_t>(d)]) continue;
    ordered_a.push_back(d);
    out_shape.push_back(a.size(d));
    n *= a.size(d);
  }
  for (int64_t d = 0; d < b.dim(); ++d) {
    if (contracted_b[static_cast<std::size_t>(d)]) continue;
    perm_b.push_back(d);
    out_shape.push_back(b.size(d));
    p *= b.size(d);
  }
  for (int64_t d : perm_a) ordered_a.push_back(d);
  const Tensor<T> ma = ea.permute(ordered_a).reshape({n, k});
  const Tensor<T> mb = eb.permute(perm_b).reshape({k, p});
  return tensorlib::mm(ma, mb).view(out_shape);  // records when an input requires grad
}

}  // namespace detail

/// Contracts the last `dims` dimensions of `a` with the first `dims` of `b`
/// (`torch.tensordot(a, b, dims=int)`).
template <Element T>
Tensor<T> tensordot(const Tensor<T>& a, const Tensor<T>& b, int64_t dims = 2) {
  static_assert(!std::is_same_v<T, bool>, "tensordot: bool tensors are not supported (as in PyTorch)");
  detail::check<ValueError>(dims >= 0, "tensordot: tensordot expects dims >= 0, but got dims=", dims);
  std::vector<int64_t> da, db;
  for (int64_t i = 0; i < dims; ++i) {
    da.push_back(i - dims);
    db.push_back(i);
  }
  return detail::tensordot_impl(a, b, da, db);
}

/// Contracts dimension dims_a[i] of `a` with dims_b[i] of `b`; the result has
/// a's free dimensions, then b's (`torch.tensordot(a, b, dims=(dims_a, dims_b))`).
template <Element T>
Tensor<T> tensordot(const Tensor<T>& a, const Tensor<T>& b, const std::vector<int64_t>& dims_a,
                    const std::vector<int64_t>& dims_b) {
  static_assert(!std::is_same_v<T, bool>, "tensordot: bool tensors are not supported (as in PyTorch)");
  return detail::tensordot_impl(a, b, dims_a, dims_b);
}

/// Kronecker product: result[i * b.size + j] = a[i] * b[j] in every
/// dimension; the operand with fewer dimensions gets leading 1s (`torch.kron`).
template <Element T>
Tensor<T> kron(const Tensor<T>& a, const Tensor<T>& b) {
  detail::check_same_device("kron", a, b);
  const int64_t nd = std::max(a.dim(), b.dim());
  Shape pa = Shape::filled(nd - a.dim(), 1), pb = Shape::filled(nd - b.dim(), 1);
  for (int64_t s : a.sizes()) pa.push_back(s);
  for (int64_t s : b.sizes()) pb.push_back(s);
  Shape ia, ib, out_shape;  // (a0, 1, a1, 1, ...) and (1, b0, 1, b1, ...)
  for (int64_t d = 0; d < nd; ++d) {
    ia.push_back(pa[d]);
    ia.push_back(1);
    ib.push_back(1);
    ib.push_back(pb[d]);
    out_shape.push_back(pa[d] * pb[d]);
  }
  const Tensor<T> prod = a.reshape(ia) * b.reshape(ib);
  return prod.view(out_shape);
}

namespace detail {

template <Element T>
Tensor<T> cross_impl(const Tensor<T>& a, const Tensor<T>& b, int64_t dim, const char* op) {
  check<ShapeError>(a.dim() == b.dim(), op, ": inputs must have the same number of dimensions, got ", a.dim(), " and ",
                    b.dim());
  const int64_t d = wrap_dim(dim, a.dim(), op);
  check<ShapeError>(a.dim() > 0 && a.size(d) == 3 && b.size(d) == 3, op, ": inputs dimension ", dim,
                    " must have length 3. Got ", a.dim() > 0 ? a.size(d) : 1, " and ", b.dim() > 0 ? b.size(d) : 1);
  check_same_device(op, a, b);
  const Shape shape = broadcast_shapes(a.sizes(), b.sizes(), op);
  if constexpr (differentiable<T>) {
    if (records_grad(a, b)) {  // the three components as recorded expressions, stacked
      std::vector<Tensor<T>> parts;
      for (int64_t i = 0; i < 3; ++i) {
        const int64_t j = (i + 1) % 3, k = (i + 2) % 3;
        parts.push_back(Tensor<T>(a.select(d, j) * b.select(d, k) - a.select(d, k) * b.select(d, j)));
      }
      return tensorlib::stack(parts, d);
    }
  }
  auto out = empty<T>(shape, {.device = a.device()});
  for (int64_t i = 0; i < 3; ++i) {
    const int64_t j = (i + 1) % 3, k = (i + 2) % 3;
    out.select(d, i) = a.select(d, j) * b.select(d, k) - a.select(d, k) * b.select(d, j);
  }
  return out;
}

}  // namespace detail

/// Cross product of 3-vectors along `dim`, batch dimensions broadcast
/// (`torch.cross`). Without `dim`, the first dimension of `a` of size 3 (the
/// deprecated default PyTorch 1.13 still has).
template <Element T>
Tensor<T> cross(const Tensor<T>& a, const Tensor<T>& b, std::optional<int64_t> dim = std::nullopt) {
  static_assert(!std::is_same_v<T, bool>, "cross: bool tensors are not supported (as in PyTorch)");
  if (!dim) {
    for (int64_t d = 0; d < a.dim() && !dim; ++d)
      if (a.size(d) == 3) dim = d;
    detail::check<ShapeError>(dim.has_value(), "cross: no dimension of size 3 in input (shape ", a.sizes(), ")");
  }
  return detail::cross_impl(a, b, *dim, "cross");
}

namespace linalg {

/// Cross product of 3-vectors along `dim` (default the last), batch
/// dimensions broadcast (`torch.linalg.cross`).
template <Element T>
Tensor<T> cross(const Tensor<T>& a, const Tensor<T>& b, int64_t dim = -1) {
  static_assert(!std::is_same_v<T, bool>, "linalg.cross: bool tensors are not supported (as in PyTorch)");
  return detail::cross_impl(a, b, dim, "linalg.cross");
}

/// The integer power n of each square matrix (*, m, m)
/// (`torch.linalg.matrix_power`), by repeated squaring in PyTorch's order:
/// n = 0 gives identities (their gradient is zero), n < 0 powers of the
/// inverse (float and double; a singular matrix is a LinAlgError).
template <Expression E, class T = value_type_t<E>>
Tensor<T> matrix_power(const E& A_expr, int64_t n) {
  static_assert(!std::is_same_v<T, bool>, "linalg.matrix_power: bool tensors are not supported (as in PyTorch)");
  const Tensor<T> A = tensorlib::detail::materialize(A_expr);
  tensorlib::detail::check_square(A, "linalg.matrix_power");
  tensorlib::detail::check<ValueError>(n != std::numeric_limits<int64_t>::min(),
                                       "linalg.matrix_power: n must be greater than ", n);
  if (n == 0) {
    const Tensor<T> I = eye<T>(A.size(-1), std::nullopt, {.device = A.device()}).expand(A.sizes()).contiguous();
    // Connected to A as PyTorch's (a copy into A's clone), with gradient 0.
    if (tensorlib::detail::records_grad(A)) return where(ones<bool>({}, {.device = A.device()}), I, A);
    return I;
  }
  Tensor<T> a = A;
  if (n < 0) {
    if constexpr (tensorlib::detail::linalg_float<T>) {
      a = inv(A);
      n = -n;
    } else {
      throw TypeError(
          "linalg.matrix_power: a negative power needs the inverse, and linalg.inv expects a float or "
          "double tensor; convert it with .to<float>()");
    }
  }
  if (n == 1) return a.clone();
  if (n == 2) return matmul(a, a);
  if (n == 3) return matmul(matmul(a, a), a);
  Tensor<T> z, result;
  while (n > 0) {
    const bool bit = n % 2 == 1;
    n /= 2;
    z = z.defined() ? matmul(z, z) : a;
    if (bit) result = result.defined() ? matmul(result, z) : z;
  }
  return result;
}

}  // namespace linalg

/// `torch.matrix_power`: `linalg::matrix_power`.
using linalg::matrix_power;

template <class Derived>
auto PointwiseMethods<Derived>::matrix_power(int64_t n) const {
  return tensorlib::matrix_power(self(), n);
}
template <class Derived>
template <Expression O>
auto PointwiseMethods<Derived>::cross(const O& other, std::optional<int64_t> dim) const {
  using T = value_type_t<Derived>;
  return tensorlib::cross(Tensor<T>(self()), Tensor<T>(other), dim);
}
template <class Derived>
template <Expression O>
auto PointwiseMethods<Derived>::kron(const O& other) const {
  using T = value_type_t<Derived>;
  return tensorlib::kron(Tensor<T>(self()), Tensor<T>(other));
}

}  // namespace tensorlib
