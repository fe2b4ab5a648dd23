// Expression templates: laziness, ownership, broadcasting, evaluation
// triggers, fusion (counted), assignment semantics and alias safety.

#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "fixtures.hpp"

namespace {

template <class T>
std::vector<T> values(const tl::Tensor<T>& t) {
  return t.to_vector();
}

}  // namespace

TEST_CASE("expressions are lazy and fuse: a 6-op chain over 3 inputs runs as one loop") {
  const auto a = tl::arange<float>(0, 12).view({3, 4});
  const auto b = tl::full<float>({3, 4}, 2.f);
  const auto c = tl::linspace(-1, 1, 4);  // broadcast row
  const auto before = tl::stats::snapshot();
  auto e = (a * b + tl::sigmoid(c)) / (a + 1) - tl::exp(c) * 0.5f;  // 6 ops
  CHECK((tl::stats::snapshot() - before).fused_loops == 0);         // nothing ran yet
  CHECK(e.shape() == tl::Shape{3, 4});
  const tl::Tensor<float> y = e;
  const auto d = tl::stats::snapshot() - before;
  CHECK(d.fused_loops == 1);
  CHECK(d.allocations == 1);  // the output only: no temporaries
  const auto av = values(a), cv = values(c);
  const auto yv = values(y);
  for (int i = 0; i < 12; ++i) {
    const float x = av[i], r = cv[i % 4];
    const float expect = (x * 2 + 1 / (1 + std::exp(-r))) / (x + 1) - std::exp(r) * 0.5f;
    CHECK(yv[i] == doctest::Approx(expect).epsilon(1e-6));
  }
}

TEST_CASE("expression nodes own their operands: no dangling after the inputs go away") {
  auto make = [] {
    auto a = tl::full<float>({4}, 3.f);
    auto b = tl::full<float>({4}, 4.f);
    return tl::sqrt(a * a + b * b);  // a and b die here; the node keeps them
  };
  const auto e = make();
  const tl::Tensor<float> y = e;
  CHECK(values(y) == std::vector<float>(4, 5.f));
}

TEST_CASE("broadcasting follows NumPy rules") {
  const auto col = tl::arange<float>(3).view({3, 1});
  const auto row = tl::arange<float>(4);
  const tl::Tensor<float> s = col * 10 + row;
  CHECK(s.sizes() == tl::Shape{3, 4});
  CHECK(values(s) == std::vector<float>{0, 1, 2, 3, 10, 11, 12, 13, 20, 21, 22, 23});
  const auto x = tl::ones<float>({2, 1, 5});
  const auto y = tl::ones<float>({3, 1});
  CHECK((x + y).shape() == tl::Shape{2, 3, 5});
  const auto z = tl::scalar_tensor(2.f);
  CHECK((x * z).shape() == tl::Shape{2, 1, 5});
  const auto empty = tl::ones<float>({0, 3});
  CHECK((empty + row.slice(0, 0, 3)).shape() == tl::Shape{0, 3});
  CHECK(tl::Tensor<float>(empty * 2).numel() == 0);
}

TEST_CASE("non-broadcastable shapes throw a ShapeError naming the op and both shapes") {
  const auto a = tl::ones<float>({2, 3});
  const auto b = tl::ones<float>({4});
  CHECK_THROWS_WITH_AS(a + b, "add: shapes [2, 3] and [4] cannot broadcast", tl::ShapeError);
  CHECK_THROWS_WITH_AS(tl::maximum(a, b), "maximum: shapes [2, 3] and [4] cannot broadcast", tl::ShapeError);
  CHECK_THROWS_AS(tl::where(a > 0, a, b), tl::ShapeError);
}

TEST_CASE("evaluation happens on assignment, eval() and when a non-pointwise op consumes") {
  const auto a = tl::arange<float>(6).view({2, 3});
  auto lazy = a * 2;
  const auto before = tl::stats::snapshot();
  const tl::Tensor<float> viaEval = lazy.eval();
  CHECK(viaEval.sizes() == tl::Shape{2, 3});
  tl::Tensor<float> assigned;
  assigned = lazy + 1;
  const auto t = tl::Tensor<float>(lazy).t();  // a view consumes a materialized tensor
  CHECK((tl::stats::snapshot() - before).fused_loops == 3);
  CHECK(values(assigned) == std::vector<float>{1, 3, 5, 7, 9, 11});
  CHECK(t.sizes() == tl::Shape{3, 2});
}

