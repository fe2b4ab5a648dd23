#pragma once
/// \file
/// Custom differentiable functions (PyTorch's torch.autograd.Function,
/// LibTorch's torch::autograd::Function):
///
///     struct Exp : tl::autograd::Function<Exp> {
///       static tl::Tensor<double> forward(tl::autograd::FunctionCtx& ctx, const tl::Tensor<double>& x) {
///         tl::Tensor<double> y = tl::exp(x);
///         ctx.save_for_backward(y);
///         return y;
///       }
///       static std::vector<tl::Tensor<double>> backward(tl::autograd::FunctionCtx& ctx,
///                                                       const std::vector<tl::Tensor<double>>& grads) {
///         return {grads[0] * ctx.saved_tensors()[0].as<double>()};
///       }
///     };
///     auto y = Exp::apply(x);
///
/// `forward(ctx, args...)` takes any arguments (tensors of any element type
/// and anything else, passed through) and returns a `Tensor<T>` or a
/// `std::vector<Tensor<T>>`; it runs without recording. `backward(ctx,
/// grads)` gets one gradient per output (zeros for an output that got none)
/// and returns one gradient per tensor argument, in order (undefined for
/// none; those of arguments that need no gradient are ignored). When no
/// tensor argument requires grad (or grad mode is off), `apply` just calls
/// forward.
///
/// The context: `save_for_backward(tensors...)` / `saved_tensors()`
/// (version-checked: modifying one in place before backward is an error, as
/// for built-in ops; freed after a backward without retain_graph),
/// `mark_dirty(tensors...)` (inputs forward modified in place and returns:
/// their history moves onto this node), `mark_non_differentiable(outputs...)`
/// (no gradient flows from them; non-floating outputs are so anyway),
/// `needs_input_grad(i)` (over the tensor arguments), and `saved_data`, a
/// map for anything else backward needs.
///
/// An output that is a tensor argument returned unchanged (not marked
/// dirty) comes back as a new tensor sharing its memory, so the input's own
/// history is untouched (PyTorch returns a view). A saved tensor that is an
/// output is kept without its history, so the node does not own itself, and
/// gets it back when unpacked (a new alias that is the node's output), so a
/// create_graph backward differentiates through it, as in PyTorch.

#include <any>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "tensorlib/autograd/accumulate_grad.hpp"
#include "tensorlib/autograd/node.hpp"
#include "tensorlib/autograd/saved_tensor.hpp"
#include "tensorlib/core/any_tensor.hpp"
#include "tensorlib/core/error.hpp"
#include "tensorlib/core/expression.hpp"
#include "tensorlib/core/grad_mode.hpp"
#include "tensorlib/core/tensor.hpp"
#include "tensorlib/expr/traverse.hpp"
#include "tensorlib/ops/index_common.hpp"
#include "tensorlib/ops/reduce.hpp"

namespace tensorlib::autograd {
namespace detail {

template <class R>
struct FunctionOutput;
template <Element T>
struct FunctionOutput<Tensor<T>> {
  using element = T;
};
template <Element T>
struct FunctionOutput<std::vector<Tensor<T>>> {
  using element = T;
};

}  // namespace detail

/// What `forward` and `backward` of a custom function share.
class FunctionCtx {
 public:
  /// Saves tensors for backward (inputs or outputs of forward).
  template <Element... Ts>
  void save_for_backward(const Tensor<Ts>&... tensors) {
    saved_.clear();
    (saved_.push_back(Saved{AnyTensor(tensors), tensors.defined() ? tensors._version() : 0u, false, {}, 0}), ...);
  }
  /// The saved tensors, in order; `.as<T>()` gives them typed.
  variable_list saved_tensors() const {
    if (released_) detail::throw_freed_graph();
    variable_list out;
    for (const Saved& s : saved_) {
      if (s.data.defined()) {
        const uint32_t now = s.data.impl()->storage.version();
        if (now != s.version) detail::throw_modified_inplace("a tensor saved by a custom Function", now, s.version);
      }
      const std::shared_ptr<Node> node = s.node.lock();
      if (s.output && node) {  // a saved output gets its history back: a new alias, output of this node
        AnyTensor alias = s.data.visit([](const auto& t) { return AnyTensor(t.detach()); });
        AutogradMeta& meta = alias.impl()->autograd_meta();
        meta.grad_fn = node;
        meta.output_nr = s.output_nr;
        out.push_back(std::move(alias));
        continue;
      }
      out.push_back(s.data);
    }
    return out;
  }
  /// Declares inputs that forward modified in place (and returns).
  template <Element... Ts>
  void mark_dirty(const Tensor<Ts>&... tensors) {
    (dirty_.push_back(tensors.impl().get()), ...);
  }
  /// Declares outputs that are not differentiable.
  template <Element... Ts>
  void mark_non_differentiable(const Tensor<Ts>&... tensors) {
    (non_differentiable_.push_back(tensors.impl().get()), ...);
  }
  /// Whether tensor argument `i` (counting tensor arguments only) needs a gradient.
  bool needs_input_grad(std::size_t i) const {
    tensorlib::detail::check<IndexError>(i < needs_.size(), "needs_input_grad: index ", i, " out of range for ",
                                         needs_.size(), " tensor arguments");
    return needs_[i];
  }
  /// Anything else backward needs.
  std::map<std::string, std::any> saved_data;

