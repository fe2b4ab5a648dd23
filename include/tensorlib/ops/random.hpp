#pragma once
/// \file
/// Random tensors from counter-based Philox streams (Note [philox streams] in
/// core/generator.hpp): `rand`, `randn`, `randint`, `randperm`, `normal`,
/// `bernoulli` and their `*_like` forms (the in-place fills are in
/// ops/random_fill.hpp).
/// Each op documents which words of which block element i uses; the CUDA
/// backend follows the same mapping.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <vector>

#include "tensorlib/core/error.hpp"
#include "tensorlib/core/generator.hpp"
#include "tensorlib/core/grad_mode.hpp"
#include "tensorlib/core/philox.hpp"
#include "tensorlib/core/tensor.hpp"
#include "tensorlib/core/tensor_options.hpp"
#include "tensorlib/expr/build.hpp"
#include "tensorlib/expr/functions.hpp"
#include "tensorlib/expr/operators.hpp"
#include "tensorlib/ops/copy.hpp"
#include "tensorlib/ops/dispatch.hpp"
#include "tensorlib/ops/evaluate.hpp"
#include "tensorlib/ops/factories.hpp"
#include "tensorlib/ops/reduce.hpp"

namespace tensorlib {
namespace detail {

inline constexpr double kTwoPi = 6.283185307179586476925;

/// Uniform in [0, 1) from the top 24 bits of a word (float streams).
TENSORLIB_HOST_DEVICE inline float uniform_float(uint32_t w) { return static_cast<float>(w >> 8) * 0x1p-24f; }
/// Uniform in [0, 1) from the top 53 bits of two words (double streams).
TENSORLIB_HOST_DEVICE inline double uniform_double(uint32_t hi, uint32_t lo) {
  return static_cast<double>(((uint64_t{hi} << 32) | lo) >> 11) * 0x1p-53;
}
/// High 64 bits of a 64 x 64-bit product (maps a random word onto [0, range)).
TENSORLIB_HOST_DEVICE inline uint64_t mul_high(uint64_t a, uint64_t b) {
  const uint64_t a_lo = a & 0xffffffffu, a_hi = a >> 32, b_lo = b & 0xffffffffu, b_hi = b >> 32;
  const uint64_t lo_lo = a_lo * b_lo, hi_lo = a_hi * b_lo, lo_hi = a_lo * b_hi, hi_hi = a_hi * b_hi;
  const uint64_t cross = (lo_lo >> 32) + (hi_lo & 0xffffffffu) + lo_hi;
  return hi_hi + (hi_lo >> 32) + (cross >> 32);
}

/// Standard normal value for lane `lane` of a block (Box-Muller in double).
/// float: lanes 2p and 2p+1 share words 2p (radius) and 2p+1 (angle).
/// double: lanes 0 and 1 share 53-bit uniforms from words (0,1) and (2,3).
/// On the GPU, CUDA's log/cos/sin (1 ulp in double) stand in for the C
/// library's, so a double may differ from the CPU's in its last bit.
template <class T>
TENSORLIB_HOST_DEVICE inline T normal_lane(const PhiloxBlock& w, int lane) {
  double u1, u2;
  if constexpr (sizeof(T) == 4) {
    const int p = lane / 2;
    u1 = (static_cast<double>(w[2 * p] >> 8) + 1.0) * 0x1p-24;
    u2 = static_cast<double>(w[2 * p + 1] >> 8) * 0x1p-24;
  } else {
    u1 = uniform_double(w[0], w[1]) + 0x1p-53;
    u2 = uniform_double(w[2], w[3]);
  }
#if defined(__CUDA_ARCH__)
  const double r = ::sqrt(-2.0 * ::log(u1));
  return static_cast<T>(lane % 2 == 0 ? r * ::cos(kTwoPi * u2) : r * ::sin(kTwoPi * u2));
#else
  const double r = std::sqrt(-2.0 * std::log(u1));
  return static_cast<T>(lane % 2 == 0 ? r * std::cos(kTwoPi * u2) : r * std::sin(kTwoPi * u2));
#endif
}

// The lane functors of the random ops: named types (not lambdas), so that
// the same type names the CUDA kernel in every translation unit (Note
// [kernels across translation units]).

/// `rand`: float from word l, double from words 2l, 2l + 1.
template <class T>
struct UniformLane {
  static constexpr int kPerBlock = sizeof(T) == 4 ? 4 : 2;
  TENSORLIB_HOST_DEVICE T operator()(const PhiloxBlock& w, int l) const {
    if constexpr (sizeof(T) == 4)
      return uniform_float(w[l]);
    else
      return uniform_double(w[2 * l], w[2 * l + 1]);
  }
};

/// `randn`.
template <class T>
struct NormalLane {
  static constexpr int kPerBlock = sizeof(T) == 4 ? 4 : 2;
  TENSORLIB_HOST_DEVICE T operator()(const PhiloxBlock& w, int l) const { return normal_lane<T>(w, l); }
};

/// `randint`: low + the 64-bit word (2l, 2l + 1) scaled onto the range; a
/// range of 0 stands for all 2^64 values (`random_` over the whole int64).
template <class T>
struct IntegerLane {
  static constexpr int kPerBlock = 2;
  uint64_t low, range;
  TENSORLIB_HOST_DEVICE T operator()(const PhiloxBlock& w, int l) const {
    const uint64_t r = (uint64_t{w[2 * l]} << 32) | w[2 * l + 1];
    return static_cast<T>(static_cast<int64_t>(low + (range == 0 ? r : mul_high(r, range))));
  }
};

/// `randperm`'s sort keys: the 64-bit word (2l, 2l + 1).
struct KeyLane {
  static constexpr int kPerBlock = 2;
  TENSORLIB_HOST_DEVICE int64_t operator()(const PhiloxBlock& w, int l) const {
    return static_cast<int64_t>((uint64_t{w[2 * l]} << 32) | w[2 * l + 1]);
  }
};

/// A new contiguous tensor on `options.device` whose element i is
/// value(block, lane), block = the generator's next block + i / kPerBlock
/// and lane = i % kPerBlock: the same numbers on every device.
template <Element T, class F>
Tensor<T> random_tensor(const Shape& sizes, TensorOptions options, Generator& gen, F value) {
  const bool grad = options.requires_grad;
  options.requires_grad = false;
  auto t = empty<T>(sizes, options);
  const int64_t blocks = (t.numel() + F::kPerBlock - 1) / F::kPerBlock;
  const auto state = gen.reserve(static_cast<uint64_t>(blocks));
  dispatch_random(t, state.seed, state.offset, value);
  if (grad) t.requires_grad_();
  return t;
}

/// A float16/bfloat16 random tensor: the float tensor `draw` makes from the
/// same generator (the same words), rounded once to T. A request for
/// requires_grad reaches requires_grad_, which refuses 16-bit types.
template <Element T, class Draw>
Tensor<T> rounded_from_float(TensorOptions options, Draw draw) {
  const bool grad = options.requires_grad;
  options.requires_grad = false;
  Tensor<T> t = draw(options).template to<T>();
  if (grad) t.requires_grad_();
  return t;
}

}  // namespace detail

/// Uniform on [0, 1). float: element i is word i % 4 of block i / 4 (top 24
/// bits); double: words 2(i % 2), 2(i % 2) + 1 of block i / 2 (top 53 bits);
/// float16/bfloat16: the float numbers rounded, a 1.0 made 0.0.
template <Element T = float>
Tensor<T> rand(const Shape& sizes, Generator& gen, TensorOptions options = {}) {
  static_assert(is_floating<T>, "tl::rand: the element type must be floating point");
  check_sizes(sizes, "rand");
  if constexpr (is_reduced_float<T>) {
    // A float just below 1 rounds to 1: that one becomes 0, as PyTorch's
    // uniform kernel maps a draw equal to its upper bound to the lower one.
    return detail::rounded_from_float<T>(options, [&](TensorOptions o) {
      const Tensor<float> u = rand<float>(sizes, gen, o);
      return Tensor<float>(where(u.template to<T>() == 1.0f, 0.0f, u));
    });
  } else {
    return detail::random_tensor<T>(sizes, options, gen, detail::UniformLane<T>{});
  }
}
/// `rand` from the default generator (`tl::manual_seed` seeds it).
template <Element T = float>
Tensor<T> rand(const Shape& sizes, TensorOptions options = {}) {
  return rand<T>(sizes, default_generator(), options);
}

/// Standard normal (Box-Muller, see detail::normal_lane): float uses 4
/// elements per block, double 2.
template <Element T = float>
Tensor<T> randn(const Shape& sizes, Generator& gen, TensorOptions options = {}) {
  static_assert(is_floating<T>, "tl::randn: the element type must be floating point");
  check_sizes(sizes, "randn");
  if constexpr (is_reduced_float<T>)
    return detail::rounded_from_float<T>(options, [&](TensorOptions o) { return randn<float>(sizes, gen, o); });
  else
    return detail::random_tensor<T>(sizes, options, gen, detail::NormalLane<T>{});
}
/// `randn` from the default generator (`tl::manual_seed` seeds it).
template <Element T = float>
Tensor<T> randn(const Shape& sizes, TensorOptions options = {}) {
  return randn<T>(sizes, default_generator(), options);
}

/// Normal with the given mean and standard deviation: drawn and scaled on the
/// host, then copied to `options.device` (as detail::random_tensor does).
template <Element T = float>
Tensor<T> normal(double mean, double std, const Shape& sizes, Generator& gen = default_generator(),
                 TensorOptions options = {}) {
  detail::check<ValueError>(std >= 0, "normal: expects std >= 0.0, but found std ", std);
  auto t = randn<T>(sizes, gen, {.device = Device(kCPU)});
  T* p = t.data_ptr();
  for (int64_t i = 0; i < t.numel(); ++i) p[i] = static_cast<T>(p[i] * std + mean);
  if (!options.device.is_cpu()) t = t.to(options.device);
  if (options.requires_grad) t.requires_grad_();
  return t;
}

/// Integers uniform on [low, high): element i uses words 2(i % 2) (high half)
/// and 2(i % 2) + 1 of block i / 2, scaled onto the range by a 64-bit
/// multiply-high.
template <Element T = int64_t>
Tensor<T> randint(int64_t low, int64_t high, const Shape& sizes, Generator& gen, TensorOptions options = {}) {
  check_sizes(sizes, "randint");
  detail::check<ValueError>(low < high, "randint: random_ expects 'from' to be less than 'to', but got from=", low,
                            " >= to=", high);
  // Integer types only: a floating T holds every int64 approximately, and
  // converting its limits to int64 would be undefined.
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, int64_t>) {
    detail::check<ValueError>(low >= static_cast<int64_t>(std::numeric_limits<T>::lowest()) &&
                                  high - 1 <= static_cast<int64_t>(std::numeric_limits<T>::max()),
                              "randint: the range [", low, ", ", high, ") does not fit in ", DTypeTraits<T>::name);
  }
  const uint64_t range = static_cast<uint64_t>(high) - static_cast<uint64_t>(low);
  return detail::random_tensor<T>(sizes, options, gen, detail::IntegerLane<T>{static_cast<uint64_t>(low), range});
}
/// `randint` from the default generator.
template <Element T = int64_t>
Tensor<T> randint(int64_t low, int64_t high, const Shape& sizes, TensorOptions options = {}) {
  return randint<T>(low, high, sizes, default_generator(), options);
}
/// `randint(0, high, sizes, gen)`, as PyTorch's `torch.randint(high, size, generator=gen)`.
template <Element T = int64_t>
Tensor<T> randint(int64_t high, const Shape& sizes, Generator& gen, TensorOptions options = {}) {
  return randint<T>(0, high, sizes, gen, options);
}
/// `randint(0, high, sizes)`, as PyTorch's `torch.randint(high, size)`.
template <Element T = int64_t>
Tensor<T> randint(int64_t high, const Shape& sizes, TensorOptions options = {}) {
  return randint<T>(0, high, sizes, default_generator(), options);
}

