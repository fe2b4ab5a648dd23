// 2-d convolutions, float32, in one run (Note [convolution by windows] in
// ops/convolution.hpp):
//   Tensorlib       tl::conv2d(x, w, b, 1, 1): unfold windows, one im2col
//                   copy, one batched matmul (our GEMM), the bias as a fused add
//   HandDirect      a hand-written direct convolution: seven loops, OpenMP over
//                   (batch, output channel), the kernel loops innermost over a
//                   contiguous output row (what a user would write)
//   LibTorch        torch::conv2d with the same arguments (libtorch-dev; its
//                   CPU path is mkldnn/oneDNN where built with it, else im2col)
//   TensorlibBackward / LibTorchBackward  forward, then backward into the
//                   input's, weight's and bias's gradients
// Shapes (N, C_in, H, W) -> C_out, 3 x 3 kernels, padding 1: the first two
// layers of a small Fashion-MNIST CNN, (64, 1, 28, 28) -> 32 and
// (64, 32, 14, 14) -> 64. Counter: GFLOP/s = 2 N C_out H W C_in 9 / time (the
// backward counts three times that).
// Run: OMP_WAIT_POLICY=PASSIVE ./conv_bench

#include <benchmark/benchmark.h>
#include <omp.h>

#include <cstdint>
#include <optional>

#include <tensorlib/tensorlib.hpp>

#if defined(TENSORLIB_BENCH_LIBTORCH)
#include <torch/torch.h>
#endif

namespace {

struct Layer {
  int64_t n, cin, hw, cout;
};

Layer layer_of(const benchmark::State& state) {
  return state.range(0) == 0 ? Layer{64, 1, 28, 32} : Layer{64, 32, 14, 64};
}

void report(benchmark::State& state, const Layer& l, double passes) {
  const double flops = passes * 2.0 * static_cast<double>(l.n * l.cout * l.hw * l.hw * l.cin * 9);
  state.counters["GFLOP/s"] =
      benchmark::Counter(static_cast<double>(state.iterations()) * flops / 1e9, benchmark::Counter::kIsRate);
}

void Tensorlib(benchmark::State& state) {
  tl::set_num_threads(static_cast<int>(state.range(1)));
  const Layer l = layer_of(state);
  const auto x = tl::randn({l.n, l.cin, l.hw, l.hw}), w = tl::randn({l.cout, l.cin, 3, 3}), b = tl::randn({l.cout});
  for (auto _ : state) {
    auto y = tl::conv2d(x, w, b, {1}, {1});
    benchmark::DoNotOptimize(y.data_ptr());
  }
  report(state, l, 1);
}

void TensorlibBackward(benchmark::State& state) {
  tl::set_num_threads(static_cast<int>(state.range(1)));
  const Layer l = layer_of(state);
  auto x = tl::randn({l.n, l.cin, l.hw, l.hw}).requires_grad_(), w = tl::randn({l.cout, l.cin, 3, 3}).requires_grad_(),
       b = tl::randn({l.cout}).requires_grad_();
  const auto g = tl::randn({l.n, l.cout, l.hw, l.hw});
  for (auto _ : state) {
    auto y = tl::conv2d(x, w, b, {1}, {1});
    y.backward(g);
    benchmark::DoNotOptimize(x.grad().data_ptr());
    x.set_grad(tl::Tensor<float>());
    w.set_grad(tl::Tensor<float>());
    b.set_grad(tl::Tensor<float>());
  }
  report(state, l, 3);
}

// out[n][o][i][j] = b[o] + sum_c,p,q w[o][c][p][q] x[n][c][i+p-1][j+q-1].
void HandDirect(benchmark::State& state) {
  const int threads = static_cast<int>(state.range(1));
  const Layer l = layer_of(state);
  const auto xt = tl::randn({l.n, l.cin, l.hw, l.hw}), wt = tl::randn({l.cout, l.cin, 3, 3}), bt = tl::randn({l.cout});
  auto yt = tl::empty<float>({l.n, l.cout, l.hw, l.hw});
  const float *x = xt.data_ptr(), *w = wt.data_ptr(), *b = bt.data_ptr();
  float* y = yt.data_ptr();
  const int64_t hw = l.hw, cin = l.cin, cout = l.cout;
  for (auto _ : state) {
#pragma omp parallel for num_threads(threads) schedule(static)
    for (int64_t no = 0; no < l.n * cout; ++no) {
      const int64_t n = no / cout, o = no % cout;
      float* out = y + no * hw * hw;
      for (int64_t k = 0; k < hw * hw; ++k) out[k] = b[o];
      for (int64_t c = 0; c < cin; ++c) {
        const float* in = x + (n * cin + c) * hw * hw;
        const float* ker = w + (o * cin + c) * 9;
        for (int64_t i = 0; i < hw; ++i)
          for (int64_t p = 0; p < 3; ++p) {
            const int64_t r = i + p - 1;
            if (r < 0 || r >= hw) continue;
            for (int64_t q = 0; q < 3; ++q) {
              const float kv = ker[p * 3 + q];
              const int64_t j0 = q == 0 ? 1 : 0, j1 = q == 2 ? hw - 1 : hw;
              for (int64_t j = j0; j < j1; ++j) out[i * hw + j] += kv * in[r * hw + j + q - 1];
            }
          }
      }
    }
    benchmark::ClobberMemory();
  }
  report(state, l, 1);
}

#if defined(TENSORLIB_BENCH_LIBTORCH)
void LibTorch(benchmark::State& state) {
  torch::set_num_threads(static_cast<int>(state.range(1)));
  const Layer l = layer_of(state);
  const auto x = torch::randn({l.n, l.cin, l.hw, l.hw}), w = torch::randn({l.cout, l.cin, 3, 3}),
             b = torch::randn({l.cout});
  for (auto _ : state) {
    auto y = torch::conv2d(x, w, b, 1, 1);
    benchmark::DoNotOptimize(y.data_ptr());
  }
  report(state, l, 1);
}

void LibTorchBackward(benchmark::State& state) {
  torch::set_num_threads(static_cast<int>(state.range(1)));
  const Layer l = layer_of(state);
  auto x = torch::randn({l.n, l.cin, l.hw, l.hw}).requires_grad_(),
       w = torch::randn({l.cout, l.cin, 3, 3}).requires_grad_(), b = torch::randn({l.cout}).requires_grad_();
  const auto g = torch::randn({l.n, l.cout, l.hw, l.hw});
  for (auto _ : state) {
    auto y = torch::conv2d(x, w, b, 1, 1);
    y.backward(g);
    benchmark::DoNotOptimize(x.grad().data_ptr());
    x.mutable_grad().zero_();
    w.mutable_grad().zero_();
    b.mutable_grad().zero_();
  }
  report(state, l, 3);
}
#endif

void args(benchmark::internal::Benchmark* b) {
  for (int64_t layer : {0, 1})
    for (int64_t threads : {1, 2}) b->Args({layer, threads});
  b->Unit(benchmark::kMillisecond)->UseRealTime();
}

}  // namespace

BENCHMARK(Tensorlib)->Apply(args);
BENCHMARK(HandDirect)->Apply(args);
BENCHMARK(TensorlibBackward)->Apply(args);
#if defined(TENSORLIB_BENCH_LIBTORCH)
BENCHMARK(LibTorch)->Apply(args);
BENCHMARK(LibTorchBackward)->Apply(args);
#endif

BENCHMARK_MAIN();
