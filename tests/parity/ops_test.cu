// Pointwise operations on the GPU against the same operations on the CPU:
// copies, fused chains (one kernel each, by the counters), broadcast,
// strided and misaligned operands, the row path, the composites on special
// values, and the errors of mixed devices and 64-bit offsets. Tolerances:
// exact where both sides compute the same operations in the same order.
// The other ops are in reduce_test.cu, index_test.cu and sort_test.cu (one
// file each: nvcc's time grows faster than a file's kernels, Compile time in
// docs/architecture.md).

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include <tensorlib/nn.hpp>
#include <tensorlib/tensor.hpp>

#include "cuda_support.hpp"

using cuda_support::check_parity;
using cuda_support::no_gpu;

TEST_CASE("CUDA: copies to and from the GPU keep values, shapes and layouts") {
  if (no_gpu()) return;
  tl::Generator g(7);
  const auto x = tl::randn({5, 7, 3}, g);
  const auto d = x.cuda();
  CHECK(d.is_cuda());
  CHECK(d.device() == tl::Device(tl::kCUDA, 0));
  CHECK(d.to(tl::kCUDA).data_ptr() == d.data_ptr());  // already there: the same tensor
  fixtures::check_close(d.cpu(), x);
  // Non-contiguous both ways: a permuted view up, a sliced, transposed view down.
  fixtures::check_close(x.permute({2, 0, 1}).cuda().cpu(), x.permute({2, 0, 1}).contiguous());
  fixtures::check_close(d.transpose(0, 2).narrow(1, 2, 4).cpu(), x.transpose(0, 2).narrow(1, 2, 4).contiguous());
  CHECK(d.sum().item() == doctest::Approx(x.sum().item()).epsilon(1e-5));
  CHECK(d.to_vector().size() == 105);
}

TEST_CASE("CUDA: resize_ grows a device storage and keeps its bytes") {
  if (no_gpu()) return;
  auto x = tl::arange<float>(0, 6).cuda();
  const auto v = x.view({2, 3});
  x.resize_({3, 4});
  CHECK(x.is_cuda());
  CHECK(x.storage().nbytes() == 12 * 4);
  CHECK(x.reshape({-1}).narrow(0, 0, 6).cpu().to_vector() == std::vector<float>{0, 1, 2, 3, 4, 5});
  x.fill_(3.f);
  CHECK(v.cpu().to_vector() == std::vector<float>(6, 3.f));
}

TEST_CASE("CUDA: in-place views change a device tensor's geometry as on the CPU") {
  if (no_gpu()) return;
  tl::Generator g(3);
  auto x = tl::randn({2, 1, 3, 4}, g);
  auto d = x.cuda();
  x.transpose_(0, 3).squeeze_(2).unsqueeze_(0).as_strided_({3, 4}, {1, 5}, 2);
  d.transpose_(0, 3).squeeze_(2).unsqueeze_(0).as_strided_({3, 4}, {1, 5}, 2);
  CHECK(d.is_cuda());
  CHECK(d.sizes() == x.sizes());
  CHECK(d.strides() == x.strides());
  check_parity(tl::Tensor<float>(d * 2.f), tl::Tensor<float>(x * 2.f), 0, 0, "in-place views");
}

TEST_CASE("CUDA: a 6-op chain of 3 inputs runs as exactly one kernel and matches the CPU") {
  if (no_gpu()) return;
  tl::Generator g(1);
  const auto a = tl::randn({1000, 37}, g), b = tl::randn({1000, 37}, g), c = tl::randn({1000, 37}, g);
  const auto ga = a.cuda(), gb = b.cuda(), gc = c.cuda();
  auto chain = [](const auto& x, const auto& y, const auto& z) {
    return tl::tanh(x * y + 0.5f) - tl::exp(-tl::square(z)) * tl::sigmoid(y);
  };
  const auto before = tl::stats::snapshot();
  tl::Tensor<float> gy = chain(ga, gb, gc);
  const auto delta = tl::stats::snapshot() - before;
  CHECK(delta.fused_kernels == 1);
  CHECK(delta.fused_loops == 0);
  const tl::Tensor<float> y = chain(a, b, c);
  check_parity(gy, y, 2e-6, 2e-6, "chain");
}

