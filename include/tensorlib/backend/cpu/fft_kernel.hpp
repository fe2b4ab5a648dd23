#pragma once
/// \file
/// Discrete Fourier transforms of one length on strided lines: `FftPlan`
/// (one length, planned once, applied to many lines) and the line drivers
/// `fft_c2c`, `fft_r2c`, `fft_c2r` that `ops/fft.hpp` calls.
///
/// Note [fft algorithms]
/// Every transform computes in double, whatever the element type, and its
/// twiddle factors are evaluated directly with std::cos/std::sin (no
/// recurrences), so float results are the double results rounded once.
///  * n a power of two: iterative radix-2 Cooley-Tukey (bit reversal, then
///    log2(n) butterfly passes reading one twiddle table exp(-2 pi i k / n)).
///  * other n whose prime factors are all <= kMaxRadix: recursive mixed-radix
///    Cooley-Tukey (decimation in time; factors 4, 2, then odd primes in
///    increasing order; radix 2 and 4 butterflies written out, other radices
///    as a direct p-point sum). All twiddles come from one table
///    exp(-2 pi i k / n). A prime n <= kMaxRadix is one direct n-point sum.
///  * other n (a prime factor > kMaxRadix): Bluestein's chirp-z algorithm. With c_k = exp(-pi i k^2 / n),
///    jk = (j^2 + k^2 - (j - k)^2) / 2 gives X_j = c_j sum_k (x_k c_k)
///    conj(c_{j-k}): a convolution computed by radix-2 transforms of a power
///    of two m >= 2n - 1. k^2 is reduced mod 2n in integers, so the chirp's
///    argument stays exact for large k.
/// The inverse (unnormalized, exp(+2 pi i jk / n)) is conj(F(conj(x))).
/// A buffer of complex values is interleaved (re, im) pairs, PyTorch's
/// `view_as_real` layout.

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <numbers>
#include <utility>
#include <vector>

#include "tensorlib/backend/cpu/thread_pool.hpp"

namespace tensorlib::cpu {

using Complex128 = std::complex<double>;

namespace detail {

/// Product without the NaN/inf recovery of std::complex's operator* (which
/// GCC compiles to a library call); transforms of finite data are unaffected.
inline Complex128 cmul(Complex128 a, Complex128 b) {
  return {a.real() * b.real() - a.imag() * b.imag(), a.real() * b.imag() + a.imag() * b.real()};
}

/// exp(-2 pi i k / n), evaluated directly.
inline Complex128 unit_root(int64_t k, int64_t n) {
  const double angle = 2.0 * std::numbers::pi * static_cast<double>(k) / static_cast<double>(n);
  return {std::cos(angle), -std::sin(angle)};
}

inline bool is_power_of_two(int64_t n) { return n > 0 && (n & (n - 1)) == 0; }

}  // namespace detail

/// The forward DFT X_j = sum_k x_k exp(-2 pi i j k / n) of one length n >= 1
/// (Note [fft algorithms]). Immutable after construction, so one plan serves
/// every row and every thread; each caller brings its own scratch buffer.
class FftPlan {
 public:
  /// Largest prime factor the mixed-radix path takes (its butterflies cost
  /// p operations per value); lengths with a larger one use Bluestein.
  static constexpr int64_t kMaxRadix = 61;
  static_assert(kMaxRadix >= 4, "FftPlan: the butterfly buffer must hold a radix-4 step");

  explicit FftPlan(int64_t n) : n_(n) {
    if (detail::is_power_of_two(n)) {
      kind_ = Kind::Radix2;
      twiddles_.resize(static_cast<std::size_t>(n / 2));
      for (int64_t k = 0; k < n / 2; ++k) twiddles_[static_cast<std::size_t>(k)] = detail::unit_root(k, n);
    } else if (factorize()) {
      kind_ = Kind::Mixed;
      twiddles_.resize(static_cast<std::size_t>(n));
      for (int64_t k = 0; k < n; ++k) twiddles_[static_cast<std::size_t>(k)] = detail::unit_root(k, n);
    } else {
      kind_ = Kind::Bluestein;
      plan_bluestein();
    }
  }

  int64_t size() const { return n_; }
  /// Complex values of scratch space `forward`/`inverse` need.
  int64_t work_size() const { return kind_ == Kind::Mixed ? n_ : kind_ == Kind::Bluestein ? m_ : 0; }