TEST_CASE("assigning to a variable rebinds, assigning to a view writes through") {
  auto x = tl::zeros<float>({2, 2});
  auto alias = x;  // the same tensor
  x = x + 1;       // rebinds x to a new tensor
  CHECK(values(alias) == std::vector<float>(4, 0.f));
  CHECK(values(x) == std::vector<float>(4, 1.f));
  x.select(0, 1) = tl::full<float>({2}, 7.f);  // writes into x
  CHECK(values(x) == std::vector<float>{1, 1, 7, 7});
  x.index({tl::Slice(), 0}) = 5;
  CHECK(values(x) == std::vector<float>{5, 1, 5, 7});
  x.slice(1, 1) = x.slice(1, 0, 1) * 10;  // broadcast a column into a column
  CHECK(values(x) == std::vector<float>{5, 50, 5, 50});
}

TEST_CASE("writes are alias-safe when the source overlaps the destination") {
  auto x = tl::arange<float>(9).view({3, 3}).clone();
  const auto expect_t = [](const std::vector<float>& v) {
    std::vector<float> r(9);
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) r[i * 3 + j] = v[i * 3 + j] + v[j * 3 + i];
    return r;
  };
  const auto before = values(x);
  x += x.t();  // reads elements the same pass overwrites: needs a temporary
  CHECK(values(x) == expect_t(before));

  auto y = tl::arange<float>(6).clone();
  y.slice(0, 1) = y.slice(0, 0, 5);  // shift right by one, overlapping
  CHECK(values(y) == std::vector<float>{0, 0, 1, 2, 3, 4});

  auto z = tl::arange<float>(4).clone();
  const auto count = tl::stats::snapshot();
  z.copy_(z * 2 + 1);  // element-for-element alias: one pass, no temporary
  CHECK((tl::stats::snapshot() - count).allocations == 0);
  CHECK(values(z) == std::vector<float>{1, 3, 5, 7});

  auto w = tl::arange<float>(8).clone();
  w.slice(0, 0, 4) += w.slice(0, 4, 8);  // same storage, disjoint ranges: one pass
  CHECK(values(w) == std::vector<float>{4, 6, 8, 10, 4, 5, 6, 7});
}

TEST_CASE("writing into an expanded tensor is rejected like PyTorch, except a fill") {
  auto e = tl::zeros<float>({1, 3}).expand({4, 3});
  CHECK_THROWS_WITH_AS(e += 1, doctest::Contains("more than one element of the written-to tensor"), tl::ValueError);
  CHECK_THROWS_AS(e.copy_(tl::ones<float>({4, 3})), tl::ValueError);
  CHECK_THROWS_AS(e.index_put_({tl::Slice(), 0}, tl::tensor<float>({1, 2, 3, 4})), tl::ValueError);
  // A fill stores one value in the shared element, and PyTorch allows it,
  // also through a scalar index_put_ (Note [fills of expanded tensors]).
  e.fill_(1.f);
  e.index_put_({tl::Slice(), 0}, 2);  // a column of the expanded tensor
  CHECK(e.to_vector() == std::vector<float>{2, 1, 1, 2, 1, 1, 2, 1, 1, 2, 1, 1});
}

TEST_CASE("scalars that do not fit the element type are rejected, small negatives wrap on unsigned") {
  const auto u = tl::tensor<uint8_t>({5, 200});
  CHECK_THROWS_WITH_AS(u + 300, "value 300 cannot be converted to type uint8 without overflow", tl::ValueError);
  const tl::Tensor<uint8_t> down = u - 1;  // PyTorch allows -255..255 for uint8
  CHECK(down.to_vector() == std::vector<uint8_t>{4, 199});
  CHECK_THROWS_AS(tl::tensor<int32_t>({1}) * (int64_t{1} << 40), tl::ValueError);
  CHECK_THROWS_AS(tl::clamp(u, 0, 1000), tl::ValueError);
  const tl::Tensor<float> f = tl::tensor({1.f}) + 1e300;  // floating: inf, no error (PyTorch)
  CHECK(std::isinf(f.item()));
}

