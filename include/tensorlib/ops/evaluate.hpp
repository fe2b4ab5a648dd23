#pragma once
/// \file
/// Materializing expressions: `evaluate` (the raw evaluation behind a tensor
/// constructed from an expression and `.eval()`, which autograd/fused.hpp
/// defines because they record the graph) and every write into existing
/// memory (`copy_`, in-place ops, assignment to a view), with the alias
/// check below.
///
/// Note [alias-safe writes]
/// Writing `src` into `dst` in one pass is safe when each source leaf that
/// shares memory with `dst` reads exactly the element being written (same
/// address, same strides: `x += y`, `x.copy_(x * 2)`). Any other overlap
/// (`x.copy_(x.t())`, `x.slice(0, 1) = x.slice(0, 0, -1)`) would read values
/// already overwritten, so `src` is first evaluated into a temporary. Byte
/// ranges decide "overlap", so disjoint views of one storage stay one pass.

#include <cstdint>
#include <type_traits>
#include <utility>
#include <vector>

#include "tensorlib/core/error.hpp"
#include "tensorlib/core/expression.hpp"
#include "tensorlib/core/grad_mode.hpp"
#include "tensorlib/core/tensor.hpp"
#include "tensorlib/expr/broadcast.hpp"
#include "tensorlib/expr/build.hpp"
#include "tensorlib/expr/traverse.hpp"
#include "tensorlib/ops/dispatch.hpp"
#include "tensorlib/ops/factories.hpp"

