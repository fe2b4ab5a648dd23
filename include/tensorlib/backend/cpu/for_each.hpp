#pragma once
/// \file
/// A fused loop with several outputs: `for_each_element(f, n, ptrs...)` calls
/// `f` once per element of N equally long contiguous buffers, in SIMD packets
/// when `f` accepts them.
///
/// Note [multi-output loops]
/// An optimizer step updates a parameter and its state buffers together
/// (Adam writes the parameter and both moment estimates from one read of the
/// gradient). Written as separate pointwise assignments that is three loops
/// and three trips through memory; here it is one. A buffer passed as `T*` is
/// read and written (f gets a reference), one passed as `const T*` is only
/// read (f gets a value). Every element's values are loaded before f runs and
/// stored after, so f may read a buffer after writing it and element i never
/// sees element j: the loop is correct for any f that treats each element on
/// its own, which is all a pointwise update does, provided each pair of
/// buffers is the same memory or disjoint (optim::fused_update checks this).

#include <array>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "tensorlib/backend/cpu/simd.hpp"
#include "tensorlib/backend/cpu/thread_pool.hpp"
#include "tensorlib/core/stats.hpp"

namespace tensorlib::cpu {

/// Elements per task below which splitting across threads does not pay.
inline constexpr int64_t kForEachGrain = 32768;

namespace detail {

template <class P>
inline constexpr bool kReadOnly = std::is_const_v<std::remove_pointer_t<P>>;

// The argument f receives for a buffer of pointer type P: a reference when
// written, a value when read.
template <class V, class P>
using lane_arg_t = std::conditional_t<kReadOnly<P>, V, V&>;

// True when f accepts packets of T for every buffer. Packets are off in nvcc
// translation units (Note [host loops under nvcc] in evaluator.hpp).
template <class T, class F, class... P>
constexpr bool packet_callable() {
#if defined(__CUDACC__)
  return false;
#else
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>)
    return std::is_invocable_v<const F&, lane_arg_t<simd::Vec<T>, P>...>;
  else
    return false;
#endif
}

template <class V, class T>
void store_lane(const V& v, T* p) {
  if constexpr (std::is_same_v<V, T>)
    *p = v;
  else
    v.store(p);
}
template <class V, class T>
void store_lane(const V&, const T*) {}

template <class T, class F, class... P, std::size_t... I>
void run_range(const F& f, int64_t begin, int64_t end, std::index_sequence<I...>, P... p) {
  int64_t i = begin;
#if !defined(__CUDACC__)
  if constexpr (packet_callable<T, F, P...>()) {
    using V = simd::Vec<T>;
    for (; i + V::size <= end; i += V::size) {
      std::array<V, sizeof...(P)> v{V::load(p + i)...};
      f(v[I]...);
      (store_lane(v[I], p + i), ...);
    }
  }
#endif
  for (; i < end; ++i) {
    std::array<T, sizeof...(P)> v{p[i]...};
    f(v[I]...);
    (store_lane(v[I], p + i), ...);
  }
}

}  // namespace detail

/// Runs f over elements [0, n) of the buffers `ptrs` (all of n elements of
/// T, contiguous), split across the thread pool; one fused loop in
/// `tl::stats`. See Note [multi-output loops].
template <class T, class F, class... P>
void for_each_element(const F& f, int64_t n, P... ptrs) {
  static_assert((std::is_same_v<std::remove_const_t<std::remove_pointer_t<P>>, T> && ...),
                "for_each_element: every buffer must hold the loop's element type");
  stats::detail::count_fused_loop();
  parallel_for(0, n, kForEachGrain,
               [&](int64_t b, int64_t e) { detail::run_range<T>(f, b, e, std::index_sequence_for<P...>{}, ptrs...); });
}

}  // namespace tensorlib::cpu
