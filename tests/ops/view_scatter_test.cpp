// The view scatters (ops/view_scatter.hpp) against PyTorch 1.13
// (tests/fixtures/generate_composite_ops.py): a copy of the input with one
// view replaced, the input untouched; PyTorch's error messages. Their
// gradients are in tests/autograd/op_gradcheck_test.cpp.

#include <doctest/doctest.h>

#include <cstdint>
#include <string>

#include "fixtures.hpp"

TEST_CASE("select_scatter, slice_scatter, diagonal_scatter and as_strided_scatter against PyTorch") {
  const auto& f = fixtures::load("composite_ops.txt");
  const auto& s = f["select_scatter"];
  const auto x = s.get<float>("input");
  const auto before = x.clone();
  fixtures::check_close(tl::select_scatter(x, s.get<float>("src"), 1, -2), s.get<float>("r"), 0, 0, "select_scatter");
  const auto& l = f["slice_scatter"];
  fixtures::check_close(tl::slice_scatter(x, l.get<float>("src"), 1, 1, tl::None, 2), l.get<float>("r"), 0, 0,
                        "slice_scatter");
  const auto& d = f["diagonal_scatter"];
  fixtures::check_close(tl::diagonal_scatter(x, d.get<float>("src"), -1, 0, 1), d.get<float>("r"), 0, 0,
                        "diagonal_scatter");
  const auto& a = f["as_strided_scatter"];
  fixtures::check_close(tl::as_strided_scatter(x, a.get<float>("src"), {2, 3}, {7, 2}, 4), a.get<float>("r"), 0, 0,
                        "as_strided_scatter");
  // A transposed input: the strides address its own (transposed) layout, as PyTorch's clone keeps it.
  fixtures::check_close(tl::as_strided_scatter(x.transpose(0, 2), a.get<float>("src"), {2, 3}, {7, 2}, 4).contiguous(),
                        a.get<float>("r_transposed"), 0, 0, "as_strided_scatter of a transposed input");
  CHECK(tl::equal(x, before));  // out of place
  // A non-contiguous input and an expression as src.
  const auto t = x.transpose(0, 2);  // (5, 4, 3)
  const tl::Tensor<float> expected = tl::select_scatter(t.contiguous(), s.get<float>("src").t() * 2.f, 1, 0);
  CHECK(tl::equal(tl::select_scatter(t, s.get<float>("src").t() * 2.f, 1, 0), expected));
  CHECK(fixtures::error_message([&] { (void)tl::select_scatter(x, tl::ones<float>({3}), 1, 0); }) ==
        "select_scatter: expected src to have a size equal to the slice of self. src size = [3], slice size = [3, 5]");
  CHECK(fixtures::error_message([&] {
          (void)tl::slice_scatter(x, tl::ones<float>({3, 4, 5}), 1, 1);
        }) ==
        "slice_scatter: expected src to have a size equal to the slice of self. src size = [3, 4, 5], slice size = "
        "[3, 3, 5]");
  CHECK(fixtures::error_message([&] {
          (void)tl::as_strided_scatter(x, tl::ones<float>({2}), {2}, {0});
        }).find("more than one element of the written-to tensor refers to a single memory location") !=
        std::string::npos);
  const tl::Tensor<int32_t> ints = tl::diagonal_scatter(tl::zeros<int32_t>({2, 2}), tl::tensor<int32_t>({7, 8}));
  CHECK(ints.to_vector() == std::vector<int32_t>{7, 0, 0, 8});
}