TEST_CASE("CUDA: broadcast, strided, misaligned and scalar operands") {
  if (no_gpu()) return;
  tl::Generator g(2);
  const auto m = tl::randn({512, 300}, g), row = tl::randn({300}, g), col = tl::randn({512, 1}, g);
  const auto s = tl::scalar_tensor(2.5f);
  const tl::Tensor<float> y = (m * row + col) / s;
  const tl::Tensor<float> gy = (m.cuda() * row.cuda() + col.cuda()) / s.cuda();
  // nvcc contracts m*row+col into one fma; this host code rounds twice.
  check_parity(gy, y, 2e-6, 1e-6, "broadcast");
  // A transposed operand and an output that is a strided view.
  const auto t = tl::randn({300, 512}, g);
  const tl::Tensor<float> yt = m + t.t();
  check_parity(tl::Tensor<float>(m.cuda() + t.cuda().t()), yt, 0, 0, "transposed");
  auto out = tl::zeros<float>({512, 600}, {.device = tl::kCUDA});
  out.narrow(1, 0, 300).copy_(m.cuda() * 2.0f);
  check_parity(out.narrow(1, 0, 300).contiguous(), tl::Tensor<float>(m * 2.0f), 0, 0, "strided output");
  // Offset by one element: not aligned for vector loads, so the strided path.
  const auto flat = tl::randn({4099}, g);
  const tl::Tensor<float> yo = tl::exp(flat.narrow(0, 1, 4097));
  check_parity(tl::Tensor<float>(tl::exp(flat.cuda().narrow(0, 1, 4097))), yo, 2e-6, 0, "misaligned");
  // Integer and bool chains, casts and comparisons.
  const auto i = tl::arange(0, 1000);
  const tl::Tensor<int64_t> yi = (i * 7 + 3) * (i - 500);
  check_parity(tl::Tensor<int64_t>((i.cuda() * 7 + 3) * (i.cuda() - 500)), yi, 0, 0, "int64");
  const tl::Tensor<bool> yb = tl::logical_and(m > 0.5f, m < 1.5f);
  check_parity(tl::Tensor<bool>(tl::logical_and(m.cuda() > 0.5f, m.cuda() < 1.5f)), yb, 0, 0, "bool");
  check_parity(m.cuda().to<double>(), m.to<double>(), 0, 0, "cast");
}

TEST_CASE("CUDA: fmax, fmin, hypot, xlog1py, sinc, ndtr, deg2rad and float_power match the CPU on special values") {
  if (no_gpu()) return;
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  const auto b = tl::tensor<float>({nan, inf, -inf, 0.0f, -0.0f, 1e-30f, 1.0f, -1.0f, 2.5f, -7.0f, 3e30f, -2e38f});
  const auto a = b.view({-1, 1});
  const auto ga = a.cuda(), gb = b.cuda();
  // Selections are exact; the others run CUDA's and our CPU kernels of the
  // same functors (a few ulp apart).
  check_parity(tl::Tensor<float>(tl::fmax(ga, gb)), tl::Tensor<float>(tl::fmax(a, b)), 0, 0, "fmax");
  check_parity(tl::Tensor<float>(tl::fmin(ga, gb)), tl::Tensor<float>(tl::fmin(a, b)), 0, 0, "fmin");
  check_parity(tl::Tensor<float>(tl::hypot(ga, gb)), tl::Tensor<float>(tl::hypot(a, b)), 1e-6, 0, "hypot");
  check_parity(tl::Tensor<float>(tl::xlog1py(ga, gb)), tl::Tensor<float>(tl::xlog1py(a, b)), 1e-6, 1e-6, "xlog1py");
  check_parity(tl::Tensor<float>(tl::sinc(gb)), tl::Tensor<float>(tl::sinc(b)), 1e-6, 1e-6, "sinc");
  check_parity(tl::Tensor<float>(tl::ndtr(gb)), tl::Tensor<float>(tl::ndtr(b)), 1e-6, 1e-6, "ndtr");
  check_parity(tl::Tensor<float>(tl::deg2rad(gb)), tl::Tensor<float>(tl::deg2rad(b)), 0, 0, "deg2rad");
  check_parity(tl::Tensor<double>(tl::float_power(ga, gb)), tl::Tensor<double>(tl::float_power(a, b)), 1e-15, 0,
               "float_power");
}

