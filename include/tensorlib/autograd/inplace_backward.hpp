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
/// PyTorch.
///
/// The in-place indexing ops (index_add_, index_copy_, index_fill_, scatter_,
/// scatter_add_, masked_scatter_, index_put_ with a list of index tensors) run
/// their recorded out-of-place form on the clone and take its node
/// (`rebase_with`).
///
/// A write into a view (TensorImpl::view_base) goes through its base, as
/// PyTorch's CopySlices: the base is cloned (CloneBackward), the view's new
/// elements are computed out of place from the clone's view, written into the
/// view's memory, and the base's history becomes `copy_slices` of the clone
/// and those elements (the base's gradient with the view's positions zeroed,
/// the elements' gradient read at them); the view's history becomes a view of
/// the new base. So `y.narrow(0, 0, 2).mul_(3)` and `buffer.select(1, 0).copy_(w)`
/// differentiate as in PyTorch. Not built (NotImplementedError): writes into a
/// tensor whose memory other live tensors share (a base with live views, one
/// of several live views of a base, a view of a temporary view in the same
/// statement such as `t.t().select(0, 0).fill_(1)`, a detached alias, an
/// output saved for backward), whose histories PyTorch regenerates lazily; a view of a
/// non-contiguous base; index_put_ with a mixed list of slices and index
/// tensors; and the ops whose out-of-place forms do not differentiate (put_,
/// scatter_reduce_, scatter_ with a reduction).

#include <array>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "tensorlib/autograd/accumulate_grad.hpp"
#include "tensorlib/autograd/fused.hpp"
#include "tensorlib/autograd/node.hpp"
#include "tensorlib/autograd/op_backward.hpp"
#include "tensorlib/core/error.hpp"
#include "tensorlib/core/grad_mode.hpp"
#include "tensorlib/core/tensor.hpp"
#include "tensorlib/core/tuple.hpp"
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
    return tensorlib::detail::apply(
        [&](const auto&... c) { return N(node.functor(), replace_leaf(c, target, replacement)...); }, node.children());
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

/// Refuses what Note [in-place on graph tensors] does not build, changing
/// nothing (the random fills call it before they draw: ops/random_fill.hpp).
template <Element T>
void check_view_write(const Tensor<T>& dst, const char* op) {
  ::tensorlib::detail::check<AutogradError>(!(dst.requires_grad() && dst.is_leaf()), op,
                                            ": a leaf Variable that requires grad is being used in an in-place "
                                            "operation.");
  ::tensorlib::detail::check_no_internal_overlap(dst, op);
  // A view of a tensor nothing else holds (an op's internal temporary, e.g.
  // reshape's copy or matmul's batched result) is alone in its memory:
  // view_write drops such a base, and with it one user of the storage.
  const std::shared_ptr<TensorImpl>& held = dst.impl()->view_base;
  const TensorImpl* base = held && held.use_count() > 1 ? held.get() : nullptr;
  const long users = dst.storage().use_count() - (held && !base ? 1 : 0);
  if (users == 1) return;
  ::tensorlib::detail::check<NotImplementedError>(
      base && users == 2, op,
      ": an in-place write into a tensor that shares memory with other tensors (a base with live views, several "
      "views of one base, a detached alias or an output saved for backward) is not supported by autograd yet; use "
      "the out-of-place form");
  ::tensorlib::detail::check<AutogradError>(!(base->requires_grad() && !base->autograd->grad_fn), op,
                                            ": a view of a leaf Variable that requires grad is being used in an "
                                            "in-place operation.");
  ::tensorlib::detail::check<NotImplementedError>(
      !(dst.requires_grad() && !base->requires_grad()), op,
      ": the tensor has a history of its own but shares memory with a tensor that has none; use the out-of-place "
      "form");
  ::tensorlib::detail::check<NotImplementedError>(base->is_contiguous(), op,
                                                  ": an in-place write into a view of a non-contiguous tensor is not "
                                                  "supported by autograd yet; use the out-of-place form");
}

/// check_view_write, then drops a base nothing else holds; true when `dst`
/// is a view written through its base (CopySlices), false when it is alone
/// in its memory.
template <Element T>
bool view_write(const Tensor<T>& dst, const char* op) {
  check_view_write(dst, op);
  std::shared_ptr<TensorImpl>& base = dst.impl()->view_base;
  if (base && base.use_count() == 1) base.reset();
  return dst.storage().use_count() != 1;
}

