// Transposing copies, out = in.t() into a preallocated contiguous out, float32,
// in one run:
//   Tensorlib  out.copy_(in.t()): register transposes in tiles (Note
//              [register transposes], backend/cpu/pointwise.hpp)
//   Expression out.copy_(in.t() + 0.f): what any expression with a transposed
//              leaf runs (the leaf staged through registers tile by tile)
//   Contiguous out.copy_(in) of the same bytes, not transposed (the ceiling)
//   HandTiled  a plain hand-written loop over 32 x 32 tiles, OpenMP threads
//              (what a user would write; not a limit: it gathers too)
//   LibTorch   out.copy_(in.t()), when built with libtorch-dev installed
//   LibTorchExpression  torch::add_out(out, in.t(), zero): the same expression
// Shapes: (784, 256), the Fashion-MNIST MLP's weight (examples/fashion_mnist.cpp),
// and (4096, 4096) (64 MiB each way). At 1 and 2 threads.
// Also NCHW -> NHWC of (8, 64, 32, 32) floats, x.permute({0, 2, 3, 1}) copied into
// a contiguous tensor (TensorlibNHWC, LibTorchNHWC).
// Counter: GB/s = bytes read + written / time.
// Run: OMP_WAIT_POLICY=PASSIVE ./copy_bench

#include <benchmark/benchmark.h>
#include <omp.h>

#include <algorithm>
#include <cstdint>

#include <tensorlib/tensorlib.hpp>

#if defined(TENSORLIB_BENCH_LIBTORCH)
#include <torch/torch.h>
#endif

namespace {

// Arguments: rows and columns of `in`, threads.
int64_t rows_of(const benchmark::State& state) { return state.range(0); }
int64_t cols_of(const benchmark::State& state) { return state.range(1); }

void report(benchmark::State& state) {
  const double bytes = 2.0 * static_cast<double>(rows_of(state) * cols_of(state)) * sizeof(float);
  state.counters["GB/s"] =
      benchmark::Counter(static_cast<double>(state.iterations()) * bytes / 1e9, benchmark::Counter::kIsRate);
}

// NCHW -> NHWC of (8, 64, 32, 32) floats: each element read once and written once.
void report_nhwc(benchmark::State& state) {
  const double bytes = 2.0 * 8 * 64 * 32 * 32 * sizeof(float);
  state.counters["GB/s"] =
      benchmark::Counter(static_cast<double>(state.iterations()) * bytes / 1e9, benchmark::Counter::kIsRate);
}

// out = source(in) for an (rows, cols) `in` and a (cols, rows) `out`.
template <class Source>
void run_transposing(benchmark::State& state, const Source& source) {
  tl::set_num_threads(static_cast<int>(state.range(2)));
  const auto in = tl::randn({rows_of(state), cols_of(state)});
  auto out = tl::empty<float>({cols_of(state), rows_of(state)});
  for (auto _ : state) {
    out.copy_(source(in));
    benchmark::ClobberMemory();
  }
  report(state);
}

void Tensorlib(benchmark::State& state) {
  run_transposing(state, [](const tl::Tensor<float>& in) { return in.t(); });
}

void Expression(benchmark::State& state) {
  run_transposing(state, [](const tl::Tensor<float>& in) { return in.t() + 0.f; });
}

void Contiguous(benchmark::State& state) {
  tl::set_num_threads(static_cast<int>(state.range(2)));
  const auto in = tl::randn({rows_of(state), cols_of(state)});
  auto out = tl::empty<float>({rows_of(state), cols_of(state)});
  for (auto _ : state) {
    out.copy_(in);
    benchmark::ClobberMemory();
  }
  report(state);
}

void HandTiled(benchmark::State& state) {
  const int64_t rows = rows_of(state), cols = cols_of(state);
  const int threads = static_cast<int>(state.range(2));
  const auto in = tl::randn({rows, cols});
  auto out = tl::empty<float>({cols, rows});
  const float* src = in.data_ptr();
  float* dst = out.data_ptr();
  constexpr int64_t kTile = 32;
  for (auto _ : state) {
    // out[j][i] = in[i][j], tile by tile; each thread takes bands of out's rows.
#pragma omp parallel for schedule(static) num_threads(threads)
    for (int64_t j0 = 0; j0 < cols; j0 += kTile)
      for (int64_t i0 = 0; i0 < rows; i0 += kTile)
        for (int64_t j = j0; j < std::min(cols, j0 + kTile); ++j)
          for (int64_t i = i0; i < std::min(rows, i0 + kTile); ++i) dst[j * rows + i] = src[i * cols + j];
    benchmark::ClobberMemory();
  }
  report(state);
}

void TensorlibNHWC(benchmark::State& state) {
  tl::set_num_threads(static_cast<int>(state.range(0)));
  const auto in = tl::randn({8, 64, 32, 32});
  auto out = tl::empty<float>({8, 32, 32, 64});
  for (auto _ : state) {
    out.copy_(in.permute({0, 2, 3, 1}));
    benchmark::ClobberMemory();
  }
  report_nhwc(state);
}

#if defined(TENSORLIB_BENCH_LIBTORCH)
void LibTorchExpression(benchmark::State& state) {
  torch::set_num_threads(static_cast<int>(state.range(2)));
  const auto in = torch::randn({rows_of(state), cols_of(state)});
  const auto zero = torch::zeros({});
  auto out = torch::empty({cols_of(state), rows_of(state)});
  for (auto _ : state) {
    torch::add_out(out, in.t(), zero);
    benchmark::ClobberMemory();
  }
  report(state);
}

void LibTorchNHWC(benchmark::State& state) {
  torch::set_num_threads(static_cast<int>(state.range(0)));
  const auto in = torch::randn({8, 64, 32, 32});
  auto out = torch::empty({8, 32, 32, 64});
  for (auto _ : state) {
    out.copy_(in.permute({0, 2, 3, 1}));
    benchmark::ClobberMemory();
  }
  report_nhwc(state);
}

void LibTorch(benchmark::State& state) {
  torch::set_num_threads(static_cast<int>(state.range(2)));
  const auto in = torch::randn({rows_of(state), cols_of(state)});
  auto out = torch::empty({cols_of(state), rows_of(state)});
  for (auto _ : state) {
    out.copy_(in.t());
    benchmark::ClobberMemory();
  }
  report(state);
}
#endif

void shapes(benchmark::internal::Benchmark* b) {
  for (const int64_t threads : {1, 2}) {
    b->Args({784, 256, threads});
    b->Args({4096, 4096, threads});
  }
  b->ArgNames({"rows", "cols", "threads"})->UseRealTime()->Unit(benchmark::kMicrosecond);
}

BENCHMARK(Tensorlib)->Apply(shapes);
BENCHMARK(Expression)->Apply(shapes);
BENCHMARK(Contiguous)->Apply(shapes);
BENCHMARK(HandTiled)->Apply(shapes);
BENCHMARK(TensorlibNHWC)->ArgName("threads")->Arg(1)->Arg(2)->UseRealTime()->Unit(benchmark::kMicrosecond);
#if defined(TENSORLIB_BENCH_LIBTORCH)
BENCHMARK(LibTorch)->Apply(shapes);
BENCHMARK(LibTorchExpression)->Apply(shapes);
BENCHMARK(LibTorchNHWC)->ArgName("threads")->Arg(1)->Arg(2)->UseRealTime()->Unit(benchmark::kMicrosecond);
#endif

}  // namespace

BENCHMARK_MAIN();
