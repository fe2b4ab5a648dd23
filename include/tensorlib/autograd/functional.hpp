#pragma once
/// \file
/// `tl::autograd::functional`: vector-Jacobian, Jacobian-vector and
/// Hessian-vector products of a function of tensors (PyTorch's
/// torch.autograd.functional.vjp / jvp / hvp). The function takes the
/// inputs as a vector and returns one tensor.
///
/// Note [jvp by double backward]
/// `jvp` is forward mode computed by reverse mode twice, as PyTorch's
/// functional.jvp does: with u a zero cotangent that requires grad,
/// g(u) = J^T u is linear in u, so the gradient of <g(u), v> with respect
/// to u is J v. It needs the function's backward to be differentiable with
/// respect to its incoming gradient, which every recorded op's is (a fused
/// expression's through `FusedGradBackward`, whose second-order pass writes
/// J v in the same loop; Note [second order] in fused.hpp). With
/// `create_graph`, jvp and hvp through a fused expression would need its
/// third derivative, which is refused (NotImplementedError).

#include <type_traits>
#include <utility>
#include <vector>

#include "tensorlib/autograd/tensor_methods.hpp"
#include "tensorlib/core/error.hpp"
#include "tensorlib/core/grad_mode.hpp"
#include "tensorlib/core/tensor.hpp"
#include "tensorlib/ops/factories.hpp"