TEST_CASE("a NaN clamp bound gives NaN, as in PyTorch") {
  const auto x = tl::tensor({1.f, 5.f});
  const tl::Tensor<float> y = tl::clamp(x, std::nanf(""), 2.f);
  CHECK(std::isnan(y.to_vector()[0]));
  CHECK(std::isnan(y.to_vector()[1]));
}

TEST_CASE("operands on different devices are a DeviceError naming both") {
  float host[2] = {1, 2};
  // A tensor merely labelled CUDA (no kernel ever touches it): enough to
  // reach the device check while building the expression.
  const auto fake_cuda = tl::from_blob(host, {2}, {1}, {}, tl::Device(tl::kCUDA, 0));
  const auto cpu = tl::ones<float>({2});
  CHECK_THROWS_WITH_AS(cpu + fake_cuda,
                       "add: expected all tensors to be on the same device, but found at least two devices, cpu and "
                       "cuda:0",
                       tl::DeviceError);
}

TEST_CASE("activation argument errors") {
  const auto x = tl::ones<float>({2});
  CHECK_THROWS_WITH_AS(tl::gelu(x, "fast"), "gelu: approximate must be 'none' or 'tanh', got 'fast'", tl::ValueError);
  CHECK_THROWS_AS(tl::hardtanh(x, 1.0, -1.0), tl::ValueError);
}

TEST_CASE("expressions are lazy: they read their inputs when evaluated, not when built") {
  // A documented difference from PyTorch's eager evaluation.
  auto a = tl::ones<float>({2});
  const auto e = a * 2;
  a.fill_(5.f);
  const tl::Tensor<float> y = e;
  CHECK(y.to_vector() == std::vector<float>{10, 10});
}

TEST_CASE("scalar operands of every kind") {
  const auto x = tl::tensor({1.f, 2.f});
  CHECK(values(tl::Tensor<float>(2 * x + 1)) == std::vector<float>{3, 5});
  CHECK(values(tl::Tensor<float>(1 - x)) == std::vector<float>{0, -1});
  CHECK(values(tl::Tensor<float>(x / 2.0)) == std::vector<float>{0.5, 1});
  CHECK(values(tl::Tensor<float>(8 / x)) == std::vector<float>{8, 4});
  CHECK(values(tl::Tensor<bool>(x > 1)) == std::vector<bool>{false, true});
  CHECK(values(tl::Tensor<float>(tl::where(x > 1, x, 0.f))) == std::vector<float>{0, 2});
  CHECK(values(tl::Tensor<float>(tl::where(x > 1, 1.f, -1.f))) == std::vector<float>{-1, 1});
}

TEST_CASE("methods on expressions and tensors build the same nodes as free functions") {
  const auto x = tl::tensor({-1.f, 0.5f, 2.f});
  const tl::Tensor<float> a = (x * 2).abs().sqrt();
  const tl::Tensor<float> b = tl::sqrt(tl::abs(x * 2));
  CHECK(values(a) == values(b));
  const tl::Tensor<float> c = x.clamp(0, 1).add(1).mul(x.exp());
  const tl::Tensor<float> d = (tl::clamp(x, 0, 1) + 1) * tl::exp(x);
  CHECK(values(c) == values(d));
  const tl::Tensor<double> e = (x + 1).to<double>();
  CHECK(e.to_vector()[2] == 3.0);
}

TEST_CASE("an expression of another element type does not convert implicitly") {
  const auto i = tl::tensor({1, 2});
  const tl::Tensor<float> ok = (i * 2).to<float>();
  CHECK(values(ok) == std::vector<float>{2, 4});
  const tl::Tensor<int64_t> same = i * 2;
  CHECK(values(same) == std::vector<int64_t>{2, 4});
}
