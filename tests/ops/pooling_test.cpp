// Pooling (ops/pooling.hpp) against PyTorch 1.13
// (tests/fixtures/generate_convolution.py): max pools with their indices,
// average pools (ceil_mode, count_include_pad, divisor_override), adaptive
// pools, lp pools and max_unpool, with the gradients of their inputs; then
// gradchecks, PyTorch's tie and -inf rules, and its errors.

#include <doctest/doctest.h>

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "fixtures.hpp"
#include "tensorlib/tensorlib.hpp"

namespace {

tl::Shape pool_shape(const fixtures::Case& c, const std::string& key) {
  tl::Shape s;
  for (int64_t v : c.get<int64_t>(key).to_vector()) s.push_back(v);
  return s;
}

tl::Tensor<double> grad_of(const tl::Tensor<double>& r, const tl::Tensor<double>& x, const tl::Tensor<double>& g) {
  return tl::autograd::grad({r}, std::vector<tl::Tensor<double>>{x}, {g})[0];
}

bool starts_with(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

}  // namespace

TEST_CASE("max_pool1d/2d/3d against PyTorch: values, indices, gradients; padding, dilation, ceil_mode") {
  const auto& f = fixtures::load("convolution.txt");
  int count = 0;
  for (const auto& [name, c] : f.cases()) {
    if (!starts_with(name, "max_pool")) continue;
    ++count;
    auto x = c.get<double>("x").requires_grad_();
    const tl::Shape k = pool_shape(c, "kernel"), st = pool_shape(c, "stride"), p = pool_shape(c, "padding"),
                    d = pool_shape(c, "dilation");
    const bool ceil = c.get<int64_t>("ceil").to_vector()[0] != 0;
    const char kind = name[8];
    const auto [v, i] = kind == '1'   ? tl::max_pool1d_with_indices(x, k, st, p, d, ceil)
                        : kind == '2' ? tl::max_pool2d_with_indices(x, k, st, p, d, ceil)
                                      : tl::max_pool3d_with_indices(x, k, st, p, d, ceil);
    fixtures::check_close(v, c.get<double>("r"), 0, 0, name);
    CHECK(i.to_vector() == c.get<int64_t>("indices").to_vector());
    fixtures::check_close(grad_of(v, x, c.get<double>("g")), c.get<double>("gx"), 1e-14, 1e-14, name + " gradient");
    const auto plain = kind == '1'   ? tl::max_pool1d(x, k, st, p, d, ceil)
                       : kind == '2' ? tl::max_pool2d(x, k, st, p, d, ceil)
                                     : tl::max_pool3d(x, k, st, p, d, ceil);
    CHECK(tl::equal(plain, v));
  }
  CHECK(count == 7);
  // Ties: the first maximum in window order. A window of -inf only: its
  // first position inside the input, as PyTorch's.
  const auto [tv, ti] = tl::max_pool1d_with_indices(tl::tensor<double>({{1.0, 3.0, 3.0, 2.0, 5.0, 5.0}}), {3}, {1});
  CHECK(ti.to_vector() == std::vector<int64_t>{1, 1, 4, 4});
  const double inf = std::numeric_limits<double>::infinity();
  const auto [iv, ii] = tl::max_pool1d_with_indices(tl::tensor<double>({{-inf, -inf, -inf}}), {3}, {2}, {1});
  CHECK(ii.to_vector() == std::vector<int64_t>{0, 1});
  CHECK(iv.to_vector() == std::vector<double>{-inf, -inf});
}

TEST_CASE("avg_pool1d/2d/3d against PyTorch: ceil_mode, count_include_pad, divisor_override, gradients") {
  const auto& f = fixtures::load("convolution.txt");
  int count = 0;
  for (const auto& [name, c] : f.cases()) {
    if (!starts_with(name, "avg_pool")) continue;
    ++count;
    auto x = c.get<double>("x").requires_grad_();
    const tl::Shape k = pool_shape(c, "kernel"), st = pool_shape(c, "stride"), p = pool_shape(c, "padding");
    const bool ceil = c.get<int64_t>("ceil").to_vector()[0] != 0;
    const bool include = c.get<int64_t>("count_include_pad").to_vector()[0] != 0;
    const auto div = c.get<int64_t>("divisor").to_vector();
    const std::optional<int64_t> divisor = div.empty() ? std::nullopt : std::optional<int64_t>(div[0]);
    const char kind = name[8];
    const auto r = kind == '1'   ? tl::avg_pool1d(x, k, st, p, ceil, include)
                   : kind == '2' ? tl::avg_pool2d(x, k, st, p, ceil, include, divisor)
                                 : tl::avg_pool3d(x, k, st, p, ceil, include, divisor);
    fixtures::check_close(r, c.get<double>("r"), 1e-14, 1e-15, name);
    fixtures::check_close(grad_of(r, x, c.get<double>("g")), c.get<double>("gx"), 1e-14, 1e-15, name + " gradient");
  }
  CHECK(count == 7);
}

TEST_CASE("adaptive pools, lp pools and max_unpool against PyTorch") {
  const auto& f = fixtures::load("convolution.txt");
  int count = 0;
  for (const auto& [name, c] : f.cases()) {
    if (!starts_with(name, "adaptive")) continue;
    ++count;
    auto x = c.get<double>("x").requires_grad_();
    const tl::Shape out = pool_shape(c, "out");
    const char kind = name[8];
    const auto avg = kind == '1'   ? tl::adaptive_avg_pool1d(x, out)
                     : kind == '2' ? tl::adaptive_avg_pool2d(x, out)
                                   : tl::adaptive_avg_pool3d(x, out);
    fixtures::check_close(avg, c.get<double>("avg"), 1e-14, 1e-15, name + " avg");
    fixtures::check_close(grad_of(avg, x, c.get<double>("avg_g")), c.get<double>("avg_gx"), 1e-14, 1e-15,
                          name + " avg gradient");
    const auto [mv, mi] = kind == '1'   ? tl::adaptive_max_pool1d_with_indices(x, out)
                          : kind == '2' ? tl::adaptive_max_pool2d_with_indices(x, out)
                                        : tl::adaptive_max_pool3d_with_indices(x, out);
    fixtures::check_close(mv, c.get<double>("max"), 0, 0, name + " max");
    CHECK(mi.to_vector() == c.get<int64_t>("max_indices").to_vector());
    // An element the maximum of overlapping windows sums their gradients in any order.
    fixtures::check_close(grad_of(mv, x, c.get<double>("max_g")), c.get<double>("max_gx"), 1e-14, 1e-15,
                          name + " max gradient");
  }
  CHECK(count == 5);
  const auto& l1 = f["lp_pool1d"];
  auto x1 = l1.get<double>("x").requires_grad_();
  const auto r1 = tl::lp_pool1d(x1, 2.0, {3}, {2});
  fixtures::check_close(r1, l1.get<double>("r"), 1e-14, 1e-15, "lp_pool1d");
  fixtures::check_close(grad_of(r1, x1, l1.get<double>("g")), l1.get<double>("gx"), 1e-13, 1e-15, "lp_pool1d gradient");
  const auto& l2 = f["lp_pool2d"];
  auto x2 = l2.get<double>("x").requires_grad_();
  const auto r2 = tl::lp_pool2d(x2, 3.0, {3, 2}, {2}, true);
  fixtures::check_close(r2, l2.get<double>("r"), 1e-14, 1e-15, "lp_pool2d");
  fixtures::check_close(grad_of(r2, x2, l2.get<double>("g")), l2.get<double>("gx"), 1e-13, 1e-15, "lp_pool2d gradient");
  const auto& u = f["max_unpool2d"];
  auto v = u.get<double>("v").requires_grad_();
  const auto ru = tl::max_unpool2d(v, u.get<int64_t>("indices"), {2}, {2}, {0}, {6, 7});
  fixtures::check_close(ru, u.get<double>("r"), 0, 0, "max_unpool2d");
  fixtures::check_close(grad_of(ru, v, u.get<double>("g")), u.get<double>("gv"), 0, 0, "max_unpool2d gradient");
  const auto& u1 = f["max_unpool1d"];
  fixtures::check_close(tl::max_unpool1d(u1.get<double>("v"), u1.get<int64_t>("indices"), {3}, {2}, {1}),
                        u1.get<double>("r"), 0, 0, "max_unpool1d");
}

TEST_CASE("pools: gradchecks and PyTorch's errors") {
  using Inputs = std::vector<tl::Tensor<double>>;
  tl::Generator gen(9);
  tl::Tensor<double> x = tl::rand<double>({2, 3, 6, 5}, gen) * 2.0 - 1.0;
  x.requires_grad_();
  CHECK(tl::autograd::gradcheck(
      [](const Inputs& in) {
        return tl::max_pool2d(in[0], {3, 2}, {2, 1}, {1, 0}, {1, 2}, true);
      },
      {x}));
  CHECK(tl::autograd::gradgradcheck([](const Inputs& in) { return tl::avg_pool2d(in[0], {3}, {2}, {1}, true, false); },
                                    {x}));
  CHECK(tl::autograd::gradgradcheck([](const Inputs& in) { return tl::adaptive_avg_pool2d(in[0], {4, 3}); }, {x}));
  CHECK(tl::autograd::gradcheck([](const Inputs& in) { return tl::adaptive_max_pool2d(in[0], {4, 3}); }, {x}));

  const auto y = tl::ones<float>({1, 2, 4, 4});
  CHECK(fixtures::error_message([&] {
          (void)tl::max_pool2d(tl::ones<float>({4, 4}), {2});
        }) == "max_pool2d: non-empty 3D or 4D (batch mode) tensor expected for input, but got input of size [4, 4]");
  CHECK(fixtures::error_message([&] { (void)tl::max_pool2d(y, {3}, {1}, {2}); }) ==
        "max_pool2d: pad should be at most half of effective kernel size, but got pad=2, kernel_size=3 and "
        "dilation=1");
  CHECK(fixtures::error_message([&] { (void)tl::avg_pool2d(y, {3}, {1}, {2}); }) ==
        "avg_pool2d: pad should be at most half of kernel size, but got pad=2, kernel_size=3");
  CHECK(fixtures::error_message([&] { (void)tl::max_pool2d(y, {5}); }) ==
        "max_pool2d: Given input size: (2x4x4). Calculated output size: (2x0x0). Output size is too small");
  CHECK(fixtures::error_message([&] { (void)tl::max_pool2d(y, {0}); }) ==
        "max_pool2d: kernel size should be greater than zero, but got kernel_size=[0, 0]");
  CHECK(fixtures::error_message([&] { (void)tl::avg_pool2d(y, {2}, {0}); }) ==
        "avg_pool2d: stride should be greater than zero, but got stride=[0, 0]");
  CHECK(fixtures::error_message([&] { (void)tl::avg_pool2d(y, {2}, {2}, {0}, false, true, 0); }) ==
        "avg_pool2d: divisor must be not zero");
  // An output size of 0 gives an empty result, as PyTorch's.
  CHECK(tl::adaptive_max_pool2d(y, {0, 2}).sizes() == tl::Shape{1, 2, 0, 2});
  CHECK(tl::adaptive_avg_pool2d(y, {0, 2}).sizes() == tl::Shape{1, 2, 0, 2});
  CHECK(fixtures::error_message([&] {
          (void)tl::adaptive_max_pool2d(y, {-1, 2});
        }) == "adaptive_max_pool2d: elements of output_size must be greater than or equal to 0, but got [-1, 2]");
  CHECK(
      fixtures::error_message([&] {
        (void)tl::max_pool2d(tl::ones<float>({1, 0, 4, 4}), {2});
      }) ==
      "max_pool2d: Expected input to have non-zero size for non-batch dimensions, but got input of size [1, 0, 4, 4]");
  const auto [v, i] = tl::max_pool2d_with_indices(y, {2});
  CHECK(fixtures::error_message([&] { (void)tl::max_unpool2d(v, i + 20, {2}); }) ==
        "max_unpool2d: Found an invalid max index: 30 (output volumes are of size (4 x 4))");
  CHECK(fixtures::error_message([&] { (void)tl::max_unpool2d(v, i.narrow(3, 0, 1), {2}); }) ==
        "max_unpool2d: Expected shape of indices to be same as that of the input tensor ([1, 2, 2, 2]) but got "
        "indices tensor with shape: [1, 2, 2, 1]");
  CHECK(fixtures::error_message([&] {
          (void)tl::max_unpool2d(v, i, {2}, {}, {0}, {9, 4});
        }) == "max_unpool2d: invalid output_size [9, 4] (dim 0 must be between 2 and 6)");
  CHECK(tl::max_unpool2d(v, i, {2}, {}, {0}, {5, 5}).sizes() == tl::Shape{1, 2, 5, 5});
}
