// Optimizer steps on the GPU against the CPU: the same rules' element
// functors run as one CUDA kernel per parameter (backend/cuda/for_each.hpp).
// Both sides replay the same gradients, so only rounding differs: the GPU
// fuses every multiply-add, this file's host loop (compiled by nvcc for
// baseline x86-64) rounds them twice; over 20 steps that stays within 1e-5.

#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <vector>

#include <tensorlib/nn.hpp>
#include <tensorlib/optim.hpp>
#include <tensorlib/tensor.hpp>

#include "cuda_support.hpp"

namespace o = tl::optim;

namespace {

// Keeps the current stream busy for `cycles` GPU clock cycles (one thread).
__global__ void spin_kernel(int64_t cycles) {
  const int64_t start = clock64();
  while (clock64() - start < cycles) {
  }
}
// About 0.1 s at an H100's 2 GHz: far longer than a step's host part.
void keep_gpu_busy() {
  spin_kernel<<<1, 1, 0, tl::cuda::current_stream().handle()>>>(200'000'000);
  REQUIRE(cudaGetLastError() == cudaSuccess);
}

template <template <class> class Opt, class Options>
void check_rule(const Options& options) {
  tl::Generator gen(3);
  auto cpu_w = tl::randn({37, 5}, gen).requires_grad_();  // odd sizes
  auto cpu_b = tl::randn({5}, gen).requires_grad_();
  auto gpu_w = cpu_w.detach().cuda().requires_grad_();
  auto gpu_b = cpu_b.detach().cuda().requires_grad_();
  Opt<float> on_cpu(std::vector{cpu_w, cpu_b}, options);
  Opt<float> on_gpu(std::vector{gpu_w, gpu_b}, options);
  for (int step = 0; step < 20; ++step) {
    const auto gw = tl::randn({37, 5}, gen), gb = tl::randn({5}, gen);
    cpu_w.set_grad(gw);
    cpu_b.set_grad(gb);
    gpu_w.set_grad(gw.cuda());
    gpu_b.set_grad(gb.cuda());
    const auto before = tl::stats::snapshot();
    on_cpu.step();
    on_gpu.step();
    // Both parameters' updates run as one multi-tensor kernel (Note
    // [multi-tensor steps]); the first step also fills the state with zeros.
    if (step > 0) CHECK((tl::stats::snapshot() - before).fused_kernels == 1);
  }
  CHECK(tl::allclose(gpu_w.detach().cpu(), cpu_w.detach(), 1e-5, 1e-6));
  CHECK(tl::allclose(gpu_b.detach().cpu(), cpu_b.detach(), 1e-5, 1e-6));
}

}  // namespace

// A multi-tensor functor told apart by its tag (`==`), for the host test of
// the launch lists.
struct Tagged {
  int tag;
  bool operator==(const Tagged&) const = default;
  template <class V>
  TENSORLIB_HOST_DEVICE void operator()(V& x) const {
    x = x + V(tag);
  }
};