  /// In-place forward transform of n values.
  void forward(Complex128* x, Complex128* work) const {
    switch (kind_) {
      case Kind::Radix2:
        radix2(x, n_, twiddles_.data(), 1);
        return;
      case Kind::Mixed:
        std::copy(x, x + n_, work);
        mixed(work, x, n_, 1, factors_.data());
        return;
      case Kind::Bluestein:
        bluestein(x, work);
        return;
    }
  }

  /// In-place unnormalized inverse transform (exp(+2 pi i j k / n)).
  void inverse(Complex128* x, Complex128* work) const {
    for (int64_t k = 0; k < n_; ++k) x[k] = std::conj(x[k]);
    forward(x, work);
    for (int64_t k = 0; k < n_; ++k) x[k] = std::conj(x[k]);
  }

 private:
  enum class Kind { Radix2, Mixed, Bluestein };

  // Splits n into factors_ (4s, a 2, then odd primes ascending); false when a
  // prime factor exceeds kMaxRadix.
  bool factorize() {
    int64_t rest = n_;
    while (rest % 4 == 0) {
      factors_.push_back(4);
      rest /= 4;
    }
    if (rest % 2 == 0) {
      factors_.push_back(2);
      rest /= 2;
    }
    for (int64_t p = 3; p <= kMaxRadix && rest > 1; p += 2) {
      while (rest % p == 0) {
        factors_.push_back(p);
        rest /= p;
      }
    }
    return rest == 1;
  }

  // Iterative radix-2 transform of n values; `tw[k * tw_step]` = exp(-2 pi i k / n).
  static void radix2(Complex128* a, int64_t n, const Complex128* tw, int64_t tw_step) {
    for (int64_t i = 1, j = 0; i < n; ++i) {
      int64_t bit = n >> 1;
      for (; j & bit; bit >>= 1) j ^= bit;
      j ^= bit;
      if (i < j) std::swap(a[i], a[j]);
    }
    for (int64_t len = 2; len <= n; len <<= 1) {
      const int64_t half = len / 2, step = (n / len) * tw_step;
      for (int64_t i = 0; i < n; i += len) {
        for (int64_t k = 0; k < half; ++k) {
          const Complex128 u = a[i + k], v = detail::cmul(a[i + k + half], tw[k * step]);
          a[i + k] = u + v;
          a[i + k + half] = u - v;
        }
      }
    }
  }

  // out[0, n) = the DFT of in[0], in[s], ..., in[(n - 1) s], where `factors`
  // multiply to n (decimation in time): the p sub-transforms of the
  // subsequences in[q s + r p s] land in out[q m, (q + 1) m), m = n / p, and
  // X[k + j m] = sum_q W_n^(q k) Y_q[k] W_p^(q j) combines them in place.
  void mixed(const Complex128* in, Complex128* out, int64_t n, int64_t s, const int64_t* factors) const {
    const int64_t p = factors[0], m = n / p;
    if (m == 1) {
      for (int64_t j = 0; j < p; ++j) out[j] = in[j * s];
    } else {
      for (int64_t q = 0; q < p; ++q) mixed(in + q * s, out + q * m, m, s * p, factors + 1);
    }
    const Complex128* tw = twiddles_.data();
    const int64_t tw_n = n_ / n, tw_p = n_ / p;  // W_n^e = tw[e tw_n], W_p^e = tw[e tw_p]
    Complex128 t[kMaxRadix];
    for (int64_t k = 0; k < m; ++k) {
      t[0] = out[k];
      for (int64_t q = 1; q < p; ++q) t[q] = detail::cmul(out[q * m + k], tw[q * k * tw_n]);
      if (p == 2) {
        out[k] = t[0] + t[1];
        out[k + m] = t[0] - t[1];
      } else if (p == 4) {
        const Complex128 a0 = t[0] + t[2], a1 = t[0] - t[2], a2 = t[1] + t[3];
        const Complex128 d = t[1] - t[3], a3{d.imag(), -d.real()};  // -i (t1 - t3)
        out[k] = a0 + a2;
        out[k + m] = a1 + a3;
        out[k + 2 * m] = a0 - a2;
        out[k + 3 * m] = a1 - a3;
      } else {
        for (int64_t j = 0; j < p; ++j) {
          Complex128 sum = t[0];
          int64_t e = 0;  // (q j) mod p
          for (int64_t q = 1; q < p; ++q) {
            e += j;
            if (e >= p) e -= p;
            sum += detail::cmul(t[q], tw[e * tw_p]);
          }
          out[k + j * m] = sum;
        }
      }
    }
  }

