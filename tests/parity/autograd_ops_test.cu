// Autograd of other ops on the GPU against the same graphs on the CPU:
// scans (logcumsumexp too), matrix_exp, cdist, triangles, repeat_interleave, FFTs (the adjoint transform
// through cuFFT), as_strided, decompositions recorded through the host,
// unfold, addcmul, addcdiv, diff, mT and take_along_dim. Tolerances: 1e-5
// relative in float, 1e-12 in double, unless a test states its own.

#include <doctest/doctest.h>

#include <optional>
#include <string>
#include <vector>

#include <tensorlib/tensor.hpp>

#include "cuda_support.hpp"

using cuda_support::check_parity;
using cuda_support::gpu_leaf;
using cuda_support::no_gpu;

TEST_CASE("CUDA autograd: cumprod through zeros, cdist, tril and repeat_interleave backward match the CPU") {
  if (no_gpu()) return;
  tl::Generator gen(16);
  auto x = tl::randn({6, 9}, gen);
  x.narrow(1, 2, 1).zero_();               // one zero per row: CumprodBackwardLine's kernel
  x.select(0, 3).narrow(0, 5, 2).zero_();  // and a row with three
  x.requires_grad_();
  auto gx = gpu_leaf(x);
  const auto weights = tl::randn({6, 9}, gen);
  tl::Tensor<float>(tl::sum(tl::cumprod(x, 1) * weights)).backward();
  tl::Tensor<float>(tl::sum(tl::cumprod(gx, 1) * weights.cuda())).backward();
  check_parity(gx.grad(), x.grad(), 1e-5, 1e-6, "cumprod with zeros");
  auto a = tl::randn({7, 4}, gen).requires_grad_(), b = tl::randn({5, 4}, gen).requires_grad_();
  auto ga = gpu_leaf(a), gb = gpu_leaf(b);
  tl::Tensor<float>(tl::sum(tl::tril(tl::cdist(a, b), -1))).backward();
  tl::Tensor<float>(tl::sum(tl::tril(tl::cdist(ga, gb), -1))).backward();
  check_parity(ga.grad(), a.grad(), 1e-5, 1e-6, "cdist and tril, first input");
  check_parity(gb.grad(), b.grad(), 1e-5, 1e-6, "cdist and tril, second input");
  auto r = tl::randn({5, 3}, gen).requires_grad_();
  auto gr = gpu_leaf(r);
  const auto reps = tl::tensor({2, 0, 3, 1, 4});
  tl::Tensor<float>(tl::sum(tl::square(tl::repeat_interleave(r, reps, 0)))).backward();
  tl::Tensor<float>(tl::sum(tl::square(tl::repeat_interleave(gr, reps.cuda(), 0)))).backward();
  check_parity(gr.grad(), r.grad(), 1e-6, 1e-7, "repeat_interleave");
}

TEST_CASE("CUDA autograd: an FFT's backward (the adjoint transform through cuFFT) matches the CPU") {
  if (no_gpu()) return;
  tl::Generator gen(17);
  auto x = tl::randn({4, 30}, gen).requires_grad_();
  auto gx = gpu_leaf(x);
  const auto loss = [](const tl::Tensor<float>& in) {
    const auto spectrum = tl::fft::rfft(in, std::nullopt, 1, "ortho");
    const tl::Tensor<float> back = tl::fft::irfft(spectrum, 30, 1);
    return tl::Tensor<float>(tl::sum(tl::square(spectrum.pairs())) + tl::sum(back * back));
  };
  loss(x).backward();
  loss(gx).backward();
  check_parity(gx.grad(), x.grad(), 1e-4, 1e-5, "rfft and irfft backward");
}

TEST_CASE("CUDA autograd: as_strided's backward (overlapping and expanded views) matches the CPU") {
  if (no_gpu()) return;
  tl::Generator gen(18);
  auto x = tl::randn({12}, gen).requires_grad_();
  auto gx = gpu_leaf(x);
  const auto w = tl::randn({4, 5}, gen);
  // Rows overlap (stride 2, length 5): the backward adds atomically on the GPU.
  const auto loss = [&](const tl::Tensor<float>& in, const tl::Tensor<float>& weights) {
    const tl::Tensor<float> overlapping = in.as_strided({4, 5}, {2, 1}, 1);
    const tl::Tensor<float> expanded = in.narrow(0, 0, 3).expand({2, 3}).as_strided({2}, {1}, 0);
    return tl::Tensor<float>(tl::sum(overlapping * weights) + tl::sum(tl::square(expanded)));
  };
  loss(x, w).backward();
  loss(gx, w.cuda()).backward();
  check_parity(gx.grad(), x.grad(), 1e-5, 1e-6, "as_strided");
}

TEST_CASE("CUDA autograd: decompositions record through the host and their gradients arrive on the GPU") {
  // Note [decompositions of CUDA tensors]: the op and its backward run on
  // the host between two copies, so the gradients equal the CPU's up to the
  // rounding of the GPU's own products and sums around them (double).
  if (no_gpu()) return;
  tl::Generator gen(19);
  auto a = tl::randn({2, 4, 4}, gen).to<double>().requires_grad_();
  auto b = tl::randn({2, 4, 3}, gen).to<double>().requires_grad_();
  auto ga = gpu_leaf(a), gb = gpu_leaf(b);
  const auto loss = [](const tl::Tensor<double>& m, const tl::Tensor<double>& rhs) {
    const tl::Tensor<double> spd =
        tl::matmul(m, m.transpose(-1, -2)) + tl::eye<double>(4, std::nullopt, {.device = m.device()});
    const auto [q, r] = tl::linalg::qr(m);
    return tl::Tensor<double>(tl::sum(tl::linalg::cholesky(spd)) +
                              tl::sum(tl::linalg::solve(m, rhs) * q.narrow(2, 0, 3)) + tl::sum(tl::linalg::svdvals(m)) +
                              tl::sum(r) + tl::sum(tl::linalg::det(m)));
  };
  loss(a, b).backward();
  const tl::Tensor<double> gpu_loss = loss(ga, gb);
  CHECK(gpu_loss.is_cuda());
  gpu_loss.backward();
  REQUIRE(ga.grad().defined());
  CHECK(ga.grad().is_cuda());
  check_parity(ga.grad(), a.grad(), 1e-8, 1e-10, "A");
  check_parity(gb.grad(), b.grad(), 1e-8, 1e-10, "B");
}

