#pragma once
/// \file
/// `gradcheck` and `gradgradcheck` (PyTorch's torch.autograd.gradcheck and
/// gradgradcheck): compare the gradients the graph computes with central
/// finite differences, in double precision.
///
/// The function checked takes the inputs and returns one tensor:
///
///     auto f = [](const std::vector<tl::Tensor<double>>& in) -> tl::Tensor<double> {
///       return tl::exp(in[0]) * in[1];
///     };
///     tl::autograd::gradcheck(f, {x, w});  // x, w: leaves, requires_grad=true
///
/// Only inputs that require grad are differentiated; the others are passed
/// through unchanged. An input that the output does not depend on has a zero
/// Jacobian (and must have a zero numerical one).
///
/// Note [gradcheck Jacobians]
/// The Jacobian J[o][i] = d out[o] / d in[i] (row-major element numbers) is
/// computed twice. Analytical: for each output element o, one
/// `tl::autograd::grad` with a one-hot grad_output at o gives row o (the
/// graph is retained between the calls). Numerical: for each input element
/// i, the element is written at its strided address through `data_ptr()`
/// (so non-contiguous inputs work, and no version counter moves; on a GPU by
/// a one-element copy, so no kernel is needed), the
/// function is evaluated at x - eps and x + eps under `NoGradGuard`, and the
/// column is (f(x + eps) - f(x - eps)) / (2 eps); then the value is
/// restored. Entries pass when |analytical - numerical| <= atol + rtol *
/// |numerical| (torch.allclose with the numerical Jacobian as reference).

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "tensorlib/autograd/fused.hpp"  // materializes the expressions f returns
#include "tensorlib/autograd/tensor_methods.hpp"
#include "tensorlib/core/error.hpp"
#include "tensorlib/core/generator.hpp"
#include "tensorlib/core/grad_mode.hpp"
#include "tensorlib/core/tensor.hpp"
#include "tensorlib/ops/copy.hpp"
#include "tensorlib/ops/dispatch.hpp"
#include "tensorlib/ops/evaluate.hpp"
#include "tensorlib/ops/factories.hpp"
#include "tensorlib/ops/random.hpp"

namespace tensorlib::autograd {

/// What `gradcheck` calls: inputs in, one output tensor out.
using GradcheckFunction = std::function<Tensor<double>(const std::vector<Tensor<double>>&)>;

/// Tolerances and behaviour of `gradcheck` and `gradgradcheck` (PyTorch's
/// defaults and names).
struct GradcheckOptions {
  /// Finite-difference step.
  double eps = 1e-6;
  /// Absolute tolerance.
  double atol = 1e-5;
  /// Relative tolerance (relative to the numerical value).
  double rtol = 1e-3;
  /// Throw `AutogradError` on a mismatch (otherwise return false).
  bool raise_exception = true;
};

namespace detail {

/// Storage offsets (in elements, from `data_ptr()`) of t's elements in
/// row-major order.
inline std::vector<int64_t> element_offsets(const Shape& sizes, const Shape& strides) {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  std::vector<int64_t> offsets;
  offsets.reserve(static_cast<std::size_t>(n));
  std::vector<int64_t> index(sizes.size(), 0);
  for (int64_t k = 0; k < n; ++k) {
    int64_t off = 0;
    for (std::size_t d = 0; d < index.size(); ++d) off += index[d] * strides[d];
    offsets.push_back(off);
    for (std::size_t d = index.size(); d-- > 0;) {
      if (++index[d] < sizes[d]) break;
      index[d] = 0;
    }
  }
  return offsets;
}

/// Element number `k` of a tensor of `sizes` as a multi-index: "[1, 2]".
inline std::string index_string(const Shape& sizes, int64_t k) {
  std::vector<int64_t> index(sizes.size());
  for (std::size_t d = sizes.size(); d-- > 0;) {
    index[d] = k % sizes[d];
    k /= sizes[d];
  }
  std::ostringstream s;
  s << '[';
  for (std::size_t d = 0; d < index.size(); ++d) s << (d ? ", " : "") << index[d];
  s << ']';
  return s.str();
}

/// Element `offset` (from `data_ptr()`) of x's storage, read on the host: a
/// one-element copy from a GPU.
inline double read_element(const Tensor<double>& x, int64_t offset) {
  const double* p = x.data_ptr() + offset;
  if (x.is_cpu()) return *p;
  double v = 0;
  ::tensorlib::detail::dispatch_copy_bytes(&v, Device(kCPU), p, x.device(), sizeof(double), false);
  return v;
}

/// Sets element `offset` of x's storage to v (a one-element copy to a GPU).
inline void write_element(const Tensor<double>& x, int64_t offset, double v) {
  double* p = x.data_ptr() + offset;
  if (x.is_cpu()) {
    *p = v;
    return;
  }
  ::tensorlib::detail::dispatch_copy_bytes(p, x.device(), &v, Device(kCPU), sizeof(double), false);
}

/// Each numerical perturbation writes through a raw pointer; two elements
/// sharing memory (a stride-0 dimension) would move together.
inline void check_no_overlap(const Tensor<double>& t, std::size_t input, const char* op) {
  for (int64_t d = 0; d < t.dim(); ++d) {
    ::tensorlib::detail::check<ValueError>(
        t.stride(d) != 0 || t.size(d) <= 1, op, ": input ", input, " has a dimension with stride 0 (shape ", t.sizes(),
        ", strides ", t.strides(), "); finite differences need inputs whose elements do not share memory");
  }
}

/// Row-major values of f(inputs), evaluated without recording a graph.
inline std::vector<double> evaluate_values(const GradcheckFunction& f, const std::vector<Tensor<double>>& inputs) {
  NoGradGuard no_grad;
  return f(inputs).to_vector();
}

/// Note [gradcheck Jacobians]; `op` names the caller in errors and
/// `output_name` the output checked ("output 0"). Returns false (or throws)
/// on the worst mismatch.
inline bool check_jacobians(const GradcheckFunction& f, const std::vector<Tensor<double>>& inputs,
                            const GradcheckOptions& options, const char* op, const std::string& output_name) {
  std::vector<std::size_t> diff;  // positions of the inputs that require grad
  std::vector<Tensor<double>> diff_inputs;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    ::tensorlib::detail::check<ValueError>(inputs[i].defined(), op, ": input ", i, " is an undefined tensor");
    if (!inputs[i].requires_grad()) continue;
    check_no_overlap(inputs[i], i, op);
    diff.push_back(i);
    diff_inputs.push_back(inputs[i]);
  }
  ::tensorlib::detail::check<ValueError>(!diff.empty(), op, ": expected at least one input tensor to require gradient");