/// A random permutation of 0..n-1: element i gets the 64-bit key of the
/// randint stream, and indices are ordered by (key, index).
template <Element T = int64_t>
Tensor<T> randperm(int64_t n, Generator& gen, TensorOptions options = {}) {
  static_assert(!std::is_same_v<T, bool>, "tl::randperm: not implemented for bool (as in PyTorch)");
  detail::check<ValueError>(n >= 0, "randperm: n must be non-negative, got ", n);
  if constexpr (std::is_integral_v<T>) {
    detail::check<ValueError>(
        n <= 1 || static_cast<uint64_t>(n - 1) <= static_cast<uint64_t>(std::numeric_limits<T>::max()),
        "randperm: n = ", n, " does not fit in ", DTypeTraits<T>::name, " (values up to n - 1)");
  } else {  // every integer up to 2^digits is exact in T
    constexpr int64_t exact = (int64_t{1} << std::numeric_limits<T>::digits) + 1;
    detail::check<ValueError>(n <= exact, "randperm: n cannot be greater than ", exact, " for ", DTypeTraits<T>::name,
                              " type");
  }
  const auto keys = detail::random_tensor<int64_t>(Shape{n}, {}, gen, detail::KeyLane{});
  const int64_t* k = keys.data_ptr();
  std::vector<int64_t> order(static_cast<std::size_t>(n));
  std::iota(order.begin(), order.end(), int64_t{0});
  std::sort(order.begin(), order.end(), [k](int64_t a, int64_t b) {
    const auto ka = static_cast<uint64_t>(k[a]), kb = static_cast<uint64_t>(k[b]);
    return ka != kb ? ka < kb : a < b;
  });
  return detail::generate<T>(Shape{n}, options,
                             [&](int64_t i) { return static_cast<T>(order[static_cast<std::size_t>(i)]); });
}
/// `randperm` from the default generator.
template <Element T = int64_t>
Tensor<T> randperm(int64_t n, TensorOptions options = {}) {
  return randperm<T>(n, default_generator(), options);
}

