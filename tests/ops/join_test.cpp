// Joining, splitting, rearranging and triangular ops against PyTorch
// (tests/fixtures/join.txt, made by generate_join.py): every case for every
// element type, with each input given contiguous, with reversed dimension
// order in memory and as a step-2 slice at an offset. Then the join ops'
// aliasing, fast paths and error messages (rearrange_test.cpp and
// triangular_test.cpp hold theirs).

#include <doctest/doctest.h>

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "fixtures.hpp"

namespace {

template <class T>
using List = std::vector<tl::Tensor<T>>;

template <class T>
using Op = std::function<List<T>(const List<T>&)>;

template <class T>
List<T> one(const tl::Tensor<T>& t) {
  return {t};
}

// The op each fixture case runs, by name without the dtype suffix; the
// arguments are the ones generate_join.py passes.
template <class T>
std::map<std::string, Op<T>> registry() {
  using In = const List<T>&;
  using tl::None;
  return {
      {"cat/dim0",
       [](In v) {
         return one(tl::cat({v[0], v[1]}, 0));
       }},
      {"cat/dim1", [](In v) { return one(tl::cat(v, 1)); }},
      {"cat/neg_3d",
       [](In v) {
         return one(tl::cat({v[0], v[1]}, -1));
       }},
      {"cat/middle", [](In v) { return one(tl::cat(v, 1)); }},
      {"cat/legacy_empty", [](In v) { return one(tl::cat(v, 1)); }},
      {"cat/one", [](In v) { return one(tl::cat(v, 0)); }},
      {"cat/empty_result", [](In v) { return one(tl::concat(v, 0)); }},
      {"stack/dim0", [](In v) { return one(tl::stack(v, 0)); }},
      {"stack/dim2",
       [](In v) {
         return one(tl::stack({v[0], v[1]}, 2));
       }},
      {"stack/neg", [](In v) { return one(tl::stack(v, -2)); }},
      {"stack/0d", [](In v) { return one(tl::stack(v)); }},
      {"hstack/1d", [](In v) { return one(tl::hstack(v)); }},
      {"hstack/2d",
       [](In v) {
         return one(tl::hstack({v[0], v[1]}));
       }},
      {"hstack/0d", [](In v) { return one(tl::hstack(v)); }},
      {"vstack/1d",
       [](In v) {
         return one(tl::vstack({v[0], v[1]}));
       }},
      {"vstack/mixed", [](In v) { return one(tl::vstack(v)); }},
      {"vstack/0d", [](In v) { return one(tl::vstack(v)); }},
      {"chunk/5_3", [](In v) { return tl::chunk(v[0], 3, 0); }},
      {"chunk/dim1", [](In v) { return v[0].chunk(3, 1); }},
      {"chunk/6_4", [](In v) { return tl::chunk(v[0], 4); }},
      {"chunk/empty", [](In v) { return tl::chunk(v[0], 3); }},
      {"split/int", [](In v) { return tl::split(v[0], 2); }},
      {"split/sizes",
       [](In v) {
         return tl::split(v[0], {1, 2, 3}, 1);
       }},
      {"split/neg_dim", [](In v) { return v[0].split(2, -1); }},
      {"split/one_size", [](In v) { return v[0].split({3}); }},
      {"split/empty", [](In v) { return tl::split(v[0], 2); }},
      {"tensor_split/sections", [](In v) { return tl::tensor_split(v[0], 3); }},
      {"tensor_split/sections_dim1", [](In v) { return tl::tensor_split(v[0], 3, 1); }},
      {"tensor_split/more_sections", [](In v) { return tl::tensor_split(v[0], 5); }},
      {"tensor_split/indices",
       [](In v) {
         return tl::tensor_split(v[0], {1, 5, 3, 10});
       }},
      {"tensor_split/negative",
       [](In v) {
         return tl::tensor_split(v[0], std::vector<int64_t>{-2, 9});
       }},
      {"tensor_split/one_index", [](In v) { return tl::tensor_split(v[0], {1}, 1); }},
      {"unbind/dim0", [](In v) { return tl::unbind(v[0]); }},
      {"unbind/dim1", [](In v) { return v[0].unbind(1); }},
      {"unbind/neg", [](In v) { return tl::unbind(v[0], -1); }},
      {"repeat/2d",
       [](In v) {
         return one(v[0].repeat({2, 1}));
       }},
      {"repeat/lead",
       [](In v) {
         return one(tl::repeat(v[0], {2, 1, 2}));
       }},
      {"repeat/zero",
       [](In v) {
         return one(v[0].repeat({0, 2}));
       }},
      {"repeat/1d",
       [](In v) {
         return one(v[0].repeat({2, 2}));
       }},
      {"repeat/0d", [](In v) { return one(v[0].repeat({3})); }},
      {"repeat/size1",
       [](In v) {
         return one(v[0].repeat({2, 1, 3}));
       }},
      {"tile/short", [](In v) { return one(tl::tile(v[0], {2})); }},
      {"tile/long",
       [](In v) {
         return one(tl::tile(v[0], {2, 2}));
       }},
      {"repeat_interleave/int_flat", [](In v) { return one(tl::repeat_interleave(v[0], 2)); }},
      {"repeat_interleave/int_dim1", [](In v) { return one(tl::repeat_interleave(v[0], 3, 1)); }},
      {"repeat_interleave/int_zero", [](In v) { return one(tl::repeat_interleave(v[0], 0, 0)); }},
      {"repeat_interleave/int_0d", [](In v) { return one(tl::repeat_interleave(v[0], 2)); }},
      {"repeat_interleave/tensor_dim0",
       [](In v) {
         return one(tl::repeat_interleave(v[0], tl::tensor({1, 0, 2}), 0));
       }},
      {"repeat_interleave/tensor_flat",
       [](In v) {
         return one(tl::repeat_interleave(v[0], tl::tensor({1, 2, 0, 3})));
       }},
      {"repeat_interleave/tensor_one", [](In v) { return one(tl::repeat_interleave(v[0], tl::tensor({2}), 1)); }},
      {"repeat_interleave/tensor_neg_dim",
       [](In v) {
         return one(tl::repeat_interleave(v[0], tl::tensor({3, 1, 2}), -1));
       }},
      {"flip/dim0", [](In v) { return one(tl::flip(v[0], {0})); }},
      {"flip/dims02",
       [](In v) {
         return one(v[0].flip({0, 2}));
       }},
      {"flip/neg", [](In v) { return one(tl::flip(v[0], {-1})); }},
      {"flip/all",
       [](In v) {
         return one(tl::flip(v[0], {0, 1, 2}));
       }},
      {"flip/none", [](In v) { return one(tl::flip(v[0], {})); }},
      {"flip/1d", [](In v) { return one(tl::flip(v[0], {0})); }},
      {"flip/0d", [](In v) { return one(tl::flip(v[0], {0})); }},
      {"flip/empty", [](In v) { return one(tl::flip(v[0], {1})); }},
      {"fliplr/2d", [](In v) { return one(tl::fliplr(v[0])); }},
      {"fliplr/3d", [](In v) { return one(tl::fliplr(v[0])); }},
      {"flipud/2d", [](In v) { return one(tl::flipud(v[0])); }},
      {"roll/flat", [](In v) { return one(tl::roll(v[0], 1)); }},
      {"roll/flat_neg", [](In v) { return one(v[0].roll({-4})); }},
      {"roll/dim0", [](In v) { return one(tl::roll(v[0], 1, 0)); }},
      {"roll/neg_dim", [](In v) { return one(tl::roll(v[0], -7, 1)); }},
      {"roll/multi",
       [](In v) {
         return one(v[0].roll({1, -2}, {0, 1}));
       }},
      {"roll/same_dim",
       [](In v) {
         return one(tl::roll(v[0], {2, 2}, {0, 0}));
       }},
      {"roll/big_shift", [](In v) { return one(tl::roll(v[0], 9, 0)); }},
      {"roll/zero", [](In v) { return one(tl::roll(v[0], 0, 0)); }},
      {"roll/0d", [](In v) { return one(tl::roll(v[0], 1)); }},
      {"roll/empty", [](In v) { return one(tl::roll(v[0], 1, 1)); }},
      {"rot90/k1", [](In v) { return one(tl::rot90(v[0])); }},
      {"rot90/k2", [](In v) { return one(tl::rot90(v[0], 2)); }},
      {"rot90/k3", [](In v) { return one(tl::rot90(v[0], 3)); }},
      {"rot90/k-1", [](In v) { return one(tl::rot90(v[0], -1)); }},
      {"rot90/k0", [](In v) { return one(tl::rot90(v[0], 0)); }},
      {"rot90/k5", [](In v) { return one(tl::rot90(v[0], 5)); }},
      {"rot90/dims",
       [](In v) {
         return one(tl::rot90(v[0], 1, {2, 0}));
       }},
      {"movedim/int", [](In v) { return one(tl::movedim(v[0], 0, 2)); }},
      {"movedim/list",
       [](In v) {
         return one(v[0].movedim({0, 1}, {2, 0}));
       }},
      {"movedim/neg", [](In v) { return one(v[0].movedim(-1, 0)); }},
      {"swapaxes/02", [](In v) { return one(tl::swapaxes(v[0], 0, 2)); }},
      {"swapaxes/neg", [](In v) { return one(tl::swapaxes(v[0], -1, 0)); }},
      {"broadcast_to/3d",
       [](In v) {
         return one(tl::broadcast_to(v[0], {2, 3, 4}));
       }},
      {"broadcast_to/keep",
       [](In v) {
         return one(tl::broadcast_to(v[0], {3, -1}));
       }},
      {"broadcast_tensors/three", [](In v) { return tl::broadcast_tensors(v); }},
      {"meshgrid/ij", [](In v) { return tl::meshgrid(v, "ij"); }},
      {"meshgrid/xy",
       [](In v) {
         return tl::meshgrid({v[0], v[1], v[2]}, "xy");
       }},
      {"meshgrid/xy_one", [](In v) { return tl::meshgrid(v, "xy"); }},
      {"cartesian_prod/three", [](In v) { return one(tl::cartesian_prod(v)); }},
      {"cartesian_prod/one", [](In v) { return one(tl::cartesian_prod({v[0]})); }},
      {"cartesian_prod/empty", [](In v) { return one(tl::cartesian_prod(v)); }},
      {"combinations/r2", [](In v) { return one(tl::combinations(v[0])); }},
      {"combinations/r3", [](In v) { return one(tl::combinations(v[0], 3)); }},
      {"combinations/with_replacement", [](In v) { return one(tl::combinations(v[0], 2, true)); }},
      {"combinations/r1", [](In v) { return one(tl::combinations(v[0], 1)); }},
      {"combinations/r_too_big", [](In v) { return one(tl::combinations(v[0], 5)); }},
      {"combinations/r_big_replacement", [](In v) { return one(tl::combinations(v[0], 3, true)); }},
      {"combinations/empty_input", [](In v) { return one(tl::combinations(v[0], 2)); }},
      {"combinations/r0", [](In v) { return one(tl::combinations(v[0], 0)); }},
      {"tril/k0", [](In v) { return one(tl::tril(v[0])); }},
      {"tril/k1", [](In v) { return one(v[0].tril(1)); }},
      {"tril/k-1", [](In v) { return one(tl::tril(v[0], -1)); }},
      {"tril/batch", [](In v) { return one(tl::tril(v[0])); }},
      {"tril/k_big", [](In v) { return one(tl::tril(v[0], 10)); }},
      {"tril/k_neg_big", [](In v) { return one(tl::tril(v[0], -10)); }},
      {"tril/empty", [](In v) { return one(tl::tril(v[0])); }},
      {"triu/k0", [](In v) { return one(tl::triu(v[0])); }},
      {"triu/k1", [](In v) { return one(v[0].triu(1)); }},
      {"triu/k-1", [](In v) { return one(tl::triu(v[0], -1)); }},
      {"triu/batch", [](In v) { return one(tl::triu(v[0])); }},
      {"triu/k_big", [](In v) { return one(tl::triu(v[0], 10)); }},
      {"triu/k_neg_big", [](In v) { return one(tl::triu(v[0], -10)); }},
      {"diag/vec", [](In v) { return one(tl::diag(v[0])); }},
      {"diag/vec_k2", [](In v) { return one(tl::diag(v[0], 2)); }},
      {"diag/vec_k-1", [](In v) { return one(tl::diag(v[0], -1)); }},
      {"diag/vec_empty", [](In v) { return one(tl::diag(v[0])); }},
      {"diag/mat", [](In v) { return one(tl::diag(v[0])); }},
      {"diag/mat_k1", [](In v) { return one(tl::diag(v[0], 1)); }},
      {"diag/mat_k-2", [](In v) { return one(tl::diag(v[0], -2)); }},
      {"diag/mat_k4", [](In v) { return one(tl::diag(v[0], 4)); }},
      {"diagonal/default", [](In v) { return one(tl::diagonal(v[0])); }},
      {"diagonal/k1", [](In v) { return one(v[0].diagonal(1)); }},
      {"diagonal/k-1", [](In v) { return one(tl::diagonal(v[0], -1)); }},
      {"diagonal/dims", [](In v) { return one(tl::diagonal(v[0], 1, 2, 0)); }},
      {"diagonal/neg_dims", [](In v) { return one(v[0].diagonal(-1, -1, -2)); }},
      {"diagonal/k_big", [](In v) { return one(tl::diagonal(v[0], 5)); }},
      {"diag_embed/default", [](In v) { return one(tl::diag_embed(v[0])); }},
      {"diag_embed/offset_dims", [](In v) { return one(tl::diag_embed(v[0], 1, 0, 2)); }},
      {"diag_embed/neg", [](In v) { return one(tl::diag_embed(v[0], -1, -1, 0)); }},
      {"diag_embed/1d", [](In v) { return one(tl::diag_embed(v[0])); }},
      {"diagflat/2d", [](In v) { return one(tl::diagflat(v[0])); }},
      {"diagflat/offset", [](In v) { return one(tl::diagflat(v[0], -1)); }},
      {"diagflat/0d", [](In v) { return one(tl::diagflat(v[0])); }},
  };
}

// The same values in other layouts: dimension order reversed in memory, and
// every element two apart in a larger buffer starting at an offset.
template <class T>
tl::Tensor<T> reversed_layout(const tl::Tensor<T>& x) {
  if (x.dim() < 2) return x;
  tl::Shape order;
  for (int64_t d = x.dim() - 1; d >= 0; --d) order.push_back(d);
  return x.permute(order).contiguous().permute(order);
}

template <class T>
tl::Tensor<T> strided_layout(const tl::Tensor<T>& x) {
  if (x.dim() == 0) return x;
  tl::Shape big = x.sizes();
  big[big.size() - 1] = 2 * big.back() + 1;
  auto view = tl::zeros<T>(big).slice(-1, 1, tl::None, 2);
  view.copy_(x);
  return view;
}

template <class T>
void check_fixtures() {
  const auto ops = registry<T>();
  std::string suffix = "/";
  suffix += tl::DTypeTraits<T>::name;
  const std::vector<std::pair<std::string, tl::Tensor<T> (*)(const tl::Tensor<T>&)>> layouts{
      {"contiguous", [](const tl::Tensor<T>& x) { return x; }},
      {"reversed", reversed_layout<T>},
      {"strided", strided_layout<T>},
  };
  int cases = 0;
  for (const auto& entry : fixtures::load("join.txt").cases()) {
    const std::string& name = entry.first;
    const fixtures::Case& c = entry.second;
    if (name.size() <= suffix.size() || name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0) continue;
    const std::string op = name.substr(0, name.size() - suffix.size());
    if (op.rfind("trace/", 0) == 0) continue;  // trace_test below: its result type differs
    INFO(name);
    REQUIRE_MESSAGE(ops.count(op), "no op registered for fixture case " << name);
    ++cases;
    List<T> inputs;
    for (const char* key : {"x", "y", "z"})
      if (c.tensors.count(key)) inputs.push_back(c.get<T>(key));
    List<T> expected;
    if (c.tensors.count("out")) expected.push_back(c.get<T>("out"));
    for (int i = 0; c.tensors.count("out" + std::to_string(i)); ++i)
      expected.push_back(c.get<T>("out" + std::to_string(i)));
    for (const auto& layout_and_make : layouts) {
      const std::string& layout = layout_and_make.first;
      const auto make = layout_and_make.second;
      INFO(layout);
      List<T> args;
      for (const auto& t : inputs) args.push_back(make(t));
      const List<T> got = ops.at(op)(args);
      REQUIRE(got.size() == expected.size());
      for (std::size_t i = 0; i < got.size(); ++i) fixtures::check_close(got[i], expected[i], 0, 0, name);
    }
  }
  CHECK(cases == static_cast<int>(ops.size()));  // every registered op has its case
}

}  // namespace

