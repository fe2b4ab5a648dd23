// GPU benchmarks of the fused kernels, each beside its baseline in the same
// run, timed with CUDA events (manual time) and reported as bytes per
// second of the traffic the operation must move:
//   CopyD2D        cudaMemcpyAsync device to device (the bandwidth ceiling)
//   FusedChain/B   y = a*b + c*sigmoid(d) - 0.5*exp(e), one tensorlib kernel,
//                  its grid capped at B blocks per SM (16: the library's
//                  default; 0: no cap, one vector per thread)
//   HandChain/A/B  the same chain as a hand-written CUDA kernel: A = 0 with
//                  __expf, 1 with the accurate expf that tensorlib's functors
//                  use; B = 0 one vector per thread, 16 a grid-stride loop
//                  over 16 blocks per SM (tensorlib's grid). The four
//                  variants tell which difference the hand kernel's lead
//                  comes from.
//   HandChainX2    the hand kernel with 8 elements (two vector loads) per thread
//   BroadcastChain the chain with d a broadcast row of a [N/1024, 1024] shape
//   ChainBackward  the chain's backward alone (tl::autograd::grad of y with
//                  a given gradient, the graph kept): one adjoint kernel
//                  reading the five inputs and the gradient, writing five
//                  gradients (11 floats per element)
//   ChainFwdBwd    forward, then backward into .grad (17 floats per element)
//   SumAxis0/1     sum of [8192, 8192] along each axis
//   Softmax/C      softmax along rows of C floats, 2^26 floats in all
//   Sgemm/Dgemm    tl::mm at 4096 beside a direct cublasSgemm/Dgemm call
//   Hgemm/Bf16gemm tl::mm of float16/bfloat16 at 4096 beside a direct
//                  cublasGemmEx call (float accumulation)
//   AdamStep/50,1  tl::optim::Adam (weight_decay 1e-2) over 10M parameters in
//                  50 tensors or one (multi-tensor kernels, Note [multi-tensor
//                  steps]), 28 bytes per element; the host time of the call
//   AdamStepQueued the same step behind queued GPU work (its GPU time alone)
// PyTorch 2.11's figures for the same operations come from
// bench/cuda_torch.py run on the same machine (bench/RESULTS.md).
// Every manually timed case also reports `median_us`, the median of its
// iterations, as cuda_torch.py reports PyTorch's.
// Run: ./cuda_bench --benchmark_counters_tabular=true

#include <benchmark/benchmark.h>
#include <cublas_v2.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <vector>

#include <tensorlib/tensorlib.hpp>

namespace {

constexpr int64_t kChainN = int64_t{1} << 26;

// Times `body` (queued on the current stream) with CUDA events; the
// median of the iterations' times goes to the `median_us` counter.
template <class F>
void time_gpu(benchmark::State& state, double bytes, F body) {
  body();  // warm-up (allocations, cuBLAS handles)
  tl::cuda::synchronize();
  tl::cuda::Event start(true), stop(true);
  std::vector<double> ms;
  for (auto _ : state) {
    start.record();
    body();
    stop.record();
    stop.synchronize();
    ms.push_back(static_cast<double>(start.elapsed_time(stop)));
    state.SetIterationTime(ms.back() / 1e3);
  }
  state.SetBytesProcessed(static_cast<int64_t>(bytes * static_cast<double>(state.iterations())));
  if (ms.empty()) return;
  std::nth_element(ms.begin(), ms.begin() + static_cast<std::ptrdiff_t>(ms.size() / 2), ms.end());
  state.counters["median_us"] = ms[ms.size() / 2] * 1e3;
}

// Sets the library's grid cap (blocks per SM) for one benchmark, then
// restores it.
class GridCap {
 public:
  explicit GridCap(int64_t blocks_per_sm) { tl::cuda::detail::grid_blocks_per_sm = blocks_per_sm; }
  GridCap(const GridCap&) = delete;
  GridCap& operator=(const GridCap&) = delete;
  ~GridCap() { tl::cuda::detail::grid_blocks_per_sm = saved_; }