TEST_CASE("multi-tensor launches: grouped by functor, split at capacity, chunks per list (host code, no GPU)") {
  namespace cd = tl::cuda::detail;
  using Item = cd::ForEachItem<Tagged, float*>;
  constexpr int kCapacity = cd::ForEachList<Tagged, float*>::kCapacity;
  std::vector<float> storage(2 * kCapacity + 9);
  // Tags 1 and 2 interleaved (every third item is a 2), one empty item, and
  // more 1s than one list holds.
  std::vector<Item> items;
  for (int i = 0; i < 2 * kCapacity + 9; ++i)
    items.push_back({Tagged{i % 3 == 2 ? 2 : 1}, i == 4 ? 0 : 1 + int64_t{i} * 3000, {&storage[std::size_t(i)]}});
  // Expected: the non-empty items of tag 1 in order, then those of tag 2,
  // each in lists of at most kCapacity.
  std::vector<std::vector<const Item*>> expected;
  for (const int tag : {1, 2}) {
    std::vector<const Item*> run;
    for (const auto& item : items)
      if (item.f.tag == tag && item.n > 0) run.push_back(&item);
    for (std::size_t i = 0; i < run.size(); i += kCapacity)
      expected.emplace_back(run.begin() + std::ptrdiff_t(i),
                            run.begin() + std::ptrdiff_t(std::min(run.size(), i + std::size_t(kCapacity))));
  }
  REQUIRE(expected.size() == 3);  // two lists of 1s, one of 2s
  const auto launches = cd::list_launches(items);
  REQUIRE(launches.size() == expected.size());
  for (std::size_t l = 0; l < launches.size(); ++l) {
    CAPTURE(l);
    const auto& list = launches[l].list;
    CHECK(list.functor().tag == expected[l][0]->f.tag);
    REQUIRE(list.count == static_cast<int>(expected[l].size()));
    int64_t chunks = 0;
    for (int i = 0; i < list.count; ++i) {
      const Item& want = *expected[l][std::size_t(i)];
      CHECK(want.f.tag == list.functor().tag);
      CHECK(list.items[i].n == want.n);
      CHECK(list.items[i].ptrs[0] == want.ptrs[0]);
      CHECK(list.items[i].first_block == chunks);
      chunks += (want.n + cd::kListChunk - 1) / cd::kListChunk;
    }
    CHECK(launches[l].chunks == chunks);
  }
  CHECK(cd::list_launches(std::vector<Item>{{Tagged{1}, 0, {storage.data()}}}).empty());
}

TEST_CASE("CUDA: every update rule matches its CPU steps") {
  if (cuda_support::no_gpu()) return;
  check_rule<o::SGD>(o::SGDOptions{.lr = 0.05, .momentum = 0.9, .nesterov = true});
  check_rule<o::Adam>(o::AdamOptions{.lr = 0.01, .weight_decay = 0.1, .amsgrad = true});
  check_rule<o::AdamW>(o::AdamWOptions{.lr = 0.01});
  check_rule<o::Adamax>(o::AdamaxOptions{});
  check_rule<o::NAdam>(o::NAdamOptions{.decoupled_weight_decay = true});
  check_rule<o::RAdam>(o::RAdamOptions{.lr = 0.01});
  check_rule<o::RMSprop>(o::RMSpropOptions{.momentum = 0.5, .centered = true});
  check_rule<o::Adagrad>(o::AdagradOptions{.lr_decay = 0.01});
  check_rule<o::Adadelta>(o::AdadeltaOptions{});
  check_rule<o::Rprop>(o::RpropOptions{});
  check_rule<o::ASGD>(o::ASGDOptions{.t0 = 5});
}

