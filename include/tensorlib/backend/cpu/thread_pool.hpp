#pragma once
/// \file
/// The CPU thread pool behind every parallel loop, and `tl::set_num_threads`.
///
/// Note [one pool]
/// The library owns exactly one pool, so its threads never compete with each
/// other: a parallel loop started from inside a task runs serially, and a
/// loop started while another user thread holds the pool runs serially in its
/// caller instead of queueing. Workers spin briefly after a task (back-to-back
/// kernels are the common case in training) and then sleep on a condition
/// variable, so an idle pool costs nothing (the passive OpenMP wait policy).
/// Threads: `tl::set_num_threads`, else TENSORLIB_NUM_THREADS, else
/// OMP_NUM_THREADS, else the hardware concurrency.
///
/// Note [erased tasks]
/// `parallel_for` and `ThreadPool::run` are templates only to erase their
/// callable to a context pointer and a function; the chunking, the job's
/// atomics and the waiting are compiled once. Every fused expression brings
/// its own loop lambdas, and as templates these two were compiled again for
/// each: in the sanitizer build of test_autograd, 956 copies of the pool's
/// run and 1028 of parallel_for, 10 MB of the file's 75 MB of code. The cost
/// is one indirect call per chunk.

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>
#include <type_traits>
#include <vector>

#if defined(__SSE2__)
#include <immintrin.h>
#endif

#include "tensorlib/core/config.hpp"
#include "tensorlib/core/error.hpp"

namespace tensorlib::cpu {
namespace detail {

inline void cpu_relax() {
#if defined(__SSE2__)
  _mm_pause();
#else
  std::this_thread::yield();
#endif
}

inline int default_num_threads() {
  for (const char* var : {"TENSORLIB_NUM_THREADS", "OMP_NUM_THREADS"}) {
    if (const char* v = std::getenv(var)) {
      const int n = std::atoi(v);
      if (n > 0) return n;
    }
  }
  return std::max(1u, std::thread::hardware_concurrency());
}

inline thread_local bool in_parallel_region = false;

/// A fixed set of workers that run the tasks of one job at a time.
class ThreadPool {
 public:
  explicit ThreadPool(int num_threads) : num_threads_(std::max(1, num_threads)) {
    for (int i = 1; i < num_threads_; ++i) workers_.emplace_back([this] { work(); });
  }
  ~ThreadPool() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_.store(true, std::memory_order_release);
    }
    wake_.notify_all();
    for (auto& w : workers_) w.join();
  }
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int size() const noexcept { return num_threads_; }

  /// Runs task(i) for i in [0, ntasks) on the pool and the calling thread;
  /// rethrows the first exception a task threw.
  template <class Task>
  void run(int ntasks, const Task& task) {
    run(ntasks, std::addressof(task), [](const void* ctx, int i) { (*static_cast<const Task*>(ctx))(i); });
  }

