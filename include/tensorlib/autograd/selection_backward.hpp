#pragma once
/// \file
/// The recording forms of the ops that select elements (declared in
/// ops/values_indices.hpp), with PyTorch's gradients:
///
/// * `record_selection`: ops returning (values, indices) along one dim
///   (max/min/median/nanmedian/kthvalue/mode with a dim, sort, topk,
///   cummax/cummin). The gradient goes to the selected positions only:
///   zeros of the input's shape with the incoming gradient added at
///   `indices` along the dim (PyTorch's value_selecting_reduction_backward;
///   a scatter-add, so cummax's repeated indices accumulate). The indices
///   are saved and version-checked like any saved tensor.
/// * `record_evenly`: reductions to extreme values (amax/amin over dims,
///   max()/min()/median()/nanmedian() of everything). Every element equal
///   to the result shares the gradient evenly (PyTorch's
///   scale_grad_by_count / evenly_distribute_backward); the NaN-aware form
///   (max(), min(), median(), nanmedian()) counts NaN elements as equal to
///   a NaN result.

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "tensorlib/autograd/accumulate_grad.hpp"
#include "tensorlib/autograd/node.hpp"
#include "tensorlib/autograd/op_backward.hpp"
#include "tensorlib/autograd/saved_tensor.hpp"
#include "tensorlib/core/dim_list.hpp"
#include "tensorlib/core/grad_mode.hpp"
#include "tensorlib/core/tensor.hpp"
#include "tensorlib/expr/functions.hpp"
#include "tensorlib/expr/operators.hpp"
#include "tensorlib/ops/factories.hpp"
#include "tensorlib/ops/gather_scatter.hpp"
#include "tensorlib/ops/reduce.hpp"
#include "tensorlib/ops/values_indices.hpp"

namespace tensorlib::autograd {

/// The node of a (values, indices) op: scatters the gradient of `values`
/// back to the input positions `indices` names along `dim`.
template <Element T>
class SelectionBackward final : public Node {
 public:
  SelectionBackward(std::string name, Shape input_shape, int64_t dim, bool keepdim, const Tensor<int64_t>& indices)
      : name_(std::move(name)),
        input_shape_(std::move(input_shape)),
        dim_(dim),
        keepdim_(keepdim),
        indices_(indices, false) {}

  variable_list apply(variable_list&& grads) override {
    const Tensor<int64_t> indices = indices_.unpack(*this);
    const Tensor<T> g = grads.at(0).as<T>();
    if (input_shape_.empty()) return {AnyTensor(g.reshape(input_shape_))};  // a 0-d input: the one element
    const Tensor<T> gk = keepdim_ ? g : g.unsqueeze(dim_);
    const Tensor<int64_t> ik = keepdim_ ? indices : indices.unsqueeze(dim_);
    return {AnyTensor(tensorlib::scatter_add(zeros<T>(input_shape_, {.device = g.device()}), dim_, ik, gk))};
  }
  std::string name() const override { return name_; }
  void release_variables() override { indices_.release(); }

 private:
  std::string name_;
  Shape input_shape_;
  int64_t dim_;
  bool keepdim_;
  SavedTensor<int64_t> indices_;
};

template <Element T, class Raw>
ValuesIndices<T> record_selection(const char* name, const Tensor<T>& x, int64_t dim, bool keepdim, Raw raw) {
  ValuesIndices<T> r;
  {
    NoGradGuard guard;
    r = raw(x);  // validates dim and the rest, naming the op
  }
  const int64_t d = x.dim() == 0 ? 0 : wrap_dim(dim, x.dim(), name);
  auto node = std::make_shared<SelectionBackward<T>>(name, x.sizes(), d, keepdim, r.indices);
  node->mutable_next_edges() = collect_next_edges(x);
  set_history(r.values, node);
  return r;
}

template <Element T, class Raw>
Tensor<T> record_evenly(const char* name, const Tensor<T>& x, DimList dims, bool nan_aware, Raw raw) {
  auto formula = [dims, nan_aware](const std::vector<Tensor<T>>& g, const std::array<Tensor<T>, 2>& s,
                                   const std::vector<bool>&) {
    const Tensor<T>& input = s[0];
    const Shape kept = ::tensorlib::detail::reduced_shape(
        input.sizes(), ::tensorlib::detail::reduce_mask(dims, input.dim(), "backward"), true);
    const Tensor<T> result = s[1].reshape(kept);
    Tensor<T> mask;
    if (nan_aware)
      mask = logical_or(eq(input, result), logical_and(isnan(input), isnan(result))).template to<T>();
    else
      mask = eq(input, result).template to<T>();
    const Tensor<T> count = tensorlib::sum(mask, dims, true);
    return std::vector<Tensor<T>>{Tensor<T>(g[0].reshape(kept) / count * mask)};
  };
  return record_with_output<T>(
      name, [&] { return raw(x); }, formula, save<T>(x), x);
}

}  // namespace tensorlib::autograd
