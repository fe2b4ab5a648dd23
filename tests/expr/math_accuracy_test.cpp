// Accuracy of every function in expr/math. Float: the scalar entry point
// tl::math::f(float) and the packet version tl::simd::f(Vec<float>) over a
// dense sweep (log-spaced over every binade, subnormals included, plus a
// linear sweep of the interesting range and the special values) against the
// C library evaluated in double; max ulp error below a stated bound, scalar
// and packet bit-identical, nan/inf/signed zeros as the C library gives them.
// Double: the scalar entry points against long double references.
//
// Set TENSORLIB_MATH_REPORT=1 to print the measured figures.

#include <doctest/doctest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>
#include <vector>

#include "tensorlib/backend/cpu/simd_math.hpp"

namespace {

using VF = tl::simd::Vec<float>;
using VD = tl::simd::Vec<double>;
constexpr float kInfF = std::numeric_limits<float>::infinity();
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr float kNanF = std::numeric_limits<float>::quiet_NaN();

bool report() { return std::getenv("TENSORLIB_MATH_REPORT") != nullptr; }

/// |got - ref| in units of the ulp of T at ref; infinite when nan-ness, an
/// infinity or the sign of a zero differs from the reference rounded to T.
template <class T, class R>
double ulp_error(T got, R ref) {
  const T rounded = static_cast<T>(ref);
  if (std::isnan(ref) || std::isnan(got)) return std::isnan(ref) && std::isnan(got) ? 0 : kInf;
  if (std::isinf(rounded) || std::isinf(got)) return got == rounded ? 0 : kInf;
  if (rounded == 0 && got == 0 && std::signbit(rounded) != std::signbit(got)) return kInf;
  int e = 0;
  std::frexp(rounded, &e);
  const int digits = std::numeric_limits<T>::digits;
  const int min_exp = std::numeric_limits<T>::min_exponent;
  const R ulp = std::ldexp(R(1), (rounded == 0 ? min_exp : std::max(e, min_exp)) - digits);
  return static_cast<double>(std::fabs(static_cast<R>(got) - ref) / ulp);
}

bool same_bits(float a, float b) {
  return std::bit_cast<uint32_t>(a) == std::bit_cast<uint32_t>(b) || (std::isnan(a) && std::isnan(b));
}
bool same_bits(double a, double b) {
  return std::bit_cast<uint64_t>(a) == std::bit_cast<uint64_t>(b) || (std::isnan(a) && std::isnan(b));
}

/// Special values, both signs of every binade's edge, and a log-spaced sweep
/// of n magnitudes over all finite floats (subnormals included), both signs;
/// then n points evenly spaced over [lo, hi].
std::vector<float> float_inputs(float lo, float hi, int n = 100000) {
  std::vector<float> v = {0.0f, -0.0f, kInfF, -kInfF, kNanF, 1.0f, -1.0f, 0.5f, -0.5f, 2.0f, -2.0f};
  for (float m : {std::numeric_limits<float>::denorm_min(), std::numeric_limits<float>::min(),
                  std::numeric_limits<float>::max(), std::nextafter(1.0f, 0.0f), std::nextafter(1.0f, 2.0f)}) {
    v.push_back(m);
    v.push_back(-m);
  }
  for (float edge : {lo, hi}) {
    v.push_back(edge);
    v.push_back(std::nextafter(edge, -kInfF));
    v.push_back(std::nextafter(edge, kInfF));
  }
  // Bit patterns are log-spaced: step through them uniformly.
  const uint32_t top = std::bit_cast<uint32_t>(std::numeric_limits<float>::max());
  for (int i = 0; i < n / 2; ++i) {
    const float m = std::bit_cast<float>(static_cast<uint32_t>(static_cast<uint64_t>(top) * i / (n / 2)) | 1u);
    v.push_back(m);
    v.push_back(-m);
  }
  for (int i = 0; i <= n; ++i) v.push_back(lo + (hi - lo) * static_cast<float>(i) / static_cast<float>(n));
  return v;
}

std::vector<double> double_inputs(double lo, double hi, int n = 20000) {
  std::vector<double> v = {0.0, -0.0, kInf, -kInf, std::numeric_limits<double>::quiet_NaN(), 1.0, -1.0, 2.0, -2.0};
  for (double m : {std::numeric_limits<double>::denorm_min(), std::numeric_limits<double>::min(),
                   std::numeric_limits<double>::max()}) {
    v.push_back(m);
    v.push_back(-m);
  }
  const uint64_t top = std::bit_cast<uint64_t>(std::numeric_limits<double>::max());
  for (int i = 0; i < n / 2; ++i) {
    const double m = std::bit_cast<double>(top / static_cast<uint64_t>(n / 2) * static_cast<uint64_t>(i) | 1u);
    v.push_back(m);
    v.push_back(-m);
  }
  for (int i = 0; i <= n; ++i) v.push_back(lo + (hi - lo) * i / n);
  return v;
}

/// Applies a packet function to a whole array, a packet at a time.
template <class T, class P>
std::vector<T> apply_packets(const std::vector<T>& x, P packet) {
  using Vec = tl::simd::Vec<T>;
  std::vector<T> y(x.size());
  std::size_t i = 0;
  for (; i + Vec::size <= x.size(); i += Vec::size) packet(Vec::load(&x[i])).store(&y[i]);
  const int rest = static_cast<int>(x.size() - i);
  if (rest > 0) packet(Vec::load_partial(&x[i], rest)).store_partial(&y[i], rest);
  return y;
}

struct Measured {
  double max_ulp = 0;
  double worst_input = 0;
  long mismatches = 0;  // scalar and packet results that differ in any bit
};

/// Max ulp error of the scalar and packet versions of a unary function of T
/// against a reference computed in R, over the inputs that `keep` accepts.
template <class T, class R, class S, class P, class Ref, class Keep>
Measured measure(const std::vector<T>& x, S scalar, P packet, Ref reference, Keep keep) {
  Measured m;
  const std::vector<T> y = apply_packets(x, packet);
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (!keep(x[i])) continue;
    const T s = scalar(x[i]);
    if (!same_bits(s, y[i])) ++m.mismatches;
    const R ref = reference(static_cast<R>(x[i]));
    const double e = std::max(ulp_error(s, ref), ulp_error(y[i], ref));
    if (e > m.max_ulp) {
      m.max_ulp = e;
      m.worst_input = static_cast<double>(x[i]);
    }
  }
  return m;
}