TEST_CASE("CUDA: rsub, ldexp, the in-place comparisons and the stacking ops match the CPU") {
  if (no_gpu()) return;
  tl::Generator g(25);
  const auto a = tl::randn({3, 4}, g), b = tl::randn({4}, g);
  const auto e = tl::tensor<int32_t>({3, -2, 10, -100});
  const auto ga = a.cuda(), gb = b.cuda();
  check_parity(tl::Tensor<float>(tl::rsub(ga, gb, 2.5)), tl::Tensor<float>(tl::rsub(a, b, 2.5)), 0, 0, "rsub");
  check_parity(tl::Tensor<float>(tl::ldexp(ga, e.cuda())), tl::Tensor<float>(tl::ldexp(a, e)), 0, 0, "ldexp");
  auto gc = ga.clone(), c = a.clone();
  gc.ge_(gb);
  c.ge_(b);
  check_parity(gc, c, 0, 0, "ge_");
  check_parity(tl::vander(gb, 5), tl::vander(b, 5), 1e-6, 0, "vander");
  check_parity(tl::block_diag({ga, gb, ga.t()}), tl::block_diag({a, b, a.t()}), 0, 0, "block_diag");
  check_parity(tl::column_stack({ga.t(), gb}), tl::column_stack({a.t(), b}), 0, 0, "column_stack");
  check_parity(tl::dstack({ga, ga}), tl::dstack({a, a}), 0, 0, "dstack");
  auto gt = ga.clone(), t = a.clone();
  gt.tril_(1);
  t.tril_(1);
  check_parity(gt, t, 0, 0, "tril_");
  gt.cumsum_(1);
  t.cumsum_(1);
  check_parity(gt, t, 1e-6, 1e-6, "cumsum_");
  // The linear algebra composites: cuBLAS products, host decompositions.
  const auto v = tl::randn({3}, g), m = tl::randn({4, 2}, g);
  const auto gv = v.cuda(), gm = m.cuda();
  check_parity(tl::addr(ga, gv, gb, 0.5f, 2.f), tl::addr(a, v, b, 0.5f, 2.f), 1e-5, 1e-6, "addr");
  check_parity(tl::linalg::multi_dot({gv, ga, gm}), tl::linalg::multi_dot({v, a, m}), 1e-5, 1e-6, "multi_dot");
  check_parity(tl::linalg::vecdot(ga, gb), tl::linalg::vecdot(a, b), 1e-5, 1e-6, "vecdot");
  auto gs = (ga.narrow(1, 0, 3) + 3.f * tl::eye<float>(3).cuda()).eval(),
       s = (a.narrow(1, 0, 3) + 3.f * tl::eye<float>(3)).eval();
  check_parity(tl::linalg::cond(gs, 1.0), tl::linalg::cond(s, 1.0), 1e-5, 0, "cond");
  check_parity(tl::linalg::inv_ex(gs).inverse, tl::linalg::inv_ex(s).inverse, 1e-5, 1e-6, "inv_ex");
  check_parity(tl::linalg::solve_ex(gs, gm.narrow(0, 0, 3)).result, tl::linalg::solve_ex(s, m.narrow(0, 0, 3)).result,
               1e-5, 1e-6, "solve_ex");
  const auto gspd = tl::matmul(gs, gs.mT()).eval(), spd = tl::matmul(s, s.mT()).eval();
  check_parity(tl::linalg::cholesky_ex(gspd).L, tl::linalg::cholesky_ex(spd).L, 1e-5, 1e-6, "cholesky_ex");
  check_parity(tl::linalg::householder_product(ga.mT(), gv), tl::linalg::householder_product(a.mT(), v), 1e-5, 1e-6,
               "householder_product");
}

TEST_CASE("CUDA: view scatters, isin, trapezoid and the distances match the CPU") {
  if (no_gpu()) return;
  tl::Generator g(29);
  const auto x = tl::randn({3, 4}, g), src = tl::randn({4}, g), y = tl::randn({5, 3}, g);
  const auto gx = x.cuda(), gsrc = src.cuda(), gy = y.cuda();
  check_parity(tl::select_scatter(gx, gsrc, 0, 2), tl::select_scatter(x, src, 0, 2), 0, 0, "select_scatter");
  check_parity(tl::slice_scatter(gx, gx.narrow(1, 0, 2), 1, 0, tl::None, 2),
               tl::slice_scatter(x, x.narrow(1, 0, 2), 1, 0, tl::None, 2), 0, 0, "slice_scatter");
  check_parity(tl::diagonal_scatter(gx, gsrc.narrow(0, 0, 3)), tl::diagonal_scatter(x, src.narrow(0, 0, 3)), 0, 0,
               "diagonal_scatter");
  const auto e = tl::tensor<float>({0.5f, std::nanf(""), -0.0f, 2.0f, 3.0f}), t = tl::tensor<float>({2.f, 0.f, 7.f});
  CHECK(tl::isin(e.cuda(), t.cuda()).cpu().to_vector() == tl::isin(e, t).to_vector());
  check_parity(tl::trapezoid(gy, gy.select(1, 0).cumsum(0), 0), tl::trapezoid(y, y.select(1, 0).cumsum(0), 0), 1e-5,
               1e-6, "trapezoid");
  check_parity(tl::cumulative_trapezoid(gy, 0.5), tl::cumulative_trapezoid(y, 0.5), 1e-5, 1e-6, "cumulative_trapezoid");
  check_parity(tl::cosine_similarity(gx, gsrc), tl::cosine_similarity(x, src), 1e-5, 1e-6, "cosine_similarity");
  check_parity(tl::pairwise_distance(gx, gsrc), tl::pairwise_distance(x, src), 1e-5, 1e-6, "pairwise_distance");
  check_parity(tl::pdist(gy), tl::pdist(y), 1e-5, 1e-6, "pdist");
}

