#pragma once
/// \file
/// Dropout modules (torch/nn/modules/dropout.py): active in training mode,
/// the identity in evaluation mode. Masks come from `tl::Generator` (the
/// default one unless given).

#include <string>
#include <string_view>

#include "tensorlib/core/config.hpp"
#include "tensorlib/core/error.hpp"
#include "tensorlib/core/generator.hpp"
#include "tensorlib/nn/functional/layers.hpp"
#include "tensorlib/nn/module.hpp"

namespace tensorlib::nn {

namespace detail {

/// A dropout module; F is its functional form, called as
/// F(input, p, training, generator).
template <class Derived, class F>
class DropoutBase : public Module<Derived, void> {
 public:
  static constexpr bool preserves_features = true;
  double p;
  Generator* generator;

  explicit DropoutBase(double probability, Generator& gen) : p(probability), generator(&gen) {
    tensorlib::detail::check<ValueError>(p >= 0 && p <= 1, "dropout probability has to be between 0 and 1, but got ",
                                         p);
  }
  template <class T>
  Tensor<T> forward(const Tensor<T>& input) const {
    return F{}(input, p, this->training, *generator);
  }
  std::string extra_repr() const { return "p=" + python_float(p) + ", inplace=False"; }
};

struct DropoutFunction {
  template <class T>
  Tensor<T> operator()(const Tensor<T>& x, double p, bool training, Generator& gen) const {
    return functional::dropout(x, p, training, gen);
  }
};
struct Dropout1dFunction {
  template <class T>
  Tensor<T> operator()(const Tensor<T>& x, double p, bool training, Generator& gen) const {
    return functional::dropout1d(x, p, training, gen);
  }
};
struct Dropout2dFunction {
  template <class T>
  Tensor<T> operator()(const Tensor<T>& x, double p, bool training, Generator& gen) const {
    return functional::dropout2d(x, p, training, gen);
  }
};
struct Dropout3dFunction {
  template <class T>
  Tensor<T> operator()(const Tensor<T>& x, double p, bool training, Generator& gen) const {
    return functional::dropout3d(x, p, training, gen);
  }
};
struct AlphaDropoutFunction {
  template <class T>
  Tensor<T> operator()(const Tensor<T>& x, double p, bool training, Generator& gen) const {
    return functional::alpha_dropout(x, p, training, gen);
  }
};

}  // namespace detail

/// `nn.Dropout(p)`: zeroes elements with probability p and scales the rest
/// by 1 / (1 - p) in training.
class Dropout : public detail::DropoutBase<Dropout, detail::DropoutFunction> {
 public:
  explicit Dropout(double probability = 0.5, Generator& gen = default_generator()) : DropoutBase(probability, gen) {}
};
/// `nn.Dropout1d(p)`: zeroes whole channels of (N, C, L).
class Dropout1d : public detail::DropoutBase<Dropout1d, detail::Dropout1dFunction> {
 public:
  explicit Dropout1d(double probability = 0.5, Generator& gen = default_generator()) : DropoutBase(probability, gen) {}
};
/// `nn.Dropout2d(p)`: zeroes whole channels of (N, C, H, W).
class Dropout2d : public detail::DropoutBase<Dropout2d, detail::Dropout2dFunction> {
 public:
  explicit Dropout2d(double probability = 0.5, Generator& gen = default_generator()) : DropoutBase(probability, gen) {}
};
/// `nn.Dropout3d(p)`: zeroes whole channels of (N, C, D, H, W).
class Dropout3d : public detail::DropoutBase<Dropout3d, detail::Dropout3dFunction> {
 public:
  explicit Dropout3d(double probability = 0.5, Generator& gen = default_generator()) : DropoutBase(probability, gen) {}
};
/// `nn.AlphaDropout(p)`: keeps SELU's mean and variance.
class AlphaDropout : public detail::DropoutBase<AlphaDropout, detail::AlphaDropoutFunction> {
 public:
  explicit AlphaDropout(double probability = 0.5, Generator& gen = default_generator())
      : DropoutBase(probability, gen) {}
};

}  // namespace tensorlib::nn