TEST_CASE_TEMPLATE("join and rearrange ops match PyTorch for every layout", T, float, double, int32_t, int64_t, uint8_t,
                   bool) {
  check_fixtures<T>();
}

TEST_CASE("cat copies blocks of contiguous inputs and agrees on other layouts and expanded inputs") {
  const auto a = tl::arange<float>(6).view({2, 3});
  const auto b = tl::arange<float>(6, 10).view({2, 2});
  const auto cat = tl::cat({a, b}, 1);
  CHECK(cat.is_contiguous());
  CHECK(cat.to_vector() == std::vector<float>{0, 1, 2, 6, 7, 3, 4, 5, 8, 9});
  CHECK_FALSE(cat.is_alias_of(a));
  // Expanded (stride 0) and transposed inputs take the strided path.
  const auto row = tl::arange<float>(3).view({1, 3}).expand({2, 3});
  CHECK(tl::cat({row, a.t().contiguous().t()}, 0).to_vector() == tl::cat({row.contiguous(), a}, 0).to_vector());
  // A single input is copied, not returned.
  const auto c = tl::cat({a});
  CHECK_FALSE(c.is_alias_of(a));
  CHECK(c.to_vector() == a.to_vector());
  // Large enough to be split across threads.
  const auto big = tl::arange<int64_t>(200000).view({1000, 200});
  const auto joined = tl::cat({big, big.slice(1, 0, 50)}, 1);
  CHECK(joined.sizes() == tl::Shape{1000, 250});
  CHECK(joined.index({999, 249}).item() == 999 * 200 + 49);
  CHECK(joined.index({500, 10}).item() == 500 * 200 + 10);
}

