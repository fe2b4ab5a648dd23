// NumPy's joins and splits (ops/stacking.hpp): vander, block_diag,
// column_stack and dstack against PyTorch 1.13
// (tests/fixtures/generate_aliases.py); atleast_nd, hsplit/vsplit/dsplit,
// row_stack and concatenate by their definitions in terms of reshape,
// tensor_split, vstack and cat; PyTorch's error messages. Their gradients
// are in tests/autograd/op_gradcheck_test.cpp.

#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "fixtures.hpp"

namespace {

template <class T>
void check_pieces(const std::vector<tl::Tensor<T>>& got, const std::vector<tl::Tensor<T>>& want,
                  const tl::Tensor<T>& base, const std::string& what) {
  CAPTURE(what);
  REQUIRE(got.size() == want.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    CHECK(got[i].sizes() == want[i].sizes());
    CHECK(tl::equal(got[i], want[i]));
    CHECK(got[i].is_alias_of(base));  // views, as in PyTorch
  }
}

}  // namespace

TEST_CASE("vander against PyTorch: default, N, increasing, integers give int64") {
  const auto& f = fixtures::load("aliases.txt");
  const auto& d = f["vander/default"];
  fixtures::check_close(tl::vander(d.get<float>("x")), d.get<float>("r"), 0, 0, "vander");
  const auto& i = f["vander/N3_increasing"];
  fixtures::check_close(tl::vander(i.get<float>("x"), 3, true), i.get<float>("r"), 0, 0, "vander N=3 increasing");
  const auto& n = f["vander/N6"];
  fixtures::check_close(tl::vander(n.get<double>("x"), 6), n.get<double>("r"), 0, 0, "vander N=6");
  const auto& k = f["vander/int32"];
  const tl::Tensor<int64_t> vi = tl::vander(k.get<int32_t>("x"));
  CHECK(vi.to_vector() == k.get<int64_t>("r").to_vector());
  // N = 0 gives (n, 0); a strided input reads its elements.
  CHECK(tl::vander(d.get<float>("x"), 0).sizes() == tl::Shape{4, 0});
  const auto strided = tl::arange<float>(0, 8).slice(0, tl::None, tl::None, 2);
  fixtures::check_close(tl::vander(strided, 3),
                        tl::tensor<float>({{0.f, 0.f, 1.f}, {4.f, 2.f, 1.f}, {16.f, 4.f, 1.f}, {36.f, 6.f, 1.f}}), 0, 0,
                        "vander of a strided input");
  CHECK(fixtures::error_message([] {
          (void)tl::vander(tl::ones<float>({2, 2}));
        }) == "vander: x must be a one-dimensional tensor, got 2 dimensions");
  CHECK(fixtures::error_message([] { (void)tl::vander(tl::ones<float>({2}), -1); }) ==
        "vander: N must be non-negative, got -1");
}

TEST_CASE("block_diag, column_stack and dstack against PyTorch") {
  const auto& f = fixtures::load("aliases.txt");
  const auto& b = f["block_diag"];
  const auto a = b.get<float>("a");
  fixtures::check_close(tl::block_diag({a, b.get<float>("b"), b.get<float>("c"), a.t()}), b.get<float>("r"), 0, 0,
                        "block_diag");
  const auto& c = f["column_stack"];
  const auto cb = c.get<float>("b");
  fixtures::check_close(tl::column_stack({c.get<float>("a"), cb, cb}), c.get<float>("r"), 0, 0, "column_stack");
  const auto& d = f["dstack"];
  fixtures::check_close(tl::dstack({d.get<float>("a"), d.get<float>("b")}), d.get<float>("r"), 0, 0, "dstack");
  // Empty blocks keep their place; no block at all is (1, 0), as PyTorch's.
  CHECK(tl::block_diag({tl::ones<float>({0, 2}), tl::ones<float>({1, 0})}).sizes() == tl::Shape{1, 2});
  CHECK(tl::block_diag(std::vector<tl::Tensor<float>>{}).sizes() == tl::Shape{1, 0});
  const tl::Tensor<int32_t> bi = tl::block_diag({tl::tensor<int32_t>({1, 2}), tl::scalar_tensor<int32_t>(3)});
  CHECK(bi.to_vector() == std::vector<int32_t>{1, 2, 0, 0, 0, 3});
  CHECK(fixtures::error_message([] {
          (void)tl::block_diag({tl::ones<float>({2, 2, 2})});
        }) == "block_diag: Input tensors must have 2 or fewer dimensions. Input 0 has 3 dimensions");
  CHECK(fixtures::error_message([] { (void)tl::column_stack(std::vector<tl::Tensor<float>>{}); }) ==
        "column_stack: expects a non-empty TensorList");
  CHECK(fixtures::error_message([] { (void)tl::dstack(std::vector<tl::Tensor<float>>{}); }) ==
        "dstack: expects a non-empty TensorList");
}