TEST_CASE("CUDA: nan_to_num, logaddexp, logaddexp2 and xlogy match the CPU on special values") {
  if (no_gpu()) return;
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  const auto b = tl::tensor<float>({nan, inf, -inf, 0.0f, -0.0f, 1e-30f, 1.0f, -1.0f, 2.5f, -7.0f, 88.0f, -100.0f});
  const auto a = b.view({-1, 1});
  const auto ga = a.cuda(), gb = b.cuda();
  // Transcendental functors: CUDA's and our CPU kernels differ by a few ulp.
  check_parity(tl::Tensor<float>(tl::logaddexp(ga, gb)), tl::Tensor<float>(tl::logaddexp(a, b)), 1e-6, 1e-6,
               "logaddexp");
  check_parity(tl::Tensor<float>(tl::logaddexp2(ga, gb)), tl::Tensor<float>(tl::logaddexp2(a, b)), 1e-6, 1e-6,
               "logaddexp2");
  check_parity(tl::Tensor<float>(tl::xlogy(ga, gb)), tl::Tensor<float>(tl::xlogy(a, b)), 1e-6, 1e-6, "xlogy");
  check_parity(tl::Tensor<float>(tl::nan_to_num(gb, 1.5, 100.0)), tl::Tensor<float>(tl::nan_to_num(b, 1.5, 100.0)), 0,
               0, "nan_to_num");
  // quantile sorts, gathers and interpolates on the GPU (Note [quantiles from a sort]).
  tl::Generator g(29);
  auto m = tl::randn({6, 33}, g);
  m.index_put_({tl::tensor<int64_t>({2}), tl::tensor<int64_t>({5})}, tl::scalar_tensor(nan));
  const auto q = tl::tensor<float>({0.0f, 0.25f, 0.9f});
  // The linear interpolation is one fused multiply-add on the GPU: an ulp.
  check_parity(tl::quantile(m.cuda(), q.cuda(), 1), tl::quantile(m, q, 1), 3e-7, 1e-7, "quantile");
  check_parity(tl::nanquantile(m.cuda(), 0.4, 0, true, "nearest"), tl::nanquantile(m, 0.4, 0, true, "nearest"), 0, 0,
               "nanquantile");
}

TEST_CASE("CUDA: broadcasts on the row path and beside it (Note [row path])") {
  if (no_gpu()) return;
  tl::Generator g(5);
  const auto m = tl::randn({64, 96}, g), row = tl::randn({96}, g), col = tl::randn({64, 1}, g);
  const auto gm = m.cuda(), grow = row.cuda(), gcol = col.cuda();
  // Row path: inner runs of stride 1 or 0, a multiple of kVec long, aligned.
  // CUDA's expf and the host's differ by an ulp; exp(m) - row cancels, so an absolute tolerance.
  check_parity(tl::Tensor<float>(tl::exp(gm) - grow), tl::Tensor<float>(tl::exp(m) - row), 2e-6, 2e-6, "row");
  check_parity(tl::Tensor<float>(gm * gcol), tl::Tensor<float>(m * col), 0, 0, "column");
  check_parity(tl::Tensor<float>(gcol + grow), tl::Tensor<float>(col + row), 0, 0, "outer sum");
  const auto t3 = tl::randn({6, 8, 12}, g), b3 = tl::randn({8, 1}, g);
  check_parity(tl::Tensor<float>(t3.cuda() * b3.cuda()), tl::Tensor<float>(t3 * b3), 0, 0, "3-d");
  // An output that is a strided view whose rows stay aligned.
  auto out = tl::zeros<float>({64, 100}, {.device = tl::kCUDA});
  out.narrow(1, 0, 96).copy_(gm + grow);
  check_parity(out.narrow(1, 0, 96).contiguous(), tl::Tensor<float>(m + row), 0, 0, "strided output rows");
  check_parity(out.narrow(1, 96, 4), tl::zeros<float>({64, 4}), 0, 0, "untouched columns");
  // Beside it (the strided path): a row length not a multiple of kVec, rows
  // that start unaligned, an unaligned pointer, a non-unit inner stride.
  const auto odd = tl::randn({64, 95}, g), odd_row = tl::randn({95}, g);
  check_parity(tl::Tensor<float>(odd.cuda() * odd_row.cuda()), tl::Tensor<float>(odd * odd_row), 0, 0, "odd rows");
  const auto wide = tl::randn({64, 98}, g);
  check_parity(tl::Tensor<float>(wide.cuda().narrow(1, 0, 96) + grow), tl::Tensor<float>(wide.narrow(1, 0, 96) + row),
               0, 0, "unaligned row starts");
  check_parity(tl::Tensor<float>(wide.cuda().narrow(1, 1, 96) + grow), tl::Tensor<float>(wide.narrow(1, 1, 96) + row),
               0, 0, "unaligned pointer");
  check_parity(tl::Tensor<float>(m.cuda().t() * gcol.t()), tl::Tensor<float>(m.t() * col.t()), 0, 0, "transposed");
  // Integer and double rows.
  const auto i = tl::arange(0, 256).reshape({16, 16});
  check_parity(tl::Tensor<int64_t>(i.cuda() * i.cuda().narrow(0, 0, 1)), tl::Tensor<int64_t>(i * i.narrow(0, 0, 1)), 0,
               0, "int64 rows");
  const auto d = tl::randn<double>({32, 8}, g), drow = tl::randn<double>({8}, g);
  check_parity(tl::Tensor<double>(d.cuda() / drow.cuda()), tl::Tensor<double>(d / drow), 0, 0, "double rows");
}