TEST_CASE("join ops accept std::vector and braces and single-input ops accept expressions") {
  const auto a = tl::arange<float>(4);
  std::vector<tl::Tensor<float>> list{a, a};
  CHECK(tl::stack(list, 1).sizes() == tl::Shape{4, 2});
  CHECK(tl::hstack(list).sizes() == tl::Shape{8});
  CHECK(tl::vstack(list).sizes() == tl::Shape{2, 4});
  CHECK(tl::concat({a, a}).sizes() == tl::Shape{8});
  const auto pieces = tl::chunk(a * 2.f, 2);
  REQUIRE(pieces.size() == 2);
  CHECK(pieces[1].to_vector() == std::vector<float>{4, 6});
  CHECK(tl::split(a + 1.f, 3)[1].to_vector() == std::vector<float>{4});
  CHECK(tl::unbind(a - 1.f)[0].item() == -1.f);
  CHECK(tl::tensor_split(a * a, 2)[1].to_vector() == std::vector<float>{4, 9});
}

TEST_CASE("chunk, split, tensor_split and unbind return views of their input") {
  auto x = tl::zeros<float>({4, 6});
  auto chunks = x.chunk(2, 1);
  chunks[1].fill_(1.f);
  CHECK(x.index({0, 3}).item() == 1.f);
  CHECK(x.index({0, 2}).item() == 0.f);
  auto parts = tl::split(x, {1, 3}, 0);
  parts[1].fill_(2.f);
  CHECK(x.index({3, 0}).item() == 2.f);
  auto sections = tl::tensor_split(x.t(), {2, 4});
  sections[2].fill_(3.f);
  CHECK(x.index({0, 5}).item() == 3.f);
  auto rows = x.unbind(0);
  REQUIRE(rows.size() == 4);
  rows[0].fill_(4.f);
  CHECK(x.index({0, 0}).item() == 4.f);
  for (const auto& t : tl::split(x, 4, 1)) CHECK(t.is_alias_of(x));
  CHECK(tl::split(x, 4, 1)[1].storage_offset() == 4);
}

