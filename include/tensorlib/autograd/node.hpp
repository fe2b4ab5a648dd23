#pragma once
/// \file
/// `Node`: one recorded operation of the autograd graph (PyTorch's
/// torch::autograd::Node). Given the gradients of its forward outputs it
/// returns the gradients of its forward inputs, which travel along
/// `next_edges()` to the nodes that produced those inputs. Gradients are
/// type-erased (`AnyTensor`), since one graph mixes element types.
///
/// Note [iterative graph destruction]
/// A node owns the nodes after it through its edges, so dropping the last
/// handle of a long chain's output would destroy the chain recursively, one
/// stack frame per node (a 10^6-node chain overflows the stack). Instead, a
/// node's destructor hands its edges to a thread-local list that the
/// outermost destructor empties in a loop. Saved tensors of a node are
/// destroyed before its edges are released (derived members die first), so
/// any node they keep alive is still owned by an edge at that point.

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "tensorlib/core/any_tensor.hpp"
#include "tensorlib/core/autograd_meta.hpp"
#include "tensorlib/core/device.hpp"
#include "tensorlib/core/dtype.hpp"
#include "tensorlib/core/shape.hpp"

namespace tensorlib::autograd {

class Node;

/// Gradients or inputs of a node, one per position (undefined = zero).
using variable_list = std::vector<AnyTensor>;

/// Where a gradient goes: input number `input_nr` of `function`.
struct Edge {
  std::shared_ptr<Node> function;
  uint32_t input_nr = 0;
  bool valid() const noexcept { return function != nullptr; }
};

/// What a node knows about one of its forward outputs: enough to make a zero
/// gradient for it and to check the gradient it receives.
struct OutputInfo {
  ScalarType dtype = kFloat32;
  Shape sizes;
  Device device{kCPU};
};

namespace detail {

inline uint64_t next_sequence_nr() {
  static std::atomic<uint64_t> counter{0};
  return counter.fetch_add(1, std::memory_order_relaxed);
}

// Note [iterative graph destruction].
inline void release_edges(std::vector<Edge>&& edges) {
  thread_local std::vector<std::shared_ptr<Node>>* pending = nullptr;
  if (pending) {
    for (Edge& e : edges)
      if (e.function) pending->push_back(std::move(e.function));
    return;
  }
  std::vector<std::shared_ptr<Node>> stack;
  for (Edge& e : edges)
    if (e.function) stack.push_back(std::move(e.function));
  pending = &stack;
  while (!stack.empty()) {
    std::shared_ptr<Node> n = std::move(stack.back());
    stack.pop_back();
    n.reset();  // may run ~Node, which appends to `stack`
  }
  pending = nullptr;
}

}  // namespace detail

/// A recorded operation. Subclasses implement `apply` (the backward
/// formula) and `name`, and release their saved tensors in `release_variables`.
class Node {
 public:
  explicit Node(std::vector<Edge> next_edges = {}) : next_edges_(std::move(next_edges)) {}
  Node(const Node&) = delete;
  Node& operator=(const Node&) = delete;
  virtual ~Node() { detail::release_edges(std::move(next_edges_)); }

  /// Gradients of the forward inputs (one per next edge) from the gradients
  /// of the forward outputs (one per output; the engine fills zeros for
  /// outputs that received none).
  virtual variable_list apply(variable_list&& grads) = 0;
  /// PyTorch-style name (`MulBackward`, `SumBackward`), used in errors.
  virtual std::string name() const = 0;
  /// Frees what the backward needs (called after a backward without
  /// `retain_graph`); a later `apply` must throw.
  virtual void release_variables() {}

  const std::vector<Edge>& next_edges() const noexcept { return next_edges_; }
  /// Whether the backward pass running this node needs the gradient of its
  /// next edge `i` (PyTorch's task_should_compute_output): false for an
  /// invalid edge, and in `autograd::grad` for an edge from which none of
  /// the requested gradients is reachable; true outside a backward pass.
  /// Defined in autograd/engine.hpp.
  bool should_compute_output(std::size_t i) const;
  std::vector<Edge>& mutable_next_edges() noexcept { return next_edges_; }
  /// Creation order: later nodes run first in backward.
  uint64_t sequence_nr() const noexcept { return sequence_nr_; }

  /// Forward outputs this node produced.
  uint32_t num_outputs() const noexcept { return static_cast<uint32_t>(outputs_.size()); }
  const OutputInfo& output_info(uint32_t i) const { return outputs_.at(i); }
  /// Records a forward output; returns its number.
  uint32_t add_output(OutputInfo info) {
    outputs_.push_back(std::move(info));
    return static_cast<uint32_t>(outputs_.size() - 1);
  }

  /// A hook on the gradient of forward output `output_nr` (a non-leaf's
  /// `register_hook` lands here). `retain` hooks (`retain_grad`) run after
  /// the others, so the retained gradient is the final one (PyTorch 2).
  struct TensorHook {
    uint32_t output_nr;
    GradHook hook;
    bool retain;
  };
  std::size_t add_tensor_hook(uint32_t output_nr, GradHook hook, bool retain = false) {
    hooks_.push_back({output_nr, std::move(hook), retain});
    return hooks_.size() - 1;
  }
  const std::vector<TensorHook>& tensor_hooks() const noexcept { return hooks_; }

 private:
  std::vector<Edge> next_edges_;
  std::vector<OutputInfo> outputs_;
  std::vector<TensorHook> hooks_;
  uint64_t sequence_nr_ = detail::next_sequence_nr();
};

}  // namespace tensorlib::autograd
