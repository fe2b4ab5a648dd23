#pragma once
/// \file
/// Softmax and log-softmax of contiguous rows (the last dimension), the
/// common case of `tl::softmax(x, -1)`: per row three sweeps (maximum; exp
/// of the shifted values stored and summed; scale), the row staying in L1/L2
/// between them, so the input is read from memory once and the output
/// written once. ops/reduce.hpp uses the fused three-pass expression form for
/// every other layout. The exponential is fn::Exp, the functor pointwise
/// `tl::exp` uses, here on SIMD packets.

#include <algorithm>
#include <cstdint>
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

/// y = exp(x - m) for p[0 .. n); returns the sum of y.
template <class T>
T exp_shifted_sum(const T* x, T* y, int64_t n, T m, bool store) {
  constexpr fn::Exp exp_fn;
  T s = 0;
  int64_t j = 0;
  if constexpr (simd::Lane<T>) {
    using V = simd::Vec<T>;
    constexpr int W = V::size;
    const V mv(m);
    V s0(T(0)), s1(T(0));
    for (; j + 2 * W <= n; j += 2 * W) {
      const V e0 = exp_fn(V::load(x + j) - mv), e1 = exp_fn(V::load(x + j + W) - mv);
      if (store) {
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
    if (store) y[j] = e;
    s += e;
  }
  return s;
}

/// y = x * k (Log: y = x - k) for [0, n).
template <bool Log, class T>
void scale_row(const T* x, T* y, int64_t n, T k) {
  int64_t j = 0;
  if constexpr (simd::Lane<T>) {
    using V = simd::Vec<T>;
    constexpr int W = V::size;
    const V kv(k);
    for (; j + W <= n; j += W) (Log ? V::load(x + j) - kv : V::load(x + j) * kv).store(y + j);
  }
  for (; j < n; ++j) y[j] = Log ? x[j] - k : x[j] * k;
}

}  // namespace detail

/// y[r, :] = softmax(x[r, :]) (Log: log_softmax) for `rows` contiguous rows
/// of `cols` elements; x and y may be the same buffer. Rows split across the
/// thread pool.
template <bool Log, class T>
void softmax_rows(const T* x, T* y, int64_t rows, int64_t cols) {
  const int64_t grain = std::max<int64_t>(1, 32768 / std::max<int64_t>(cols, 1));
  parallel_for(0, rows, grain, [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const T* xr = x + r * cols;
      T* yr = y + r * cols;
      const T m = detail::row_max(xr, cols);
      // log_softmax needs only the sum; softmax keeps the exponentials.
      const T s = detail::exp_shifted_sum(xr, yr, cols, m, !Log);
      if constexpr (Log) {
        const fn::Log log_fn;
        detail::scale_row<true>(xr, yr, cols, m + log_fn(s));
      } else {
        detail::scale_row<false>(yr, yr, cols, T(1) / s);
      }
    }
  });
}

}  // namespace tensorlib::cpu
