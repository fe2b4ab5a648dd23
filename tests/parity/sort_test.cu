// Sorts, top-k, max/min along a dimension, order statistics, scans and
// unique on the GPU against the same operations on the CPU (the CPU's sort
// is stable, and so are the GPU's radix sorts). Tolerances: exact, and scans
// of long lines as stated in their test.

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

TEST_CASE("CUDA: logcumsumexp matches the CPU, on pieces of long lines and with infinities, and differentiates") {
  if (no_gpu()) return;
  tl::Generator g(14);
  // The device's exp and log1p differ from the CPU's kernels by an ulp or
  // two, and pieces associate differently (Note [GPU scans]).
  const tl::Tensor<float> x = tl::randn({40, 300, 30}, g) * 20.0f;
  for (int64_t dim = 0; dim < 3; ++dim) {
    CAPTURE(dim);
    check_parity(tl::logcumsumexp(x.cuda(), dim), tl::logcumsumexp(x, dim), 1e-5, 1e-5, "logcumsumexp");
  }
  const auto line = tl::randn<double>({200000}, g);
  check_parity(tl::logcumsumexp(line.cuda(), 0), tl::logcumsumexp(line, 0), 1e-12, 1e-12, "one long line");
  const float inf = std::numeric_limits<float>::infinity();
  const auto special = tl::tensor<float>({{-inf, 1.0f, inf, 2.0f}, {-inf, -inf, -inf, -inf}, {inf, inf, 0.0f, -inf}});
  check_parity(tl::logcumsumexp(special.cuda(), 1), tl::logcumsumexp(special, 1), 0, 0, "infinities");
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
