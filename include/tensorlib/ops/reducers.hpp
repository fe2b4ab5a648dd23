#pragma once
/// \file
/// The reducers of ops/reduce.hpp: an accumulator type with `identity`,
/// `step` (fold one element) and `merge` (combine two partial results), run
/// on the host and in CUDA kernels alike, plus `block` (fold a contiguous
/// run, SIMD on the host) for the CPU loop (backend/cpu/reduce.hpp).

#include <cstdint>
#include <limits>
#include <type_traits>

#include "tensorlib/backend/cpu/simd.hpp"
#include "tensorlib/core/config.hpp"
#include "tensorlib/core/dtype.hpp"

namespace tensorlib::detail {

/// Result type of sum/prod/cumsum: int64 for integers and bool (PyTorch).
template <class T>
using sum_result_t = std::conditional_t<is_floating<T>, T, int64_t>;

/// Sum; float accumulates in double across blocks (Note [sum accuracy]).
template <class T>
struct SumReducer {
  using acc_type = std::conditional_t<is_floating<T>, double, int64_t>;
  TENSORLIB_HOST_DEVICE static acc_type identity() { return 0; }
  TENSORLIB_HOST_DEVICE static acc_type step(acc_type a, T v) { return a + static_cast<acc_type>(v); }
  TENSORLIB_HOST_DEVICE static acc_type merge(acc_type a, acc_type b) { return a + b; }
  static acc_type block(const T* p, int64_t n) {
    acc_type r = 0;
    int64_t j = 0;
    if constexpr (simd::Lane<T>) {
      using V = simd::Vec<T>;
      constexpr int W = V::size;
      // Four independent chains: one chain would wait on the add latency.
      V s0(T(0)), s1(T(0)), s2(T(0)), s3(T(0));
      for (; j + 4 * W <= n; j += 4 * W) {
        s0 = s0 + V::load(p + j);
        s1 = s1 + V::load(p + j + W);
        s2 = s2 + V::load(p + j + 2 * W);
        s3 = s3 + V::load(p + j + 3 * W);
      }
      for (; j + W <= n; j += W) s0 = s0 + V::load(p + j);
      const V s = (s0 + s1) + (s2 + s3);
      for (int i = 0; i < W; ++i) r += static_cast<acc_type>(s[i]);
    }
    for (; j < n; ++j) r += static_cast<acc_type>(p[j]);
    return r;
  }
};

template <class T>
struct ProdReducer {
  using acc_type = std::conditional_t<is_floating<T>, double, int64_t>;
  TENSORLIB_HOST_DEVICE static acc_type identity() { return 1; }
  TENSORLIB_HOST_DEVICE static acc_type step(acc_type a, T v) { return a * static_cast<acc_type>(v); }
  TENSORLIB_HOST_DEVICE static acc_type merge(acc_type a, acc_type b) { return a * b; }
  static acc_type block(const T* p, int64_t n) {
    acc_type r = 1;
    for (int64_t j = 0; j < n; ++j) r *= static_cast<acc_type>(p[j]);
    return r;
  }
};

/// Largest (Max) or smallest value; NaN wins and stays (PyTorch's amax).
template <class T, bool Max>
struct ExtremumReducer {
  using acc_type = std::conditional_t<std::is_same_v<T, bool>, uint8_t, T>;
  TENSORLIB_HOST_DEVICE static acc_type identity() {
    if constexpr (is_floating<T>)
      return Max ? T(-std::numeric_limits<opmath_t<T>>::infinity()) : T(std::numeric_limits<opmath_t<T>>::infinity());
    else if constexpr (std::is_same_v<T, bool>)
      return Max ? 0 : 1;
    else
      return Max ? std::numeric_limits<T>::lowest() : std::numeric_limits<T>::max();
  }
  TENSORLIB_HOST_DEVICE static bool better(acc_type v, acc_type a) {
    if constexpr (is_floating<T>)
      return a == a && (v != v || (Max ? v > a : v < a));
    else
      return Max ? v > a : v < a;
  }
  TENSORLIB_HOST_DEVICE static acc_type step(acc_type a, T v) {
    return better(static_cast<acc_type>(v), a) ? static_cast<acc_type>(v) : a;
  }
  TENSORLIB_HOST_DEVICE static acc_type merge(acc_type a, acc_type b) { return better(b, a) ? b : a; }
  static acc_type block(const T* p, int64_t n) {
    acc_type r = identity();
    int64_t j = 0;
    if constexpr (simd::Lane<T>) {
      using V = simd::Vec<T>;
      constexpr int W = V::size;
      V m(identity());
      for (; j + W <= n; j += W) {
        const V x = V::load(p + j);
        // A NaN lane in m stays: comparisons with NaN are false.
        m = simd::select((Max ? x > m : x < m) || simd::isnan(x), x, m);
      }
      for (int i = 0; i < W; ++i) r = merge(r, m[i]);
    }
    for (; j < n; ++j) r = step(r, p[j]);
    return r;
  }
};

/// all (All = true) or any: acc is 0/1.
template <class T, bool All>
struct LogicalReducer {
  using acc_type = uint8_t;
  TENSORLIB_HOST_DEVICE static acc_type identity() { return All ? 1 : 0; }
  TENSORLIB_HOST_DEVICE static acc_type step(acc_type a, T v) { return All ? (a && v != T(0)) : (a || v != T(0)); }
  TENSORLIB_HOST_DEVICE static acc_type merge(acc_type a, acc_type b) { return All ? (a && b) : (a || b); }
  static acc_type block(const T* p, int64_t n) {
    acc_type r = identity();
    for (int64_t j = 0; j < n; ++j) r = step(r, p[j]);
    return r;
  }
};

template <class T>
struct CountNonzeroReducer {
  using acc_type = int64_t;
  TENSORLIB_HOST_DEVICE static acc_type identity() { return 0; }
  TENSORLIB_HOST_DEVICE static acc_type step(acc_type a, T v) { return a + (v != T(0)); }
  TENSORLIB_HOST_DEVICE static acc_type merge(acc_type a, acc_type b) { return a + b; }
  static acc_type block(const T* p, int64_t n) {
    acc_type r = 0;
    for (int64_t j = 0; j < n; ++j) r += (p[j] != T(0));
    return r;
  }
};

/// Finishes an accumulator by converting it to the result type (functor
/// objects, not lambdas, so that CUDA kernels can call them too).
template <class Out>
struct Convert {
  template <class A>
  TENSORLIB_HOST_DEVICE Out operator()(A a) const {
    return static_cast<Out>(a);
  }
};

/// Finishes a sum into a mean of `n` elements.
template <class Out>
struct DivideBy {
  double n;
  TENSORLIB_HOST_DEVICE Out operator()(double a) const { return static_cast<Out>(a / n); }
};

}  // namespace tensorlib::detail