TEST_CASE("cat and stack errors follow PyTorch's wording") {
  const auto a = tl::zeros<float>({2, 3});
  CHECK_THROWS_WITH_AS(tl::cat(std::vector<tl::Tensor<float>>{}), "cat: expected a non-empty list of Tensors",
                       tl::ValueError);
  CHECK_THROWS_WITH_AS(tl::cat({tl::zeros<float>({2, 3}), tl::zeros<float>({3, 3})}, 1),
                       "cat: sizes of tensors must match except in dimension 1. Expected size 2 but got size 3 for "
                       "tensor number 1 in the list.",
                       tl::ShapeError);
  CHECK_THROWS_WITH_AS(tl::cat({a, tl::zeros<float>({2, 3, 1})}),
                       "cat: tensors must have same number of dimensions: got 2 and 3", tl::ShapeError);
  CHECK_THROWS_WITH_AS(tl::cat({a, tl::scalar_tensor(1.f)}),
                       "cat: zero-dimensional tensor (at position 1) cannot be concatenated", tl::ShapeError);
  CHECK_THROWS_WITH_AS(tl::cat({a, a}, 2),
                       "cat: dimension out of range (expected to be in range of [-2, 1], but got 2)", tl::IndexError);
  CHECK_THROWS_WITH_AS(tl::cat({tl::zeros<float>({0}), tl::zeros<float>({0})}, 1),
                       "cat: dimension out of range (expected to be in range of [-1, 0], but got 1)", tl::IndexError);
  CHECK(tl::cat({tl::zeros<float>({0}), tl::zeros<float>({0})}).sizes() == tl::Shape{0});
  float host[4] = {};
  const auto fake_cuda = tl::from_blob(host, {2, 2}, {2, 1}, {}, tl::Device(tl::kCUDA, 0));
  CHECK_THROWS_WITH_AS(tl::cat({tl::zeros<float>({2, 2}), fake_cuda}),
                       doctest::Contains("cat: expected all tensors to be on the same device"), tl::DeviceError);
  CHECK_THROWS_WITH_AS(tl::stack(std::vector<tl::Tensor<float>>{}), "stack: expects a non-empty TensorList",
                       tl::ValueError);
  CHECK_THROWS_WITH_AS(tl::stack({a, tl::zeros<float>({2, 4})}),
                       "stack: expects each tensor to be equal size, but got [2, 3] at entry 0 and [2, 4] at entry 1",
                       tl::ShapeError);
  CHECK_THROWS_WITH_AS(tl::stack({a, a}, 3),
                       "stack: dimension out of range (expected to be in range of [-3, 2], but got 3)", tl::IndexError);
  CHECK_THROWS_WITH_AS(tl::hstack(std::vector<tl::Tensor<float>>{}), "hstack: expects a non-empty TensorList",
                       tl::ValueError);
  CHECK_THROWS_WITH_AS(tl::vstack(std::vector<tl::Tensor<float>>{}), "vstack: expects a non-empty TensorList",
                       tl::ValueError);
  CHECK_THROWS_AS(tl::hstack({a, tl::zeros<float>({3})}), tl::ShapeError);
}

