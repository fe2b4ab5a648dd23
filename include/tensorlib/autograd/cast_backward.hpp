#pragma once
/// \file
/// `CastBackward`: the node of a conversion between floating element types
/// (`x.to<double>()` of a tensor that requires grad), and `cast_recorded`,
/// which records it. The gradient is converted back, by the same recorded
/// conversion, so create_graph differentiates through it. A light node
/// rather than a fused one (Note [autograd's own arithmetic] in
/// autograd/accumulate_grad.hpp): FusedBackward converts every gradient it
/// returns with it.

#include <memory>
#include <string>

#include "tensorlib/autograd/accumulate_grad.hpp"
#include "tensorlib/autograd/node.hpp"
#include "tensorlib/core/any_tensor.hpp"
#include "tensorlib/core/tensor.hpp"
#include "tensorlib/expr/build.hpp"
#include "tensorlib/ops/evaluate.hpp"

namespace tensorlib::autograd {

template <Element To, Element From>
Tensor<To> cast_recorded(const Tensor<From>& x);

/// The node of `cast_recorded<To>` on a tensor of element type From.
template <Element From, Element To>
class CastBackward final : public Node {
 public:
  variable_list apply(variable_list&& grads) override {
    const AnyTensor& g = grads.at(0);
    if (!g.defined()) return {AnyTensor()};
    return {AnyTensor(cast_recorded<From>(g.as<To>()))};
  }
  std::string name() const override { return "ToCopyBackward0"; }
};

/// `x` converted to To (both floating), recorded as a CastBackward when
/// grad mode is on and `x` requires grad.
template <Element To, Element From>
Tensor<To> cast_recorded(const Tensor<From>& x) {
  static_assert(is_floating<To> && is_floating<From>, "cast_recorded: both element types must be floating point");
  Tensor<To> out = ::tensorlib::detail::evaluate(as_node<To>(x));
  if (compute_requires_grad(x)) {
    auto node = std::make_shared<CastBackward<From, To>>();
    node->mutable_next_edges() = collect_next_edges(x);
    set_history(out, node);
  }
  return out;
}

}  // namespace tensorlib::autograd
