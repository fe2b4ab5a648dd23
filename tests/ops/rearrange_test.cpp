// repeat, tile, repeat_interleave, flip, roll, rot90, movedim, swapaxes,
// broadcast_to/_tensors, meshgrid, cartesian_prod, combinations: aliasing,
// stride-0 and large inputs, and every error path. Values against PyTorch
// are in join_test.cpp.

#include <doctest/doctest.h>

#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "fixtures.hpp"
#include "sanitizers.hpp"

TEST_CASE("copies agree on expanded (stride 0) inputs and own new memory") {
  const auto row = tl::arange<float>(4).view({1, 4}).expand({3, 4});  // strides [0, 1]
  const auto dense = row.contiguous();
  CHECK(row.repeat({2, 1}).to_vector() == dense.repeat({2, 1}).to_vector());
  CHECK(tl::flip(row, {0, 1}).to_vector() == tl::flip(dense, {0, 1}).to_vector());
  CHECK(tl::roll(row, {1, 3}, {0, 1}).to_vector() == tl::roll(dense, {1, 3}, {0, 1}).to_vector());
  CHECK(tl::repeat_interleave(row, 2, 0).to_vector() == tl::repeat_interleave(dense, 2, 0).to_vector());
  CHECK(tl::repeat_interleave(row, tl::tensor({1, 0, 2}), 0).to_vector() ==
        tl::repeat_interleave(dense, tl::tensor({1, 0, 2}), 0).to_vector());
  CHECK(tl::rot90(row).to_vector() == tl::rot90(dense).to_vector());
  CHECK(tl::combinations(row[0], 2).to_vector() == tl::combinations(dense[0], 2).to_vector());
  for (const auto& t :
       {row.repeat({1, 1}), tl::flip(row, {}), tl::roll(row, 0), tl::rot90(row, 4), tl::tile(row, {1})}) {
    CHECK_FALSE(t.is_alias_of(row));
    CHECK(t.to_vector() == dense.to_vector());
  }
}

TEST_CASE("large contiguous copies give the same elements as index arithmetic") {
  const int64_t n = 300, m = 257;
  const auto x = tl::arange<int64_t>(n * m).view({n, m});
  const auto f = x.flip({0, 1});
  CHECK(f.index({0, 0}).item() == n * m - 1);
  CHECK(f.index({17, 5}).item() == (n - 1 - 17) * m + (m - 1 - 5));
  const auto r = tl::roll(x, {7, -3}, {0, 1});
  CHECK(r.index({7, 0}).item() == 3);
  CHECK(r.index({0, 0}).item() == (n - 7) * m + 3);
  const auto rep = x.repeat({2, 3});
  CHECK(rep.sizes() == tl::Shape{2 * n, 3 * m});
  CHECK(rep.index({n + 4, 2 * m + 9}).item() == 4 * m + 9);
  const auto ri = tl::repeat_interleave(x, 3, 1);
  CHECK(ri.index({11, 3 * 100 + 2}).item() == 11 * m + 100);
}

TEST_CASE("repeat with more than 16 repeated factors goes one dimension at a time") {
  const tl::Shape twos = tl::Shape::filled(9, 2);
  const auto x = tl::arange<int32_t>(512).view(twos);
  const auto r = x.repeat(twos);  // 18 factors of 2: more than one view can hold
  CHECK(r.sizes() == tl::Shape::filled(9, 4));
  // Element (i0, ..., i8) of the result is x[i0 % 2, ..., i8 % 2].
  const auto v = r.to_vector();
  int mismatches = 0;
  for (int64_t flat = 0; flat < r.numel(); flat += 37) {
    int64_t rest = flat, src = 0, weight = 1;
    for (int d = 8; d >= 0; --d) {
      src += (rest % 4 % 2) * weight;
      weight *= 2;
      rest /= 4;
    }
    mismatches += v[static_cast<std::size_t>(flat)] != src;
  }
  CHECK(mismatches == 0);
}

