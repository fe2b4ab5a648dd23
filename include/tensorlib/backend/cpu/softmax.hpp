#pragma once
/// \file
/// Softmax and log-softmax of contiguous rows (the last dimension), the
/// common case of `tl::softmax(x, -1)`: per row three sweeps (maximum; exp
/// of the shifted values stored and summed; scale), the row staying in L1/L2
/// between them, so the input is read from memory once and the output
/// written once. ops/softmax.hpp uses the fused three-pass expression form for
/// every other layout. The exponential is fn::Exp, the functor pointwise
/// `tl::exp` uses, here on SIMD packets.

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <limits>

#include "tensorlib/backend/cpu/simd.hpp"
#include "tensorlib/backend/cpu/simd_math.hpp"
#include "tensorlib/backend/cpu/thread_pool.hpp"
#include "tensorlib/core/dtype.hpp"
#include "tensorlib/expr/functors/transcendental.hpp"

namespace tensorlib::cpu {
namespace detail {

/// The largest of p[0 .. n); NaN when any element is NaN (a NaN lane sticks:
/// comparisons with it are false).
template <class T>
T row_max(const T* p, int64_t n) {
  T m = -std::numeric_limits<T>::infinity();
  int64_t j = 0;
  if constexpr (simd::Lane<T>) {
    using V = simd::Vec<T>;
    constexpr int W = V::size;
    V m0(m), m1(m);
    for (; j + 2 * W <= n; j += 2 * W) {
      const V a = V::load(p + j), b = V::load(p + j + W);
      m0 = simd::select(a > m0 || simd::isnan(a), a, m0);
      m1 = simd::select(b > m1 || simd::isnan(b), b, m1);
    }
    for (int i = 0; i < W; ++i)
      for (const T v : {m0[i], m1[i]}) m = (v > m || v != v) ? v : m;
  }
  for (; j < n && m == m; ++j) m = (p[j] > m || p[j] != p[j]) ? p[j] : m;
  return m;
}

// fn::Exp on packets: off in nvcc translation units, which reject the
// compiler's vector types in the functors' host+device bodies (Note [host
// loops under nvcc] in docs/architecture.md).
#if defined(__CUDACC__)
inline constexpr bool kPacketExp = false;
#else
inline constexpr bool kPacketExp = true;
#endif

/// The sum of exp(x - m) over [0, n), storing the terms in y when Store.
template <bool Store, class T>
T exp_shifted_sum(const T* x, T* y, int64_t n, T m) {
  constexpr fn::Exp exp_fn;
  T s = 0;
  int64_t j = 0;
  if constexpr (simd::Lane<T> && kPacketExp) {
    using V = simd::Vec<T>;
    constexpr int W = V::size;
    const V mv(m);
    V s0(T(0)), s1(T(0));
    for (; j + 2 * W <= n; j += 2 * W) {
      const V e0 = exp_fn(V::load(x + j) - mv), e1 = exp_fn(V::load(x + j + W) - mv);
      if constexpr (Store) {
        e0.store(y + j);
        e1.store(y + j + W);
      }
      s0 = s0 + e0;
      s1 = s1 + e1;
    }
    const V sv = s0 + s1;
    for (int i = 0; i < W; ++i) s += sv[i];
  }
  for (; j < n; ++j) {
    const T e = exp_fn(x[j] - m);
    if constexpr (Store) y[j] = e;
    s += e;
  }
  return s;
}

/// y = x * k for [0, n).
template <class T>
void scale_row(const T* x, T* y, int64_t n, T k) {
  int64_t j = 0;
  if constexpr (simd::Lane<T>) {
    using V = simd::Vec<T>;
    constexpr int W = V::size;
    const V kv(k);
    for (; j + W <= n; j += W) (V::load(x + j) * kv).store(y + j);
  }
  for (; j < n; ++j) y[j] = x[j] * k;
}

/// y = (x - m) - l for [0, n), in that order: m + l would lose l when |m| is
/// large (log_softmax of [1e8, 1e8] must be -log 2, not 0).
template <class T>
void shift_row(const T* x, T* y, int64_t n, T m, T l) {
  int64_t j = 0;
  if constexpr (simd::Lane<T>) {
    using V = simd::Vec<T>;
    constexpr int W = V::size;
    const V mv(m), lv(l);
    for (; j + W <= n; j += W) ((V::load(x + j) - mv) - lv).store(y + j);
  }
  for (; j < n; ++j) y[j] = (x[j] - m) - l;
}

}  // namespace detail

/// y[r, :] = softmax(x[r, :]) (Log: log_softmax) for `rows` contiguous rows
/// of `cols` elements; x and y may be the same buffer. Rows split across the
/// thread pool (callers send few long rows elsewhere: see ops/softmax.hpp).
template <bool Log, class T>
void softmax_rows(const T* x, T* y, int64_t rows, int64_t cols) {
  const int64_t grain = std::max<int64_t>(1, 32768 / std::max<int64_t>(cols, 1));
  parallel_for(0, rows, grain, [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const T* xr = x + r * cols;
      T* yr = y + r * cols;
      const T m = detail::row_max(xr, cols);
      // log_softmax needs only the sum; softmax keeps the exponentials.
      if constexpr (Log) {
        const fn::Log log_fn;
        detail::shift_row(xr, yr, cols, m, log_fn(detail::exp_shifted_sum<false>(xr, yr, cols, m)));
      } else {
        detail::scale_row(yr, yr, cols, T(1) / detail::exp_shifted_sum<true>(xr, yr, cols, m));
      }
    }
  });
}

}  // namespace tensorlib::cpu
