#pragma once
/// \file
/// `AutogradMeta`: the autograd state of one tensor (PyTorch's
/// AutogradMeta), owned by its `TensorImpl` and allocated only for tensors
/// that take part in autograd. core/ declares it so that a tensor can carry
/// its history; the graph types (`autograd::Node`) are defined in autograd/.
///
/// A leaf (no `grad_fn`) requires grad when the user asked for it; a non-leaf
/// requires grad because its `grad_fn` exists. `grad` is filled by the
/// engine for leaves (and for non-leaves that `retain_grad()`).

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

namespace tensorlib {

struct TensorImpl;
namespace autograd {
class Node;
}  // namespace autograd

/// A gradient hook: receives the gradient and returns a replacement (or an
/// undefined pointer to keep it). Type-erased over the element type.
using GradHook = std::function<std::shared_ptr<TensorImpl>(const std::shared_ptr<TensorImpl>&)>;

/// The autograd state of one tensor.
struct AutogradMeta {
  /// Set by `requires_grad_()` on leaves.
  bool requires_grad = false;
  /// Set by `retain_grad()` on non-leaves.
  bool retains_grad = false;
  /// The node that produced this tensor (null for leaves).
  std::shared_ptr<autograd::Node> grad_fn;
  /// Which output of `grad_fn` this tensor is.
  uint32_t output_nr = 0;
  /// The accumulated gradient (leaves, and non-leaves that retain it).
  std::shared_ptr<TensorImpl> grad;
  /// A leaf's gradient accumulator, shared by every graph that uses the leaf
  /// while one is alive.
  std::weak_ptr<autograd::Node> grad_accumulator;
  /// Hooks of a leaf (a non-leaf's hooks live on its `grad_fn`).
  std::vector<GradHook> hooks;
  /// Guards `grad` and `grad_accumulator` when backwards run on several threads.
  std::mutex mutex;
};

}  // namespace tensorlib