TEST_CASE("split errors follow PyTorch's wording") {
  const auto x = tl::zeros<float>({5, 2});
  const auto s = tl::scalar_tensor(1.f);
  CHECK_THROWS_WITH_AS(x.chunk(0), "chunk: expects `chunks` to be greater than 0, got: 0", tl::ValueError);
  CHECK_THROWS_WITH_AS(s.chunk(2), "chunk: expects at least a 1-dimensional tensor", tl::ShapeError);
  CHECK_THROWS_WITH_AS(x.chunk(2, 2), "chunk: dimension out of range (expected to be in range of [-2, 1], but got 2)",
                       tl::IndexError);
  CHECK_THROWS_WITH_AS(x.split(-1), "split: expects split_size be non-negative, but got split_size=-1", tl::ValueError);
  CHECK_THROWS_WITH_AS(x.split(0),
                       "split: split_size can only be 0 if dimension size is 0, but got dimension size of 5",
                       tl::ValueError);
  CHECK(tl::zeros<float>({0}).split(0).size() == 1);
  CHECK_THROWS_WITH_AS(s.split(1), "split: expects at least a 1-dimensional tensor", tl::ShapeError);
  CHECK_THROWS_WITH_AS(x.split({2, 2}),
                       "split_with_sizes: expects split_sizes to sum exactly to 5 (input tensor's size at dimension "
                       "0), but got split_sizes=[2, 2]",
                       tl::ShapeError);
  CHECK_THROWS_WITH_AS(tl::split_with_sizes(x, {6, -1}),
                       "split_with_sizes: expects split_sizes have only non-negative entries, but got "
                       "split_sizes=[6, -1]",
                       tl::ValueError);
  // Lists longer than a Shape holds still print in the message.
  CHECK_THROWS_WITH_AS(tl::split(tl::zeros<float>({30}), std::vector<int64_t>(20, 1)),
                       doctest::Contains("but got split_sizes=[1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, "
                                         "1, 1]"),
                       tl::ShapeError);
  CHECK_THROWS_WITH_AS(tl::tensor_split(x, 0), "tensor_split: number of sections must be larger than 0, got 0",
                       tl::ValueError);
  CHECK_THROWS_WITH_AS(tl::tensor_split(s, 2),
                       "tensor_split: expected at least a 1-dimensional tensor, but got a tensor with 0 dims",
                       tl::ShapeError);
  CHECK_THROWS_AS(tl::tensor_split(s, {1}), tl::ShapeError);
  CHECK_THROWS_AS(tl::tensor_split(x, {1}, -3), tl::IndexError);
  CHECK_THROWS_WITH_AS(s.unbind(), "unbind: dimension specified as 0 but tensor has no dimensions", tl::IndexError);
  CHECK_THROWS_WITH_AS(tl::zeros<float>({2}).unbind(1),
                       "unbind: dimension out of range (expected to be in range of [-1, 0], but got 1)",
                       tl::IndexError);
}
