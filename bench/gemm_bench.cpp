// Square float GEMM (C = A B, n = 256, 512, 1024, 2048) at 1 and 2 threads:
//   Ours      tl::cpu::gemm (packed blocking + AVX2/FMA micro-kernel)
//   TripleLoop  a reasonable hand loop: i-k-j order, the inner loop a
//             contiguous axpy the compiler vectorizes, rows split by OpenMP
//   Blas      cblas_sgemm of OpenBLAS (libopenblas-dev) at the same thread
//             count, else of the system BLAS when CMake found one (the
//             reference libblas is single-threaded: its 2-thread rows are skipped)
//   LibTorch  torch::mm, when built with libtorch-dev installed
// Each reports GFLOP/s (2 n^3 flops per product) in the "GFLOPS" counter.
// Run: OMP_WAIT_POLICY=PASSIVE ./gemm_bench

#include <benchmark/benchmark.h>
#include <omp.h>

#include <cstdint>
#include <vector>

#include <tensorlib/tensorlib.hpp>

#if defined(TENSORLIB_BENCH_LIBTORCH)
#include <torch/torch.h>
#endif

#if defined(TENSORLIB_BENCH_BLAS)
extern "C" void cblas_sgemm(int order, int trans_a, int trans_b, int m, int n, int k, float alpha, const float* a,
                            int lda, const float* b, int ldb, float beta, float* c, int ldc);
#endif
#if defined(TENSORLIB_BENCH_OPENBLAS)
extern "C" void openblas_set_num_threads(int threads);
#endif

namespace {

struct Square {
  int64_t n;
  tl::Tensor<float> a, b, c;
  explicit Square(int64_t size) : n(size) {
    tl::Generator g(1);
    a = tl::randn({n, n}, g);
    b = tl::randn({n, n}, g);
    c = tl::zeros<float>({n, n});
  }
};

void report(benchmark::State& state, int64_t n) {
  state.counters["GFLOPS"] =
      benchmark::Counter(2.0 * double(n) * double(n) * double(n), benchmark::Counter::kIsIterationInvariantRate,
                         benchmark::Counter::kIs1000);
}

void BM_Ours(benchmark::State& state) {
  const Square s(state.range(0));
  tl::set_num_threads(static_cast<int>(state.range(1)));
  using View = tl::cpu::MatrixView<const float>;
  const View a{s.a.data_ptr(), s.n, s.n, s.n, 1}, b{s.b.data_ptr(), s.n, s.n, s.n, 1};
  const tl::cpu::MatrixView<float> c{s.c.data_ptr(), s.n, s.n, s.n, 1};
  for (auto _ : state) {
    tl::cpu::gemm(1.f, a, b, 0.f, c);
    benchmark::ClobberMemory();
  }
  report(state, s.n);
}

void BM_TripleLoop(benchmark::State& state) {
  const Square s(state.range(0));
  const int threads = static_cast<int>(state.range(1));
  const int64_t n = s.n;
  const float *a = s.a.data_ptr(), *b = s.b.data_ptr();
  float* c = s.c.data_ptr();
  for (auto _ : state) {
#pragma omp parallel for schedule(static) num_threads(threads)
    for (int64_t i = 0; i < n; ++i) {
      float* ci = c + i * n;
      for (int64_t j = 0; j < n; ++j) ci[j] = 0.f;
      for (int64_t k = 0; k < n; ++k) {
        const float aik = a[i * n + k];
        const float* bk = b + k * n;
        for (int64_t j = 0; j < n; ++j) ci[j] += aik * bk[j];
      }
    }
    benchmark::ClobberMemory();
  }
  report(state, n);
}

#if defined(TENSORLIB_BENCH_BLAS)
void BM_Blas(benchmark::State& state) {
  const Square s(state.range(0));
  const int n = static_cast<int>(s.n);
#if defined(TENSORLIB_BENCH_OPENBLAS)
  openblas_set_num_threads(static_cast<int>(state.range(1)));
#else
  if (state.range(1) != 1) {
    state.SkipWithError("the reference BLAS is single-threaded");
    return;
  }
#endif
  for (auto _ : state) {
    cblas_sgemm(101, 111, 111, n, n, n, 1.f, s.a.data_ptr(), n, s.b.data_ptr(), n, 0.f, s.c.data_ptr(), n);
    benchmark::ClobberMemory();
  }
  report(state, s.n);
}
#endif

#if defined(TENSORLIB_BENCH_LIBTORCH)
void BM_LibTorch(benchmark::State& state) {
  const int64_t n = state.range(0);
  torch::set_num_threads(static_cast<int>(state.range(1)));
  const auto a = torch::randn({n, n}), b = torch::randn({n, n});
  auto c = torch::empty({n, n});
  for (auto _ : state) {
    torch::mm_out(c, a, b);
    benchmark::ClobberMemory();
  }
  report(state, n);
}
#endif

void sizes(benchmark::internal::Benchmark* b) {
  for (int64_t threads : {1, 2})
    for (int64_t n : {256, 512, 1024, 2048}) b->Args({n, threads});
  b->ArgNames({"n", "threads"})->Unit(benchmark::kMillisecond)->UseRealTime();
}

}  // namespace

BENCHMARK(BM_Ours)->Apply(sizes);
BENCHMARK(BM_TripleLoop)->Apply(sizes);
#if defined(TENSORLIB_BENCH_BLAS)
BENCHMARK(BM_Blas)->Apply(sizes);
#endif
#if defined(TENSORLIB_BENCH_LIBTORCH)
BENCHMARK(BM_LibTorch)->Apply(sizes);
#endif

BENCHMARK_MAIN();