/// The same for a binary function over all pairs of inputs.
template <class T, class R, class S, class P, class Ref>
Measured measure2(const std::vector<T>& a, const std::vector<T>& b, S scalar, P packet, Ref reference) {
  std::vector<T> x, y;
  for (T u : a)
    for (T v : b) {
      x.push_back(u);
      y.push_back(v);
    }
  using Vec = tl::simd::Vec<T>;
  std::vector<T> out(x.size());
  std::size_t i = 0;
  for (; i + Vec::size <= x.size(); i += Vec::size) packet(Vec::load(&x[i]), Vec::load(&y[i])).store(&out[i]);
  const int rest = static_cast<int>(x.size() - i);
  if (rest > 0) packet(Vec::load_partial(&x[i], rest), Vec::load_partial(&y[i], rest)).store_partial(&out[i], rest);
  Measured m;
  for (i = 0; i < x.size(); ++i) {
    const T s = scalar(x[i], y[i]);
    if (!same_bits(s, out[i])) ++m.mismatches;
    const R ref = reference(static_cast<R>(x[i]), static_cast<R>(y[i]));
    const double e = std::max(ulp_error(s, ref), ulp_error(out[i], ref));
    if (e > m.max_ulp) {
      m.max_ulp = e;
      m.worst_input = static_cast<double>(x[i]);
    }
  }
  return m;
}

void check(const std::string& name, const Measured& m, double bound) {
  INFO(name << ": max " << m.max_ulp << " ulp at x = " << m.worst_input << " (bound " << bound << "), " << m.mismatches
            << " scalar/packet mismatches");
  CHECK(m.max_ulp <= bound);
  CHECK(m.mismatches == 0);
  if (report())
    std::printf("%-18s max %.3f ulp at %.9g (bound %g), %ld mismatches\n", name.c_str(), m.max_ulp, m.worst_input,
                bound, m.mismatches);
}

