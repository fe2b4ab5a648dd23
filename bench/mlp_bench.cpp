// One training step of examples/fashion_mnist.cpp's model: a 784-256-10 MLP
// (PyTorch's nn.Linear layout), ReLU, cross-entropy, SGD (lr 0.1, momentum
// 0.9), on a fixed batch of 64 random images, two ways in one run:
//   Tensorlib  matmul + fused bias/ReLU, log_softmax + gather, backward,
//              tl::optim::SGD: what the example runs per batch
//   LibTorch   torch::nn::Linear, relu, cross_entropy, torch::optim::SGD,
//              when built with libtorch-dev installed
// Both include zero_grad and the step. Counter: steps/s (an epoch of
// Fashion-MNIST is 938 steps).
// Run: OMP_WAIT_POLICY=PASSIVE ./mlp_bench

#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include <tensorlib/tensorlib.hpp>

#if defined(TENSORLIB_BENCH_LIBTORCH)
#include <torch/torch.h>
#endif

namespace {

constexpr int64_t kBatch = 64, kIn = 784, kHidden = 256, kClasses = 10;

void report(benchmark::State& state) {
  state.counters["steps/s"] = benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}

tl::Tensor<float> uniform_parameter(const tl::Shape& sizes, int64_t fan_in, tl::Generator& gen) {
  const float bound = 1.0f / std::sqrt(static_cast<float>(fan_in));
  return ((tl::rand(sizes, gen) * 2.0f - 1.0f) * bound).eval().requires_grad_();
}

void Tensorlib(benchmark::State& state) {
  tl::set_num_threads(static_cast<int>(state.range(0)));
  tl::Generator gen(1);
  const auto w1 = uniform_parameter({kHidden, kIn}, kIn, gen), b1 = uniform_parameter({kHidden}, kIn, gen);
  const auto w2 = uniform_parameter({kClasses, kHidden}, kHidden, gen),
             b2 = uniform_parameter({kClasses}, kHidden, gen);
  const auto x = tl::rand({kBatch, kIn}, gen);
  const auto y = tl::randint(kClasses, {kBatch, 1}, gen);
  tl::optim::SGD opt(std::vector{w1, b1, w2, b2}, {.lr = 0.1, .momentum = 0.9});
  for (auto _ : state) {
    opt.zero_grad();
    const tl::Tensor<float> h = tl::relu(tl::matmul(x, w1.t()) + b1);
    tl::Tensor<float> loss = -tl::log_softmax(tl::matmul(h, w2.t()) + b2, 1).gather(1, y).mean();
    loss.backward();
    opt.step();
    benchmark::DoNotOptimize(loss.data_ptr());
  }
  report(state);
}
BENCHMARK(Tensorlib)->Arg(1)->Arg(2)->UseRealTime()->Unit(benchmark::kMicrosecond);

#if defined(TENSORLIB_BENCH_LIBTORCH)
void LibTorch(benchmark::State& state) {
  torch::set_num_threads(static_cast<int>(state.range(0)));
  torch::manual_seed(1);
  torch::nn::Linear fc1(kIn, kHidden), fc2(kHidden, kClasses);
  const auto x = torch::rand({kBatch, kIn});
  const auto y = torch::randint(kClasses, {kBatch});
  std::vector<torch::Tensor> params = fc1->parameters();
  for (const auto& p : fc2->parameters()) params.push_back(p);
  torch::optim::SGD opt(params, torch::optim::SGDOptions(0.1).momentum(0.9));
  for (auto _ : state) {
    opt.zero_grad();
    auto loss = torch::nn::functional::cross_entropy(fc2(torch::relu(fc1(x))), y);
    loss.backward();
    opt.step();
    benchmark::DoNotOptimize(loss.data_ptr());
  }
  report(state);
}
BENCHMARK(LibTorch)->Arg(1)->Arg(2)->UseRealTime()->Unit(benchmark::kMicrosecond);
#endif

}  // namespace

BENCHMARK_MAIN();