namespace tensorlib::autograd::functional {

/// A function's output and one product of its derivative.
template <Element T>
struct OutputAndProduct {
  Tensor<T> output;
  std::vector<Tensor<T>> product;  // one per input (vjp, hvp) or one (jvp)
};

namespace detail {

/// The element type a function of `std::vector<Tensor<T>>` takes: double
/// when it accepts double tensors, else float (so braced input lists work).
template <class F>
using element_of_t = std::conditional_t<std::is_invocable_v<F&, const std::vector<Tensor<double>>&>, double, float>;

/// Fresh leaves requiring grad that share the inputs' memory (PyTorch's
/// _grad_preprocess), so the caller's tensors and graphs are left alone.
template <Element T>
std::vector<Tensor<T>> differentiable_copies(const std::vector<Tensor<T>>& inputs, const char* who) {
  std::vector<Tensor<T>> out;
  for (const auto& x : inputs) {
    ::tensorlib::detail::check<ValueError>(x.defined(), who, ": an input is undefined");
    out.push_back(x.detach().requires_grad_());
  }
  return out;
}

template <Element T>
void check_same_shapes(const std::vector<Tensor<T>>& v, const std::vector<Tensor<T>>& like, const char* who,
                       const char* what) {
  ::tensorlib::detail::check<ValueError>(v.size() == like.size(), who, ": got ", v.size(), " ", what, " for ",
                                         like.size(), " inputs");
  for (std::size_t i = 0; i < v.size(); ++i)
    ::tensorlib::detail::check<ShapeError>(v[i].defined() && v[i].sizes() == like[i].sizes(), who, ": ", what, " ", i,
                                           " has shape ", v[i].defined() ? v[i].sizes() : Shape{}, " but input ", i,
                                           " has shape ", like[i].sizes());
}

template <Element T>
std::vector<Tensor<T>> zeros_like_each(const std::vector<Tensor<T>>& xs) {
  std::vector<Tensor<T>> out;
  for (const auto& x : xs) out.push_back(::tensorlib::zeros_like(x));
  return out;
}

/// grad() with unused inputs given zero gradients (PyTorch's functional API).
template <Element T>
std::vector<Tensor<T>> grads_or_zeros(const std::vector<Tensor<T>>& outputs, const std::vector<Tensor<T>>& inputs,
                                      const std::vector<Tensor<T>>& grad_outputs, bool create_graph) {
  std::vector<Tensor<T>> g = grad<T>(outputs, inputs, grad_outputs, create_graph, create_graph, true);
  for (std::size_t i = 0; i < g.size(); ++i)
    if (!g[i].defined()) g[i] = ::tensorlib::zeros_like(inputs[i]);
  return g;
}

/// The gradients that are part of a graph (so depend on their cotangent
/// or input) and the directions paired with them.
template <Element T>
std::pair<std::vector<Tensor<T>>, std::vector<Tensor<T>>> with_graph(const std::vector<Tensor<T>>& g,
                                                                     const std::vector<Tensor<T>>& v) {
  std::pair<std::vector<Tensor<T>>, std::vector<Tensor<T>>> used;
  for (std::size_t i = 0; i < g.size(); ++i)
    if (g[i].defined() && g[i].requires_grad()) {
      used.first.push_back(g[i]);
      used.second.push_back(v[i]);
    }
  return used;
}

}  // namespace detail

/// f(inputs) and v^T J: the gradient of <f(inputs), v> with respect to each
/// input. `v` has f's output shape (it may be omitted for a one-element
/// output).
template <class F, Element T = detail::element_of_t<F>>
OutputAndProduct<T> vjp(F&& f, const std::vector<Tensor<T>>& inputs, const Tensor<T>& v = {},
                        bool create_graph = false) {
  AutoGradMode grad_on(true);
  const std::vector<Tensor<T>> x = detail::differentiable_copies(inputs, "vjp");
  const Tensor<T> out = f(x);
  if (!out.requires_grad()) return {out, detail::zeros_like_each(x)};
  std::vector<Tensor<T>> g =
      detail::grads_or_zeros<T>({out}, x, v.defined() ? std::vector{v} : std::vector<Tensor<T>>{}, create_graph);
  return {create_graph ? out : out.detach(), std::move(g)};
}

/// f(inputs) and J v, v one tangent per input (Note [jvp by double backward]).
template <class F, Element T = detail::element_of_t<F>>
OutputAndProduct<T> jvp(F&& f, const std::vector<Tensor<T>>& inputs, const std::vector<Tensor<T>>& v,
                        bool create_graph = false) {
  detail::check_same_shapes(v, inputs, "jvp", "tangent");
  AutoGradMode grad_on(true);
  const std::vector<Tensor<T>> x = detail::differentiable_copies(inputs, "jvp");
  const Tensor<T> out = f(x);
  if (!out.requires_grad()) return {out, {::tensorlib::zeros_like(out)}};
  const Tensor<T> u = ::tensorlib::zeros_like(out).requires_grad_();
  const auto used = detail::with_graph(grad<T>({out}, x, {u}, true, /*create_graph=*/true, /*allow_unused=*/true), v);
  if (used.first.empty()) return {out.detach(), {::tensorlib::zeros_like(out)}};
  std::vector<Tensor<T>> jv = grad<T>(used.first, {u}, used.second, create_graph, create_graph, /*allow_unused=*/true);
  if (!jv[0].defined()) jv[0] = ::tensorlib::zeros_like(out);
  return {create_graph ? out : out.detach(), std::move(jv)};
}

/// f(inputs) (a one-element output) and H v, v one direction per input: the
/// gradient of <grad f, v> with respect to each input.
template <class F, Element T = detail::element_of_t<F>>
OutputAndProduct<T> hvp(F&& f, const std::vector<Tensor<T>>& inputs, const std::vector<Tensor<T>>& v,
                        bool create_graph = false) {
  detail::check_same_shapes(v, inputs, "hvp", "direction");
  AutoGradMode grad_on(true);
  const std::vector<Tensor<T>> x = detail::differentiable_copies(inputs, "hvp");
  const Tensor<T> out = f(x);
  ::tensorlib::detail::check<ValueError>(out.numel() == 1,
                                         "hvp: the function must return a single-element tensor, got ", out.sizes());
  if (!out.requires_grad()) return {out, detail::zeros_like_each(x)};
  const auto used = detail::with_graph(grad<T>({out}, x, {}, true, /*create_graph=*/true, /*allow_unused=*/true), v);
  std::vector<Tensor<T>> hv(x.size());
  if (!used.first.empty()) hv = grad<T>(used.first, x, used.second, create_graph, create_graph, /*allow_unused=*/true);
  for (std::size_t i = 0; i < hv.size(); ++i)
    if (!hv[i].defined()) hv[i] = ::tensorlib::zeros_like(x[i]);
  return {create_graph ? out : out.detach(), std::move(hv)};
}

}  // namespace tensorlib::autograd::functional
