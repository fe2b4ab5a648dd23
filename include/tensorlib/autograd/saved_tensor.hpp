#pragma once
/// \file
/// `SavedTensor<T>`: a tensor a node keeps for its backward (PyTorch's
/// SavedVariable). It records the tensor's version when saved and refuses to
/// unpack after an in-place write or after the graph was freed.
///
/// A node's own output is kept detached, with a weak link to the node
/// (holding the output strongly would make a cycle node -> output -> node);
/// unpacking restores its history, so a differentiable backward
/// (`create_graph`) sees it as the node's output again. Other tensors are
/// kept as they are: their history is already owned by the node's edges
/// (Note [iterative graph destruction] in node.hpp).

#include <cstdint>
#include <memory>
#include <string>
#include <utility>

#include "tensorlib/autograd/node.hpp"
#include "tensorlib/core/error.hpp"
#include "tensorlib/core/tensor.hpp"

namespace tensorlib::autograd {
namespace detail {

[[noreturn]] inline void throw_freed_graph() {
  throw AutogradError(
      "Trying to backward through the graph a second time (or directly access saved tensors after they have already "
      "been freed). Saved intermediate values of the graph are freed when you call .backward() or autograd.grad(). "
      "Specify retain_graph=True if you need to backward through the graph a second time or if you need to access "
      "saved tensors after calling backward.");
}

/// Throws PyTorch's error for a tensor written in place after a node saved it.
/// `what` names the tensor ("[float [2, 3]], which is an input of MulBackward,").
[[noreturn]] inline void throw_modified_inplace(const std::string& what, uint32_t now, uint32_t saved) {
  throw AutogradError(::tensorlib::detail::concat(
      "one of the variables needed for gradient computation has been modified by an inplace operation: ", what,
      " is at version ", now, "; expected version ", saved,
      " instead. Hint: the backward of that op needs the value the tensor had before the write; clone() it "
      "before modifying it in place."));
}

}  // namespace detail

/// A tensor saved for backward.
template <Element T>
class SavedTensor {
 public:
  SavedTensor() = default;
  /// Saves `t`; `is_output` when `t` is an output of the saving node.
  SavedTensor(const Tensor<T>& t, bool is_output) : defined_(t.defined()), is_output_(is_output) {
    if (!defined_) return;
    version_ = t._version();
    if (is_output && t.requires_grad()) {
      data_ = t.detach();
      grad_fn_ = t.grad_fn();
      output_nr_ = t.output_nr();
      requires_grad_ = true;
    } else {
      data_ = t;
    }
  }

  /// The saved tensor; `node` names the saving node in errors.
  Tensor<T> unpack(const Node& node) const { return unpack(node.name()); }
  /// The saved tensor; `node_name` names the saving node in errors.
  Tensor<T> unpack(const std::string& node_name) const {
    if (!defined_) return {};
    if (released_) detail::throw_freed_graph();
    if (data_._version() != version_) {
      detail::throw_modified_inplace(
          ::tensorlib::detail::concat("[", DTypeTraits<T>::name, " ", data_.sizes(), "], which is ",
                                      is_output_ ? "output " + std::to_string(output_nr_) + " of " : "an input of ",
                                      node_name, ","),
          data_._version(), version_);
    }
    if (!requires_grad_) return data_;
    auto fn = grad_fn_.lock();
    Tensor<T> t = data_.detach();
    if (fn) {
      AutogradMeta& meta = t.impl()->autograd_meta();
      meta.grad_fn = std::move(fn);
      meta.output_nr = output_nr_;
    }
    return t;
  }
  /// Frees the tensor (after a backward without retain_graph).
  void release() {
    data_ = {};
    released_ = defined_;
  }

 private:
  Tensor<T> data_;
  std::weak_ptr<Node> grad_fn_;
  uint32_t output_nr_ = 0;
  uint32_t version_ = 0;
  bool defined_ = false;
  bool is_output_ = false;
  bool requires_grad_ = false;
  bool released_ = false;
};

}  // namespace tensorlib::autograd
