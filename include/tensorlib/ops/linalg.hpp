#pragma once
/// \file
/// Matrix products: `mm`, `mv`, `bmm`, `matmul`, `dot`, `vdot`, `outer`,
/// `addmm`, `addmv`, `addbmm`, `baddbmm`, and the `Tensor<T>` methods
/// `mm`, `mv`, `bmm`, `matmul`, `dot`. Every product runs as one (batched)
/// GEMM on strided views of the operands (backend/cpu/gemm.hpp): transposed
/// and sliced inputs are not copied. Operands may be pointwise expressions,
/// which are evaluated first. Results are new contiguous tensors.
///
/// Shapes: (B) batch, (n, m) the first operand's rows and columns, (p) the
/// second operand's columns.

#include <cstdint>
#include <string>
#include <type_traits>

#include "tensorlib/core/error.hpp"
#include "tensorlib/core/expression.hpp"
#include "tensorlib/core/shape.hpp"
#include "tensorlib/core/tensor.hpp"
#include "tensorlib/expr/broadcast.hpp"
#include "tensorlib/ops/copy.hpp"
#include "tensorlib/ops/dispatch.hpp"
#include "tensorlib/ops/evaluate.hpp"
#include "tensorlib/ops/factories.hpp"
#include "tensorlib/ops/views.hpp"

