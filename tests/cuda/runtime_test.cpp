// The CUDA runtime layer from a translation unit compiled by the host
// compiler (TENSORLIB_CUDA, no nvcc): availability, the errors a machine
// without a GPU gives (these run in CI), and on a GPU the caching
// allocator (record_stream too), pinned host memory, streams, events,
// copies, cuBLAS products, and the error for a fused expression that no
// nvcc translation unit compiled.

#include <doctest/doctest.h>

#include <atomic>
#include <string>
#include <thread>

#include <tensorlib/tensorlib.hpp>

#include "cuda_support.hpp"

using cuda_support::no_gpu;

namespace {

// Holds streams with a host callback that spins until `let_go` (or the
// end of the scope, so a failed check cannot hang the run): work queued
// behind it is certainly still pending meanwhile.
class StreamHold {
 public:
  StreamHold() = default;
  ~StreamHold() { let_go(); }
  StreamHold(const StreamHold&) = delete;
  StreamHold& operator=(const StreamHold&) = delete;

  // Earlier holds must have been let go and have run.
  void hold(const tl::cuda::Stream& stream) const {
    released() = false;
    tl::cuda::detail::check(cudaLaunchHostFunc(
                                stream.handle(),
                                [](void*) {
                                  while (!released()) std::this_thread::yield();
                                },
                                nullptr),
                            "cudaLaunchHostFunc");
  }
  void let_go() const { released() = true; }

 private:
  static std::atomic<bool>& released() {
    static std::atomic<bool> flag{false};
    return flag;
  }
};

}  // namespace

TEST_CASE("CUDA runtime: is_available agrees with device_count and never throws") {
  CHECK(tl::cuda::is_available() == (tl::cuda::device_count() > 0));
  CHECK(tl::cuda::device_count() >= 0);
}

TEST_CASE("CUDA runtime: without a GPU, CUDA tensors and events are clear errors") {
  if (tl::cuda::is_available()) {
    std::puts("SKIPPED: no CUDA GPU (this test needs a machine without one)");
    return;
  }
  CHECK_THROWS_WITH_AS(tl::empty<float>({4}, {.device = tl::kCUDA}), doctest::Contains("no allocator for device cuda"),
                       tl::DeviceError);
  CHECK_THROWS_WITH_AS(tl::ones<float>({4}).cuda(), doctest::Contains("cuda"), tl::DeviceError);
  CHECK_THROWS_WITH_AS(tl::cuda::Event(), doctest::Contains("no CUDA GPU is available"), tl::DeviceError);
  CHECK_THROWS_WITH_AS(tl::cuda::synchronize(), doctest::Contains("no CUDA GPU is available"), tl::DeviceError);
  CHECK_NOTHROW(tl::cuda::empty_cache());
  const auto host = tl::ones<float>({4});
  CHECK(!host.is_pinned());
  CHECK_THROWS_WITH_AS((void)host.pin_memory(), doctest::Contains("no CUDA GPU is available"), tl::DeviceError);
  CHECK_THROWS_AS((void)tl::empty<float>({4}, {.pin_memory = true}), tl::DeviceError);
  CHECK_THROWS_WITH_AS((void)tl::cuda::cufft_plan_cache(),
                       doctest::Contains("cufft_plan_cache: expected 0 <= device_index < 0, but got device_index=-1"),
                       tl::DeviceError);
}

// Needs no GPU: the checks only read the status they are given. The
// message starts with this file and a line between `first` and `last`.
TEST_CASE("CUDA runtime: a failed check names the caller's file and line and the library's error") {
  const auto message_of = [](auto&& call) {
    try {
      call();
    } catch (const tl::CudaError& error) {
      return std::string(error.what());
    }
    return std::string("no CudaError");
  };
  const auto check_site = [](const std::string& message, int first, int last, const std::string& rest) {
    const std::string file = std::string(__FILE__) + ":";
    REQUIRE(message.rfind(file, 0) == 0);
    std::size_t end = 0;
    const int line = std::stoi(message.substr(file.size()), &end);
    CHECK(line > first);
    CHECK(line < last);
    CHECK(message.substr(file.size() + end) == rest);
  };
  const int first = __LINE__;
  const auto runtime = message_of([] { tl::cuda::detail::check(cudaErrorInvalidValue, "cudaMemsetAsync"); });
  const auto cublas = message_of([] { tl::cuda::detail::check_cublas(CUBLAS_STATUS_INVALID_VALUE, "cublasSgemm"); });
  const auto cufft = message_of([] { tl::cuda::detail::check_cufft(CUFFT_INVALID_SIZE, "cufftPlanMany"); });
  const auto query =
      message_of([] { (void)tl::cuda::detail::finished(cudaErrorInvalidResourceHandle, "cudaEventQuery"); });
  const int last = __LINE__;
  check_site(
      runtime, first, last,
      std::string(": cudaMemsetAsync: cudaErrorInvalidValue (") + cudaGetErrorString(cudaErrorInvalidValue) + ")");
  check_site(cublas, first, last, ": cublasSgemm: CUBLAS_STATUS_INVALID_VALUE");
  check_site(cufft, first, last, ": cufftPlanMany: CUFFT_INVALID_SIZE");
  check_site(query, first, last,
             ": cudaEventQuery: cudaErrorInvalidResourceHandle (" +
                 std::string(cudaGetErrorString(cudaErrorInvalidResourceHandle)) + ")");
  CHECK_NOTHROW(tl::cuda::detail::check(cudaSuccess, "nothing"));
  CHECK(!tl::cuda::detail::finished(cudaErrorNotReady, "cudaEventQuery"));
  CHECK(tl::cuda::detail::finished(cudaSuccess, "cudaEventQuery"));
}

