// Operations on the GPU against the same operations on the CPU: copies,
// fused chains (one kernel each, by the counters), broadcast and strided
// operands, reductions of expressions, matrix products, factories, random
// numbers, gathers and scatters, sorts, scans and unique. Tolerances: exact
// where both sides compute the same operations in the same order;
// reductions and atomic float sums 1e-5 relative in float (different
// summation order); products 1e-5 (cuBLAS vs our GEMM); scans of long lines
// as stated in their test.

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include <tensorlib/tensorlib.hpp>

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
  check_parity(tl::quantile(m.cuda(), q.cuda(), 1), tl::quantile(m, q, 1), 0, 0, "quantile");
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

TEST_CASE("CUDA: reductions of expressions along every dimension match the CPU") {
  if (no_gpu()) return;
  tl::Generator g(3);
  const auto x = tl::randn({37, 129, 5}, g);
  const auto gx = x.cuda();
  const std::vector<tl::DimList> dim_sets = {{}, {0}, {1}, {2}, {0, 1}, {1, 2}, {0, 2}};
  for (const auto& dims : dim_sets) {
    for (bool keep : {false, true}) {
      const std::string what = "dims " + std::to_string(dims.dims().size()) + (keep ? " keepdim" : "");
      check_parity(tl::sum(gx * gx - 1.0f, dims, keep), tl::sum(x * x - 1.0f, dims, keep), 1e-5, 1e-5, "sum " + what);
      check_parity(tl::mean(gx, dims, keep), tl::mean(x, dims, keep), 1e-5, 1e-6, "mean " + what);
      check_parity(tl::amax(gx, dims, keep), tl::amax(x, dims, keep), 0, 0, "amax " + what);
      check_parity(tl::amin(tl::abs(gx), dims, keep), tl::amin(tl::abs(x), dims, keep), 0, 0, "amin " + what);
      check_parity(tl::any(gx > 2.0f, dims, keep), tl::any(x > 2.0f, dims, keep), 0, 0, "any " + what);
    }
  }
  check_parity(tl::count_nonzero(gx > 0.0f, {1}), tl::count_nonzero(x > 0.0f, {1}), 0, 0, "count_nonzero");
  check_parity(tl::prod(gx.narrow(1, 0, 4) * 0.5f + 1.0f, {1}), tl::prod(x.narrow(1, 0, 4) * 0.5f + 1.0f, {1}), 1e-5, 0,
               "prod");
  // Large reductions split the reduced range across blocks (Note [reduction layout]).
  const auto big = tl::randn({1 << 21}, g);
  check_parity(tl::sum(big.cuda()), tl::sum(big), 1e-5, 1e-3, "split full sum");
  const auto tall = tl::randn({4096, 64}, g);
  check_parity(tl::sum(tall.cuda(), {0}), tl::sum(tall, {0}), 1e-5, 1e-4, "split column sum");
  check_parity(tl::sum(tall.cuda().t(), {1}), tl::sum(tall.t(), {1}), 1e-5, 1e-4, "transposed row sum");
  // Vectorized kernels (Note [vectorized reductions]) and their fallbacks.
  const auto w = tl::randn({300, 132}, g), wrow = tl::randn({132}, g), wcol = tl::randn({300, 1}, g);
  const auto gw = w.cuda(), gwrow = wrow.cuda(), gwcol = wcol.cuda();
  check_parity(tl::sum(gw, {1}), tl::sum(w, {1}), 1e-5, 1e-5, "rows, vector loads");
  check_parity(tl::sum(gw * gwcol, {1}), tl::sum(w * wcol, {1}), 1e-5, 1e-5, "rows with a broadcast column");
  check_parity(tl::sum(gw.narrow(1, 0, 130), {1}), tl::sum(w.narrow(1, 0, 130), {1}), 1e-5, 1e-5, "rows with a tail");
  check_parity(tl::sum(gw.narrow(1, 1, 128), {1}), tl::sum(w.narrow(1, 1, 128), {1}), 1e-5, 1e-5, "rows unaligned");
  check_parity(tl::sum(gw, {0}), tl::sum(w, {0}), 1e-5, 1e-5, "columns, vector loads");
  check_parity(tl::sum(gw * gwrow, {0}), tl::sum(w * wrow, {0}), 1e-5, 1e-5, "columns with a broadcast row");
  check_parity(tl::sum(gw * gwcol, {0}), tl::sum(w * wcol, {0}), 1e-5, 1e-5, "columns with a broadcast column");
  check_parity(tl::sum(gw.narrow(1, 0, 130), {0}), tl::sum(w.narrow(1, 0, 130), {0}), 1e-5, 1e-5, "columns, odd");
  check_parity(tl::mean(gw.narrow(1, 4, 128), {0}), tl::mean(w.narrow(1, 4, 128), {0}), 1e-5, 1e-6, "mean columns");
  check_parity(tl::amax(gw, {0}), tl::amax(w, {0}), 0, 0, "amax columns");
  check_parity(tl::amin(gw, {1}), tl::amin(w, {1}), 0, 0, "amin rows");
  const auto long_rows = tl::randn({3, 1 << 18}, g);  // split rows: splits start at multiples of kVec
  check_parity(tl::sum(long_rows.cuda(), {1}), tl::sum(long_rows, {1}), 1e-5, 1e-3, "split rows");
  const auto w3 = tl::randn({5, 64, 8}, g);  // outer, reduced and inner dimensions
  check_parity(tl::sum(w3.cuda(), {1}), tl::sum(w3, {1}), 1e-5, 1e-5, "outer, reduced, inner");
  const auto w4 = tl::randn({6, 8, 10, 12}, g);  // groups of several dimensions
  check_parity(tl::sum(w4.cuda(), {1, 3}), tl::sum(w4, {1, 3}), 1e-5, 1e-5, "two reduced dims");
  // Two reduced dimensions that do not merge, with an inner run of a multiple
  // of kVec: the column kernel's scalar form (its vector form steps by one
  // reduced stride only).
  check_parity(tl::sum(w4.cuda(), {0, 2}), tl::sum(w4, {0, 2}), 1e-5, 1e-5, "two unmerged reduced dims");
  const auto w5 = tl::randn({4, 10, 16}, g);
  check_parity(tl::mean(w5.cuda().narrow(1, 0, 8), {0, 1}), tl::mean(w5.narrow(1, 0, 8), {0, 1}), 1e-5, 1e-6,
               "reduced dims of a view");
  check_parity(tl::sum(w4.cuda().permute({3, 1, 0, 2}), {0, 2}), tl::sum(w4.permute({3, 1, 0, 2}), {0, 2}), 1e-5, 1e-5,
               "permuted");
  // Empty reductions give the identity.
  check_parity(tl::sum(tl::zeros<float>({0, 3}, {.device = tl::kCUDA}), {0}), tl::zeros<float>({3}), 0, 0, "empty");
}

