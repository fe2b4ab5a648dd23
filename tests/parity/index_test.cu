// Gathers, scatters, index ops, masks and advanced indexing, and the ops
// built on searches and counts (norms, cdist, triangles, bincount, histc,
// searchsorted, repeat_interleave, combinations) on the GPU against the same
// operations on the CPU. Tolerances: exact, or 1e-5 relative for atomic
// float sums (another summation order).

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