  const Tensor<double> out = f(inputs);
  ::tensorlib::detail::check<ValueError>(out.defined(), op, ": the function returned an undefined tensor");
  const int64_t n_out = out.numel();
  const Shape out_sizes = out.sizes();

  // analytical[j][o * n_in + i]: row o of the Jacobian of input diff[j].
  std::vector<std::vector<double>> analytical(diff.size());
  for (std::size_t j = 0; j < diff.size(); ++j)
    analytical[j].assign(static_cast<std::size_t>(n_out * diff_inputs[j].numel()), 0.0);
  if (out.requires_grad()) {
    for (int64_t o = 0; o < n_out; ++o) {
      Tensor<double> one_hot = zeros<double>(out_sizes);
      one_hot.data_ptr()[o] = 1.0;
      one_hot = one_hot.to(out.device());
      const std::vector<Tensor<double>> grads =
          grad<double>({out}, diff_inputs, {one_hot}, /*retain_graph=*/true, /*create_graph=*/false,
                       /*allow_unused=*/true);
      for (std::size_t j = 0; j < diff.size(); ++j) {
        if (!grads[j].defined()) continue;  // the output does not depend on this input
        ::tensorlib::detail::check<AutogradError>(grads[j].sizes() == diff_inputs[j].sizes(), op,
                                                  ": the gradient of input ", diff[j], " has shape ", grads[j].sizes(),
                                                  "; the input has shape ", diff_inputs[j].sizes());
        const std::vector<double> row = grads[j].to_vector();
        std::copy(row.begin(), row.end(), analytical[j].begin() + o * diff_inputs[j].numel());
      }
    }
  }

  for (std::size_t j = 0; j < diff.size(); ++j) {
    const Tensor<double>& x = diff_inputs[j];
    const int64_t n_in = x.numel();
    const std::vector<int64_t> offsets = element_offsets(x.sizes(), x.strides());
    std::vector<double> numerical(static_cast<std::size_t>(n_out * n_in));
    for (int64_t i = 0; i < n_in; ++i) {
      const int64_t at = offsets[static_cast<std::size_t>(i)];
      const double original = read_element(x, at);
      write_element(x, at, original - options.eps);
      const std::vector<double> minus = evaluate_values(f, inputs);
      write_element(x, at, original + options.eps);
      const std::vector<double> plus = evaluate_values(f, inputs);
      write_element(x, at, original);
      for (int64_t o = 0; o < n_out; ++o)
        numerical[static_cast<std::size_t>(o * n_in + i)] =
            (plus[static_cast<std::size_t>(o)] - minus[static_cast<std::size_t>(o)]) / (2 * options.eps);
    }

    int64_t mismatches = 0, worst = -1;
    double worst_excess = 0;
    for (std::size_t e = 0; e < numerical.size(); ++e) {
      const double a = analytical[j][e], n = numerical[e];
      const double excess = std::abs(a - n) - (options.atol + options.rtol * std::abs(n));
      if (excess > 0 || std::isnan(a) != std::isnan(n)) {
        ++mismatches;
        if (worst < 0 || excess > worst_excess) worst = static_cast<int64_t>(e), worst_excess = excess;
      }
    }
    if (mismatches == 0) continue;
    if (!options.raise_exception) return false;
    const int64_t o = worst / n_in, i = worst % n_in;
    throw AutogradError(::tensorlib::detail::concat(
        op, ": Jacobian mismatch for ", output_name, " with respect to input ", diff[j], ": ", mismatches, " of ",
        numerical.size(), " entries differ; the largest at output element ", index_string(out_sizes, o),
        " and input element ", index_string(x.sizes(), i), ": numerical ", numerical[static_cast<std::size_t>(worst)],
        ", analytical ", analytical[j][static_cast<std::size_t>(worst)], " (eps ", options.eps, ", atol ", options.atol,
        ", rtol ", options.rtol, ")"));
  }
  return true;
}

}  // namespace detail