namespace tensorlib {
namespace autograd {

// The recording forms of in-place writes (autograd/inplace_backward.hpp).
template <Element T, Expression E>
void write_recorded(const Tensor<T>& dst, const E& src, const char* op);
template <Element T>
void fill_recorded(const Tensor<T>& dst, T value);
template <Element T, class F>
void rebase_with(const Tensor<T>& dst, const char* op, F&& out_of_place);
namespace detail {
template <Element T>
void check_view_write(const Tensor<T>& dst, const char* op);
}  // namespace detail

}  // namespace autograd

namespace detail {

/// Evaluates an expression into a new contiguous tensor on its device.
template <Expression E>
Tensor<value_type_t<E>> evaluate(const E& expr) {
  auto out = empty<value_type_t<E>>(expr.shape(), {.device = expr.device()});
  dispatch_pointwise(out, expr);
  return out;
}

/// The expression of a constructor of Tensor<T>: the element types must agree.
template <Element T, Expression E>
const E& checked_same_type(const E& expr) {
  static_assert(std::is_same_v<value_type_t<E>, T>,
                "Tensor<T>: the expression has a different element type; convert it explicitly with .to<T>()");
  return expr;
}

// Lowest and one-past-highest byte a view touches.
template <Element T>
std::pair<const char*, const char*> byte_range(const Tensor<T>& t) {
  const char* p = reinterpret_cast<const char*>(t.data_ptr());
  int64_t lo = 0, hi = 0;
  for (int64_t d = 0; d < t.dim(); ++d) {
    const int64_t span = (t.size(d) - 1) * t.stride(d);
    (span < 0 ? lo : hi) += span;
  }
  return {p + lo * static_cast<int64_t>(sizeof(T)), p + (hi + 1) * static_cast<int64_t>(sizeof(T))};
}

// True when `leaf`, broadcast to dst's shape, reads exactly the elements of dst.
template <Element T, Element U>
bool reads_same_elements(const Tensor<U>& leaf, const Tensor<T>& dst) {
  if (sizeof(T) != sizeof(U) || static_cast<const void*>(leaf.data_ptr()) != static_cast<const void*>(dst.data_ptr()))
    return false;
  const Shape s = broadcast_strides(leaf.sizes(), leaf.strides(), dst.sizes());
  for (int64_t d = 0; d < dst.dim(); ++d)
    if (dst.size(d) > 1 && s[d] != dst.stride(d)) return false;
  return true;
}

/// Rejects a destination in which several elements share one memory location
/// (an expanded tensor): concurrent writes to it would race (PyTorch's check).
/// A tensor without elements has none to share, expanded or not.
template <Element T>
void check_no_internal_overlap(const Tensor<T>& dst, const char* op) {
  if (dst.numel() == 0) return;
  for (int64_t d = 0; d < dst.dim(); ++d) {
    detail::check<ValueError>(dst.stride(d) != 0 || dst.size(d) <= 1, op,
                              ": unsupported operation: more than one element of the written-to tensor refers to a "
                              "single memory location. Please clone() the tensor before performing the operation.");
  }
}

/// True when an op on these operands (tensors or expressions) must record
/// the graph: grad mode is on and a tensor leaf requires grad.
template <class... Es>
bool records_grad(const Es&... operands) {
  if (!is_grad_enabled()) return false;
  bool any = false;
  (for_each_tensor(operands, [&](const auto& leaf) { any = any || leaf.requires_grad(); }), ...);
  return any;
}

/// Refuses a float16/bfloat16 result computed from operands that require
/// grad: autograd does not follow those types yet (Note [reduced floats]),
/// and a result without history would silently drop the gradient.
template <Element T, class... Es>
void refuse_untracked_grad(const char* op, const Es&... operands) {
  if constexpr (is_reduced_float<T>)
    check<TypeError>(!records_grad(operands...), op, ": autograd does not follow ", DTypeTraits<T>::name,
                     " results yet; compute in float, or under tl::NoGradGuard");
}

/// Note [views made under no_grad]
/// PyTorch refuses an in-place write, with grad mode on, into a view made
/// under no_grad of a tensor that requires grad: whether the write should
/// reach the base's history is ambiguous. Such a view is the one that does
/// not require grad while its base does (a view made with grad mode on
/// records a node). PyTorch also refuses such a view of a tensor that does
/// not require grad when the written value does; here that write is
/// recorded through the base (Note [in-place on graph tensors]), as a view
/// made with grad mode on would be. The test reads the view's state, not
/// how it was made (PyTorch's CreationMeta): a view made with grad mode on
/// of a leaf that only later called requires_grad_() is refused with this
/// message too, where PyTorch says "a view of a leaf Variable that requires
/// grad"; both are AutogradErrors.
inline void check_not_no_grad_view(const TensorImpl& t, const char* op) {
  const TensorImpl* base = t.view_base.get();
  check<AutogradError>(!(base && base->requires_grad() && !t.requires_grad()), op,
                       ": A view was created in no_grad mode and is being modified inplace with grad mode enabled. "
                       "Given that this use case is ambiguous and error-prone, it is forbidden. You can clarify your "
                       "code by moving both the view and the inplace either both inside the no_grad block (if you "
                       "don't want the inplace to be tracked) or both outside (if you want the inplace to be "
                       "tracked).");
}

/// Starts an in-place write into `dst`: refuses what autograd cannot follow
/// yet and records the write in the version counter that saved tensors check.
/// `other_requires_grad`: a tensor written into `dst` requires grad.
template <Element T>
void begin_inplace(const Tensor<T>& dst, const char* op, bool other_requires_grad) {
  if (is_grad_enabled()) check_not_no_grad_view(*dst.impl(), op);
  if (is_grad_enabled() && dst.requires_grad()) {
    check<AutogradError>(!dst.is_leaf(), op,
                         ": a leaf Variable that requires grad is being used in an in-place operation.");
  }
  check<NotImplementedError>(!is_grad_enabled() || (!dst.requires_grad() && !other_requires_grad), op,
                             ": this in-place op on tensors that take part in autograd is not implemented yet "
                             "(the pointwise in-place ops are); use the out-of-place form");
  dst.storage().bump_version();
}

/// Whether an in-place write into `t`, with grad mode on, must go through
/// autograd besides its sources': it requires grad. Refuses a view made
/// under no_grad (Note [views made under no_grad]).
template <Element T>
bool in_graph(const Tensor<T>& t, const char* op) {
  check_not_no_grad_view(*t.impl(), op);
  return t.requires_grad();
}

/// An in-place op on a tensor that takes part in autograd (it requires grad,
/// or `other_requires_grad`), run through its recorded out-of-place form
/// (Note [in-place on graph tensors]): `out_of_place(old)` computes the
/// result from self's old value. True when it ran.
template <Element T, class F>
bool inplace_through(const Tensor<T>& self, const char* op, bool other_requires_grad, F&& out_of_place) {
  if constexpr (differentiable<T> && !is_dual_tag(scalar_type_of<T>)) {
    if (is_grad_enabled() && (in_graph(self, op) || other_requires_grad)) {
      autograd::rebase_with(self, op, std::forward<F>(out_of_place));
      return true;
    }
  }
  return false;
}

/// The checks of a write of `src` into `dst` (shapes, devices, internal
/// overlap); true when `src` reads memory of `dst` other than the elements
/// each output element overwrites (Note [alias-safe writes]).
template <Element T, Expression E>
bool check_write(const Tensor<T>& dst, const E& src, const char* op) {
  const Shape shape = broadcast_shapes(dst.sizes(), src.shape(), op);
  detail::check<ShapeError>(shape == dst.sizes(), op, ": output with shape ", dst.sizes(),
                            " doesn't match the broadcast shape ", shape);
  if (src.device() != dst.device()) throw_device_mismatch(op, dst.device(), src.device());
  check_no_internal_overlap(dst, op);
  bool overlap = false;
  for_each_tensor(src, [&](const auto& leaf) {
    if (overlap || !leaf.storage().is_alias_of(dst.storage()) || reads_same_elements(leaf, dst)) return;
    const auto [a0, a1] = byte_range(leaf);
    const auto [b0, b1] = byte_range(dst);
    overlap = a0 < b1 && b0 < a1;
  });
  return overlap;
}

/// The write itself, once `check_write` has passed: never recorded.
template <Element T, Expression E>
void write_checked(const Tensor<T>& dst, const E& src, const char* op, bool overlap, bool src_requires_grad) {
  begin_inplace(dst, op, src_requires_grad);
  const auto node = as_node<T>(src);
  if (overlap)
    dispatch_pointwise(dst, evaluate(node));
  else
    dispatch_pointwise(dst, node);
}

/// Writes `src` (broadcast and converted to T) into the memory of `dst`,
/// alias-safely (Note [alias-safe writes]). `op` names the caller in errors.
/// On an error raised while writing (integer division by zero), elements
/// already written keep their new values (the basic guarantee).
template <Element T, Expression E>
void write_into(const Tensor<T>& dst, const E& src, const char* op) {
  const bool overlap = check_write(dst, src, op);
  bool src_requires_grad = false;
  for_each_tensor(src, [&](const auto& leaf) { src_requires_grad = src_requires_grad || leaf.requires_grad(); });
  if constexpr (differentiable<T> && !is_dual_tag(scalar_type_of<T>)) {
    if (is_grad_enabled() && (in_graph(dst, op) || src_requires_grad))
      return autograd::write_recorded(dst, src, op);  // Note [in-place on graph tensors]
  } else if constexpr (is_reduced_float<T>) {
    check<TypeError>(!is_grad_enabled() || !src_requires_grad, op, ": autograd does not follow ", DTypeTraits<T>::name,
                     " tensors yet; write under tl::NoGradGuard or detach() the source");
  }
  write_checked(dst, src, op, overlap, src_requires_grad);
}

/// `write_into` for a caller that records nothing (autograd's own gradient
/// accumulation, Note [autograd's own arithmetic]): it does not instantiate
/// the recorded path. Call it with grad mode off.
template <Element T, Expression E>
void write_unrecorded(const Tensor<T>& dst, const E& src, const char* op) {
  write_checked(dst, src, op, check_write(dst, src, op), false);
}

}  // namespace detail

template <Element T>
Tensor<T>& Tensor<T>::operator=(const Tensor& src) && {
  detail::write_into(*this, src, "copy_");
  return *this;
}

template <Element T>
template <ForeignExpression<T> E>
Tensor<T>& Tensor<T>::operator=(const E& src) && {
  detail::write_into(*this, src, "copy_");
  return *this;
}

template <Element T>
template <Scalar S>
Tensor<T>& Tensor<T>::operator=(S value) && {
  return this->fill_(detail::checked_scalar_cast<T>(value));
}

template <Element T>
T Tensor<T>::item() const {
  detail::check<ValueError>(numel() == 1, "item: a Tensor with ", numel(), " elements cannot be converted to Scalar");
  if (!is_cpu()) return to(Device(kCPU)).item();
  return *data_ptr();
}

template <Element T>
bool Tensor<T>::is_nonzero() const {
  detail::check<ValueError>(numel() != 0, "is_nonzero: Boolean value of Tensor with no values is ambiguous");
  detail::check<ValueError>(numel() == 1, "is_nonzero: Boolean value of Tensor with more than one value is ambiguous");
  return item() != T(0);
}

template <Element T>
std::vector<T> Tensor<T>::to_vector() const {
  const Tensor c = is_cpu() ? contiguous() : to(Device(kCPU));
  const T* p = c.data_ptr();
  return std::vector<T>(p, p + c.numel());
}

}  // namespace tensorlib