 private:
  template <class Derived>
  friend struct Function;
  template <class Derived, Element T>
  friend class CustomFunctionBackward;

  struct Saved {
    AnyTensor data;
    uint32_t version;
    bool output = false;       // an output of this node, kept without history
    std::weak_ptr<Node> node;  // ... whose history unpacking restores,
    uint32_t output_nr = 0;    // so a create_graph backward differentiates through it
  };
  bool is_dirty(const TensorImpl* t) const {
    for (const TensorImpl* d : dirty_)
      if (d == t) return true;
    return false;
  }
  bool is_non_differentiable(const TensorImpl* t) const {
    for (const TensorImpl* d : non_differentiable_)
      if (d == t) return true;
    return false;
  }

  std::vector<Saved> saved_;
  std::vector<const TensorImpl*> dirty_, non_differentiable_;
  std::vector<bool> needs_;
  std::vector<Shape> input_shapes_;
  std::vector<ScalarType> input_dtypes_;
  bool released_ = false;
};

/// The node of one call of a custom function.
template <class Derived, Element T>
class CustomFunctionBackward final : public Node {
 public:
  variable_list apply(variable_list&& grads) override {
    std::vector<Tensor<T>> g;
    for (const AnyTensor& a : grads) g.push_back(a.as<T>());
    auto result = Derived::backward(ctx_, g);
    const std::size_t n = ctx_.needs_.size();
    tensorlib::detail::check<AutogradError>(result.size() == n, name(),
                                            ": function backward returned an incorrect number of gradients "
                                            "(expected ",
                                            n, ", got ", result.size(), ")");
    variable_list out;
    for (std::size_t i = 0; i < n; ++i) {
      if (!ctx_.needs_[i] || !result[i].defined()) {
        out.emplace_back();
        continue;
      }
      // A gradient with extra broadcast dimensions is summed back (PyTorch's validate_outputs).
      const Shape& want = ctx_.input_shapes_[i];
      const Shape got = result[i].sizes();
      tensorlib::detail::check<AutogradError>(got == want || ::tensorlib::detail::broadcasts_to(want, got), name(),
                                              ": function backward returned an invalid gradient at index ", i,
                                              " - got ", got, " but expected shape compatible with ", want);
      const auto summed = got == want ? result[i] : result[i].sum_to_size(want);
      // The gradient of an input of another floating type comes back in that type.
      if (ctx_.input_dtypes_[i] == AnyTensor(summed).dtype())
        out.push_back(AnyTensor(summed));
      else if (ctx_.input_dtypes_[i] == kFloat64)
        out.push_back(AnyTensor(summed.template to<double>()));
      else
        out.push_back(AnyTensor(summed.template to<float>()));
    }
    return out;
  }
  std::string name() const override { return "CustomFunctionBackward"; }
  void release_variables() override {
    ctx_.saved_.clear();
    ctx_.released_ = true;
  }
  FunctionCtx& ctx() { return ctx_; }