  void plan_bluestein() {
    m_ = 1;
    while (m_ < 2 * n_ - 1) m_ <<= 1;
    twiddles_.resize(static_cast<std::size_t>(m_ / 2));
    for (int64_t k = 0; k < m_ / 2; ++k) twiddles_[static_cast<std::size_t>(k)] = detail::unit_root(k, m_);
    chirp_.resize(static_cast<std::size_t>(n_));
    int64_t sq = 0;  // k^2 mod 2n, updated as (k + 1)^2 = k^2 + 2k + 1
    for (int64_t k = 0; k < n_; ++k) {
      chirp_[static_cast<std::size_t>(k)] = detail::unit_root(sq, 2 * n_);
      sq = (sq + 2 * k + 1) % (2 * n_);
    }
    // FFT_m of b, b_k = b_{m-k} = conj(c_k), with the 1/m of the inverse folded in.
    kernel_.assign(static_cast<std::size_t>(m_), Complex128(0));
    for (int64_t k = 0; k < n_; ++k) {
      const Complex128 b = std::conj(chirp_[static_cast<std::size_t>(k)]);
      kernel_[static_cast<std::size_t>(k)] = b;
      if (k > 0) kernel_[static_cast<std::size_t>(m_ - k)] = b;
    }
    radix2(kernel_.data(), m_, twiddles_.data(), 1);
    const double inv_m = 1.0 / static_cast<double>(m_);
    for (auto& v : kernel_) v *= inv_m;
  }

  void bluestein(Complex128* x, Complex128* a) const {
    for (int64_t k = 0; k < n_; ++k) a[k] = detail::cmul(x[k], chirp_[static_cast<std::size_t>(k)]);
    for (int64_t k = n_; k < m_; ++k) a[k] = 0;
    radix2(a, m_, twiddles_.data(), 1);
    // Inverse transform of A * B as conj(F(conj(A * B))).
    for (int64_t k = 0; k < m_; ++k) a[k] = std::conj(detail::cmul(a[k], kernel_[static_cast<std::size_t>(k)]));
    radix2(a, m_, twiddles_.data(), 1);
    for (int64_t j = 0; j < n_; ++j) x[j] = detail::cmul(std::conj(a[j]), chirp_[static_cast<std::size_t>(j)]);
  }

