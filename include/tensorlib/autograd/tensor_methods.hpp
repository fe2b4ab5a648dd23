#pragma once
/// \file
/// The autograd methods of `Tensor<T>` declared in core/tensor.hpp
/// (`requires_grad_`, `grad`, `backward`, `register_hook`, `detach`, ...)
/// and the free functions `tl::autograd::backward` and `tl::autograd::grad`.

#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "tensorlib/autograd/accumulate_grad.hpp"
#include "tensorlib/autograd/engine.hpp"
#include "tensorlib/core/error.hpp"
#include "tensorlib/core/tensor.hpp"
#include "tensorlib/ops/factories.hpp"

namespace tensorlib {

template <Element T>
Tensor<T>& Tensor<T>::requires_grad_(bool requires_grad) {
  detail::check<TypeError>(!requires_grad || (is_floating<T> && !is_dual_tag(scalar_type_of<T>)),
                           "requires_grad_: only Tensors of floating point dtype can require gradients, got ",
                           DTypeTraits<T>::name);
  detail::check<TypeError>(!requires_grad || !is_reduced_float<T>, "requires_grad_: autograd does not follow ",
                           DTypeTraits<T>::name, " tensors yet; compute in float (x.to<float>())");
  if (!is_leaf()) {
    detail::check<AutogradError>(requires_grad,
                                 "requires_grad_: you can only change requires_grad flags of leaf variables. If you "
                                 "want to use a computed variable in a subgraph that doesn't require differentiation "
                                 "use var_no_grad = var.detach().");
    return *this;
  }
  if (requires_grad || impl_->autograd) impl_->autograd_meta().requires_grad = requires_grad;
  return *this;
}

template <Element T>
Tensor<T> Tensor<T>::grad() const {
  const auto& meta = checked().autograd;
  return meta && meta->grad ? Tensor<T>(meta->grad) : Tensor<T>();
}

template <Element T>
void Tensor<T>::set_grad(const Tensor& grad) const {
  checked();
  if (grad.defined()) {
    detail::check<ShapeError>(grad.sizes() == sizes(),
                              "set_grad: assigned grad has data of a different size: ", grad.sizes(),
                              " for a tensor of shape ", sizes());
    detail::check<DeviceError>(grad.device() == device(), "set_grad: assigned grad is on ", grad.device(),
                               ", the tensor on ", device());
    // As PyTorch; it would also make the tensor own itself (a leak).
    detail::check<ValueError>(grad.impl() != impl_, "set_grad: can't assign Variable as its own grad");
  }
  if (!grad.defined() && !impl_->autograd) return;
  impl_->autograd_meta().grad = grad.impl();
}

template <Element T>
std::shared_ptr<autograd::Node> Tensor<T>::grad_fn() const {
  const auto& meta = checked().autograd;
  return meta ? meta->grad_fn : nullptr;
}

template <Element T>
void Tensor<T>::retain_grad() const {
  detail::check<AutogradError>(requires_grad(),
                               "retain_grad: can't retain_grad on Tensor that has requires_grad=False");
  if (is_leaf() || retains_grad()) return;
  AutogradMeta& meta = impl_->autograd_meta();
  meta.retains_grad = true;
  std::weak_ptr<TensorImpl> self = impl_;
  meta.grad_fn->add_tensor_hook(
      meta.output_nr,
      [self](const std::shared_ptr<TensorImpl>& g) -> std::shared_ptr<TensorImpl> {
        auto t = self.lock();
        if (!t) return nullptr;
        AutogradMeta& m = t->autograd_meta();
        const Tensor<T> incoming(g);
        if (!m.grad)
          m.grad = is_grad_enabled() ? g : incoming.detach().clone().impl();
        else
          m.grad = Tensor<T>(Tensor<T>(m.grad) + incoming).impl();
        return nullptr;
      },
      /*retain=*/true);
}

template <Element T>
Tensor<T> Tensor<T>::detach() const {
  const TensorImpl& i = checked();
  return Tensor(std::make_shared<TensorImpl>(i.storage, i.sizes, i.strides, i.offset, i.dtype));
}

template <Element T>
Tensor<T>& Tensor<T>::detach_() {
  checked();
  if (impl_->autograd) {
    impl_->autograd->grad_fn = nullptr;
    impl_->autograd->output_nr = 0;
    impl_->autograd->requires_grad = false;
  }
  return *this;
}

template <Element T>
template <class F>
std::size_t Tensor<T>::register_hook(F hook) const {
  detail::check<AutogradError>(requires_grad(),
                               "register_hook: cannot register a hook on a tensor that doesn't require gradient");
  GradHook erased = [hook = std::move(hook)](const std::shared_ptr<TensorImpl>& g) -> std::shared_ptr<TensorImpl> {
    const Tensor<T> grad(g);
    if constexpr (std::is_void_v<std::invoke_result_t<F&, const Tensor<T>&>>) {
      hook(grad);
      return nullptr;
    } else {
      const Tensor<T> replaced = hook(grad);
      return replaced.defined() ? replaced.impl() : nullptr;
    }
  };
  AutogradMeta& meta = impl_->autograd_meta();
  if (meta.grad_fn) return meta.grad_fn->add_tensor_hook(meta.output_nr, std::move(erased));
  meta.hooks.push_back(std::move(erased));
  return meta.hooks.size() - 1;
}

namespace autograd {
namespace detail {

template <Element T>
void check_root(const Tensor<T>& output, std::size_t i) {
  ::tensorlib::detail::check<AutogradError>(output.defined() && output.requires_grad(), "element ", i,
                                            " of tensors does not require grad and does not have a grad_fn");
}

template <Element T>
AnyTensor root_gradient(const Tensor<T>& output, const Tensor<T>& gradient, const char* op) {
  if (!gradient.defined()) {
    ::tensorlib::detail::check<AutogradError>(output.numel() == 1, op,
                                              ": grad can be implicitly created only for scalar outputs (got an "
                                              "output of shape ",
                                              output.sizes(), ")");
    return ones<T>(output.sizes(), {.device = output.device()});
  }
  ::tensorlib::detail::check<ShapeError>(gradient.sizes() == output.sizes(), op, ": Mismatch in shape: grad_output ",
                                         "has a shape of ", gradient.sizes(), " and output has a shape of ",
                                         output.sizes());
  return gradient;
}

}  // namespace detail

/// Accumulates the gradients of `outputs` (weighted by `grad_outputs`, which
/// may be left empty for scalar outputs) into the graph's leaves.
template <Element T>
void backward(const std::vector<Tensor<T>>& outputs, const std::vector<Tensor<T>>& grad_outputs = {},
              std::optional<bool> retain_graph = std::nullopt, bool create_graph = false) {
  ::tensorlib::detail::check<ValueError>(grad_outputs.empty() || grad_outputs.size() == outputs.size(),
                                         "backward: got ", grad_outputs.size(), " gradients for ", outputs.size(),
                                         " outputs");
  std::vector<Edge> roots;
  variable_list grads;
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    detail::check_root(outputs[i], i);
    roots.push_back(gradient_edge(outputs[i]));
    grads.push_back(
        detail::root_gradient(outputs[i], grad_outputs.empty() ? Tensor<T>() : grad_outputs[i], "backward"));
  }
  run_backward(roots, std::move(grads), retain_graph.value_or(create_graph), create_graph);
}

/// The gradients of `outputs` with respect to `inputs` (PyTorch's
/// torch.autograd.grad). Leaves' `grad()` are left untouched. An input the
/// outputs do not depend on is an error unless `allow_unused`, which gives
/// an undefined tensor for it.
template <Element T>
std::vector<Tensor<T>> grad(const std::vector<Tensor<T>>& outputs, const std::vector<Tensor<T>>& inputs,
                            const std::vector<Tensor<T>>& grad_outputs = {},
                            std::optional<bool> retain_graph = std::nullopt, bool create_graph = false,
                            bool allow_unused = false) {
  ::tensorlib::detail::check<ValueError>(grad_outputs.empty() || grad_outputs.size() == outputs.size(), "grad: got ",
                                         grad_outputs.size(), " grad_outputs for ", outputs.size(), " outputs");
  std::vector<Edge> roots, captures;
  variable_list grads;
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    detail::check_root(outputs[i], i);
    roots.push_back(gradient_edge(outputs[i]));
    grads.push_back(detail::root_gradient(outputs[i], grad_outputs.empty() ? Tensor<T>() : grad_outputs[i], "grad"));
  }
  for (const auto& x : inputs) {
    ::tensorlib::detail::check<AutogradError>(x.defined() && x.requires_grad(),
                                              "grad: One of the differentiated Tensors does not require grad");
    captures.push_back(gradient_edge(x));
  }
  const variable_list got =
      run_backward(roots, std::move(grads), retain_graph.value_or(create_graph), create_graph, captures);
  std::vector<Tensor<T>> result;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    ::tensorlib::detail::check<AutogradError>(
        got[i].defined() || allow_unused,
        "grad: One of the differentiated Tensors appears to not have been used in the graph. Set allow_unused=True "
        "if this is the desired behavior.");
    result.push_back(got[i].defined() ? got[i].as<T>() : Tensor<T>());
  }
  return result;
}

}  // namespace autograd

template <Element T>
void Tensor<T>::backward(const Tensor& gradient, std::optional<bool> retain_graph, bool create_graph) const {
  autograd::backward<T>({*this}, gradient.defined() ? std::vector<Tensor>{gradient} : std::vector<Tensor>{},
                        retain_graph, create_graph);
}

}  // namespace tensorlib
