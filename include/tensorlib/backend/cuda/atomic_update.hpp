#pragma once
/// \file
/// Atomic read-modify-write of one tensor element, for the GPU kernels that
/// scatter and accumulate (index_add_, put_, index_put_, scatter_reduce).
/// `atomic_update(p, f)` makes *p = f(*p) one atomic step for every element
/// type: a compare-and-swap loop on the aligned word that holds *p (the
/// 32-bit word around a 1- or 2-byte element; Note [sub-word atomics]).
/// `atomic_add` takes the hardware's atomicAdd for float, double, int32 and
/// int64, its 16-bit float adds where the GPU has them (Note [16-bit
/// atomic adds]), and that loop for the rest (bool adds as `||`).
/// `write_or_add` is the store of the scatter functors that run on both
/// devices.
///
/// The same code compiles for the host with the host's compare-and-swap,
/// so the CPU tests run the word packing on threads; the CPU kernels
/// themselves are serial and do not use it.

#include <bit>
#include <cassert>
#include <cstdint>
#include <type_traits>

#include "tensorlib/core/config.hpp"
#include "tensorlib/core/half.hpp"

namespace tensorlib::cuda::detail {

/// True for the element types with a hardware atomicAdd.
template <class T>
inline constexpr bool has_native_atomic_add =
    std::is_same_v<T, float> || std::is_same_v<T, double> || std::is_same_v<T, int32_t> || std::is_same_v<T, int64_t>;

/// The word a compare-and-swap works on for an element of `Bytes` bytes:
/// atomicCAS takes `unsigned int` and `unsigned long long`.
template <std::size_t Bytes>
using AtomicWord = std::conditional_t<Bytes == 8, unsigned long long, unsigned int>;

/// *word, read as the first guess of a compare-and-swap loop (a stale value
/// only costs one more turn of the loop).
template <class W>
TENSORLIB_HOST_DEVICE W load_word(const W* word) {
#if defined(__CUDA_ARCH__)
  return *reinterpret_cast<const volatile W*>(word);
#else
  return __atomic_load_n(word, __ATOMIC_RELAXED);
#endif
}

/// Replaces *word by `desired` if it holds `expected`; returns what it held.
template <class W>
TENSORLIB_HOST_DEVICE W compare_and_swap(W* word, W expected, W desired) {
#if defined(__CUDA_ARCH__)
  return atomicCAS(word, expected, desired);
#else
  __atomic_compare_exchange_n(word, &expected, desired, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
  return expected;
#endif
}

// Note [sub-word atomics]
// ~~~~~~~~~~~~~~~~~~~~~~~
// GPUs compare-and-swap 32- and 64-bit words only. A 1- or 2-byte element
// (bool, uint8, int8, int16, float16, bfloat16) lies inside one aligned
// 32-bit word, as element storage is aligned to the element's size: its bits
// start at 8 * (address mod 4) in that little-endian word. The loop reads
// the word, computes the element's new bits and swaps the whole word in only
// if no thread changed any of its bytes meanwhile; a neighbour's update makes
// the swap fail and the loop runs again with the word as it now is. So
// updates to adjacent elements never lose each other's writes.

/// *p = f(*p) as one atomic step (Note [sub-word atomics]).
template <class T, class F>
TENSORLIB_HOST_DEVICE void atomic_update(T* p, F f) {
  static_assert(sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8,
                "atomic_update: elements of 1, 2, 4 or 8 bytes");
  static_assert(std::is_trivially_copyable_v<T>, "atomic_update: a trivially copyable element type");
  static_assert(std::endian::native == std::endian::little, "atomic_update: the word packing assumes little endian");
  // Element storage is aligned to the element's size, so a 2-byte element
  // never straddles two words.
  assert(reinterpret_cast<std::uintptr_t>(p) % sizeof(T) == 0);
  if constexpr (sizeof(T) >= 4) {
    using W = AtomicWord<sizeof(T)>;
    W* word = reinterpret_cast<W*>(p);
    W old = load_word(word);
    for (;;) {
      const W desired = std::bit_cast<W>(static_cast<T>(f(std::bit_cast<T>(old))));
      const W seen = compare_and_swap(word, old, desired);
      if (seen == old) return;
      old = seen;
    }
  } else {
    using Bits = std::conditional_t<sizeof(T) == 1, uint8_t, uint16_t>;
    const auto address = reinterpret_cast<std::uintptr_t>(p);
    auto* word = reinterpret_cast<unsigned int*>(address & ~std::uintptr_t{3});
    const unsigned shift = static_cast<unsigned>(address & 3) * 8;
    const unsigned mask = ((1u << (8 * sizeof(T))) - 1) << shift;
    unsigned old = load_word(word);
    for (;;) {
      const T value = std::bit_cast<T>(static_cast<Bits>((old & mask) >> shift));
      const unsigned bits = std::bit_cast<Bits>(static_cast<T>(f(value)));
      const unsigned desired = (old & ~mask) | (bits << shift);
      const unsigned seen = compare_and_swap(word, old, desired);
      if (seen == old) return;
      old = seen;
    }
  }
}

// Note [16-bit atomic adds]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~
// sm_70 and newer add float16 to memory in one instruction (PTX
// `red.add.noftz.f16`), sm_90 and newer bfloat16 (`red.add.noftz.bf16`):
// the exact sum rounded to nearest even, subnormals kept. The compare-and-
// swap loop computes T(float(*p) + float(v)) instead, rounding twice, and
// the two agree for every pair of finite operands: with 11 (8) significant
// bits each, their exact sum fits float's 24 unless their exponents differ
// by more than 12 (15); then the smaller is below a quarter of the larger's
// 16-bit unit, and float's rounding cannot reach the point halfway between
// two 16-bit values, except below a power of two, where ties-to-even picks
// that power either way; a sum past the largest finite value becomes
// infinity alike. tests/backend/atomic_update_test.cpp checks the law on a
// sample of pairs (all 8.3e9 finite pairs of both types agree, checked
// once). Only NaN payloads may differ (the hardware's is canonical). Older
// GPUs keep the loop.

/// *p += v atomically (`||` for bool); the sum rounds as `T(*p + v)`.
template <class T>
TENSORLIB_HOST_DEVICE void atomic_add(T* p, T v) {
#if defined(__CUDA_ARCH__)
  constexpr bool native = has_native_atomic_add<T>;
  // The 16-bit float adds of the GPU being compiled for (Note [16-bit atomic adds]).
  constexpr bool native16 =
      (std::is_same_v<T, Half> && __CUDA_ARCH__ >= 700) || (std::is_same_v<T, BFloat16> && __CUDA_ARCH__ >= 900);
#else
  constexpr bool native = false, native16 = false;
#endif
  if constexpr (native) {
#if defined(__CUDA_ARCH__)
    if constexpr (std::is_same_v<T, int64_t>)
      atomicAdd(reinterpret_cast<unsigned long long*>(p), static_cast<unsigned long long>(v));  // two's complement
    else
      atomicAdd(p, v);
#endif
  } else if constexpr (native16) {
#if defined(__CUDA_ARCH__)
    if constexpr (std::is_same_v<T, Half>)
      asm volatile("red.add.noftz.f16 [%0], %1;" ::"l"(p), "h"(v.bits) : "memory");
    else
      asm volatile("red.add.noftz.bf16 [%0], %1;" ::"l"(p), "h"(v.bits) : "memory");
#endif
  } else if constexpr (std::is_same_v<T, bool>) {
    atomic_update(p, [v](bool a) { return a || v; });
  } else {
    atomic_update(p, [v](T a) { return static_cast<T>(a + v); });
  }
}

}  // namespace tensorlib::cuda::detail

namespace tensorlib::detail {

/// *dst = v, or *dst += v with `accumulate` (`||` for bool): in order on
/// the CPU (whose scatter loops are serial), atomically on a GPU.
template <class T>
TENSORLIB_HOST_DEVICE void write_or_add(T* dst, T v, bool accumulate) {
  if (!accumulate) {
    *dst = v;
    return;
  }
#if defined(__CUDA_ARCH__)
  cuda::detail::atomic_add(dst, v);
#else
  if constexpr (std::is_same_v<T, bool>)
    *dst = *dst || v;
  else
    *dst = static_cast<T>(*dst + v);
#endif
}

}  // namespace tensorlib::detail
