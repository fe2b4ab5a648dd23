// cuda::detail::atomic_update and atomic_add, run on the host with the
// host's compare-and-swap (Note [sub-word atomics]): the GPU kernels that
// scatter and accumulate use the same word packing with atomicCAS.

#include <doctest/doctest.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <latch>
#include <thread>
#include <vector>

#include <tensorlib/tensorlib.hpp>

#include "sanitizers.hpp"

namespace {

using tl::cuda::detail::atomic_add;
using tl::cuda::detail::atomic_update;

// Eight elements in one aligned block, so that the 1- and 2-byte types share
// 32-bit words with their neighbours at every byte offset.
template <class T>
struct alignas(8) Block {
  std::array<T, 8> v;
};

// `threads` threads start together; each adds +1 then -1 to every element
// `churn` times (net zero, but each step races with the neighbours' updates
// of the same word), then +1 `net` times. A lost update would leave an
// element off its expected threads * net.
template <class T>
void check_concurrent_adds(int threads, int churn, int net) {
  Block<T> b{};
  for (T& e : b.v) e = T(0);
  std::latch start(threads);
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&] {
      start.arrive_and_wait();
      for (int k = 0; k < churn; ++k) {
        for (T& e : b.v) atomic_add(&e, T(1));
        for (T& e : b.v) atomic_update(&e, [](T a) { return static_cast<T>(a - T(1)); });
      }
      for (int k = 0; k < net; ++k)
        for (T& e : b.v) atomic_add(&e, T(1));
    });
  for (auto& th : pool) th.join();
  for (std::size_t j = 0; j < b.v.size(); ++j) {
    CAPTURE(j);
    CHECK(static_cast<double>(b.v[j]) == static_cast<double>(threads * net));
  }
}

}  // namespace

TEST_CASE_TEMPLATE("atomic updates of adjacent elements lose no update", T, uint8_t, tl::Half, tl::BFloat16, int32_t,
                   float, int64_t, double) {
  check_concurrent_adds<T>(4, 2000, 30);  // 120: exact in every type here
}

TEST_CASE_TEMPLATE("an atomic update changes only its own element's bytes", T, uint8_t, tl::Half, tl::BFloat16) {
  for (std::size_t j = 0; j < 8 / sizeof(T); ++j) {
    CAPTURE(j);
    Block<uint8_t> bytes{};
    bytes.v.fill(0xA5);
    T* elements = reinterpret_cast<T*>(bytes.v.data());
    T before;
    std::memcpy(&before, &elements[j], sizeof(T));
    atomic_update(&elements[j], [](T) { return T(3); });
    for (std::size_t i = 0; i < 8 / sizeof(T); ++i) {
      T now;
      std::memcpy(&now, &elements[i], sizeof(T));
      if (i == j)
        CHECK(static_cast<double>(now) == 3.0);
      else
        CHECK(std::memcmp(&now, &before, sizeof(T)) == 0);
    }
  }
}

TEST_CASE("atomic_add of bool is a logical or, and atomic_update applies any combination") {
  Block<bool> flags{};
  flags.v.fill(false);
  atomic_add(&flags.v[1], true);
  atomic_add(&flags.v[1], true);
  atomic_add(&flags.v[2], false);
  atomic_add(&flags.v[7], true);
  CHECK(flags.v == std::array<bool, 8>{false, true, false, false, false, false, false, true});

  // Concurrent maxima: every thread offers its values; the largest stays.
  Block<tl::BFloat16> top{};
  for (auto& e : top.v) e = tl::BFloat16(-1000.f);
  std::vector<std::thread> pool;
  for (int t = 0; t < 3; ++t)
    pool.emplace_back([&, t] {
      for (int k = 0; k < 500; ++k)
        for (std::size_t j = 0; j < top.v.size(); ++j)
          atomic_update(&top.v[j], [v = static_cast<float>((k * 7 + t + static_cast<int>(j)) % 211)](tl::BFloat16 a) {
            return tl::BFloat16(v > static_cast<float>(a) ? v : static_cast<float>(a));
          });
    });
  for (auto& th : pool) th.join();
  for (const auto& e : top.v) CHECK(static_cast<float>(e) == 210.f);
}

namespace {

// The 16-bit value nearest to x, ties to even, with IEEE's overflow rule (a
// value at or past max + half a unit rounds to infinity): the neighbours of
// the float conversion's result, compared exactly in double.
template <class H>
H round_once(double x) {
  const auto value = [](H h) {
    const double v = static_cast<float>(h);
    if (!std::isinf(v)) return v;
    const double top = static_cast<float>(H::from_bits(static_cast<uint16_t>(h.bits - 1)));
    const double below = static_cast<float>(H::from_bits(static_cast<uint16_t>(h.bits - 2)));
    return top + (top - below);  // infinity stands one unit past the largest finite value
  };
  const H first(static_cast<float>(x));
  H best = first;
  double best_distance = std::fabs(value(first) - x);
  for (const int step : {-1, 1}) {
    if ((first.bits & 0x7fff) == 0 && step < 0) continue;  // below a zero is the other sign's NaN
    const H next = H::from_bits(static_cast<uint16_t>(first.bits + step));
    if (std::isnan(static_cast<float>(next))) continue;
    const double distance = std::fabs(value(next) - x);
    if (distance < best_distance || (distance == best_distance && (next.bits & 1) == 0)) {
      best = next;
      best_distance = distance;
    }
  }
  return best;
}

}  // namespace

TEST_CASE_TEMPLATE("16-bit atomic adds: rounding the float sum equals rounding the exact sum", H, tl::Half,
                   tl::BFloat16) {
  // Note [16-bit atomic adds]: the GPU's 16-bit float add rounds the exact
  // sum once; the compare-and-swap loop rounds float(a) + float(b). Every
  // finite a against every 61st b (every 1021st under ASan, where 61 took
  // 16 s; all 8.3e9 pairs agree too, checked once). The exact sum of two
  // 16-bit values fits a double when their exponents are near, and rounds
  // to a double far from any 16-bit midpoint when they are not.
#ifdef TL_TEST_ASAN
  constexpr uint32_t kStride = 1021;
#else
  constexpr uint32_t kStride = 61;
#endif
  int64_t pairs = 0, differ = 0;
  for (uint32_t a = 0; a < 65536; ++a) {
    const float fa = H::from_bits(static_cast<uint16_t>(a));
    if (!std::isfinite(fa)) continue;
    for (uint32_t b = 0; b < 65536; b += kStride) {
      const float fb = H::from_bits(static_cast<uint16_t>(b));
      if (!std::isfinite(fb)) continue;
      const H loop(fa + fb), once = round_once<H>(static_cast<double>(fa) + static_cast<double>(fb));
      ++pairs;
      if (loop.bits != once.bits) ++differ;
    }
  }
  CHECK(pairs > 60'000'000 / kStride * 61);
  CHECK(differ == 0);
}