 private:
  int64_t saved_ = tl::cuda::detail::grid_blocks_per_sm;
};

struct ChainInputs {
  tl::Tensor<float> a, b, c, d, e, y;
};

ChainInputs chain_inputs(const tl::Shape& shape, const tl::Shape& d_shape) {
  tl::Generator g(1);
  const tl::TensorOptions gpu{.device = tl::kCUDA};
  return {tl::randn(shape, g, gpu),   tl::randn(shape, g, gpu), tl::randn(shape, g, gpu),
          tl::randn(d_shape, g, gpu), tl::randn(shape, g, gpu), tl::empty<float>(shape, gpu)};
}

void CopyD2D(benchmark::State& state) {
  if (!tl::cuda::is_available()) return state.SkipWithError("no CUDA GPU");
  const auto x = tl::empty<float>({kChainN}, {.device = tl::kCUDA});
  const auto y = tl::empty<float>({kChainN}, {.device = tl::kCUDA});
  const auto stream = tl::cuda::current_stream().handle();
  time_gpu(state, 2.0 * kChainN * 4,
           [&] { (void)cudaMemcpyAsync(y.data_ptr(), x.data_ptr(), kChainN * 4, cudaMemcpyDeviceToDevice, stream); });
}

void FusedChain(benchmark::State& state) {
  if (!tl::cuda::is_available()) return state.SkipWithError("no CUDA GPU");
  auto in = chain_inputs({kChainN}, {kChainN});
  const GridCap cap(state.range(0));
  time_gpu(state, 6.0 * kChainN * 4,
           [&] { in.y.copy_(in.a * in.b + in.c * tl::sigmoid(in.d) - 0.5f * tl::exp(in.e)); });
}

// One element of the chain, with CUDA's fast exponential or its accurate one.
template <bool kAccurate>
__device__ float chain_value(float p, float q, float r, float s, float t) {
  if constexpr (kAccurate)
    return p * q + r * (1.0f / (1.0f + expf(-s))) - 0.5f * expf(t);
  else
    return p * q + r * (1.0f / (1.0f + __expf(-s))) - 0.5f * __expf(t);
}

// Four elements per thread, in a grid-stride loop (one round when the
// grid covers n).
template <bool kAccurate>
__global__ void hand_chain(const float* __restrict__ a, const float* __restrict__ b, const float* __restrict__ c,
                           const float* __restrict__ d, const float* __restrict__ e, float* __restrict__ y, int64_t n) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x * 4;
  for (int64_t i = (static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) * 4; i + 4 <= n; i += step) {
    const float4 va = *reinterpret_cast<const float4*>(a + i), vb = *reinterpret_cast<const float4*>(b + i);
    const float4 vc = *reinterpret_cast<const float4*>(c + i), vd = *reinterpret_cast<const float4*>(d + i);
    const float4 ve = *reinterpret_cast<const float4*>(e + i);
    auto f = [](float p, float q, float r, float s, float t) { return chain_value<kAccurate>(p, q, r, s, t); };
    *reinterpret_cast<float4*>(y + i) = make_float4(f(va.x, vb.x, vc.x, vd.x, ve.x), f(va.y, vb.y, vc.y, vd.y, ve.y),
                                                    f(va.z, vb.z, vc.z, vd.z, ve.z), f(va.w, vb.w, vc.w, vd.w, ve.w));
  }
}