TEST_CASE("CUDA: softmax and log_softmax match the CPU") {
  if (no_gpu()) return;
  tl::Generator g(8);
  // Rows in registers (Note [softmax rows in registers]) with 1, 2, 4 and 8
  // packets a lane, full and partial (200 and 388 partial at 2 and 4), more
  // rows than one grid's warps (40000); the block kernel for longer, odd and
  // unaligned rows.
  for (const tl::Shape& shape :
       {tl::Shape{37, 1000}, tl::Shape{5, 3}, tl::Shape{2, 70000}, tl::Shape{4, 6, 33}, tl::Shape{9, 8},
        tl::Shape{3, 128}, tl::Shape{7, 256}, tl::Shape{6, 512}, tl::Shape{3, 1024}, tl::Shape{2, 1028},
        tl::Shape{1000, 64}, tl::Shape{5, 200}, tl::Shape{4, 388}, tl::Shape{40000, 4}}) {
    // Against the CPU in double: the host's float row kernel sums in float
    // (its error reaches 5e-6 over 1000 terms), the GPU in double.
    const tl::Tensor<float> x = tl::randn(shape, g) * 4.0f;
    const auto gx = x.cuda();
    const auto xd = x.to<double>();
    const std::string what = std::to_string(shape.numel());
    check_parity(tl::softmax(gx, -1), tl::softmax(xd, -1).to<float>(), 1e-6, 1e-7, "softmax rows " + what);
    check_parity(tl::log_softmax(gx, -1), tl::log_softmax(xd, -1).to<float>(), 1e-6, 1e-6, "log_softmax rows " + what);
    check_parity(tl::softmax(gx, 0), tl::softmax(xd, 0).to<float>(), 1e-6, 1e-7, "softmax dim 0 " + what);
    check_parity(tl::log_softmax(gx, 0), tl::log_softmax(xd, 0).to<float>(), 1e-6, 1e-6, "log_softmax dim 0 " + what);
  }
  // A transposed input is made contiguous first; doubles.
  const auto t = tl::randn({40, 30}, g);
  check_parity(tl::softmax(t.cuda().t(), -1), tl::softmax(t.t().to<double>(), -1).to<float>(), 1e-6, 1e-7,
               "softmax of a view");
  // Doubles: the block kernel (129, unaligned rows) and the register kernel
  // at 1, 2 (partial), 8 (partial) and 8 packets a lane.
  for (const tl::Shape& shape :
       {tl::Shape{9, 129}, tl::Shape{9, 128}, tl::Shape{5, 200}, tl::Shape{4, 1000}, tl::Shape{3, 1024}}) {
    const tl::Tensor<double> d = tl::randn<double>(shape, g) * 4.0;
    const std::string what = " double " + std::to_string(shape.numel());
    check_parity(tl::softmax(d.cuda(), -1), tl::softmax(d, -1), 1e-13, 1e-15, "softmax" + what);
    check_parity(tl::log_softmax(d.cuda(), -1), tl::log_softmax(d, -1), 1e-13, 1e-13, "log_softmax" + what);
  }
  // Special values: a large shift stays exact, NaN and -inf propagate as on
  // the CPU (check_close matches NaN with NaN and infinities exactly).
  const auto big = tl::tensor<float>({1e8f, 1e8f});
  check_parity(tl::log_softmax(big.cuda(), -1), tl::log_softmax(big, -1), 0, 0, "log_softmax large");
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  const auto special = tl::tensor<float>({1.0f, nan, 2.0f, -inf, 0.0f, 1.0f}).reshape({3, 2});
  check_parity(tl::softmax(special.cuda(), -1), tl::softmax(special, -1), 1e-6, 1e-7, "softmax special");
  // The same in rows of 8 (the register kernel): NaN, a row of -inf, +inf
  // (all NaN rows), then -inf elements in a finite row (softmax 0, log_softmax
  // -inf) and equal large values.
  const auto special8 =
      tl::tensor<float>({1.0f, nan,  2.0f, -inf, 0.0f,  1.0f,  3.0f,  -1.0f, -inf,  -inf,  -inf,  -inf, -inf, -inf,
                         -inf, -inf, inf,  0.0f, 1.0f,  2.0f,  3.0f,  4.0f,  5.0f,  6.0f,  -inf,  0.0f, 1.0f, 2.0f,
                         -inf, 3.0f, 4.0f, 5.0f, 1e30f, 1e30f, 1e30f, 1e30f, 1e30f, 1e30f, 1e30f, 1e30f})
          .reshape({5, 8});
  check_parity(tl::softmax(special8.cuda(), -1), tl::softmax(special8, -1), 1e-6, 1e-7, "softmax special rows");
  check_parity(tl::log_softmax(special8.cuda(), -1), tl::log_softmax(special8, -1), 1e-6, 1e-6,
               "log_softmax special rows");
  const auto y = tl::softmax(special8.cuda(), -1).cpu();
  CHECK(y.index({3, 0}).item() == 0.0f);  // a -inf element of a finite row: exactly 0
  CHECK(tl::log_softmax(special8.cuda(), -1).cpu().index({3, 4}).item() == -inf);
}

TEST_CASE("CUDA: cat and stack match the CPU") {
  if (no_gpu()) return;
  tl::Generator g(9);
  const auto a = tl::randn({4, 5, 6}, g), b = tl::randn({4, 3, 6}, g), c = tl::randn({4, 1, 6}, g);
  check_parity(tl::cat({a.cuda(), b.cuda(), c.cuda()}, 1), tl::cat({a, b, c}, 1), 0, 0, "cat contiguous");
  check_parity(tl::cat({a.cuda().transpose(0, 2), a.cuda().transpose(0, 2)}, 0),
               tl::cat({a.transpose(0, 2), a.transpose(0, 2)}, 0), 0, 0, "cat of views");
  check_parity(tl::stack({a.cuda(), tl::Tensor<float>(a.cuda() * 2.0f)}, 3),
               tl::stack({a, tl::Tensor<float>(a * 2.0f)}, 3), 0, 0, "stack");
  const auto i = tl::arange(0, 12);
  check_parity(tl::cat({i.cuda(), i.cuda().narrow(0, 3, 4)}), tl::cat({i, i.narrow(0, 3, 4)}), 0, 0, "cat int64");
}

TEST_CASE("CUDA: matrix products through cuBLAS match the CPU") {
  if (no_gpu()) return;
  tl::Generator g(4);
  const auto a = tl::randn({65, 33}, g), b = tl::randn({33, 47}, g);
  check_parity(tl::mm(a.cuda(), b.cuda()), tl::mm(a, b), 1e-5, 1e-5, "mm");
  check_parity(tl::mm(b.cuda().t(), a.cuda().t()), tl::mm(b.t(), a.t()), 1e-5, 1e-5, "mm of transposed views");
  const auto ad = tl::randn<double>({4, 20, 30}, g), bd = tl::randn<double>({4, 30, 10}, g);
  check_parity(tl::bmm(ad.cuda(), bd.cuda()), tl::bmm(ad, bd), 1e-12, 1e-12, "bmm double");
  const auto v = tl::randn({33}, g);
  check_parity(tl::matmul(a.cuda(), v.cuda()), tl::matmul(a, v), 1e-5, 1e-5, "matmul matrix-vector");
}

