// Reductions over a float32 matrix, in one run:
//   Read          the machine's read bandwidth on the same buffer: a hand-written
//                 AVX2 loop summing it with 4 accumulators per thread (OpenMP);
//                 it is also the hand-written baseline of SumAll
//   SumAll        tensorlib x.sum()                  beside Read, LibTorchSumAll
//   SumDim1       tensorlib x.sum(1) (row sums)      beside HandSumDim1, LibTorchSumDim1
//   SumDim1Expr   (x * 1).sum(1): the same sum through the expression path
//                 (evaluated into an L1 block, then folded) that plain tensors skip
//   SumDim0       tensorlib x.sum(0) (column sums)   beside LibTorchSumDim0
//   Softmax       tensorlib tl::softmax(x, 1)        beside HandSoftmax, LibTorchSoftmax
//   SoftmaxDim0   tl::softmax(x, 0): a dim that is not the last runs three
//                 fused passes (amax, sum, output)   beside LibTorchSoftmaxDim0
// Shapes: [4096, 1024] (16 MiB: inside this machine's 32 MiB L3) and
// [16384, 4096] (256 MiB: main memory); at 2 threads and 1 thread.
// Bytes processed = the matrix read once (plus written once for softmax), so
// the bytes_per_second counters compare directly with Read. tensorlib's and
// LibTorch's softmax allocate their output each iteration (page faults
// included); HandSoftmax writes into a preallocated one.
// Run: OMP_WAIT_POLICY=PASSIVE python3 bench/reduce_report.py build/bench/reduce_bench

#include <benchmark/benchmark.h>
#include <immintrin.h>
#include <omp.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include <tensorlib/tensorlib.hpp>

#include "avx2_math.hpp"

#if defined(TENSORLIB_BENCH_LIBTORCH)
#include <torch/torch.h>
#endif