TEST_CASE("CUDA allocator: freed blocks are reused without cudaMalloc, stats and empty_cache") {
  if (no_gpu()) return;
  tl::cuda::synchronize();
  tl::cuda::empty_cache();
  const int64_t base = tl::cuda::memory_allocated();
  {
    auto a = tl::empty<float>({1 << 20}, {.device = tl::kCUDA});     // 4 MiB: large pool
    auto b = tl::empty<float>({1000}, {.device = tl::kCUDA});        // a small-pool segment
    CHECK(tl::cuda::memory_allocated() == base + (4 << 20) + 4096);  // 4000 bytes rounded to 512
    CHECK(tl::cuda::memory_reserved() >= tl::cuda::memory_allocated());
  }
  CHECK(tl::cuda::memory_allocated() == base);
  const auto before = tl::cuda::memory_stats();
  for (int i = 0; i < 100; ++i) {  // a steady state: every block comes from the cache
    auto a = tl::empty<float>({1 << 20}, {.device = tl::kCUDA});
    auto b = tl::empty<float>({1000}, {.device = tl::kCUDA});  // small pool
  }
  const auto after = tl::cuda::memory_stats();
  CHECK(after.segment_allocations == before.segment_allocations);
  CHECK(after.cache_hits - before.cache_hits == 200);
  // Blocks are split: two small tensors share one 2 MiB segment.
  {
    auto a = tl::empty<float>({1000}, {.device = tl::kCUDA}), b = tl::empty<float>({1000}, {.device = tl::kCUDA});
    const auto* pa = reinterpret_cast<const char*>(a.data_ptr());
    const auto* pb = reinterpret_cast<const char*>(b.data_ptr());
    CHECK(std::abs(pb - pa) < (2 << 20));
  }
  tl::cuda::reset_peak_memory_stats();
  {
    auto big = tl::empty<float>({3 << 20}, {.device = tl::kCUDA});
    CHECK(tl::cuda::max_memory_allocated() >= base + (12 << 20));
  }
  CHECK(tl::cuda::max_memory_allocated() >= base + (12 << 20));
  tl::cuda::reset_peak_memory_stats();
  CHECK(tl::cuda::max_memory_allocated() == tl::cuda::memory_allocated());
  const int64_t reserved = tl::cuda::memory_reserved();
  tl::cuda::empty_cache();
  CHECK(tl::cuda::memory_reserved() < reserved);
  CHECK(tl::cuda::memory_reserved() >= tl::cuda::memory_allocated());
}