TEST_CASE("CUDA: factories and random numbers equal the CPU's for the same seed") {
  if (no_gpu()) return;
  check_parity(tl::full<float>({3, 4}, 2.5f, {.device = tl::kCUDA}), tl::full<float>({3, 4}, 2.5f));
  check_parity(tl::zeros<int64_t>({7}, {.device = tl::kCUDA}), tl::zeros<int64_t>({7}));
  check_parity(tl::arange(0, 10, 1, {.device = tl::kCUDA}), tl::arange(0, 10, 1));
  tl::Generator g1(42), g2(42);
  check_parity(tl::randn({1000}, g1, {.device = tl::kCUDA}), tl::randn({1000}, g2), 2.5e-7, 0, "randn");
  // The Philox kernel (backend/cuda/philox_fill.hpp): the same words as the
  // CPU, including a tail block that is partly used and a stream position
  // past 2^32 blocks. Uniforms and integers are exact; normals go through
  // CUDA's double log/cos/sin (1-2 ulp; glibc's differ by about as much),
  // a few double ulps apart: 1e-14 relative for double, and up to one float
  // ulp (1.19e-7 relative near a power of two) where that moves a rounding.
  for (const int64_t n : {int64_t{1}, int64_t{4099}, int64_t{1} << 20}) {
    CAPTURE(n);
    check_parity(tl::rand({n}, g1, {.device = tl::kCUDA}), tl::rand({n}, g2), 0, 0, "rand float");
    check_parity(tl::rand<double>({n}, g1, {.device = tl::kCUDA}), tl::rand<double>({n}, g2), 0, 0, "rand double");
    check_parity(tl::randn({n}, g1, {.device = tl::kCUDA}), tl::randn({n}, g2), 2.5e-7, 0, "randn float");
    check_parity(tl::randn<double>({n}, g1, {.device = tl::kCUDA}), tl::randn<double>({n}, g2), 1e-14, 0,
                 "randn double");
    check_parity(tl::randint(-5, 1000003, {n}, g1, {.device = tl::kCUDA}), tl::randint(-5, 1000003, {n}, g2), 0, 0,
                 "randint");
    check_parity(tl::randint<int32_t>(0, 7, {n}, g1, {.device = tl::kCUDA}), tl::randint<int32_t>(0, 7, {n}, g2), 0, 0,
                 "randint int32");
  }
  g1.set_state({5, (uint64_t{1} << 32) - 3});
  g2.set_state({5, (uint64_t{1} << 32) - 3});
  check_parity(tl::rand({64}, g1, {.device = tl::kCUDA}), tl::rand({64}, g2), 0, 0, "rand past 2^32 blocks");
  check_parity(tl::randperm(1000, g1, {.device = tl::kCUDA}), tl::randperm(1000, g2), 0, 0, "randperm");
  // bernoulli from a probability tensor and from a scalar, and its check.
  const auto p = tl::rand({3000}, g1);
  check_parity(tl::bernoulli(p.cuda(), g1), tl::bernoulli(p, g2), 0, 0, "bernoulli");
  check_parity(tl::bernoulli<float>({3000}, 0.25, g1, {.device = tl::kCUDA}), tl::bernoulli<float>({3000}, 0.25, g2), 0,
               0, "bernoulli scalar");
  CHECK_THROWS_WITH_AS(tl::bernoulli(tl::Tensor<float>(p.cuda() + 1.5f), g1),
                       doctest::Contains("all elements of p must be in [0, 1]"), tl::ValueError);
  CHECK(g1.get_state() == g2.get_state());
}

TEST_CASE("CUDA: gather, index_select and scatters match the CPU") {
  if (no_gpu()) return;
  tl::Generator g(9);
  const auto x = tl::randn({64, 33, 5}, g);
  const auto gx = x.cuda();
  // gather along each dimension, with an index smaller than x elsewhere and
  // a transposed (strided) input.
  for (int64_t dim = 0; dim < 3; ++dim) {
    CAPTURE(dim);
    const auto index = tl::randint(0, x.size(dim), {40, 20, 4}, g);
    check_parity(tl::gather(gx, dim, index.cuda()), tl::gather(x, dim, index), 0, 0, "gather");
    const auto vec = tl::randint(0, x.size(dim), {50}, g);
    check_parity(tl::index_select(gx, dim, vec.cuda()), tl::index_select(x, dim, vec), 0, 0, "index_select");
  }
  const auto xt = x.transpose(0, 2);
  const auto it = tl::randint(0, xt.size(1), {5, 7, 64}, g);
  check_parity(tl::gather(gx.transpose(0, 2), 1, it.cuda()), tl::gather(xt, 1, it), 0, 0, "gather of a view");
  const auto ints = tl::randint(-100, 100, {30, 30}, g);
  const auto ii = tl::randint(0, 30, {30, 10}, g);
  check_parity(tl::gather(ints.cuda(), 1, ii.cuda()), tl::gather(ints, 1, ii), 0, 0, "gather int64");

  // scatter with distinct indices per row (a permutation's prefix): exact.
  const auto perm = tl::stack({tl::randperm(33, g), tl::randperm(33, g), tl::randperm(33, g)}).narrow(1, 0, 20);
  const auto src = tl::randn({3, 20}, g);
  const auto base = tl::randn({3, 33}, g);
  check_parity(tl::scatter(base.cuda(), 1, perm.cuda(), src.cuda()), tl::scatter(base, 1, perm, src), 0, 0, "scatter");
  check_parity(tl::scatter(base.cuda(), 1, perm.cuda(), 2.5f), tl::scatter(base, 1, perm, 2.5f), 0, 0, "scatter value");
  // Repeated indices accumulate atomically: any order, so a tolerance for
  // float sums; int64 sums are exact.
  const auto rep = tl::randint(0, 5, {3, 200}, g);
  const auto many = tl::randn({3, 200}, g);
  check_parity(tl::scatter_add(base.cuda(), 1, rep.cuda(), many.cuda()), tl::scatter_add(base, 1, rep, many), 1e-5,
               1e-5, "scatter_add");
  const auto isrc = tl::randint(-1000, 1000, {3, 200}, g);
  const auto ibase = tl::randint(-1000, 1000, {3, 33}, g);
  check_parity(tl::scatter_add(ibase.cuda(), 1, rep.cuda(), isrc.cuda()), tl::scatter_add(ibase, 1, rep, isrc), 0, 0,
               "scatter_add int64");
  for (const bool include_self : {true, false}) {
    CAPTURE(include_self);
    check_parity(tl::scatter_reduce(base.cuda(), 1, rep.cuda(), many.cuda(), "mean", include_self),
                 tl::scatter_reduce(base, 1, rep, many, "mean", include_self), 1e-5, 1e-5, "scatter_reduce mean");
    check_parity(tl::scatter_reduce(base.cuda(), 1, rep.cuda(), many.cuda(), "sum", include_self),
                 tl::scatter_reduce(base, 1, rep, many, "sum", include_self), 1e-5, 1e-5, "scatter_reduce sum");
    // prod, amax and amin combine by compare-and-swap (Note [sub-word
    // atomics]): amax/amin in any order give the CPU's value; prod's order
    // moves its roundings only.
    for (const char* r : {"prod", "amax", "amin"}) {
      CAPTURE(r);
      check_parity(tl::scatter_reduce(base.cuda(), 1, rep.cuda(), many.cuda(), r, include_self),
                   tl::scatter_reduce(base, 1, rep, many, r, include_self), 1e-5, 1e-6, "scatter_reduce");
    }
    // Integers: exact, the mean floor-divided as on the CPU; small factors
    // keep the products far from overflow.
    const auto factors = tl::randint(-2, 3, {3, 200}, g);
    for (const char* r : {"sum", "prod", "mean", "amax", "amin"}) {
      CAPTURE(r);
      check_parity(tl::scatter_reduce(ibase.cuda(), 1, rep.cuda(), factors.cuda(), r, include_self),
                   tl::scatter_reduce(ibase, 1, rep, factors, r, include_self), 0, 0, "scatter_reduce int64");
    }
  }
  // One-byte elements update their 32-bit word by compare-and-swap (float16
  // and bfloat16 in half_test.cu); uint8 sums and products wrap as on the
  // CPU, bool sums are `or`, products `and`.
  const tl::Tensor<uint8_t> bytes = tl::randint(0, 256, {3, 33}, g).to<uint8_t>();
  const tl::Tensor<uint8_t> byte_src = tl::randint(0, 256, {3, 200}, g).to<uint8_t>();
  const tl::Tensor<bool> flags = tl::randint(0, 2, {3, 33}, g).to<bool>();
  const tl::Tensor<bool> flag_src = tl::randint(0, 2, {3, 200}, g).to<bool>();
  for (const char* r : {"sum", "prod", "amax", "amin"}) {
    CAPTURE(r);
    check_parity(tl::scatter_reduce(bytes.cuda(), 1, rep.cuda(), byte_src.cuda(), r),
                 tl::scatter_reduce(bytes, 1, rep, byte_src, r), 0, 0, "scatter_reduce uint8");
    check_parity(tl::scatter_reduce(flags.cuda(), 1, rep.cuda(), flag_src.cuda(), r),
                 tl::scatter_reduce(flags, 1, rep, flag_src, r), 0, 0, "scatter_reduce bool");
  }
  // Errors: an index out of range (found by the device check).
  const auto bad = tl::tensor({{0, 40}});
  CHECK_THROWS_WITH_AS(tl::gather(gx, 1, bad.cuda()),
                       "gather(): index 40 is out of bounds for dimension 1 with size 33", tl::IndexError);
  CHECK_THROWS_WITH_AS(tl::index_select(gx, 0, tl::tensor({-1}).cuda()),
                       "index_select(): index -1 is out of bounds for dimension 0 with size 64", tl::IndexError);
}