TEST_CASE("repeat_interleave of a repeats tensor alone gives repeated indices") {
  const auto& c = fixtures::load("join.txt")["repeat_interleave/index"];
  fixtures::check_close(tl::repeat_interleave(c.get<int64_t>("r")), c.get<int64_t>("out"));
  // An int second argument is a repeat count, as in PyTorch; output_size is an optional.
  CHECK(tl::repeat_interleave(tl::tensor({2, 1}), std::optional<int64_t>(3)).to_vector() ==
        std::vector<int64_t>{0, 0, 1});
  CHECK_THROWS_AS(tl::repeat_interleave(tl::tensor({2, 1}), std::optional<int64_t>(2)), tl::ValueError);
  CHECK(tl::repeat_interleave(tl::tensor({2, 1}), 3).to_vector() == std::vector<int64_t>{2, 2, 2, 1, 1, 1});
  CHECK(tl::repeat_interleave(tl::arange<float>(3), tl::tensor({1, 1, 2}), 0, 4).numel() == 4);
}

TEST_CASE("movedim, swapaxes, broadcast_to, broadcast_tensors and meshgrid are views") {
  auto x = tl::zeros<float>({2, 3, 4});
  const auto m = tl::movedim(x, {0, 1}, {2, 0});
  CHECK(m.sizes() == tl::Shape{3, 4, 2});
  CHECK(m.strides() == tl::Shape{4, 1, 12});
  CHECK(m.is_alias_of(x));
  m.index({1, 2, 1}) = 5.f;
  CHECK(x.index({1, 1, 2}).item() == 5.f);
  const auto s = tl::swapaxes(x, 0, -1);
  CHECK(s.sizes() == tl::Shape{4, 3, 2});
  CHECK(s.index({2, 1, 1}).item() == 5.f);
  CHECK(tl::movedim(tl::scalar_tensor(1.f), 0, -1).dim() == 0);
  const auto col = tl::arange<float>(3).view({3, 1});
  const auto b = tl::broadcast_to(col, {2, 3, 4});
  CHECK(b.strides() == tl::Shape{0, 1, 0});
  CHECK(b.is_alias_of(col));
  const auto bt = tl::broadcast_tensors({col, tl::arange<float>(4)});
  CHECK(bt[0].sizes() == tl::Shape{3, 4});
  CHECK(bt[1].strides() == tl::Shape{0, 1});
  CHECK(bt[0].is_alias_of(col));
  CHECK(tl::broadcast_tensors(std::vector<tl::Tensor<float>>{}).empty());
  auto u = tl::arange<float>(2), v = tl::arange<float>(3);
  const auto grids = tl::meshgrid({u, v});
  CHECK(grids[0].is_alias_of(u));
  CHECK(grids[1].is_alias_of(v));
  CHECK(grids[1].strides() == tl::Shape{0, 1});
  u.fill_(7.f);
  CHECK(grids[0].index({1, 2}).item() == 7.f);
  const auto xy = tl::meshgrid({u, v}, "xy");
  CHECK(xy[0].sizes() == tl::Shape{3, 2});
  CHECK(xy[0].is_alias_of(u));
}

