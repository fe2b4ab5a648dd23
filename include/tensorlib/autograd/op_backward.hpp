#pragma once
/// \file
/// `OpBackward`: the node of one non-pointwise op, written as a formula
/// over typed gradients and saved tensors, and `record`, which attaches it
/// to an op's result. Differentiable ops in ops/ start with
/// `if (detail::records_grad(x...)) return autograd::op(x...);`; the
/// autograd form runs the raw op under `NoGradGuard` (so the same line lets
/// it through) and records the node (Note [recording forms] in
/// docs/architecture.md).

#include <array>
#include <cstddef>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "tensorlib/autograd/accumulate_grad.hpp"
#include "tensorlib/autograd/node.hpp"
#include "tensorlib/autograd/saved_tensor.hpp"
#include "tensorlib/core/grad_mode.hpp"
#include "tensorlib/core/tensor.hpp"

namespace tensorlib::autograd {

/// A backward formula `f(grads, saved, needs)` -> one gradient per input
/// (undefined where `needs[i]` is false or the input gets none), with
/// `S` saved tensors unpacked (and version-checked) for it.
template <Element T, std::size_t S, class F>
class OpBackward final : public Node {
 public:
  OpBackward(std::string name, F f, std::array<SavedTensor<T>, S> saved)
      : name_(std::move(name)), f_(std::move(f)), saved_(std::move(saved)) {}

  variable_list apply(variable_list&& grads) override {
    std::array<Tensor<T>, S> saved;
    for (std::size_t i = 0; i != S; ++i) saved[i] = saved_[i].unpack(*this);
    std::vector<Tensor<T>> g;
    for (const AnyTensor& a : grads) g.push_back(a.as<T>());
    std::vector<bool> needs;
    for (const Edge& e : next_edges()) needs.push_back(e.valid());
    std::vector<Tensor<T>> r = f_(g, saved, needs);
    variable_list out;
    for (std::size_t i = 0; i < r.size(); ++i) out.push_back(needs[i] ? AnyTensor(r[i]) : AnyTensor());
    return out;
  }
  std::string name() const override { return name_; }
  /// Saves a tensor after construction (a node's own output, which only
  /// exists once the node does).
  void set_saved(std::size_t i, SavedTensor<T> saved) { saved_.at(i) = std::move(saved); }
  void release_variables() override {
    for (auto& s : saved_) s.release();
  }

 private:
  std::string name_;
  F f_;
  std::array<SavedTensor<T>, S> saved_;
};

namespace detail {

template <Element T, class... Ts>
std::array<SavedTensor<T>, sizeof...(Ts)> save_all(const Ts&... saved) {
  return {SavedTensor<T>(saved, false)...};
}

}  // namespace detail

/// Runs `raw()` without recording and returns its result with a node of
/// formula `f` (saving `saved`) as history, edges to `inputs` in order.
template <Element T, class Raw, class F, std::size_t S, class... Inputs>
Tensor<T> record(const char* name, Raw&& raw, F f, std::array<SavedTensor<T>, S> saved, const Inputs&... inputs) {
  Tensor<T> out;
  {
    NoGradGuard guard;
    out = raw();
  }
  auto node = std::make_shared<OpBackward<T, S, F>>(name, std::move(f), std::move(saved));
  node->mutable_next_edges() = collect_next_edges(inputs...);
  set_history(out, node);
  return out;
}

/// `record` for a formula that also needs the op's output: the node saves
/// `saved` and then the output, as its last saved tensor (s[S]). The output
/// is saved once it has its history, so a backward with create_graph sees
/// it as this node's output again.
template <Element T, class Raw, class F, std::size_t S, class... Inputs>
Tensor<T> record_with_output(const char* name, Raw&& raw, F f, std::array<SavedTensor<T>, S> saved,
                             const Inputs&... inputs) {
  Tensor<T> out;
  {
    NoGradGuard guard;
    out = raw();
  }
  std::array<SavedTensor<T>, S + 1> all;
  for (std::size_t i = 0; i != S; ++i) all[i] = std::move(saved[i]);
  auto node = std::make_shared<OpBackward<T, S + 1, F>>(name, std::move(f), std::move(all));
  node->mutable_next_edges() = collect_next_edges(inputs...);
  set_history(out, node);
  node->set_saved(S, SavedTensor<T>(out, true));
  return out;
}

/// Saves tensors for `record` (inputs of the node, not its output).
template <Element T, class... Ts>
std::array<SavedTensor<T>, sizeof...(Ts)> save(const Ts&... tensors) {
  return detail::save_all<T>(tensors...);
}

}  // namespace tensorlib::autograd
