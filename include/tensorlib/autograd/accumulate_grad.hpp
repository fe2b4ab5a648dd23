#pragma once
/// \file
/// `AccumulateGrad`: the node at a leaf that requires grad. It runs the
/// leaf's hooks and adds the incoming gradient into `leaf.grad()`, and it is
/// the edge target for every use of the leaf while it is alive (the leaf
/// holds it weakly, the graph strongly), plus the graph-recording helpers
/// every differentiable op uses: `gradient_edge`, `collect_next_edges`,
/// `set_history`, and `add_recorded`, the sum of two gradients.
///
/// Note [autograd's own arithmetic]
/// Every program that records anything reaches this node, and so whatever
/// arithmetic the engine does on gradients (summing them here, scaling and
/// casting them in FusedBackward) is compiled in every translation unit.
/// Written as fused expressions, each of those would bring its own
/// FusedBackward: forward, adjoint and second-order loops per element type,
/// about half the compile time of a small program. So they are light nodes
/// (AddBackward, MulBackward, ToCopyBackward) whose backward is the same
/// light op, and the unrecorded writes use `write_unrecorded`.

#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "tensorlib/autograd/node.hpp"
#include "tensorlib/core/any_tensor.hpp"
#include "tensorlib/core/error.hpp"
#include "tensorlib/core/grad_mode.hpp"
#include "tensorlib/core/tensor.hpp"
#include "tensorlib/expr/operators.hpp"
#include "tensorlib/ops/copy.hpp"
#include "tensorlib/ops/evaluate.hpp"

namespace tensorlib::autograd {
namespace detail {

/// Calls f(Tensor<T>) for a floating gradient (the only kind autograd makes).
template <class F>
decltype(auto) visit_floating(const AnyTensor& t, F&& f) {
  if (t.is<float>()) return f(t.as<float>());
  if (t.is<double>()) return f(t.as<double>());
  throw TypeError("autograd: gradients must be float or double tensors");
}

/// Applies hooks (each may replace the gradient) to `grad`.
inline AnyTensor run_hook(const GradHook& hook, AnyTensor grad) {
  if (!grad.defined()) return grad;
  auto replaced = hook(grad.impl());
  return replaced ? AnyTensor::from_impl(std::move(replaced)) : grad;
}

}  // namespace detail

/// Adds gradients into a leaf's `grad`.
class AccumulateGrad final : public Node {
 public:
  explicit AccumulateGrad(std::shared_ptr<TensorImpl> leaf) : leaf_(std::move(leaf)) {
    add_output({leaf_->dtype, leaf_->sizes, leaf_->storage.device()});
  }

  // Note [key functions]
  // Declared inline here, not only at its definition below. A virtual
  // function that is not inline where its class is defined is the class's
  // key function (Itanium C++ ABI); g++ and clang then emit the vtable with
  // its definition, so every translation unit that included this header
  // compiled the vtable, apply and all that apply instantiates (182 KB of
  // code at -O3, half the umbrella header's compile time). Checked by
  // tests/headers/umbrella_emits_no_code.cpp.
  inline variable_list apply(variable_list&& grads) override;
  std::string name() const override { return "AccumulateGrad"; }
  /// The leaf this node accumulates into.
  const std::shared_ptr<TensorImpl>& leaf() const noexcept { return leaf_; }

 private:
  std::shared_ptr<TensorImpl> leaf_;
};

/// The accumulator of a leaf that requires grad (created on first use).
inline std::shared_ptr<Node> grad_accumulator(const std::shared_ptr<TensorImpl>& leaf) {
  AutogradMeta& meta = leaf->autograd_meta();
  std::lock_guard lock(meta.mutex);
  if (auto existing = meta.grad_accumulator.lock()) return existing;
  auto acc = std::make_shared<AccumulateGrad>(leaf);
  meta.grad_accumulator = acc;
  return acc;
}

/// Where the gradient of `t` must go: its grad_fn, its accumulator, or
/// nowhere (an invalid edge) when it does not require grad.
inline Edge gradient_edge(const std::shared_ptr<TensorImpl>& t) {
  if (!t || !t->requires_grad()) return {};
  if (t->autograd->grad_fn) return {t->autograd->grad_fn, t->autograd->output_nr};
  return {grad_accumulator(t), 0};
}
template <Element T>
Edge gradient_edge(const Tensor<T>& t) {
  return gradient_edge(t.impl());
}

/// True when an op on these tensors must record a node: grad mode is on and
/// one of them requires grad.
template <class... Ts>
bool compute_requires_grad(const Ts&... tensors) {
  return is_grad_enabled() && ((tensors.defined() && tensors.requires_grad()) || ...);
}

/// One edge per input, in order (invalid for inputs that need no gradient).
template <class... Ts>
std::vector<Edge> collect_next_edges(const Ts&... inputs) {
  return {gradient_edge(inputs)...};
}

/// Makes `node` the history of `out` (its next output).
template <Element T>
void set_history(const Tensor<T>& out, const std::shared_ptr<Node>& node) {
  AutogradMeta& meta = out.impl()->autograd_meta();
  meta.grad_fn = node;
  meta.output_nr = node->add_output({out.dtype(), out.sizes(), out.device()});
}

/// The node of `add_recorded`: both inputs get the incoming gradient.
class AddBackward final : public Node {
 public:
  variable_list apply(variable_list&& grads) override {
    const std::vector<Edge>& edges = next_edges();
    variable_list out;
    for (const Edge& e : edges) out.push_back(e.valid() ? grads.at(0) : AnyTensor());
    return out;
  }
  std::string name() const override { return "AddBackward0"; }
};

/// a + b for tensors of one shape, recorded as an AddBackward when grad mode
/// is on and either requires grad (Note [autograd's own arithmetic]).
template <Element T>
Tensor<T> add_recorded(const Tensor<T>& a, const Tensor<T>& b) {
  Tensor<T> out = ::tensorlib::detail::evaluate(a + b);
  if (compute_requires_grad(a, b)) {
    auto node = std::make_shared<AddBackward>();
    node->mutable_next_edges() = collect_next_edges(a, b);
    set_history(out, node);
  }
  return out;
}

inline variable_list AccumulateGrad::apply(variable_list&& grads) {
  AnyTensor g = std::move(grads.at(0));
  AutogradMeta& meta = leaf_->autograd_meta();
  for (const GradHook& h : meta.hooks) g = detail::run_hook(h, std::move(g));
  if (!g.defined()) return {};
  std::lock_guard lock(meta.mutex);
  detail::visit_floating(g, [&](auto incoming) {
    using T = typename decltype(incoming)::value_type;
    if (!meta.grad) {
      // Without create_graph the gradient is stored detached; a buffer
      // nobody else holds is adopted rather than copied (PyTorch does too).
      if (is_grad_enabled())
        meta.grad = incoming.impl();
      else
        meta.grad = (incoming.use_count() <= 2 && incoming.is_contiguous() && !incoming.requires_grad())
                        ? incoming.impl()
                        : incoming.detach().clone().impl();
      return;
    }
    Tensor<T> current(meta.grad);
    if (is_grad_enabled() || current.requires_grad()) {
      meta.grad = add_recorded(current, incoming).impl();
    } else {
      ::tensorlib::detail::write_unrecorded(current, current + incoming.detach(), "AccumulateGrad");
    }
  });
  return {};
}

}  // namespace tensorlib::autograd