TEST_CASE("CUDA allocator: record_stream keeps a freed block until the other stream's work is done") {
  if (no_gpu()) return;
  tl::cuda::synchronize();
  tl::cuda::empty_cache();  // no cached blocks: x and y below share one fresh 2 MiB segment
  // Hold a side stream until the test lets go, so the work "using" the
  // tensor there is certainly still pending.
  StreamHold hold;
  const auto side = tl::cuda::Stream::create();
  const int64_t base = tl::cuda::memory_allocated();
  const void* first = nullptr;
  {
    const auto x = tl::empty<float>({1 << 18}, {.device = tl::kCUDA});  // 1 MiB, on the default stream
    first = x.data_ptr();
    hold.hold(side);
    tl::cuda::record_stream(x, side);
    tl::cuda::record_stream(x, side);  // noting a stream twice is harmless
    // Its own stream: nothing to note.
    tl::cuda::record_stream(x, tl::cuda::current_stream());
  }  // x freed while the side stream is held
  // Counted as freed at once, as in PyTorch.
  CHECK(tl::cuda::memory_allocated() == base);
  {
    const auto y = tl::empty<float>({1 << 18}, {.device = tl::kCUDA});
    CHECK(y.data_ptr() != first);  // the pending block was not handed out
    hold.let_go();
    side.synchronize();
    // Back in the pool once the side stream passed the event: the only free
    // block that fits.
    const auto z = tl::empty<float>({1 << 18}, {.device = tl::kCUDA});
    CHECK(z.data_ptr() == first);
  }
  // A pending block is waited for and released by empty_cache.
  {
    const auto w = tl::empty<float>({1 << 18}, {.device = tl::kCUDA});
    hold.hold(side);
    tl::cuda::record_stream(w, side);
  }
  hold.let_go();
  tl::cuda::empty_cache();
  CHECK(tl::cuda::memory_reserved() >= tl::cuda::memory_allocated());
  // A CPU tensor has no stream to note.
  CHECK_THROWS_WITH_AS(tl::cuda::record_stream(tl::zeros<float>({2}), side),
                       doctest::Contains("record_stream: expected a CUDA tensor"), tl::DeviceError);
}

TEST_CASE("CUDA streams and events: guards, ordering, elapsed time") {
  if (no_gpu()) return;
  const auto default_stream = tl::cuda::current_stream();
  CHECK(default_stream == tl::cuda::Stream::default_stream());
  const auto s = tl::cuda::Stream::create();
  {
    tl::cuda::StreamGuard guard(s);
    CHECK(tl::cuda::current_stream() == s);
    tl::cuda::Event start(true), stop(true);
    start.record();
    const auto x = tl::ones<float>({1 << 22}).cuda();  // a copy queued on s
    stop.record();
    stop.synchronize();
    CHECK(stop.query());
    CHECK(start.elapsed_time(stop) >= 0.0f);
    CHECK(x.cpu().sum().item() == doctest::Approx(1 << 22));
  }
  CHECK(tl::cuda::current_stream() == default_stream);
  s.synchronize();
  CHECK(s.query());
  {
    tl::cuda::DeviceGuard guard(0);
    CHECK(tl::cuda::current_device() == 0);
  }
  CHECK_THROWS_AS(tl::cuda::set_device(tl::cuda::device_count()), tl::DeviceError);
}

TEST_CASE("CUDA from a host-compiled file: copies and cuBLAS work, fused expressions say to use nvcc") {
  if (no_gpu()) return;
  tl::Generator g(5);
  const auto a = tl::randn({40, 30}, g), b = tl::randn({30, 20}, g);
  fixtures::check_close(tl::mm(a.cuda(), b.cuda()).cpu(), tl::mm(a, b), 1e-5, 1e-5);
  // A fill no nvcc file registered a kernel for goes through the host.
  fixtures::check_close(tl::full<double>({5}, 1.5, {.device = tl::kCUDA}).cpu(), tl::full<double>({5}, 1.5));
  const auto x = a.cuda();
  CHECK_THROWS_WITH_AS(tl::Tensor<float>(x * 2.0f + 1.0f), doctest::Contains("compiled with nvcc"), tl::DeviceError);
  CHECK_THROWS_WITH_AS(tl::sum(x), doctest::Contains("compiled with nvcc"), tl::DeviceError);
}

TEST_CASE("CUDA tensors reach no host loop: ops without a GPU path say so (host memory labelled cuda:0)") {
  // The tensors are never read: every op must stop at its device check.
  float host[6] = {};
  const auto x = tl::from_blob(host, {2, 3}, {3, 1}, {}, tl::Device(tl::kCUDA, 0));
  // Without a GPU these stop at the output's allocation; with one, at the
  // missing kernel (checked with messages in the test above).
  CHECK_THROWS_AS(tl::Tensor<float>(x + 1.0f), tl::DeviceError);
  CHECK_THROWS_AS(tl::sum(x, {1}), tl::DeviceError);
  CHECK_THROWS_AS(tl::max(x, 1), tl::DeviceError);
  CHECK_THROWS_AS(tl::argmax(x, 1), tl::DeviceError);
  CHECK_THROWS_AS(tl::cumsum(x, 1), tl::DeviceError);
  CHECK_THROWS_AS(tl::softmax(x, 1), tl::DeviceError);
  CHECK_THROWS_AS(tl::sort(x, 1), tl::DeviceError);
  CHECK_THROWS_AS(tl::linalg::vector_norm(x), tl::DeviceError);
  CHECK_THROWS_WITH_AS(tl::Tensor<float>(x + tl::zeros<float>({2, 3})), doctest::Contains("cpu"), tl::DeviceError);
  if (!tl::cuda::is_available()) CHECK_THROWS_AS(x.cpu(), tl::DeviceError);
}