namespace detail {

/// Throws unless every element of the CPU tensor `p` is in [0, 1].
template <Element T>
void check_probabilities(const Tensor<T>& p) {
  const auto probs = p.contiguous();
  const T* pp = probs.data_ptr();
  for (int64_t i = 0; i < probs.numel(); ++i)
    check<ValueError>(pp[i] >= 0 && pp[i] <= 1, "bernoulli: all elements of p must be in [0, 1], got ", pp[i]);
}

/// Throws unless every element of `p` is in [0, 1], on any device (checked
/// there; the offending value is looked up on the host only to report it).
template <Element T>
void check_probabilities_on_device(const Tensor<T>& p) {
  if (p.is_cpu()) return check_probabilities(p);
  NoGradGuard no_grad;
  if (any(logical_not(logical_and(p >= T(0), p <= T(1)))).item()) check_probabilities(p.cpu());
}

/// (u < p) as T, u drawn by `rand` on p's device: one fused pass, not
/// recorded (bernoulli has no gradient).
template <Element T, class P>
Tensor<T> bernoulli_draw(const Shape& sizes, Device device, const P& p, Generator& gen) {
  const auto u = rand<T>(sizes, gen, {.device = device});
  NoGradGuard no_grad;
  return evaluate(as_node<T>(u < p));
}

}  // namespace detail

