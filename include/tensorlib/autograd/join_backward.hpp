#pragma once
/// \file
/// The recording form of `cat` (declared in ops/join.hpp; `stack` is `cat`
/// of unsqueezed views, so it records through this too). Each input's
/// gradient is the slice of the incoming gradient its elements went to;
/// an input `cat` skipped (1-d and empty) gets an empty gradient. Inputs
/// that do not require grad get none.

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "tensorlib/autograd/accumulate_grad.hpp"
#include "tensorlib/autograd/node.hpp"
#include "tensorlib/core/grad_mode.hpp"
#include "tensorlib/core/tensor.hpp"
#include "tensorlib/ops/factories.hpp"
#include "tensorlib/ops/join.hpp"

namespace tensorlib::autograd {

template <Element T>
class CatBackward final : public Node {
 public:
  CatBackward(int64_t dim, std::vector<Shape> shapes, std::vector<bool> skipped)
      : dim_(dim), shapes_(std::move(shapes)), skipped_(std::move(skipped)) {}

  variable_list apply(variable_list&& grads) override {
    const Tensor<T> g = grads.at(0).as<T>();
    variable_list out;
    int64_t offset = 0;
    for (std::size_t i = 0; i < shapes_.size(); ++i) {
      if (skipped_[i]) {
        out.push_back(next_edges()[i].valid() ? AnyTensor(zeros<T>(shapes_[i], {.device = g.device()})) : AnyTensor());
        continue;
      }
      const int64_t n = shapes_[i][dim_];
      out.push_back(next_edges()[i].valid() ? AnyTensor(g.narrow(dim_, offset, n)) : AnyTensor());
      offset += n;
    }
    return out;
  }
  std::string name() const override { return "CatBackward"; }

 private:
  int64_t dim_;
  std::vector<Shape> shapes_;
  std::vector<bool> skipped_;
};

template <Element T>
Tensor<T> cat(const std::vector<Tensor<T>>& tensors, int64_t dim) {
  Tensor<T> out;
  {
    NoGradGuard guard;
    out = tensorlib::cat(tensors, dim);  // validates
  }
  std::vector<Shape> shapes;
  std::vector<bool> skipped;
  std::vector<Edge> edges;
  bool all_skipped = true;
  for (const auto& t : tensors) {
    shapes.push_back(t.sizes());
    skipped.push_back(::tensorlib::detail::skipped_in_cat(t));
    all_skipped = all_skipped && skipped.back();
    edges.push_back(gradient_edge(t));
  }
  // When every input is skipped, the output is empty and 1-d: any dim 0 works.
  const int64_t d = all_skipped ? 0 : wrap_dim(dim, out.dim(), "cat");
  auto node = std::make_shared<CatBackward<T>>(d, std::move(shapes), std::move(skipped));
  node->mutable_next_edges() = std::move(edges);
  set_history(out, node);
  return out;
}

}  // namespace tensorlib::autograd
