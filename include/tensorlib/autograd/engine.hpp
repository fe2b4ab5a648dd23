#pragma once
/// \file
/// The engine: runs a backward pass over the recorded graph (PyTorch's
/// torch::autograd::Engine, single-threaded per pass). Iterative: it counts
/// each node's incoming edges, then runs nodes whose gradients are complete,
/// latest-created first, so the deepest graph needs no stack depth. Every
/// call has its own state, so independent threads can run independent
/// backwards; leaves shared between them accumulate under a lock.
///
/// `tl::autograd::grad` captures gradients at the requested inputs instead
/// of accumulating into leaves, and runs only the nodes that lead to them.

#include <algorithm>
#include <cstdint>
#include <optional>
#include <queue>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "tensorlib/autograd/accumulate_grad.hpp"
#include "tensorlib/autograd/node.hpp"
#include "tensorlib/core/any_tensor.hpp"
#include "tensorlib/core/error.hpp"
#include "tensorlib/core/grad_mode.hpp"
#include "tensorlib/ops/factories.hpp"

namespace tensorlib::autograd {
namespace detail {

/// g1 + g2 for gradients of one tensor (recorded when grad mode is on).
inline AnyTensor add_gradients(const AnyTensor& a, const AnyTensor& b) {
  if (!a.defined()) return b;
  if (!b.defined()) return a;
  return visit_floating(a, [&](const auto& ta) -> AnyTensor {
    using T = typename std::remove_cvref_t<decltype(ta)>::value_type;
    return add_recorded(ta, b.as<T>());
  });
}

/// A zero gradient for an output that received none.
inline AnyTensor zeros_for(const OutputInfo& info) {
  if (info.dtype == kFloat64) return zeros<double>(info.sizes, {.device = info.device});
  return zeros<float>(info.sizes, {.device = info.device});
}

struct NodeState {
  int dependencies = 0;
  bool needed = true;
  variable_list buffer;
};

/// Everything one backward call knows.
class GraphTask {
 public:
  GraphTask(bool keep_graph, bool capture_mode) : keep_graph_(keep_graph), capture_mode_(capture_mode) {}

  /// Requests the gradient arriving at `edge` (for `grad()`); returns its slot.
  void add_capture(const Edge& edge, std::size_t slot) {
    if (edge.valid()) captures_[edge.function.get()].push_back({edge.input_nr, slot});
  }

  /// The task whose node is running on this thread, or null.
  static const GraphTask*& running() {
    thread_local const GraphTask* task = nullptr;
    return task;
  }

  /// Whether this task needs the gradient arriving at `node`: always in a
  /// backward into .grad; in `grad()`, when a requested gradient is
  /// reachable from it (`mark_needed`).
  bool needs(Node* node) const {
    if (!capture_mode_) return true;
    const auto it = states_.find(node);
    return it != states_.end() && it->second.needed;
  }

  variable_list run(const std::vector<Edge>& roots, variable_list root_grads, std::size_t captured_count) {
    captured_.assign(captured_count, AnyTensor{});
    discover(roots);
    if (capture_mode_) mark_needed();
    for (std::size_t i = 0; i < roots.size(); ++i) accumulate(roots[i], std::move(root_grads[i]));
    auto later_first = [](Node* a, Node* b) { return a->sequence_nr() < b->sequence_nr(); };
    std::priority_queue<Node*, std::vector<Node*>, decltype(later_first)> ready(later_first);
    for (auto& [node, state] : states_)
      if (state.dependencies == 0) ready.push(node);
    while (!ready.empty()) {
      Node* node = ready.top();
      ready.pop();
      NodeState& state = states_.at(node);
      if (!state.needed) continue;  // nothing after it is needed either
      execute(node, state, ready);
    }
    return std::move(captured_);
  }

 private:
  struct Capture {
    uint32_t input_nr;
    std::size_t slot;
  };

  void discover(const std::vector<Edge>& roots) {
    std::vector<Node*> stack;
    for (const Edge& r : roots) {
      if (!r.valid()) continue;
      if (states_.emplace(r.function.get(), NodeState{}).second) stack.push_back(r.function.get());
    }
    while (!stack.empty()) {
      Node* n = stack.back();
      stack.pop_back();
      for (const Edge& e : n->next_edges()) {
        if (!e.valid()) continue;
        auto [it, inserted] = states_.emplace(e.function.get(), NodeState{});
        ++it->second.dependencies;
        if (inserted) stack.push_back(e.function.get());
      }
    }
    for (auto& [node, state] : states_) state.buffer.resize(node->num_outputs());
  }

