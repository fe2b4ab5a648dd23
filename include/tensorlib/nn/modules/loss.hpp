#pragma once
/// \file
/// Loss modules (torch/nn/modules/loss.py) over nn/functional's losses.
/// Losses with a class `weight` keep it as a buffer (PyTorch's
/// `_WeightedLoss`), so they are templates over its element type.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "tensorlib/core/config.hpp"
#include "tensorlib/nn/functional/cross_entropy.hpp"
#include "tensorlib/nn/functional/loss.hpp"
#include "tensorlib/nn/module.hpp"
#include "tensorlib/nn/modules/linear.hpp"

namespace tensorlib::nn {

/// The options of the class-index losses.
template <class T>
struct CrossEntropyLossOptions {
  Tensor<T> weight{};
  int64_t ignore_index = -100;
  std::string_view reduction = "mean";
  double label_smoothing = 0.0;
};

/// `nn.CrossEntropyLoss(weight, ignore_index, reduction, label_smoothing)`:
/// forward(logits, class indices) or forward(logits, class probabilities).
template <Element T = float>
class CrossEntropyLoss : public Module<CrossEntropyLoss<T>, void> {
 public:
  Tensor<T> weight;
  int64_t ignore_index;
  std::string reduction;
  double label_smoothing;
  TENSORLIB_BUFFERS(weight)

  explicit CrossEntropyLoss(const CrossEntropyLossOptions<T>& options = {})
      : weight(options.weight),
        ignore_index(options.ignore_index),
        reduction(options.reduction),
        label_smoothing(options.label_smoothing) {}
  Tensor<T> forward(const Tensor<T>& input, const Tensor<int64_t>& target) const {
    return functional::cross_entropy(input, target, detail::optional_of(weight), ignore_index, reduction,
                                     label_smoothing);
  }
  Tensor<T> forward(const Tensor<T>& input, const Tensor<T>& target) const {
    return functional::cross_entropy(input, target, detail::optional_of(weight), ignore_index, reduction,
                                     label_smoothing);
  }
};

/// `nn.NLLLoss(weight, ignore_index, reduction)` over log-probabilities.
template <Element T = float>
class NLLLoss : public Module<NLLLoss<T>, void> {
 public:
  Tensor<T> weight;
  int64_t ignore_index;
  std::string reduction;
  TENSORLIB_BUFFERS(weight)

  explicit NLLLoss(const CrossEntropyLossOptions<T>& options = {})
      : weight(options.weight), ignore_index(options.ignore_index), reduction(options.reduction) {}
  Tensor<T> forward(const Tensor<T>& input, const Tensor<int64_t>& target) const {
    return functional::nll_loss(input, target, detail::optional_of(weight), ignore_index, reduction);
  }
};

/// `nn.BCELoss(weight, reduction)` over probabilities.
template <Element T = float>
class BCELoss : public Module<BCELoss<T>, void> {
 public:
  Tensor<T> weight;
  std::string reduction;
  TENSORLIB_BUFFERS(weight)

  explicit BCELoss(const Tensor<T>& w = {}, std::string_view r = "mean") : weight(w), reduction(r) {}
  Tensor<T> forward(const Tensor<T>& input, const Tensor<T>& target) const {
    return functional::binary_cross_entropy(input, target, detail::optional_of(weight), reduction);
  }
};

/// `nn.BCEWithLogitsLoss(weight, reduction, pos_weight)` over logits.
template <Element T = float>
class BCEWithLogitsLoss : public Module<BCEWithLogitsLoss<T>, void> {
 public:
  Tensor<T> weight;
  Tensor<T> pos_weight;
  std::string reduction;
  TENSORLIB_BUFFERS(weight, pos_weight)

  explicit BCEWithLogitsLoss(const Tensor<T>& w = {}, std::string_view r = "mean", const Tensor<T>& pos = {})
      : weight(w), pos_weight(pos), reduction(r) {}
  Tensor<T> forward(const Tensor<T>& input, const Tensor<T>& target) const {
    return functional::binary_cross_entropy_with_logits(input, target, detail::optional_of(weight), reduction,
                                                        detail::optional_of(pos_weight));
  }
};

/// `nn.MSELoss(reduction)` and `nn.L1Loss(reduction)`.
class MSELoss : public Module<MSELoss, void> {
 public:
  std::string reduction;
  explicit MSELoss(std::string_view r = "mean") : reduction(r) {}
  template <class T>
  Tensor<T> forward(const Tensor<T>& input, const Tensor<T>& target) const {
    return functional::mse_loss(input, target, reduction);
  }
};
class L1Loss : public Module<L1Loss, void> {
 public:
  std::string reduction;
  explicit L1Loss(std::string_view r = "mean") : reduction(r) {}
  template <class T>
  Tensor<T> forward(const Tensor<T>& input, const Tensor<T>& target) const {
    return functional::l1_loss(input, target, reduction);
  }
};

/// `nn.SmoothL1Loss(reduction, beta)` and `nn.HuberLoss(reduction, delta)`.
class SmoothL1Loss : public Module<SmoothL1Loss, void> {
 public:
  std::string reduction;
  double beta;
  explicit SmoothL1Loss(std::string_view r = "mean", double b = 1.0) : reduction(r), beta(b) {}
  template <class T>
  Tensor<T> forward(const Tensor<T>& input, const Tensor<T>& target) const {
    return functional::smooth_l1_loss(input, target, reduction, beta);
  }
};
class HuberLoss : public Module<HuberLoss, void> {
 public:
  std::string reduction;
  double delta;
  explicit HuberLoss(std::string_view r = "mean", double d = 1.0) : reduction(r), delta(d) {}
  template <class T>
  Tensor<T> forward(const Tensor<T>& input, const Tensor<T>& target) const {
    return functional::huber_loss(input, target, reduction, delta);
  }
};

/// `nn.KLDivLoss(reduction, log_target)`.
class KLDivLoss : public Module<KLDivLoss, void> {
 public:
  std::string reduction;
  bool log_target;
  explicit KLDivLoss(std::string_view r = "mean", bool log = false) : reduction(r), log_target(log) {}
  template <class T>
  Tensor<T> forward(const Tensor<T>& input, const Tensor<T>& target) const {
    return functional::kl_div(input, target, reduction, log_target);
  }
};

}  // namespace tensorlib::nn