TEST_CASE("CUDA: a step over many parameters runs as few multi-tensor kernels and matches the CPU") {
  if (cuda_support::no_gpu()) return;
  tl::Generator gen(5);
  std::vector<tl::Tensor<float>> cpu_params, gpu_params;
  // 8 parameters of 2^17 elements (the first threshold, 2^20, is reached at
  // the 8th), 92 of sizes 1 to ~40000 and one of several blocks' chunks.
  for (int i = 0; i < 101; ++i) {
    const int64_t n = i < 8      ? int64_t{1} << 17
                      : i == 100 ? 3 * tl::cuda::detail::kListChunk + 5
                                 : 1 + (i * 7919) % 40000;
    auto p = tl::randn({n}, gen);
    cpu_params.push_back(p.clone().requires_grad_());
    gpu_params.push_back(p.cuda().requires_grad_());
  }
  o::Adam<float> on_cpu(cpu_params, o::AdamOptions{.lr = 0.01, .weight_decay = 0.1});
  o::Adam<float> on_gpu(gpu_params, o::AdamOptions{.lr = 0.01, .weight_decay = 0.1});
  // Kernels of one step (Note [multi-tensor steps]): at a threshold the
  // queued items launch if the GPU is idle or the step launched early
  // before; the rest at the end; lists of at most kCapacity items.
  using List = tl::cuda::detail::ForEachList<o::detail::AdamStep<float>, float*, const float*, float*, float*>;
  auto kernels = [&](bool gpu_idle) {
    int64_t launches = 0, queued = 0, elements = 0, threshold = o::detail::StepBatch::kFlushElements;
    bool early = false;
    for (const auto& p : cpu_params) {
      ++queued;
      elements += p.numel();
      if (elements >= threshold) {
        if (early || gpu_idle) {
          launches += (queued + List::kCapacity - 1) / List::kCapacity;
          queued = elements = 0;
          early = true;
        }
        threshold *= 2;
      }
    }
    return launches + (queued + List::kCapacity - 1) / List::kCapacity;
  };
  const int64_t behind_work = kernels(false), from_idle = kernels(true);
  CHECK(behind_work == 2);  // ceil(101 / 82): the end's launch only
  CHECK(from_idle == 3);    // 8 items at the first threshold, 93 at the end
  for (int step = 0; step < 5; ++step) {
    for (std::size_t i = 0; i < cpu_params.size(); ++i) {
      const auto grad = tl::randn(cpu_params[i].sizes(), gen);
      cpu_params[i].set_grad(grad);
      gpu_params[i].set_grad(grad.cuda());
    }
    on_cpu.step();
    // Odd steps start behind 0.1 s of queued work (every threshold finds
    // the GPU busy), even ones from an idle GPU; step 0 also fills the state.
    if (step % 2 == 1)
      keep_gpu_busy();
    else
      tl::cuda::synchronize();
    const auto before = tl::stats::snapshot();
    on_gpu.step();
    if (step > 0) CHECK((tl::stats::snapshot() - before).fused_kernels == (step % 2 == 1 ? behind_work : from_idle));
  }
  for (std::size_t i = 0; i < cpu_params.size(); ++i)
    CHECK(tl::allclose(gpu_params[i].detach().cpu(), cpu_params[i].detach(), 1e-5, 1e-6));
}

TEST_CASE("CUDA: items of one launch share a functor; other options and step counts launch apart") {
  if (cuda_support::no_gpu()) return;
  tl::Generator gen(7);
  std::vector<tl::Tensor<float>> cpu_params, gpu_params;
  for (int i = 0; i < 6; ++i) {
    auto p = tl::randn({100 + 37 * i}, gen);
    cpu_params.push_back(p.clone().requires_grad_());
    gpu_params.push_back(p.cuda().requires_grad_());
  }
  // Parameters 0-2 and 3-5 in two groups of different lr: the same kind of
  // update, two functors.
  auto groups = [](const std::vector<tl::Tensor<float>>& ps) {
    using Group = o::ParamGroup<o::AdamRule, float>;
    return std::vector<Group>{Group{{ps[0], ps[1], ps[2]}, o::AdamOptions{.lr = 0.01}},
                              Group{{ps[3], ps[4], ps[5]}, o::AdamOptions{.lr = 0.002}}};
  };
  o::Adam<float> on_cpu(groups(cpu_params));
  o::Adam<float> on_gpu(groups(gpu_params));
  // Steps 0-2 update every parameter; step 3 only parameters 0, 2 and 4, so
  // from step 4 on they are one Adam step ahead of 1, 3 and 5: in each group
  // two bias corrections, interleaved, which still launch as one kernel per
  // functor.
  const int64_t expected[] = {0, 2, 2, 2, 4, 4};
  for (int step = 0; step < 6; ++step) {
    on_cpu.zero_grad();
    on_gpu.zero_grad();
    for (std::size_t i = 0; i < cpu_params.size(); ++i) {
      if (step == 3 && i % 2 == 1) continue;
      const auto grad = tl::randn(cpu_params[i].sizes(), gen);
      cpu_params[i].set_grad(grad);
      gpu_params[i].set_grad(grad.cuda());
    }
    on_cpu.step();
    const auto before = tl::stats::snapshot();
    on_gpu.step();
    if (step > 0) CHECK((tl::stats::snapshot() - before).fused_kernels == expected[step]);
  }
  for (std::size_t i = 0; i < cpu_params.size(); ++i)
    CHECK(tl::allclose(gpu_params[i].detach().cpu(), cpu_params[i].detach(), 1e-5, 1e-6));
}

