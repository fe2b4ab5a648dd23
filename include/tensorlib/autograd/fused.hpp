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
///
/// Note [second order]
/// Under create_graph, the gradients G_l = g * d expr / d leaf_l that the
/// pass writes are recorded as the outputs of one `FusedGradBackward` node
/// whose inputs are the lane leaves and g (the reshape, scale, broadcast
/// sums and dtype casts around the pass are public ops and record
/// themselves). That node saves the same leaves plus g, and its backward is
/// again one fused loop over the expression, `second_order_pass`: forward
/// mode over reverse mode, the adjoint sweep run on `Dual<T, 1>` values whose
/// tangent is the incoming cotangent u, so each functor node differentiates
/// on nested duals `Dual<Dual<T, 1>, A>`. Its outputs are g * (H u) for
/// every leaf and J u for g, so double backward and Hessian-vector products
/// through pointwise chains cost one pass each. A third derivative through
/// the same expression is refused (NotImplementedError).
///
/// The pass is instantiated for every fused expression type a program
/// materializes (create_graph is a run-time choice), which costs compile
/// time: about a third more for an expression-heavy file at -O2, and in an
/// nvcc translation unit two more kernels per expression (its GPU form, Note
/// [GPU adjoint sweep], on nested duals). Defining
/// TENSORLIB_NO_DOUBLE_BACKWARD (for the whole program) leaves it out;
/// create_graph through a fused expression then throws NotImplementedError
/// naming the macro. The benchmarks and the non-autograd test suites do.
///
/// Note [no fused backward]
/// The first-order pass is instantiated for every fused expression type too,
/// whether or not the program ever differentiates: in an expression-heavy file
/// that never does, half of the optimizer's and code generator's work
/// (clang -ftime-trace, tests/ops/inplace_test.cpp: 22 of 46 s of function
/// optimization is autograd code). A program that never differentiates
/// through a pointwise expression (inference, or code built only for its
/// forward values) can define TENSORLIB_NO_FUSED_BACKWARD for the whole
/// program: materializing an expression, or summing one, with a leaf that
/// requires grad then throws NotImplementedError naming the macro, and
/// neither pass is instantiated. The test suites that never differentiate do.

#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tensorlib/autograd/accumulate_grad.hpp"
#include "tensorlib/autograd/adjoint_pass.hpp"
#include "tensorlib/autograd/cast_backward.hpp"
#include "tensorlib/autograd/engine.hpp"
#include "tensorlib/autograd/node.hpp"
#include "tensorlib/autograd/op_backward.hpp"
#include "tensorlib/autograd/saved_tensor.hpp"
#include "tensorlib/autograd/second_order_pass.hpp"
#include "tensorlib/core/any_tensor.hpp"
#include "tensorlib/core/error.hpp"
#include "tensorlib/core/grad_mode.hpp"
#include "tensorlib/core/tensor.hpp"
#include "tensorlib/expr/functors/special.hpp"
#include "tensorlib/expr/map.hpp"
#include "tensorlib/expr/traverse.hpp"
#include "tensorlib/ops/evaluate.hpp"
#include "tensorlib/ops/factories.hpp"
#include "tensorlib/ops/reduce.hpp"
#include "tensorlib/ops/views.hpp"