constexpr auto kAll = [](auto) { return true; };

// Long double references where the C library has none.

/// erfinv by Newton steps on erf (on erfc near +-1, where 1 - |x| is exact).
long double erfinv_reference(long double x) {
  if (std::isnan(x) || std::fabs(x) > 1) return std::numeric_limits<long double>::quiet_NaN();
  if (std::fabs(x) == 1) return std::copysign(std::numeric_limits<long double>::infinity(), x);
  const long double a = std::fabs(x), two_over_sqrt_pi = 1.12837916709551257389615890312154517L;
  long double y = a < 0.9L ? a : std::sqrt(-std::log(1 - a));
  for (int i = 0; i < 100; ++i) {
    const long double f = a <= 0.5L ? std::erf(y) - a : (1 - a) - std::erfc(y);
    const long double step = f / (two_over_sqrt_pi * std::exp(-y * y));
    y -= step;
    if (std::fabs(step) <= 1e-21L * y) break;
  }
  return std::copysign(y, x);
}

/// digamma by reflection, recurrence up to 20 and 8 asymptotic terms.
long double digamma_reference(long double x) {
  const long double pi = 3.14159265358979323846264338327950288L;
  if (x == 0) return std::copysign(std::numeric_limits<long double>::infinity(), -x);
  if (std::isinf(x)) return x > 0 ? x : std::numeric_limits<long double>::quiet_NaN();
  if (x < 0) {
    if (x == std::floor(x)) return std::numeric_limits<long double>::quiet_NaN();
    return digamma_reference(1 - x) - pi / std::tan(pi * (x - std::nearbyint(x)));
  }
  long double r = 0;
  for (; x < 20; x += 1) r -= 1 / x;
  const long double z = 1 / (x * x);
  const long double b[] = {1.0L / 12,  -1.0L / 120,     1.0L / 252, -1.0L / 240,
                           1.0L / 132, -691.0L / 32760, 1.0L / 12,  -3617.0L / 8160};
  long double s = 0;
  for (int k = 7; k >= 0; --k) s = (s + b[k]) * z;
  return r + std::log(x) - 1 / (2 * x) - s;
}

}  // namespace

// Each row: the bound the test enforces, and in the comment the measured max
// ulp error, SSE2 build / AVX2+FMA build (g++ 12; clang 14 -march=native gives
// the AVX2 figures). The aim is <= 2 ulp for exp/log and <= 3-4 for the rest;
// the rows of exp_log.hpp / hyperbolic.hpp above 2 state what they measure.
#define TL_UNARY(T, R, f, lo, hi, reference, bound, keep)                                                              \
  check(#f " (" #T ")",                                                                                                \
        measure<T, R>(                                                                                                 \
            T##_inputs(lo, hi), [](T x) { return tl::math::f(x); }, [](tl::simd::Vec<T> x) { return tl::simd::f(x); }, \
            reference, keep),                                                                                          \
        bound)