/// 1 with probability p[i], else 0, using the uniform stream of `rand`.
template <Element T>
Tensor<T> bernoulli(const Tensor<T>& p, Generator& gen = default_generator()) {
  static_assert(is_floating<T>, "tl::bernoulli: probabilities must be floating point");
  detail::check_probabilities_on_device(p);
  return detail::bernoulli_draw<T>(p.sizes(), p.device(), p, gen);
}
/// 1 with probability p, else 0.
template <Element T = float>
Tensor<T> bernoulli(const Shape& sizes, double p, Generator& gen = default_generator(), TensorOptions options = {}) {
  detail::check<ValueError>(p >= 0 && p <= 1, "bernoulli: p must be in [0, 1], got ", p);
  check_sizes(sizes, "bernoulli");
  return detail::bernoulli_draw<T>(sizes, options.device, static_cast<T>(p), gen);
}

/// Random tensors with the shape, device and element type of `like`, from the default generator.
template <Expression E>
auto rand_like(const E& like) {
  return rand<value_type_t<E>>(like.shape(), {.device = like.device()});
}
template <Expression E>
auto randn_like(const E& like) {
  return randn<value_type_t<E>>(like.shape(), {.device = like.device()});
}
template <Expression E>
auto randint_like(const E& like, int64_t low, int64_t high) {
  return randint<value_type_t<E>>(low, high, like.shape(), {.device = like.device()});
}

}  // namespace tensorlib
