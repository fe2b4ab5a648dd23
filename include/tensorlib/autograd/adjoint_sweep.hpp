#pragma once
/// \file
/// The adjoint sweep of a pointwise expression (DESIGN 3.5), the part of the
/// fused backward pass shared by the CPU loop (adjoint_pass.hpp) and the GPU
/// kernel (cuda_adjoint_pass.hpp): the tapes the forward half keeps, the
/// functor node that fills and sweeps them, and one element's sweep. Each
/// backend supplies its own leaves (how a value is read, how an adjoint
/// reaches a lane) with the interface `forward(j, n)` / `backward(tape,
/// adj, acc)`.
///
/// Note [adjoint sweep]
/// Per element (or SIMD packet), the compile-time tree is walked twice, all
/// in registers. Forward, bottom-up: each functor node runs on its
/// children's values with every active child seeded as one variable of
/// `Dual<V, A>` (A = its number of active children, 1 to 3), so the
/// functor's own dual form (dual.hpp) yields the node's value and its local
/// partials; the node keeps them on a tape, a nested struct the compiler
/// scalarizes. Backward, top-down: the root's adjoint is the incoming
/// gradient, each node hands `adjoint * partial` to each active child, and a
/// leaf adds what reaches it to its lane (leaves of one tensor share a lane).
/// The work is O(nodes), about twice the forward's; the earlier design ran
/// the whole tree on `Dual<V, K>` with one lane per leaf, O(nodes x K), and
/// measured 20x the forward for the 5-input chain (docs/architecture.md).
/// Derivatives still come only from the functors' dual forms.
///
/// Note [masked adjoints]
/// A node hands `adjoint * partial` to each child, so an infinite or NaN
/// adjoint reaches a child whose partial is 0 as NaN. PyTorch's backward of
/// the functors that select (where, relu, hardtanh, clamp, maximum,
/// minimum, logit with eps) masks the gradient instead (`where(mask, grad, 0)`), and that of
/// the step functions (sign, floor, ceil, round, trunc) is zeros: `log(where(
/// x > 0, x, 0))` gives x = 0 the gradient 0, not NaN. Those functors declare
/// `masks_gradient`, and their children get `scaled(adjoint, partial)`, 0
/// wherever the partial is (Note [zero tangents stay zero]). Every other
/// functor multiplies, as PyTorch's formulas do (mul's d/da of NaN * 0 is
/// NaN), and so do the composites whose PyTorch formula multiplies by a mask
/// (nan_to_num, nansum, xlogy: `fn::BasicWhere<false>`). This gives
/// PyTorch's first derivatives at infinities. The second-order pass masks
/// its adjoints the same way, but a tangent that meets a zero slope is still
/// multiplied, so second derivatives through an infinity can be NaN where
/// PyTorch's are 0, or the reverse.
///
/// Note [dual tree typing]
/// Values flow up the tree with their own types. A floating tensor leaf, and
/// a node with an active child whose functor gives a dual, is active; an
/// integer or bool leaf, a scalar, a comparison, and a cast to an integer or
/// bool type are not (their derivative is zero, as in PyTorch), so no
/// adjoint flows through them. Inactive children of the dual's value type are
/// lifted to constants. A cast between floating types passes the adjoint
/// through converted to the child's type.

#include <cstddef>
#include <cstdint>
#include <tuple>
#include <type_traits>
#include <utility>

#include "tensorlib/autograd/dual.hpp"
#include "tensorlib/core/config.hpp"
#include "tensorlib/core/dtype.hpp"
#include "tensorlib/core/tuple.hpp"
#include "tensorlib/expr/functors/cast.hpp"
#include "tensorlib/expr/map.hpp"