TEST_CASE("math accuracy: float functions against the C library in double") {
  const auto c = [](double (*f)(double)) { return f; };
  TL_UNARY(float, double, exp, -104.0f, 89.0f, c(std::exp), 1.5, kAll);     // 1.19 / 0.86
  TL_UNARY(float, double, exp2, -150.0f, 128.0f, c(std::exp2), 1.5, kAll);  // 1.14 / 0.86
  TL_UNARY(float, double, expm1, -20.0f, 88.7f, c(std::expm1), 2.0, kAll);  // 1.55 / 1.62
  TL_UNARY(float, double, log, 0.0f, 100.0f, c(std::log), 2.0, kAll);       // 1.68 / 1.68
  TL_UNARY(float, double, log2, 0.0f, 100.0f, c(std::log2), 2.5, kAll);     // 2.44 / 2.44
  TL_UNARY(float, double, log10, 0.0f, 100.0f, c(std::log10), 3.0, kAll);   // 2.99 / 2.99
  TL_UNARY(float, double, log1p, -1.0f, 10.0f, c(std::log1p), 3.0, kAll);   // 2.64 / 2.64
  TL_UNARY(float, double, tanh, -10.0f, 10.0f, c(std::tanh), 2.5, kAll);    // 2.35 / 2.35
  TL_UNARY(float, double, sinh, -89.4f, 89.4f, c(std::sinh), 2.5, kAll);    // 2.05 / 2.05
  TL_UNARY(float, double, cosh, -89.4f, 89.4f, c(std::cosh), 1.5, kAll);    // 1.26 / 1.14
  TL_UNARY(float, double, sin, -300.0f, 300.0f, c(std::sin), 2.0, kAll);    // 1.46 / 1.46
  TL_UNARY(float, double, cos, -300.0f, 300.0f, c(std::cos), 2.0, kAll);    // 1.45 / 1.45
  TL_UNARY(float, double, tan, -300.0f, 300.0f, c(std::tan), 3.5, kAll);    // 2.31 / 2.31
  TL_UNARY(float, double, asin, -1.0f, 1.0f, c(std::asin), 2.5, kAll);      // 1.77 / 1.73
  TL_UNARY(float, double, acos, -1.0f, 1.0f, c(std::acos), 1.5, kAll);      // 1.02 / 1.00
  TL_UNARY(float, double, atan, -10.0f, 10.0f, c(std::atan), 2.5, kAll);    // 1.77 / 1.77
  // asinh/acosh/atanh: log1p's error plus its argument's; a sweep of every
  // 97th float (and 3 million doubles) measured 3.74 / 3.01 / 3.50 (float)
  // and 3.54 / 4.00 / 3.49 (double) ulp.
  TL_UNARY(float, double, asinh, -1e5f, 1e5f, c(std::asinh), 4.5, kAll);      // 3.07 (AVX2+FMA)
  TL_UNARY(float, double, acosh, 1.0f, 1e5f, c(std::acosh), 4.5, kAll);       // 2.31
  TL_UNARY(float, double, atanh, -1.0f, 1.0f, c(std::atanh), 4.5, kAll);      // 3.34
  TL_UNARY(float, double, erf, -5.0f, 5.0f, c(std::erf), 2.0, kAll);          // 1.03 / 0.77
  TL_UNARY(float, double, erfc, -5.0f, 11.0f, c(std::erfc), 3.5, kAll);       // 2.57 / 2.27
  TL_UNARY(float, double, lgamma, -20.0f, 20.0f, c(std::lgamma), 1.0, kAll);  // 0.50 / 0.50
  // digamma: 0.50 / 0.50
  TL_UNARY(
      float, double, digamma, -20.0f, 20.0f, [](double x) { return static_cast<double>(digamma_reference(x)); }, 1.0,
      kAll);
  // erfinv: 0.50 / 0.50
  TL_UNARY(
      float, double, erfinv, -1.0f, 1.0f, [](double x) { return static_cast<double>(erfinv_reference(x)); }, 2.0, kAll);
}

TEST_CASE("math accuracy: float sin, cos, tan over the whole fast range and beyond") {
  // Where the reduction by pi/2 hands over to the double fallback (|x| = 256
  // without FMA, 2^18 with it), and far past it.
  const auto c = [](double (*f)(double)) { return f; };
  TL_UNARY(float, double, sin, -300000.0f, 300000.0f, c(std::sin), 2.0, kAll);  // 1.36 / 1.40
  TL_UNARY(float, double, cos, -300000.0f, 300000.0f, c(std::cos), 2.0, kAll);  // 1.20 / 1.35
  TL_UNARY(float, double, tan, -300000.0f, 300000.0f, c(std::tan), 3.5, kAll);  // 2.21 / 2.32
}