TEST_CASE("CUDA: mixing devices in one op is an error naming both") {
  if (no_gpu()) return;
  const auto a = tl::ones<float>({3}), b = tl::ones<float>({3}, {.device = tl::kCUDA});
  CHECK_THROWS_WITH_AS((void)(a + b), doctest::Contains("cpu and cuda:0"), tl::DeviceError);
}

TEST_CASE("CUDA: offsets that need 64-bit indices without the 64-bit kernel are an error") {
  if (no_gpu()) return;
  // test_parity defines TENSORLIB_CUDA_32BIT_INDEXING_ONLY (Note [32-bit
  // indexing only]): three bytes 2^29 apart reach offset 2^30 (1 GiB). The
  // base is zeroed in two halves: one fill of all of it needs 64-bit indices.
  constexpr int64_t stride = int64_t{1} << 29;
  auto base = tl::empty<uint8_t>({2 * stride + 1}, {.device = tl::kCUDA});
  base.slice(0, 0, stride).zero_();
  base.slice(0, stride, tl::None).zero_();
  const auto v = base.slice(0, 0, tl::None, stride);
  REQUIRE(v.numel() == 3);
#if defined(TENSORLIB_CUDA_32BIT_INDEXING_ONLY)
  CHECK_THROWS_WITH_AS((void)tl::Tensor<uint8_t>(v + v), doctest::Contains("TENSORLIB_CUDA_32BIT_INDEXING_ONLY"),
                       tl::NotImplementedError);
  CHECK_THROWS_WITH_AS((void)tl::Tensor<uint8_t>(v + v), doctest::Contains("operands span 1073741825 elements"),
                       tl::NotImplementedError);
#else
  CHECK(tl::Tensor<uint8_t>(v + v).cpu().to_vector() == std::vector<uint8_t>{0, 0, 0});
#endif
  // Just below the bound, the 32-bit strided kernel runs (the last offset
  // 2^30 - 4).
  const auto w = base.slice(0, 0, tl::None, stride - 2);
  REQUIRE(w.numel() == 3);
  CHECK(tl::Tensor<uint8_t>(w + 1).cpu().to_vector() == std::vector<uint8_t>{1, 1, 1});
}