namespace tensorlib::autograd {

/// Number of floating tensor leaves of an expression type: the lanes a fused
/// backward can need (dual tensors carry their own derivatives).
template <class N>
inline constexpr int floating_leaf_count = 0;
template <Element T>
inline constexpr int floating_leaf_count<Tensor<T>> = differentiable<T> && !is_dual<T> ? 1 : 0;
template <class F, class... Cs>
inline constexpr int floating_leaf_count<Map<F, Cs...>> = (0 + ... + floating_leaf_count<Cs>);

namespace detail {

template <class F>
inline constexpr bool is_cast_v = false;

/// Whether F's backward masks the gradient (Note [masked adjoints]).
template <class F>
inline constexpr bool masks_gradient = requires {
  requires F::masks_gradient;
};
template <class U>
inline constexpr bool is_cast_v<fn::CastTo<U>> = true;

/// A plain value lifted to the dual type D when it is D's value type, or
/// D's scalar type (a constant under a nested dual).
template <class D, class A>
TENSORLIB_HOST_DEVICE auto lift(const A& a) {
  using V = std::remove_cvref_t<decltype(std::declval<D>().value)>;
  if constexpr (std::is_same_v<A, V>)
    return D(a);
  else if constexpr (is_dual<V> && std::is_same_v<A, scalar_t<V>>)
    return D(V(a));
  else
    return a;
}

/// `from` as a value of To (the adjoint crossing a floating cast; duals
/// convert component by component).
template <class To, class From>
TENSORLIB_FORCE_INLINE TENSORLIB_HOST_DEVICE inline To convert(const From& from) {
  if constexpr (std::is_same_v<To, From>) {
    return from;
  } else if constexpr (is_dual<To>) {
    using V = std::remove_cvref_t<decltype(std::declval<To>().value)>;
    To r(convert<V>(from.value));
    for (std::size_t k = 0; k < std::size(r.tangent); ++k) r.tangent[k] = convert<V>(from.tangent[k]);
    return r;
  } else {
    return static_cast<To>(from);
  }
}

template <class... A>
struct FirstDual;
template <class A, class... Rest>
struct FirstDual<A, Rest...> {
  using type = std::conditional_t<is_dual<A>, A, typename FirstDual<Rest...>::type>;
};
template <>
struct FirstDual<> {
  using type = void;
};

/// The value type of the first active tape.
template <class... Tapes>
struct FirstActive;
template <class Tape, class... Rest>
struct FirstActive<Tape, Rest...> {
  using type =
      std::conditional_t<Tape::active, std::remove_cvref_t<decltype(Tape::value)>, typename FirstActive<Rest...>::type>;
};
template <>
struct FirstActive<> {
  using type = void;
};

/// What the forward half of the sweep keeps of one leaf or constant: its
/// value. `active` marks a floating value an adjoint can flow into.
template <class V, bool Active>
struct ValueTape {
  static constexpr bool active = Active;
  V value;
};

/// What it keeps of one functor node: its value, its partial derivative with
/// respect to each active child (slot order), and the children's tapes.
template <class V, class P, int A, class... Ts>
struct NodeTape {
  static constexpr bool active = A > 0;
  V value;
  P partial[A > 0 ? A : 1];
  // std::tuple, not detail::Tuple (Note [our own tuple]): g++ keeps the
  // tapes of a std::tuple in registers; with detail::Tuple the CPU sweep of
  // bench/autograd_bench.cpp's Fused/1048576/1 ran 11.0 ms against 9.4.
  std::tuple<Ts...> children;
};

/// The slot of child I among the active children of a node whose children's
/// tapes are Ts: their count before it (a constant, so device code reads it
/// without calling a host function).
template <class Ts, std::size_t I>
inline constexpr int active_slot = [] {
  int slot = 0;
  [&]<std::size_t... J>(std::index_sequence<J...>) {
    ((slot += (J < I && std::tuple_element_t<J, Ts>::active) ? 1 : 0), ...);
  }
  (std::make_index_sequence<std::tuple_size_v<Ts>>{});
  return slot;
}();

/// The sweep of one functor node over child sweep nodes Cs, shared by the
/// CPU loop (`AdjointMap`, adjoint_pass.hpp) and the GPU kernel
/// (cuda_adjoint_pass.hpp), whose leaves differ. Forward: the functor on its
/// children's values, with each active child seeded as one variable of
/// `Dual<V, A>` (A = the number of active children), so the functor's own
/// dual form gives the node's value and its local partials at once (Note
/// [adjoint sweep]). Backward: the adjoint times each partial flows to that
/// child.
template <class F, class... Cs>
class AdjointNode {
 public:
  AdjointNode(const F& f, tensorlib::detail::Tuple<Cs...> children) : f_(f), children_(std::move(children)) {}
  TENSORLIB_FORCE_INLINE TENSORLIB_HOST_DEVICE auto forward(int64_t j, int n) const {
    return forward_children(j, n, std::index_sequence_for<Cs...>{});
  }
  template <class Tape, class Adj, class Acc>
  TENSORLIB_FORCE_INLINE TENSORLIB_HOST_DEVICE void backward(const Tape& tape, const Adj& adj, Acc* acc) const {
    if constexpr (Tape::active) backward_children(tape, adj, acc, std::index_sequence_for<Cs...>{});
  }

