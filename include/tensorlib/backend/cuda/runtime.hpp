#pragma once
/// \file
/// The CUDA runtime as tensorlib uses it: checked calls (`tl::CudaError` with
/// file:line and the runtime's own message), devices (`is_available`,
/// `device_count`, `current_device`, `set_device`, `synchronize`,
/// `DeviceGuard`), streams (`Stream`, `current_stream`, `StreamGuard`) and
/// events (`Event`, `elapsed_time`). Usable from any translation unit that
/// links the CUDA runtime (the `tensorlib::cuda` component); no kernels here.
///
/// Note [current stream]
/// As in PyTorch, each host thread has a current stream per device, the
/// legacy default stream until a `StreamGuard` or `set_current_stream`
/// changes it. Kernels, copies and the caching allocator use it, so work on
/// one stream is ordered and the allocator may hand a freed block to the
/// next allocation on the same stream without synchronizing.

#include <cuda_runtime_api.h>

#include <array>
#include <atomic>
#include <memory>
#include <string>

#include "tensorlib/core/device.hpp"
#include "tensorlib/core/error.hpp"

namespace tensorlib::cuda {
namespace detail {

/// Where a checked call was made: a parameter defaulted to
/// `{__builtin_FILE(), __builtin_LINE()}` takes the caller's file and line.
/// Not `std::source_location`: clang before 15 with libstdc++ (clang 14 is
/// Debian 12's) lacks it, and these checks must compile in any translation
/// unit that links the CUDA libraries (g++, clang, and nvcc's front end all
/// have the two builtins).
struct CallSite {
  const char* file;
  int line;
};

/// Throws `CudaError` "file:line: what: message" for a failed call into CUDA
/// or one of its libraries (the checks of runtime, cuBLAS and cuFFT calls).
[[noreturn]] inline void throw_cuda_error(CallSite where, const char* what, const std::string& message) {
  throw CudaError(tensorlib::detail::concat(where.file, ":", where.line, ": ", what, ": ", message));
}

/// Throws `CudaError` for a failed runtime call: where it was made, what it
/// was doing and the runtime's name and text for the error.
inline void check(cudaError_t status, const char* what, CallSite where = {__builtin_FILE(), __builtin_LINE()}) {
  if (status == cudaSuccess) [[likely]]
    return;
  (void)cudaGetLastError();  // clears a non-sticky error so later calls start clean
  throw_cuda_error(where, what,
                   tensorlib::detail::concat(cudaGetErrorName(status), " (", cudaGetErrorString(status), ")"));
}

/// The answer of a query call: false for "not ready", true for done, a
/// `CudaError` for anything else.
inline bool finished(cudaError_t status, const char* what, CallSite where = {__builtin_FILE(), __builtin_LINE()}) {
  if (status == cudaErrorNotReady) {
    (void)cudaGetLastError();
    return false;
  }
  check(status, what, where);
  return true;
}

inline constexpr int kMaxDevices = 16;

}  // namespace detail

/// Number of visible GPUs; 0 (not an error) without a GPU or a driver.
inline int device_count() noexcept {
  static const int count = [] {
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
      (void)cudaGetLastError();
      return 0;
    }
    return n;
  }();
  return count;
}

/// True when at least one GPU can be used.
inline bool is_available() noexcept { return device_count() > 0; }

namespace detail {

/// A clear error instead of the runtime's when there is no GPU at all.
inline void require_gpu(const char* op) {
  tensorlib::detail::check<DeviceError>(is_available(), op,
                                        ": no CUDA GPU is available (tl::cuda::is_available() is false)");
}

}  // namespace detail

/// The current device of this host thread.
inline int current_device() {
  detail::require_gpu("current_device");
  int d = 0;
  detail::check(cudaGetDevice(&d), "cudaGetDevice");
  return d;
}

/// Makes `device` current for this host thread.
inline void set_device(int device) {
  detail::require_gpu("set_device");
  tensorlib::detail::check<DeviceError>(device >= 0 && device < device_count(), "set_device: device index ", device,
                                        " is out of range for ", device_count(), " visible GPU(s)");
  detail::check(cudaSetDevice(device), "cudaSetDevice");
}

/// The index a `Device` stands for: its own, or the current one for -1.
inline int device_index(Device device) {
  tensorlib::detail::check<DeviceError>(device.is_cuda(), "device_index: ", device, " is not a CUDA device");
  return device.index >= 0 ? device.index : current_device();
}

/// Number of streaming multiprocessors of `device` (cached; threads that
/// launch for the first time at once may both ask, and store the same
/// number): kernels size their grids by it.
inline int multiprocessor_count(int device) {
  static std::array<std::atomic<int>, detail::kMaxDevices> counts{};
  tensorlib::detail::check<DeviceError>(device >= 0 && device < detail::kMaxDevices,
                                        "multiprocessor_count: device index ", device, " out of range");
  std::atomic<int>& cached = counts[static_cast<std::size_t>(device)];
  int n = cached.load(std::memory_order_relaxed);
  if (n == 0) {
    detail::check(cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, device), "cudaDeviceGetAttribute");
    cached.store(n, std::memory_order_relaxed);
  }
  return n;
}

/// Waits until all work on the current device has finished.
inline void synchronize() {
  detail::require_gpu("synchronize");
  detail::check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
}