  // In capture mode a node runs only if a captured gradient is reachable
  // from it; accumulators never run (grad() leaves .grad alone).
  void mark_needed() {
    for (auto& [node, state] : states_) state.needed = false;
    // Decide successors first: a post-order walk with an explicit stack.
    // Sequence numbers cannot order this: a leaf's AccumulateGrad is created
    // lazily, while its first user's node is being built, so it is younger
    // than that node.
    std::unordered_set<Node*> visited;
    std::vector<std::pair<Node*, std::size_t>> stack;  // node, next edge to visit
    for (auto& [root, root_state] : states_) {
      if (!visited.insert(root).second) continue;
      stack.push_back({root, 0});
      while (!stack.empty()) {
        Node* n = stack.back().first;
        const std::size_t i = stack.back().second++;
        const auto& edges = n->next_edges();
        if (i < edges.size()) {
          Node* m = edges[i].function.get();
          if (m && visited.insert(m).second) stack.push_back({m, 0});
          continue;
        }
        bool needed = captures_.count(n) > 0;
        for (const Edge& e : edges)
          if (e.valid() && states_.at(e.function.get()).needed) needed = true;
        states_.at(n).needed = needed;
        stack.pop_back();
      }
    }
  }

  void accumulate(const Edge& edge, AnyTensor grad) {
    if (!edge.valid() || !grad.defined()) return;
    NodeState& state = states_.at(edge.function.get());
    const OutputInfo& info = edge.function->output_info(edge.input_nr);
    ::tensorlib::detail::check<ShapeError>(grad.sizes() == info.sizes, "autograd: ", edge.function->name(),
                                           " received a gradient of shape ", grad.sizes(), " for an output of shape ",
                                           info.sizes);
    AnyTensor& slot = state.buffer.at(edge.input_nr);
    slot = add_gradients(slot, grad);
  }

  template <class Queue>
  void execute(Node* node, NodeState& state, Queue& ready) {
    variable_list grads = std::move(state.buffer);
    for (const auto& h : node->tensor_hooks())
      if (!h.retain) grads[h.output_nr] = run_hook(h.hook, std::move(grads[h.output_nr]));
    for (const auto& h : node->tensor_hooks())
      if (h.retain) grads[h.output_nr] = run_hook(h.hook, std::move(grads[h.output_nr]));
    if (auto it = captures_.find(node); it != captures_.end()) {
      auto* acc = dynamic_cast<AccumulateGrad*>(node);
      for (const Capture& c : it->second) {
        AnyTensor g = grads[c.input_nr];
        if (acc)
          for (const GradHook& h : acc->leaf()->autograd_meta().hooks) g = run_hook(h, std::move(g));
        captured_[c.slot] = add_gradients(captured_[c.slot], g);
      }
    }
    const bool is_accumulator = dynamic_cast<AccumulateGrad*>(node) != nullptr;
    if (is_accumulator && capture_mode_) return;
    if (std::none_of(grads.begin(), grads.end(), [](const AnyTensor& g) { return g.defined(); })) {
      if (is_accumulator) return;
    }
    for (uint32_t i = 0; i < grads.size(); ++i)
      if (!grads[i].defined()) grads[i] = zeros_for(node->output_info(i));
    variable_list outputs;
    {
      const RunningGuard running(this);
      outputs = node->apply(std::move(grads));
    }
    if (!keep_graph_) node->release_variables();
    const auto& edges = node->next_edges();
    ::tensorlib::detail::check<AutogradError>(outputs.size() == edges.size(), "autograd: ", node->name(), " returned ",
                                              outputs.size(), " gradients for ", edges.size(), " inputs");
    for (std::size_t i = 0; i < edges.size(); ++i) {
      const Edge& e = edges[i];
      if (!e.valid()) continue;
      accumulate(e, std::move(outputs[i]));
      NodeState& next = states_.at(e.function.get());
      if (--next.dependencies == 0) ready.push(e.function.get());
    }
  }

  /// Makes a task the one running on this thread while a node's `apply`
  /// runs (a backward inside it runs its own task, then this one resumes).
  class RunningGuard {
   public:
    explicit RunningGuard(const GraphTask* task) : outer_(running()) { running() = task; }
    RunningGuard(const RunningGuard&) = delete;
    RunningGuard& operator=(const RunningGuard&) = delete;
    ~RunningGuard() { running() = outer_; }

   private:
    const GraphTask* outer_;
  };

  bool keep_graph_;
  bool capture_mode_;
  std::unordered_map<Node*, NodeState> states_;
  std::unordered_map<Node*, std::vector<Capture>> captures_;
  variable_list captured_;
};

}  // namespace detail

inline bool Node::should_compute_output(std::size_t i) const {
  const Edge& edge = next_edges_.at(i);
  if (!edge.valid()) return false;
  const detail::GraphTask* task = detail::GraphTask::running();
  return task == nullptr || task->needs(edge.function.get());
}

/// Runs backward from `roots` with their gradients. With `capture_at`
/// empty, gradients accumulate into the leaves; otherwise the gradients
/// arriving at those edges are returned (in order) and leaves are untouched.
inline variable_list run_backward(const std::vector<Edge>& roots, variable_list root_grads, bool keep_graph,
                                  bool create_graph, const std::vector<Edge>& capture_at = {}) {
  AutoGradMode mode(create_graph);
  detail::GraphTask task(keep_graph, !capture_at.empty());
  for (std::size_t i = 0; i < capture_at.size(); ++i) task.add_capture(capture_at[i], i);
  return task.run(roots, std::move(root_grads), capture_at.size());
}

}  // namespace tensorlib::autograd