TEST_CASE("rearrange errors follow PyTorch's wording") {
  const auto x = tl::zeros<float>({2, 3});
  const auto s = tl::scalar_tensor(1.f);
  CHECK_THROWS_WITH_AS(x.repeat({2}),
                       "repeat: number of dimensions of repeat dims can not be smaller than number of dimensions of "
                       "tensor (got 1 repeat dims for a tensor of 2 dims)",
                       tl::ShapeError);
  CHECK_THROWS_WITH_AS(x.repeat({-1, 2}), "repeat: trying to create tensor with negative dimension -2: [-2, 6]",
                       tl::ValueError);
  CHECK_THROWS_WITH_AS(tl::tile(tl::zeros<float>({2}), {-1}),
                       "tile: trying to create tensor with negative dimension -2: [-2]", tl::ValueError);
  // 2^62 * 4 wraps to 0, which would pass the check above as an empty result.
  constexpr int64_t huge = int64_t{1} << 62;
  CHECK_THROWS_WITH_AS(tl::zeros<float>({4}).repeat({huge}),
                       "repeat: integer multiplication overflow (4611686018427387904 * 4)", tl::ValueError);
  CHECK_THROWS_WITH_AS(tl::tile(tl::zeros<float>({4}), {huge}),
                       "tile: integer multiplication overflow (4611686018427387904 * 4)", tl::ValueError);
  CHECK_THROWS_WITH_AS(tl::repeat_interleave(tl::zeros<float>({4}), huge),
                       "repeat_interleave: integer multiplication overflow (4 * 4611686018427387904)", tl::ValueError);
  CHECK_THROWS_WITH_AS(tl::repeat_interleave(tl::zeros<float>({3}), tl::tensor({huge, huge, int64_t{1}})),
                       "repeat_interleave: the sum of repeats overflows int64", tl::ValueError);
#ifndef TL_TEST_ASAN  // ASan aborts on an allocation this large (tests/support/sanitizers.hpp)
  // 2^58 + 1 positions (2^61 + 8 bytes) do not fit in memory: the allocator's error, not std::bad_alloc.
  CHECK_THROWS_WITH_AS(tl::repeat_interleave(tl::zeros<float>({2}), tl::tensor({int64_t{1} << 58, int64_t{1}})),
                       doctest::Contains("not enough memory"), tl::Error);
  CHECK_THROWS_WITH_AS(tl::repeat_interleave(tl::zeros<float>({2}, {.requires_grad = true}), int64_t{1} << 57),
                       doctest::Contains("not enough memory"), tl::Error);
#endif
  CHECK_THROWS_WITH_AS(tl::repeat_interleave(x, -1), "repeat_interleave: repeats can not be negative, got -1",
                       tl::ValueError);
  CHECK_THROWS_WITH_AS(tl::repeat_interleave(tl::zeros<float>({3}), tl::tensor({1, -1, 2})),
                       "repeat_interleave: repeats can not be negative, got -1", tl::ValueError);
  CHECK_THROWS_WITH_AS(tl::repeat_interleave(tl::zeros<float>({3}), tl::tensor({1, 2})),
                       "repeat_interleave: repeats must have the same size as input along dim, but got "
                       "repeats.size(0) = 2 and input.size(0) = 3",
                       tl::ShapeError);
  CHECK_THROWS_WITH_AS(tl::repeat_interleave(tl::zeros<float>({3}), tl::tensor({{1, 2}})),
                       "repeat_interleave: repeats must be 0-dim or 1-dim tensor, got 2-dim", tl::ShapeError);
  CHECK_THROWS_WITH_AS(tl::repeat_interleave(tl::tensor({{1, 2}})),
                       "repeat_interleave: only accept 1D vector as repeat, got 2-dim", tl::ShapeError);
  CHECK_THROWS_WITH_AS(tl::repeat_interleave(tl::tensor({1, -2})),
                       "repeat_interleave: repeats can not be negative, got -2", tl::ValueError);
  CHECK_THROWS_WITH_AS(tl::repeat_interleave(tl::zeros<float>({3}), 2, 1),
                       "repeat_interleave: dimension out of range (expected to be in range of [-1, 0], but got 1)",
                       tl::IndexError);
  CHECK_THROWS_WITH_AS(tl::repeat_interleave(s, 2, 0),
                       "repeat_interleave: dimension specified as 0 but tensor has no dimensions", tl::IndexError);
  CHECK_THROWS_WITH_AS(tl::repeat_interleave(tl::zeros<float>({3}), tl::tensor({1, 1, 2}), 0, 3),
                       "repeat_interleave: allocated size does not match required size (output_size 3, required 4)",
                       tl::ValueError);
  CHECK_THROWS_AS(tl::repeat_interleave(tl::zeros<float>({3}), 2, 0, 5), tl::ValueError);
  CHECK_THROWS_WITH_AS(x.flip({0, -2}), "flip: dim 0 appears multiple times in the list of dims", tl::ValueError);
  CHECK_THROWS_WITH_AS(x.flip({2}), "flip: dimension out of range (expected to be in range of [-2, 1], but got 2)",
                       tl::IndexError);
  CHECK_THROWS_WITH_AS(tl::fliplr(tl::zeros<float>({3})), "fliplr: input must be >= 2-d, got 1-d", tl::ShapeError);
  CHECK_THROWS_WITH_AS(tl::flipud(s), "flipud: input must be >= 1-d, got 0-d", tl::ShapeError);
  CHECK_THROWS_WITH_AS(x.roll({1, 2}, {0}), "roll: shifts and dimensions must align. shifts: 2, dims:1",
                       tl::ValueError);
  CHECK_THROWS_WITH_AS(x.roll({1, 2}), "roll: shifts and dimensions must align. shifts: 2, dims:0", tl::ValueError);
  CHECK_THROWS_WITH_AS(x.roll({}), "roll: `shifts` required", tl::ValueError);
  CHECK_THROWS_WITH_AS(tl::roll(s, 1, 0), "roll: dimension specified as 0 but tensor has no dimensions",
                       tl::IndexError);
  CHECK_THROWS_WITH_AS(tl::roll(x, 1, 2),
                       "roll: dimension out of range (expected to be in range of [-2, 1], but got 2)", tl::IndexError);
  CHECK_THROWS_AS(tl::roll(tl::zeros<float>({0, 3}), 1, 2), tl::IndexError);  // checked before the empty shortcut
  CHECK_THROWS_WITH_AS(tl::rot90(x, 1, {0, 1, 2}), "rot90: expected total rotation dims == 2, but got dims = 3",
                       tl::ValueError);
  CHECK_THROWS_WITH_AS(tl::rot90(tl::zeros<float>({2})), "rot90: expected total dims >= 2, but got total dims = 1",
                       tl::ShapeError);
  CHECK_THROWS_WITH_AS(tl::rot90(x, 1, {1, -1}),
                       "rot90: expected rotation dims to be different, but got dim0 = 1 and dim1 = -1", tl::ValueError);
  CHECK_THROWS_WITH_AS(tl::rot90(x, 1, {0, 2}),
                       "rot90: expected rotation dims to be different, but got dim0 = 0 and dim1 = 2", tl::ValueError);
  CHECK_THROWS_AS(tl::rot90(x, 1, {0, 3}), tl::IndexError);
  CHECK_THROWS_WITH_AS(x.movedim({0, 1}, {0}),
                       "movedim: Invalid source or destination dims: source ([0, 1] dims) should contain the same "
                       "number of dims as destination ([0] dims)",
                       tl::ValueError);
  CHECK_THROWS_WITH_AS(x.movedim({0, 0}, {0, 1}), "movedim: repeated dim in `source` ([0, 0])", tl::ValueError);
  CHECK_THROWS_WITH_AS(x.movedim({0, 1}, {1, -1}), "movedim: repeated dim in `destination` ([1, -1])", tl::ValueError);
  CHECK_THROWS_WITH_AS(x.movedim(2, 0),
                       "movedim: dimension out of range (expected to be in range of [-2, 1], but got 2)",
                       tl::IndexError);
  CHECK_THROWS_WITH_AS(tl::swapaxes(x, 0, 2),
                       "swapaxes: dimension out of range (expected to be in range of [-2, 1], but got 2)",
                       tl::IndexError);
  CHECK_THROWS_WITH_AS(tl::broadcast_to(x, {2, 4}),
                       doctest::Contains("expand: the expanded size of the tensor (4) must "
                                         "match the existing size (3)"),
                       tl::ShapeError);
  CHECK_THROWS_AS(tl::broadcast_to(x, {3}), tl::ShapeError);
  CHECK_THROWS_WITH_AS(tl::broadcast_tensors({x, tl::zeros<float>({4})}),
                       "broadcast_tensors: shapes [2, 3] and [4] cannot broadcast", tl::ShapeError);
  CHECK_THROWS_WITH_AS(tl::meshgrid(std::vector<tl::Tensor<float>>{}), "meshgrid: expects a non-empty TensorList",
                       tl::ValueError);
  CHECK_THROWS_WITH_AS(tl::meshgrid({x}),
                       "meshgrid: expected 0D or 1D tensor in the tensor list but got a tensor of shape [2, 3] at "
                       "position 0",
                       tl::ShapeError);
  CHECK_THROWS_WITH_AS(tl::meshgrid({s}, "foo"),
                       "meshgrid: indexing must be one of \"xy\" or \"ij\", but received: foo", tl::ValueError);
  CHECK_THROWS_WITH_AS(tl::cartesian_prod({x, tl::zeros<float>({2})}),
                       "cartesian_prod: expect a 1D vector, but got shape [2, 3]", tl::ShapeError);
  CHECK_THROWS_WITH_AS(tl::cartesian_prod({s}), "cartesian_prod: expect a 1D vector, but got shape []", tl::ShapeError);
  CHECK_THROWS_WITH_AS(tl::cartesian_prod(std::vector<tl::Tensor<float>>{}),
                       "cartesian_prod: expects a non-empty TensorList", tl::ValueError);
  CHECK_THROWS_WITH_AS(tl::combinations(x), "combinations: expect a 1D vector, but got shape [2, 3]", tl::ShapeError);
  CHECK_THROWS_WITH_AS(tl::combinations(tl::zeros<float>({2}), -1),
                       "combinations: expect a non-negative number, but got -1", tl::ValueError);
  float host[4] = {};
  const auto fake_cuda = tl::from_blob(host, {4}, {1}, {}, tl::Device(tl::kCUDA, 0));
  CHECK_THROWS_AS(tl::combinations(fake_cuda), tl::DeviceError);
  CHECK_THROWS_AS(tl::flip(fake_cuda, {0}), tl::DeviceError);
}

