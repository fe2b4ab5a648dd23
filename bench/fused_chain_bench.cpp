// The pointwise chain y = a*b + c*sigmoid(d) - 0.5*exp(e), float32, three ways
// in one run:
//   Fused     tensorlib's expression, evaluated into a preallocated y (copy_)
//   FusedNew  the same expression assigned to a new tensor (allocation included)
//   Hand      a hand-written single fused loop: AVX2+FMA intrinsics, its own
//             exp polynomial, OpenMP threads, broadcast work hoisted (the
//             practical limit; a scalar std::exp loop would be 4-6x slower)
//   LibTorch  eager LibTorch (one pass and one temporary per op), when built
//             with libtorch-dev installed
// Shapes: 2^20 and 2^24 contiguous, and [4096, 1024] with d a broadcast row.
// Each at 2 threads and 1 thread.
// Run: OMP_WAIT_POLICY=PASSIVE ./fused_chain_bench (the passive policy keeps
// OpenMP's spinning threads from stealing the core tensorlib's pool uses);
// bench/report.py turns one run into the ratio table of bench/RESULTS.md.

#include <benchmark/benchmark.h>
#include <immintrin.h>
#include <omp.h>

#include <cstdint>
#include <vector>

#include <tensorlib/tensorlib.hpp>

#include "avx2_math.hpp"

#if defined(TENSORLIB_BENCH_LIBTORCH)
#include <torch/torch.h>
#endif

namespace {

struct Inputs {
  tl::Tensor<float> a, b, c, d, e, y;
};

Inputs make_inputs(const tl::Shape& shape, const tl::Shape& d_shape) {
  tl::Generator g(1);
  return {tl::randn(shape, g),   tl::randn(shape, g), tl::randn(shape, g),
          tl::randn(d_shape, g), tl::randn(shape, g), tl::empty<float>(shape)};
}

using bench::exp8;

inline __m256 sigmoid8(__m256 x) {
  const __m256 one = _mm256_set1_ps(1.f);
  return _mm256_div_ps(one, _mm256_add_ps(one, exp8(_mm256_sub_ps(_mm256_setzero_ps(), x))));
}
inline float exp1(float x) {  // the tail, through the same kernel
  alignas(32) float v[8] = {x};
  _mm256_store_ps(v, exp8(_mm256_load_ps(v)));
  return v[0];
}

void hand_contiguous(const float* a, const float* b, const float* c, const float* d, const float* e, float* y,
                     int64_t n, int threads) {
  const int64_t vec_end = n / 8 * 8;
#pragma omp parallel for schedule(static) num_threads(threads)
  for (int64_t i = 0; i < vec_end; i += 8) {
    const __m256 s = sigmoid8(_mm256_loadu_ps(d + i));
    __m256 r = _mm256_mul_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i));
    r = _mm256_fmadd_ps(_mm256_loadu_ps(c + i), s, r);
    r = _mm256_fnmadd_ps(_mm256_set1_ps(0.5f), exp8(_mm256_loadu_ps(e + i)), r);
    _mm256_storeu_ps(y + i, r);
  }
  for (int64_t i = vec_end; i < n; ++i) y[i] = a[i] * b[i] + c[i] / (1 + exp1(-d[i])) - 0.5f * exp1(e[i]);
}

// d is a row of `cols` values broadcast over `rows` rows: sigmoid(d) is
// computed once per column, then every row reuses it.
void hand_broadcast(const float* a, const float* b, const float* c, const float* d, const float* e, float* y,
                    int64_t rows, int64_t cols, std::vector<float>& sig, int threads) {
  for (int64_t j = 0; j < cols; j += 8) _mm256_storeu_ps(sig.data() + j, sigmoid8(_mm256_loadu_ps(d + j)));
#pragma omp parallel for schedule(static) num_threads(threads)
  for (int64_t i = 0; i < rows; ++i) {
    const int64_t o = i * cols;
    for (int64_t j = 0; j < cols; j += 8) {
      __m256 r = _mm256_mul_ps(_mm256_loadu_ps(a + o + j), _mm256_loadu_ps(b + o + j));
      r = _mm256_fmadd_ps(_mm256_loadu_ps(c + o + j), _mm256_loadu_ps(sig.data() + j), r);
      r = _mm256_fnmadd_ps(_mm256_set1_ps(0.5f), exp8(_mm256_loadu_ps(e + o + j)), r);
      _mm256_storeu_ps(y + o + j, r);
    }
  }
}

void set_bytes(benchmark::State& state, int64_t n) {
  // Bytes the chain must move: five inputs read and one output written.
  state.SetBytesProcessed(state.iterations() * n * 6 * static_cast<int64_t>(sizeof(float)));
}

