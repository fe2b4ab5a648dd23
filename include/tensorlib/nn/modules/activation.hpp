#pragma once
/// \file
/// Activation modules (torch/nn/modules/activation.py). Each forward is the
/// fused expression of expr/ (one loop), evaluated into a tensor. The
/// parameter-free ones share one class template over a small function
/// object that names the module; the others hold their arguments.

#include <cstdint>
#include <string>
#include <string_view>

#include "tensorlib/core/config.hpp"
#include "tensorlib/core/tensor.hpp"
#include "tensorlib/expr/activations.hpp"
#include "tensorlib/expr/composites.hpp"
#include "tensorlib/expr/functions.hpp"
#include "tensorlib/nn/functional/layers.hpp"
#include "tensorlib/nn/module.hpp"
#include "tensorlib/nn/modules/linear.hpp"
#include "tensorlib/ops/factories.hpp"
#include "tensorlib/ops/softmax.hpp"

namespace tensorlib::nn {

namespace detail {

/// A module applying the function F, which has no arguments; `F::name` is
/// the module's name.
template <class F>
class Activation : public Module<Activation<F>, void> {
 public:
  static constexpr std::string_view name = F::name;
  static constexpr bool preserves_features = true;
  template <class T>
  Tensor<T> forward(const Tensor<T>& input) const {
    return Tensor<T>(F{}(input));
  }
};

// The functions of the parameter-free activation modules.
struct ReLUFunction {
  static constexpr std::string_view name = "ReLU";
  template <class E>
  auto operator()(const E& x) const {
    return tensorlib::relu(x);
  }
};
struct ReLU6Function {
  static constexpr std::string_view name = "ReLU6";
  template <class E>
  auto operator()(const E& x) const {
    return tensorlib::relu6(x);
  }
};
struct SELUFunction {
  static constexpr std::string_view name = "SELU";
  template <class E>
  auto operator()(const E& x) const {
    return tensorlib::selu(x);
  }
};
struct SiLUFunction {
  static constexpr std::string_view name = "SiLU";
  template <class E>
  auto operator()(const E& x) const {
    return tensorlib::silu(x);
  }
};
struct MishFunction {
  static constexpr std::string_view name = "Mish";
  template <class E>
  auto operator()(const E& x) const {
    return tensorlib::mish(x);
  }
};
struct SigmoidFunction {
  static constexpr std::string_view name = "Sigmoid";
  template <class E>
  auto operator()(const E& x) const {
    return tensorlib::sigmoid(x);
  }
};
struct TanhFunction {
  static constexpr std::string_view name = "Tanh";
  template <class E>
  auto operator()(const E& x) const {
    return tensorlib::tanh(x);
  }
};
struct SoftsignFunction {
  static constexpr std::string_view name = "Softsign";
  template <class E>
  auto operator()(const E& x) const {
    return tensorlib::softsign(x);
  }
};
struct HardsigmoidFunction {
  static constexpr std::string_view name = "Hardsigmoid";
  template <class E>
  auto operator()(const E& x) const {
    return tensorlib::hardsigmoid(x);
  }
};
struct HardswishFunction {
  static constexpr std::string_view name = "Hardswish";
  template <class E>
  auto operator()(const E& x) const {
    return tensorlib::hardswish(x);
  }
};
struct TanhshrinkFunction {
  static constexpr std::string_view name = "Tanhshrink";
  template <class E>
  auto operator()(const E& x) const {
    return tensorlib::tanhshrink(x);
  }
};
struct LogSigmoidFunction {
  static constexpr std::string_view name = "LogSigmoid";
  template <class E>
  auto operator()(const E& x) const {
    return tensorlib::logsigmoid(x);
  }
};

}  // namespace detail

/// `nn.ReLU()`, `nn.Sigmoid()`, ...: modules of the functions of the same names.
using ReLU = detail::Activation<detail::ReLUFunction>;
using ReLU6 = detail::Activation<detail::ReLU6Function>;
using SELU = detail::Activation<detail::SELUFunction>;
using SiLU = detail::Activation<detail::SiLUFunction>;
using Mish = detail::Activation<detail::MishFunction>;
using Sigmoid = detail::Activation<detail::SigmoidFunction>;
using Tanh = detail::Activation<detail::TanhFunction>;
using Softsign = detail::Activation<detail::SoftsignFunction>;
using Hardsigmoid = detail::Activation<detail::HardsigmoidFunction>;
using Hardswish = detail::Activation<detail::HardswishFunction>;
using Tanhshrink = detail::Activation<detail::TanhshrinkFunction>;
using LogSigmoid = detail::Activation<detail::LogSigmoidFunction>;

/// `nn.LeakyReLU(negative_slope)`.
class LeakyReLU : public Module<LeakyReLU, void> {
 public:
  static constexpr bool preserves_features = true;
  double negative_slope;
  explicit LeakyReLU(double slope = 0.01) : negative_slope(slope) {}
  template <class T>
  Tensor<T> forward(const Tensor<T>& input) const {
    return Tensor<T>(leaky_relu(input, negative_slope));
  }
  std::string extra_repr() const { return "negative_slope=" + detail::python_float(negative_slope); }
};

/// `nn.ELU(alpha)`.
class ELU : public Module<ELU, void> {
 public:
  static constexpr bool preserves_features = true;
  double alpha;
  explicit ELU(double a = 1.0) : alpha(a) {}
  template <class T>
  Tensor<T> forward(const Tensor<T>& input) const {
    return Tensor<T>(elu(input, alpha));
  }
  std::string extra_repr() const { return "alpha=" + detail::python_float(alpha); }
};

/// `nn.CELU(alpha)`.
class CELU : public Module<CELU, void> {
 public:
  static constexpr bool preserves_features = true;
  double alpha;
  explicit CELU(double a = 1.0) : alpha(a) {}
  template <class T>
  Tensor<T> forward(const Tensor<T>& input) const {
    return Tensor<T>(celu(input, alpha));
  }
  std::string extra_repr() const { return "alpha=" + detail::python_float(alpha); }
};

/// `nn.GELU(approximate)`: "none" or "tanh".
class GELU : public Module<GELU, void> {
 public:
  static constexpr bool preserves_features = true;
  std::string approximate;
  explicit GELU(std::string_view approx = "none") : approximate(approx) {}
  template <class T>
  Tensor<T> forward(const Tensor<T>& input) const {
    return Tensor<T>(gelu(input, approximate));
  }
  std::string extra_repr() const { return "approximate='" + approximate + "'"; }
};

/// `nn.Softplus(beta, threshold)`.
class Softplus : public Module<Softplus, void> {
 public:
  static constexpr bool preserves_features = true;
  double beta;
  double threshold;
  explicit Softplus(double b = 1.0, double t = 20.0) : beta(b), threshold(t) {}
  template <class T>
  Tensor<T> forward(const Tensor<T>& input) const {
    return Tensor<T>(softplus(input, beta, threshold));
  }
  std::string extra_repr() const {
    return "beta=" + detail::python_float(beta) + ", threshold=" + detail::python_float(threshold);
  }
};

/// `nn.Hardtanh(min_val, max_val)`.
class Hardtanh : public Module<Hardtanh, void> {
 public:
  static constexpr bool preserves_features = true;
  double min_val;
  double max_val;
  explicit Hardtanh(double lo = -1.0, double hi = 1.0) : min_val(lo), max_val(hi) {}
  template <class T>
  Tensor<T> forward(const Tensor<T>& input) const {
    return Tensor<T>(hardtanh(input, min_val, max_val));
  }
  std::string extra_repr() const {
    return "min_val=" + detail::python_float(min_val) + ", max_val=" + detail::python_float(max_val);
  }
};

/// `nn.Hardshrink(lambd)` and `nn.Softshrink(lambd)`.
class Hardshrink : public Module<Hardshrink, void> {
 public:
  static constexpr bool preserves_features = true;
  double lambd;
  explicit Hardshrink(double l = 0.5) : lambd(l) {}
  template <class T>
  Tensor<T> forward(const Tensor<T>& input) const {
    return Tensor<T>(hardshrink(input, lambd));
  }
  std::string extra_repr() const { return detail::python_float(lambd); }
};
class Softshrink : public Module<Softshrink, void> {
 public:
  static constexpr bool preserves_features = true;
  double lambd;
  explicit Softshrink(double l = 0.5) : lambd(l) {}
  template <class T>
  Tensor<T> forward(const Tensor<T>& input) const {
    return Tensor<T>(softshrink(input, lambd));
  }
  std::string extra_repr() const { return detail::python_float(lambd); }
};

/// `nn.Softmax(dim)`, `nn.LogSoftmax(dim)` and `nn.Softmin(dim)`.
class Softmax : public Module<Softmax, void> {
 public:
  static constexpr bool preserves_features = true;
  int64_t dim;
  explicit Softmax(int64_t d) : dim(d) {}
  template <class T>
  Tensor<T> forward(const Tensor<T>& input) const {
    return softmax(input, dim);
  }
  std::string extra_repr() const { return "dim=" + std::to_string(dim); }
};
class LogSoftmax : public Module<LogSoftmax, void> {
 public:
  static constexpr bool preserves_features = true;
  int64_t dim;
  explicit LogSoftmax(int64_t d) : dim(d) {}
  template <class T>
  Tensor<T> forward(const Tensor<T>& input) const {
    return log_softmax(input, dim);
  }
  std::string extra_repr() const { return "dim=" + std::to_string(dim); }
};
class Softmin : public Module<Softmin, void> {
 public:
  static constexpr bool preserves_features = true;
  int64_t dim;
  explicit Softmin(int64_t d) : dim(d) {}
  template <class T>
  Tensor<T> forward(const Tensor<T>& input) const {
    return functional::softmin(input, dim);
  }
  std::string extra_repr() const { return "dim=" + std::to_string(dim); }
};

/// `nn.GLU(dim)`.
class GLU : public Module<GLU, void> {
 public:
  int64_t dim;
  explicit GLU(int64_t d = -1) : dim(d) {}
  template <class T>
  Tensor<T> forward(const Tensor<T>& input) const {
    return functional::glu(input, dim);
  }
  std::string extra_repr() const { return "dim=" + std::to_string(dim); }
};

/// `nn.PReLU(num_parameters, init)`: a learned slope per channel (or one).
template <Element T = float>
class PReLU : public Module<PReLU<T>, T> {
 public:
  int64_t num_parameters;
  Tensor<T> weight;
  TENSORLIB_PARAMETERS(weight)

  explicit PReLU(int64_t n = 1, double init = 0.25) : num_parameters(n) {
    weight = full<T>({n}, static_cast<T>(init)).requires_grad_();
  }
  Tensor<T> forward(const Tensor<T>& input) const { return functional::prelu(input, weight); }
  std::string extra_repr() const { return "num_parameters=" + std::to_string(num_parameters); }
};

}  // namespace tensorlib::nn