TEST_CASE("math accuracy: double functions against the C library in long double") {
  const auto c = [](long double (*f)(long double)) { return f; };
  TL_UNARY(double, long double, exp, -746.0, 710.0, c(std::exp), 1.5, kAll);      // 1.04 / 0.82
  TL_UNARY(double, long double, exp2, -1075.0, 1024.0, c(std::exp2), 1.5, kAll);  // 1.15 / 0.86
  TL_UNARY(double, long double, expm1, -40.0, 709.7, c(std::expm1), 2.5, kAll);   // 2.25 / 1.36
  TL_UNARY(double, long double, log, 0.0, 100.0, c(std::log), 2.0, kAll);         // 1.48 / 1.48
  TL_UNARY(double, long double, log2, 0.0, 100.0, c(std::log2), 2.5, kAll);       // 2.31 / 2.31
  TL_UNARY(double, long double, log10, 0.0, 100.0, c(std::log10), 2.5, kAll);     // 2.37 / 2.37
  TL_UNARY(double, long double, log1p, -1.0, 10.0, c(std::log1p), 3.0, kAll);     // 2.66 / 2.66
  TL_UNARY(double, long double, tanh, -20.0, 20.0, c(std::tanh), 2.5, kAll);      // 2.03 / 2.03
  TL_UNARY(double, long double, sinh, -710.4, 710.4, c(std::sinh), 2.5, kAll);    // 2.47 / 2.47
  TL_UNARY(double, long double, cosh, -710.4, 710.4, c(std::cosh), 1.5, kAll);    // 1.05 / 0.98
  TL_UNARY(double, long double, asinh, -1e9, 1e9, c(std::asinh), 4.5, kAll);      // 2.27 (AVX2+FMA)
  TL_UNARY(double, long double, acosh, 1.0, 1e9, c(std::acosh), 4.5, kAll);       // 1.44
  TL_UNARY(double, long double, atanh, -1.0, 1.0, c(std::atanh), 4.5, kAll);      // 3.36
  // The C library's own accuracy (glibc).
  TL_UNARY(double, long double, sin, -300.0, 300.0, c(std::sin), 1.0, kAll);  // 0.51
  TL_UNARY(double, long double, cos, -300.0, 300.0, c(std::cos), 1.0, kAll);  // 0.51
  TL_UNARY(double, long double, tan, -300.0, 300.0, c(std::tan), 1.0, kAll);  // 0.52
  TL_UNARY(double, long double, asin, -1.0, 1.0, c(std::asin), 1.0, kAll);    // 0.50
  TL_UNARY(double, long double, acos, -1.0, 1.0, c(std::acos), 1.0, kAll);    // 0.51
  TL_UNARY(double, long double, atan, -10.0, 10.0, c(std::atan), 1.0, kAll);  // 0.51
  TL_UNARY(double, long double, erf, -6.0, 6.0, c(std::erf), 1.0, kAll);      // 0.87
  TL_UNARY(double, long double, erfc, -6.0, 27.0, c(std::erfc), 3.0, kAll);   // 2.44
  // Ours. lgamma and digamma have roots where only the absolute error is
  // small; they get their own checks below.
  const auto positive = [](double x) { return x > 0; };
  TL_UNARY(double, long double, lgamma, 0.0, 20.0, c(std::lgamma), 7.0, positive);  // 4.67 / 4.67
  const auto from_10 = [](double x) { return x >= 10; };
  TL_UNARY(double, long double, digamma, 10.0, 30.0, digamma_reference, 3.0, from_10);  // 2.66 / 2.66
  TL_UNARY(double, long double, erfinv, -1.0, 1.0, erfinv_reference, 2.0, kAll);        // 1.72 / 1.72
}
#undef TL_UNARY