void HandChain(benchmark::State& state) {
  if (!tl::cuda::is_available()) return state.SkipWithError("no CUDA GPU");
  auto in = chain_inputs({kChainN}, {kChainN});
  const auto stream = tl::cuda::current_stream().handle();
  const bool accurate = state.range(0) != 0;
  const GridCap cap(state.range(1));
  const unsigned blocks = tl::cuda::detail::grid_for(kChainN / 4, tl::cuda::current_device());
  const auto kernel = accurate ? hand_chain<true> : hand_chain<false>;
  time_gpu(state, 6.0 * kChainN * 4, [&] {
    kernel<<<blocks, 256, 0, stream>>>(in.a.data_ptr(), in.b.data_ptr(), in.c.data_ptr(), in.d.data_ptr(),
                                       in.e.data_ptr(), in.y.data_ptr(), kChainN);
  });
}

// The hand kernel with two float4 per operand and thread (more loads in
// flight): whether the fused kernel's kVec = 4 leaves bandwidth unused.
__global__ void hand_chain_x2(const float* __restrict__ a, const float* __restrict__ b, const float* __restrict__ c,
                              const float* __restrict__ d, const float* __restrict__ e, float* __restrict__ y,
                              int64_t n) {
  const int64_t i = (static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) * 8;
  if (i + 8 > n) return;
  auto f = [](float p, float q, float r, float s, float t) {
    return p * q + r * (1.0f / (1.0f + __expf(-s))) - 0.5f * __expf(t);
  };
  float4 v[5][2];
  const float* in[5] = {a, b, c, d, e};
#pragma unroll
  for (int k = 0; k < 5; ++k)
#pragma unroll
    for (int h = 0; h < 2; ++h) v[k][h] = *reinterpret_cast<const float4*>(in[k] + i + 4 * h);
#pragma unroll
  for (int h = 0; h < 2; ++h)
    *reinterpret_cast<float4*>(y + i + 4 * h) = make_float4(f(v[0][h].x, v[1][h].x, v[2][h].x, v[3][h].x, v[4][h].x),
                                                            f(v[0][h].y, v[1][h].y, v[2][h].y, v[3][h].y, v[4][h].y),
                                                            f(v[0][h].z, v[1][h].z, v[2][h].z, v[3][h].z, v[4][h].z),
                                                            f(v[0][h].w, v[1][h].w, v[2][h].w, v[3][h].w, v[4][h].w));
}

void HandChainX2(benchmark::State& state) {
  if (!tl::cuda::is_available()) return state.SkipWithError("no CUDA GPU");
  auto in = chain_inputs({kChainN}, {kChainN});
  const auto stream = tl::cuda::current_stream().handle();
  const auto blocks = static_cast<unsigned>(kChainN / 8 / 256);
  time_gpu(state, 6.0 * kChainN * 4, [&] {
    hand_chain_x2<<<blocks, 256, 0, stream>>>(in.a.data_ptr(), in.b.data_ptr(), in.c.data_ptr(), in.d.data_ptr(),
                                              in.e.data_ptr(), in.y.data_ptr(), kChainN);
  });
}

void BroadcastChain(benchmark::State& state) {
  if (!tl::cuda::is_available()) return state.SkipWithError("no CUDA GPU");
  auto in = chain_inputs({kChainN / 1024, 1024}, {1024});
  time_gpu(state, 5.0 * kChainN * 4,
           [&] { in.y.copy_(in.a * in.b + in.c * tl::sigmoid(in.d) - 0.5f * tl::exp(in.e)); });
}

// The chain's inputs, each requiring grad, and a gradient of ones.
struct ChainLeaves {
  ChainInputs in;
  tl::Tensor<float> g;
  std::vector<tl::Tensor<float>> leaves() const { return {in.a, in.b, in.c, in.d, in.e}; }
};

ChainLeaves chain_leaves() {
  ChainLeaves l{chain_inputs({kChainN}, {kChainN}), tl::ones<float>({kChainN}, {.device = tl::kCUDA})};
  for (auto& t : l.leaves()) t.requires_grad_();
  return l;
}

tl::Tensor<float> chain_of(const ChainInputs& in) {
  return in.a * in.b + in.c * tl::sigmoid(in.d) - 0.5f * tl::exp(in.e);
}