/// Checks the gradients of `f` at `inputs` against central finite
/// differences (Note [gradcheck Jacobians]). Returns true when they match;
/// on a mismatch throws `AutogradError` naming the input, the output and
/// input elements and both values, or returns false when
/// `options.raise_exception` is false. `f` must be deterministic; inputs
/// that require grad, on any device, must not have elements that share
/// memory. On a GPU each perturbation is a one-element copy and each
/// evaluation a host read-back: keep the inputs small.
/// The graph of `f` is built once and differentiated once per output
/// element, so keep the inputs small.
inline bool gradcheck(const GradcheckFunction& f, const std::vector<Tensor<double>>& inputs,
                      const GradcheckOptions& options = {}) {
  return detail::check_jacobians(f, inputs, options, "gradcheck", "output 0");
}

/// Checks second derivatives (PyTorch's gradgradcheck): for a fixed
/// `grad_output` v (by default a standard-normal tensor of the output's shape
/// from a generator seeded with 0), gradchecks the function
/// (inputs..., v) -> grad(f(inputs), input j, v, create_graph=true) for every
/// input j that requires grad. The backward of `f` must itself be
/// differentiable.
inline bool gradgradcheck(const GradcheckFunction& f, const std::vector<Tensor<double>>& inputs,
                          const GradcheckOptions& options = {}, const Tensor<double>& grad_output = {}) {
  std::vector<std::size_t> diff;
  for (std::size_t i = 0; i < inputs.size(); ++i)
    if (inputs[i].defined() && inputs[i].requires_grad()) diff.push_back(i);
  ::tensorlib::detail::check<ValueError>(!diff.empty(),
                                         "gradgradcheck: expected at least one input tensor to require gradient");
  Tensor<double> v;
  {
    NoGradGuard no_grad;
    const Tensor<double> out = f(inputs);
    const Shape out_sizes = out.sizes();
    if (grad_output.defined()) {
      ::tensorlib::detail::check<ShapeError>(grad_output.sizes() == out_sizes, "gradgradcheck: grad_output has shape ",
                                             grad_output.sizes(), "; the output has shape ", out_sizes);
      v = grad_output.detach().clone();
    } else {
      Generator gen(0);
      v = randn<double>(out_sizes, gen).to(out.device());
    }
  }
  v.requires_grad_();
  std::vector<Tensor<double>> extended = inputs;
  extended.push_back(v);
  for (std::size_t j = 0; j < diff.size(); ++j) {
    // inputs ++ {v} -> d(f . v) / d input diff[j], itself differentiable.
    auto gradient_of_input = [&f, j](const std::vector<Tensor<double>>& in) -> Tensor<double> {
      AutoGradMode grad_on(true);  // the backward needs a graph even inside the numerical pass
      const std::vector<Tensor<double>> x(in.begin(), in.end() - 1);
      std::vector<Tensor<double>> wrt;
      for (const Tensor<double>& t : x)
        if (t.requires_grad()) wrt.push_back(t);
      const Tensor<double> y = f(x);
      if (!y.requires_grad()) return zeros<double>(wrt[j].sizes(), {.device = wrt[j].device()});
      const std::vector<Tensor<double>> g = grad<double>({y}, wrt, {in.back()}, /*retain_graph=*/true,
                                                         /*create_graph=*/true, /*allow_unused=*/true);
      return g[j].defined() ? g[j] : zeros<double>(wrt[j].sizes(), {.device = wrt[j].device()});
    };
    const std::string name = "output " + std::to_string(j) + " (the gradient of input " + std::to_string(diff[j]) +
                             "; input " + std::to_string(inputs.size()) + " is grad_output)";
    if (!detail::check_jacobians(gradient_of_input, extended, options, "gradgradcheck", name)) return false;
  }
  return true;
}

}  // namespace tensorlib::autograd