TEST_CASE("CUDA: index_add, index_copy, index_fill, take, put, nonzero, masks and advanced indexing match the CPU") {
  if (no_gpu()) return;
  tl::Generator g(17);
  const auto x = tl::randn({40, 33, 5}, g);
  const auto gx = x.cuda();
  for (int64_t dim = 0; dim < 3; ++dim) {
    CAPTURE(dim);
    // Distinct indices (exact, whatever the order) and repeated ones (atomic sums).
    const auto distinct = tl::randperm(x.size(dim), g).narrow(0, 0, std::min<int64_t>(4, x.size(dim)));
    const auto repeated = tl::randint(0, x.size(dim), {30}, g);
    tl::Shape src_shape = x.sizes();
    src_shape[dim] = distinct.numel();
    const auto src = tl::randn(src_shape, g);
    check_parity(tl::index_copy(gx, dim, distinct.cuda(), src.cuda()), tl::index_copy(x, dim, distinct, src), 0, 0,
                 "index_copy");
    src_shape[dim] = 30;
    const auto many = tl::randn(src_shape, g);
    check_parity(tl::index_add(gx, dim, repeated.cuda(), many.cuda(), 0.5f),
                 tl::index_add(x, dim, repeated, many, 0.5f), 1e-5, 1e-5, "index_add");
    const auto negative = tl::tensor({int64_t{-1}, int64_t{0}});
    check_parity(tl::index_fill(gx, dim, negative.cuda(), 7.f), tl::index_fill(x, dim, negative, 7.f), 0, 0,
                 "index_fill");
  }
  const auto ix = tl::randint(0, 5, {20, 33}, g);
  const auto iidx = tl::randint(0, 20, {50}, g);
  check_parity(tl::index_add(ix.cuda(), 0, iidx.cuda(), tl::ones<int64_t>({50, 33}).cuda()),
               tl::index_add(ix, 0, iidx, tl::ones<int64_t>({50, 33})), 0, 0, "index_add int64");
  // take and put on a transposed tensor, negative positions included.
  const auto flat = tl::randint(-6600, 6600, {7, 9}, g);
  check_parity(tl::take(gx.transpose(0, 2), flat.cuda()), tl::take(x.transpose(0, 2), flat), 0, 0, "take");
  const auto positions = tl::randperm(6600, g).narrow(0, 0, 100);
  const auto values = tl::randn({100}, g);
  check_parity(tl::put(gx.transpose(0, 2), positions.cuda(), values.cuda()),
               tl::put(x.transpose(0, 2), positions, values), 0, 0, "put");
  const auto rep = tl::randint(-50, 50, {400}, g);
  const auto many = tl::randn({400}, g);
  check_parity(tl::put(gx, rep.cuda(), many.cuda(), true), tl::put(x, rep, many, true), 1e-5, 1e-5, "put accumulate");
  // Compaction (Note [compaction on a GPU]): nonzero, masked_select, masked_scatter.
  const auto sparse = tl::Tensor<float>(tl::where(x > 1.f, x, 0.f));
  check_parity(tl::nonzero(sparse.cuda()), tl::nonzero(sparse), 0, 0, "nonzero");
  check_parity(tl::nonzero(tl::zeros<float>({3, 4}).cuda()), tl::nonzero(tl::zeros<float>({3, 4})), 0, 0,
               "nonzero of zeros");
  const tl::Tensor<bool> mask = x.narrow(2, 0, 1) > 0.f;  // [40, 33, 1], broadcast along the last dim
  check_parity(tl::masked_select(gx, mask.cuda()), tl::masked_select(x, mask), 0, 0, "masked_select");
  const auto source = tl::randn({40 * 33 * 5}, g);
  check_parity(tl::masked_scatter(gx, mask.cuda(), source.cuda()), tl::masked_scatter(x, mask, source), 0, 0,
               "masked_scatter");
  // Advanced indexing: index tensors, a mask, and puts with and without accumulation.
  const auto rows = tl::randint(-40, 40, {6, 1}, g), cols = tl::randint(0, 33, {1, 4}, g);
  check_parity(gx.index({rows.cuda(), cols.cuda()}), x.index({rows, cols}), 0, 0, "index with two tensors");
  check_parity(gx.index({tl::Slice(), cols.cuda().reshape({4}), tl::Slice(1, 3)}),
               x.index({tl::Slice(), cols.reshape({4}), tl::Slice(1, 3)}), 0, 0, "index with slices");
  const tl::Tensor<bool> row_mask = x.select(2, 0).select(1, 0) > 0.f;
  check_parity(gx.index({row_mask.cuda()}), x.index({row_mask}), 0, 0, "index with a mask");
  auto put_into = x.clone();
  auto gput_into = gx.clone();
  const auto v = tl::randn({4}, g);
  put_into.index_put_({tl::tensor({0, 3, 5, 7}), tl::tensor({1, 1, 2, 2})}, v);
  gput_into.index_put_({tl::tensor({0, 3, 5, 7}).cuda(), tl::tensor({1, 1, 2, 2}).cuda()}, v.cuda());
  check_parity(gput_into, put_into, 0, 0, "index_put_");
  const std::vector<std::optional<tl::Tensor<int64_t>>> list{tl::tensor({0, 0, 1, 0})};
  const std::vector<std::optional<tl::Tensor<int64_t>>> glist{tl::tensor({0, 0, 1, 0}).cuda()};
  const auto ones = tl::ones<float>({4, 33, 5});
  check_parity(tl::index_put(gx, glist, ones.cuda(), true), tl::index_put(x, list, ones, true), 1e-6, 1e-6,
               "index_put accumulate");
  // Accumulation into one-byte elements (compare-and-swap on their word):
  // bool as `or`, uint8 exact (wrapping).
  const tl::Tensor<bool> flags = tl::zeros<bool>({4}, {.device = tl::kCUDA});
  const auto at = tl::tensor({0, 2, 2, 3, 0});
  const auto set = tl::tensor<bool>({false, true, false, true, false});
  check_parity(tl::put(flags, at.cuda(), set.cuda(), true), tl::put(flags.cpu(), at, set, true), 0, 0,
               "put accumulate bool");
  const auto slots = tl::randint(0, 6, {50}, g);
  const tl::Tensor<uint8_t> bytes = tl::randint(0, 256, {6, 3}, g).to<uint8_t>();
  const tl::Tensor<uint8_t> byte_src = tl::randint(0, 256, {50, 3}, g).to<uint8_t>();
  check_parity(tl::index_add(bytes.cuda(), 0, slots.cuda(), byte_src.cuda(), uint8_t{3}),
               tl::index_add(bytes, 0, slots, byte_src, uint8_t{3}), 0, 0, "index_add uint8");
  const std::vector<std::optional<tl::Tensor<int64_t>>> byte_rows{slots}, gbyte_rows{slots.cuda()};
  check_parity(tl::index_put(bytes.cuda(), gbyte_rows, byte_src.cuda(), true),
               tl::index_put(bytes, byte_rows, byte_src, true), 0, 0, "index_put accumulate uint8");
  // Errors: out-of-range positions found by the device check.
  CHECK_THROWS_WITH_AS(tl::take(gx, tl::tensor({6600}).cuda()),
                       "take(): out of range: tried to access index 6600 on a tensor of 6600 elements.",
                       tl::IndexError);
  CHECK_THROWS_WITH_AS(tl::index_fill(gx, 0, tl::tensor({-41}).cuda(), 0.f),
                       "index_fill_(): index -41 is out of bounds for dimension 0 with size 40", tl::IndexError);
  // An empty loop reads no index, so none is checked (as on the CPU).
  CHECK_NOTHROW(tl::zeros<float>({3, 0}, {.device = tl::kCUDA}).index_fill_(0, tl::tensor({5}).cuda(), 1.f));
}

