// Reductions of expressions, softmax, cat and stack, matrix products,
// matrix_power, triangular solves, the LU family and the statistics (aminmax, cov,
// corrcoef), multinomial, factories and random numbers, and the FFTs on the
// GPU against the same operations on the CPU. Tolerances: reductions 1e-5
// relative in float (different summation order); products 1e-5 (cuBLAS vs
// our GEMM); the linear algebra runs on the host (exact).

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include <tensorlib/tensor.hpp>

#include "cuda_support.hpp"

using cuda_support::check_parity;
using cuda_support::no_gpu;

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
  // Layouts cuBLAS cannot read in place are copied first: an expanded row
  // (stride 0, as a sum's gradient arrives in a backward pass), an expanded
  // vector, overlapping rows (as_strided).
  // (The views are taken on the GPU: a copy to it would be contiguous.)
  const auto row = tl::randn({1, 33}, g);
  check_parity(tl::mm(row.cuda().expand({65, 33}), b.cuda()), tl::mm(row.expand({65, 33}), b), 1e-5, 1e-5,
               "mm of an expanded row");
  const auto one = tl::ones({1});
  check_parity(tl::mv(a.cuda(), one.cuda().expand({33})), tl::mv(a, one.expand({33})), 1e-5, 1e-5,
               "mv of an expanded vector");
  const auto flat = tl::randn({80}, g);
  check_parity(tl::mm(flat.cuda().as_strided({10, 33}, {1, 1}), b.cuda()), tl::mm(flat.as_strided({10, 33}, {1, 1}), b),
               1e-5, 1e-5, "mm of overlapping rows");
}

TEST_CASE("CUDA: matrix_power, solve_triangular, cholesky_solve, aminmax, cov and corrcoef match the CPU") {
  if (no_gpu()) return;
  tl::Generator g(12);
  const tl::Tensor<double> a = tl::randn<double>({2, 4, 4}, g) * 0.4 + tl::eye<double>(4);
  for (const int64_t n : {-2, 0, 1, 5})
    check_parity(tl::linalg::matrix_power(a.cuda(), n), tl::linalg::matrix_power(a, n), 1e-12, 1e-12,
                 "matrix_power " + std::to_string(n));
  const auto rhs = tl::randn<double>({4, 3}, g);
  check_parity(tl::linalg::solve_triangular(a.cuda(), rhs.cuda(), true), tl::linalg::solve_triangular(a, rhs, true), 0,
               0, "solve_triangular");
  const tl::Tensor<double> factor = tl::tril(a) + tl::eye<double>(4);
  check_parity(tl::cholesky_solve(rhs.cuda(), factor.cuda()), tl::cholesky_solve(rhs, factor), 0, 0, "cholesky_solve");
  const auto x = tl::randn({5, 9}, g);
  const auto [lo, hi] = tl::aminmax(x.cuda(), 1);
  check_parity(lo, tl::amin(x, {1}), 0, 0, "aminmax min");
  check_parity(hi, tl::amax(x, {1}), 0, 0, "aminmax max");
  const auto fw = tl::tensor<int64_t>({1, 2, 0, 3, 1, 1, 2, 1, 4});
  const tl::Tensor<float> aw = tl::rand({9}, g) + 0.1f;
  check_parity(tl::cov(x.cuda(), 1, fw.cuda(), aw.cuda()), tl::cov(x, 1, fw, aw), 1e-5, 1e-6, "cov");
  check_parity(tl::corrcoef(x.cuda()), tl::corrcoef(x), 1e-5, 1e-6, "corrcoef");
  CHECK_THROWS_WITH((void)tl::cov(x.cuda(), 1, fw), doctest::Contains("expected fweights to be on the input's device"));
  CHECK_THROWS_WITH((void)tl::cov(x.cuda(), 1, std::nullopt, aw),
                    doctest::Contains("expected aweights to be on the input's device"));
}

TEST_CASE("CUDA: lu_factor, lu, lu_unpack and lu_solve match the CPU, results on the input's device") {
  if (no_gpu()) return;
  tl::Generator g(13);
  const auto a = tl::randn<double>({2, 4, 5}, g);
  const auto r = tl::linalg::lu_factor_ex(a.cuda());
  const auto expected = tl::linalg::lu_factor_ex(a);
  check_parity(r.LU, expected.LU, 0, 0, "lu_factor_ex LU");
  check_parity(r.pivots, expected.pivots, 0, 0, "lu_factor_ex pivots");
  check_parity(r.info, expected.info, 0, 0, "lu_factor_ex info");
  const auto plu = tl::linalg::lu(a.cuda().mT());
  const auto cpu_plu = tl::linalg::lu(a.mT());
  check_parity(plu.P, cpu_plu.P, 0, 0, "lu P");
  check_parity(plu.L, cpu_plu.L, 0, 0, "lu L");
  check_parity(plu.U, cpu_plu.U, 0, 0, "lu U");
  const auto sq = tl::Tensor<float>(tl::randn({3, 3}, g) + 3.f * tl::eye<float>(3));
  const auto [LU, pivots] = tl::linalg::lu_factor(sq.cuda());
  const auto rhs = tl::randn({3, 2}, g);
  const auto [cpu_LU, cpu_pivots] = tl::linalg::lu_factor(sq);
  check_parity(tl::linalg::lu_solve(LU, pivots, rhs.cuda(), true, true),
               tl::linalg::lu_solve(cpu_LU, cpu_pivots, rhs, true, true), 0, 0, "lu_solve adjoint");
  check_parity(tl::lu_unpack(LU, pivots).L, tl::lu_unpack(cpu_LU, cpu_pivots).L, 0, 0, "lu_unpack L");
  CHECK_THROWS_AS((void)tl::linalg::lu_solve(LU, cpu_pivots, rhs.cuda()), tl::DeviceError);
}