/// Makes a device current for a scope and restores the previous one.
class DeviceGuard {
 public:
  explicit DeviceGuard(int device) : previous_(current_device()) {
    if (device != previous_) set_device(device);
  }
  explicit DeviceGuard(Device device) : DeviceGuard(device_index(device)) {}
  DeviceGuard(const DeviceGuard&) = delete;
  DeviceGuard& operator=(const DeviceGuard&) = delete;
  ~DeviceGuard() { (void)cudaSetDevice(previous_); }

 private:
  int previous_;
};

/// A CUDA stream on one device. Copies share it; a stream made by `create`
/// is destroyed with its last copy, the default stream never.
class Stream {
 public:
  /// The legacy default stream of `device` (-1: the current device).
  static Stream default_stream(int device = -1) { return Stream(nullptr, device < 0 ? current_device() : device); }

  /// A new non-blocking stream on `device` (-1: the current device).
  static Stream create(int device = -1) {
    const int d = device < 0 ? current_device() : device;
    DeviceGuard guard(d);
    cudaStream_t s = nullptr;
    detail::check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
    Stream out(s, d);
    out.owner_ = std::shared_ptr<void>(s, [](void* p) { (void)cudaStreamDestroy(static_cast<cudaStream_t>(p)); });
    return out;
  }

  cudaStream_t handle() const noexcept { return stream_; }
  int device_index() const noexcept { return device_; }
  Device device() const noexcept { return Device(kCUDA, static_cast<int8_t>(device_)); }

  /// Waits until all work queued on this stream has finished.
  void synchronize() const { detail::check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize"); }
  /// True when all work queued on this stream has finished.
  bool query() const { return detail::finished(cudaStreamQuery(stream_), "cudaStreamQuery"); }

  friend bool operator==(const Stream& a, const Stream& b) noexcept {
    return a.stream_ == b.stream_ && a.device_ == b.device_;
  }

 private:
  Stream(cudaStream_t s, int device) : stream_(s), device_(device) {}

  cudaStream_t stream_ = nullptr;
  int device_ = 0;
  std::shared_ptr<void> owner_;
};

namespace detail {

// This thread's current stream per device (Note [current stream]); an
// empty slot means the default stream.
inline std::array<std::shared_ptr<Stream>, kMaxDevices>& current_streams() {
  thread_local std::array<std::shared_ptr<Stream>, kMaxDevices> streams;
  return streams;
}

}  // namespace detail

/// This thread's current stream on `device` (-1: the current device).
inline Stream current_stream(int device = -1) {
  const int d = device < 0 ? current_device() : device;
  const auto& slot = detail::current_streams()[static_cast<std::size_t>(d)];
  return slot ? *slot : Stream::default_stream(d);
}

/// Makes `stream` current on its device for this thread.
inline void set_current_stream(const Stream& stream) {
  detail::current_streams()[static_cast<std::size_t>(stream.device_index())] = std::make_shared<Stream>(stream);
}

/// Makes a stream (and its device) current for a scope, then restores both.
class StreamGuard {
 public:
  explicit StreamGuard(const Stream& stream)
      : device_(stream.device_index()), previous_(current_stream(stream.device_index())), guard_(device_) {
    set_current_stream(stream);
  }
  StreamGuard(const StreamGuard&) = delete;
  StreamGuard& operator=(const StreamGuard&) = delete;
  ~StreamGuard() { detail::current_streams()[static_cast<std::size_t>(device_)] = std::make_shared<Stream>(previous_); }

 private:
  int device_;
  Stream previous_;
  DeviceGuard guard_;
};

/// A CUDA event: a point in a stream's work to wait for or time from.
class Event {
 public:
  /// `enable_timing` as in PyTorch: needed for `elapsed_time`.
  explicit Event(bool enable_timing = false) {
    detail::require_gpu("Event");
    detail::check(cudaEventCreateWithFlags(&event_, enable_timing ? cudaEventDefault : cudaEventDisableTiming),
                  "cudaEventCreateWithFlags");
  }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  ~Event() {
    if (event_ != nullptr) (void)cudaEventDestroy(event_);
  }

  /// Records this event at the current end of `stream`'s work.
  void record(const Stream& stream) { detail::check(cudaEventRecord(event_, stream.handle()), "cudaEventRecord"); }
  /// Records on the current stream.
  void record() { record(current_stream()); }
  /// Waits on the host until the recorded work has finished.
  void synchronize() const { detail::check(cudaEventSynchronize(event_), "cudaEventSynchronize"); }
  /// True when the recorded work has finished.
  bool query() const { return detail::finished(cudaEventQuery(event_), "cudaEventQuery"); }
  /// Makes future work on `stream` wait for this event (no host wait).
  void wait(const Stream& stream) const {
    detail::check(cudaStreamWaitEvent(stream.handle(), event_, 0), "cudaStreamWaitEvent");
  }
  /// Milliseconds between this event and `end` (both recorded and finished).
  float elapsed_time(const Event& end) const {
    float ms = 0;
    detail::check(cudaEventElapsedTime(&ms, event_, end.event_), "cudaEventElapsedTime");
    return ms;
  }

  cudaEvent_t handle() const noexcept { return event_; }

 private:
  cudaEvent_t event_ = nullptr;
};

}  // namespace tensorlib::cuda