TEST_CASE("CUDA: pad, convolutions, their transposes and im2col/col2im match the CPU") {
  if (no_gpu()) return;
  tl::Generator g(31);
  const auto x = tl::randn({2, 4, 7, 6}, g), w = tl::randn({6, 2, 3, 2}, g), b = tl::randn({6}, g);
  const auto gx = x.cuda(), gw = w.cuda(), gb = b.cuda();
  for (const char* mode : {"constant", "reflect", "replicate", "circular"})
    check_parity(tl::pad(gx, {2, 1, -1, 3}, mode), tl::pad(x, {2, 1, -1, 3}, mode), 0, 0, mode);
  // Products on the GPU sum in another order: float tolerances.
  check_parity(tl::conv2d(gx, gw, gb, {2, 1}, {1, 2}, {1, 2}, 2), tl::conv2d(x, w, b, {2, 1}, {1, 2}, {1, 2}, 2), 1e-4,
               1e-4, "conv2d");
  check_parity(tl::conv2d(gx, gw, gb, {1}, "same", {2}, 2), tl::conv2d(x, w, b, {1}, "same", {2}, 2), 1e-4, 1e-4,
               "conv2d same");
  const auto wt = tl::randn({4, 3, 3, 2}, g);
  check_parity(tl::conv_transpose2d(gx, wt.cuda(), gb, {2}, {1}, {1}, 2, {1, 2}),
               tl::conv_transpose2d(x, wt, b, {2}, {1}, {1}, 2, {1, 2}), 1e-4, 1e-4, "conv_transpose2d");
  const auto x1 = tl::randn({3, 2, 9}, g), w1 = tl::randn({4, 2, 3}, g);
  check_parity(tl::conv1d(x1.cuda(), w1.cuda(), std::nullopt, {2}, {1}), tl::conv1d(x1, w1, std::nullopt, {2}, {1}),
               1e-4, 1e-4, "conv1d");
  const auto x3 = tl::randn({1, 2, 4, 5, 3}, g), w3 = tl::randn({3, 2, 2, 3, 2}, g);
  check_parity(tl::conv3d(x3.cuda(), w3.cuda(), std::nullopt, {1}, {1, 0, 1}),
               tl::conv3d(x3, w3, std::nullopt, {1}, {1, 0, 1}), 1e-4, 1e-4, "conv3d");
  const auto cols = tl::im2col(x, {3, 2}, {1, 2}, {1}, {2, 1});
  check_parity(tl::im2col(gx, {3, 2}, {1, 2}, {1}, {2, 1}), cols, 0, 0, "im2col");
  // col2im sums by atomic adds on the GPU: any order.
  check_parity(tl::col2im(cols.cuda(), {7, 6}, {3, 2}, {1, 2}, {1}, {2, 1}),
               tl::col2im(cols, {7, 6}, {3, 2}, {1, 2}, {1}, {2, 1}), 1e-5, 1e-5, "col2im");
}

TEST_CASE("CUDA: max, average, adaptive and lp pools and max_unpool match the CPU") {
  if (no_gpu()) return;
  tl::Generator g(32);
  const auto x = tl::randn({2, 3, 7, 6}, g);
  const auto gx = x.cuda();
  const auto [v, i] = tl::max_pool2d_with_indices(x, {3, 2}, {2}, {1}, {1, 2}, true);
  const auto [gv, gi] = tl::max_pool2d_with_indices(gx, {3, 2}, {2}, {1}, {1, 2}, true);
  check_parity(gv, v, 0, 0, "max_pool2d");
  CHECK(gi.cpu().to_vector() == i.to_vector());
  check_parity(tl::avg_pool2d(gx, {3}, {2}, {1}, true, false), tl::avg_pool2d(x, {3}, {2}, {1}, true, false), 1e-6,
               1e-6, "avg_pool2d");
  check_parity(tl::adaptive_avg_pool2d(gx, {4, 5}), tl::adaptive_avg_pool2d(x, {4, 5}), 1e-5, 1e-6,
               "adaptive_avg_pool2d");
  const auto [av, ai] = tl::adaptive_max_pool2d_with_indices(x, {4, 5});
  const auto [gav, gai] = tl::adaptive_max_pool2d_with_indices(gx, {4, 5});
  check_parity(gav, av, 0, 0, "adaptive_max_pool2d");
  CHECK(gai.cpu().to_vector() == ai.to_vector());
  const auto ax = tl::Tensor<float>(tl::abs(x) + 0.1f);
  check_parity(tl::lp_pool2d(ax.cuda(), 2.0, {2}), tl::lp_pool2d(ax, 2.0, {2}), 1e-5, 1e-6, "lp_pool2d");
  check_parity(tl::max_unpool2d(gv, gi, {3, 2}, {2}, {1}, {7, 6}), tl::max_unpool2d(v, i, {3, 2}, {2}, {1}, {7, 6}), 0,
               0, "max_unpool2d");
  const auto x3 = tl::randn({1, 2, 5, 6, 5}, g);
  check_parity(tl::max_pool3d(x3.cuda(), {2, 3, 2}, {2, 1, 2}, {1, 1, 0}),
               tl::max_pool3d(x3, {2, 3, 2}, {2, 1, 2}, {1, 1, 0}), 0, 0, "max_pool3d");
  check_parity(tl::avg_pool1d(x.cuda().flatten(2), {4}, {3}, {2}, true),
               tl::avg_pool1d(x.flatten(2), {4}, {3}, {2}, true), 1e-6, 1e-6, "avg_pool1d");
}