/// `base` with the elements of the view (sizes, strides, offset from base's
/// start) replaced by `region`, recorded: base's gradient is the incoming
/// one with the view's positions zeroed, region's is the incoming one read
/// at those positions (PyTorch's CopySlices). `base` is contiguous.
template <Element T>
Tensor<T> copy_slices(const Tensor<T>& base, const Tensor<T>& region, const Shape& sizes, const Shape& strides,
                      int64_t offset) {
  Tensor<T> keep = ones<T>(base.sizes(), {.device = base.device()});
  {
    NoGradGuard no_grad;
    keep.as_strided(sizes, strides, offset).fill_(T(0));
  }
  auto formula = [keep, sizes, strides, offset](const std::vector<Tensor<T>>& g, const std::array<Tensor<T>, 0>&,
                                                const std::vector<bool>& needs) {
    std::vector<Tensor<T>> out(2);
    if (needs[0]) out[0] = Tensor<T>(g[0] * keep);
    if (needs[1]) {
      const Tensor<T> gc = g[0].contiguous();
      out[1] = gc.as_strided(sizes, strides, gc.storage_offset() + offset);
    }
    return out;
  };
  return record<T>(
      "CopySlices",
      [&] {
        Tensor<T> out = base.clone();
        out.as_strided(sizes, strides, offset).copy_(region);
        return out;
      },
      formula, std::array<SavedTensor<T>, 0>{}, base, region);
}

/// Makes `dst` share `from`'s place in the graph (its node and output).
template <Element T>
void adopt_history(const Tensor<T>& dst, const Tensor<T>& from) {
  AutogradMeta& meta = dst.impl()->autograd_meta();
  meta.grad_fn = from.grad_fn();
  meta.output_nr = from.output_nr();
}

/// The write into the view `dst` of its base (view_write): `region_of(old
/// view)` computes the view's new elements out of place from a clone of the
/// base; the base's history becomes a CopySlices of its old one, and the
/// view's a view of the new base.
template <Element T, class F>
void rebase_view(const Tensor<T>& dst, F&& region_of) {
  const Tensor<T> base(dst.impl()->view_base);
  const Shape sizes = dst.sizes(), strides = dst.strides();
  const int64_t offset = dst.storage_offset() - base.storage_offset();
  const Tensor<T> old_base = base.clone();
  Tensor<T> region = region_of(old_base.as_strided(sizes, strides, old_base.storage_offset() + offset));
  if (region.sizes() != sizes) region = region.expand(sizes);  // a broadcast source
  {
    NoGradGuard no_grad;
    ::tensorlib::detail::dispatch_pointwise(dst, region);
  }
  dst.storage().bump_version();
  if (!old_base.requires_grad() && !region.requires_grad()) return;
  adopt_history(base, copy_slices(old_base, region, sizes, strides, offset));
  adopt_history(dst, base.as_strided(sizes, strides, dst.storage_offset()));
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
  if (detail::view_write(dst, op)) {
    // The base read by the source would be both the written tensor's history
    // and an input of its new value (a cycle); PyTorch refuses such overlap too.
    for_each_tensor(src, [&](const auto& leaf) {
      ::tensorlib::detail::check<NotImplementedError>(
          leaf.impl() == dst.impl() || leaf.impl() != dst.impl()->view_base, op,
          ": the source reads the base of the view being written; clone() it first");
    });
    detail::rebase_view(dst, [&](const Tensor<T>& old_view) {
      return Tensor<T>(as_node<T>(detail::replace_leaf(src, dst.impl().get(), old_view)));
    });
    return;
  }
  const Edge old_history = gradient_edge(dst);
  bool reads_dst = false;
  for_each_tensor(src, [&](const auto& leaf) { reads_dst = reads_dst || leaf.impl() == dst.impl(); });
  const Tensor<T> old = reads_dst ? dst.clone() : Tensor<T>();
  const auto node = as_node<T>(detail::replace_leaf(src, dst.impl().get(), old));
  const bool needs = ::tensorlib::detail::records_grad(node);
  if (needs && node.shape() != dst.sizes()) {  // a broadcast source: its node, then the expansion's
    const Tensor<T> value(node);
    {
      NoGradGuard no_grad;
      ::tensorlib::detail::dispatch_pointwise(dst, value);
    }
    dst.storage().bump_version();
    detail::adopt_history(dst, value.expand(dst.sizes()));
    return;
  }
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
  if (detail::view_write(dst, op)) return detail::rebase_view(dst, std::forward<F>(out_of_place));
  const Edge old_history = gradient_edge(dst);
  const Tensor<T> result = out_of_place(dst.clone());
  {
    NoGradGuard no_grad;
    ::tensorlib::detail::dispatch_pointwise(dst, result);
  }
  dst.storage().bump_version();
  if (result.requires_grad())
    detail::adopt_history(dst, result);
  else if (old_history.valid())
    detail::record_zero_grad(dst, old_history, "CopyBackwards");
}

/// `dst.fill_(value)` with history: its old history gets a zero gradient.
template <Element T>
void fill_recorded(const Tensor<T>& dst, T value) {
  if (detail::view_write(dst, "fill_")) {
    detail::rebase_view(
        dst, [&](const Tensor<T>& old_view) { return full<T>(old_view.sizes(), value, {.device = dst.device()}); });
    return;
  }
  const Edge old_history = gradient_edge(dst);
  ::tensorlib::detail::dispatch_fill(dst, value);
  dst.storage().bump_version();
  detail::record_zero_grad(dst, old_history, "FillBackward");
}

}  // namespace tensorlib::autograd