TEST_CASE("diff matches PyTorch: orders, dims, prepend/append, bool, wrapping integers, strided input") {
  const auto& f = fixtures::load("surface.txt");
  for (const char* key : {"1/-1", "2/1", "1/0", "3/0", "0/1", "7/1"}) {
    INFO("diff " << key);
    const auto& c = f[std::string("diff/") + key];
    int64_t n = 0, dim = 0;
    REQUIRE(std::sscanf(key, "%ld/%ld", &n, &dim) == 2);
    fixtures::check_close(tl::diff(c.get<float>("x"), n, dim), c.get<float>("y"), 1e-6, 1e-6, "diff");
  }
  const auto& pa = f["diff/prepend_append"];
  fixtures::check_close(tl::diff(pa.get<float>("x"), 2, 1, pa.get<float>("pre"), pa.get<float>("app")),
                        pa.get<float>("y"), 1e-6, 1e-6, "prepend/append");
  const auto& tr = f["diff/transposed"];
  fixtures::check_close(tl::diff(tr.get<float>("x").t(), 1, 0), tr.get<float>("y"), 1e-6, 1e-6, "transposed");
  const auto& b = f["diff/bool"];
  fixtures::check_close(tl::diff(b.get<bool>("x")), b.get<bool>("y"), 0, 0, "bool");
  fixtures::check_close(tl::diff(b.get<bool>("x"), 2), b.get<bool>("y2"), 0, 0, "bool, n = 2");
  const auto& u = f["diff/uint8"];
  fixtures::check_close(tl::diff(u.get<uint8_t>("x")), u.get<uint8_t>("y"), 0, 0, "uint8");
  const auto& i = f["diff/int64"];
  fixtures::check_close(tl::diff(i.get<int64_t>("x"), 2), i.get<int64_t>("y"), 0, 0, "int64");
  // An empty input stays empty; n = 0 gives the input's values.
  CHECK(tl::diff(tl::zeros<float>({0})).sizes() == tl::Shape{0});
  CHECK(tl::diff(tl::zeros<float>({2, 0}), 1, 0).sizes() == tl::Shape{1, 0});
}

TEST_CASE("diff's errors use PyTorch's wording") {
  const auto x = tl::zeros<float>({2, 4});
  CHECK_THROWS_WITH_AS(tl::diff(tl::tensor<float>(1.0f)), "diff: diff expects input to be at least one-dimensional",
                       tl::ShapeError);
  CHECK_THROWS_WITH_AS(tl::diff(x, -1), "diff: order must be non-negative but got -1", tl::ValueError);
  CHECK_THROWS_AS(tl::diff(x, 1, 2), tl::IndexError);
  CHECK_THROWS_WITH_AS(tl::diff(x, 1, -1, tl::zeros<float>({3, 1})),
                       "diff: diff expects the shape of tensor to prepend or append to match that of input except "
                       "along the differencing dimension; input.size(0) = 2, but got tensor.size(0) = 3",
                       tl::ShapeError);
  CHECK_THROWS_WITH_AS(tl::diff(x, 1, -1, std::nullopt, tl::zeros<float>({1})),
                       "diff: diff expects prepend or append to be the same dimension as input", tl::ShapeError);
}