TEST_CASE("math accuracy: atan2, pow, fmod over pairs of inputs") {
  // Special values and a log-spaced set of magnitudes, both signs, for each argument.
  std::vector<float> xf = {0.0f, -0.0f, kInfF, -kInfF, kNanF, 1.0f, -1.0f, 0.5f, 2.0f, -3.0f, 3.0f, 1e-45f, -1e-45f};
  for (int i = 0; i < 280; ++i) {
    const float m = std::ldexp(1.0f + 0.37f * static_cast<float>(i % 7), i - 150);
    xf.push_back(m);
    xf.push_back(-m);
  }
  std::vector<double> xd(xf.begin(), xf.end());
  const auto atan2_ref = [](double y, double x) { return std::atan2(y, x); };
  const auto pow_ref = [](double x, double y) { return std::pow(x, y); };
  const auto fmod_ref = [](double x, double y) { return std::fmod(x, y); };
  check("atan2 (float)",
        measure2<float, double>(
            xf, xf, [](float y, float x) { return tl::math::atan2(y, x); },
            [](VF y, VF x) { return tl::simd::atan2(y, x); }, atan2_ref),
        2.5);
  // pow and fmod call the C library per lane; fmod is exact.
  check("pow (float)",
        measure2<float, double>(
            xf, xf, [](float x, float y) { return tl::math::pow(x, y); },
            [](VF x, VF y) { return tl::simd::pow(x, y); }, pow_ref),
        1.0);
  check("fmod (float)",
        measure2<float, double>(
            xf, xf, [](float x, float y) { return tl::math::fmod(x, y); },
            [](VF x, VF y) { return tl::simd::fmod(x, y); }, fmod_ref),
        0.0);
  const auto atan2_refl = [](long double y, long double x) { return std::atan2(y, x); };
  const auto pow_refl = [](long double x, long double y) { return std::pow(x, y); };
  const auto fmod_refl = [](long double x, long double y) { return std::fmod(x, y); };
  check("atan2 (double)",
        measure2<double, long double>(
            xd, xd, [](double y, double x) { return tl::math::atan2(y, x); },
            [](VD y, VD x) { return tl::simd::atan2(y, x); }, atan2_refl),
        1.0);
  check("pow (double)",
        measure2<double, long double>(
            xd, xd, [](double x, double y) { return tl::math::pow(x, y); },
            [](VD x, VD y) { return tl::simd::pow(x, y); }, pow_refl),
        1.0);
  check("fmod (double)",
        measure2<double, long double>(
            xd, xd, [](double x, double y) { return tl::math::fmod(x, y); },
            [](VD x, VD y) { return tl::simd::fmod(x, y); }, fmod_refl),
        0.0);

  // atan2's IEEE special cases, exactly as the C library gives them.
  for (float y : {0.0f, -0.0f, 1.0f, -1.0f, kInfF, -kInfF, kNanF})
    for (float x : {0.0f, -0.0f, 1.0f, -1.0f, kInfF, -kInfF, kNanF}) {
      INFO("atan2(" << y << ", " << x << ")");
      CHECK(same_bits(tl::math::atan2(y, x), std::atan2(y, x)));
    }
}

