// Autograd on the GPU against the same graphs on the CPU: the fused backward
// of pointwise chains (one kernel, Note [GPU adjoint sweep]) with broadcast,
// strided, shared, integer and cast leaves, sums and means of expressions,
// and a layer with a matrix product. Tolerances: 1e-5 relative in float
// (the device's math and fused multiply-adds round differently from the
// host's; broadcast gradients are sums in another order), 1e-12 in double.
// LBFGS's trajectory (its closure differentiates) is here too. The backward
// of other ops on the GPU is in autograd_ops_test.cu, forward mode in
// forward_ad_test.cu.

#include <doctest/doctest.h>

#include <optional>
#include <string>
#include <vector>

#include <tensorlib/optim.hpp>
#include <tensorlib/tensor.hpp>

#include "cuda_support.hpp"

using cuda_support::check_parity;
using cuda_support::gpu_leaf;
using cuda_support::no_gpu;

TEST_CASE("CUDA autograd: an 8-op chain's backward is one kernel and matches the CPU") {
  if (no_gpu()) return;
  tl::Generator gen(11);
  auto a = tl::randn({1000, 37}, gen).requires_grad_(), b = tl::randn({1000, 37}, gen).requires_grad_(),
       c = tl::randn({1000, 37}, gen).requires_grad_();
  const auto g = tl::randn({1000, 37}, gen);
  auto ga = gpu_leaf(a), gb = gpu_leaf(b), gc = gpu_leaf(c);
  auto chain = [](const auto& x, const auto& y, const auto& z) {
    return tl::sigmoid(x * y + z) * tl::exp(x) - tl::tanh(z) / 2.f;
  };
  tl::Tensor<float> y = chain(a, b, c);
  y.backward(g);
  tl::Tensor<float> gy = chain(ga, gb, gc);
  const auto before = tl::stats::snapshot();
  gy.backward(g.cuda());
  const auto delta = tl::stats::snapshot() - before;
  CHECK(delta.fused_kernels == 1);
  CHECK(delta.fused_loops == 0);
  REQUIRE(ga.grad().defined());
  CHECK(ga.grad().is_cuda());
  check_parity(ga.grad(), a.grad(), 1e-5, 1e-6, "a");
  check_parity(gb.grad(), b.grad(), 1e-5, 1e-6, "b");
  check_parity(gc.grad(), c.grad(), 1e-5, 1e-6, "c");
}

TEST_CASE("CUDA autograd: broadcast leaves get their gradients summed, through sums and means of expressions") {
  if (no_gpu()) return;
  tl::Generator gen(12);
  auto m = tl::randn({64, 300}, gen).requires_grad_(), row = tl::randn({300}, gen).requires_grad_(),
       col = tl::randn({64, 1}, gen).requires_grad_(), s = tl::scalar_tensor(1.5f).requires_grad_();
  auto gm = gpu_leaf(m), grow = gpu_leaf(row), gcol = gpu_leaf(col), gs = gpu_leaf(s);
  auto loss = [](const auto& x, const auto& r, const auto& c, const auto& k) {
    return tl::Tensor<float>(tl::sum(tl::square(x * r + c) / k) + tl::mean(tl::sin(x - c) * k, {1}).sum());
  };
  loss(m, row, col, s).backward();
  loss(gm, grow, gcol, gs).backward();
  check_parity(gm.grad(), m.grad(), 1e-5, 1e-6, "matrix");
  check_parity(grow.grad(), row.grad(), 1e-5, 1e-5, "row");
  check_parity(gcol.grad(), col.grad(), 1e-5, 1e-5, "column");
  check_parity(gs.grad(), s.grad(), 1e-5, 1e-4, "scalar tensor");
  CHECK(gs.grad().dim() == 0);
}

