#pragma once
/// \file
/// `FftPlanCache`: each GPU's cache of cuFFT plans, PyTorch's
/// `torch.backends.cuda.cufft_plan_cache[i]` (`size`, `max_size`, `clear`).
///
/// Note [cuFFT plan cache]
/// Making a cuFFT plan takes far longer than running a small transform
/// (cuFFT chooses kernels and may compile some), so a program that
/// transforms the same shape repeatedly, as spectral layers and STFTs in a
/// training loop do, should make each plan once. A plan is keyed by what
/// `cufftMakePlanMany64` was given: points per line, lines, transform and
/// precision. The cache keeps the `max_size` plans used last (PyTorch's
/// default, 4096); a lookup moves its plan to the front and a new plan
/// past the limit evicts the one used longest ago. `max_size` 0 keeps none:
/// every transform makes and destroys its plan, as before the cache.
/// A plan has no work area of its own (`cufftSetAutoAllocation(0)`): every
/// transform takes one from the caching allocator, stream-ordered, and sets
/// it with the stream just before the launch, all under the cache's lock,
/// so two threads never share a plan's settings. A plan evicted (or, with
/// `max_size` 0, destroyed) just after its launch is what every transform
/// did before the cache, which the CUDA tests ran on an H100.

#include <cufft.h>

#include <algorithm>
#include <array>
#include <compare>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <utility>

#include "tensorlib/backend/cuda/runtime.hpp"
#include "tensorlib/core/error.hpp"

namespace tensorlib::cuda {
namespace detail {

inline const char* cufft_message(cufftResult s) {
  switch (s) {
    case CUFFT_INVALID_PLAN:
      return "CUFFT_INVALID_PLAN";
    case CUFFT_ALLOC_FAILED:
      return "CUFFT_ALLOC_FAILED";
    case CUFFT_INVALID_TYPE:
      return "CUFFT_INVALID_TYPE";
    case CUFFT_INVALID_VALUE:
      return "CUFFT_INVALID_VALUE";
    case CUFFT_INTERNAL_ERROR:
      return "CUFFT_INTERNAL_ERROR";
    case CUFFT_EXEC_FAILED:
      return "CUFFT_EXEC_FAILED";
    case CUFFT_SETUP_FAILED:
      return "CUFFT_SETUP_FAILED";
    case CUFFT_INVALID_SIZE:
      return "CUFFT_INVALID_SIZE";
    case CUFFT_NOT_SUPPORTED:
      return "CUFFT_NOT_SUPPORTED";
    default:
      return "cuFFT error";
  }
}

/// Throws `CudaError` for a failed cuFFT call (file:line and cuFFT's name).
inline void check_cufft(cufftResult status, const char* what, CallSite where = {__builtin_FILE(), __builtin_LINE()}) {
  if (status == CUFFT_SUCCESS) [[likely]]
    return;
  throw_cuda_error(where, what, cufft_message(status));
}

/// What a plan was made for (Note [cuFFT plan cache]).
struct FftPlanKey {
  int64_t n = 0;
  int64_t batch = 0;
  cufftType kind{};
  auto operator<=>(const FftPlanKey&) const = default;
};

/// A cuFFT plan handle for `key`'s lines, without a work area of its own,
/// destroyed with its owner. `work_bytes` is the work area a transform
/// needs.
class FftPlan {
 public:
  explicit FftPlan(const FftPlanKey& key) {
    check_cufft(cufftCreate(&handle_), "cufftCreate");
    try {
      check_cufft(cufftSetAutoAllocation(handle_, 0), "cufftSetAutoAllocation");
      long long points = key.n;
      check_cufft(cufftMakePlanMany64(handle_, 1, &points, nullptr, 1, 0, nullptr, 1, 0, key.kind,
                                      static_cast<long long>(key.batch), &work_bytes_),
                  "cufftMakePlanMany64");
    } catch (...) {
      cufftDestroy(handle_);
      throw;
    }
  }
  FftPlan(const FftPlan&) = delete;
  FftPlan& operator=(const FftPlan&) = delete;
  ~FftPlan() { cufftDestroy(handle_); }
  cufftHandle get() const { return handle_; }
  std::size_t work_bytes() const { return work_bytes_; }