TEST_CASE("CUDA: parameters that cannot join the multi-tensor kernel are updated at once") {
  if (cuda_support::no_gpu()) return;
  tl::Generator gen(6);
  auto base_cpu = tl::randn({6, 9}, gen);
  // A non-contiguous parameter (a transposed leaf) beside contiguous ones.
  auto cpu_t = base_cpu.t().detach().requires_grad_(), cpu_v = tl::randn({40}, gen).requires_grad_();
  auto gpu_t = base_cpu.cuda().t().detach().requires_grad_(), gpu_v = cpu_v.detach().cuda().requires_grad_();
  o::SGD<float> on_cpu(std::vector{cpu_t, cpu_v}, o::SGDOptions{.lr = 0.1, .momentum = 0.9});
  o::SGD<float> on_gpu(std::vector{gpu_t, gpu_v}, o::SGDOptions{.lr = 0.1, .momentum = 0.9});
  for (int step = 0; step < 4; ++step) {
    const auto gt = tl::randn({9, 6}, gen), gv = tl::randn({40}, gen);
    cpu_t.set_grad(gt);
    cpu_v.set_grad(gv);
    gpu_t.set_grad(gt.cuda());
    gpu_v.set_grad(gv.cuda());
    on_cpu.step();
    on_gpu.step();
  }
  CHECK(!gpu_t.is_contiguous());
  CHECK(tl::allclose(gpu_t.detach().cpu(), cpu_t.detach(), 1e-5, 1e-6));
  CHECK(tl::allclose(gpu_v.detach().cpu(), cpu_v.detach(), 1e-5, 1e-6));
}

TEST_CASE("CUDA: clip_grad_norm_ and clip_grad_value_ scale GPU gradients as on the CPU") {
  if (cuda_support::no_gpu()) return;
  tl::Generator gen(8);
  constexpr double kInf = std::numeric_limits<double>::infinity();
  for (const double norm_type : {2.0, 1.0, kInf}) {
    CAPTURE(norm_type);
    std::vector<tl::Tensor<float>> on_cpu, on_gpu;
    for (const int64_t n : {int64_t{300}, int64_t{7}, int64_t{64}}) {
      auto p = tl::randn({n}, gen).requires_grad_();
      p.set_grad(tl::randn({n}, gen));
      auto q = p.detach().cuda().requires_grad_();
      q.set_grad(p.grad().cuda());
      on_cpu.push_back(p);
      on_gpu.push_back(q);
    }
    const auto total_cpu = o::clip_grad_norm_(on_cpu, 1.0, norm_type);
    const auto total_gpu = o::clip_grad_norm_(on_gpu, 1.0, norm_type);
    CHECK(total_gpu.is_cuda());
    CHECK(total_gpu.item() == doctest::Approx(total_cpu.item()).epsilon(1e-5));
    for (std::size_t i = 0; i < on_cpu.size(); ++i)
      CHECK(tl::allclose(on_gpu[i].grad().cpu(), on_cpu[i].grad(), 1e-5, 1e-6));
    o::clip_grad_value_(on_cpu, 0.01);
    o::clip_grad_value_(on_gpu, 0.01);
    for (std::size_t i = 0; i < on_cpu.size(); ++i)
      CHECK(tl::allclose(on_gpu[i].grad().cpu(), on_cpu[i].grad(), 1e-5, 1e-6));
  }
}

// nn modules on the GPU (nn/module.hpp): `to(kCUDA)` moves parameters and
// buffers in place, so an optimizer made before the move trains the moved
// model; a few steps of a conv-batchnorm-linear model match the CPU's.
struct SmallNet : tl::nn::Module<SmallNet> {
  tl::nn::Conv2d<> conv{2, 4, {3}, {.padding = {1}}};
  tl::nn::BatchNorm2d<> bn{4};
  tl::nn::Linear<> fc{4 * 5 * 5, 3};
  TENSORLIB_MODULES(conv, bn, fc)
  tl::Tensor<float> forward(const tl::Tensor<float>& x) {
    return fc(tl::Tensor<float>(tl::relu(bn(conv(x)))).flatten(1));
  }
};