  /// The same with the task erased to a context and a function (Note
  /// [erased tasks]): invoke(context, i) for i in [0, ntasks).
  void run(int ntasks, const void* context, void (*invoke)(const void*, int)) {
    std::unique_lock<std::mutex> busy(dispatch_, std::try_to_lock);
    if (!busy.owns_lock() || ntasks <= 1 || num_threads_ == 1 || ntasks > 0xffff) {
      for (int i = 0; i < ntasks; ++i) invoke(context, i);
      return;
    }
    context_ = context;
    invoke_ = invoke;
    error_ = nullptr;
    pending_.store(ntasks, std::memory_order_relaxed);
    const uint32_t gen = static_cast<uint32_t>(generation_.load(std::memory_order_relaxed) + 1);
    work_.store((uint64_t{gen} << 32) | (uint64_t(ntasks) << 16), std::memory_order_release);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      generation_.store(gen, std::memory_order_release);
    }
    wake_.notify_all();
    drain(gen);
    for (int spins = 0; pending_.load(std::memory_order_acquire) != 0; ++spins) {
      if (spins < 4096)
        cpu_relax();
      else
        std::this_thread::yield();
    }
    if (error_) std::rethrow_exception(error_);
  }

 private:
  // Note [job word]: the generation, the task count and the next task index
  // share one atomic, so a worker that wakes late can only claim tasks of
  // the job it was woken for; while a claimed task runs, the job cannot
  // finish, so the job's fields stay valid for it.
  bool claim(uint32_t gen, int& index) {
    uint64_t w = work_.load(std::memory_order_acquire);
    for (;;) {
      const int n = static_cast<int>((w >> 16) & 0xffff), i = static_cast<int>(w & 0xffff);
      if (static_cast<uint32_t>(w >> 32) != gen || i >= n) return false;
      if (work_.compare_exchange_weak(w, w + 1, std::memory_order_acq_rel)) {
        index = i;
        return true;
      }
    }
  }

  // Claims and runs tasks of job `gen` until none is left.
  void drain(uint32_t gen) {
    const bool outer = in_parallel_region;
    in_parallel_region = true;
    for (int i; claim(gen, i);) {
      try {
        invoke_(context_, i);
      } catch (...) {
        std::lock_guard<std::mutex> lock(error_mutex_);
        if (!error_) error_ = std::current_exception();
      }
      pending_.fetch_sub(1, std::memory_order_acq_rel);
    }
    in_parallel_region = outer;
  }

  void work() {
    uint32_t seen = generation_.load(std::memory_order_acquire);
    for (;;) {
      // Spin ~tens of microseconds for the next job, then sleep.
      for (int spins = 0; spins < 20000 && generation_.load(std::memory_order_acquire) == seen; ++spins) cpu_relax();
      if (generation_.load(std::memory_order_acquire) == seen) {
        std::unique_lock<std::mutex> lock(mutex_);
        wake_.wait(lock, [&] {
          return stop_.load(std::memory_order_acquire) || generation_.load(std::memory_order_acquire) != seen;
        });
      }
      if (stop_.load(std::memory_order_acquire)) return;
      seen = generation_.load(std::memory_order_acquire);
      drain(seen);
    }
  }

  const int num_threads_;
  std::vector<std::thread> workers_;
  std::mutex dispatch_;  // one job at a time
  std::mutex mutex_;     // guards sleeping
  std::condition_variable wake_;
  std::atomic<uint32_t> generation_{0};
  std::atomic<bool> stop_{false};

  std::atomic<uint64_t> work_{0};  // Note [job word]
  const void* context_ = nullptr;
  void (*invoke_)(const void*, int) = nullptr;
  std::atomic<int> pending_{0};
  std::mutex error_mutex_;
  std::exception_ptr error_;
};

inline std::unique_ptr<ThreadPool>& pool_slot() {
  static std::unique_ptr<ThreadPool> pool = std::make_unique<ThreadPool>(default_num_threads());
  return pool;
}

/// parallel_for with the chunk function erased (Note [erased tasks]).
inline void run_chunks(int64_t begin, int64_t end, int64_t grain, const void* context,
                       void (*invoke)(const void*, int64_t, int64_t)) {
  const int64_t n = end - begin;
  if (n <= 0) return;
  auto& pool = *pool_slot();
  const int64_t max_tasks = in_parallel_region ? 1 : pool.size();
  const int64_t ntasks = std::clamp<int64_t>(n / std::max<int64_t>(grain, 1), 1, max_tasks);
  if (ntasks == 1) {
    invoke(context, begin, end);
    return;
  }
  const int64_t chunk = (n + ntasks - 1) / ntasks;
  pool.run(static_cast<int>(ntasks), [&](int i) {
    const int64_t b = begin + i * chunk;
    const int64_t e = std::min(end, b + chunk);
    if (b < e) invoke(context, b, e);
  });
}

}  // namespace detail

/// Splits [begin, end) into at most `get_num_threads()` contiguous chunks of at
/// least `grain` elements and calls f(chunk_begin, chunk_end) on each, in
/// parallel. Chunk boundaries depend only on the range, grain and thread count.
template <class F>
void parallel_for(int64_t begin, int64_t end, int64_t grain, const F& f) {
  if constexpr (std::is_function_v<F>) {  // a function, whose address is no object pointer
    parallel_for(begin, end, grain, [&f](int64_t b, int64_t e) { f(b, e); });
  } else {
    detail::run_chunks(begin, end, grain, std::addressof(f),
                       [](const void* ctx, int64_t b, int64_t e) { (*static_cast<const F*>(ctx))(b, e); });
  }
}

}  // namespace tensorlib::cpu

namespace tensorlib {

/// Number of threads the CPU backend uses.
inline int get_num_threads() { return cpu::detail::pool_slot()->size(); }

/// Sets the number of CPU threads (rebuilds the pool; call it while no
/// tensor work is running).
inline void set_num_threads(int n) {
  detail::check<ValueError>(n > 0, "set_num_threads: expected a positive number of threads, got ", n);
  auto& slot = cpu::detail::pool_slot();
  if (slot->size() == n) return;
  slot.reset();
  slot = std::make_unique<cpu::detail::ThreadPool>(n);
}

}  // namespace tensorlib
