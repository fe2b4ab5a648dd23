// Autograd: forward + backward of the fused chain's expression
// y = a*b + c*sigmoid(d) - 0.5*exp(e) (five inputs requiring grad, float32),
// three ways in one run:
//   Fused     one expression: one forward loop, one node, one backward pass
//   OpByOp    the same chain materialized op by op (six nodes, intermediates
//             saved for backward), tensorlib
//   LibTorch  LibTorch's autograd on the same chain, when built with
//             libtorch-dev installed
// Counters: graph_bytes = memory held after the forward beyond the inputs
// (the output plus whatever the graph saved), from tl::stats.
// Node overhead: a chain of N tiny ([8]) multiply nodes, forward + backward,
// reported per node (tensorlib vs LibTorch).
// Run: OMP_WAIT_POLICY=PASSIVE ./autograd_bench

#include <benchmark/benchmark.h>

#include <cstdint>

#include <tensorlib/tensorlib.hpp>

#if defined(TENSORLIB_BENCH_LIBTORCH)
#include <torch/torch.h>
#endif

namespace {

struct Leaves {
  tl::Tensor<float> a, b, c, d, e, g;
};

Leaves make_leaves(int64_t n) {
  tl::Generator gen(1);
  Leaves l{tl::randn({n}, gen), tl::randn({n}, gen), tl::randn({n}, gen),
           tl::randn({n}, gen), tl::randn({n}, gen), tl::ones<float>({n})};
  for (auto* t : {&l.a, &l.b, &l.c, &l.d, &l.e}) t->requires_grad_();
  return l;
}

void clear_grads(Leaves& l) {
  for (auto* t : {&l.a, &l.b, &l.c, &l.d, &l.e}) t->set_grad({});
}

void Fused(benchmark::State& state) {
  tl::set_num_threads(static_cast<int>(state.range(1)));
  Leaves l = make_leaves(state.range(0));
  int64_t graph_bytes = 0;
  for (auto _ : state) {
    clear_grads(l);
    const int64_t before = tl::stats::snapshot().bytes_in_use;
    tl::Tensor<float> y = l.a * l.b + l.c * tl::sigmoid(l.d) - 0.5f * tl::exp(l.e);
    graph_bytes = tl::stats::snapshot().bytes_in_use - before;
    y.backward(l.g);
    benchmark::DoNotOptimize(l.e.grad().data_ptr());
  }
  state.counters["graph_MB"] = static_cast<double>(graph_bytes) / (1 << 20);
}

void OpByOp(benchmark::State& state) {
  tl::set_num_threads(static_cast<int>(state.range(1)));
  Leaves l = make_leaves(state.range(0));
  int64_t graph_bytes = 0;
  for (auto _ : state) {
    clear_grads(l);
    const int64_t before = tl::stats::snapshot().bytes_in_use;
    const tl::Tensor<float> ab = l.a * l.b;
    const tl::Tensor<float> sd = tl::sigmoid(l.d);
    const tl::Tensor<float> csd = l.c * sd;
    const tl::Tensor<float> ee = tl::exp(l.e);
    const tl::Tensor<float> half = 0.5f * ee;
    const tl::Tensor<float> sum = ab + csd;
    tl::Tensor<float> y = sum - half;
    graph_bytes = tl::stats::snapshot().bytes_in_use - before;
    y.backward(l.g);
    benchmark::DoNotOptimize(l.e.grad().data_ptr());
  }
  state.counters["graph_MB"] = static_cast<double>(graph_bytes) / (1 << 20);
}

void NodeOverhead(benchmark::State& state) {
  tl::set_num_threads(1);
  const int64_t nodes = state.range(0);
  auto x = tl::ones<float>({8}, {.requires_grad = true});
  const auto g = tl::ones<float>({8});
  for (auto _ : state) {
    x.set_grad({});
    tl::Tensor<float> y = x;
    for (int64_t i = 0; i < nodes; ++i) y = y * 1.0001f;
    y.backward(g);
    benchmark::DoNotOptimize(x.grad().data_ptr());
  }
  state.counters["ns_per_node"] = benchmark::Counter(
      static_cast<double>(nodes), benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

void chain_args(benchmark::internal::Benchmark* b) {
  for (int64_t n : {int64_t{1} << 20, int64_t{1} << 24})
    for (int64_t threads : {2, 1}) b->Args({n, threads});
}

#if defined(TENSORLIB_BENCH_LIBTORCH)
void LibTorch(benchmark::State& state) {
  torch::set_num_threads(static_cast<int>(state.range(1)));
  torch::manual_seed(1);
  const int64_t n = state.range(0);
  auto opts = torch::TensorOptions().requires_grad(true);
  auto a = torch::randn({n}, opts), b = torch::randn({n}, opts), c = torch::randn({n}, opts),
       d = torch::randn({n}, opts), e = torch::randn({n}, opts);
  auto g = torch::ones({n});
  for (auto _ : state) {
    for (auto* t : {&a, &b, &c, &d, &e}) t->mutable_grad() = torch::Tensor();
    auto y = a * b + c * torch::sigmoid(d) - 0.5 * torch::exp(e);
    y.backward(g);
    benchmark::DoNotOptimize(e.grad().data_ptr());
  }
}

void LibTorchNodeOverhead(benchmark::State& state) {
  torch::set_num_threads(1);
  const int64_t nodes = state.range(0);
  auto x = torch::ones({8}, torch::TensorOptions().requires_grad(true));
  auto g = torch::ones({8});
  for (auto _ : state) {
    x.mutable_grad() = torch::Tensor();
    torch::Tensor y = x;
    for (int64_t i = 0; i < nodes; ++i) y = y * 1.0001;
    y.backward(g);
    benchmark::DoNotOptimize(x.grad().data_ptr());
  }
  state.counters["ns_per_node"] = benchmark::Counter(
      static_cast<double>(nodes), benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}
#endif

}  // namespace

BENCHMARK(Fused)->Apply(chain_args)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(OpByOp)->Apply(chain_args)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(NodeOverhead)->Arg(1000)->UseRealTime()->Unit(benchmark::kMicrosecond);
#if defined(TENSORLIB_BENCH_LIBTORCH)
BENCHMARK(LibTorch)->Apply(chain_args)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(LibTorchNodeOverhead)->Arg(1000)->UseRealTime()->Unit(benchmark::kMicrosecond);
#endif

BENCHMARK_MAIN();