TEST_CASE("lgamma, digamma, erfinv: poles, infinities, roots") {
  namespace m = tl::math;
  constexpr double inf = kInf;
  // lgamma: +inf at the poles and at +-inf (C and PyTorch), nan stays nan.
  for (double x : {0.0, -0.0, -1.0, -2.0, -1e10, -inf, inf}) {
    INFO("lgamma(" << x << ")");
    CHECK(m::lgamma(x) == inf);
    CHECK(m::lgamma(static_cast<float>(x)) == kInfF);
  }
  CHECK(std::isnan(m::lgamma(std::numeric_limits<double>::quiet_NaN())));
  CHECK(std::isnan(m::lgamma(kNanF)));
  // digamma: -inf at +0, +inf at -0, nan at the negative integers and -inf (PyTorch).
  CHECK(m::digamma(0.0) == -inf);
  CHECK(m::digamma(-0.0) == inf);
  CHECK(m::digamma(0.0f) == -kInfF);
  CHECK(m::digamma(-0.0f) == kInfF);
  CHECK(m::digamma(inf) == inf);
  for (double x : {-1.0, -2.0, -1e10, -inf}) {
    CHECK(std::isnan(m::digamma(x)));
    CHECK(std::isnan(m::digamma(static_cast<float>(x))));
  }
  // erfinv: +-inf at +-1, nan outside [-1, 1], signed zeros kept.
  CHECK(m::erfinv(1.0) == inf);
  CHECK(m::erfinv(-1.0f) == -kInfF);
  CHECK(std::isnan(m::erfinv(1.5)));
  CHECK(std::isnan(m::erfinv(-1.0000001f)));
  CHECK(same_bits(m::erfinv(-0.0f), -0.0f));

  // Near the roots x = 1, 2 lgamma keeps its relative accuracy: x = r +- 2^-k
  // and an even sweep of [r - 1/2, r + 1/2].
  double worst_ulp = 0, worst_abs = 0, worst_ulp_f = 0, worst_abs_f = 0;
  for (double root : {1.0, 2.0}) {
    std::vector<double> xs;
    for (int k = 1; k <= 60; ++k) {
      xs.push_back(root + std::ldexp(1.0, -k));
      xs.push_back(root - std::ldexp(1.0, -k));
    }
    for (int i = 0; i <= 20000; ++i) xs.push_back(root - 0.5 + i / 20000.0);
    for (double x : xs) {
      const long double ref = std::lgamma(static_cast<long double>(x));
      worst_ulp = std::max(worst_ulp, ulp_error(m::lgamma(x), ref));
      worst_abs = std::max(worst_abs, static_cast<double>(std::fabs(m::lgamma(x) - ref)));
      const float xf = static_cast<float>(x);
      const double reff = std::lgamma(static_cast<double>(xf));
      worst_ulp_f = std::max(worst_ulp_f, ulp_error(m::lgamma(xf), reff));
      worst_abs_f = std::max(worst_abs_f, std::fabs(m::lgamma(xf) - reff));
    }
  }
  CHECK(worst_abs < 1e-14);
  CHECK(worst_ulp <= 7.0);
  CHECK(worst_abs_f < 1e-6);
  CHECK(worst_ulp_f <= 1.0);
  // Negative non-integers: lgamma crosses zero between the poles, so only the
  // absolute error (relative to max(1, |lgamma|)) is small there.
  double worst_neg = 0;
  for (int i = 1; i < 200000; ++i) {
    const double x = -20.0 * i / 200000.0;
    if (x == std::floor(x)) continue;
    const long double ref = std::lgamma(static_cast<long double>(x));
    worst_neg =
        std::max(worst_neg, static_cast<double>(std::fabs(m::lgamma(x) - ref) / std::max(1.0L, std::fabs(ref))));
  }
  CHECK(worst_neg < 1e-14);
  // digamma below 2 has the root 1.4616...: absolute error there.
  double worst_digamma = 0;
  for (int i = 1; i < 200000; ++i) {
    const double x = -20.0 + 22.0 * i / 200000.0;
    if (x == std::floor(x) && x <= 0) continue;
    const long double ref = digamma_reference(x);
    worst_digamma =
        std::max(worst_digamma, static_cast<double>(std::fabs(m::digamma(x) - ref) / std::max(1.0L, std::fabs(ref))));
  }
  CHECK(worst_digamma < 1e-14);
  if (report())
    std::printf(
        "lgamma near 1, 2: double %.3f ulp (abs %.2g), float %.3f ulp (abs %.2g); x < 0: rel-to-max(1,|y|) %.2g;"
        " digamma (-20, 2): %.2g\n",
        worst_ulp, worst_abs, worst_ulp_f, worst_abs_f, worst_neg, worst_digamma);
}

// Regressions at the top of the range: expm1 (and sinh through it) once
// built 2^n as one number, which overflows for n = 128 / 1024 although the
// result is finite (x in [88.38, 88.72] / [709.09, 709.78]).
TEST_CASE("math accuracy: expm1, sinh, cosh near overflow") {
  namespace m = tl::math;
  CHECK(std::isinf(m::cosh(std::numeric_limits<float>::infinity())));
  CHECK(std::isinf(m::sinh(-std::numeric_limits<double>::infinity())));
  CHECK(m::sinh(-std::numeric_limits<double>::infinity()) < 0);
  CHECK(std::isinf(m::expm1(89.0f)));
  CHECK(std::isinf(m::cosh(89.5f)));
  CHECK(ulp_error(m::expm1(88.5f), std::expm1(88.5)) <= 2.0);
  CHECK(ulp_error(m::sinh(88.5f), std::sinh(88.5)) <= 2.5);
  CHECK(ulp_error(m::expm1(709.5), std::expm1(709.5L)) <= 2.0);
  CHECK(ulp_error(m::sinh(-709.5), std::sinh(-709.5L)) <= 2.5);
  // Past the exp overflow threshold, cosh/sinh once computed exp(|x| - ln 2),
  // rounding |x| - ln 2 to the precision of x: 24 ulp at 89.41 (float), 308
  // ulp at 710 (double).
  CHECK(ulp_error(m::cosh(89.4114075f), std::cosh(89.4114075)) <= 2.5);
  CHECK(ulp_error(m::cosh(-710.0), std::cosh(-710.0L)) <= 2.5);
}
