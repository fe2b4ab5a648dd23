// The thread pool: coverage of the range, exceptions, nesting, resizing.

#include <doctest/doctest.h>

#include <atomic>
#include <stdexcept>
#include <vector>

#include <tensorlib/tensorlib.hpp>

TEST_CASE("parallel_for visits every index exactly once") {
  for (int64_t n : {0, 1, 7, 1000, 100003}) {
    std::vector<std::atomic<int>> hits(static_cast<std::size_t>(n));
    tl::cpu::parallel_for(0, n, 16, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) hits[static_cast<std::size_t>(i)]++;
    });
    bool once = true;
    for (auto& h : hits) once = once && h.load() == 1;
    CHECK(once);
  }
}

namespace {
std::atomic<int64_t> function_covered{0};
void count_chunk(int64_t b, int64_t e) { function_covered += e - b; }
}  // namespace

TEST_CASE("parallel_for takes a plain function as well as a lambda") {
  // Note [erased tasks]: a function's address is no object pointer, so it is
  // wrapped before its callable is erased.
  function_covered = 0;
  tl::cpu::parallel_for(0, 100003, 16, count_chunk);
  CHECK(function_covered.load() == 100003);
}

TEST_CASE("an exception in any task reaches the caller, and the pool stays usable") {
  CHECK_THROWS_WITH_AS(tl::cpu::parallel_for(0, 1000, 1,
                                             [](int64_t b, int64_t) {
                                               if (b > 0) throw std::runtime_error("task failed");
                                             }),
                       "task failed", std::runtime_error);
  std::atomic<int64_t> sum{0};
  tl::cpu::parallel_for(0, 1000, 1, [&](int64_t b, int64_t e) { sum += e - b; });
  CHECK(sum.load() == 1000);
}

TEST_CASE("a parallel loop inside a task runs serially instead of oversubscribing") {
  std::atomic<int> inner_chunks{0};
  tl::cpu::parallel_for(
      0, 4, 1, [&](int64_t, int64_t) { tl::cpu::parallel_for(0, 1000, 1, [&](int64_t, int64_t) { inner_chunks++; }); });
  const int outer_chunks = std::min(4, tl::get_num_threads());
  CHECK(inner_chunks.load() == outer_chunks);
}

TEST_CASE("set_num_threads resizes the pool and rejects nonsense") {
  const int before = tl::get_num_threads();
  tl::set_num_threads(3);
  CHECK(tl::get_num_threads() == 3);
  std::atomic<int> chunks{0};
  tl::cpu::parallel_for(0, 300, 1, [&](int64_t, int64_t) { chunks++; });
  CHECK(chunks.load() == 3);
  tl::set_num_threads(before);
  CHECK(tl::get_num_threads() == before);
  CHECK_THROWS_AS(tl::set_num_threads(0), tl::ValueError);
}