void ChainBackward(benchmark::State& state) {
  if (!tl::cuda::is_available()) return state.SkipWithError("no CUDA GPU");
  const ChainLeaves l = chain_leaves();
  const tl::Tensor<float> y = chain_of(l.in);
  std::vector<tl::Tensor<float>> grads;
  time_gpu(state, 11.0 * kChainN * 4, [&] { grads = tl::autograd::grad<float>({y}, l.leaves(), {l.g}, true); });
}

void ChainFwdBwd(benchmark::State& state) {
  if (!tl::cuda::is_available()) return state.SkipWithError("no CUDA GPU");
  const ChainLeaves l = chain_leaves();
  time_gpu(state, 17.0 * kChainN * 4, [&] {
    for (const auto& t : l.leaves()) t.set_grad({});
    chain_of(l.in).backward(l.g);
  });
}

void SumAxis(benchmark::State& state) {
  if (!tl::cuda::is_available()) return state.SkipWithError("no CUDA GPU");
  tl::Generator g(2);
  const auto x = tl::randn({8192, 8192}, g, {.device = tl::kCUDA});
  const int64_t axis = state.range(0);
  tl::Tensor<float> r;
  time_gpu(state, 8192.0 * 8192 * 4, [&] { r = tl::sum(x, {axis}); });
}

void Softmax(benchmark::State& state) {
  if (!tl::cuda::is_available()) return state.SkipWithError("no CUDA GPU");
  tl::Generator g(5);
  const int64_t cols = state.range(0), rows = kChainN / cols;
  const auto x = tl::randn({rows, cols}, g, {.device = tl::kCUDA});
  tl::Tensor<float> y;
  time_gpu(state, 2.0 * kChainN * 4, [&] { y = tl::softmax(x, -1); });
}

// An [n, n] standard-normal matrix of T on the GPU (16-bit types: rounded from float).
template <class T>
tl::Tensor<T> gpu_randn(int64_t n, tl::Generator& g) {
  if constexpr (tl::is_reduced_float<T>)
    return tl::randn({n, n}, g, {.device = tl::kCUDA}).template to<T>();
  else
    return tl::randn<T>({n, n}, g, {.device = tl::kCUDA});
}

template <class T>
void Gemm(benchmark::State& state) {
  if (!tl::cuda::is_available()) return state.SkipWithError("no CUDA GPU");
  tl::Generator g(3);
  const int64_t n = 4096;
  const auto a = gpu_randn<T>(n, g), b = gpu_randn<T>(n, g);
  tl::Tensor<T> c;
  time_gpu(state, 0, [&] { c = tl::mm(a, b); });
  state.counters["TFLOP/s"] =
      benchmark::Counter(2.0 * n * n * n * 1e-12, benchmark::Counter::kIsIterationInvariantRate);
}

template <class T>
void GemmCublas(benchmark::State& state) {
  if (!tl::cuda::is_available()) return state.SkipWithError("no CUDA GPU");
  tl::Generator g(3);
  const int n = 4096;
  const auto a = gpu_randn<T>(n, g), b = gpu_randn<T>(n, g);
  const auto c = tl::empty<T>({n, n}, {.device = tl::kCUDA});
  cublasHandle_t h = nullptr;
  cublasCreate(&h);
  cublasSetStream(h, tl::cuda::current_stream().handle());
  const T one = T(1), zero = T(0);
  const float one32 = 1, zero32 = 0;
  time_gpu(state, 0, [&] {
    if constexpr (tl::is_reduced_float<T>) {
      constexpr cudaDataType_t type = std::is_same_v<T, tl::Half> ? CUDA_R_16F : CUDA_R_16BF;
      cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one32, b.data_ptr(), type, n, a.data_ptr(), type, n, &zero32,
                   c.data_ptr(), type, n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
    } else if constexpr (std::is_same_v<T, float>)
      cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, b.data_ptr(), n, a.data_ptr(), n, &zero, c.data_ptr(), n);
    else
      cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, b.data_ptr(), n, a.data_ptr(), n, &zero, c.data_ptr(), n);
  });
  cublasDestroy(h);
  state.counters["TFLOP/s"] =
      benchmark::Counter(2.0 * n * n * double(n) * 1e-12, benchmark::Counter::kIsIterationInvariantRate);
}