TEST_CASE("CUDA: sort, argsort, msort and topk match the CPU's stable sort") {
  if (no_gpu()) return;
  tl::Generator g(10);
  // Many ties (halves of small integers), NaNs, infinities and both zeros;
  // the GPU's radix sort is stable, so it matches the CPU's stable=true
  // exactly, indices included (Note [GPU row sort]).
  tl::Tensor<float> x = tl::randint(-4, 5, {40, 300, 3}, g).to<float>() * 0.5f;
  x.narrow(1, 7, 2).fill_(std::numeric_limits<float>::quiet_NaN());
  x.narrow(1, 11, 1).fill_(-std::numeric_limits<float>::quiet_NaN());
  x.narrow(1, 20, 3).fill_(-0.0f);
  x.narrow(1, 30, 1).fill_(std::numeric_limits<float>::infinity());
  x.narrow(1, 31, 1).fill_(-std::numeric_limits<float>::infinity());
  const auto gx = x.cuda();
  for (int64_t dim = 0; dim < 3; ++dim) {
    for (const bool descending : {false, true}) {
      CAPTURE(dim);
      CAPTURE(descending);
      const auto [gv, gi] = tl::sort(gx, dim, descending, true);
      const auto [v, i] = tl::sort(x, dim, descending, true);
      check_parity(gv, v, 0, 0, "sort values");
      check_parity(gi, i, 0, 0, "sort indices");
      // The sign of zero survives (values are read back through the indices).
      const auto gvals = gv.cpu().to_vector(), vals = v.to_vector();
      bool same_signs = true;
      for (std::size_t k = 0; k < vals.size(); ++k)
        same_signs = same_signs && std::signbit(gvals[k]) == std::signbit(vals[k]);
      CHECK(same_signs);
      check_parity(tl::argsort(gx, dim, descending, true), tl::argsort(x, dim, descending, true), 0, 0, "argsort");
    }
  }
  check_parity(tl::msort(gx), tl::sort(x, 0, false, true).values, 0, 0, "msort");
  // One long row (one radix sort), many short rows, double and integers.
  const auto row = tl::randn({100000}, g);
  // randn has ties among 100000 floats: stable on both sides.
  check_parity(tl::sort(row.cuda(), 0, false, true).values, tl::sort(row, 0, false, true).values, 0, 0, "one row");
  check_parity(tl::sort(row.cuda(), 0, false, true).indices, tl::sort(row, 0, false, true).indices, 0, 0,
               "one row indices");
  const auto shortrows = tl::randint(0, 3, {20000, 5}, g);
  check_parity(tl::sort(shortrows.cuda(), 1, false, true).indices, tl::sort(shortrows, 1, false, true).indices, 0, 0,
               "short rows");
  const auto d = tl::randn({33, 65}, g).to<double>();
  check_parity(tl::sort(d.cuda(), 0, true).values, tl::sort(d, 0, true).values, 0, 0, "double");
  const tl::Tensor<int32_t> i32 = tl::randint(-50, 50, {100, 257}, g).to<int32_t>();
  check_parity(tl::sort(i32.cuda(), 1, true, true).indices, tl::sort(i32, 1, true, true).indices, 0, 0, "int32");
  const tl::Tensor<uint8_t> u8 = tl::randint(0, 256, {70, 90}, g).to<uint8_t>();
  check_parity(tl::sort(u8.cuda(), 0, false, true).indices, tl::sort(u8, 0, false, true).indices, 0, 0, "uint8");
  const tl::Tensor<bool> b = tl::randint(0, 2, {9, 100}, g).to<bool>();
  check_parity(tl::argsort(b.cuda(), 1, false, true), tl::argsort(b, 1, false, true), 0, 0, "bool");
  CHECK(tl::sort(tl::Tensor<float>(tl::empty<float>({0, 4}).cuda())).values.numel() == 0);

  // topk: distinct values (ties may resolve differently), both directions.
  const auto y = tl::randn({50, 80, 6}, g);
  for (int64_t dim = 0; dim < 3; ++dim) {
    for (const bool largest : {true, false}) {
      CAPTURE(dim);
      CAPTURE(largest);
      const auto [gv, gi] = tl::topk(y.cuda(), 4, dim, largest);
      const auto [v, i] = tl::topk(y, 4, dim, largest);
      check_parity(gv, v, 0, 0, "topk values");
      check_parity(gi, i, 0, 0, "topk indices");
    }
  }
  const auto s = tl::scalar_tensor(3.0f);
  CHECK(tl::topk(s.cuda(), 1).values.cpu().item() == 3.0f);
  CHECK_THROWS_AS(tl::topk(y.cuda(), 7, 2), tl::IndexError);
}