namespace tensorlib::autograd {

namespace detail {

/// The error of Note [no fused backward].
[[noreturn]] inline void throw_no_fused_backward() {
  throw NotImplementedError(
      "a pointwise expression with a leaf that requires grad was materialized, but this code was compiled without "
      "the fused backward (TENSORLIB_NO_FUSED_BACKWARD is defined); build it without that macro to differentiate");
}

/// Throws PyTorch's error when a leaf of `expr` was written in place after
/// `node` saved it (its version differs from versions[position]).
template <class E>
void check_leaf_versions(const E& expr, const uint32_t* versions, const std::string& node) {
  int position = 0;
  for_each_tensor(expr, [&](const auto& leaf) {
    const uint32_t saved = versions[position++];
    if (leaf._version() == saved) return;
    throw_modified_inplace(
        ::tensorlib::detail::concat("[", DTypeTraits<typename std::remove_cvref_t<decltype(leaf)>::value_type>::name,
                                    " ", leaf.sizes(), "], which is an input of ", node, ","),
        leaf._version(), saved);
  });
}

}  // namespace detail

namespace detail {

// Note [derivatives PyTorch does not implement]
// A functor may declare `no_derivative_in_a` or `no_derivative_in_b`,
// PyTorch's not_implemented(...) for its first or second operand in
// derivatives.yaml (zeta's d/dx, igamma's d/da; both of nextafter and
// heaviside): PyTorch's backward throws when that operand's gradient is
// needed. The fused node notes, when it is recorded, the lanes (leaves that
// require grad) under such an operand, and its backward throws
// NotImplementedError with PyTorch's message when the running backward
// needs one of those lanes' gradients (`Node::should_compute_output`: every
// lane in a backward into .grad; in `autograd::grad`, only lanes from which
// a requested gradient is reachable, so asking for q's gradient alone
// through zeta(x, q) does not throw, as in PyTorch). The functor's partial
// there (NaN for zeta and nextafter, heaviside's own formula's) reaches no
// gradient otherwise: an operand whose subtree has no lane gets none. A
// subtree whose value is not floating (a comparison, an integer cast, a
// `where` condition) or whose functor declares `no_gradient` (the
// orthogonal polynomials) passes no gradient, so its leaves do not count,
// as in PyTorch, where such a result has no history. The second-order node (`FusedGradBackward`) keeps the refused
// lanes and refuses them the same way. That is conservative: PyTorch refuses
// a second derivative in x only where the first-order gradient's graph
// reaches the refusing functor (it does for zeta(x, q)'s q; for
// zeta(x, 2) + q^2 it does not, and PyTorch leaves x without gradient where
// this throws). Forward mode refuses such an operand when it is materialized
// (`check_forward_derivatives` in ops/dispatch.hpp).

/// Whether expression type N holds a functor of that kind (the walk below
/// is compiled only for those).
template <class N>
inline constexpr bool may_refuse_derivative = false;
template <class F, class... Cs>
inline constexpr bool may_refuse_derivative<Map<F, Cs...>> = requires {
  F::no_derivative_in_a;
}
|| requires { F::no_derivative_in_b; }
|| (may_refuse_derivative<Cs> || ...);

/// A lane whose gradient a functor on its path refuses, with the message
/// name of that functor (the innermost one).
struct RefusedLane {
  int lane;
  std::string_view name;
};

/// Throws PyTorch's error when the backward running `node` needs the
/// gradient of a refused lane (lane l is next edge l).
inline void check_refused_lanes(const Node& node, const std::vector<RefusedLane>& refused) {
  for (const RefusedLane& r : refused)
    if (node.should_compute_output(static_cast<std::size_t>(r.lane)))
      throw NotImplementedError(::tensorlib::detail::concat("the derivative for '", r.name, "' is not implemented."));
}

/// Whether the functor of node N declares `no_gradient`.
template <class N>
inline constexpr bool passes_no_gradient = requires {
  requires N::functor_type::no_gradient;
};

/// The walk of Note [derivatives PyTorch does not implement] over `node`,
/// its tensor leaves numbered in tree order from `position`: appends to
/// `reached` the lanes of the subtree that a gradient reaches, and to
/// `refused` those a functor refuses (each lane once).
template <class N>
void refused_derivatives(const N& node, const int* lanes, int& position, std::vector<int>& reached,
                         std::vector<RefusedLane>& refused) {
  if constexpr (is_tensor_v<N>) {
    const int lane = lanes[position++];
    if (lane >= 0) reached.push_back(lane);
  } else if constexpr (is_map_v<N> && (!is_floating<typename N::value_type> || passes_no_gradient<N>)) {
    position += cpu::leaf_count<N>;  // no gradient flows through it
  } else if constexpr (is_map_v<N>) {
    using F = typename N::functor_type;
    int child = 0;
    ::tensorlib::detail::apply(
        [&](const auto&... c) {
          (
              [&] {
                std::vector<int> inner;
                refused_derivatives(c, lanes, position, inner, refused);
                const std::string_view own = ::tensorlib::detail::no_derivative_in<F>(child++);
                if (!own.empty())
                  for (const int lane : inner)
                    if (std::none_of(refused.begin(), refused.end(),
                                     [&](const RefusedLane& r) { return r.lane == lane; }))
                      refused.push_back({lane, own});
                reached.insert(reached.end(), inner.begin(), inner.end());
              }(),
              ...);
        },
        node.children());
  }
}

/// The second-order pass of expression type E behind a type-erased pointer:
/// the only per-expression code a FusedGradBackward needs (compile time).
template <class E, Element T = value_type_t<E>>
void run_second_order(const void* expr, const std::vector<Tensor<T>>& outs, const Tensor<T>& g, const int* lanes,
                      const std::vector<Tensor<T>>& u) {
  second_order_pass(outs, g, *static_cast<const E*>(expr), lanes, u);
}

}  // namespace detail

/// The node of the gradients of a fused expression, recorded by its
/// backward under create_graph (Note [second order]): inputs the lane
/// leaves and the incoming gradient g, outputs G_l = g * d expr / d leaf_l at
/// the broadcast shape. Its backward, for cotangents u_l, is one
/// `second_order_pass`: d/d leaf_m = g * sum_l d2 expr/(d leaf_m d leaf_l)
/// u_l and d/dg = sum_l d expr / d leaf_l u_l, each summed to its input's
/// shape. A third derivative is refused. Templated on the element type
/// only: the expression is held type-erased with its pass, so each
/// expression type instantiates the pass and nothing else.
template <Element T>
class FusedGradBackward final : public Node {
 public:
  using Kernel = void (*)(const void*, const std::vector<Tensor<T>>&, const Tensor<T>&, const int*,
                          const std::vector<Tensor<T>>&);