 protected:
  F f_;
  tensorlib::detail::Tuple<Cs...> children_;

 private:
  // No lambdas on the per-element path: GCC does not inline them into the
  // row loop, and a tape returned through memory costs 10x.
  template <std::size_t... I>
  TENSORLIB_FORCE_INLINE TENSORLIB_HOST_DEVICE auto forward_children(int64_t j, int n,
                                                                     std::index_sequence<I...> seq) const {
    return local(std::tuple{tensorlib::detail::get<I>(children_).forward(j, n)...}, seq);
  }

  template <class Tapes, std::size_t... I>
  TENSORLIB_FORCE_INLINE TENSORLIB_HOST_DEVICE auto local(Tapes&& tapes, std::index_sequence<I...>) const {
    using Ts = std::remove_cvref_t<Tapes>;
    constexpr int A = (0 + ... + int(std::tuple_element_t<I, Ts>::active));
    if constexpr (is_cast_v<F>) {
      // A cast passes the adjoint through converted: partial 1, or none
      // when the cast leaves the floating types.
      const auto& x = std::get<0>(tapes);
      using X = std::remove_cvref_t<decltype(x.value)>;
      if constexpr (is_dual<X>) {
        // Second-order pass: the tangent converts with the value.
        using U = decltype(f_(x.value.value));
        if constexpr (is_floating<U>) {
          Dual<U, 1> v(f_(x.value.value));
          v.tangent[0] = f_(x.value.tangent[0]);
          return NodeTape<Dual<U, 1>, Dual<U, 1>, 1, std::tuple_element_t<I, Ts>...>{v, {}, std::move(tapes)};
        } else {
          return NodeTape<U, U, 0, std::tuple_element_t<I, Ts>...>{f_(x.value.value), {}, std::move(tapes)};
        }
      } else {
        using U = decltype(f_(x.value));
        if constexpr (A > 0 && is_floating<scalar_t<U>>)
          return NodeTape<U, U, 1, std::tuple_element_t<I, Ts>...>{f_(x.value), {}, std::move(tapes)};
        else
          return NodeTape<U, U, 0, std::tuple_element_t<I, Ts>...>{f_(x.value), {}, std::move(tapes)};
      }
    } else if constexpr (A == 0) {
      using R = decltype(f_(std::get<I>(tapes).value...));
      return NodeTape<R, R, 0, std::tuple_element_t<I, Ts>...>{f_(std::get<I>(tapes).value...), {}, std::move(tapes)};
    } else {
      using Vc = typename FirstActive<std::tuple_element_t<I, Ts>...>::type;
      using D = Dual<Vc, A>;
      static_assert(((!std::tuple_element_t<I, Ts>::active ||
                      std::is_same_v<decltype(std::tuple_element_t<I, Ts>::value), Vc>)&&...),
                    "adjoint sweep: the active operands of one functor must share a floating type");
      const auto r =
          evaluate(seed<D, std::tuple_element_t<I, Ts>::active>(std::get<I>(tapes).value, active_slot<Ts, I>)...);
      using R = std::remove_cvref_t<decltype(r)>;
      if constexpr (is_dual<R>) {
        using V = std::remove_cvref_t<decltype(r.value)>;
        NodeTape<V, Vc, A, std::tuple_element_t<I, Ts>...> tape{r.value, {}, std::move(tapes)};
        for (int k = 0; k < A; ++k) tape.partial[k] = r.tangent[k];
        return tape;
      } else {
        // A comparison (or another functor whose result has no derivative).
        return NodeTape<R, R, 0, std::tuple_element_t<I, Ts>...>{r, {}, std::move(tapes)};
      }
    }
  }