TEST_CASE("CUDA: the composed activations match the CPU") {
  if (no_gpu()) return;
  const float inf = std::numeric_limits<float>::infinity();
  const auto x =
      tl::cat({tl::linspace<float>(-9.0f, 9.0f, 73), tl::tensor<float>({-100.0f, 100.0f, inf, -inf, -0.0f})});
  const auto gx = x.cuda();
  // CUDA's transcendental functions and ours differ by a few ulp.
  check_parity(tl::Tensor<float>(tl::relu6(gx)), tl::Tensor<float>(tl::relu6(x)), 0, 0, "relu6");
  check_parity(tl::Tensor<float>(tl::hardsigmoid(gx)), tl::Tensor<float>(tl::hardsigmoid(x)), 0, 0, "hardsigmoid");
  check_parity(tl::Tensor<float>(tl::hardswish(gx)), tl::Tensor<float>(tl::hardswish(x)), 0, 0, "hardswish");
  check_parity(tl::Tensor<float>(tl::softshrink(gx, 1.0)), tl::Tensor<float>(tl::softshrink(x, 1.0)), 0, 0,
               "softshrink");
  check_parity(tl::Tensor<float>(tl::softsign(gx)), tl::Tensor<float>(tl::softsign(x)), 1e-6, 1e-7, "softsign");
  check_parity(tl::Tensor<float>(tl::mish(gx)), tl::Tensor<float>(tl::mish(x)), 1e-5, 1e-6, "mish");
  check_parity(tl::Tensor<float>(tl::logsigmoid(gx)), tl::Tensor<float>(tl::logsigmoid(x)), 1e-5, 1e-6, "logsigmoid");
  check_parity(tl::Tensor<float>(tl::tanhshrink(gx)), tl::Tensor<float>(tl::tanhshrink(x)), 1e-5, 1e-6, "tanhshrink");
  check_parity(tl::Tensor<float>(tl::celu(gx, 0.5)), tl::Tensor<float>(tl::celu(x, 0.5)), 1e-5, 1e-6, "celu");
  check_parity(tl::Tensor<float>(tl::selu(gx)), tl::Tensor<float>(tl::selu(x)), 1e-5, 1e-6, "selu");
}

TEST_CASE("CUDA: nn::functional losses, normalizations and layers match the CPU") {
  if (no_gpu()) return;
  namespace F = tl::nn::functional;
  tl::Generator g(33);
  const auto x = tl::randn({6, 5}, g), y = tl::randn({6, 5}, g), w = tl::rand({5}, g);
  const auto t = tl::tensor<int64_t>({1, 0, 4, -100, 2, 2});
  const auto gx = x.cuda(), gy = y.cuda(), gw = w.cuda();
  const auto gt = t.cuda();
  check_parity(F::cross_entropy(gx, gt, gw, -100, "mean", 0.1), F::cross_entropy(x, t, w, -100, "mean", 0.1), 1e-5,
               1e-6, "cross_entropy");
  check_parity(F::mse_loss(gx, gy), F::mse_loss(x, y), 1e-5, 1e-6, "mse_loss");
  check_parity(F::binary_cross_entropy_with_logits(gx, tl::Tensor<float>(tl::sigmoid(gy))),
               F::binary_cross_entropy_with_logits(x, tl::Tensor<float>(tl::sigmoid(y))), 1e-5, 1e-6, "bce_logits");
  const auto b = tl::randn({4, 5, 3}, g);
  auto rm = tl::zeros({5}), rv = tl::ones({5});
  auto grm = rm.cuda(), grv = rv.cuda();
  check_parity(F::batch_norm(b.cuda(), grm, grv, gw, std::nullopt, true),
               F::batch_norm(b, rm, rv, w, std::nullopt, true), 1e-5, 1e-5, "batch_norm");
  check_parity(grm, rm, 1e-5, 1e-6, "running_mean");
  check_parity(grv, rv, 1e-5, 1e-6, "running_var");
  check_parity(F::layer_norm(b.cuda(), {5, 3}), F::layer_norm(b, {5, 3}), 1e-5, 1e-5, "layer_norm");
  check_parity(F::group_norm(b.cuda().transpose(1, 2).contiguous(), 3),
               F::group_norm(b.transpose(1, 2).contiguous(), 3), 1e-5, 1e-5, "group_norm");
  check_parity(F::embedding(gt.clamp(0, 4), gx.t().contiguous()), F::embedding(t.clamp(0, 4), x.t().contiguous()), 0, 0,
               "embedding");
  check_parity(F::pixel_shuffle(b.cuda().reshape({1, 4, 5, 3}), 2), F::pixel_shuffle(b.reshape({1, 4, 5, 3}), 2), 0, 0,
               "pixel_shuffle");
  // Dropout masks come from the same Philox stream on both devices.
  tl::Generator g1(5), g2(5);
  check_parity(F::dropout(gx, 0.3, true, g1), F::dropout(x, 0.3, true, g2), 0, 0, "dropout");
}