TEST_CASE("CUDA: an nn::Module moved with to(kCUDA) trains as on the CPU") {
  if (cuda_support::no_gpu()) return;
  tl::manual_seed(4);
  SmallNet on_cpu;
  SmallNet on_gpu;
  on_gpu.load_state_dict(on_cpu.state_dict());
  o::SGD<float> opt_cpu(on_cpu.parameters(), {.lr = 0.1, .momentum = 0.9});
  o::SGD<float> opt_gpu(on_gpu.parameters(), {.lr = 0.1, .momentum = 0.9});
  on_gpu.to(tl::Device(tl::kCUDA));
  for (const auto& [name, p] : on_gpu.named_parameters()) CHECK(p.is_cuda());
  CHECK(on_gpu.bn.num_batches_tracked.is_cuda());
  tl::Generator gen(5);
  for (int step = 0; step < 5; ++step) {
    const auto x = tl::randn({6, 2, 5, 5}, gen);
    const auto y = tl::randint(0, 3, {6}, gen);
    opt_cpu.zero_grad();
    opt_gpu.zero_grad();
    tl::nn::functional::cross_entropy(on_cpu(x), y).backward();
    tl::nn::functional::cross_entropy(on_gpu(x.cuda()), y.cuda()).backward();
    opt_cpu.step();
    opt_gpu.step();
  }
  const auto cpu_state = on_cpu.state_dict();
  for (const auto& [key, value] : on_gpu.state_dict()) {
    CAPTURE(key);
    if (value.dtype() == tl::kInt64) {
      CHECK(tl::equal(value.as<int64_t>().cpu(), cpu_state.get<int64_t>(key)));
    } else {
      CHECK(tl::allclose(value.as<float>().cpu(), cpu_state.get<float>(key), 1e-4, 1e-5));
    }
  }
  on_gpu.to(tl::Device(tl::kCPU));
  CHECK_FALSE(on_gpu.fc.weight.is_cuda());
}

TEST_CASE("CUDA: LSTM, GRU and MultiheadAttention modules run on the GPU as on the CPU") {
  if (cuda_support::no_gpu()) return;
  tl::manual_seed(6);
  tl::nn::LSTM<float> lstm(3, 4, {.num_layers = 2, .bidirectional = true});
  tl::nn::LSTM<float> lstm_gpu(3, 4, {.num_layers = 2, .bidirectional = true});
  lstm_gpu.load_state_dict(lstm.state_dict());
  lstm_gpu.to(tl::Device(tl::kCUDA));
  tl::Generator gen(7);
  const auto x = tl::randn({5, 2, 3}, gen);
  const auto [y, h, c] = lstm(x);
  const auto [yg, hg, cg] = lstm_gpu(x.cuda());
  cuda_support::check_parity(yg, y, 1e-5, 1e-6, "lstm output");
  cuda_support::check_parity(cg, c, 1e-5, 1e-6, "lstm c_n");
  tl::Tensor<float>(y.sum() + h.sum()).backward();
  tl::Tensor<float>(yg.sum() + hg.sum()).backward();
  const auto cpu_params = lstm.named_parameters();
  const auto gpu_params = lstm_gpu.named_parameters();
  for (std::size_t i = 0; i < cpu_params.size(); ++i) {
    cuda_support::check_parity(gpu_params[i].second.grad(), cpu_params[i].second.grad(), 1e-4, 1e-5,
                               cpu_params[i].first);
  }
  tl::nn::MultiheadAttention<float> mha(8, 2);
  tl::nn::MultiheadAttention<float> mha_gpu(8, 2);
  mha_gpu.load_state_dict(mha.state_dict());
  mha_gpu.to(tl::Device(tl::kCUDA));
  const auto q = tl::randn({3, 2, 8}, gen), kv = tl::randn({4, 2, 8}, gen);
  const auto mask = tl::tensor<bool>({{false, true, false, false}, {false, false, false, true}});
  const auto [o, w] = mha(q, kv, kv, tl::AnyTensor(mask));
  const auto [og, wg] = mha_gpu(q.cuda(), kv.cuda(), kv.cuda(), tl::AnyTensor(mask.cuda()));
  cuda_support::check_parity(og, o, 1e-5, 1e-6, "attention output");
  cuda_support::check_parity(wg, w, 1e-5, 1e-6, "attention weights");
}