TEST_CASE("CUDA: without a GPU, the decompositions stop at their copy to the host") {
  // Note [decompositions of CUDA tensors]: the first thing they do with a
  // CUDA tensor is x.cpu(), so they fail exactly as that copy does (before,
  // they stopped at allocating their outputs, or at the missing kernel).
  if (tl::cuda::is_available()) return;  // with a GPU the copy would read this host memory
  double host[4] = {};
  const auto x = tl::from_blob(host, {2, 2}, {2, 1}, {}, tl::Device(tl::kCUDA, 0));
  std::string copy_error;
  try {
    (void)x.cpu();
  } catch (const tl::DeviceError& e) {
    copy_error = e.what();
  }
  REQUIRE(!copy_error.empty());
  const char* msg = copy_error.c_str();
  CHECK_THROWS_WITH_AS(tl::linalg::cholesky(x), msg, tl::DeviceError);
  CHECK_THROWS_WITH_AS(tl::linalg::qr(x), msg, tl::DeviceError);
  CHECK_THROWS_WITH_AS(tl::linalg::eigh(x), msg, tl::DeviceError);
  CHECK_THROWS_WITH_AS(tl::linalg::eigvalsh(x), msg, tl::DeviceError);
  CHECK_THROWS_WITH_AS(tl::linalg::svd(x), msg, tl::DeviceError);
  CHECK_THROWS_WITH_AS(tl::linalg::svdvals(x), msg, tl::DeviceError);
  CHECK_THROWS_WITH_AS(tl::linalg::matrix_rank(x), msg, tl::DeviceError);
  CHECK_THROWS_WITH_AS(tl::linalg::pinv(x), msg, tl::DeviceError);
  CHECK_THROWS_WITH_AS(tl::linalg::lstsq(x, x), msg, tl::DeviceError);
  CHECK_THROWS_WITH_AS(tl::linalg::solve(x, x), msg, tl::DeviceError);
  CHECK_THROWS_WITH_AS(tl::linalg::inv(x), msg, tl::DeviceError);
  CHECK_THROWS_WITH_AS(tl::linalg::det(x), msg, tl::DeviceError);
  CHECK_THROWS_WITH_AS(tl::linalg::slogdet(x), msg, tl::DeviceError);
  // Two inputs: the device check comes first.
  CHECK_THROWS_WITH_AS(tl::linalg::solve(x, tl::eye<double>(2)), doctest::Contains("cpu"), tl::DeviceError);
  CHECK_THROWS_WITH_AS(tl::linalg::lstsq(x, tl::eye<double>(2)), doctest::Contains("cpu"), tl::DeviceError);
}