TEST_CASE("CUDA: interpolate matches the CPU in every mode") {
  if (no_gpu()) return;
  namespace F = tl::nn::functional;
  tl::Generator g(34);
  const auto x = tl::randn({2, 3, 5, 6}, g);
  const auto gx = x.cuda();
  for (const char* mode : {"nearest", "nearest-exact", "bilinear", "bicubic", "area"}) {
    const F::InterpolateOptions o{.size = tl::Shape{7, 4}, .mode = mode};
    check_parity(F::interpolate(gx, o), F::interpolate(x, o), 1e-5, 1e-6, mode);
  }
  const F::InterpolateOptions aligned{.scale_factor = {1.5}, .mode = "bilinear", .align_corners = true};
  check_parity(F::interpolate(gx, aligned), F::interpolate(x, aligned), 1e-5, 1e-6, "bilinear align_corners");
}

TEST_CASE("CUDA: embedding_bag, affine_grid and grid_sample match the CPU") {
  if (no_gpu()) return;
  namespace F = tl::nn::functional;
  tl::Generator g(35);
  const auto w = tl::randn({7, 3}, g);
  const auto ids = tl::tensor<int64_t>({1, 2, 4, 5, 4, 3, 2, 6});
  const auto offsets = tl::tensor<int64_t>({0, 2, 2, 5});
  for (const char* mode : {"sum", "mean", "max"})
    check_parity(F::embedding_bag(ids.cuda(), w.cuda(), offsets.cuda(), mode), F::embedding_bag(ids, w, offsets, mode),
                 1e-6, 1e-6, mode);
  const auto theta = tl::randn({2, 2, 3}, g);
  const auto grid = F::affine_grid(theta, {2, 3, 4, 5});
  check_parity(F::affine_grid(theta.cuda(), {2, 3, 4, 5}), grid, 1e-6, 1e-6, "affine_grid");
  const auto x = tl::randn({2, 3, 4, 5}, g);
  for (const char* padding : {"zeros", "border", "reflection"})
    check_parity(F::grid_sample(x.cuda(), grid.cuda(), "bilinear", padding),
                 F::grid_sample(x, grid, "bilinear", padding), 1e-5, 1e-6, padding);
}

TEST_CASE("CUDA: scaled_dot_product_attention, ctc_loss, margin losses and bicubic grid_sample match the CPU") {
  if (no_gpu()) return;
  namespace F = tl::nn::functional;
  tl::Generator g(36);
  const auto q = tl::randn({2, 4, 5}, g), k = tl::randn({2, 6, 5}, g), v = tl::randn({2, 6, 3}, g);
  check_parity(F::scaled_dot_product_attention(q.cuda(), k.cuda(), v.cuda(), 0.0, true),
               F::scaled_dot_product_attention(q, k, v, 0.0, true), 1e-5, 1e-6, "sdpa causal");
  const auto lp = tl::log_softmax(tl::randn({12, 3, 5}, g), 2);
  const auto targets = tl::tensor<int64_t>({{1, 2, 2, 3}, {4, 0, 0, 0}, {1, 1, 1, 1}});
  const auto in_lens = tl::tensor<int64_t>({12, 9, 7}), tg_lens = tl::tensor<int64_t>({4, 1, 0});
  check_parity(F::ctc_loss(lp.cuda(), targets.cuda(), in_lens, tg_lens, 0, "none"),
               F::ctc_loss(lp, targets, in_lens, tg_lens, 0, "none"), 1e-5, 1e-5, "ctc_loss");
  const auto x = tl::randn({5, 4}, g);
  const auto t = tl::tensor<int64_t>({1, 0, 3, 2, 2});
  check_parity(F::multi_margin_loss(x.cuda(), t.cuda()), F::multi_margin_loss(x, t), 1e-5, 1e-6, "multi_margin");
  const auto img = tl::randn({1, 2, 4, 5}, g), grid = tl::Tensor<float>(tl::randn({1, 3, 6, 2}, g) * 0.8f);
  check_parity(F::grid_sample(img.cuda(), grid.cuda(), "bicubic", "reflection"),
               F::grid_sample(img, grid, "bicubic", "reflection"), 1e-5, 1e-6, "grid_sample bicubic");
}