TEST_CASE("CUDA: matrix_exp matches the CPU, results on the input's device") {
  if (no_gpu()) return;
  tl::Generator g(19);
  const auto a = tl::randn<double>({2, 3, 3}, g);
  const auto e = tl::linalg::matrix_exp(a.cuda());
  CHECK(e.is_cuda());
  check_parity(e, tl::linalg::matrix_exp(a), 0, 0, "matrix_exp");
  check_parity(tl::matrix_exp(a.to<float>().cuda()), tl::matrix_exp(a.to<float>()), 0, 0, "matrix_exp float");
}

TEST_CASE("CUDA: multinomial draws the CPU's samples for the same seed") {
  if (no_gpu()) return;
  // Note [multinomial sampling]: the same uniforms on both devices; the keys
  // and running sums may differ in an ulp, which changes a sample only when
  // two keys (or a uniform and a running sum) are that close.
  tl::Generator g(1);
  const tl::Tensor<float> u = tl::rand({6, 50}, g);
  const tl::Tensor<float> p = tl::where(u > 0.3f, u, 0.0f);  // some zero weights
  for (const bool replacement : {false, true}) {
    CAPTURE(replacement);
    tl::Generator a(21), b(21);
    const auto host = tl::multinomial(p, 10, replacement, a);
    const auto device = tl::multinomial(p.cuda(), 10, replacement, b);
    CHECK(device.device() == p.cuda().device());
    CHECK(device.cpu().to_vector() == host.to_vector());
  }
  CHECK_THROWS_WITH((void)tl::multinomial(tl::zeros<float>({2, 3}).cuda(), 2, true),
                    "invalid multinomial distribution (sum of probabilities <= 0)");
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
  // p from a generator of its own, so that g1 and g2 stay in step.
  tl::Generator for_p(5);
  const auto p = tl::rand({3000}, for_p);
  check_parity(tl::bernoulli(p.cuda(), g1), tl::bernoulli(p, g2), 0, 0, "bernoulli");
  check_parity(tl::bernoulli<float>({3000}, 0.25, g1, {.device = tl::kCUDA}), tl::bernoulli<float>({3000}, 0.25, g2), 0,
               0, "bernoulli scalar");
  CHECK_THROWS_WITH_AS(tl::bernoulli(tl::Tensor<float>(p.cuda() + 1.5f), g1),
                       doctest::Contains("all elements of p must be in [0, 1]"), tl::ValueError);
  // The in-place fills transform the same draws (ops/random_fill.hpp).
  auto on_gpu = tl::empty<double>({4099}, {.device = tl::kCUDA});
  auto on_cpu = tl::empty<double>({4099});
  check_parity(on_gpu.exponential_(2.0, g1), on_cpu.exponential_(2.0, g2), 1e-14, 0, "exponential_");
  check_parity(on_gpu.geometric_(0.3, g1), on_cpu.geometric_(0.3, g2), 0, 0, "geometric_");
  check_parity(on_gpu.cauchy_(1.0, 2.0, g1), on_cpu.cauchy_(1.0, 2.0, g2), 1e-12, 1e-12, "cauchy_");
  check_parity(on_gpu.log_normal_(0.0, 0.5, g1), on_cpu.log_normal_(0.0, 0.5, g2), 1e-14, 0, "log_normal_");
  check_parity(on_gpu.bernoulli_(0.4, g1), on_cpu.bernoulli_(0.4, g2), 0, 0, "bernoulli_");
  auto ints_gpu = tl::empty<int64_t>({4099}, {.device = tl::kCUDA});
  auto ints_cpu = tl::empty<int64_t>({4099});
  check_parity(ints_gpu.random_(g1), ints_cpu.random_(g2), 0, 0, "random_");
  CHECK(g1.get_state() == g2.get_state());
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

TEST_CASE("CUDA: stft, istft, histogram and gradient match the CPU") {
  if (no_gpu()) return;
  tl::Generator g(31);
  const auto x = tl::randn({2, 45}, g).to<double>();
  const auto w = tl::hann_window<double>(16);
  const auto S = tl::stft(x.cuda(), 16, 4, std::nullopt, w.cuda());
  CHECK(S.device().is_cuda());
  check_parity(tl::view_as_real(S).contiguous(), tl::view_as_real(tl::stft(x, 16, 4, std::nullopt, w)).contiguous(),
               1e-10, 1e-10, "stft");
  check_parity(tl::istft(S, 16, 4, std::nullopt, w.cuda(), true, false, std::nullopt, 45), x, 1e-10, 1e-10,
               "istft round trip");
  const auto v = tl::randn({300}, g), weights = tl::rand({300}, g);
  const auto h = tl::histogram(v.cuda(), 9, std::nullopt, weights.cuda(), true);
  const auto hc = tl::histogram(v, 9, std::nullopt, weights, true);
  check_parity(h.hist, hc.hist, 1e-5, 1e-6, "histogram");
  check_parity(h.bin_edges, hc.bin_edges, 0, 0, "histogram edges");
  const auto f = tl::randn({5, 7}, g);
  const auto coords = tl::arange<float>(0, 7).square().eval();
  check_parity(tl::gradient(f.cuda(), 0.5, {}, 2)[0], tl::gradient(f, 0.5, {}, 2)[0], 1e-6, 1e-6, "gradient");
  check_parity(tl::gradient(f.cuda(), std::vector<tl::Tensor<float>>{coords.cuda()}, 1)[0],
               tl::gradient(f, std::vector<tl::Tensor<float>>{coords}, 1)[0], 1e-6, 1e-6, "gradient at coordinates");
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