TEST_CASE("CUDA: max, min, argmax and argmin along a dimension, and the order statistics, match the CPU") {
  if (no_gpu()) return;
  tl::Generator g(16);
  // Ties, NaNs, infinities and both zeros, as in the sort test. max/min run
  // as reductions (Note [selections from reductions]): first occurrence, first
  // NaN, the input's own element, exactly as the CPU.
  tl::Tensor<float> x = tl::randint(-4, 5, {30, 101, 3}, g).to<float>() * 0.5f;
  x.narrow(1, 7, 2).narrow(0, 0, 10).fill_(std::numeric_limits<float>::quiet_NaN());
  x.narrow(1, 20, 3).fill_(-0.0f);
  x.narrow(1, 30, 1).fill_(std::numeric_limits<float>::infinity());
  const auto gx = x.cuda();
  for (int64_t dim = 0; dim < 3; ++dim) {
    for (const bool keepdim : {false, true}) {
      CAPTURE(dim);
      CAPTURE(keepdim);
      for (const bool largest : {true, false}) {
        const auto [gv, gi] = largest ? tl::max(gx, dim, keepdim) : tl::min(gx, dim, keepdim);
        const auto [v, i] = largest ? tl::max(x, dim, keepdim) : tl::min(x, dim, keepdim);
        check_parity(gv, v, 0, 0, largest ? "max values" : "min values");
        check_parity(gi, i, 0, 0, largest ? "max indices" : "min indices");
      }
      check_parity(tl::argmax(gx, dim, keepdim), tl::argmax(x, dim, keepdim), 0, 0, "argmax");
      check_parity(tl::argmin(gx * 2.f, dim, keepdim), tl::argmin(x * 2.f, dim, keepdim), 0, 0,
                   "argmin of an expression");
    }
  }
  const tl::Tensor<int32_t> i32 = tl::randint(-3, 3, {64, 77}, g).to<int32_t>();
  check_parity(tl::argmax(i32.cuda(), 1), tl::argmax(i32, 1), 0, 0, "argmax int32");
  const auto logits = tl::randn({256, 10}, g);
  check_parity(tl::argmax(logits.cuda(), -1), tl::argmax(logits, -1), 0, 0, "argmax of logits");

  // Order statistics from a stable sort (Note [order statistics from a
  // sort]): median and nanmedian exactly; kthvalue and mode values exactly
  // on values without signed zeros, their indices where the value is.
  tl::Tensor<float> y = tl::randint(-4, 5, {20, 51, 3}, g).to<float>() * 0.5f;
  y.narrow(1, 7, 2).narrow(0, 0, 5).fill_(std::numeric_limits<float>::quiet_NaN());
  const auto gy = y.cuda();
  for (int64_t dim = 0; dim < 3; ++dim) {
    for (const bool keepdim : {false, true}) {
      CAPTURE(dim);
      CAPTURE(keepdim);
      for (const bool ignore_nan : {false, true}) {
        const auto [gmv, gmi] = ignore_nan ? tl::nanmedian(gy, dim, keepdim) : tl::median(gy, dim, keepdim);
        const auto [mv, mi] = ignore_nan ? tl::nanmedian(y, dim, keepdim) : tl::median(y, dim, keepdim);
        check_parity(gmv, mv, 0, 0, ignore_nan ? "nanmedian values" : "median values");
        check_parity(gmi, mi, 0, 0, ignore_nan ? "nanmedian indices" : "median indices");
      }
      const int64_t k = std::min<int64_t>(3, y.size(dim));
      const auto [gkv, gki] = tl::kthvalue(gy, k, dim, keepdim);
      check_parity(gkv, tl::kthvalue(y, k, dim, keepdim).values, 0, 0, "kthvalue values");
      const auto gkv_at = tl::gather(gy, dim, keepdim ? gki : gki.unsqueeze(dim));
      check_parity(keepdim ? gkv_at : gkv_at.squeeze(dim), tl::kthvalue(y, k, dim, keepdim).values, 0, 0,
                   "kthvalue indices hold the values");
      const auto [gov, goi] = tl::mode(gy, dim, keepdim);
      check_parity(gov, tl::mode(y, dim, keepdim).values, 0, 0, "mode values");
      const auto gov_at = tl::gather(gy, dim, keepdim ? goi : goi.unsqueeze(dim));
      check_parity(keepdim ? gov_at : gov_at.squeeze(dim), tl::mode(y, dim, keepdim).values, 0, 0,
                   "mode indices hold the values");
    }
  }
  check_parity(tl::median(gy), tl::median(y), 0, 0, "median of all");
  check_parity(tl::nanmedian(gy), tl::nanmedian(y), 0, 0, "nanmedian of all");
  const auto e = tl::empty<float>({0}, {.device = tl::kCUDA});
  CHECK(std::isnan(tl::median(e).cpu().item()));
  CHECK_THROWS_AS(tl::kthvalue(gy, 52, 1), tl::IndexError);
}

TEST_CASE("CUDA: cumsum, cumprod, cummax and cummin match the CPU") {
  if (no_gpu()) return;
  tl::Generator g(11);
  // Lines shorter than 128 run as one piece each: the CPU's loop, exactly.
  // Longer lines are cut into pieces (Note [GPU scans]): sums and products
  // then round differently (float accumulates in double on both sides), the
  // running extrema do not.
  const auto x = tl::randn({300, 40, 70}, g);
  const tl::Tensor<float> near_one = 1.0f + 0.01f * x;
  for (int64_t dim = 0; dim < 3; ++dim) {
    CAPTURE(dim);
    const double tol = dim == 0 ? 1e-6 : 0.0;
    check_parity(tl::cumsum(x.cuda(), dim), tl::cumsum(x, dim), tol, tol, "cumsum");
    check_parity(tl::cumprod(near_one.cuda(), dim), tl::cumprod(near_one, dim), tol, tol, "cumprod");
    const auto [gv, gi] = tl::cummax(x.cuda(), dim);
    const auto [v, i] = tl::cummax(x, dim);
    check_parity(gv, v, 0, 0, "cummax values");
    check_parity(gi, i, 0, 0, "cummax indices");
  }
  // Ties and NaNs move the index forward, over pieces too.
  tl::Tensor<float> ties = tl::randint(0, 4, {6, 5000}, g).to<float>();
  ties.narrow(1, 1000, 1).fill_(std::numeric_limits<float>::quiet_NaN());
  ties.narrow(1, 3000, 2).fill_(std::numeric_limits<float>::quiet_NaN());
  for (const int64_t dim : {0, 1}) {
    CAPTURE(dim);
    const auto [gv, gi] = tl::cummin(ties.cuda(), dim);
    const auto [v, i] = tl::cummin(ties, dim);
    check_parity(gv, v, 0, 0, "cummin values");
    check_parity(gi, i, 0, 0, "cummin indices");
    check_parity(tl::cummax(ties.cuda(), dim).indices, tl::cummax(ties, dim).indices, 0, 0, "cummax indices");
  }
  // One long line (thousands of pieces); integers and bool exactly.
  const auto line = tl::randn({1000000}, g);
  check_parity(tl::cumsum(line.cuda(), 0), tl::cumsum(line, 0), 1e-5, 1e-4, "one long line");
  check_parity(tl::cummax(line.cuda(), 0).indices, tl::cummax(line, 0).indices, 0, 0, "cummax of one long line");
  const auto ints = tl::randint(-100, 100, {5000, 3}, g);
  check_parity(tl::cumsum(ints.cuda(), 0), tl::cumsum(ints, 0), 0, 0, "int64 cumsum");
  const tl::Tensor<bool> flags = tl::randint(0, 2, {4, 3000}, g).to<bool>();
  check_parity(tl::cumsum(flags.cuda(), 1), tl::cumsum(flags, 1), 0, 0, "bool cumsum");
  const auto d = tl::randn({2, 20000}, g).to<double>();
  check_parity(tl::cumsum(d.cuda(), 1), tl::cumsum(d, 1), 1e-12, 1e-10, "double cumsum");
  CHECK(tl::cumsum(tl::scalar_tensor(2.5f).cuda(), 0).cpu().item() == 2.5f);
  CHECK(tl::cumsum(tl::Tensor<float>(tl::empty<float>({0, 3}).cuda()), 1).numel() == 0);
}

TEST_CASE("CUDA: unique and unique_consecutive of slices (dim) match the CPU") {
  if (no_gpu()) return;
  tl::Generator g(18);
  // Few distinct rows (values 0..2 in 3 columns), repeated, with two NaN
  // rows that differ before the NaN (rows that tie everywhere but at NaNs
  // are distinct groups in an order the CPU's unstable std::sort leaves open).
  tl::Tensor<float> x = tl::randint(0, 3, {60, 3}, g).to<float>();
  x.narrow(0, 10, 2).narrow(1, 1, 1).fill_(std::numeric_limits<float>::quiet_NaN());
  x.narrow(0, 10, 1).narrow(1, 0, 1).fill_(0.f);
  x.narrow(0, 11, 1).narrow(1, 0, 1).fill_(2.f);
  for (const int64_t dim : {int64_t{0}, int64_t{1}}) {
    for (const bool consecutive : {false, true}) {
      CAPTURE(dim);
      CAPTURE(consecutive);
      const auto gx = dim == 0 ? x.cuda() : x.t().contiguous().cuda();
      const auto cx = dim == 0 ? x : x.t().contiguous();
      const auto [go, gi, gc] =
          consecutive ? tl::unique_consecutive(gx, true, true, dim) : tl::unique(gx, true, true, true, dim);
      const auto [o, i, c] =
          consecutive ? tl::unique_consecutive(cx, true, true, dim) : tl::unique(cx, true, true, true, dim);
      check_parity(go, o, 0, 0, "unique slices");
      check_parity(gi, i, 0, 0, "unique slices inverse");
      check_parity(gc, c, 0, 0, "unique slices counts");
    }
  }
  const auto ints = tl::randint(0, 2, {500, 4, 2}, g);
  check_parity(tl::unique(ints.cuda(), true, false, false, 0).output, tl::unique(ints, true, false, false, 0).output, 0,
               0, "int64 slices of a 3-d tensor");
}