  /// `refused`: the first-order node's refused lanes (Note [derivatives
  /// PyTorch does not implement]); a second derivative in them throws too.
  template <class E>
  FusedGradBackward(const E& expr, const int* lanes, const Tensor<T>& g, const std::string& forward_name,
                    std::vector<detail::RefusedLane> refused)
      : expr_(std::make_shared<const E>(expr)),
        refused_(std::move(refused)),
        kernel_(&detail::run_second_order<E>),
        shape_(expr.shape()),
        g_(g.detach()),
        g_version_(g._version()),
        g_shape_(g.sizes()),
        name_(forward_name + "Backward") {
    std::vector<Edge> edges;
    int position = 0, used = 0;
    for_each_tensor(expr, [&](const auto& leaf) {
      leaves_.emplace_back(leaf);
      versions_.push_back(leaf._version());
      const int lane = lanes[position++];
      lanes_.push_back(lane);
      if (lane == used) {  // a lane's first leaf (lanes are numbered in tree order)
        edges.push_back(gradient_edge(leaf));
        leaf_shapes_.push_back(leaf.sizes());
        leaf_dtypes_.push_back(leaf.dtype());
        ++used;
      }
    });
    edges.push_back(gradient_edge(g));
    mutable_next_edges() = std::move(edges);
  }

  variable_list apply(variable_list&& grads) override {
    if (released_) detail::throw_freed_graph();
    check_versions();
    ::tensorlib::detail::check<NotImplementedError>(
        !is_grad_enabled(), name(), ": a third derivative through a fused pointwise expression is not implemented");
    detail::check_refused_lanes(*this, refused_);
    const std::size_t used = leaf_shapes_.size();
    std::vector<Tensor<T>> u(used);
    bool any = false;
    for (std::size_t l = 0; l < used && l < grads.size(); ++l)
      if (grads[l].defined()) {
        u[l] = grads[l].as<T>();
        any = true;
      }
    variable_list result(used + 1);
    if (!any) return result;
    std::vector<Tensor<T>> outs;
    for (std::size_t l = 0; l <= used; ++l) outs.push_back(empty<T>(shape_, {.device = g_.device()}));
    kernel_(expr_.get(), outs, g_, lanes_.data(), u);
    for (std::size_t l = 0; l < used; ++l) {
      Tensor<T> r = outs[l].sum_to_size(leaf_shapes_[l]);
      if (leaf_dtypes_[l] == kFloat32)
        result[l] = r.template to<float>();
      else
        result[l] = r.template to<double>();
    }
    if (next_edges().back().valid()) result[used] = outs[used].sum_to_size(g_shape_);
    return result;
  }
  std::string name() const override { return name_; }
  void release_variables() override {
    expr_.reset();
    leaves_.clear();
    g_ = Tensor<T>();
    released_ = true;
  }

 private:
  void check_versions() const {
    for (std::size_t i = 0; i < leaves_.size(); ++i) {
      const uint32_t now = leaves_[i].impl()->storage.version();
      if (now == versions_[i]) continue;
      detail::throw_modified_inplace(::tensorlib::detail::concat("[", leaves_[i].dtype(), " ", leaves_[i].sizes(),
                                                                 "], which is an input of ", name(), ","),
                                     now, versions_[i]);
    }
    if (g_._version() != g_version_)
      detail::throw_modified_inplace("the gradient saved by " + name(), g_._version(), g_version_);
  }