namespace {

using bench::exp8;
using bench::hsum;

// Arguments: rows, cols, threads.
struct Case {
  int64_t rows, cols;
  int threads;
  tl::Tensor<float> x;
  explicit Case(const benchmark::State& state)
      : rows(state.range(0)), cols(state.range(1)), threads(static_cast<int>(state.range(2))) {
    tl::Generator g(1);
    x = tl::randn({rows, cols}, g);
    tl::set_num_threads(threads);
  }
  int64_t numel() const { return rows * cols; }
};

void set_bytes(benchmark::State& state, int64_t n, int passes) {
  state.SetBytesProcessed(state.iterations() * n * passes * static_cast<int64_t>(sizeof(float)));
}

// Sum of n floats (n a multiple of 32), 4 independent accumulators.
inline float sum_run(const float* p, int64_t n) {
  __m256 a0 = _mm256_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
  for (int64_t i = 0; i < n; i += 32) {
    a0 = _mm256_add_ps(a0, _mm256_loadu_ps(p + i));
    a1 = _mm256_add_ps(a1, _mm256_loadu_ps(p + i + 8));
    a2 = _mm256_add_ps(a2, _mm256_loadu_ps(p + i + 16));
    a3 = _mm256_add_ps(a3, _mm256_loadu_ps(p + i + 24));
  }
  return hsum(_mm256_add_ps(_mm256_add_ps(a0, a1), _mm256_add_ps(a2, a3)));
}

float hand_sum_all(const float* p, int64_t rows, int64_t cols, int threads) {
  double total = 0;
#pragma omp parallel for schedule(static) num_threads(threads) reduction(+ : total)
  for (int64_t r = 0; r < rows; ++r) total += sum_run(p + r * cols, cols);
  return static_cast<float>(total);
}

void hand_sum_dim1(const float* p, float* out, int64_t rows, int64_t cols, int threads) {
#pragma omp parallel for schedule(static) num_threads(threads)
  for (int64_t r = 0; r < rows; ++r) out[r] = sum_run(p + r * cols, cols);
}

// Row softmax in three sweeps of the row (max; exp stored + sum; scale), the
// row staying in L1/L2 between sweeps. cols a multiple of 8.
void hand_softmax(const float* x, float* y, int64_t rows, int64_t cols, int threads) {
#pragma omp parallel for schedule(static) num_threads(threads)
  for (int64_t r = 0; r < rows; ++r) {
    const float* xr = x + r * cols;
    float* yr = y + r * cols;
    __m256 m = _mm256_set1_ps(-INFINITY);
    for (int64_t j = 0; j < cols; j += 8) m = _mm256_max_ps(m, _mm256_loadu_ps(xr + j));
    __m128 m4 = _mm_max_ps(_mm256_castps256_ps128(m), _mm256_extractf128_ps(m, 1));
    m4 = _mm_max_ps(m4, _mm_movehl_ps(m4, m4));
    m4 = _mm_max_ss(m4, _mm_movehdup_ps(m4));
    const __m256 mb = _mm256_set1_ps(_mm_cvtss_f32(m4));
    __m256 s = _mm256_setzero_ps();
    for (int64_t j = 0; j < cols; j += 8) {
      const __m256 e = exp8(_mm256_sub_ps(_mm256_loadu_ps(xr + j), mb));
      _mm256_storeu_ps(yr + j, e);
      s = _mm256_add_ps(s, e);
    }
    const __m256 inv = _mm256_set1_ps(1.f / hsum(s));
    for (int64_t j = 0; j < cols; j += 8) _mm256_storeu_ps(yr + j, _mm256_mul_ps(_mm256_loadu_ps(yr + j), inv));
  }
}

void Read(benchmark::State& state) {
  const Case c(state);
  for (auto _ : state) benchmark::DoNotOptimize(hand_sum_all(c.x.data_ptr(), c.rows, c.cols, c.threads));
  set_bytes(state, c.numel(), 1);
}

void SumAll(benchmark::State& state) {
  const Case c(state);
  for (auto _ : state) {
    auto s = c.x.sum();
    benchmark::DoNotOptimize(s.data_ptr());
  }
  set_bytes(state, c.numel(), 1);
}

void SumDim1(benchmark::State& state) {
  const Case c(state);
  for (auto _ : state) {
    auto s = c.x.sum(1);
    benchmark::DoNotOptimize(s.data_ptr());
  }
  set_bytes(state, c.numel(), 1);
}

void HandSumDim1(benchmark::State& state) {
  const Case c(state);
  std::vector<float> out(static_cast<std::size_t>(c.rows));
  for (auto _ : state) {
    hand_sum_dim1(c.x.data_ptr(), out.data(), c.rows, c.cols, c.threads);
    benchmark::DoNotOptimize(out.data());
  }
  set_bytes(state, c.numel(), 1);
}

void SumDim1Expr(benchmark::State& state) {
  const Case c(state);
  for (auto _ : state) {
    auto s = (c.x * 1.f).sum(1);
    benchmark::DoNotOptimize(s.data_ptr());
  }
  set_bytes(state, c.numel(), 1);
}

void SumDim0(benchmark::State& state) {
  const Case c(state);
  for (auto _ : state) {
    auto s = c.x.sum(0);
    benchmark::DoNotOptimize(s.data_ptr());
  }
  set_bytes(state, c.numel(), 1);
}

void Softmax(benchmark::State& state) {
  const Case c(state);
  for (auto _ : state) {
    auto y = tl::softmax(c.x, 1);
    benchmark::DoNotOptimize(y.data_ptr());
  }
  set_bytes(state, c.numel(), 2);
}

void SoftmaxDim0(benchmark::State& state) {
  const Case c(state);
  for (auto _ : state) {
    auto y = tl::softmax(c.x, 0);
    benchmark::DoNotOptimize(y.data_ptr());
  }
  set_bytes(state, c.numel(), 2);
}

void HandSoftmax(benchmark::State& state) {
  const Case c(state);
  auto y = tl::empty<float>({c.rows, c.cols});
  for (auto _ : state) {
    hand_softmax(c.x.data_ptr(), y.data_ptr(), c.rows, c.cols, c.threads);
    benchmark::DoNotOptimize(y.data_ptr());
  }
  set_bytes(state, c.numel(), 2);
}

#if defined(TENSORLIB_BENCH_LIBTORCH)
struct TorchCase {
  int64_t rows, cols;
  torch::Tensor x;
  explicit TorchCase(const benchmark::State& state) : rows(state.range(0)), cols(state.range(1)) {
    torch::set_num_threads(static_cast<int>(state.range(2)));
    torch::manual_seed(1);
    x = torch::randn({rows, cols});
  }
};

void LibTorchSumAll(benchmark::State& state) {
  const TorchCase c(state);
  for (auto _ : state) {
    auto s = c.x.sum();
    benchmark::DoNotOptimize(s.data_ptr());
  }
  set_bytes(state, c.rows * c.cols, 1);
}

void LibTorchSumDim1(benchmark::State& state) {
  const TorchCase c(state);
  for (auto _ : state) {
    auto s = c.x.sum(1);
    benchmark::DoNotOptimize(s.data_ptr());
  }
  set_bytes(state, c.rows * c.cols, 1);
}

void LibTorchSumDim0(benchmark::State& state) {
  const TorchCase c(state);
  for (auto _ : state) {
    auto s = c.x.sum(0);
    benchmark::DoNotOptimize(s.data_ptr());
  }
  set_bytes(state, c.rows * c.cols, 1);
}

void LibTorchSoftmaxDim0(benchmark::State& state) {
  const TorchCase c(state);
  for (auto _ : state) {
    auto y = torch::softmax(c.x, 0);
    benchmark::DoNotOptimize(y.data_ptr());
  }
  set_bytes(state, c.rows * c.cols, 2);
}

void LibTorchSoftmax(benchmark::State& state) {
  const TorchCase c(state);
  for (auto _ : state) {
    auto y = torch::softmax(c.x, 1);
    benchmark::DoNotOptimize(y.data_ptr());
  }
  set_bytes(state, c.rows * c.cols, 2);
}
#endif

void shapes(benchmark::internal::Benchmark* b) {
  for (int64_t threads : {2, 1}) {
    b->Args({4096, 1024, threads});
    b->Args({16384, 4096, threads});
  }
  b->ArgNames({"rows", "cols", "threads"})->Unit(benchmark::kMillisecond)->UseRealTime();
}

}  // namespace

BENCHMARK(Read)->Apply(shapes);
BENCHMARK(SumAll)->Apply(shapes);
BENCHMARK(SumDim1)->Apply(shapes);
BENCHMARK(HandSumDim1)->Apply(shapes);
BENCHMARK(SumDim1Expr)->Apply(shapes);
BENCHMARK(SumDim0)->Apply(shapes);
BENCHMARK(Softmax)->Apply(shapes);
BENCHMARK(SoftmaxDim0)->Apply(shapes);
BENCHMARK(HandSoftmax)->Apply(shapes);
#if defined(TENSORLIB_BENCH_LIBTORCH)
BENCHMARK(LibTorchSumAll)->Apply(shapes);
BENCHMARK(LibTorchSumDim1)->Apply(shapes);
BENCHMARK(LibTorchSumDim0)->Apply(shapes);
BENCHMARK(LibTorchSoftmax)->Apply(shapes);
BENCHMARK(LibTorchSoftmaxDim0)->Apply(shapes);
#endif

BENCHMARK_MAIN();