TEST_CASE("atleast_1d/2d/3d are views of the shapes NumPy gives") {
  const auto s = tl::scalar_tensor(2.f);
  const auto v = tl::arange<float>(0, 3);
  const auto m = tl::arange<float>(0, 6).reshape({2, 3});
  const auto c = tl::arange<float>(0, 24).reshape({2, 3, 4});
  CHECK(tl::atleast_1d(s).sizes() == tl::Shape{1});
  CHECK(tl::atleast_1d(m).is_same(m));
  CHECK(tl::atleast_2d(s).sizes() == tl::Shape{1, 1});
  CHECK(tl::atleast_2d(v).sizes() == tl::Shape{1, 3});
  CHECK(tl::atleast_2d(c).is_same(c));
  CHECK(tl::atleast_3d(s).sizes() == tl::Shape{1, 1, 1});
  CHECK(tl::atleast_3d(v).sizes() == tl::Shape{1, 3, 1});
  CHECK(tl::atleast_3d(m).sizes() == tl::Shape{2, 3, 1});
  CHECK(tl::atleast_3d(c).is_same(c));
  CHECK(tl::atleast_3d(m).is_alias_of(m));
  const auto list = tl::atleast_2d(std::vector<tl::Tensor<float>>{s, v, c});
  REQUIRE(list.size() == 3);
  CHECK(list[0].sizes() == tl::Shape{1, 1});
  CHECK(list[1].sizes() == tl::Shape{1, 3});
  CHECK(list[2].is_same(c));
  // An expression is evaluated first.
  CHECK(tl::atleast_2d(v * 2).sizes() == tl::Shape{1, 3});
}

TEST_CASE("hsplit, vsplit and dsplit are tensor_split along dims 1 (0 for 1-d), 0 and 2") {
  const auto m = tl::arange<float>(0, 24).reshape({4, 6});
  check_pieces(tl::hsplit(m, 3), tl::tensor_split(m, 3, 1), m, "hsplit sections");
  check_pieces(m.hsplit({1, 4}), tl::tensor_split(m, {1, 4}, 1), m, "hsplit indices");
  const auto v = tl::arange<float>(0, 6);
  check_pieces(tl::hsplit(v, 2), tl::tensor_split(v, 2, 0), v, "hsplit of a 1-d tensor");
  check_pieces(tl::vsplit(m, {1}), tl::tensor_split(m, {1}, 0), m, "vsplit braces are indices");
  check_pieces(m.vsplit(2), tl::tensor_split(m, 2, 0), m, "vsplit sections");
  const auto c = tl::arange<float>(0, 24).reshape({2, 3, 4});
  check_pieces(c.dsplit(2), tl::tensor_split(c, 2, 2), c, "dsplit sections");
  check_pieces(tl::dsplit(c, std::vector<int64_t>{3, 10}), tl::tensor_split(c, {3, 10}, 2), c, "dsplit indices");
  CHECK(fixtures::error_message([&] { (void)m.hsplit(4); }) ==
        "hsplit: attempted to split along dimension 1, but the size of the dimension 6 is not divisible by the "
        "split_size 4!");
  CHECK(fixtures::error_message([] { (void)tl::hsplit(tl::scalar_tensor(1.f), 1); }) ==
        "hsplit: requires a tensor with at least 1 dimension, but got a tensor with 0 dimensions");
  CHECK(fixtures::error_message([&] { (void)tl::vsplit(v, 2); }) ==
        "vsplit: requires a tensor with at least 2 dimensions, but got a tensor with 1 dimensions");
  CHECK(fixtures::error_message([&] { (void)m.dsplit(2); }) ==
        "dsplit: requires a tensor with at least 3 dimensions, but got a tensor with 2 dimensions");
  CHECK(fixtures::error_message([&] { (void)m.vsplit(0); }) ==
        "vsplit: number of sections must be larger than 0, got 0");
}

TEST_CASE("row_stack is vstack and concatenate is cat") {
  const auto a = tl::arange<float>(0, 3), b = tl::arange<float>(3, 6);
  CHECK(tl::equal(tl::row_stack({a, b}), tl::vstack({a, b})));
  CHECK(tl::equal(tl::concatenate({a, b}), tl::cat({a, b})));
  const auto m = a.reshape({1, 3});
  CHECK(tl::equal(tl::concatenate(std::vector<tl::Tensor<float>>{m, m}, 1), tl::cat({m, m}, 1)));
}

TEST_CASE("unsafe_chunk, unsafe_split and unsafe_split_with_sizes are chunk and split") {
  const auto m = tl::arange<float>(0, 10).reshape({5, 2});
  check_pieces(tl::unsafe_chunk(m, 2), tl::chunk(m, 2), m, "unsafe_chunk");
  check_pieces(tl::unsafe_split(m, 2), tl::split(m, 2), m, "unsafe_split");
  check_pieces(tl::unsafe_split_with_sizes(m, {1, 4}), tl::split_with_sizes(m, {1, 4}), m, "unsafe_split_with_sizes");
}