TEST_CASE("CUDA: unique and unique_consecutive (flattened) match the CPU") {
  if (no_gpu()) return;
  tl::Generator g(12);
  tl::Tensor<float> x = tl::randint(-5, 6, {30, 40}, g).to<float>() * 0.5f;
  x.narrow(1, 3, 1).fill_(std::numeric_limits<float>::quiet_NaN());
  x.narrow(1, 5, 2).fill_(-0.0f);
  for (const bool consecutive : {false, true}) {
    CAPTURE(consecutive);
    const auto [go, gi, gc] =
        consecutive ? tl::unique_consecutive(x.cuda(), true, true) : tl::unique(x.cuda(), true, true, true);
    const auto [o, i, c] = consecutive ? tl::unique_consecutive(x, true, true) : tl::unique(x, true, true, true);
    check_parity(go, o, 0, 0, "unique values");
    check_parity(gi, i, 0, 0, "unique inverse");
    check_parity(gc, c, 0, 0, "unique counts");
    // The first occurrence of -0.0 and 0.0 is the one kept, on both.
    const auto gvals = go.cpu().to_vector(), vals = o.to_vector();
    bool same_signs = gvals.size() == vals.size();
    for (std::size_t k = 0; same_signs && k < vals.size(); ++k)
      same_signs = std::signbit(gvals[k]) == std::signbit(vals[k]);
    CHECK(same_signs);
  }
  const auto ints = tl::randint(0, 1000, {100000}, g);
  const auto [gio, gii, gic] = tl::unique(ints.cuda(), true, true, true);
  const auto [io, ii, ic] = tl::unique(ints, true, true, true);
  check_parity(gio, io, 0, 0, "int64 unique");
  check_parity(gii, ii, 0, 0, "int64 inverse");
  check_parity(gic, ic, 0, 0, "int64 counts");
  const tl::Tensor<bool> flags = tl::randint(0, 2, {7, 9}, g).to<bool>();
  check_parity(tl::unique(flags.cuda()).output, tl::unique(flags).output, 0, 0, "bool unique");
  CHECK(tl::unique(tl::Tensor<float>(tl::empty<float>({0}).cuda())).output.numel() == 0);
  CHECK(tl::unique(tl::scalar_tensor(4.0f).cuda(), true, true).inverse_indices.dim() == 0);
}

TEST_CASE(
    "CUDA: norms, cdist, tril/triu/trace, bincount/histc, searchsorted/bucketize, repeat_interleave and combinations "
    "match the CPU") {
  if (no_gpu()) return;
  tl::Generator g(21);
  constexpr double kInf = std::numeric_limits<double>::infinity();
  // Norms are fused reductions on the GPU, accumulating in float (the CPU
  // accumulates in double): 1e-5 relative.
  const auto x = tl::randn({33, 17, 5}, g);
  const auto gx = x.cuda();
  for (const double ord : {2.0, 1.0, 0.0, 3.0, 0.5, kInf, -kInf}) {
    CAPTURE(ord);
    check_parity(tl::linalg::vector_norm(gx, ord), tl::linalg::vector_norm(x, ord), 1e-5, 1e-6, "vector_norm");
    check_parity(tl::linalg::vector_norm(gx, ord, {0, 2}, true), tl::linalg::vector_norm(x, ord, {0, 2}, true), 1e-5,
                 1e-6, "vector_norm over dims");
  }
  check_parity(tl::linalg::matrix_norm(gx.narrow(2, 0, 3), "fro", {0, 1}),
               tl::linalg::matrix_norm(x.narrow(2, 0, 3), "fro", {0, 1}), 1e-5, 1e-6, "matrix_norm fro");
  for (const double ord : {1.0, -1.0, kInf, -kInf}) {
    CAPTURE(ord);
    check_parity(tl::linalg::matrix_norm(gx, ord, {1, 2}), tl::linalg::matrix_norm(x, ord, {1, 2}), 1e-5, 1e-6,
                 "matrix_norm");
  }
  // The spectral norms: svdvals through the host (Note [decompositions of
  // CUDA tensors]), then a reduction on the GPU.
  check_parity(tl::linalg::matrix_norm(gx, "nuc", {1, 2}), tl::linalg::matrix_norm(x, "nuc", {1, 2}), 1e-5, 1e-6,
               "matrix_norm nuc");
  for (const double ord : {2.0, -2.0}) {
    CAPTURE(ord);
    check_parity(tl::linalg::matrix_norm(gx, ord, {0, 2}, true), tl::linalg::matrix_norm(x, ord, {0, 2}, true), 1e-5,
                 1e-6, "matrix_norm spectral");
  }
  CHECK_THROWS_WITH_AS(tl::linalg::matrix_norm(tl::zeros<float>({0, 3}).cuda(), kInf),
                       "linalg.matrix_norm: Expected reduction dim 0 to have non-zero size.", tl::IndexError);
  const auto pts = tl::randn({2, 20, 6}, g), others = tl::randn({25, 6}, g);
  for (const double p : {2.0, 1.0, kInf}) {
    CAPTURE(p);
    check_parity(tl::cdist(pts.cuda(), others.cuda(), p), tl::cdist(pts, others, p), 1e-5, 1e-5, "cdist");
  }
  // Triangles: one masked kernel, exact; trace: a sum of the diagonal.
  const auto sq = tl::randn({3, 9, 7}, g);
  for (const int64_t k : {int64_t{0}, int64_t{2}, int64_t{-3}, INT64_MAX, INT64_MIN}) {
    CAPTURE(k);
    check_parity(tl::tril(sq.cuda(), k), tl::tril(sq, k), 0, 0, "tril");
    check_parity(tl::triu(sq.cuda().transpose(1, 2), k), tl::triu(sq.transpose(1, 2), k), 0, 0, "triu");
  }
  check_parity(tl::trace(sq.select(0, 1).cuda()), tl::trace(sq.select(0, 1)), 1e-5, 1e-6, "trace");
  const auto isq = tl::randint(0, 256, {9, 9}, g).to<uint8_t>();
  check_parity(tl::trace(isq.cuda()), tl::trace(isq), 0, 0, "trace uint8 (int64 sum)");
  // Histograms: integer counts (exact in any order) and float weights.
  const auto counts = tl::randint(0, 50, {5000}, g);
  check_parity(tl::bincount(counts.cuda()), tl::bincount(counts), 0, 0, "bincount");
  check_parity(tl::bincount(counts.cuda(), 80), tl::bincount(counts, 80), 0, 0, "bincount minlength");
  const auto w = tl::rand({5000}, g);
  check_parity(tl::bincount(counts.cuda(), w.cuda()), tl::bincount(counts, w), 1e-5, 1e-5, "bincount weights");
  const auto spread = tl::randn({3000}, g);
  check_parity(tl::histc(spread.cuda(), 40), tl::histc(spread, 40), 0, 0, "histc");
  check_parity(tl::histc(spread.cuda(), 7, -1, 1), tl::histc(spread, 7, -1, 1), 0, 0, "histc range");
  CHECK_THROWS_WITH_AS(tl::bincount(tl::tensor({1, -1}).cuda()), doctest::Contains("with negative values"),
                       tl::ValueError);
  // Searches: one binary search per value, identical.
  const auto bounds = tl::sort(tl::randn({4, 30}, g), 1).values;
  const auto values = tl::randn({4, 11}, g);
  for (const bool right : {false, true}) {
    CAPTURE(right);
    check_parity(tl::searchsorted(bounds.cuda(), values.cuda(), right), tl::searchsorted(bounds, values, right), 0, 0,
                 "searchsorted rows");
    check_parity(tl::bucketize(values.cuda(), bounds.select(0, 2).cuda(), right),
                 tl::bucketize(values, bounds.select(0, 2), right), 0, 0, "bucketize");
  }
  const auto unsorted = tl::randn({30}, g);
  const auto order = tl::sort(unsorted).indices;
  check_parity(tl::searchsorted(unsorted.cuda(), values.cuda(), false, std::nullopt, order.cuda()),
               tl::searchsorted(unsorted, values, false, std::nullopt, order), 0, 0, "searchsorted with sorter");
  check_parity(tl::searchsorted<int32_t>(bounds.select(0, 0).cuda(), 0.25f),
               tl::searchsorted<int32_t>(bounds.select(0, 0), 0.25f), 0, 0, "searchsorted scalar int32");
  // Rearrangements gathered by index_select's kernel.
  const auto reps = tl::tensor({2, 0, 3, 1});
  check_parity(tl::repeat_interleave(sq.select(0, 0).narrow(0, 0, 4).cuda(), reps.cuda(), 0),
               tl::repeat_interleave(sq.select(0, 0).narrow(0, 0, 4), reps, 0), 0, 0, "repeat_interleave");
  check_parity(tl::repeat_interleave(reps.cuda()), tl::repeat_interleave(reps), 0, 0, "repeat_interleave(repeats)");
  check_parity(tl::combinations(values.select(0, 0).cuda(), 3), tl::combinations(values.select(0, 0), 3), 0, 0,
               "combinations");
  check_parity(tl::combinations(values.select(0, 0).cuda(), 2, true), tl::combinations(values.select(0, 0), 2, true), 0,
               0, "combinations with replacement");
  CHECK_THROWS_WITH_AS(tl::searchsorted(unsorted.cuda(), values.cuda(), false, std::nullopt,
                                        tl::Tensor<int64_t>(order + int64_t{1}).cuda()),
                       doctest::Contains("sorter index 30 is out of range"), tl::IndexError);
}

