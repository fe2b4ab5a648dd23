#pragma once
/// \file
/// In-place pointwise ops on tensors that take part in autograd (declared in
/// ops/evaluate.hpp): the write rebases the tensor's history, as in PyTorch.
///
/// Note [in-place on graph tensors]
/// After `y.add_(x)` (y requires grad, or x does) y's grad_fn is the node of
/// `y_old + x`. It is the out-of-place op with y's old value as an operand:
///   1. y_old = y.clone() when the expression reads y (CloneBackward links it to
///      y's history); no copy when it does not (`y.copy_(x)`);
///   2. the expression, y's leaves replaced by y_old, is evaluated into y's
///      memory and recorded as one fused node (Note [fused backward]);
///   3. y's grad_fn becomes that node and its version is bumped, so a node that
///      saved y before the write refuses to use it (PyTorch's error).
/// A write whose new value needs no gradient (`fill_`, `zero_`, a copy of a
/// constant) records a node that gives y's old history a zero gradient, as
/// PyTorch's FillBackward does. A leaf that requires grad is refused, as in
/// PyTorch. Not built (NotImplementedError): a y that shares memory with another
/// tensor (a view, the base of a view, a detached alias, an output saved by its
/// own grad_fn), whose writes PyTorch propagates to the base's history
/// (CopySlices); and the in-place indexing ops (index_add_, scatter_,
/// masked_fill_, index_put_, ...), which still refuse graph tensors.

#include <memory>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "tensorlib/autograd/accumulate_grad.hpp"
#include "tensorlib/autograd/fused.hpp"
#include "tensorlib/autograd/node.hpp"
#include "tensorlib/core/error.hpp"
#include "tensorlib/core/grad_mode.hpp"
#include "tensorlib/core/tensor.hpp"
#include "tensorlib/expr/map.hpp"
#include "tensorlib/expr/traverse.hpp"
#include "tensorlib/ops/dispatch.hpp"
#include "tensorlib/ops/evaluate.hpp"
#include "tensorlib/ops/factories.hpp"

namespace tensorlib::autograd {

namespace detail {

/// The same expression with every leaf that is `target` (the same tensor
/// object) replaced by `replacement`.
template <class N, Element T>
N replace_leaf(const N& node, const TensorImpl* target, const Tensor<T>& replacement) {
  if constexpr (is_tensor_v<N>) {
    if constexpr (std::is_same_v<N, Tensor<T>>) return node.impl().get() == target ? replacement : node;
    return node;
  } else if constexpr (is_map_v<N>) {
    return std::apply([&](const auto&... c) { return N(node.functor(), replace_leaf(c, target, replacement)...); },
                      node.children());
  } else {
    return node;
  }
}

/// Gives the old history of an overwritten tensor a zero gradient.
class ZeroGradBackward final : public Node {
 public:
  explicit ZeroGradBackward(std::string name) : name_(std::move(name)) {}
  variable_list apply(variable_list&& grads) override {
    variable_list out;
    if (grads.at(0).defined())
      out.push_back(grads[0].visit([](const auto& g) { return AnyTensor(::tensorlib::zeros_like(g)); }));
    else
      out.emplace_back();
    return out;
  }
  std::string name() const override { return name_; }

 private:
  std::string name_;
};

/// Refuses what Note [in-place on graph tensors] does not build.
template <Element T>
void check_rebasable(const Tensor<T>& dst, const char* op) {
  ::tensorlib::detail::check<AutogradError>(!(dst.requires_grad() && dst.is_leaf()), op,
                                            ": a leaf Variable that requires grad is being used in an in-place "
                                            "operation.");
  ::tensorlib::detail::check<NotImplementedError>(
      dst.storage().use_count() == 1, op,
      ": an in-place write into a tensor that shares memory with another tensor (a view, the base of a view, a "
      "detached alias or an output saved for backward) is not supported by autograd yet (PyTorch's CopySlices); "
      "use the out-of-place form");
}

/// Makes `dst`'s history a node that gives its old history a zero gradient.
template <Element T>
void record_zero_grad(const Tensor<T>& dst, const Edge& old_history, const char* name) {
  auto node = std::make_shared<ZeroGradBackward>(name);
  node->mutable_next_edges() = {old_history};
  set_history(dst, node);
}

}  // namespace detail

/// `dst` <- `src` with history (Note [in-place on graph tensors]); `op` names
/// the in-place op. Grad mode is on and dst or a leaf of src requires grad.
template <Element T, Expression E>
void write_recorded(const Tensor<T>& dst, const E& src, const char* op) {
  detail::check_rebasable(dst, op);
  const Edge old_history = gradient_edge(dst);
  bool reads_dst = false;
  for_each_tensor(src, [&](const auto& leaf) { reads_dst = reads_dst || leaf.impl() == dst.impl(); });
  const Tensor<T> old = reads_dst ? dst.clone() : Tensor<T>();
  const auto node = as_node<T>(detail::replace_leaf(src, dst.impl().get(), old));
  const bool needs = ::tensorlib::detail::records_grad(node);
#if defined(TENSORLIB_NO_FUSED_BACKWARD)  // Note [no fused backward]; refused before writing
  if (needs) detail::throw_no_fused_backward();
#endif
  ::tensorlib::detail::dispatch_pointwise(dst, node);
  dst.storage().bump_version();
  if (!needs) {
    if (old_history.valid()) detail::record_zero_grad(dst, old_history, "CopyBackwards");
    return;
  }
#if !defined(TENSORLIB_NO_FUSED_BACKWARD)
  // A bare tensor is recorded as x * 1 (exact for every value), so that the
  // node is a fused expression like any other.
  if constexpr (is_tensor_v<std::remove_cvref_t<decltype(node)>>) {
    const auto times_one = node * T(1);
    set_history(dst, std::make_shared<FusedBackward<std::remove_cvref_t<decltype(times_one)>>>(times_one));
  } else {
    set_history(dst, std::make_shared<FusedBackward<std::remove_cvref_t<decltype(node)>>>(node));
  }
#endif
}

/// `dst` <- out_of_place(old value of dst), with history: the in-place
/// indexing ops through their recorded out-of-place forms. `dst` takes the
/// result's node as its history.
template <Element T, class F>
void rebase_with(const Tensor<T>& dst, const char* op, F&& out_of_place) {
  detail::check_rebasable(dst, op);
  const Edge old_history = gradient_edge(dst);
  const Tensor<T> result = out_of_place(dst.clone());
  {
    NoGradGuard no_grad;
    ::tensorlib::detail::dispatch_pointwise(dst, result);
  }
  dst.storage().bump_version();
  if (result.requires_grad()) {
    AutogradMeta& meta = dst.impl()->autograd_meta();
    meta.grad_fn = result.grad_fn();
    meta.output_nr = result.output_nr();
  } else if (old_history.valid()) {
    detail::record_zero_grad(dst, old_history, "CopyBackwards");
  }
}

/// `dst.fill_(value)` with history: its old history gets a zero gradient.
template <Element T>
void fill_recorded(const Tensor<T>& dst, T value) {
  detail::check_rebasable(dst, "fill_");
  const Edge old_history = gradient_edge(dst);
  ::tensorlib::detail::dispatch_fill(dst, value);
  dst.storage().bump_version();
  detail::record_zero_grad(dst, old_history, "FillBackward");
}

}  // namespace tensorlib::autograd
