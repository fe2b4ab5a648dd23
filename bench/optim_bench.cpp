// Optimizer step: Adam (lr 1e-3, weight_decay 1e-2) over 10M float
// parameters split into 50 tensors of 200k, gradients fixed, three ways in
// one run:
//   Tensorlib  tl::optim::Adam: one fused pass per parameter reading p, g,
//              m, v and writing p, m, v (28 bytes per element)
//   HandLoop   the same update as a hand-written OpenMP SIMD loop per tensor
//              (the practical limit; built with -fno-math-errno so that its
//              sqrt vectorizes)
//   LibTorch   torch::optim::Adam on the same tensors (LibTorch 1.13 runs the
//              update op by op), when built with libtorch-dev installed
// Counter: GB/s = 28 bytes per element per step / time (the traffic the
// fused step must move; LibTorch moves more).
// Run: OMP_WAIT_POLICY=PASSIVE ./optim_bench

#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include <tensorlib/tensorlib.hpp>

#if defined(TENSORLIB_BENCH_LIBTORCH)
#include <torch/torch.h>
#endif

namespace {

constexpr int64_t kTensors = 50;
constexpr int64_t kPerTensor = 200'000;
constexpr double kBytesPerElement = 28;

void report(benchmark::State& state) {
  state.counters["GB/s"] =
      benchmark::Counter(static_cast<double>(state.iterations()) * kTensors * kPerTensor * kBytesPerElement / 1e9,
                         benchmark::Counter::kIsRate);
}

std::vector<tl::Tensor<float>> make_params() {
  tl::Generator gen(1);
  std::vector<tl::Tensor<float>> params;
  for (int64_t i = 0; i < kTensors; ++i) {
    auto p = tl::randn({kPerTensor}, gen).requires_grad_();
    p.set_grad(tl::randn({kPerTensor}, gen));
    params.push_back(p);
  }
  return params;
}

void Tensorlib(benchmark::State& state) {
  tl::set_num_threads(static_cast<int>(state.range(0)));
  auto params = make_params();
  tl::optim::Adam opt(params, {.lr = 1e-3, .weight_decay = 1e-2});
  opt.step();  // state created outside the timing, as for the others
  for (auto _ : state) {
    opt.step();
    benchmark::ClobberMemory();
  }
  report(state);
}

void HandLoop(benchmark::State& state) {
  const int threads = static_cast<int>(state.range(0));
  auto params = make_params();
  std::vector<std::vector<float>> m(kTensors, std::vector<float>(kPerTensor)),
      v(kTensors, std::vector<float>(kPerTensor));
  const float beta1 = 0.9f, beta2 = 0.999f, lr = 1e-3f, wd = 1e-2f, eps = 1e-8f;
  int64_t step = 0;
  for (auto _ : state) {
    ++step;
    const float bc1 = 1 - std::pow(beta1, float(step)), bc2_sqrt = std::sqrt(1 - std::pow(beta2, float(step)));
    const float step_size = lr / bc1;
    for (int64_t t = 0; t < kTensors; ++t) {
      float* __restrict p = params[t].data_ptr();
      const float* __restrict g = params[t].grad().data_ptr();
      float* __restrict mt = m[t].data();
      float* __restrict vt = v[t].data();
#pragma omp parallel for simd num_threads(threads) schedule(static)
      for (int64_t i = 0; i < kPerTensor; ++i) {
        const float gi = g[i] + wd * p[i];
        mt[i] = beta1 * mt[i] + (1 - beta1) * gi;
        vt[i] = beta2 * vt[i] + (1 - beta2) * gi * gi;
        p[i] -= step_size * mt[i] / (std::sqrt(vt[i]) / bc2_sqrt + eps);
      }
    }
    benchmark::ClobberMemory();
  }
  report(state);
}

#if defined(TENSORLIB_BENCH_LIBTORCH)
void LibTorch(benchmark::State& state) {
  torch::set_num_threads(static_cast<int>(state.range(0)));
  torch::manual_seed(1);
  std::vector<torch::Tensor> params;
  for (int64_t i = 0; i < kTensors; ++i) {
    auto p = torch::randn({kPerTensor}).requires_grad_();
    p.mutable_grad() = torch::randn({kPerTensor});
    params.push_back(p);
  }
  torch::optim::Adam opt(params, torch::optim::AdamOptions(1e-3).weight_decay(1e-2));
  opt.step();
  for (auto _ : state) {
    opt.step();
    benchmark::ClobberMemory();
  }
  report(state);
}
BENCHMARK(LibTorch)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();
#endif

BENCHMARK(Tensorlib)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(HandLoop)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