namespace tensorlib {
namespace autograd {

// The recording forms of the products (autograd/linalg_backward.hpp).
template <Element T>
Tensor<T> mm(const Tensor<T>& a, const Tensor<T>& b);
template <Element T>
Tensor<T> mv(const Tensor<T>& mat, const Tensor<T>& vec);
template <Element T>
Tensor<T> matmul(const Tensor<T>& a, const Tensor<T>& b);
template <Element T>
Tensor<T> dot(const Tensor<T>& a, const Tensor<T>& b);
template <Element T>
Tensor<T> bmm(const Tensor<T>& a, const Tensor<T>& b);

}  // namespace autograd
namespace detail {

/// The tensor an operand stands for: itself, or an evaluated expression.
template <Expression E>
Tensor<value_type_t<E>> materialize(const E& e) {
  if constexpr (std::is_same_v<std::remove_cvref_t<E>, Tensor<value_type_t<E>>>)
    return e;
  else
    return Tensor<value_type_t<E>>(e);
}

template <Element T>
void check_same_device(const char* op, const Tensor<T>& a, const Tensor<T>& b) {
  if (a.device() != b.device()) throw_device_mismatch(op, a.device(), b.device());
}

/// "2x3" for a matrix's shape, as PyTorch prints it in product errors.
inline std::string matrix_str(const Shape& s) { return concat(s[0], "x", s[1]); }

/// `input` expanded to `target`, with PyTorch's expand wording under `op`'s name.
template <Element T>
Tensor<T> expand_input(const Tensor<T>& input, const Shape& target, const char* op) {
  check<ShapeError>(input.dim() <= target.size(), op, ": expand(", input.sizes(), ", size=", target,
                    "): the number of sizes provided (", target.size(),
                    ") must be greater or equal to the number of dimensions in the tensor (", input.dim(), ")");
  const int64_t lead = target.size() - input.dim();
  for (int64_t d = 0; d < input.dim(); ++d) {
    const int64_t have = input.size(d), want = target[d + lead];
    check<ShapeError>(have == want || have == 1, op, ": The expanded size of the tensor (", want,
                      ") must match the existing size (", have, ") at non-singleton dimension ", d + lead,
                      ".  Target sizes: ", target, ".  Tensor sizes: ", input.sizes());
  }
  return input.expand(target);
}

/// A new tensor holding `input` broadcast to `shape`, or uninitialized when
/// beta == 0 (the GEMM then ignores it, NaNs included, as PyTorch does).
template <Element T>
Tensor<T> initial_output(const Tensor<T>& input, const Shape& shape, T beta, const char* op) {
  const Tensor<T> in = expand_input(input, shape, op);
  auto out = empty<T>(shape, {.device = input.device()});
  if (beta != T(0)) out.copy_(in);
  return out;
}

/// beta * input + alpha * product as a recorded expression (the add*
/// family's recording path); with beta == 0 input is not read (no NaN from
/// it, and no gradient to it).
template <Element T>
Tensor<T> add_scaled(const Tensor<T>& input, T beta, const Tensor<T>& product, T alpha) {
  if (beta == T(0)) return Tensor<T>(product * alpha);
  return Tensor<T>(input * beta + product * alpha);
}

/// out = alpha * a @ b + beta * out for 2-d views.
template <Element T>
void gemm_into(const Tensor<T>& out, const Tensor<T>& a, const Tensor<T>& b, T alpha, T beta, const char* op) {
  dispatch_bmm(out.unsqueeze(0), a.unsqueeze(0), b.unsqueeze(0), alpha, beta, op);
}

template <Element T>
void check_mm_shapes(const Tensor<T>& a, const Tensor<T>& b, const char* op) {
  check<ShapeError>(a.dim() == 2, op, ": mat1 must be a matrix, got ", a.dim(), "-D tensor");
  check<ShapeError>(b.dim() == 2, op, ": mat2 must be a matrix, got ", b.dim(), "-D tensor");
  check<ShapeError>(a.size(1) == b.size(0), op, ": mat1 and mat2 shapes cannot be multiplied (", matrix_str(a.sizes()),
                    " and ", matrix_str(b.sizes()), ")");
  check_same_device(op, a, b);
}

template <Element T>
void check_mv_shapes(const Tensor<T>& mat, const Tensor<T>& vec, const char* op) {
  check<ShapeError>(mat.dim() == 2 && vec.dim() == 1, op, ": expected a 2-D matrix and a 1-D vector, but got ",
                    mat.dim(), "-D and ", vec.dim(), "-D tensors");
  check<ShapeError>(mat.size(1) == vec.size(0), op, ": size mismatch, got mat (", matrix_str(mat.sizes()), "), vec (",
                    vec.size(0), ")");
  check_same_device(op, mat, vec);
}

template <Element T>
void check_bmm_shapes(const Tensor<T>& a, const Tensor<T>& b, const char* op) {
  check<ShapeError>(a.dim() == 3, op, ": batch1 must be a 3D tensor, got ", a.dim(), "-D tensor");
  check<ShapeError>(b.dim() == 3, op, ": batch2 must be a 3D tensor, got ", b.dim(), "-D tensor");
  check<ShapeError>(b.size(0) == a.size(0) && b.size(1) == a.size(2), op,
                    ": Expected size for first two dimensions of batch2 tensor to be: [", a.size(0), ", ", a.size(2),
                    "] but got: [", b.size(0), ", ", b.size(1), "].");
  check_same_device(op, a, b);
}

template <Element T>
void check_dot_shapes(const Tensor<T>& a, const Tensor<T>& b, const char* op) {
  check<ShapeError>(a.dim() == 1 && b.dim() == 1, op, ": 1D tensors expected, but got ", a.dim(), "D and ", b.dim(),
                    "D tensors");
  check<ShapeError>(a.size(0) == b.size(0), op, ": inconsistent tensor size, expected tensor [", a.size(0),
                    "] and src [", b.size(0), "] to have the same number of elements, but got ", a.size(0), " and ",
                    b.size(0), " elements respectively");
  check_same_device(op, a, b);
}

template <Element T>
Tensor<T> mm_impl(const Tensor<T>& a, const Tensor<T>& b, const char* op) {
  check_mm_shapes(a, b, op);
  auto out = empty<T>({a.size(0), b.size(1)}, {.device = a.device()});
  gemm_into(out, a, b, T(1), T(0), op);
  return out;
}

template <Element T>
Tensor<T> mv_impl(const Tensor<T>& mat, const Tensor<T>& vec, const char* op) {
  check_mv_shapes(mat, vec, op);
  auto out = empty<T>({mat.size(0)}, {.device = mat.device()});
  gemm_into(out.unsqueeze(1), mat, vec.unsqueeze(1), T(1), T(0), op);
  return out;
}

template <Element T>
Tensor<T> bmm_impl(const Tensor<T>& a, const Tensor<T>& b, const char* op) {
  check_bmm_shapes(a, b, op);
  auto out = empty<T>({a.size(0), a.size(1), b.size(2)}, {.device = a.device()});
  dispatch_bmm(out, a, b, T(1), T(0), op);
  return out;
}

template <Element T>
Tensor<T> dot_impl(const Tensor<T>& a, const Tensor<T>& b, const char* op) {
  check_dot_shapes(a, b, op);
  auto out = empty<T>(Shape{}, {.device = a.device()});
  gemm_into(out.view({1, 1}), a.unsqueeze(0), b.unsqueeze(1), T(1), T(0), op);
  return out;
}

// Note [matmul rules]: PyTorch's, by dimension: 1-D @ 1-D is dot; 2-D @ 1-D
// mv; 1-D @ 2-D and 2-D @ 2-D mm (a 1-D first operand gets a leading 1 that
// is removed again); otherwise the operands are batched matrices (a 1-D
// operand becoming a 1 x m row or m x 1 column), their batch dimensions
// broadcast, and a result dimension added for a 1-D operand is removed. A
// batched first operand times a matrix or vector folds its batch into rows:
// one GEMM instead of many.
template <Element T>
Tensor<T> matmul_impl(const Tensor<T>& a, const Tensor<T>& b) {
  const char* op = "matmul";
  const int64_t da = a.dim(), db = b.dim();
  check<ShapeError>(da >= 1 && db >= 1, "matmul: both arguments to matmul need to be at least 1D, but they are ", da,
                    "D and ", db, "D");
  if (da == 1 && db == 1) return dot_impl(a, b, op);
  if (da == 2 && db == 1) return mv_impl(a, b, op);
  if (da == 1 && db == 2) return mm_impl(a.unsqueeze(0), b, op).squeeze(0);
  if (da == 2 && db == 2) return mm_impl(a, b, op);
  if (da >= 3 && db <= 2) {
    Shape out_shape;
    for (int64_t d = 0; d + 1 < da; ++d) out_shape.push_back(a.size(d));
    const int64_t nrows = out_shape.numel();
    if (db == 2) out_shape.push_back(b.size(1));
    const Tensor<T> rows = a.reshape({nrows, a.size(-1)});
    const Tensor<T> r = db == 1 ? mv_impl(rows, b, op) : mm_impl(rows, b, op);
    return r.view(out_shape);
  }
  const Tensor<T> a2 = da == 1 ? a.unsqueeze(0) : a;  // (..., n, m)
  const Tensor<T> b2 = db == 1 ? b.unsqueeze(1) : b;  // (..., m, p)
  Shape batch_a = a2.sizes(), batch_b = b2.sizes();
  batch_a.resize(a2.dim() - 2);
  batch_b.resize(b2.dim() - 2);
  const Shape batch = broadcast_shapes(batch_a, batch_b, op);
  const int64_t n = a2.size(-2), m = a2.size(-1), p = b2.size(-1);
  check_same_device(op, a, b);
  Shape shape_a = batch, shape_b = batch, shape_out = batch;
  shape_a.push_back(n);
  shape_a.push_back(m);
  shape_b.push_back(b2.size(-2));
  shape_b.push_back(p);
  const int64_t nb = batch.numel();
  const Tensor<T> a3 = a2.expand(shape_a).reshape({nb, n, m});
  const Tensor<T> b3 = b2.expand(shape_b).reshape({nb, b2.size(-2), p});
  const Tensor<T> out = bmm_impl(a3, b3, op);
  if (da > 1) shape_out.push_back(n);
  if (db > 1) shape_out.push_back(p);
  return out.view(shape_out);
}

}  // namespace detail

/// Matrix product of two 2-D tensors: (n, m) @ (m, p) -> (n, p) (`torch.mm`).
template <Expression A, Expression B>
auto mm(const A& self, const B& mat2) {
  static_assert(std::is_same_v<value_type_t<A>, value_type_t<B>>,
                "mm: both operands must have the same element type; convert one with .to<T>()");
  static_assert(!std::is_same_v<value_type_t<A>, bool>, "mm: bool tensors are not supported (as in PyTorch)");
  if constexpr (differentiable<value_type_t<A>>) {
    if (detail::records_grad(self, mat2)) return autograd::mm(detail::materialize(self), detail::materialize(mat2));
  }
  return detail::mm_impl(detail::materialize(self), detail::materialize(mat2), "mm");
}

/// Matrix-vector product: (n, m) @ (m) -> (n) (`torch.mv`).
template <Expression A, Expression B>
auto mv(const A& self, const B& vec) {
  static_assert(std::is_same_v<value_type_t<A>, value_type_t<B>>,
                "mv: both operands must have the same element type; convert one with .to<T>()");
  static_assert(!std::is_same_v<value_type_t<A>, bool>, "mv: bool tensors are not supported (as in PyTorch)");
  if constexpr (differentiable<value_type_t<A>>) {
    if (detail::records_grad(self, vec)) return autograd::mv(detail::materialize(self), detail::materialize(vec));
  }
  return detail::mv_impl(detail::materialize(self), detail::materialize(vec), "mv");
}

/// Batched matrix product of 3-D tensors: (B, n, m) @ (B, m, p) -> (B, n, p)
/// (`torch.bmm`; no broadcasting, use `matmul` for that).
template <Expression A, Expression B>
auto bmm(const A& self, const B& mat2) {
  static_assert(std::is_same_v<value_type_t<A>, value_type_t<B>>,
                "bmm: both operands must have the same element type; convert one with .to<T>()");
  static_assert(!std::is_same_v<value_type_t<A>, bool>, "bmm: bool tensors are not supported (as in PyTorch)");
  if constexpr (differentiable<value_type_t<A>>) {
    if (detail::records_grad(self, mat2)) return autograd::bmm(detail::materialize(self), detail::materialize(mat2));
  }
  return detail::bmm_impl(detail::materialize(self), detail::materialize(mat2), "bmm");
}

/// `torch.matmul`: dot, mv, mm or a batched product with broadcast batch
/// dimensions, chosen by the operands' dimensions (Note [matmul rules]).
template <Expression A, Expression B>
auto matmul(const A& self, const B& other) {
  static_assert(std::is_same_v<value_type_t<A>, value_type_t<B>>,
                "matmul: both operands must have the same element type; convert one with .to<T>()");
  static_assert(!std::is_same_v<value_type_t<A>, bool>, "matmul: bool tensors are not supported (as in PyTorch)");
  if constexpr (differentiable<value_type_t<A>>) {
    if (detail::records_grad(self, other))
      return autograd::matmul(detail::materialize(self), detail::materialize(other));
  }
  return detail::matmul_impl(detail::materialize(self), detail::materialize(other));
}

/// Inner product of two 1-D tensors of equal length, as a 0-d tensor (`torch.dot`).
template <Expression A, Expression B>
auto dot(const A& self, const B& other) {
  static_assert(std::is_same_v<value_type_t<A>, value_type_t<B>>,
                "dot: both operands must have the same element type; convert one with .to<T>()");
  static_assert(!std::is_same_v<value_type_t<A>, bool>, "dot: bool tensors are not supported (as in PyTorch)");
  if constexpr (differentiable<value_type_t<A>>) {
    if (detail::records_grad(self, other)) return autograd::dot(detail::materialize(self), detail::materialize(other));
  }
  return detail::dot_impl(detail::materialize(self), detail::materialize(other), "dot");
}

/// `torch.vdot`: dot product conjugating the first operand; for the real
/// element types tensorlib has, the same as `dot`.
template <Expression A, Expression B>
auto vdot(const A& self, const B& other) {
  static_assert(std::is_same_v<value_type_t<A>, value_type_t<B>>,
                "vdot: both operands must have the same element type; convert one with .to<T>()");
  static_assert(!std::is_same_v<value_type_t<A>, bool>, "vdot: bool tensors are not supported (as in PyTorch)");
  if constexpr (differentiable<value_type_t<A>>) {
    if (detail::records_grad(self, other)) {
      detail::check_dot_shapes(detail::materialize(self), detail::materialize(other), "vdot");
      return autograd::dot(detail::materialize(self), detail::materialize(other));
    }
  }
  return detail::dot_impl(detail::materialize(self), detail::materialize(other), "vdot");
}

/// Outer product of two 1-D tensors: (n), (p) -> (n, p) (`torch.outer`, alias `ger`).
template <Expression A, Expression B>
auto outer(const A& self, const B& vec2) {
  static_assert(std::is_same_v<value_type_t<A>, value_type_t<B>>,
                "outer: both operands must have the same element type; convert one with .to<T>()");
  static_assert(!std::is_same_v<value_type_t<A>, bool>, "outer: bool tensors are not supported");
  using T = value_type_t<A>;
  const Tensor<T> a = detail::materialize(self), b = detail::materialize(vec2);
  detail::check<ShapeError>(a.dim() == 1, "outer: Expected 1-D argument self, but got ", a.dim(), "-D");
  detail::check<ShapeError>(b.dim() == 1, "outer: Expected 1-D argument vec2, but got ", b.dim(), "-D");
  detail::check_same_device("outer", a, b);
  if constexpr (differentiable<T>) {
    if (detail::records_grad(a, b)) return Tensor<T>(a.unsqueeze(1) * b.unsqueeze(0));  // fused, records
  }
  auto out = empty<T>({a.size(0), b.size(0)}, {.device = a.device()});
  detail::gemm_into(out, a.unsqueeze(1), b.unsqueeze(0), T(1), T(0), "outer");
  return out;
}

/// beta * input + alpha * (mat1 @ mat2), input broadcast to (n, p)
/// (`torch.addmm`). With beta == 0 `input` is not read (NaNs ignored).
template <Element T>
Tensor<T> addmm(const Tensor<T>& input, const Tensor<T>& mat1, const Tensor<T>& mat2,
                std::type_identity_t<T> beta = T(1), std::type_identity_t<T> alpha = T(1)) {
  static_assert(!std::is_same_v<T, bool>, "addmm: bool tensors are not supported (as in PyTorch)");
  detail::check_mm_shapes(mat1, mat2, "addmm");
  detail::check_same_device("addmm", input, mat1);
  if constexpr (differentiable<T>) {
    if (detail::records_grad(input, mat1, mat2))
      return detail::add_scaled(detail::expand_input(input, {mat1.size(0), mat2.size(1)}, "addmm"), beta,
                                mm(mat1, mat2), alpha);
  }
  auto out = detail::initial_output(input, {mat1.size(0), mat2.size(1)}, beta, "addmm");
  detail::gemm_into(out, mat1, mat2, alpha, beta, "addmm");
  return out;
}

/// beta * input + alpha * (mat @ vec), input broadcast to (n) (`torch.addmv`).
template <Element T>
Tensor<T> addmv(const Tensor<T>& input, const Tensor<T>& mat, const Tensor<T>& vec, std::type_identity_t<T> beta = T(1),
                std::type_identity_t<T> alpha = T(1)) {
  static_assert(!std::is_same_v<T, bool>, "addmv: bool tensors are not supported (as in PyTorch)");
  detail::check_mv_shapes(mat, vec, "addmv");
  detail::check_same_device("addmv", input, mat);
  if constexpr (differentiable<T>) {
    if (detail::records_grad(input, mat, vec))
      return detail::add_scaled(detail::expand_input(input, {mat.size(0)}, "addmv"), beta, mv(mat, vec), alpha);
  }
  auto out = detail::initial_output(input, {mat.size(0)}, beta, "addmv");
  detail::gemm_into(out.unsqueeze(1), mat, vec.unsqueeze(1), alpha, beta, "addmv");
  return out;
}

/// beta * input + alpha * sum_i batch1[i] @ batch2[i], input broadcast to
/// (n, p) (`torch.addbmm`).
template <Element T>
Tensor<T> addbmm(const Tensor<T>& input, const Tensor<T>& batch1, const Tensor<T>& batch2,
                 std::type_identity_t<T> beta = T(1), std::type_identity_t<T> alpha = T(1)) {
  static_assert(!std::is_same_v<T, bool>, "addbmm: bool tensors are not supported (as in PyTorch)");
  const char* op = "addbmm";
  detail::check<ShapeError>(batch1.dim() == 3, op, ": batch1 must be a 3D tensor, got ", batch1.dim(), "-D tensor");
  detail::check<ShapeError>(batch2.dim() == 3, op, ": batch2 must be a 3D tensor, got ", batch2.dim(), "-D tensor");
  detail::check<ShapeError>(batch1.size(0) == batch2.size(0), op,
                            ": batch1 and batch2 must have same number of batches, got ", batch1.size(0), " and ",
                            batch2.size(0));
  detail::check<ShapeError>(batch1.size(2) == batch2.size(1), op, ": Incompatible matrix sizes for bmm (",
                            batch1.size(1), "x", batch1.size(2), " and ", batch2.size(1), "x", batch2.size(2), ")");
  detail::check_same_device(op, batch1, batch2);
  detail::check_same_device(op, input, batch1);
  if constexpr (differentiable<T>) {
    if (detail::records_grad(input, batch1, batch2))
      return detail::add_scaled(detail::expand_input(input, {batch1.size(1), batch2.size(2)}, op), beta,
                                bmm(batch1, batch2).sum(0), alpha);
  }
  auto out = detail::initial_output(input, {batch1.size(1), batch2.size(2)}, beta, op);
  if (batch1.size(0) == 0) {
    if (beta == T(0))
      out.zero_();
    else if (beta != T(1))
      out.mul_(beta);
    return out;
  }
  for (int64_t i = 0; i < batch1.size(0); ++i)
    detail::gemm_into(out, batch1.select(0, i), batch2.select(0, i), alpha, i == 0 ? beta : T(1), op);
  return out;
}

/// beta * input + alpha * (batch1 @ batch2) per batch, input broadcast to
/// (B, n, p) (`torch.baddbmm`).
template <Element T>
Tensor<T> baddbmm(const Tensor<T>& input, const Tensor<T>& batch1, const Tensor<T>& batch2,
                  std::type_identity_t<T> beta = T(1), std::type_identity_t<T> alpha = T(1)) {
  static_assert(!std::is_same_v<T, bool>, "baddbmm: bool tensors are not supported (as in PyTorch)");
  detail::check_bmm_shapes(batch1, batch2, "baddbmm");
  detail::check_same_device("baddbmm", input, batch1);
  if constexpr (differentiable<T>) {
    if (detail::records_grad(input, batch1, batch2))
      return detail::add_scaled(
          detail::expand_input(input, {batch1.size(0), batch1.size(1), batch2.size(2)}, "baddbmm"), beta,
          bmm(batch1, batch2), alpha);
  }
  auto out = detail::initial_output(input, {batch1.size(0), batch1.size(1), batch2.size(2)}, beta, "baddbmm");
  detail::dispatch_bmm(out, batch1, batch2, alpha, beta, "baddbmm");
  return out;
}

template <Element T>
template <Expression E>
Tensor<T> Tensor<T>::mm(const E& mat2) const {
  return tensorlib::mm(*this, mat2);
}

template <Element T>
template <Expression E>
Tensor<T> Tensor<T>::mv(const E& vec) const {
  return tensorlib::mv(*this, vec);
}

template <Element T>
template <Expression E>
Tensor<T> Tensor<T>::bmm(const E& mat2) const {
  return tensorlib::bmm(*this, mat2);
}

template <Element T>
template <Expression E>
Tensor<T> Tensor<T>::matmul(const E& other) const {
  return tensorlib::matmul(*this, other);
}

template <Element T>
template <Expression E>
Tensor<T> Tensor<T>::dot(const E& other) const {
  return tensorlib::dot(*this, other);
}

}  // namespace tensorlib