  std::shared_ptr<const void> expr_;  // an E; reset when the graph is freed
  std::vector<detail::RefusedLane> refused_;
  Kernel kernel_;
  Shape shape_;
  Tensor<T> g_;
  uint32_t g_version_;
  Shape g_shape_;
  std::string name_;
  std::vector<AnyTensor> leaves_;
  std::vector<uint32_t> versions_;
  std::vector<int> lanes_;
  std::vector<Shape> leaf_shapes_;
  std::vector<ScalarType> leaf_dtypes_;
  bool released_ = false;
};

namespace detail {

/// g * s, recorded as a MulBackward whose backward is the same scaling
/// (Note [autograd's own arithmetic] in autograd/accumulate_grad.hpp).
template <Element T>
Tensor<T> scale_recorded(const Tensor<T>& g, T s) {
  if (!compute_requires_grad(g)) return ::tensorlib::detail::evaluate(g * to_opmath(s));
  return record<T>(
      "MulBackward0", [&] { return ::tensorlib::detail::evaluate(g * to_opmath(s)); },
      [s](const std::vector<Tensor<T>>& grads, const auto&, const std::vector<bool>&) {
        return std::vector<Tensor<T>>{scale_recorded(grads.at(0), s)};
      },
      std::array<SavedTensor<T>, 0>{}, g);
}

}  // namespace detail

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
      if constexpr (differentiable<L>) {
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
    if constexpr (detail::may_refuse_derivative<E>) {
      int walked = 0;
      std::vector<int> reached;
      detail::refused_derivatives(*expr_, lanes_, walked, reached, refused_);
    }
  }

  variable_list apply(variable_list&& grads) override {
    if (released_) detail::throw_freed_graph();
    check_versions();
    // Note [derivatives PyTorch does not implement]
    detail::check_refused_lanes(*this, refused_);
    // Under create_graph the reshape, scale, sums and casts below record,
    // and the pass itself records as a FusedGradBackward (Note [second order]).
    Tensor<T> g = grads.at(0).as<T>();
    if (grad_view_) g = g.reshape(*grad_view_);
    if (scale_ != 1.0) g = detail::scale_recorded(g, static_cast<T>(scale_));
    std::vector<Tensor<T>> outs;
    for (std::size_t l = 0; l < lane_shapes_.size(); ++l)
      outs.push_back(empty<T>(expr_->shape(), {.device = g.device()}));
    adjoint_pass(outs, g, *expr_, lanes_);
    if (is_grad_enabled()) record_gradients(outs, g);
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
  void check_versions() const { detail::check_leaf_versions(*expr_, versions_, name()); }

  void record_gradients(const std::vector<Tensor<T>>& outs, const Tensor<T>& g) const {
#if defined(TENSORLIB_NO_DOUBLE_BACKWARD)
    (void)outs;
    (void)g;
    throw NotImplementedError(::tensorlib::detail::concat(
        name(),
        ": create_graph=true through a fused pointwise expression needs its second-order pass, which this "
        "code was compiled without (TENSORLIB_NO_DOUBLE_BACKWARD is defined)"));
#else
    auto node = std::make_shared<FusedGradBackward<T>>(*expr_, lanes_, g, name_, refused_);
    for (const auto& o : outs) set_history(o, node);
#endif
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
  std::vector<detail::RefusedLane> refused_;  // Note [derivatives PyTorch does not implement]
  std::vector<Shape> lane_shapes_;
  std::vector<ScalarType> lane_dtypes_;
  bool released_ = false;
};

/// Evaluates `expr` into a new tensor and, when grad mode is on and a leaf
/// requires grad, records it as one `FusedBackward` node.
template <Expression E>
Tensor<value_type_t<E>> materialize(const E& expr) {
  // A 16-bit result of a graph would have no history (Note [reduced floats]).
  ::tensorlib::detail::refuse_untracked_grad<value_type_t<E>>("to", expr);
  Tensor<value_type_t<E>> out = ::tensorlib::detail::evaluate(expr);
  // A dual-valued chain (forward mode) carries its derivatives itself.
  if constexpr (is_map_v<E> && differentiable<value_type_t<E>> && !is_dual<value_type_t<E>> &&
                floating_leaf_count < E >> 0) {
    if (!is_grad_enabled()) return out;
    bool needs = false;
    for_each_tensor(expr, [&](const auto& leaf) { needs = needs || leaf.requires_grad(); });
#if defined(TENSORLIB_NO_FUSED_BACKWARD)
    if (needs) detail::throw_no_fused_backward();
#else
    if (needs) set_history(out, std::make_shared<FusedBackward<E>>(expr));
#endif
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
