#pragma once
/// \file
/// The recording forms of the matrix products (declared in ops/linalg.hpp):
/// mm, mv, dot, bmm and matmul. The others record through these: vdot is
/// dot; outer, addmm, addmv, addbmm, baddbmm, kron and cross are recorded
/// expressions of them when an input requires grad; tensordot and einsum
/// are views and these products. Formulas are PyTorch's (derivatives.yaml) and
/// use the public ops, so they are themselves recorded under create_graph.
///
/// matmul: a 1-D operand is promoted to a matrix (a row for the left, a
/// column for the right) and the gradient is viewed accordingly; batch
/// dimensions that were broadcast are summed back (`sum_to_size`).
///
/// Note [gradient layout]
/// A matrix operand stored column by column (a transposed contiguous one,
/// like the weight of a linear layer used as `w.t()`) gets its gradient
/// computed transposed, `(b @ g^T)^T` instead of `g @ b^T`, so that the
/// gradient has the operand's layout: the `.t()` view's backward then hands
/// the weight a contiguous gradient, with no transposing copy when it is
/// accumulated and no strided reads in the optimizer step. PyTorch's
/// mm_mat1_backward / mm_mat2_backward do the same. The values are those of
/// the plain formula (the same sums, as one GEMM either way).

#include <array>
#include <vector>

#include "tensorlib/autograd/op_backward.hpp"
#include "tensorlib/core/tensor.hpp"
#include "tensorlib/expr/operators.hpp"
#include "tensorlib/ops/linalg.hpp"
#include "tensorlib/ops/reduce.hpp"
#include "tensorlib/ops/views.hpp"

namespace tensorlib::autograd {
namespace detail {

/// A matrix stored column by column (Note [gradient layout]); PyTorch's test.
template <Element T>
bool column_major(const Tensor<T>& m) {
  return m.dim() == 2 && m.stride(0) == 1 && m.stride(1) == m.size(0);
}

/// d(a @ b)/da and d(a @ b)/db for matrices, each in its operand's layout.
template <Element T>
Tensor<T> mm_grad_a(const Tensor<T>& g, const Tensor<T>& a, const Tensor<T>& b) {
  return column_major(a) ? tensorlib::mm(b, g.t()).t() : tensorlib::mm(g, b.t());
}
template <Element T>
Tensor<T> mm_grad_b(const Tensor<T>& g, const Tensor<T>& a, const Tensor<T>& b) {
  return column_major(b) ? tensorlib::mm(g.t(), a).t() : tensorlib::mm(a.t(), g);
}

}  // namespace detail

template <Element T>
Tensor<T> mm(const Tensor<T>& a, const Tensor<T>& b) {
  auto formula = [](const std::vector<Tensor<T>>& g, const std::array<Tensor<T>, 2>& s,
                    const std::vector<bool>& needs) {
    return std::vector<Tensor<T>>{needs[0] ? detail::mm_grad_a(g[0], s[0], s[1]) : Tensor<T>(),
                                  needs[1] ? detail::mm_grad_b(g[0], s[0], s[1]) : Tensor<T>()};
  };
  return record<T>(
      "MmBackward", [&] { return tensorlib::mm(a, b); }, formula, save<T>(a, b), a, b);
}

template <Element T>
Tensor<T> mv(const Tensor<T>& mat, const Tensor<T>& vec) {
  auto formula = [](const std::vector<Tensor<T>>& g, const std::array<Tensor<T>, 2>& s,
                    const std::vector<bool>& needs) {
    return std::vector<Tensor<T>>{needs[0] ? Tensor<T>(g[0].unsqueeze(1) * s[1].unsqueeze(0)) : Tensor<T>(),
                                  needs[1] ? tensorlib::mv(s[0].t(), g[0]) : Tensor<T>()};
  };
  return record<T>(
      "MvBackward", [&] { return tensorlib::mv(mat, vec); }, formula, save<T>(mat, vec), mat, vec);
}

template <Element T>
Tensor<T> dot(const Tensor<T>& a, const Tensor<T>& b) {
  auto formula = [](const std::vector<Tensor<T>>& g, const std::array<Tensor<T>, 2>& s,
                    const std::vector<bool>& needs) {
    return std::vector<Tensor<T>>{needs[0] ? Tensor<T>(g[0] * s[1]) : Tensor<T>(),
                                  needs[1] ? Tensor<T>(g[0] * s[0]) : Tensor<T>()};
  };
  return record<T>(
      "DotBackward", [&] { return tensorlib::dot(a, b); }, formula, save<T>(a, b), a, b);
}

template <Element T>
Tensor<T> bmm(const Tensor<T>& a, const Tensor<T>& b) {
  auto formula = [](const std::vector<Tensor<T>>& g, const std::array<Tensor<T>, 2>& s,
                    const std::vector<bool>& needs) {
    return std::vector<Tensor<T>>{needs[0] ? tensorlib::bmm(g[0], s[1].transpose(1, 2)) : Tensor<T>(),
                                  needs[1] ? tensorlib::bmm(s[0].transpose(1, 2), g[0]) : Tensor<T>()};
  };
  return record<T>(
      "BmmBackward", [&] { return tensorlib::bmm(a, b); }, formula, save<T>(a, b), a, b);
}

template <Element T>
Tensor<T> matmul(const Tensor<T>& a, const Tensor<T>& b) {
  auto formula = [](const std::vector<Tensor<T>>& g, const std::array<Tensor<T>, 2>& s,
                    const std::vector<bool>& needs) {
    const Tensor<T>& a0 = s[0];
    const Tensor<T>& b0 = s[1];
    if (a0.dim() == 1 && b0.dim() == 1)
      return std::vector<Tensor<T>>{needs[0] ? Tensor<T>(g[0] * b0) : Tensor<T>(),
                                    needs[1] ? Tensor<T>(g[0] * a0) : Tensor<T>()};
    if (a0.dim() == 2 && b0.dim() == 2)
      return std::vector<Tensor<T>>{needs[0] ? detail::mm_grad_a(g[0], a0, b0) : Tensor<T>(),
                                    needs[1] ? detail::mm_grad_b(g[0], a0, b0) : Tensor<T>()};
    const Tensor<T> am = a0.dim() == 1 ? a0.unsqueeze(0) : a0;
    const Tensor<T> bm = b0.dim() == 1 ? b0.unsqueeze(-1) : b0;
    Tensor<T> gm = g[0];
    if (a0.dim() == 1) gm = gm.unsqueeze(-2);
    if (b0.dim() == 1) gm = gm.unsqueeze(-1);
    Tensor<T> ga, gb;
    if (needs[0]) ga = tensorlib::matmul(gm, bm.transpose(-1, -2)).sum_to_size(am.sizes()).reshape(a0.sizes());
    if (needs[1]) gb = tensorlib::matmul(am.transpose(-1, -2), gm).sum_to_size(bm.sizes()).reshape(b0.sizes());
    return std::vector<Tensor<T>>{ga, gb};
  };
  return record<T>(
      "MatmulBackward", [&] { return tensorlib::matmul(a, b); }, formula, save<T>(a, b), a, b);
}

}  // namespace tensorlib::autograd
