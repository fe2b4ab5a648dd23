#pragma once
/// \file
/// `detail::apply`: std::apply without its exception specification.
///
/// Note [our own apply]
/// Every expression node reaches its children by applying a lambda to their
/// tuple, so a program instantiates apply once per node type and lambda.
/// std::apply's `noexcept(std::is_nothrow_invocable_v<...>)` is evaluated for
/// each of them, and CUDA's device front end (cicc) is slow at the traits
/// behind it (std::__or_, std::__and_, libstdc++'s completeness checks): they
/// took half of cicc's time on a parity test file. This apply computes no
/// exception specification; it is constexpr, so device code may call it as it
/// called std::apply (--expt-relaxed-constexpr). Measured on
/// tests/parity/autograd_ops_test.cu, nvcc alone on the machine: cicc 101 s
/// against 35 s, the whole file 170 s against 95 s (docs/architecture.md,
/// Compile time).

#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>

namespace tensorlib::detail {

template <class F, class Tuple, std::size_t... I>
constexpr decltype(auto) apply_indices(F&& f, Tuple&& t, std::index_sequence<I...>) {
  return static_cast<F&&>(f)(std::get<I>(static_cast<Tuple&&>(t))...);
}

/// f(elements of t...), as std::apply.
template <class F, class Tuple>
constexpr decltype(auto) apply(F&& f, Tuple&& t) {
  return apply_indices(static_cast<F&&>(f), static_cast<Tuple&&>(t),
                       std::make_index_sequence<std::tuple_size_v<std::remove_reference_t<Tuple>>>{});
}

}  // namespace tensorlib::detail