TEST_CASE("CUDA autograd: unfold, addcmul, addcdiv, diff, mT and take_along_dim match the CPU, forward and backward") {
  if (no_gpu()) return;
  tl::Generator gen(23);
  auto x = tl::randn({3, 9, 4}, gen).requires_grad_();
  auto t = tl::randn({4}, gen).requires_grad_();
  auto gx = gpu_leaf(x), gt = gpu_leaf(t);
  const auto w = tl::randn({3, 4, 4, 3}, gen);
  const tl::Tensor<float> d = tl::rand({9, 1}, gen) + 0.5f;
  // Overlapping windows (size 3, step 2) of dim 1; addcmul/addcdiv broadcast.
  const auto loss = [](const tl::Tensor<float>& in, const tl::Tensor<float>& v, const tl::Tensor<float>& weights,
                       const tl::Tensor<float>& divisor) {
    const tl::Tensor<float> windows = in.unfold(1, 3, 2);
    const tl::Tensor<float> y = tl::addcmul(in, in, v, 0.5).addcdiv(v, divisor, -2.0);
    const tl::Tensor<float> d2 = tl::diff(in.mT(), 2, 1);
    const tl::Tensor<float> taken = tl::take_along_dim(in, tl::argsort(in, 1), 1);
    return tl::Tensor<float>(tl::sum(windows * weights) + tl::sum(tl::square(y)) + tl::sum(tl::square(d2)) +
                             tl::sum(taken * tl::arange<float>(0, 4, 1, {.device = in.device()})));
  };
  const tl::Tensor<float> cpu_loss = loss(x, t, w, d), gpu_loss = loss(gx, gt, w.cuda(), d.cuda());
  check_parity(gpu_loss, cpu_loss, 1e-5, 1e-5, "loss");
  cpu_loss.backward();
  gpu_loss.backward();
  check_parity(gx.grad(), x.grad(), 1e-5, 1e-6, "x");
  check_parity(gt.grad(), t.grad(), 1e-5, 1e-5, "t");
}

TEST_CASE("CUDA autograd: logcumsumexp's and matrix_exp's gradients match the CPU") {
  if (no_gpu()) return;
  tl::Generator g(14);
  auto leaf = tl::randn<double>({5, 7}, g).requires_grad_();
  auto gleaf = gpu_leaf(leaf);
  const auto up = tl::randn<double>({5, 7}, g);
  (tl::logcumsumexp(leaf, 1) * up).sum().backward();
  (tl::logcumsumexp(gleaf, 1) * up.cuda()).sum().backward();
  check_parity(gleaf.grad(), leaf.grad(), 1e-12, 1e-12, "logcumsumexp");
  // matrix_exp runs on the host (Note [decompositions of CUDA tensors]); its
  // backward's block matrix is assembled on the GPU.
  const auto a = tl::randn<double>({2, 3, 3}, g);
  auto da = a.cuda().requires_grad_();
  auto ha = a.clone().requires_grad_();
  tl::linalg::matrix_exp(da).sum().backward();
  tl::linalg::matrix_exp(ha).sum().backward();
  CHECK(da.grad().is_cuda());
  check_parity(da.grad(), ha.grad(), 1e-12, 1e-12, "matrix_exp");
}

TEST_CASE("CUDA autograd: convolutions, their transposes and pad differentiate as on the CPU") {
  if (no_gpu()) return;
  tl::Generator g(15);
  auto x = tl::randn<double>({2, 4, 6, 5}, g).requires_grad_(), w = tl::randn<double>({6, 2, 3, 2}, g).requires_grad_(),
       b = tl::randn<double>({6}, g).requires_grad_();
  auto gx = gpu_leaf(x), gw = gpu_leaf(w), gb = gpu_leaf(b);
  const auto loss = [](const tl::Tensor<double>& in, const tl::Tensor<double>& wt, const tl::Tensor<double>& bias) {
    const auto y = tl::conv2d(tl::pad(in, {1, 2, 2, 0}, "reflect"), wt, bias, {2, 1}, {1, 0}, {1, 2}, 2);
    const auto z = tl::conv_transpose2d(y, wt, std::nullopt, {1, 2}, {0, 1}, {0, 1}, 2);
    return tl::Tensor<double>(tl::sum(tl::square(z)) + tl::sum(y * y.sin()));
  };
  loss(x, w, b).backward();
  loss(gx, gw, gb).backward();
  // Atomic adds (col2im, index_add's backward) sum in any order.
  check_parity(gx.grad(), x.grad(), 1e-10, 1e-10, "input");
  check_parity(gw.grad(), w.grad(), 1e-10, 1e-10, "weight");
  check_parity(gb.grad(), b.grad(), 1e-10, 1e-10, "bias");
}