  int64_t n_ = 0;
  Kind kind_ = Kind::Radix2;
  std::vector<int64_t> factors_;      // mixed radix: the radices, outermost first
  int64_t m_ = 0;                     // Bluestein's convolution length
  std::vector<Complex128> twiddles_;  // exp(-2 pi i k / n) (k < n / 2 for radix 2), or / m for Bluestein
  std::vector<Complex128> chirp_;     // c_k = exp(-pi i k^2 / n)
  std::vector<Complex128> kernel_;    // FFT_m(b) / m
};

/// Where the lines of one transform lie: line r starts at `data + rows[r]`
/// and its element k at `data + rows[r] + k * step` (in elements of T; a
/// complex element's imaginary part follows its real part). Lines may have any
/// layout, so transposed and sliced tensors are read in place.
template <class P>
struct Lines {
  P* data;
  const int64_t* rows;
  int64_t step;
};

namespace detail {

/// Runs f(row, buffer, work) over rows [0, count) in parallel, each task with
/// its own n-value buffer and the plan's scratch. Rows are independent, so
/// results do not depend on the thread count.
template <class F>
void for_each_row(int64_t count, const FftPlan& plan, const F& f, int64_t buffer_size = -1) {
  const int64_t n = buffer_size < 0 ? plan.size() : buffer_size;
  const int64_t grain = std::max<int64_t>(1, 16384 / std::max<int64_t>(n, 1));
  parallel_for(0, count, grain, [&](int64_t begin, int64_t end) {
    std::vector<Complex128> buffer(static_cast<std::size_t>(n));
    std::vector<Complex128> work(static_cast<std::size_t>(plan.work_size()));
    for (int64_t r = begin; r < end; ++r) f(r, buffer.data(), work.data());
  });
}

/// W_n^k = exp(-2 pi i k / n) for k = 0..n/2, with W_n^(n/2) = -1 exactly
/// (the twiddles that split an even real transform; Note [real transforms]).
inline std::vector<Complex128> half_twiddles(int64_t n) {
  std::vector<Complex128> w(static_cast<std::size_t>(n / 2 + 1));
  for (int64_t k = 0; k <= n / 2; ++k) w[static_cast<std::size_t>(k)] = unit_root(k, n);
  w[static_cast<std::size_t>(n / 2)] = -1.0;
  return w;
}

}  // namespace detail

/// Complex-to-complex transforms of `count` lines: line r of `in` holds
/// `len_in` complex values; it is cut or zero-padded to n, transformed
/// (inverse: exp(+...)), scaled and written as n complex values to line r of `out`.
template <class T>
void fft_c2c(Lines<const T> in, int64_t count, int64_t len_in, Lines<T> out, int64_t n, bool inverse, double scale) {
  const FftPlan plan(n);
  const int64_t used = std::min(len_in, n);
  detail::for_each_row(count, plan, [&](int64_t r, Complex128* x, Complex128* work) {
    const T* src = used > 0 ? in.data + in.rows[r] : nullptr;  // an empty tensor may have no memory
    for (int64_t k = 0; k < used; ++k)
      x[k] = {static_cast<double>(src[k * in.step]), static_cast<double>(src[k * in.step + 1])};
    for (int64_t k = used; k < n; ++k) x[k] = 0;
    if (inverse)
      plan.inverse(x, work);
    else
      plan.forward(x, work);
    T* dst = out.data + out.rows[r];
    for (int64_t k = 0; k < n; ++k) {
      dst[k * out.step] = static_cast<T>(x[k].real() * scale);
      dst[k * out.step + 1] = static_cast<T>(x[k].imag() * scale);
    }
  });
}

// Note [real transforms]
// A real transform of even length n = 2h runs as one complex transform of
// length h. Forward: z_m = x_2m + i x_2m+1, Z = F_h(z); the transforms of the
// even and odd samples are E_k = (Z_k + conj(Z_(h-k))) / 2 and
// O_k = (Z_k - conj(Z_(h-k))) / 2i (indices mod h), and X_k = E_k + W_n^k O_k
// for k = 0..h. Backward (x_j = sum_k X_k exp(+2 pi i jk / n) of a Hermitian
// X): with X_(k+h) = conj(X_(h-k)), the even samples are the inverse h-point
// transform of X_k + conj(X_(h-k)) and the odd ones that of
// (X_k - conj(X_(h-k))) conj(W_n^k); both are real, so one inverse transform
// of the first plus i times the second gives x_2m + i x_2m+1. The forward
// direction of the same (hfft) uses W_n^k and F_h. Odd lengths run as complex
// transforms of length n with zero imaginary parts.

/// Real-to-complex transforms of `count` lines: line r of `in` holds `len_in`
/// reals, cut or zero-padded to n; the first `bins` (n, or n / 2 + 1 for a
/// one-sided spectrum) values of its transform are scaled and written.
template <class T>
void fft_r2c(Lines<const T> in, int64_t count, int64_t len_in, Lines<T> out, int64_t n, int64_t bins, bool inverse,
             double scale) {
  const int64_t used = std::min(len_in, n);
  // The inverse of real data is the conjugate of its forward transform.
  const double sign = inverse ? -1.0 : 1.0;
  auto store = [&](int64_t r, const Complex128* spectrum) {  // spectrum[0..n/2] or [0..n)
    T* dst = out.data + out.rows[r];
    for (int64_t k = 0; k < bins; ++k) {
      const Complex128 v = k <= n / 2 ? spectrum[k] : std::conj(spectrum[n - k]);
      dst[k * out.step] = static_cast<T>(v.real() * scale);
      dst[k * out.step + 1] = static_cast<T>(sign * v.imag() * scale);
    }
  };
  if (n % 2 == 1) {
    const FftPlan plan(n);
    detail::for_each_row(count, plan, [&](int64_t r, Complex128* x, Complex128* work) {
      const T* src = used > 0 ? in.data + in.rows[r] : nullptr;  // an empty tensor may have no memory
      for (int64_t k = 0; k < used; ++k) x[k] = static_cast<double>(src[k * in.step]);
      for (int64_t k = used; k < n; ++k) x[k] = 0;
      plan.forward(x, work);
      store(r, x);
    });
    return;
  }
  const int64_t h = n / 2;
  const FftPlan plan(h);
  const std::vector<Complex128> w = detail::half_twiddles(n);
  detail::for_each_row(
      count, plan,
      [&](int64_t r, Complex128* z, Complex128* work) {
        const T* src = used > 0 ? in.data + in.rows[r] : nullptr;  // an empty tensor may have no memory
        for (int64_t m = 0; m < h; ++m) {
          const double even = 2 * m < used ? static_cast<double>(src[2 * m * in.step]) : 0.0;
          const double odd = 2 * m + 1 < used ? static_cast<double>(src[(2 * m + 1) * in.step]) : 0.0;
          z[m] = {even, odd};
        }
        plan.forward(z, work);
        Complex128* x = z + h;  // X_0..X_h
        for (int64_t k = 0; k <= h; ++k) {
          const Complex128 a = k == h ? z[0] : z[k], b = std::conj(k == 0 ? z[0] : z[h - k]);
          const Complex128 e = 0.5 * (a + b), d = 0.5 * (a - b), o{d.imag(), -d.real()};  // o = d / i
          x[k] = e + detail::cmul(w[static_cast<std::size_t>(k)], o);
        }
        store(r, x);
      },
      n + 1);
}

/// Complex-to-real transforms of `count` lines: line r of `in` holds `len_in`
/// complex values, the first n / 2 + 1 of which (zero-padded) define a
/// Hermitian spectrum of length n; its transform (real by symmetry) is scaled
/// and written as n reals. As in PyTorch, the imaginary parts of the
/// zero-frequency value and, for even n, of the Nyquist value are ignored.
template <class T>
void fft_c2r(Lines<const T> in, int64_t count, int64_t len_in, Lines<T> out, int64_t n, bool inverse, double scale) {
  const int64_t half = n / 2 + 1;
  const int64_t used = std::min(len_in, half);
  auto load = [&](int64_t r, Complex128* x) {                  // x[0..n/2]
    const T* src = used > 0 ? in.data + in.rows[r] : nullptr;  // an empty tensor may have no memory
    for (int64_t k = 0; k < used; ++k)
      x[k] = {static_cast<double>(src[k * in.step]), static_cast<double>(src[k * in.step + 1])};
    for (int64_t k = used; k < half; ++k) x[k] = 0;
    x[0].imag(0);
    if (n % 2 == 0) x[n / 2].imag(0);
  };
  if (n % 2 == 1) {
    const FftPlan plan(n);
    detail::for_each_row(count, plan, [&](int64_t r, Complex128* x, Complex128* work) {
      load(r, x);
      for (int64_t k = half; k < n; ++k) x[k] = std::conj(x[n - k]);
      if (inverse)
        plan.inverse(x, work);
      else
        plan.forward(x, work);
      T* dst = out.data + out.rows[r];
      for (int64_t k = 0; k < n; ++k) dst[k * out.step] = static_cast<T>(x[k].real() * scale);
    });
    return;
  }
  const int64_t h = n / 2;
  const FftPlan plan(h);
  const std::vector<Complex128> w = detail::half_twiddles(n);
  detail::for_each_row(
      count, plan,
      [&](int64_t r, Complex128* z, Complex128* work) {
        Complex128* x = z + h;  // X_0..X_h
        load(r, x);
        for (int64_t k = 0; k < h; ++k) {
          const Complex128 a = x[k], b = std::conj(x[h - k]);
          const Complex128 twiddle =
              inverse ? std::conj(w[static_cast<std::size_t>(k)]) : w[static_cast<std::size_t>(k)];
          const Complex128 e = a + b, o = detail::cmul(a - b, twiddle);
          z[k] = {e.real() - o.imag(), e.imag() + o.real()};  // e + i o
        }
        if (inverse)
          plan.inverse(z, work);
        else
          plan.forward(z, work);
        T* dst = out.data + out.rows[r];
        for (int64_t m = 0; m < h; ++m) {
          dst[2 * m * out.step] = static_cast<T>(z[m].real() * scale);
          dst[(2 * m + 1) * out.step] = static_cast<T>(z[m].imag() * scale);
        }
      },
      n + 1);
}

}  // namespace tensorlib::cpu