TEST_CASE("CUDA: decompositions of CUDA tensors give the CPU's results on the GPU, from a host-compiled file") {
  // Note [decompositions of CUDA tensors]: the same host code computes both,
  // so they agree exactly; the copies need no kernel.
  if (no_gpu()) return;
  tl::Generator g(31);
  const auto a = tl::randn({3, 4, 4}, g).to<double>();
  const auto b = tl::randn({3, 4, 2}, g).to<double>();
  const auto wide = tl::randn({2, 3, 5}, g);
  const tl::Tensor<double> spd = tl::matmul(a, a.transpose(-1, -2)) + tl::eye<double>(4) * 4.0;
  const auto same = [](const auto& gpu, const auto& cpu, const char* what) {
    CAPTURE(what);
    CHECK(gpu.device() == tl::Device(tl::kCUDA, 0));
    fixtures::check_close(gpu.cpu(), cpu, 0, 0, what);
  };
  const auto ga = a.cuda(), gb = b.cuda(), gspd = spd.cuda();
  const auto gwide = wide.cuda();
  same(tl::linalg::cholesky(gspd), tl::linalg::cholesky(spd), "cholesky");
  same(tl::linalg::cholesky(gspd, true), tl::linalg::cholesky(spd, true), "cholesky upper");
  for (const char* mode : {"reduced", "complete", "r"}) {
    const auto [gq, gr] = tl::linalg::qr(gwide.transpose(-1, -2), mode);  // a strided input
    const auto [q, r] = tl::linalg::qr(wide.transpose(-1, -2), mode);
    same(gq, q, mode);
    same(gr, r, mode);
  }
  const auto [gw, gv] = tl::linalg::eigh(gspd, "U");
  const auto [w, v] = tl::linalg::eigh(spd, "U");
  same(gw, w, "eigh values");
  same(gv, v, "eigh vectors");
  same(tl::linalg::eigvalsh(gspd), tl::linalg::eigvalsh(spd), "eigvalsh");
  const auto [gu, gs, gvh] = tl::linalg::svd(gwide, false);
  const auto [u, s, vh] = tl::linalg::svd(wide, false);
  same(gu, u, "svd U");
  same(gs, s, "svd S");
  same(gvh, vh, "svd Vh");
  same(tl::linalg::svdvals(gwide), tl::linalg::svdvals(wide), "svdvals");
  same(tl::linalg::matrix_rank(ga), tl::linalg::matrix_rank(a), "matrix_rank");
  same(tl::linalg::pinv(gwide), tl::linalg::pinv(wide), "pinv");
  const auto gls = tl::linalg::lstsq(ga, gb);
  const auto ls = tl::linalg::lstsq(a, b);
  same(gls.solution, ls.solution, "lstsq solution");
  same(gls.rank, ls.rank, "lstsq rank");
  same(tl::linalg::solve(ga, gb), tl::linalg::solve(a, b), "solve");
  same(tl::linalg::solve(ga, gb.transpose(-1, -2), false), tl::linalg::solve(a, b.transpose(-1, -2), false),
       "solve left=false");
  same(tl::linalg::inv(ga), tl::linalg::inv(a), "inv");
  same(tl::linalg::det(ga), tl::linalg::det(a), "det");
  const auto [gsign, glog] = tl::linalg::slogdet(ga);
  const auto [sign, logabs] = tl::linalg::slogdet(a);
  same(gsign, sign, "slogdet sign");
  same(glog, logabs, "slogdet logabsdet");
  // The CPU's errors, and the device check of two inputs.
  const auto not_pd = tl::Tensor<double>(-spd);
  CHECK_THROWS_WITH_AS(tl::linalg::cholesky(not_pd.cuda()),
                       doctest::Contains("(Batch element 0): The factorization could not be completed"),
                       tl::LinAlgError);
  CHECK_THROWS_WITH_AS(tl::linalg::solve(ga, b), doctest::Contains("cuda:0"), tl::DeviceError);
}

TEST_CASE("CUDA pinned memory: pin_memory, is_pinned, asynchronous copies and block reuse") {
  if (no_gpu()) return;
  const auto x = tl::arange(0, 1000).to<float>();
  CHECK(!x.is_pinned());
  const auto p = x.pin_memory();
  CHECK(p.is_pinned());
  CHECK(p.is_cpu());
  CHECK(p.pin_memory().data_ptr() == p.data_ptr());  // already pinned: itself
  CHECK(p.narrow(0, 10, 5).is_pinned());             // views of pinned memory are pinned
  fixtures::check_close(p, x);
  CHECK(tl::empty<float>({8}, {.pin_memory = true}).is_pinned());
  // Host to device and back without blocking; the result is pinned.
  const auto d = p.cuda(-1, /*non_blocking=*/true);
  const auto back = d.to(tl::kCPU, /*non_blocking=*/true);
  CHECK(back.is_pinned());
  tl::cuda::synchronize();
  fixtures::check_close(back, x);
  CHECK_THROWS_WITH_AS((void)d.pin_memory(), doctest::Contains("only CPU tensors can be pinned"), tl::DeviceError);
  CHECK_THROWS_AS((void)tl::empty<float>({2}, {.device = tl::kCUDA, .pin_memory = true}), tl::DeviceError);
}

TEST_CASE("CUDA pinned memory: a block is not reused while a copy from it is in flight") {
  if (no_gpu()) return;
  tl::cuda::synchronize();
  tl::cuda::empty_host_cache();
  // Hold the stream until the test lets go, so the copy queued behind it is
  // certainly still pending.
  StreamHold hold;
  const auto stream = tl::cuda::current_stream();
  const void* first = nullptr;
  {
    auto src = tl::ones<float>({1 << 16}).pin_memory();
    first = src.data_ptr();
    hold.hold(stream);
    const auto dst = src.cuda(-1, /*non_blocking=*/true);
    (void)dst;
  }  // src freed while the copy waits
  const void* second = nullptr;
  {
    const auto again = tl::empty<float>({1 << 16}, {.pin_memory = true});
    second = again.data_ptr();
    CHECK(second != first);  // the pending block was not handed out
  }
  hold.let_go();
  tl::cuda::synchronize();
  CHECK(tl::cuda::host_cached_bytes() >= 2 * (int64_t{1} << 18));
  const auto later = tl::empty<float>({1 << 16}, {.pin_memory = true});
  CHECK((later.data_ptr() == first || later.data_ptr() == second));  // served from the cache
}
