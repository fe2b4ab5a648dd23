#pragma once
/// \file
/// Recording a materialized pointwise expression as ONE graph node (DESIGN
/// 3.5), and the materializing constructors of `Tensor<T>` that do it.
///
/// Note [fused backward]
/// `FusedBackward<E>` keeps the expression itself: its tensor leaves are the
/// only tensors saved (no intermediate of the chain exists in memory, in the
/// forward or the backward). Its backward is one `adjoint_pass` over the
/// expression's broadcast shape computing grad * d expr / d leaf for every
/// leaf that needs a gradient (leaves that are the same tensor share a lane),
/// followed, only for leaves smaller than that shape, by a sum over the
/// broadcast dimensions (a deterministic reduction, no atomics). Integer and
/// bool leaves never get a lane.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tensorlib/autograd/accumulate_grad.hpp"
#include "tensorlib/autograd/adjoint_pass.hpp"
#include "tensorlib/autograd/node.hpp"
#include "tensorlib/autograd/saved_tensor.hpp"
#include "tensorlib/core/error.hpp"
#include "tensorlib/core/grad_mode.hpp"
#include "tensorlib/core/tensor.hpp"
#include "tensorlib/expr/map.hpp"
#include "tensorlib/expr/traverse.hpp"
#include "tensorlib/ops/evaluate.hpp"
#include "tensorlib/ops/factories.hpp"
#include "tensorlib/ops/reduce.hpp"
#include "tensorlib/ops/views.hpp"

namespace tensorlib::autograd {

/// The node of one materialized pointwise expression, or of a sum/mean of
/// one (Note [fused backward]).
template <class E>
class FusedBackward final : public Node {
 public:
  using T = value_type_t<E>;
  static constexpr int kLeaves = cpu::leaf_count<E>;

  /// `name` appears in errors. A reduction of the expression passes the
  /// shape its incoming gradient is viewed as (reduced dims kept) and a
  /// scale (1/n for mean); a plain materialization passes neither.
  explicit FusedBackward(const E& expr, std::string name = default_name(), std::optional<Shape> grad_view = {},
                         double scale = 1.0)
      : expr_(expr), name_(std::move(name)), grad_view_(std::move(grad_view)), scale_(scale) {
    std::vector<Edge> edges;
    std::vector<const TensorImpl*> lane_owner;
    int position = 0;
    for_each_tensor(*expr_, [&](const auto& leaf) {
      using L = typename std::remove_cvref_t<decltype(leaf)>::value_type;
      versions_[position] = leaf._version();
      int lane = -1;
      if constexpr (is_floating<L>) {
        if (leaf.requires_grad()) {
          for (std::size_t l = 0; l < lane_owner.size(); ++l)
            if (lane_owner[l] == leaf.impl().get()) lane = static_cast<int>(l);
          if (lane < 0) {
            lane = static_cast<int>(lane_owner.size());
            lane_owner.push_back(leaf.impl().get());
            edges.push_back(gradient_edge(leaf));
            lane_shapes_.push_back(leaf.sizes());
            lane_dtypes_.push_back(leaf.dtype());
          }
        }
      }
      lanes_[position++] = lane;
    });
    mutable_next_edges() = std::move(edges);
  }

  variable_list apply(variable_list&& grads) override {
    if (released_) detail::throw_freed_graph();
    check_versions();
    ::tensorlib::detail::check<NotImplementedError>(
        !is_grad_enabled(), name(), ": create_graph=true through a fused pointwise expression is not implemented yet");
    Tensor<T> g = grads.at(0).as<T>();
    if (grad_view_) g = g.reshape(*grad_view_);
    if (scale_ != 1.0) g = Tensor<T>(g * static_cast<T>(scale_));
    std::vector<Tensor<T>> outs;
    for (std::size_t l = 0; l < lane_shapes_.size(); ++l)
      outs.push_back(empty<T>(expr_->shape(), {.device = g.device()}));
    adjoint_pass(outs, g, *expr_, lanes_);
    variable_list result;
    for (std::size_t l = 0; l < outs.size(); ++l) {
      Tensor<T> r = outs[l].sum_to_size(lane_shapes_[l]);
      if (lane_dtypes_[l] == kFloat32)
        result.emplace_back(r.template to<float>());
      else
        result.emplace_back(r.template to<double>());
    }
    return result;
  }
  std::string name() const override { return name_; }
  void release_variables() override {
    expr_.reset();
    released_ = true;
  }

 private:
  void check_versions() const {
    int position = 0;
    for_each_tensor(*expr_, [&](const auto& leaf) {
      const uint32_t saved = versions_[position++];
      if (leaf._version() == saved) return;
      throw AutogradError(::tensorlib::detail::concat(
          "one of the variables needed for gradient computation has been modified by an inplace operation: [",
          DTypeTraits<typename std::remove_cvref_t<decltype(leaf)>::value_type>::name, " ", leaf.sizes(),
          "], which is an input of ", name(), ", is at version ", leaf._version(), "; expected version ", saved,
          " instead. Hint: the backward of that op needs the value the tensor had before the write; clone() it "
          "before modifying it in place."));
    });
  }

  static std::string default_name() {
    if constexpr (is_map_v<E>)
      return "FusedBackward[" + std::string(E::functor_type::name) + "]";
    else
      return "FusedBackward";
  }

  std::optional<E> expr_;  // reset when the graph is freed
  std::string name_;
  std::optional<Shape> grad_view_;
  double scale_;
  uint32_t versions_[kLeaves > 0 ? kLeaves : 1] = {};
  int lanes_[kLeaves > 0 ? kLeaves : 1] = {};
  std::vector<Shape> lane_shapes_;
  std::vector<ScalarType> lane_dtypes_;
  bool released_ = false;
};

/// Evaluates `expr` into a new tensor and, when grad mode is on and a leaf
/// requires grad, records it as one `FusedBackward` node.
template <Expression E>
Tensor<value_type_t<E>> materialize(const E& expr) {
  Tensor<value_type_t<E>> out = ::tensorlib::detail::evaluate(expr);
  if constexpr (is_map_v<E> && is_floating<value_type_t<E>> && floating_leaf_count < E >> 0) {
    if (!is_grad_enabled()) return out;
    bool needs = false;
    for_each_tensor(expr, [&](const auto& leaf) { needs = needs || leaf.requires_grad(); });
    if (needs) set_history(out, std::make_shared<FusedBackward<E>>(expr));
  }
  return out;
}

}  // namespace tensorlib::autograd

namespace tensorlib {

template <Element T>
template <ForeignExpression<T> E>
Tensor<T>::Tensor(const E& expr) : Tensor(autograd::materialize(detail::checked_same_type<T>(expr))) {}

template <Element T>
template <ForeignExpression<T> E>
Tensor<T>& Tensor<T>::operator=(const E& expr) & {
  return *this = Tensor<T>(expr);
}

template <Functor F, Node... Cs>
Tensor<typename Map<F, Cs...>::value_type> Map<F, Cs...>::eval() const {
  return autograd::materialize(*this);
}

}  // namespace tensorlib

// The backward above reshapes and sums (sum_to_size), whose recording forms
// include this header: included last, so each is complete wherever either is.
#include "tensorlib/autograd/reduction_backward.hpp"  // IWYU pragma: keep
#include "tensorlib/autograd/view_backward.hpp"       // IWYU pragma: keep