// 10M parameters on the GPU split into `tensors` tensors, with gradients.
std::vector<tl::Tensor<float>> adam_params(int64_t tensors) {
  const int64_t per_tensor = 10'000'000 / tensors;
  tl::Generator g(4);
  std::vector<tl::Tensor<float>> params;
  for (int64_t i = 0; i < tensors; ++i) {
    auto p = tl::randn({per_tensor}, g, {.device = tl::kCUDA}).requires_grad_();
    p.set_grad(tl::randn({per_tensor}, g, {.device = tl::kCUDA}));
    params.push_back(p);
  }
  return params;
}

void AdamStep(benchmark::State& state) {
  if (!tl::cuda::is_available()) return state.SkipWithError("no CUDA GPU");
  const int64_t tensors = state.range(0), per_tensor = 10'000'000 / tensors;
  std::vector<tl::Tensor<float>> params = adam_params(tensors);
  tl::optim::Adam opt(params, {.lr = 1e-3, .weight_decay = 1e-2});
  // Host time of the step call alone (it returns once its kernels are queued).
  double host_s = 0;
  int64_t calls = 0;
  time_gpu(state, 28.0 * tensors * per_tensor, [&] {
    const auto t0 = std::chrono::steady_clock::now();
    opt.step();
    host_s += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    ++calls;
  });
  state.counters["host_us"] = host_s / static_cast<double>(calls) * 1e6;
}

// Holds the GPU for about `cycles` clock cycles (one thread).
__global__ void spin(int64_t cycles) {
  const int64_t start = clock64();
  while (clock64() - start < cycles) {
  }
}

// One Adam step behind ~0.5 ms of queued GPU work, as in a training loop
// where the step follows the backward kernels: the host queues the whole
// step before the GPU reaches it, so the events time the GPU's part alone.
void AdamStepQueued(benchmark::State& state) {
  if (!tl::cuda::is_available()) return state.SkipWithError("no CUDA GPU");
  std::vector<tl::Tensor<float>> params = adam_params(state.range(0));
  tl::optim::Adam opt(params, {.lr = 1e-3, .weight_decay = 1e-2});
  opt.step();
  tl::cuda::synchronize();
  const auto stream = tl::cuda::current_stream().handle();
  tl::cuda::Event start(true), stop(true);
  const auto before = tl::stats::snapshot();
  for (auto _ : state) {
    spin<<<1, 1, 0, stream>>>(1'000'000);
    start.record();
    opt.step();
    stop.record();
    stop.synchronize();
    state.SetIterationTime(static_cast<double>(start.elapsed_time(stop)) / 1e3);
  }
  state.SetBytesProcessed(static_cast<int64_t>(28.0 * 10'000'000 * static_cast<double>(state.iterations())));
  // Kernels per step (Note [multi-tensor steps]: one behind queued work).
  state.counters["launches"] =
      static_cast<double>((tl::stats::snapshot() - before).fused_kernels) / static_cast<double>(state.iterations());
}