 private:
  cufftHandle handle_{};
  std::size_t work_bytes_ = 0;
};

}  // namespace detail

class FftPlanCache;
inline FftPlanCache& cufft_plan_cache(int device);

/// One GPU's cuFFT plans, the `max_size` used last (Note [cuFFT plan
/// cache]); reached through `cufft_plan_cache(device)`.
class FftPlanCache {
 public:
  /// PyTorch's default capacity.
  static constexpr int64_t kDefaultMaxSize = 4096;

  /// Plans held now.
  int64_t size() const {
    std::lock_guard lock(mutex_);
    return static_cast<int64_t>(plans_.size());
  }
  /// Plans held at most.
  int64_t max_size() const {
    std::lock_guard lock(mutex_);
    return max_size_;
  }
  /// Sets the capacity, destroying the plans used longest ago beyond it.
  void set_max_size(int64_t max_size) {
    tensorlib::detail::check<ValueError>(max_size >= 0, "cuFFT plan cache size must be non-negative, but got ",
                                         max_size);
    std::lock_guard lock(mutex_);
    max_size_ = max_size;
    if (static_cast<int64_t>(plans_.size()) <= max_size_) return;  // (no context made on an unused GPU)
    const DeviceGuard guard(device_);                              // plans are destroyed on their GPU
    trim();
  }
  /// Destroys every plan.
  void clear() {
    std::lock_guard lock(mutex_);
    if (plans_.empty()) return;
    const DeviceGuard guard(device_);
    index_.clear();
    plans_.clear();
  }

  /// Calls `use(plan)` with this GPU's plan for `key`, made if none is
  /// held, under the cache's lock; the caller has made this GPU current.
  template <class Use>
  void with_plan(const detail::FftPlanKey& key, Use&& use) {
    std::lock_guard lock(mutex_);
    if (max_size_ == 0) {
      const detail::FftPlan plan(key);
      return use(plan);
    }
    if (const auto found = index_.find(key); found != index_.end()) {
      plans_.splice(plans_.begin(), plans_, found->second);  // now the last used
    } else {
      plans_.emplace_front(key, std::make_unique<detail::FftPlan>(key));
      try {
        index_.emplace(key, plans_.begin());
      } catch (...) {
        plans_.pop_front();
        throw;
      }
      trim();
    }
    use(*plans_.front().second);
  }

 private:
  friend FftPlanCache& cufft_plan_cache(int device);
  explicit FftPlanCache(int device) : device_(device) {}

  void trim() {
    while (static_cast<int64_t>(plans_.size()) > max_size_) {
      index_.erase(plans_.back().first);
      plans_.pop_back();
    }
  }

  using Entry = std::pair<detail::FftPlanKey, std::unique_ptr<detail::FftPlan>>;
  mutable std::mutex mutex_;
  std::list<Entry> plans_;  // the last used first
  std::map<detail::FftPlanKey, std::list<Entry>::iterator> index_;
  int64_t max_size_ = kDefaultMaxSize;
  int device_;
};

/// GPU `device`'s cuFFT plan cache (-1: the current GPU), PyTorch's
/// `torch.backends.cuda.cufft_plan_cache[device]`:
///
///     tl::cuda::cufft_plan_cache().set_max_size(32);
///     tl::cuda::cufft_plan_cache(1).clear();
inline FftPlanCache& cufft_plan_cache(int device = -1) {
  const int count = std::min(device_count(), detail::kMaxDevices);
  if (device < 0 && count > 0) device = current_device();
  tensorlib::detail::check<DeviceError>(device >= 0 && device < count,
                                        "cufft_plan_cache: expected 0 <= device_index < ", count,
                                        ", but got device_index=", device);
  // Never destroyed: plans must not outlive cuFFT at exit.
  static auto* caches = [] {
    auto* all = new std::array<std::unique_ptr<FftPlanCache>, detail::kMaxDevices>;
    for (int d = 0; d < detail::kMaxDevices; ++d) (*all)[static_cast<std::size_t>(d)].reset(new FftPlanCache(d));
    return all;
  }();
  return *(*caches)[static_cast<std::size_t>(device)];
}

}  // namespace tensorlib::cuda
