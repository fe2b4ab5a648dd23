#pragma once
/// \file
/// `detail::Tuple`: the tuple that holds an expression node's children, with
/// `detail::get` and `detail::apply`.
///
/// Note [our own tuple]
/// Every expression type instantiates its nodes' tuples of children and
/// applies lambdas to them, once per node type and lambda, and the front ends
/// of nvcc (cudafe++ and cicc, both EDG) are slow at the type traits that
/// std::tuple and std::apply instantiate for each: std::apply's
/// `noexcept(std::is_nothrow_invocable_v<...>)`, the constructors'
/// constraints (std::__and_ and std::__or_ of is_constructible and
/// is_convertible), libstdc++'s completeness checks. `nvcc
/// -fdevice-time-trace` put over half of cicc's front-end time on a parity
/// test file there. This tuple is a struct of indexed members whose
/// constructor puts no constraints on the element types, `get` finds a member
/// by overload resolution and `apply` computes no exception specification.
/// All are constexpr, so device code calls them as it called std's
/// (--expt-relaxed-constexpr). The expression nodes of every evaluator hold
/// their children in it; the backward sweep's per-element tapes keep
/// std::tuple, which g++ optimizes better there (NodeTape in
/// autograd/adjoint_sweep.hpp). Measured on tests/parity/autograd_ops_test.cu,
/// nvcc alone on the machine, with the tapes in detail::Tuple too: 170 s with
/// std's, 76 s with these (cicc 101 s against 26 s, the host g++ pass 54 s
/// against 35 s); docs/architecture.md (Compile time) has the rest.

#include <cstddef>
#include <type_traits>
#include <utility>

#include "tensorlib/core/config.hpp"

namespace tensorlib::detail {

/// Element I of a tuple, of type T (value-initialized when the tuple is
/// default-constructed, as std::tuple's are).
template <std::size_t I, class T>
struct TupleLeaf {
  T value{};
};

template <class Indices, class... Ts>
struct TupleBase;
// Copies and moves go member by member, as std::tuple's do. Measured while
// the sweep's per-element tapes were detail::Tuples too: a trivial copy of
// the whole tuple was a block move to g++ (a memmove per element), and the
// autograd benchmark's sweep ran 2x slower. The moves are noexcept: no
// node's move throws. Unlike std::tuple's, the assignments are not
// constrained (constraints are the type traits this tuple avoids): a tuple
// of non-assignable elements reports itself assignable, and assigning one
// fails to compile in the body. Nothing assigns a node today.
template <std::size_t... I, class... Ts>
struct TupleBase<std::index_sequence<I...>, Ts...> : TupleLeaf<I, Ts>... {
  constexpr TupleBase() = default;
  // Not explicit: nodes are built with braces, `K(f, {child...})`.
  TENSORLIB_FORCE_INLINE constexpr TupleBase(Ts... ts) requires(sizeof...(Ts) > 0)
      : TupleLeaf<I, Ts>{std::move(ts)}... {}
  TENSORLIB_FORCE_INLINE constexpr TupleBase(const TupleBase& o)
      : TupleLeaf<I, Ts>{static_cast<const TupleLeaf<I, Ts>&>(o).value}... {}
  TENSORLIB_FORCE_INLINE constexpr TupleBase(TupleBase&& o) noexcept
      : TupleLeaf<I, Ts>{std::move(static_cast<TupleLeaf<I, Ts>&>(o).value)}... {}
  constexpr TupleBase& operator=(const TupleBase& o) {
    ((static_cast<TupleLeaf<I, Ts>&>(*this).value = static_cast<const TupleLeaf<I, Ts>&>(o).value), ...);
    return *this;
  }
  constexpr TupleBase& operator=(TupleBase&& o) noexcept {
    ((static_cast<TupleLeaf<I, Ts>&>(*this).value = std::move(static_cast<TupleLeaf<I, Ts>&>(o).value)), ...);
    return *this;
  }
};

/// A fixed list of values of types Ts, one member each.
template <class... Ts>
struct Tuple : TupleBase<std::index_sequence_for<Ts...>, Ts...> {
  static constexpr std::size_t size = sizeof...(Ts);
  using TupleBase<std::index_sequence_for<Ts...>, Ts...>::TupleBase;
};
template <class... Ts>
Tuple(Ts...) -> Tuple<Ts...>;

/// Element I of a tuple (the leaf's type is deduced from the tuple's base).
template <std::size_t I, class T>
TENSORLIB_FORCE_INLINE constexpr T& get(TupleLeaf<I, T>& leaf) noexcept {
  return leaf.value;
}
template <std::size_t I, class T>
TENSORLIB_FORCE_INLINE constexpr const T& get(const TupleLeaf<I, T>& leaf) noexcept {
  return leaf.value;
}
template <std::size_t I, class T>
TENSORLIB_FORCE_INLINE constexpr T&& get(TupleLeaf<I, T>&& leaf) noexcept {
  return static_cast<T&&>(leaf.value);
}

template <class F, class Tup, std::size_t... I>
constexpr decltype(auto) apply_indices(F&& f, Tup&& t, std::index_sequence<I...>) {
  return static_cast<F&&>(f)(tensorlib::detail::get<I>(static_cast<Tup&&>(t))...);
}

/// f(elements of t...), as std::apply.
template <class F, class Tup>
constexpr decltype(auto) apply(F&& f, Tup&& t) {
  return tensorlib::detail::apply_indices(static_cast<F&&>(f), static_cast<Tup&&>(t),
                                          std::make_index_sequence<std::remove_cvref_t<Tup>::size>{});
}

}  // namespace tensorlib::detail