// rfft of 16 lines of 1024 floats, wall time per call including the wait
// for its result: with the plan cache (Arg 1) and with a plan made and
// destroyed per call (Arg 0, `max_size` 0), in the same run (Note [cuFFT
// plan cache]).
void RfftPlanCache(benchmark::State& state) {
  if (!tl::cuda::is_available()) return state.SkipWithError("no CUDA GPU");
  auto& cache = tl::cuda::cufft_plan_cache();
  cache.set_max_size(state.range(0) == 1 ? tl::cuda::FftPlanCache::kDefaultMaxSize : 0);
  tl::Generator g(4);
  const auto x = tl::randn({16, 1024}, g, {.device = tl::kCUDA});
  (void)tl::fft::rfft(x);
  tl::cuda::synchronize();
  for (auto _ : state) {
    benchmark::DoNotOptimize(tl::fft::rfft(x));
    tl::cuda::synchronize();
  }
  cache.set_max_size(tl::cuda::FftPlanCache::kDefaultMaxSize);
}

BENCHMARK(CopyD2D)->UseManualTime()->Unit(benchmark::kMicrosecond)->MinTime(0.5);
BENCHMARK(FusedChain)->Arg(16)->Arg(0)->UseManualTime()->Unit(benchmark::kMicrosecond)->MinTime(0.5);
BENCHMARK(HandChain)
    ->Args({0, 0})
    ->Args({1, 0})
    ->Args({0, 16})
    ->Args({1, 16})
    ->UseManualTime()
    ->Unit(benchmark::kMicrosecond)
    ->MinTime(0.5);
BENCHMARK(HandChainX2)->UseManualTime()->Unit(benchmark::kMicrosecond)->MinTime(0.5);
BENCHMARK(BroadcastChain)->UseManualTime()->Unit(benchmark::kMicrosecond)->MinTime(0.5);
BENCHMARK(ChainBackward)->UseManualTime()->Unit(benchmark::kMicrosecond)->MinTime(0.5);
BENCHMARK(ChainFwdBwd)->UseManualTime()->Unit(benchmark::kMicrosecond)->MinTime(0.5);
BENCHMARK(SumAxis)->Arg(0)->Arg(1)->UseManualTime()->Unit(benchmark::kMicrosecond)->MinTime(0.5);
BENCHMARK(Softmax)->Arg(1024)->Arg(32768)->UseManualTime()->Unit(benchmark::kMicrosecond)->MinTime(0.5);
BENCHMARK(Gemm<float>)->Name("Sgemm")->UseManualTime()->Unit(benchmark::kMicrosecond)->MinTime(0.5);
BENCHMARK(GemmCublas<float>)->Name("SgemmCublas")->UseManualTime()->Unit(benchmark::kMicrosecond)->MinTime(0.5);
BENCHMARK(Gemm<tl::Half>)->Name("Hgemm")->UseManualTime()->Unit(benchmark::kMicrosecond)->MinTime(0.5);
BENCHMARK(GemmCublas<tl::Half>)->Name("HgemmCublas")->UseManualTime()->Unit(benchmark::kMicrosecond)->MinTime(0.5);
BENCHMARK(Gemm<tl::BFloat16>)->Name("Bf16gemm")->UseManualTime()->Unit(benchmark::kMicrosecond)->MinTime(0.5);
BENCHMARK(GemmCublas<tl::BFloat16>)
    ->Name("Bf16gemmCublas")
    ->UseManualTime()
    ->Unit(benchmark::kMicrosecond)
    ->MinTime(0.5);
BENCHMARK(Gemm<double>)->Name("Dgemm")->UseManualTime()->Unit(benchmark::kMicrosecond)->MinTime(0.5);
BENCHMARK(GemmCublas<double>)->Name("DgemmCublas")->UseManualTime()->Unit(benchmark::kMicrosecond)->MinTime(0.5);
BENCHMARK(AdamStep)->Arg(50)->Arg(1)->UseManualTime()->Unit(benchmark::kMicrosecond)->MinTime(0.5);
BENCHMARK(AdamStepQueued)->Arg(50)->Arg(1)->UseManualTime()->Unit(benchmark::kMicrosecond)->MinTime(0.5);
BENCHMARK(RfftPlanCache)->Arg(1)->Arg(0)->Unit(benchmark::kMicrosecond)->MinTime(0.5);

}  // namespace

BENCHMARK_MAIN();