TEST_CASE("CUDA autograd: transposed and misaligned leaves, a leaf used twice, integer leaves and comparisons") {
  if (no_gpu()) return;
  tl::Generator gen(13);
  auto x = tl::randn({37, 129}, gen).requires_grad_(), t = tl::randn({129, 37}, gen).requires_grad_(),
       flat = tl::randn({4099}, gen).requires_grad_();
  const auto k = tl::randint<int64_t>(0, 5, {37, 129}, gen);  // int64: no gradient, cut paths
  auto gx = gpu_leaf(x), gt = gpu_leaf(t), gflat = gpu_leaf(flat);
  const auto gk = k.cuda();
  auto f = [](const auto& a, const auto& b, const auto& ints) {
    // a appears three times (one lane), b transposed; where's condition is a
    // comparison (no derivative); the int64 leaf promotes through a cast.
    return tl::where(a > 0.f, a * a, a * 0.1f) + b.t() * ints + tl::exp(-a);
  };
  tl::Tensor<float> y = f(x, t, k);
  tl::Tensor<float> gy = f(gx, gt, gk);
  const auto g = tl::randn({37, 129}, gen);
  y.backward(g);
  gy.backward(g.cuda());
  check_parity(gx.grad(), x.grad(), 1e-5, 1e-6, "leaf used three times");
  check_parity(gt.grad(), t.grad(), 1e-6, 1e-6, "transposed leaf");
  CHECK(gt.grad().sizes() == tl::Shape{129, 37});

  // Offset by one element: no vector loads anywhere.
  tl::Tensor<float> z = tl::log1p(tl::square(flat.narrow(0, 1, 4097)));
  tl::Tensor<float> gz = tl::log1p(tl::square(gflat.narrow(0, 1, 4097)));
  z.sum().backward();
  gz.sum().backward();
  check_parity(gflat.grad(), flat.grad(), 1e-5, 1e-6, "misaligned view");
}

TEST_CASE("CUDA autograd: double precision and a float leaf crossing a promotion cast") {
  if (no_gpu()) return;
  tl::Generator gen(14);
  auto a = tl::randn({513}, gen).requires_grad_();
  auto b = tl::randn({513}, gen).to<double>().requires_grad_();
  auto ga = gpu_leaf(a);
  auto gb = gpu_leaf(b);
  auto f = [](const auto& x, const auto& y) { return tl::exp(x) * y + x - tl::atan(y * x); };
  tl::Tensor<double> y = f(a, b);
  tl::Tensor<double> gy = f(ga, gb);
  const auto g = tl::randn({513}, gen).to<double>();
  y.backward(g);
  gy.backward(g.cuda());
  CHECK(ga.grad().dtype() == tl::kFloat32);
  check_parity(ga.grad(), a.grad(), 1e-6, 1e-7, "float leaf");
  check_parity(gb.grad(), b.grad(), 1e-12, 1e-13, "double leaf");
}

TEST_CASE("CUDA autograd: mm, mv and matmul backward through a sum (gradients of stride 0)") {
  if (no_gpu()) return;
  tl::Generator gen(21);
  auto a = tl::randn({9, 7}, gen).requires_grad_(), b = tl::randn({7, 5}, gen).requires_grad_();
  auto v = tl::randn({7}, gen).requires_grad_();
  auto ga = gpu_leaf(a), gb = gpu_leaf(b), gv = gpu_leaf(v);
  tl::mm(a, b).sum().backward();
  tl::mm(ga, gb).sum().backward();
  tl::mv(a, v).sum().backward();
  tl::mv(ga, gv).sum().backward();
  tl::matmul(a, b).mean().backward();
  tl::matmul(ga, gb).mean().backward();
  check_parity(ga.grad(), a.grad(), 1e-5, 1e-6, "a");
  check_parity(gb.grad(), b.grad(), 1e-5, 1e-6, "b");
  check_parity(gv.grad(), v.grad(), 1e-5, 1e-6, "v");
}

TEST_CASE("CUDA autograd: a linear layer with a fused activation trains like the CPU") {
  if (no_gpu()) return;
  tl::Generator gen(15);
  const auto x = tl::randn({128, 37}, gen);
  auto w = tl::randn({37, 16}, gen).requires_grad_(), b = tl::randn({16}, gen).requires_grad_();
  auto gw = gpu_leaf(w), gbias = gpu_leaf(b);
  const auto gx = x.cuda();
  auto loss = [](const auto& in, const auto& weight, const auto& bias) {
    return tl::Tensor<float>(tl::mean(tl::square(tl::tanh(tl::matmul(in, weight) + bias) - 0.5f)));
  };
  for (int step = 0; step < 3; ++step) {
    loss(x, w, b).backward();
    loss(gx, gw, gbias).backward();
    check_parity(gw.grad(), w.grad(), 1e-4, 1e-6, "weight step " + std::to_string(step));
    check_parity(gbias.grad(), b.grad(), 1e-4, 1e-6, "bias step " + std::to_string(step));
    tl::NoGradGuard guard;
    w.sub_(w.grad() * 0.1f);
    b.sub_(b.grad() * 0.1f);
    gw.sub_(gw.grad() * 0.1f);
    gbias.sub_(gbias.grad() * 0.1f);
    w.grad().zero_();
    b.grad().zero_();
    gw.grad().zero_();
    gbias.grad().zero_();
  }
}