TEST_CASE("CUDA: FFTs through cuFFT match the CPU's transforms") {
  if (no_gpu()) return;
  // Note [cuFFT transforms]: other algorithms, so rounding differs; values
  // are O(sqrt(n)), hence an absolute tolerance beside the relative one.
  namespace F = tl::fft;
  tl::Generator g(22);
  const auto pairs = tl::randn({6, 40, 9, 2}, g);
  const tl::ComplexTensor<float> z(pairs), gz(pairs.cuda());
  const auto close = [](const auto& gpu, const auto& cpu, const std::string& what) {
    check_parity(gpu, cpu, 1e-4, 1e-4, what);
  };
  for (const char* norm : {"backward", "forward", "ortho"}) {
    CAPTURE(norm);
    close(F::fft(gz, std::nullopt, 1, norm).pairs(), F::fft(z, std::nullopt, 1, norm).pairs(), "fft along dim 1");
    close(F::ifft(gz, 50, -1, norm).pairs(), F::ifft(z, 50, -1, norm).pairs(), "ifft padded");
    close(F::fft(gz, 7, 0, norm).pairs(), F::fft(z, 7, 0, norm).pairs(), "fft cut, dim 0");
  }
  const auto real = tl::randn({5, 33, 8}, g);
  const auto greal = real.cuda();
  close(F::fft(greal, std::nullopt, 1).pairs(), F::fft(real, std::nullopt, 1).pairs(), "fft of real data");
  close(F::rfft(greal, std::nullopt, 1).pairs(), F::rfft(real, std::nullopt, 1).pairs(), "rfft");
  close(F::rfft(greal.transpose(0, 2), 20, -1, "ortho").pairs(), F::rfft(real.transpose(0, 2), 20, -1, "ortho").pairs(),
        "rfft of a transposed view, padded");
  close(F::ihfft(greal, std::nullopt, 1).pairs(), F::ihfft(real, std::nullopt, 1).pairs(), "ihfft");
  // Complex-to-real transforms of Hermitian spectra (Note [cuFFT transforms]):
  // an odd and an even length, each from the rfft of that many points.
  for (const int64_t n : {int64_t{33}, int64_t{32}}) {
    CAPTURE(n);
    const auto spectrum = F::rfft(real.narrow(1, 0, n), std::nullopt, 1);
    const tl::ComplexTensor<float> gspectrum(spectrum.pairs().cuda());
    close(F::irfft(gspectrum, n, 1), F::irfft(spectrum, n, 1), "irfft");
    close(F::hfft(gspectrum, n, 1, "forward"), F::hfft(spectrum, n, 1, "forward"), "hfft");
  }
  // Several dimensions, and double precision.
  close(F::fftn(gz, {}, {0, 2}).pairs(), F::fftn(z, {}, {0, 2}).pairs(), "fftn");
  close(F::ifft2(gz).pairs(), F::ifft2(z).pairs(), "ifft2");
  close(F::rfftn(greal).pairs(), F::rfftn(real).pairs(), "rfftn");
  const auto full = F::rfftn(real);
  close(F::irfftn(tl::ComplexTensor<float>(full.pairs().cuda()), {5, 33, 8}), F::irfftn(full, {5, 33, 8}), "irfftn");
  const auto dreal = tl::randn<double>({4, 100}, g);
  check_parity(F::rfft(dreal.cuda()).pairs(), F::rfft(dreal).pairs(), 1e-10, 1e-10, "rfft double");
  check_parity(F::fftshift(F::fft(dreal.cuda())).pairs(), F::fftshift(F::fft(dreal)).pairs(), 1e-10, 1e-10,
               "fftshift of an fft, double");
}

TEST_CASE("CUDA: cuFFT plans are cached per shape, least recently used out first, like PyTorch's plan cache") {
  if (no_gpu()) return;
  namespace F = tl::fft;
  auto& cache = tl::cuda::cufft_plan_cache();
  CHECK(&cache == &tl::cuda::cufft_plan_cache(tl::cuda::current_device()));
  CHECK(cache.max_size() == 4096);  // PyTorch's default
  cache.clear();
  CHECK(cache.size() == 0);
  tl::Generator g(23);
  const auto a = tl::randn({8, 64}, g), b = tl::randn({8, 48}, g), c = tl::randn({3, 64}, g);
  const auto ga = a.cuda(), gb = b.cuda(), gc = c.cuda();
  const auto first = F::rfft(ga).pairs().cpu();
  CHECK(cache.size() == 1);
  // The same lines again use the cached plan and give the same values.
  CHECK(tl::equal(F::rfft(ga).pairs().cpu(), first));
  CHECK(cache.size() == 1);
  // Other lengths, line counts and transforms each make a plan.
  (void)F::rfft(gb);
  (void)F::rfft(gc);
  (void)F::fft(ga);
  CHECK(cache.size() == 4);
  // A smaller capacity keeps the plans used last; 0 keeps none, and
  // transforms still run (a plan per call).
  cache.set_max_size(2);
  CHECK(cache.size() == 2);
  cache.set_max_size(0);
  CHECK(cache.size() == 0);
  check_parity(F::rfft(ga).pairs(), F::rfft(a).pairs(), 1e-4, 1e-4, "rfft without a cache");
  CHECK(cache.size() == 0);
  CHECK_THROWS_WITH_AS(cache.set_max_size(-1),
                       doctest::Contains("cuFFT plan cache size must be non-negative, but got -1"), tl::ValueError);
  CHECK_THROWS_WITH_AS((void)tl::cuda::cufft_plan_cache(tl::cuda::device_count()),
                       doctest::Contains("cufft_plan_cache: expected 0 <= device_index <"), tl::DeviceError);
  cache.set_max_size(4096);
}