 private:
  FunctionCtx ctx_;
};

/// CRTP base of a custom function: `Derived::apply(args...)`.
template <class Derived>
struct Function {
  template <class... Args>
  static auto apply(const Args&... args) {
    static_assert(((!Expression<Args> || is_tensor_v<Args>)&&...),
                  "Function::apply: pass tensors, not unevaluated expressions (materialize with Tensor<T>(expr)), "
                  "so the graph sees them as inputs");
    using R = decltype(Derived::forward(std::declval<FunctionCtx&>(), args...));
    using T = typename detail::FunctionOutput<R>::element;
    auto node = std::make_shared<CustomFunctionBackward<Derived, T>>();
    FunctionCtx& ctx = node->ctx();
    std::vector<Edge> edges;
    std::vector<const TensorImpl*> inputs;
    const bool grad_mode = is_grad_enabled();
    (
        [&](const auto& a) {
          if constexpr (is_tensor_v<std::remove_cvref_t<decltype(a)>>) {
            ctx.needs_.push_back(grad_mode && a.defined() && a.requires_grad());
            ctx.input_shapes_.push_back(a.defined() ? a.sizes() : Shape{});
            ctx.input_dtypes_.push_back(a.dtype());
            inputs.push_back(a.impl().get());
            if (ctx.needs_.back())
              edges.push_back(gradient_edge(a));
            else
              edges.emplace_back();
          }
        }(args),
        ...);
    bool record = false;
    for (bool b : ctx.needs_) record = record || b;
    if (!record) {
      NoGradGuard guard;
      return Derived::forward(ctx, args...);
    }
    node->mutable_next_edges() = std::move(edges);
    R result;
    {
      NoGradGuard guard;
      result = Derived::forward(ctx, args...);
    }
    std::vector<const TensorImpl*> returned;
    if constexpr (std::is_same_v<R, Tensor<T>>) {
      returned.push_back(result.impl().get());
      attach(node, inputs, result);
    } else {
      for (Tensor<T>& out : result) {
        returned.push_back(out.impl().get());
        attach(node, inputs, out);
      }
    }
    for (const TensorImpl* d : ctx.dirty_) {
      bool found = false;
      for (const TensorImpl* r : returned) found = found || r == d;
      tensorlib::detail::check<AutogradError>(found,
                                              "mark_dirty: some tensors marked as dirty were not returned as "
                                              "outputs by forward");
    }
    // A saved output (or dirty input) would own its own node: keep it without
    // history, with a weak link that gives it back when unpacked.
    for (auto& s : ctx.saved_) {
      if (!s.data.defined()) continue;
      const Tensor<T>* match = nullptr;
      if constexpr (std::is_same_v<R, Tensor<T>>) {
        if (s.data.impl() == result.impl()) match = &result;
      } else {
        for (const Tensor<T>& out : result)
          if (s.data.impl() == out.impl()) match = &out;
      }
      if (!match) continue;
      s.data = AnyTensor(match->detach());
      if (match->grad_fn().get() == node.get()) {
        s.output = true;
        s.node = node;
        s.output_nr = match->output_nr();
      }
    }
    return result;
  }

 private:
  template <Element T>
  static void attach(const std::shared_ptr<CustomFunctionBackward<Derived, T>>& node,
                     const std::vector<const TensorImpl*>& inputs, Tensor<T>& out) {
    FunctionCtx& ctx = node->ctx();
    const TensorImpl* impl = out.impl().get();
    bool is_input = false;
    for (const TensorImpl* in : inputs) is_input = is_input || in == impl;
    if (ctx.is_dirty(impl)) {
      tensorlib::detail::check<AutogradError>(is_input,
                                              "mark_dirty: a tensor marked dirty must be an input of the function "
                                              "and returned by forward");
      tensorlib::detail::check<AutogradError>(!(out.requires_grad() && out.is_leaf()),
                                              "a leaf Variable that requires grad is being used in an in-place "
                                              "operation.");
    } else if (is_input) {
      out = out.detach();  // an unchanged input returned: a new tensor sharing its memory
    }
    if (!differentiable<T> || ctx.is_non_differentiable(impl)) {
      node->add_output({out.dtype(), out.sizes(), out.device()});
      return;
    }
    set_history(out, std::shared_ptr<Node>(node));
  }
};

}  // namespace tensorlib::autograd