// Arguments: elements (contiguous cases), then threads.
void Fused(benchmark::State& state) {
  const int64_t n = state.range(0);
  auto in = make_inputs({n}, {n});
  tl::set_num_threads(static_cast<int>(state.range(1)));
  for (auto _ : state) {
    in.y.copy_(in.a * in.b + in.c * tl::sigmoid(in.d) - 0.5f * tl::exp(in.e));
    benchmark::DoNotOptimize(in.y.data_ptr());
  }
  set_bytes(state, n);
}

void FusedNew(benchmark::State& state) {
  const int64_t n = state.range(0);
  auto in = make_inputs({n}, {n});
  tl::set_num_threads(static_cast<int>(state.range(1)));
  for (auto _ : state) {
    tl::Tensor<float> y = in.a * in.b + in.c * tl::sigmoid(in.d) - 0.5f * tl::exp(in.e);
    benchmark::DoNotOptimize(y.data_ptr());
  }
  set_bytes(state, n);
}

void Hand(benchmark::State& state) {
  const int64_t n = state.range(0);
  auto in = make_inputs({n}, {n});
  for (auto _ : state) {
    hand_contiguous(in.a.data_ptr(), in.b.data_ptr(), in.c.data_ptr(), in.d.data_ptr(), in.e.data_ptr(),
                    in.y.data_ptr(), n, static_cast<int>(state.range(1)));
    benchmark::DoNotOptimize(in.y.data_ptr());
  }
  set_bytes(state, n);
}

constexpr int64_t kRows = 4096, kCols = 1024;

// Argument: threads.
void FusedBroadcast(benchmark::State& state) {
  auto in = make_inputs({kRows, kCols}, {kCols});
  tl::set_num_threads(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    in.y.copy_(in.a * in.b + in.c * tl::sigmoid(in.d) - 0.5f * tl::exp(in.e));
    benchmark::DoNotOptimize(in.y.data_ptr());
  }
  set_bytes(state, kRows * kCols);
}

void HandBroadcast(benchmark::State& state) {
  auto in = make_inputs({kRows, kCols}, {kCols});
  std::vector<float> sig(kCols);
  for (auto _ : state) {
    hand_broadcast(in.a.data_ptr(), in.b.data_ptr(), in.c.data_ptr(), in.d.data_ptr(), in.e.data_ptr(), in.y.data_ptr(),
                   kRows, kCols, sig, static_cast<int>(state.range(0)));
    benchmark::DoNotOptimize(in.y.data_ptr());
  }
  set_bytes(state, kRows * kCols);
}

#if defined(TENSORLIB_BENCH_LIBTORCH)
void LibTorch(benchmark::State& state) {
  const int64_t n = state.range(0);
  torch::set_num_threads(static_cast<int>(state.range(1)));
  torch::manual_seed(1);
  auto a = torch::randn({n}), b = torch::randn({n}), c = torch::randn({n}), d = torch::randn({n}),
       e = torch::randn({n});
  for (auto _ : state) {
    auto y = a * b + c * torch::sigmoid(d) - 0.5 * torch::exp(e);
    benchmark::DoNotOptimize(y.data_ptr());
  }
  set_bytes(state, n);
}

void LibTorchBroadcast(benchmark::State& state) {
  torch::set_num_threads(static_cast<int>(state.range(0)));
  torch::manual_seed(1);
  auto a = torch::randn({kRows, kCols}), b = torch::randn({kRows, kCols}), c = torch::randn({kRows, kCols}),
       d = torch::randn({kCols}), e = torch::randn({kRows, kCols});
  for (auto _ : state) {
    auto y = a * b + c * torch::sigmoid(d) - 0.5 * torch::exp(e);
    benchmark::DoNotOptimize(y.data_ptr());
  }
  set_bytes(state, kRows * kCols);
}
#endif

// Sizes at two threads (the machine's cores) and at one.
void contiguous_args(benchmark::internal::Benchmark* b) {
  for (int threads : {2, 1})
    for (int64_t n : {int64_t{1} << 20, int64_t{1} << 24}) b->Args({n, threads});
}

}  // namespace

BENCHMARK(Fused)->Apply(contiguous_args)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(FusedNew)->Apply(contiguous_args)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(Hand)->Apply(contiguous_args)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(FusedBroadcast)->Arg(2)->Arg(1)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(HandBroadcast)->Arg(2)->Arg(1)->UseRealTime()->Unit(benchmark::kMillisecond);
#if defined(TENSORLIB_BENCH_LIBTORCH)
BENCHMARK(LibTorch)->Apply(contiguous_args)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(LibTorchBroadcast)->Arg(2)->Arg(1)->UseRealTime()->Unit(benchmark::kMillisecond);
#endif

BENCHMARK_MAIN();