TEST_CASE("CUDA autograd: hypot's and sinc's gradients match the CPU, at the origin too") {
  if (no_gpu()) return;
  tl::Generator gen(17);
  auto a = tl::randn({257, 9}, gen), b = tl::randn({9}, gen), x = tl::randn({300}, gen);
  a.data_ptr()[0] = 0.0f;  // hypot's NaN at the origin (column 0 of b is then NaN too)
  b.data_ptr()[0] = 0.0f;
  x.data_ptr()[5] = 0.0f;  // sinc's 0
  a.requires_grad_();
  b.requires_grad_();
  x.requires_grad_();
  auto ga = gpu_leaf(a), gb = gpu_leaf(b), gx = gpu_leaf(x);
  tl::sum(tl::hypot(a, b)).backward();
  tl::sum(tl::hypot(ga, gb)).backward();
  check_parity(ga.grad(), a.grad(), 1e-5, 1e-6, "a");
  check_parity(gb.grad(), b.grad(), 1e-5, 1e-6, "b");
  tl::sum(tl::sinc(x)).backward();
  tl::sum(tl::sinc(gx)).backward();
  CHECK(x.grad().to_vector()[5] == 0.0f);
  check_parity(gx.grad(), x.grad(), 1e-5, 1e-6, "x");
}

TEST_CASE("CUDA autograd: selecting functors mask an infinite gradient on the GPU as on the CPU") {
  if (no_gpu()) return;
  // Note [masked adjoints]: log(where(...)) and log(relu(x)) meet a gradient
  // of inf where the selected value is 0; the branch not taken gets 0.
  auto x = tl::tensor<float>({0.0f, 2.0f, -1.0f, 0.5f}, {.requires_grad = true});
  auto gx = gpu_leaf(x);
  const auto f = [](const tl::Tensor<float>& a) {
    return tl::Tensor<float>(tl::log(tl::where(a > 0.25f, a, 0.0f)) + tl::log(tl::relu(a)));
  };
  f(x).sum().backward();
  f(gx).sum().backward();
  check_parity(gx.grad(), x.grad(), 1e-6, 1e-7, "masked gradient");
  CHECK(x.grad().to_vector()[2] == 0.0f);
}

TEST_CASE("CUDA: LBFGS with the strong-Wolfe line search follows its CPU trajectory") {
  if (no_gpu()) return;
  // Rosenbrock in 8 dimensions, in double: the GPU's reductions sum in
  // another order, so the trajectories agree to rounding. (Here, not in
  // optim_test.cu: its closure differentiates, and test_parity is built
  // without the fused backward.)
  const auto start = tl::tensor<double>({-1.2, 1.0, -0.5, 0.8, 1.5, -1.0, 0.3, 0.0});
  auto cpu_x = start.clone().requires_grad_();
  auto gpu_x = start.cuda().requires_grad_();
  tl::optim::LBFGS<double> on_cpu({cpu_x},
                                  {.lr = 1, .max_iter = 10, .history_size = 5, .line_search_fn = "strong_wolfe"});
  tl::optim::LBFGS<double> on_gpu({gpu_x},
                                  {.lr = 1, .max_iter = 10, .history_size = 5, .line_search_fn = "strong_wolfe"});
  const auto rosenbrock = [](const tl::Tensor<double>& x) {
    const auto head = x.narrow(0, 0, 7), tail = x.narrow(0, 1, 7);
    return tl::Tensor<double>(tl::sum(100.0 * tl::square(tail - tl::square(head)) + tl::square(1.0 - head)));
  };
  for (int step = 0; step < 5; ++step) {
    const auto l_cpu = on_cpu.step([&] {
      on_cpu.zero_grad();
      tl::Tensor<double> loss = rosenbrock(cpu_x);
      loss.backward();
      return loss;
    });
    const auto l_gpu = on_gpu.step([&] {
      on_gpu.zero_grad();
      tl::Tensor<double> loss = rosenbrock(gpu_x);
      loss.backward();
      return loss;
    });
    CHECK(l_gpu.is_cuda());
    CHECK(l_gpu.item() == doctest::Approx(l_cpu.item()).epsilon(1e-9));
  }
  CHECK(on_gpu.state()->d.is_cuda());
  CHECK(tl::allclose(gpu_x.detach().cpu(), cpu_x.detach(), 1e-8, 1e-10));
  // Its state round-trips on the GPU too.
  tl::optim::LBFGS<double> fresh({start.cuda().requires_grad_()});
  fresh.load_state_dict(on_gpu.state_dict());
  CHECK(fresh.state()->prev_flat_grad.is_cuda());
}