  // The functor on seeded duals: its dual form when every operand is one
  // (Note [dual derivatives at special points]), else its formula.
  template <class... A>
  TENSORLIB_FORCE_INLINE TENSORLIB_HOST_DEVICE auto evaluate(const A&... a) const {
    using D = typename FirstDual<A...>::type;
    if constexpr ((std::is_same_v<A, D> && ...) &&
                  std::is_same_v<std::remove_cvref_t<std::invoke_result_t<const F&, const A&...>>, D>)
      return apply_dual(f_, a...);
    else
      return f_(a...);
  }

  template <class D, bool Active, class V>
  TENSORLIB_FORCE_INLINE TENSORLIB_HOST_DEVICE static auto seed(const V& v, int slot) {
    if constexpr (Active)
      return D::variable(v, slot);
    else
      return lift<D>(v);
  }

  template <class Tape, class Adj, class Acc, std::size_t... I>
  TENSORLIB_FORCE_INLINE TENSORLIB_HOST_DEVICE void backward_children(const Tape& tape, const Adj& adj, Acc* acc,
                                                                      std::index_sequence<I...>) const {
    (backward_child<I>(tape, adj, acc), ...);
  }
  template <std::size_t I, class Tape, class Adj, class Acc>
  TENSORLIB_FORCE_INLINE TENSORLIB_HOST_DEVICE void backward_child(const Tape& tape, const Adj& adj, Acc* acc) const {
    using Ts = decltype(tape.children);
    using Child = std::tuple_element_t<I, Ts>;
    if constexpr (Child::active) {
      using CV = std::remove_cvref_t<decltype(Child::value)>;
      if constexpr (is_cast_v<F>) {
        tensorlib::detail::get<I>(children_).backward(std::get<I>(tape.children), convert<CV>(adj), acc);
      } else {
        using P = std::remove_cvref_t<decltype(tape.partial[0])>;
        constexpr int slot = active_slot<Ts, I>;
        if constexpr (masks_gradient<F>)  // Note [masked adjoints]
          tensorlib::detail::get<I>(children_).backward(std::get<I>(tape.children),
                                                        convert<CV>(scaled(convert<P>(adj), tape.partial[slot])), acc);
        else
          tensorlib::detail::get<I>(children_).backward(std::get<I>(tape.children),
                                                        convert<CV>(convert<P>(adj) * tape.partial[slot]), acc);
      }
    }
  }
};

/// One element's (or packet's) gradients: the accumulator of each lane.
template <class V, int K>
struct LaneAdjoints {
  V lane[K > 0 ? K : 1];
};

/// One element's sweep (or one packet's, V a packet type): zeroed lanes,
/// the forward half, then the gradient seeded at the root and swept down.
/// A root whose every path to a lane was cut (a comparison, an integer
/// cast) has no gradient.
template <class V, int K, class Tree>
TENSORLIB_FORCE_INLINE TENSORLIB_HOST_DEVICE inline LaneAdjoints<V, K> sweep_element(const Tree& tree, const V& grad,
                                                                                     int64_t j, int n) {
  LaneAdjoints<V, K> out;
  for (auto& l : out.lane) l = V(scalar_t<V>(0));
  const auto tape = tree.forward(j, n);
  if constexpr (std::remove_cvref_t<decltype(tape)>::active)
    tree.backward(tape, convert<std::remove_cvref_t<decltype(tape.value)>>(grad), out.lane);
  return out;
}

}  // namespace detail
}  // namespace tensorlib::autograd
