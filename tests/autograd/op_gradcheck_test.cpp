// Gradchecks (double, central differences) of every recorded op that is not a
// pointwise expression: views, reductions, selections, scans, joins,
// rearrangements, indexing, products, softmax. The pointwise chains are in
// fused_test.cpp. Also PyTorch's tie rules (checked by value, where finite
// differences are undefined) and the ops whose derivative is refused.

#include <doctest/doctest.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "fixtures.hpp"
#include "tensorlib/tensorlib.hpp"

namespace {

using Inputs = std::vector<tl::Tensor<double>>;
using F = std::function<tl::Tensor<double>(const Inputs&)>;

// Distinct values in (-1, 1): gaps far wider than gradcheck's eps, so no
// selection changes under the perturbation.
tl::Tensor<double> leaf(const tl::Shape& shape, tl::Generator& gen) {
  tl::Tensor<double> t = tl::rand<double>(shape, gen) * 2.0 - 1.0;
  return t.requires_grad_();
}

tl::Tensor<double> positive_leaf(const tl::Shape& shape, tl::Generator& gen) {
  tl::Tensor<double> t = tl::rand<double>(shape, gen) + 0.5;
  return t.requires_grad_();
}

bool check(const F& f, const Inputs& in) { return tl::autograd::gradcheck(f, in); }

std::string grad_fn_name(const tl::Tensor<double>& t) { return t.grad_fn() ? t.grad_fn()->name() : "none"; }

}  // namespace

TEST_CASE("gradcheck: views") {
  tl::Generator gen(11);
  auto x = leaf({2, 3, 4}, gen);
  CHECK(check([](const Inputs& in) { return in[0].view({6, 4}).t().reshape({-1}); }, {x}));
  CHECK(check([](const Inputs& in) { return in[0].permute({2, 0, 1}).narrow(0, 1, 2).select(1, 1); }, {x}));
  CHECK(check([](const Inputs& in) { return in[0].transpose(0, 2).unsqueeze(1).squeeze(1).flatten(); }, {x}));
  CHECK(check([](const Inputs& in) { return in[0].select(2, 0).unsqueeze(2).expand({2, 3, 5}); }, {x}));
  CHECK(check([](const Inputs& in) { return in[0].diagonal(0, 1, 2); }, {x}));
  CHECK(check([](const Inputs& in) { return in[0].index({tl::Slice(), 1, tl::Slice(1, 4, 2)}); }, {x}));
  // Copies that keep the graph: contiguous, clone; as_strided, also overlapping.
  CHECK(check([](const Inputs& in) { return in[0].transpose(0, 2).contiguous(); }, {x}));
  CHECK(check([](const Inputs& in) { return in[0].clone(); }, {x}));
  CHECK(check([](const Inputs& in) { return in[0].as_strided({3, 3}, {2, 1}, 1); }, {x}));
  // unfold: overlapping windows, windows with gaps, the last dim, a 0-d input;
  // its backward is slices and adds, so it differentiates again.
  for (const auto& [dim, size, step] : {std::array<int64_t, 3>{1, 2, 1}, {2, 1, 3}, {-1, 4, 1}, {0, 1, 1}}) {
    INFO("unfold(" << dim << ", " << size << ", " << step << ")");
    auto f = [=](const Inputs& in) { return in[0].unfold(dim, size, step) * in[0].unfold(dim, size, step); };
    CHECK(check(f, {x}));
    CHECK(tl::autograd::gradgradcheck(f, {x}));
  }
  auto s = leaf({}, gen);
  CHECK(check([](const Inputs& in) { return in[0].unfold(0, 1, 1) * 3.0; }, {s}));
  CHECK(check([](const Inputs& in) { return in[0].mT() * in[0].permute({0, 2, 1}); }, {x}));
}

TEST_CASE("gradcheck: diff (with prepend and append) and take_along_dim (broadcast, repeated indices)") {
  tl::Generator gen(12);
  auto x = leaf({3, 5}, gen), pre = leaf({3, 2}, gen), app = leaf({3, 1}, gen);
  CHECK(check([](const Inputs& in) { return tl::diff(in[0], 2); }, {x}));
  CHECK(check([](const Inputs& in) { return tl::diff(in[0], 1, 0); }, {x}));
  CHECK(check([](const Inputs& in) { return tl::diff(in[0], 3, 1, in[1], in[2]); }, {x, pre, app}));
  const auto idx = tl::tensor<int64_t>({4, 0, 4, 1}).view({1, 4});
  CHECK(check([idx](const Inputs& in) { return tl::take_along_dim(in[0], idx, 1); }, {x}));
  const auto rows = tl::tensor<int64_t>({1, 0, 2, 1}).view({4, 1});  // row indices, broadcast over columns
  CHECK(check([rows](const Inputs& in) { return tl::take_along_dim(in[0], rows, 0); }, {x}));
  CHECK(check([idx](const Inputs& in) { return tl::take_along_dim(in[0], idx); }, {x}));
  // quantile: the gradient reaches the two sorted values each rank falls between.
  const auto qs = tl::tensor<double>({0.1, 0.5, 0.8});
  CHECK(check([qs](const Inputs& in) { return tl::quantile(in[0], qs, 1); }, {x}));
  CHECK(check([](const Inputs& in) { return tl::nanquantile(in[0], 0.3, 0, true, "midpoint"); }, {x}));
  auto y = leaf({3, 4}, gen);
  CHECK(check([](const Inputs& in) { return tl::tril(in[0], 1) + tl::triu(in[0], -1); }, {y}));
  CHECK(check([](const Inputs& in) { return tl::diag(in[0], 1); }, {y}));
  CHECK(check([](const Inputs& in) { return tl::diag(in[0].select(0, 0), -1); }, {y}));
  CHECK(check([](const Inputs& in) { return tl::diag_embed(in[0], 1, 0, 2); }, {y}));
  CHECK(check([](const Inputs& in) { return tl::trace(in[0]); }, {y}));
}

TEST_CASE("gradcheck: sum, mean and the reductions built on them") {
  tl::Generator gen(12);
  auto x = positive_leaf({3, 4}, gen);
  CHECK(check([](const Inputs& in) { return tl::sum(in[0], {1}, true); }, {x}));
  CHECK(check([](const Inputs& in) { return tl::mean(in[0] * in[0], {0}); }, {x}));
  CHECK(check([](const Inputs& in) { return tl::logsumexp(in[0], {1}); }, {x}));
  CHECK(check([](const Inputs& in) { return tl::norm(in[0], 2, {1}); }, {x}));
  CHECK(check([](const Inputs& in) { return tl::norm(in[0], 3.5); }, {x}));
  CHECK(check([](const Inputs& in) { return tl::var(in[0], {0}); }, {x}));
  CHECK(check([](const Inputs& in) { return tl::std(in[0], {1}, 0, true); }, {x}));
  auto w = leaf({3, 4}, gen);
  CHECK(check([](const Inputs& in) { return tl::norm(in[0], 1.0, {0}); }, {w}));
  CHECK(check([](const Inputs& in) { return tl::norm(in[0], std::numeric_limits<double>::infinity(), {1}); }, {w}));
  CHECK(check([](const Inputs& in) { return tl::linalg::vector_norm(in[0], -3.0); }, {w}));
  CHECK(check([](const Inputs& in) { return tl::linalg::matrix_norm(in[0]); }, {w}));
  CHECK(check([](const Inputs& in) { return tl::linalg::matrix_norm(in[0], -1.0); }, {w}));
  CHECK(check([](const Inputs& in) { return tl::linalg::matrix_norm(in[0], std::numeric_limits<double>::infinity()); },
              {w}));
  CHECK(check([](const Inputs& in) { return tl::cdist(in[0], in[1]); }, {w, leaf({2, 4}, gen)}));
  CHECK(check([](const Inputs& in) { return tl::cdist(in[0], in[1], 1.5); }, {w, leaf({2, 4}, gen)}));
  // The spectral norms differentiate through the recorded singular values.
  CHECK(check([](const Inputs& in) { return tl::linalg::matrix_norm(in[0], "nuc"); }, {w}));
  CHECK(check([](const Inputs& in) { return tl::linalg::matrix_norm(in[0], 2.0, {0, 1}, true); }, {w}));
  CHECK(check([](const Inputs& in) { return tl::linalg::matrix_norm(in[0], -2.0); }, {w}));
  // Zero elements: |x|^(p-1) is inf there for p < 1; PyTorch's gradient is 0.
  auto with_zero = tl::tensor<double>({0.0, 0.5, -2.0}, {.requires_grad = true});
  CHECK(check([](const Inputs& in) { return tl::norm(in[0], 1.5); }, {with_zero}));
  tl::norm(with_zero, 0.5).backward();
  CHECK(with_zero.grad().index({0}).item() == 0.0);
  CHECK_FALSE(std::isnan(with_zero.grad().index({1}).item()));
  // The 2-norm of a zero vector has gradient 0 (PyTorch masks it), not NaN.
  auto z = tl::zeros<double>({3}).requires_grad_();
  tl::norm(z).backward();
  CHECK(z.grad().to_vector() == std::vector<double>{0.0, 0.0, 0.0});
}

TEST_CASE("gradcheck: prod, including zeros") {
  tl::Generator gen(13);
  auto x = positive_leaf({3, 4}, gen);
  CHECK(check([](const Inputs& in) { return tl::prod(in[0]); }, {x}));
  CHECK(check([](const Inputs& in) { return tl::prod(in[0], {1}); }, {x}));
  CHECK(check([](const Inputs& in) { return tl::prod(in[0], {0}, true); }, {x}));
  auto z = tl::tensor<double>({{2.0, 0.0, 3.0}, {0.0, 0.0, 5.0}, {1.5, -2.0, 0.5}}, {.requires_grad = true});
  CHECK(check([](const Inputs& in) { return tl::prod(in[0], {1}); }, {z}));
  CHECK(check([](const Inputs& in) { return tl::prod(in[0]); }, {z}));
  auto y = tl::prod(z, {1});
  CHECK(grad_fn_name(y) == "ProdBackward");
  y.sum().backward();
  // One zero: its gradient is the product of the others; two zeros: nothing.
  CHECK(z.grad().to_vector() == std::vector<double>{0.0, 6.0, 0.0, 0.0, 0.0, 0.0, -1.0, 0.75, -3.0});
}

TEST_CASE("gradcheck: amax/amin, max/min, median, kthvalue with and without dim") {
  tl::Generator gen(14);
  auto x = leaf({3, 5}, gen);
  CHECK(check([](const Inputs& in) { return tl::amax(in[0], {1}); }, {x}));
  CHECK(check([](const Inputs& in) { return tl::amin(in[0], {0}, true); }, {x}));
  CHECK(check([](const Inputs& in) { return tl::max(in[0]); }, {x}));
  CHECK(check([](const Inputs& in) { return tl::min(in[0]); }, {x}));
  CHECK(check([](const Inputs& in) { return tl::max(in[0], 1).values; }, {x}));
  CHECK(check([](const Inputs& in) { return tl::min(in[0], 0, true).values; }, {x}));
  CHECK(check([](const Inputs& in) { return tl::median(in[0]); }, {x}));
  CHECK(check([](const Inputs& in) { return tl::median(in[0], 1).values; }, {x}));
  CHECK(check([](const Inputs& in) { return tl::nanmedian(in[0], 0).values; }, {x}));
  CHECK(check([](const Inputs& in) { return tl::kthvalue(in[0], 2, 1, true).values; }, {x}));
  auto s = tl::scalar_tensor<double>(0.5).requires_grad_();
  CHECK(check([](const Inputs& in) { return tl::max(in[0], 0).values; }, {s}));
}

TEST_CASE("ties share the gradient evenly for amax and max(); max(dim) and mode pick one index") {
  auto x = tl::tensor<double>({1.0, 3.0, 3.0, 2.0}, {.requires_grad = true});
  auto m = tl::amax(x);
  CHECK(grad_fn_name(m) == "AmaxBackward");
  m.backward();
  CHECK(x.grad().to_vector() == std::vector<double>{0.0, 0.5, 0.5, 0.0});
  x.set_grad({});
  tl::max(x).backward();
  CHECK(x.grad().to_vector() == std::vector<double>{0.0, 0.5, 0.5, 0.0});
  x.set_grad({});
  auto r = tl::max(x, 0);
  CHECK(grad_fn_name(r.values) == "MaxBackward");
  CHECK_FALSE(r.indices.requires_grad());
  r.values.backward();
  CHECK(x.grad().to_vector() == std::vector<double>{0.0, 1.0, 0.0, 0.0});  // the first of the ties
  // max() with NaNs: the NaNs share it (PyTorch's evenly_distribute_backward).
  const double nan = std::numeric_limits<double>::quiet_NaN();
  auto n = tl::tensor<double>({1.0, nan, 2.0, nan}, {.requires_grad = true});
  tl::max(n).backward();
  CHECK(n.grad().to_vector() == std::vector<double>{0.0, 0.5, 0.0, 0.5});
  // mode: all of the gradient to the index it reports.
  auto v = tl::tensor<double>({{4.0, 2.0, 4.0, 1.0}, {3.0, 3.0, 0.0, 3.0}}, {.requires_grad = true});
  auto mo = tl::mode(v, 1);
  mo.values.sum().backward();
  const auto idx = mo.indices.to_vector();
  for (int64_t r0 = 0; r0 < 2; ++r0)
    for (int64_t c = 0; c < 4; ++c)
      CHECK(v.grad().index({r0, c}).item() == (c == idx[static_cast<std::size_t>(r0)] ? 1.0 : 0.0));
}

TEST_CASE("gradcheck: sort, topk, msort, cummax, cummin") {
  tl::Generator gen(15);
  auto x = leaf({3, 5}, gen);
  CHECK(check([](const Inputs& in) { return tl::sort(in[0], 1).values; }, {x}));
  CHECK(check([](const Inputs& in) { return tl::sort(in[0], 0, true).values; }, {x}));
  CHECK(check([](const Inputs& in) { return tl::msort(in[0]); }, {x}));
  CHECK(check([](const Inputs& in) { return tl::topk(in[0], 2, 1).values; }, {x}));
  CHECK(check([](const Inputs& in) { return tl::topk(in[0], 2, 0, false).values; }, {x}));
  CHECK(check([](const Inputs& in) { return tl::cummax(in[0], 1).values; }, {x}));
  CHECK(check([](const Inputs& in) { return tl::cummin(in[0], 0).values; }, {x}));
}

TEST_CASE("gradcheck: cumsum and cumprod, including zeros") {
  tl::Generator gen(16);
  auto x = leaf({3, 4}, gen);
  CHECK(check([](const Inputs& in) { return tl::cumsum(in[0], 1); }, {x}));
  CHECK(check([](const Inputs& in) { return tl::cumsum(in[0], 0); }, {x}));
  CHECK(check([](const Inputs& in) { return tl::cumprod(in[0], 1); }, {x}));
  CHECK(check([](const Inputs& in) { return tl::cumprod(in[0], 0); }, {x}));
  auto z =
      tl::tensor<double>({{2.0, 0.0, 3.0, 0.5}, {0.0, 1.5, 0.0, -2.0}, {1.0, 2.0, -1.0, 0.0}}, {.requires_grad = true});
  CHECK(check([](const Inputs& in) { return tl::cumprod(in[0], 1); }, {z}));
  CHECK(check([](const Inputs& in) { return tl::cumprod(in[0], 0); }, {z}));
}

TEST_CASE("gradcheck: logcumsumexp, once and twice; its gradient where exp overflows matches PyTorch") {
  tl::Generator gen(26);
  auto x = leaf({3, 4}, gen);
  CHECK(check([](const Inputs& in) { return tl::logcumsumexp(in[0], 1); }, {x}));
  CHECK(check([](const Inputs& in) { return tl::logcumsumexp(in[0] * 3.0, 0); }, {x}));
  CHECK(tl::autograd::gradgradcheck([](const Inputs& in) { return tl::logcumsumexp(in[0], 1); }, {x}));
  auto s = tl::scalar_tensor(0.7, {.requires_grad = true});
  CHECK(check([](const Inputs& in) { return tl::logcumsumexp(in[0], 0); }, {s}));
  // |x| up to ~1000 with a -inf: the log-space formula neither overflows nor
  // gives NaN (PyTorch 1.13's values, tests/fixtures/generate_surface.py).
  const auto& c = fixtures::load("surface.txt")["logcumsumexp_grad"];
  auto xl = c.get<double>("x").requires_grad_();
  (tl::logcumsumexp(xl, 1) * c.get<double>("up")).sum().backward();
  fixtures::check_close(xl.grad(), c.get<double>("gx"), 1e-12, 1e-12, "logcumsumexp grad");
}

TEST_CASE("solve_triangular and cholesky_solve: PyTorch's gradients, gradchecks once and twice") {
  const auto& f = fixtures::load("surface.txt");
  for (const bool upper : {false, true})
    for (const bool left : {true, false})
      for (const bool unit : {false, true}) {
        const std::string key =
            std::string("solve_triangular/") + (upper ? "1" : "0") + (left ? "1" : "0") + (unit ? "1" : "0");
        CAPTURE(key);
        const auto& c = f[key];
        auto a = c.get<double>("a").requires_grad_();
        auto b = c.get<double>("b").requires_grad_();
        (tl::linalg::solve_triangular(a, b, upper, left, unit) * c.get<double>("up")).sum().backward();
        fixtures::check_close(a.grad(), c.get<double>("ga"), 1e-12, 1e-12, key + " dA");
        fixtures::check_close(b.grad(), c.get<double>("gb"), 1e-12, 1e-12, key + " dB");
      }
  for (const bool upper : {false, true}) {
    const auto& c = f[std::string("cholesky_solve/") + (upper ? "1" : "0")];
    auto b = c.get<double>("b").requires_grad_();
    auto l = c.get<double>("l").requires_grad_();
    (tl::cholesky_solve(b, l, upper) * c.get<double>("up")).sum().backward();
    fixtures::check_close(l.grad(), c.get<double>("gl"), 1e-12, 1e-12, "cholesky_solve dL");
    fixtures::check_close(b.grad(), c.get<double>("gb"), 1e-12, 1e-12, "cholesky_solve dB");
  }
  tl::Generator gen(27);
  auto a = tl::Tensor<double>(tl::rand<double>({2, 3, 3}, gen) + 2.0 * tl::eye<double>(3)).requires_grad_();
  auto b = leaf({3, 2}, gen);
  for (const bool upper : {false, true})
    for (const bool left : {true, false}) {
      CAPTURE(upper);
      CAPTURE(left);
      const auto f2 = [upper, left](const Inputs& in) {
        return tl::linalg::solve_triangular(in[0], left ? in[1] : in[1].t(), upper, left, !upper);
      };
      CHECK(check(f2, {a, b}));
      CHECK(tl::autograd::gradgradcheck(f2, {a, b}));
    }
  auto l = tl::Tensor<double>(tl::rand<double>({3, 3}, gen) + 2.0 * tl::eye<double>(3)).requires_grad_();
  const auto chol = [](const Inputs& in) { return tl::cholesky_solve(in[1], in[0].tril()); };
  CHECK(check(chol, {l, b}));
  CHECK(tl::autograd::gradgradcheck(chol, {l, b}));
}

TEST_CASE("gradcheck: cat, stack, split, chunk, unbind, flip, roll, repeat, tile") {
  tl::Generator gen(17);
  auto a = leaf({2, 3}, gen), b = leaf({2, 2}, gen), c = leaf({2, 3}, gen);
  CHECK(check([](const Inputs& in) { return tl::cat({in[0], in[1], in[2]}, 1); }, {a, b, c}));
  CHECK(check([](const Inputs& in) { return tl::stack({in[0], in[1]}, 1); }, {a, c}));
  // A skipped 1-d empty input and an input that needs no grad.
  auto e = tl::empty<double>({0}).requires_grad_();
  auto constant = tl::ones<double>({1, 3});
  CHECK(check([constant](const Inputs& in) { return tl::cat({in[0], in[1], constant}, 0); }, {a, e}));
  auto cat = tl::cat({a, b}, 1);
  CHECK(grad_fn_name(cat) == "CatBackward");
  CHECK(check([](const Inputs& in) { return in[0].split(1, 1)[1] * 2.0 + in[0].chunk(3, 1)[0].sum(); }, {b}));
  CHECK(check([](const Inputs& in) { return in[0].unbind(1)[2]; }, {a}));
  CHECK(check([](const Inputs& in) { return tl::flip(in[0], {0, 1}); }, {a}));
  CHECK(check([](const Inputs& in) { return tl::roll(in[0], {1, -1}, {0, 1}); }, {a}));
  CHECK(check([](const Inputs& in) { return tl::roll(in[0], 4); }, {a}));
  CHECK(check([](const Inputs& in) { return tl::repeat(in[0], {2, 1, 3}); }, {a}));
  CHECK(check([](const Inputs& in) { return in[0].repeat({1, 2}); }, {a}));
  CHECK(check([](const Inputs& in) { return tl::tile(in[0], {2}); }, {a}));
}

TEST_CASE("gradcheck: gather, scatter, index_select/add/copy/fill, take, masked ops, advanced indexing") {
  tl::Generator gen(18);
  auto x = leaf({3, 4}, gen), s = leaf({2, 4}, gen);
  const auto idx = tl::tensor<int64_t>({{2, 0, 1, 2}, {0, 0, 2, 1}});   // repeats: gather's backward accumulates
  const auto perm = tl::tensor<int64_t>({{2, 0, 1, 1}, {0, 1, 2, 0}});  // distinct per column, for scatter
  const auto rows = tl::tensor<int64_t>({2, 0});
  CHECK(check([idx](const Inputs& in) { return tl::gather(in[0], 0, idx); }, {x}));
  CHECK(check([perm](const Inputs& in) { return tl::scatter(in[0], 0, perm, in[1]); }, {x, s}));
  CHECK(check([perm](const Inputs& in) { return tl::scatter(in[0], 0, perm, 0.5); }, {x}));
  CHECK(check([idx](const Inputs& in) { return tl::scatter_add(in[0], 0, idx, in[1]); }, {x, s}));
  CHECK(check([idx](const Inputs& in) { return tl::index_select(in[0], 1, tl::tensor<int64_t>({3, 3, 0})); }, {x}));
  CHECK(check([rows](const Inputs& in) { return tl::index_add(in[0], 0, rows, in[1], 2.0); }, {x, s}));
  CHECK(check([rows](const Inputs& in) { return tl::index_copy(in[0], 0, rows, in[1]); }, {x, s}));
  CHECK(check([](const Inputs& in) { return tl::index_fill(in[0], 1, tl::tensor<int64_t>({1, 3}), -1.0); }, {x}));
  CHECK(check([](const Inputs& in) { return tl::take(in[0], tl::tensor<int64_t>({{11, 0}, {0, -1}})); }, {x}));
  const auto mask = tl::tensor<bool>({true, false, false, true});  // broadcast over rows
  auto v = tl::scalar_tensor<double>(0.25).requires_grad_();
  CHECK(check([mask](const Inputs& in) { return tl::masked_fill(in[0], mask, in[1]); }, {x, v}));
  CHECK(check([mask](const Inputs& in) { return tl::masked_fill(in[0], mask, 3.0); }, {x}));
  CHECK(check([mask](const Inputs& in) { return tl::masked_select(in[0], mask); }, {x}));
  auto src = leaf({8}, gen);
  CHECK(check([mask](const Inputs& in) { return tl::masked_scatter(in[0], mask, in[1]); }, {x, src}));
  const auto mask2 = tl::tensor<bool>({{true, false, false, true}, {false, true, false, false}});
  CHECK(check([mask2](const Inputs& in) { return tl::masked_scatter(in[0], mask2, in[1]); },
              {leaf({4}, gen), src}));  // the input broadcast against the mask
  CHECK(check([](const Inputs& in) { return in[0].index({tl::tensor<int64_t>({2, 0, 2}), tl::Slice(1, 3)}); }, {x}));
  CHECK(check([](const Inputs& in) { return in[0].index({tl::Slice(), tl::tensor<int64_t>({{3}, {1}})}); }, {x}));
  const std::vector<std::optional<tl::Tensor<int64_t>>> put_at = {tl::tensor<int64_t>({0, 2}), std::nullopt};
  CHECK(check([put_at](const Inputs& in) { return tl::index_put(in[0], put_at, in[1]); }, {x, s}));
  CHECK(check([put_at](const Inputs& in) { return tl::index_put(in[0], put_at, in[1].sum(0), true); }, {x, s}));
}

TEST_CASE("gradcheck: matrix products") {
  tl::Generator gen(19);
  auto a = leaf({3, 4}, gen), b = leaf({4, 2}, gen), u = leaf({4}, gen), w = leaf({3}, gen);
  auto ba = leaf({2, 3, 4}, gen), bb = leaf({2, 4, 2}, gen), in32 = leaf({3, 2}, gen), row = leaf({2}, gen);
  CHECK(check([](const Inputs& in) { return tl::mm(in[0], in[1]); }, {a, b}));
  CHECK(check([](const Inputs& in) { return tl::mv(in[0], in[1]); }, {a, u}));
  CHECK(check([](const Inputs& in) { return tl::dot(in[0], in[1]); }, {u, u}));
  CHECK(check([](const Inputs& in) { return tl::vdot(in[0], in[1] * 2.0); }, {u, u}));
  CHECK(check([](const Inputs& in) { return tl::bmm(in[0], in[1]); }, {ba, bb}));
  CHECK(check([](const Inputs& in) { return tl::matmul(in[0], in[1]); }, {ba, b}));
  CHECK(check([](const Inputs& in) { return tl::matmul(in[0], in[1]); }, {u, bb}));
  CHECK(check([](const Inputs& in) { return tl::outer(in[0], in[1]); }, {w, u}));
  CHECK(check([](const Inputs& in) { return tl::addmm(in[0], in[1], in[2], 0.5, 2.0); }, {row, a, b}));
  CHECK(check([](const Inputs& in) { return tl::addmm(in[0], in[1], in[2], 0.0, 1.0); }, {in32, a, b}));
  CHECK(check([](const Inputs& in) { return tl::addmv(in[0], in[1], in[2], 2.0, -1.0); }, {w, a, u}));
  CHECK(check([](const Inputs& in) { return tl::baddbmm(in[0], in[1], in[2], 1.0, 0.5); }, {in32, ba, bb}));
  CHECK(check([](const Inputs& in) { return tl::addbmm(in[0], in[1], in[2]); }, {in32, ba, bb}));
  CHECK(check([](const Inputs& in) { return tl::tensordot(in[0], in[1], 1); }, {a, b}));
  CHECK(check([](const Inputs& in) { return tl::einsum("bij,bjk->bki", {in[0], in[1]}); }, {ba, bb}));
  CHECK(check([](const Inputs& in) { return tl::einsum("ij,j->i", {in[0], in[1]}); }, {a, u}));
  CHECK(check([](const Inputs& in) { return tl::einsum("ii->", {in[0]}); }, {leaf({3, 3}, gen)}));
  CHECK(check([](const Inputs& in) { return tl::kron(in[0], in[1]); }, {w, a}));
  CHECK(
      check([](const Inputs& in) { return tl::linalg::cross(in[0], in[1]); }, {leaf({2, 3}, gen), leaf({1, 3}, gen)}));
  // Operands that are expanded views: the as_strided backward divides by the aliasing.
  auto row1 = leaf({1, 3}, gen), vec3 = leaf({3}, gen);
  CHECK(check([](const Inputs& in) { return tl::einsum("ij->j", {in[0].expand({4, 3})}); }, {row1}));
  CHECK(check([](const Inputs& in) { return tl::einsum("ii->i", {in[0].expand({3, 3})}); }, {vec3}));
  CHECK(check([](const Inputs& in) { return in[0].expand({2, 3}).as_strided({2}, {1}, 0); }, {vec3}));
  auto p = tl::bmm(ba, bb);
  CHECK(grad_fn_name(p) == "BmmBackward");
}

TEST_CASE("column-major operands of mm and matmul get gradients of their own layout (Note [gradient layout])") {
  tl::Generator gen(23);
  for (const bool use_matmul : {false, true}) {
    CAPTURE(use_matmul);
    const auto product = [use_matmul](const tl::Tensor<double>& a, const tl::Tensor<double>& b) {
      return use_matmul ? tl::matmul(a, b) : tl::mm(a, b);
    };
    // A linear layer's weight (3, 4) used as w.t(), and an input read transposed.
    auto w = leaf({3, 4}, gen), x = leaf({5, 4}, gen), v = leaf({4, 5}, gen);
    const auto c = tl::rand<double>({5, 3}, gen);
    tl::Tensor<double>((product(x, w.t()) * c).sum()).backward();
    CHECK(w.grad().is_contiguous());
    CHECK(tl::allclose(w.grad(), tl::mm(c.t(), x.detach()), 1e-12, 1e-12));
    CHECK(tl::allclose(x.grad(), tl::mm(c, w.detach()), 1e-12, 1e-12));
    w.set_grad({});
    tl::Tensor<double>((product(v.t(), w.t()) * c).sum()).backward();
    CHECK(v.grad().is_contiguous());
    CHECK(w.grad().is_contiguous());
    CHECK(tl::allclose(v.grad(), tl::mm(w.detach().t(), c.t()), 1e-12, 1e-12));
    CHECK(tl::allclose(w.grad(), tl::mm(c.t(), v.detach().t()), 1e-12, 1e-12));
    CHECK(check([&](const Inputs& in) { return product(in[0].t(), in[1].t()); }, {v, w}));
    CHECK(check([&](const Inputs& in) { return product(in[0], in[1].t()); }, {x, w}));
    CHECK(tl::autograd::gradgradcheck([&](const Inputs& in) { return product(in[0].t(), in[1].t()); }, {v, w}));
  }
}

TEST_CASE("gradcheck: inv, det, slogdet, solve") {
  tl::Generator gen(22);
  // Diagonally dominant, so well conditioned.
  auto well = [&gen](const tl::Shape& shape) {
    tl::Tensor<double> t = tl::rand<double>(shape, gen) * 0.5 + tl::eye<double>(shape[shape.size() - 1]) * 2.0;
    return t.requires_grad_();
  };
  auto a = well({3, 3}), batch = well({2, 3, 3});
  auto b = leaf({3, 2}, gen), v = leaf({3}, gen), bb = leaf({2, 3, 2}, gen);
  CHECK(check([](const Inputs& in) { return tl::linalg::inv(in[0]); }, {a}));
  CHECK(check([](const Inputs& in) { return tl::inverse(in[0]); }, {batch}));
  CHECK(check([](const Inputs& in) { return tl::linalg::det(in[0]); }, {batch}));
  CHECK(check([](const Inputs& in) { return tl::linalg::slogdet(in[0] * -1.0).logabsdet; }, {a}));
  CHECK(check([](const Inputs& in) { return tl::linalg::solve(in[0], in[1]); }, {a, b}));
  CHECK(check([](const Inputs& in) { return tl::linalg::solve(in[0], in[1]); }, {a, v}));
  CHECK(check([](const Inputs& in) { return tl::linalg::solve(in[0], in[1]); }, {a, bb}));  // A broadcast
  CHECK(check([](const Inputs& in) { return tl::linalg::solve(in[0], in[1], false); }, {a, leaf({2, 3}, gen)}));
  auto singular = tl::tensor<double>({{1.0, 2.0}, {2.0, 4.0}}, {.requires_grad = true});
  auto d = tl::linalg::det(singular);
  CHECK(d.item() == 0.0);
  CHECK_THROWS_AS(d.backward(), tl::NotImplementedError);
}

TEST_CASE("gradcheck: matrix_power, cov (with weights), corrcoef, aminmax") {
  tl::Generator gen(27);
  tl::Tensor<double> a = tl::rand<double>({2, 3, 3}, gen) * 0.5 + tl::eye<double>(3) * 2.0;
  a.requires_grad_();
  for (const int64_t n : {-2, -1, 0, 1, 2, 3, 5}) {
    CAPTURE(n);
    CHECK(check([n](const Inputs& in) { return tl::linalg::matrix_power(in[0], n); }, {a}));
  }
  CHECK(tl::autograd::gradgradcheck([](const Inputs& in) { return tl::linalg::matrix_power(in[0], 3); }, {a}));
  const auto x = leaf({3, 5}, gen), aw = positive_leaf({5}, gen);
  const auto fw = tl::tensor<int64_t>({1, 2, 0, 1, 3});
  CHECK(check([](const Inputs& in) { return tl::cov(in[0]); }, {x}));
  CHECK(check([&fw](const Inputs& in) { return tl::cov(in[0], 1, fw, in[1]); }, {x, aw}));
  CHECK(check([](const Inputs& in) { return tl::corrcoef(in[0]); }, {x}));
  CHECK(check([](const Inputs& in) { return tl::aminmax(in[0], 1).max + tl::aminmax(in[0]).min; }, {x}));
}

TEST_CASE("matrix_power, cov and corrcoef have PyTorch's gradients") {
  const auto& f = fixtures::load("surface.txt");
  for (const int64_t n : {5, -2}) {
    CAPTURE(n);
    const auto& c = f["matrix_power_grad/" + std::to_string(n)];
    auto a = c.get<double>("a").requires_grad_();
    tl::Tensor<double>(tl::linalg::matrix_power(a, n) * c.get<double>("up")).sum().backward();
    fixtures::check_close(a.grad(), c.get<double>("ga"), 1e-10, 1e-10, "gradient");
  }
  // n = 0: identities, connected to A with gradient 0 (as PyTorch).
  auto a = tl::tensor<double>({{2.0, 1.0}, {0.5, 3.0}}, {.requires_grad = true});
  const auto I = tl::linalg::matrix_power(a, 0);
  CHECK(I.to_vector() == std::vector<double>{1.0, 0.0, 0.0, 1.0});
  REQUIRE(I.requires_grad());
  I.sum().backward();
  CHECK(a.grad().to_vector() == std::vector<double>{0.0, 0.0, 0.0, 0.0});
  // cov differentiates through its importance weights too.
  const auto& g = f["cov_grad"];
  auto x = g.get<double>("x").requires_grad_();
  auto aw = g.get<double>("aw").requires_grad_();
  tl::Tensor<double>(tl::cov(x, 1, g.get<int64_t>("fw"), aw) * g.get<double>("up")).sum().backward();
  fixtures::check_close(x.grad(), g.get<double>("gx"), 1e-12, 1e-12, "cov d/dx");
  fixtures::check_close(aw.grad(), g.get<double>("gaw"), 1e-12, 1e-12, "cov d/daweights");
  const auto& gc = f["corrcoef_grad"];
  auto xc = gc.get<double>("x").requires_grad_();
  tl::Tensor<double>(tl::corrcoef(xc) * gc.get<double>("up")).sum().backward();
  fixtures::check_close(xc.grad(), gc.get<double>("gx"), 1e-12, 1e-12, "corrcoef d/dx");
}

TEST_CASE("gradcheck: cholesky and eigh (through a symmetrizing input map)") {
  tl::Generator gen(23);
  auto x = leaf({3, 3}, gen), xb = leaf({2, 3, 3}, gen);
  // A = x x^T + 3 I is positive-definite for every perturbation of x.
  auto spd = [](const tl::Tensor<double>& m) { return tl::matmul(m, m.transpose(-1, -2)) + tl::eye<double>(3) * 3.0; };
  CHECK(check([&spd](const Inputs& in) { return tl::linalg::cholesky(spd(in[0])); }, {x}));
  CHECK(check([&spd](const Inputs& in) { return tl::linalg::cholesky(spd(in[0]), true); }, {xb}));
  CHECK(tl::autograd::gradgradcheck([&spd](const Inputs& in) { return tl::linalg::cholesky(spd(in[0])); }, {x}));
  // eigh of x + x^T: distinct eigenvalues for these draws; v * v is
  // invariant to the eigenvectors' signs.
  auto sym = [](const tl::Tensor<double>& m) { return m + m.transpose(-1, -2); };
  CHECK(check([&sym](const Inputs& in) { return tl::linalg::eigh(sym(in[0])).eigenvalues; }, {xb}));
  CHECK(check(
      [&sym](const Inputs& in) {
        const auto r = tl::linalg::eigh(sym(in[0]), "U");
        return tl::Tensor<double>(r.eigenvectors * r.eigenvectors + r.eigenvalues.unsqueeze(-2));
      },
      {x}));
  CHECK(check([&sym](const Inputs& in) { return tl::linalg::eigvalsh(sym(in[0])); }, {x}));
}

TEST_CASE("gradcheck: qr (tall, square, wide, batched; reduced and complete)") {
  tl::Generator gen(26);
  auto both = [](std::string mode) {
    return [mode](const Inputs& in) {
      const auto [Q, R] = tl::linalg::qr(in[0], mode);
      return tl::cat({Q.reshape({-1}), R.reshape({-1})});
    };
  };
  for (const tl::Shape& shape :
       {tl::Shape{4, 3}, tl::Shape{3, 3}, tl::Shape{3, 5}, tl::Shape{2, 4, 2}, tl::Shape{2, 2, 3}}) {
    CAPTURE(shape);
    auto a = leaf(shape, gen);
    CHECK(check(both("reduced"), {a}));
    if (shape[shape.size() - 2] <= shape.back()) CHECK(check(both("complete"), {a}));
    // Q alone and R alone: the other factor's cotangent is zero.
    CHECK(check([](const Inputs& in) { return tl::linalg::qr(in[0]).Q; }, {a}));
    CHECK(check([](const Inputs& in) { return tl::linalg::qr(in[0]).R; }, {a}));
  }
  // PyTorch's refusals, raised by backward.
  auto tall = leaf({4, 3}, gen);
  CHECK_THROWS_WITH_AS(tl::linalg::qr(tall, "r").R.sum().backward(),
                       doctest::Contains("depends on Q, which is not computed when mode='r'"), tl::AutogradError);
  CHECK_THROWS_WITH_AS(tl::linalg::qr(tall, "complete").Q.sum().backward(),
                       doctest::Contains("not differentiable when mode='complete' and nrows > ncols"),
                       tl::AutogradError);
}

TEST_CASE("gradcheck: pinv and lstsq (PyTorch's closed form), second derivatives of the factorizations") {
  tl::Generator gen(27);
  for (const tl::Shape& shape : {tl::Shape{4, 3}, tl::Shape{3, 4}, tl::Shape{2, 3, 3}}) {
    CAPTURE(shape);
    auto a = leaf(shape, gen);
    CHECK(check([](const Inputs& in) { return tl::linalg::pinv(in[0]); }, {a}));
  }
  auto sym = [](const tl::Tensor<double>& m) { return m + m.transpose(-1, -2); };
  CHECK(check([&sym](const Inputs& in) { return tl::linalg::pinv(sym(in[0]), std::nullopt, std::nullopt, true); },
              {leaf({3, 3}, gen)}));
  // A rank-1 matrix: the dropped singular values take no part.
  auto u = leaf({4, 1}, gen), v = leaf({1, 3}, gen);
  CHECK(check([](const Inputs& in) { return tl::linalg::pinv(tl::matmul(in[0], in[1])); }, {u, v}));
  auto a = leaf({5, 3}, gen), b = leaf({5, 2}, gen), bv = leaf({5}, gen);
  CHECK(check([](const Inputs& in) { return tl::linalg::lstsq(in[0], in[1]).solution; }, {a, b}));
  CHECK(check([](const Inputs& in) { return tl::linalg::lstsq(in[0], in[1]).solution; }, {a, bv}));
  // PyTorch's closed form is finite where singular values repeat or vanish.
  auto eye = tl::eye<double>(3).requires_grad_();
  tl::linalg::pinv(eye).sum().backward();
  for (double g : eye.grad().to_vector()) CHECK(std::isfinite(g));
  auto deficient = tl::tensor<double>({{1.0, 0.0}, {0.0, 0.0}, {0.0, 0.0}}, {.requires_grad = true});
  tl::linalg::pinv(deficient).sum().backward();
  for (double g : deficient.grad().to_vector()) CHECK(std::isfinite(g));
  // Second derivatives through the factorizations' saved outputs.
  auto sq = leaf({3, 3}, gen), tall = leaf({4, 3}, gen);
  CHECK(tl::autograd::gradgradcheck([](const Inputs& in) { return tl::linalg::pinv(in[0]); }, {tall}));
  CHECK(tl::autograd::gradgradcheck(
      [](const Inputs& in) {
        const auto [Q, R] = tl::linalg::qr(in[0]);
        return tl::cat({tl::Tensor<double>(Q * Q).reshape({-1}), tl::Tensor<double>(R * R).reshape({-1})});
      },
      {tall}));
  CHECK(tl::autograd::gradgradcheck(
      [](const Inputs& in) {
        const auto r = tl::linalg::eigh(in[0] + in[0].transpose(-1, -2));
        return tl::Tensor<double>(r.eigenvectors * r.eigenvectors + r.eigenvalues);
      },
      {sq}));
  CHECK(tl::autograd::gradgradcheck([](const Inputs& in) { return tl::linalg::svdvals(in[0]); }, {tall}));
  // The recorded solution is the unrecorded one up to rounding.
  const auto raw = tl::linalg::lstsq(a.detach(), b.detach()).solution;
  CHECK(tl::allclose(tl::linalg::lstsq(a, b).solution.detach(), raw, 1e-12, 1e-12));
}

TEST_CASE("gradcheck: repeat_interleave and combinations (selections of positions)") {
  tl::Generator gen(28);
  auto x = leaf({2, 3}, gen), v = leaf({4}, gen);
  CHECK(check([](const Inputs& in) { return tl::repeat_interleave(in[0], 2, 1); }, {x}));
  CHECK(check([](const Inputs& in) { return tl::repeat_interleave(in[0], 3); }, {x}));
  CHECK(check([](const Inputs& in) { return tl::repeat_interleave(in[0], tl::tensor<int64_t>({1, 0, 2}), 1); }, {x}));
  CHECK(check([](const Inputs& in) { return tl::combinations(in[0]); }, {v}));
  CHECK(check([](const Inputs& in) { return tl::combinations(in[0], 3, true); }, {v}));
  // Each copy's gradient is summed back into its source.
  auto w = tl::tensor<double>({1.0, 2.0}, {.requires_grad = true});
  tl::repeat_interleave(w, tl::tensor<int64_t>({3, 1})).sum().backward();
  CHECK(w.grad().to_vector() == std::vector<double>{3.0, 1.0});
}

TEST_CASE("gradcheck: every FFT (the adjoint transforms), complex data as (re, im) pairs") {
  tl::Generator gen(29);
  using C = tl::ComplexTensor<double>;
  auto z = leaf({3, 5, 2}, gen), z6 = leaf({2, 6, 2}, gen), r = leaf({3, 5}, gen), r6 = leaf({2, 6}, gen);
  const std::vector<tl::Tensor<double>> complex_in = {z, z6}, real_in = {r, r6};
  for (const char* norm : {"backward", "forward", "ortho"}) {
    CAPTURE(norm);
    for (const auto& c : complex_in) {
      CHECK(check([norm](const Inputs& in) { return tl::fft::fft(C(in[0]), std::nullopt, -1, norm).pairs(); }, {c}));
      CHECK(check([norm](const Inputs& in) { return tl::fft::ifft(C(in[0]), 4, 0, norm).pairs(); }, {c}));
      CHECK(check([norm](const Inputs& in) { return tl::fft::fft(C(in[0]), 8, -1, norm).pairs(); }, {c}));
      CHECK(check([norm](const Inputs& in) { return tl::fft::irfft(C(in[0]), std::nullopt, -1, norm); }, {c}));
      CHECK(check([norm](const Inputs& in) { return tl::fft::irfft(C(in[0]), 7, -1, norm); }, {c}));
      CHECK(check([norm](const Inputs& in) { return tl::fft::hfft(C(in[0]), 4, -1, norm); }, {c}));
      CHECK(check([norm](const Inputs& in) { return tl::fft::fftn(C(in[0]), {}, {}, norm).pairs(); }, {c}));
      CHECK(check([norm](const Inputs& in) { return tl::fft::irfftn(C(in[0]), {3, 6}, {}, norm); }, {c}));
    }
    for (const auto& x : real_in) {
      CHECK(check([norm](const Inputs& in) { return tl::fft::fft(in[0], std::nullopt, -1, norm).pairs(); }, {x}));
      CHECK(check([norm](const Inputs& in) { return tl::fft::rfft(in[0], std::nullopt, -1, norm).pairs(); }, {x}));
      CHECK(check([norm](const Inputs& in) { return tl::fft::rfft(in[0], 3, 0, norm).pairs(); }, {x}));
      CHECK(check([norm](const Inputs& in) { return tl::fft::ihfft(in[0], 7, -1, norm).pairs(); }, {x}));
      CHECK(check([norm](const Inputs& in) { return tl::fft::rfftn(in[0], {}, {}, norm).pairs(); }, {x}));
      CHECK(check([norm](const Inputs& in) { return tl::fft::ifft2(in[0], {4, 4}, {0, 1}, norm).pairs(); }, {x}));
    }
  }
  // Second derivatives through a transform (its backward is a transform too).
  CHECK(tl::autograd::gradgradcheck(
      [](const Inputs& in) { return tl::Tensor<double>(tl::fft::rfft(in[0] * in[0]).pairs() * 1.0); }, {r}));
  // A round trip gives back the input, and its gradient is the identity.
  auto x = leaf({8}, gen);
  tl::fft::irfft(tl::fft::rfft(x), 8).sum().backward();
  for (double g : x.grad().to_vector()) CHECK(g == doctest::Approx(1.0));
}

TEST_CASE("second derivatives through the indexing ops, or a clear refusal") {
  tl::Generator gen(30);
  auto x = leaf({3, 4}, gen);
  auto sq = [](const tl::Tensor<double>& t) { return tl::Tensor<double>(t * t); };
  const auto idx = tl::tensor<int64_t>({{0, 2, 1, 0}, {1, 1, 0, 2}});
  CHECK(tl::autograd::gradgradcheck([&](const Inputs& in) { return sq(tl::gather(in[0], 0, idx)); }, {x}));
  CHECK(tl::autograd::gradgradcheck(
      [&](const Inputs& in) {
        return sq(tl::index_select(in[0], 1, tl::tensor<int64_t>({3, 0, 3})));
      },
      {x}));
  CHECK(tl::autograd::gradgradcheck(
      [&](const Inputs& in) { return sq(tl::masked_select(in[0], in[0].detach() > 0.0)); }, {x}));
  CHECK(tl::autograd::gradgradcheck([&](const Inputs& in) { return sq(tl::diagonal(in[0], 1)); }, {x}));
  // These backwards do not record: create_graph through them is refused.
  auto second = [&](auto f) {
    tl::Tensor<double> y = sq(f(x)).sum();
    return tl::autograd::grad<double>({y}, {x}, {}, true, true);
  };
  CHECK_THROWS_WITH_AS(second([](const tl::Tensor<double>& t) {
                         return t.index({tl::tensor<int64_t>({2, 0})});
                       }),
                       doctest::Contains("IndexBackward"), tl::NotImplementedError);
  CHECK_THROWS_WITH_AS(second([](const tl::Tensor<double>& t) {
                         return t.as_strided({2, 2}, {1, 2}, 1);
                       }),
                       doctest::Contains("AsStridedBackward"), tl::NotImplementedError);
  CHECK_THROWS_AS(second([](const tl::Tensor<double>& t) {
                    return tl::take(t, tl::tensor<int64_t>({5, 0}));
                  }),
                  tl::NotImplementedError);
  auto z = tl::tensor<double>({1.5, 0.0, 2.0}, {.requires_grad = true});
  CHECK_THROWS_WITH_AS(tl::autograd::grad<double>({tl::cumprod(z, 0).sum()}, {z}, {}, true, true),
                       doctest::Contains("CumprodBackward"), tl::NotImplementedError);
}

TEST_CASE("gradcheck: svd and svdvals (sign-invariant functions of the factors)") {
  tl::Generator gen(24);
  for (const tl::Shape& shape : {tl::Shape{4, 3}, tl::Shape{3, 4}, tl::Shape{2, 3, 3}}) {
    CAPTURE(shape);
    auto a = leaf(shape, gen);
    CHECK(check([](const Inputs& in) { return tl::linalg::svdvals(in[0]); }, {a}));
    // U o U, Vh o Vh and U S Vh do not depend on the singular vectors' signs.
    CHECK(check(
        [](const Inputs& in) {
          const auto r = tl::linalg::svd(in[0], false);
          return tl::Tensor<double>(r.U * r.U * r.S.unsqueeze(-2));
        },
        {a}));
    CHECK(check(
        [](const Inputs& in) {
          const auto r = tl::linalg::svd(in[0], false);
          return tl::Tensor<double>(r.Vh * r.Vh);
        },
        {a}));
    CHECK(check(
        [](const Inputs& in) {
          const auto r = tl::linalg::svd(in[0]);  // full_matrices: the first k vectors enter
          const int64_t k = r.S.size(-1);
          return tl::matmul(tl::Tensor<double>(r.U.narrow(-1, 0, k) * r.S.unsqueeze(-2)), r.Vh.narrow(-2, 0, k));
        },
        {a}));
  }
}

TEST_CASE("eigvalsh at repeated eigenvalues and jvp through svd's vectors") {
  // Eigenvalues only: no 1 / (lambda_j - lambda_i), so a repeated spectrum
  // has a finite gradient (PyTorch: V diag(g) V^T = I here).
  auto eye = tl::eye<double>(3).requires_grad_();
  tl::linalg::eigvalsh(eye).sum().backward();
  const std::vector<double> g = eye.grad().to_vector();
  for (std::size_t i = 0; i < g.size(); ++i) CHECK(g[i] == doctest::Approx(i % 4 == 0 ? 1.0 : 0.0));
  // functional::jvp's zero cotangent requires grad: svd's U/Vh terms must
  // not be skipped as if only S had a gradient. f = sum(U o U * S) is
  // sign-invariant; compare with a central difference.
  tl::Generator gen(25);
  auto a = leaf({4, 3}, gen).detach(), t = leaf({4, 3}, gen).detach();
  auto f = [](const Inputs& in) -> tl::Tensor<double> {
    const auto r = tl::linalg::svd(in[0], false);
    return tl::Tensor<double>(r.U * r.U * r.S.unsqueeze(-2)).sum();
  };
  const double jv = tl::autograd::functional::jvp(f, {a}, {t}).product.at(0).item();
  const double h = 1e-6;
  const double fd = (f({tl::Tensor<double>(a + t * h)}).item() - f({tl::Tensor<double>(a - t * h)}).item()) / (2 * h);
  CHECK(jv == doctest::Approx(fd).epsilon(1e-6));
}

TEST_CASE("gradcheck: softmax and log_softmax") {
  tl::Generator gen(20);
  auto x = leaf({3, 4}, gen);
  CHECK(check([](const Inputs& in) { return tl::softmax(in[0], 1); }, {x}));
  CHECK(check([](const Inputs& in) { return tl::log_softmax(in[0], 0); }, {x}));
}

TEST_CASE("to<U>() between floating types records; its gradient comes back in the source type") {
  auto x = tl::tensor<float>({1.5f, -2.0f}, {.requires_grad = true});
  tl::Tensor<double> y = x.to<double>();
  REQUIRE(y.requires_grad());
  tl::Tensor<double>(y * y).sum().backward();
  CHECK(x.grad().to_vector() == std::vector<float>{3.0f, -4.0f});
  // Back to float inside a chain: both casts carry the tangent.
  x.set_grad({});
  tl::Tensor<float> z = (x.to<double>() * 3.0).eval().to<float>();
  REQUIRE(z.requires_grad());
  z.sum().backward();
  CHECK(x.grad().to_vector() == std::vector<float>{3.0f, 3.0f});
}

TEST_CASE("ops whose derivative is not implemented refuse to run on inputs that require grad") {
  auto x = tl::ones<double>({3}).requires_grad_();
  const auto i = tl::tensor<int64_t>({0, 1});
  auto s = tl::ones<double>({2});
  CHECK_THROWS_WITH_AS(tl::scatter(x, 0, i, s, "add"), doctest::Contains("reduce='add'"), tl::NotImplementedError);
  CHECK_THROWS_AS(tl::put(x, i, s), tl::NotImplementedError);
  // Without grad mode the same calls run.
  tl::NoGradGuard no_grad;
  CHECK(tl::put(x, i, s).to_vector() == std::vector<double>{1.0, 1.0, 1.0});
}

TEST_CASE("a saved index modified in place is an error at backward") {
  auto x = tl::tensor<double>({1.0, 2.0, 3.0}, {.requires_grad = true});
  auto i = tl::tensor<int64_t>({2, 0});
  auto y = tl::index_select(x, 0, i);
  i.add_(0);  // an in-place write bumps the version
  CHECK_THROWS_WITH_AS(y.sum().backward(), doctest::Contains("modified by an inplace operation"), tl::AutogradError);
}

TEST_CASE("lu, lu_factor, lu_unpack and lu_solve: PyTorch's gradients, gradchecks once and twice") {
  const auto& f = fixtures::load("lu.txt");
  for (const std::string name : {"square", "wide", "tall", "tall_batch"}) {
    CAPTURE(name);
    const auto& c = f["grad/" + name];
    auto a = c.get<double>("a").requires_grad_();
    const auto [P, L, U] = tl::linalg::lu(a);
    tl::Tensor<double>((L * c.get<double>("up_l")).sum() + (U * c.get<double>("up_u")).sum()).backward();
    fixtures::check_close(a.grad(), c.get<double>("ga_lu"), 1e-10, 1e-10, name + " lu");
    auto a2 = c.get<double>("a").requires_grad_();
    const auto r = tl::linalg::lu_factor(a2);
    (r.LU * c.get<double>("up_lu")).sum().backward();
    fixtures::check_close(a2.grad(), c.get<double>("ga_factor"), 1e-10, 1e-10, name + " lu_factor");
    auto packed = r.LU.detach().requires_grad_();
    const auto unpacked = tl::lu_unpack(packed, r.pivots);
    tl::Tensor<double>((unpacked.L * c.get<double>("up_l")).sum() + (unpacked.U * c.get<double>("up_u")).sum())
        .backward();
    fixtures::check_close(packed.grad(), c.get<double>("glu_unpack"), 1e-12, 1e-12, name + " lu_unpack");
  }
  for (const bool left : {true, false})
    for (const bool adjoint : {false, true}) {
      const std::string key = std::string("solve/") + (left ? "1" : "0") + (adjoint ? "1" : "0");
      CAPTURE(key);
      const auto& c = f[key];
      auto lu = c.get<double>("lu").requires_grad_();
      auto b = c.get<double>("b").requires_grad_();
      (tl::linalg::lu_solve(lu, c.get<int32_t>("pivots"), b, left, adjoint) * c.get<double>("up")).sum().backward();
      fixtures::check_close(lu.grad(), c.get<double>("glu"), 1e-10, 1e-10, key + " dLU");
      fixtures::check_close(b.grad(), c.get<double>("gb"), 1e-10, 1e-10, key + " dB");
    }
  // Finite differences, once and twice, of P L U's factors for each shape
  // (distinct entries keep the pivots fixed under the perturbation), of the
  // packed factor, and of lu_solve through both of its inputs.
  tl::Generator gen(31);
  for (const tl::Shape& shape : {tl::Shape{3, 3}, tl::Shape{2, 4}, tl::Shape{2, 4, 3}}) {
    CAPTURE(shape);
    auto a = leaf(shape, gen);
    const auto factors = [](const Inputs& in) {
      const auto [P, L, U] = tl::linalg::lu(in[0]);
      return tl::cat({L.flatten(), U.flatten()});
    };
    CHECK(check(factors, {a}));
    CHECK(tl::autograd::gradgradcheck(factors, {a}));
    const auto packed = [](const Inputs& in) { return tl::linalg::lu_factor(in[0]).LU; };
    CHECK(check(packed, {a}));
    CHECK(tl::autograd::gradgradcheck(packed, {a}));
  }
  auto a = tl::Tensor<double>(tl::rand<double>({2, 3, 3}, gen) + 2.0 * tl::eye<double>(3)).requires_grad_();
  auto b = leaf({3, 2}, gen);
  for (const bool left : {true, false})
    for (const bool adjoint : {false, true}) {
      CAPTURE(left);
      CAPTURE(adjoint);
      // The factor is differentiated as a function of A, through lu_factor too.
      const auto solve = [left, adjoint](const Inputs& in) {
        const auto [LU, pivots] = tl::linalg::lu_factor(in[0]);
        return tl::linalg::lu_solve(LU, pivots, left ? in[1] : in[1].t(), left, adjoint);
      };
      CHECK(check(solve, {a, b}));
      CHECK(tl::autograd::gradgradcheck(solve, {a, b}));
    }  // Without pivoting (P empty), and empty factors.
  auto dominant = tl::Tensor<double>(tl::rand<double>({3, 3}, gen) + 3.0 * tl::eye<double>(3)).requires_grad_();
  const auto unpivoted = [](const Inputs& in) {
    const auto [P, L, U] = tl::linalg::lu(in[0], false);
    return tl::cat({L.flatten(), U.flatten()});
  };
  CHECK(check(unpivoted, {dominant}));
  CHECK(check([](const Inputs& in) { return tl::linalg::lu_factor(in[0], false).LU; }, {dominant}));
  for (const tl::Shape& shape : {tl::Shape{0, 3}, tl::Shape{3, 0}, tl::Shape{0, 2, 2}}) {
    CAPTURE(shape);
    auto empty = tl::zeros<double>(shape).requires_grad_();
    const auto [P, L, U] = tl::linalg::lu(empty);
    tl::Tensor<double>(L.sum() + U.sum()).backward();
    CHECK(empty.grad().sizes() == shape);
  }
}

TEST_CASE("logdet and dist: PyTorch's gradient, gradchecks") {
  auto a = tl::tensor<double>({{2.0, 1.0}, {1.0, 3.0}}).requires_grad_();
  tl::logdet(a).backward();
  fixtures::check_close(a.grad(), tl::tensor<double>({{0.6, -0.2}, {-0.2, 0.4}}), 1e-14, 1e-14, "logdet");
  tl::Generator gen(41);
  auto m = tl::Tensor<double>(tl::rand<double>({2, 3, 3}, gen) + 2.0 * tl::eye<double>(3)).requires_grad_();
  CHECK(check([](const Inputs& in) { return tl::logdet(in[0]); }, {m}));
  auto x = leaf({2, 3}, gen), y = leaf({3}, gen);
  for (const double p : {1.0, 2.0, 3.0})
    CHECK(check([p](const Inputs& in) { return tl::dist(in[0], in[1], p); }, {x, y}));
}

TEST_CASE("matrix_exp: PyTorch's gradients, gradchecks once and twice") {
  const auto& f = fixtures::load("matrix_exp.txt");
  for (const std::string name : {"unit", "large", "batch"}) {
    CAPTURE(name);
    const auto& c = f["grad/" + name];
    auto a = c.get<double>("a").requires_grad_();
    const auto e = tl::linalg::matrix_exp(a);
    CHECK(grad_fn_name(e) == "LinalgMatrixExpBackward");
    (e * c.get<double>("up")).sum().backward();
    fixtures::check_close(a.grad(), c.get<double>("ga"), 1e-10, 1e-10, name);
  }
  // Finite differences of the exponential (the Frechet derivative), once and
  // twice (the backward's own matrix_exp recorded under create_graph); a
  // norm that needs squaring too; a batch; the method form.
  tl::Generator gen(41);
  const auto exp = [](const Inputs& in) { return tl::matrix_exp(in[0]); };
  auto a = leaf({3, 3}, gen);
  CHECK(check(exp, {a}));
  CHECK(tl::autograd::gradgradcheck(exp, {a}));
  auto big = tl::Tensor<double>(leaf({3, 3}, gen).detach() * 6.0).requires_grad_();
  CHECK(check(exp, {big}));
  auto batch = leaf({2, 1, 2, 2}, gen);
  CHECK(check([](const Inputs& in) { return in[0].matrix_exp(); }, {batch}));
  auto empty = tl::zeros<double>({2, 0, 0}).requires_grad_();
  tl::linalg::matrix_exp(empty).sum().backward();
  CHECK(empty.grad().sizes() == tl::Shape{2, 0, 0});
}

TEST_CASE("polygamma and digamma: gradients once and twice (digamma's second derivative is polygamma(2, x))") {
  tl::Generator gen(43);
  auto x = tl::Tensor<double>(tl::rand<double>({2, 3}, gen) * 3.0 + 0.2).requires_grad_();
  for (const int64_t n : {0, 1, 2, 4}) {
    CAPTURE(n);
    const auto f = [n](const Inputs& in) { return tl::Tensor<double>(tl::polygamma(n, in[0])); };
    CHECK(check(f, {x}));
    CHECK(tl::autograd::gradgradcheck(f, {x}));
  }
  const auto psi = [](const Inputs& in) { return tl::Tensor<double>(tl::digamma(in[0]) * in[0]); };
  CHECK(tl::autograd::gradgradcheck(psi, {x}));
  // d^2/dx^2 sum digamma(x) = polygamma(2, x), through the fused backward's
  // second-order pass.
  const tl::Tensor<double> y = tl::digamma(x).sum();
  const auto g = tl::autograd::grad<double>({y}, {x}, {}, true, true);
  const auto h = tl::autograd::grad<double>({g[0].sum()}, {x});
  fixtures::check_close(h[0], tl::Tensor<double>(tl::polygamma(2, x.detach())), 1e-13, 1e-13, "digamma''");
}

TEST_CASE("mvlgamma: PyTorch's gradient and gradchecks once and twice") {
  const auto& c = fixtures::load("special.txt")["mvlgamma_grad/3"];
  auto x = c.get<double>("x").requires_grad_();
  tl::mvlgamma(x, 3).sum().backward();
  fixtures::check_close(x.grad(), c.get<double>("gx"), 1e-13, 1e-13, "mvlgamma");
  tl::Generator gen(47);
  auto a = tl::Tensor<double>(tl::rand<double>({2, 3}, gen) * 4.0 + 2.0).requires_grad_();
  const auto f = [](const Inputs& in) { return tl::mvlgamma(in[0], 4); };
  CHECK(check(f, {a}));
  CHECK(tl::autograd::gradgradcheck(f, {a}));
}

TEST_CASE("special::entr: PyTorch's gradient (inf at 0, NaN below), gradchecks once and twice") {
  const auto& c = fixtures::load("special.txt")["entr_grad"];
  auto x = c.get<double>("x").requires_grad_();
  tl::Tensor<double>(tl::special::entr(x)).sum().backward();
  fixtures::check_close(x.grad(), c.get<double>("gx"), 1e-15, 0, "entr");
  tl::Generator gen(53);
  auto a = tl::Tensor<double>(tl::rand<double>({2, 3}, gen) * 2.0 + 0.1).requires_grad_();
  const auto f = [](const Inputs& in) { return tl::Tensor<double>(tl::special::entr(in[0] * in[0])); };
  CHECK(check(f, {a}));
  CHECK(tl::autograd::gradgradcheck(f, {a}));
}

TEST_CASE(
    "the Bessel functions J, Y, K, scaled K, spherical j0 and Airy Ai: gradients from the recurrences, gradchecks "
    "twice") {
  namespace m = tl::math;
  using Fn = tl::Tensor<double> (*)(const tl::Tensor<double>&);
  // Both signs where the function is defined there, and every region of the
  // kernels: J and Y switch at 2 and 25, K at 1 and 30.
  const auto real_line = tl::tensor<double>({{-31.0, -3.5, -0.4}, {0.3, 2.5, 26.0}});
  const auto half_line = tl::tensor<double>({{0.3, 0.9, 1.5}, {2.5, 26.0, 31.0}});
  const std::pair<const char*, Fn> cases[] = {
      {"bessel_j0", [](const tl::Tensor<double>& x) { return tl::Tensor<double>(tl::special::bessel_j0(x)); }},
      {"bessel_j1", [](const tl::Tensor<double>& x) { return tl::Tensor<double>(tl::special::bessel_j1(x)); }},
      {"spherical_bessel_j0",
       [](const tl::Tensor<double>& x) { return tl::Tensor<double>(tl::special::spherical_bessel_j0(x)); }},
      {"bessel_y0", [](const tl::Tensor<double>& x) { return tl::Tensor<double>(tl::special::bessel_y0(x)); }},
      {"bessel_y1", [](const tl::Tensor<double>& x) { return tl::Tensor<double>(tl::special::bessel_y1(x)); }},
      {"modified_bessel_k0",
       [](const tl::Tensor<double>& x) { return tl::Tensor<double>(tl::special::modified_bessel_k0(x)); }},
      {"modified_bessel_k1",
       [](const tl::Tensor<double>& x) { return tl::Tensor<double>(tl::special::modified_bessel_k1(x)); }},
      {"scaled_modified_bessel_k0",
       [](const tl::Tensor<double>& x) { return tl::Tensor<double>(tl::special::scaled_modified_bessel_k0(x)); }},
      {"scaled_modified_bessel_k1",
       [](const tl::Tensor<double>& x) { return tl::Tensor<double>(tl::special::scaled_modified_bessel_k1(x)); }},
  };
  for (const auto& entry : cases) {
    const std::string name = entry.first;
    const Fn fn = entry.second;
    CAPTURE(name);
    const bool both_signs = name == "bessel_j0" || name == "bessel_j1" || name == "spherical_bessel_j0";
    auto a = (both_signs ? real_line : half_line).clone().requires_grad_();
    const auto g = [fn](const Inputs& in) { return fn(in[0]); };
    CHECK(check(g, {a}));
    CHECK(tl::autograd::gradgradcheck(g, {a}));
  }
  // Ai (no gradient in PyTorch 1.13; here Ai', and Ai'' = x Ai) in each
  // region of its kernel: the asymptotic expansion below -9.65, Miller's
  // recurrence to -2, the series to 1, K_(1/3) and K_(2/3) above.
  auto airy = tl::tensor<double>({{-12.5, -6.0, -1.2}, {0.4, 2.5, 7.0}}).requires_grad_();
  const auto ai = [](const Inputs& in) { return tl::Tensor<double>(tl::special::airy_ai(in[0])); };
  CHECK(check(ai, {airy}));
  CHECK(tl::autograd::gradgradcheck(ai, {airy}));
  ai({airy}).sum().backward();
  std::vector<double> ai_prime;
  for (const double v : airy.detach().to_vector()) ai_prime.push_back(m::airy_ai_prime(v));
  CHECK(airy.grad().to_vector() == ai_prime);
  // The recurrences by value: J0' = -J1, K0' = -K1, and the points where
  // J1' = 1/2 and j0' = 0 (0/0 in the general formulas).
  auto x = tl::tensor<double>({0.0, 0.7, 3.0, 40.0}).requires_grad_();
  tl::Tensor<double>(tl::special::bessel_j0(x)).sum().backward();
  std::vector<double> want;
  for (const double v : x.detach().to_vector()) want.push_back(-m::bessel_j1(v));
  CHECK(x.grad().to_vector() == want);
  auto at_zero = tl::tensor<double>({0.0}).requires_grad_();
  tl::Tensor<double>(tl::special::bessel_j1(at_zero) + tl::special::spherical_bessel_j0(at_zero)).sum().backward();
  CHECK(at_zero.grad().to_vector() == std::vector<double>{0.5});
  // At the poles the derivatives are the limits, not inf - inf: Y1'(0+) =
  // +inf, (e^x K0)'(0+) = (e^x K1)'(0+) = -inf.
  auto pole = tl::tensor<double>({0.0}).requires_grad_();
  tl::Tensor<double>(tl::special::bessel_y1(pole)).sum().backward();
  CHECK(pole.grad().to_vector() == std::vector<double>{std::numeric_limits<double>::infinity()});
  for (const bool first : {true, false}) {
    auto p = tl::tensor<double>({0.0}).requires_grad_();
    const auto y = first ? tl::Tensor<double>(tl::special::scaled_modified_bessel_k0(p))
                         : tl::Tensor<double>(tl::special::scaled_modified_bessel_k1(p));
    y.sum().backward();
    CHECK(p.grad().to_vector() == std::vector<double>{-std::numeric_limits<double>::infinity()});
  }
  auto k = tl::tensor<double>({0.5, 2.0, 35.0}).requires_grad_();
  tl::Tensor<double>(tl::special::modified_bessel_k0(k)).sum().backward();
  want.clear();
  for (const double v : k.detach().to_vector()) want.push_back(-m::modified_bessel_k1(v));
  CHECK(k.grad().to_vector() == want);
}

TEST_CASE("zeta, igamma, igammac: PyTorch's gradients in the second operand, gradchecks twice; none in the first") {
  const auto& f = fixtures::load("special.txt");
  {
    const auto& c = f["zeta_grad"];
    const auto x = c.get<double>("x");
    auto q = c.get<double>("q").requires_grad_();
    tl::Tensor<double>(tl::special::zeta(x, q)).sum().backward();
    fixtures::check_close(q.grad(), c.get<double>("gq"), 1e-13, 0, "zeta d/dq");
    auto qa = tl::tensor<double>({{0.4, 1.5}, {3.0, 11.0}}).requires_grad_();
    const auto g = [x](const Inputs& in) { return tl::Tensor<double>(tl::special::zeta(x.reshape({2, 2}), in[0])); };
    CHECK(check(g, {qa}));
    CHECK(tl::autograd::gradgradcheck(g, {qa}));
  }
  for (const std::string name : {"igamma", "igammac"}) {
    CAPTURE(name);
    const auto& c = f[name + "_grad"];
    const auto a = c.get<double>("a");
    auto x = c.get<double>("x").requires_grad_();
    const bool lower = name == "igamma";
    const auto fn = [lower, a](const tl::Tensor<double>& v) {
      return lower ? tl::Tensor<double>(tl::igamma(a, v)) : tl::Tensor<double>(tl::igammac(a, v));
    };
    fn(x).sum().backward();
    fixtures::check_close(x.grad(), c.get<double>("gx"), 1e-13, 0, name + " d/dx");
    auto xa = c.get<double>("x").clone().requires_grad_();
    const auto g = [fn](const Inputs& in) { return fn(in[0]); };
    CHECK(check(g, {xa}));
    CHECK(tl::autograd::gradgradcheck(g, {xa}));
  }
  // PyTorch implements no derivative in the first operand: the forward runs,
  // the backward throws its error, also through a larger expression, a sum
  // and an in-place write.
  auto s = tl::tensor<double>({2.0, 3.5}).requires_grad_();
  const auto q = tl::tensor<double>({1.0, 2.0});
  const tl::Tensor<double> z = tl::special::zeta(s, q);
  CHECK(z.to_vector() == tl::Tensor<double>(tl::special::zeta(s.detach(), q)).to_vector());
  CHECK_THROWS_WITH_AS(z.sum().backward(), "the derivative for 'zeta' is not implemented.", tl::NotImplementedError);
  CHECK_THROWS_WITH_AS(tl::Tensor<double>(tl::exp(tl::special::zeta(s * 2.0, q)) + s).sum().backward(),
                       "the derivative for 'zeta' is not implemented.", tl::NotImplementedError);
  CHECK_THROWS_WITH_AS(tl::special::zeta(s, q).sum().backward(), "the derivative for 'zeta' is not implemented.",
                       tl::NotImplementedError);
  CHECK_THROWS_WITH_AS(tl::Tensor<double>(tl::igamma(s, q)).sum().backward(),
                       "the derivative for 'igamma: input' is not implemented.", tl::NotImplementedError);
  CHECK_THROWS_WITH_AS(tl::Tensor<double>(tl::igammac(s, q)).sum().backward(),
                       "the derivative for 'igammac: input' is not implemented.", tl::NotImplementedError);
  auto written = tl::tensor<double>({0.5, 1.5}).requires_grad_();
  auto target = tl::Tensor<double>(written * 1.0);
  target.igamma_(q);
  CHECK_THROWS_WITH_AS(target.sum().backward(), "the derivative for 'igamma: input' is not implemented.",
                       tl::NotImplementedError);
  // A first operand that needs no gradient is no obstacle, even where the
  // second does: only the lanes under the first operand are refused, wherever
  // the functor sits among the leaves.
  auto both = tl::tensor<double>({1.5, 2.5}).requires_grad_();
  tl::Tensor<double>(tl::igamma(q * 3.0, both) + both).sum().backward();
  CHECK(both.grad().defined());
  both.set_grad(tl::Tensor<double>());
  tl::Tensor<double>(both + tl::igamma(q, both)).sum().backward();
  CHECK(both.grad().defined());
  CHECK_THROWS_WITH_AS(tl::Tensor<double>(q + both * tl::special::zeta(s, q)).sum().backward(),
                       "the derivative for 'zeta' is not implemented.", tl::NotImplementedError);
  // `grad` refuses only when it needs a refused lane (PyTorch's
  // task_should_compute_output): q's gradient alone is PyTorch's
  // -x zeta(x + 1, q) (1.13 gives -0.7677, -0.2470 for these), x's throws, and
  // so does q's once q also reaches the first operand.
  auto x = tl::tensor<double>({2.5, 3.0}).requires_grad_();
  auto hq = tl::tensor<double>({1.5, 2.0}).requires_grad_();
  const tl::Tensor<double> zq = tl::special::zeta(x, hq);
  const auto gq = tl::autograd::grad<double>({zq.sum()}, {hq}, {}, true);
  const tl::Tensor<double> expected_gq = -x.detach() * tl::special::zeta(x.detach() + 1.0, hq.detach());
  CHECK(gq.at(0).to_vector() == expected_gq.to_vector());
  CHECK(gq.at(0).to_vector().at(0) == doctest::Approx(-0.7677).epsilon(1e-4));
  CHECK_THROWS_WITH_AS(tl::autograd::grad<double>({zq.sum()}, {x}, {}, true),
                       "the derivative for 'zeta' is not implemented.", tl::NotImplementedError);
  CHECK_THROWS_WITH_AS(tl::autograd::grad<double>({zq.sum()}, {x, hq}, {}, true),
                       "the derivative for 'zeta' is not implemented.", tl::NotImplementedError);
  CHECK_THROWS_WITH_AS(
      tl::autograd::grad<double>({tl::Tensor<double>(tl::special::zeta(x * 2.0 + hq, hq)).sum()}, {hq}),
      "the derivative for 'zeta' is not implemented.", tl::NotImplementedError);
  // Through a non-leaf: asking for the gradient of the refused operand itself
  // throws; asking for another leaf of the same expression does not.
  const tl::Tensor<double> h = x * 2.0;
  auto w = tl::tensor<double>({1.0, -1.0}).requires_grad_();
  const tl::Tensor<double> zh = tl::special::zeta(h, hq) * w;
  CHECK_THROWS_WITH_AS(tl::autograd::grad<double>({zh.sum()}, {h}, {}, true),
                       "the derivative for 'zeta' is not implemented.", tl::NotImplementedError);
  const auto gw = tl::autograd::grad<double>({zh.sum()}, {w}, {}, true);
  CHECK(gw.at(0).to_vector() == tl::Tensor<double>(tl::special::zeta(h.detach(), hq.detach())).to_vector());
  // Second order (PyTorch: q's gradient is -x zeta(x + 1, q), differentiable
  // in q, refused in x): the refusal holds in the second-order node too.
  const auto gq2 = tl::autograd::grad<double>({zq.sum()}, {hq}, {}, true, true);
  const auto hqq = tl::autograd::grad<double>({gq2.at(0).sum()}, {hq}, {}, true);
  const tl::Tensor<double> expected_hqq =
      x.detach() * (x.detach() + 1.0) * tl::special::zeta(x.detach() + 2.0, hq.detach());
  fixtures::check_close(hqq.at(0), expected_hqq, 1e-14, 0, "zeta d2/dq2");
  CHECK(hqq.at(0).to_vector().at(0) == doctest::Approx(1.6028).epsilon(1e-4));  // PyTorch 1.13
  CHECK_THROWS_WITH_AS(tl::autograd::grad<double>({gq2.at(0).sum()}, {x}, {}, true),
                       "the derivative for 'zeta' is not implemented.", tl::NotImplementedError);
  // backward() into .grad needs every lane.
  CHECK_THROWS_WITH_AS(zh.sum().backward(), "the derivative for 'zeta' is not implemented.", tl::NotImplementedError);
  // A leaf that reaches the first operand only through a comparison passes
  // no gradient there (PyTorch: the comparison has no history).
  auto compared = tl::tensor<double>({-1.0, 1.0}).requires_grad_();
  tl::Tensor<double>(tl::special::zeta(q * 2.0 + (compared > 0.0), q) + compared).sum().backward();
  CHECK(compared.grad().to_vector() == std::vector<double>{1.0, 1.0});
}

TEST_CASE("the orthogonal polynomials have no gradient, as in PyTorch") {
  // No gradient, as in PyTorch (Note [polynomials without gradient]): its
  // term adds nothing, even where the incoming gradient is infinite.
  auto leaf = tl::tensor<double>({0.3, 1.5}).requires_grad_();
  auto degree = tl::tensor<double>({4.0, 2.0}).requires_grad_();
  const double inf = std::numeric_limits<double>::infinity();
  tl::Tensor<double>(tl::special::chebyshev_polynomial_t(leaf, degree) * inf + leaf * leaf).sum().backward();
  CHECK(leaf.grad().to_vector() == std::vector<double>{0.6, 3.0});
  CHECK(degree.grad().to_vector() == std::vector<double>{0.0, 0.0});
  // Under zeta's first operand (no derivative there, Note [derivatives
  // PyTorch does not implement]) a leaf reached only through a polynomial
  // needs none: PyTorch's polynomial result has no history.
  auto under = tl::tensor<double>({0.5, 0.25}).requires_grad_();
  tl::Tensor<double>(tl::special::zeta(tl::special::chebyshev_polynomial_t(under, 2) + 3.0, 2.0) + under)
      .sum()
      .backward();
  CHECK(under.grad().to_vector() == std::vector<double>{1.0, 1.0});
}

TEST_CASE("i0, i0e, i1, i1e, erfcx, log_ndtr, ndtri: PyTorch's gradients, gradchecks once and twice") {
  const auto& f = fixtures::load("special.txt");
  using Fn = tl::Tensor<double> (*)(const tl::Tensor<double>&);
  const std::pair<const char*, Fn> cases[] = {
      {"i0", [](const tl::Tensor<double>& x) { return tl::Tensor<double>(tl::i0(x)); }},
      {"i0e", [](const tl::Tensor<double>& x) { return tl::Tensor<double>(tl::special::i0e(x)); }},
      {"i1", [](const tl::Tensor<double>& x) { return tl::Tensor<double>(tl::special::i1(x)); }},
      {"i1e", [](const tl::Tensor<double>& x) { return tl::Tensor<double>(tl::special::i1e(x)); }},
      {"erfcx", [](const tl::Tensor<double>& x) { return tl::Tensor<double>(tl::special::erfcx(x)); }},
      {"log_ndtr", [](const tl::Tensor<double>& x) { return tl::Tensor<double>(tl::special::log_ndtr(x)); }},
      {"ndtri", [](const tl::Tensor<double>& x) { return tl::Tensor<double>(tl::special::ndtri(x)); }},
  };
  tl::Generator gen(59);
  // Both signs and both sides of the Bessel functions' switch at |x| = 30.
  const auto wide = tl::tensor<double>({{-31.0, -3.5, -0.4}, {0.3, 2.0, 30.5}});
  const auto moderate = tl::tensor<double>({{-4.0, -1.5, -0.4}, {0.3, 2.0, 26.0}});  // erfcx(-31) overflows
  const auto probabilities = tl::Tensor<double>(tl::rand<double>({2, 3}, gen) * 0.98 + 0.01);
  for (const auto& entry : cases) {
    const std::string name = entry.first;
    const Fn fn = entry.second;
    CAPTURE(name);
    const auto& c = f[name + "_grad"];
    auto x = c.get<double>("x").requires_grad_();
    fn(x).sum().backward();
    // erfcx' = 2x erfcx(x) - 2/sqrt(pi) cancels for large x (by 2x^2 at 35),
    // in PyTorch's formula and ours alike.
    fixtures::check_close(x.grad(), c.get<double>("gx"), name == "erfcx" ? 1e-11 : 1e-13, 1e-300, name);
    auto a = (name == "ndtri" ? probabilities : name == "erfcx" ? moderate : wide).clone().requires_grad_();
    const auto g = [fn](const Inputs& in) { return fn(in[0]); };
    CHECK(check(g, {a}));
    CHECK(tl::autograd::gradgradcheck(g, {a}));
  }
}

TEST_CASE("copysign and hardshrink have PyTorch's gradients; nextafter and heaviside refuse theirs") {
  const auto& f = fixtures::load("elementwise.txt");
  const auto& c = f["copysign_grad"];
  auto a = c.get<double>("a").requires_grad_();
  auto b = c.get<double>("b").requires_grad_();
  tl::Tensor<double>(tl::copysign(a, b)).sum().backward();
  fixtures::check_close(a.grad(), c.get<double>("ga"), 0, 0, "copysign d/da");  // result / a: 0 at zeros, NaN at inf
  CHECK(b.grad().to_vector() == c.get<double>("gb").to_vector());               // none in the sign
  auto p = tl::tensor<double>({{1.5, -2.0}, {0.7, -0.3}}).requires_grad_();
  auto q = tl::tensor<double>({{-1.0, 2.0}, {0.5, -4.0}}).requires_grad_();
  const auto copysign = [](const Inputs& in) { return tl::Tensor<double>(tl::copysign(in[0] * in[0], in[1])); };
  CHECK(check(copysign, {p, q}));
  CHECK(tl::autograd::gradgradcheck(copysign, {p, q}));

  const auto& h = f["hardshrink_grad"];
  auto x = h.get<double>("x").requires_grad_();
  tl::Tensor<double>(tl::hardshrink(x)).sum().backward();
  CHECK(x.grad().to_vector() == h.get<double>("gx").to_vector());  // 0 at the bounds
  auto away = tl::tensor<double>({-2.0, -0.2, 0.3, 0.9}).requires_grad_();
  const auto shrink = [](const Inputs& in) { return tl::Tensor<double>(tl::hardshrink(in[0] * 2.0, 0.5)); };
  CHECK(check(shrink, {away}));
  CHECK(tl::autograd::gradgradcheck(shrink, {away}));
  // The gradient is masked, as PyTorch's hardshrink_backward: a NaN incoming
  // gradient gives 0 inside [-lambd, lambd].
  auto masked = tl::tensor<double>({0.1, 2.0}).requires_grad_();
  tl::Tensor<double>(tl::hardshrink(masked)).backward(tl::full<double>({2}, std::numeric_limits<double>::quiet_NaN()));
  CHECK(masked.grad().to_vector()[0] == 0.0);
  CHECK(std::isnan(masked.grad().to_vector()[1]));

  // No derivative in either operand of nextafter and heaviside (PyTorch's
  // NotImplementedError; 1.13's heaviside says "derivative for
  // aten::heaviside is not implemented"), in reverse and forward mode; an
  // operand that needs no gradient is no obstacle.
  auto s = tl::tensor<double>({0.5, -1.0}).requires_grad_();
  const auto plain = tl::tensor<double>({1.0, 2.0});
  for (const bool first : {true, false}) {
    CAPTURE(first);
    const tl::Tensor<double> n = first ? tl::Tensor<double>(tl::nextafter(s, plain)) : tl::nextafter(plain, s);
    CHECK_THROWS_WITH_AS(n.sum().backward(), "the derivative for 'nextafter' is not implemented.",
                         tl::NotImplementedError);
    const tl::Tensor<double> st = first ? tl::Tensor<double>(tl::heaviside(s, plain)) : tl::heaviside(plain, s);
    CHECK_THROWS_WITH_AS(st.sum().backward(), "the derivative for 'heaviside' is not implemented.",
                         tl::NotImplementedError);
    using Tangent = tl::Tensor<tl::Dual<double, 1>>;
    const auto dual = tl::autograd::forward_ad::make_dual(plain, tl::ones<double>({2}));
    const auto forward = [&] {
      return first ? Tangent(tl::nextafter(dual, plain)) : Tangent(tl::nextafter(plain, dual));
    };
    CHECK_THROWS_WITH_AS(forward(), "the derivative for 'nextafter' is not implemented.", tl::NotImplementedError);
    const auto step = [&] { return first ? Tangent(tl::heaviside(dual, plain)) : Tangent(tl::heaviside(plain, dual)); };
    CHECK_THROWS_WITH_AS(step(), "the derivative for 'heaviside' is not implemented.", tl::NotImplementedError);
    CHECK_THROWS_WITH_AS(Tangent(tl::heaviside(dual, dual)), "the derivative for 'heaviside' is not implemented.",
                         tl::NotImplementedError);
  }
  auto other = tl::tensor<double>({3.0, 4.0}).requires_grad_();
  tl::Tensor<double>(tl::nextafter(plain, plain * 2.0) * other).sum().backward();
  CHECK(other.grad().to_vector() == tl::Tensor<double>(tl::nextafter(plain, plain * 2.0)).to_vector());
}

TEST_CASE("div with a rounding mode has gradient 0 in both operands, as PyTorch's") {
  auto a = tl::tensor<double>({7.5, -3.2}).requires_grad_();
  auto b = tl::tensor<double>({2.0, 0.7}).requires_grad_();
  for (const char* mode : {"trunc", "floor"}) {
    CAPTURE(mode);
    a.set_grad(tl::Tensor<double>());
    b.set_grad(tl::Tensor<double>());
    tl::Tensor<double>(tl::div(a, b, mode) + a).sum().backward();
    CHECK(a.grad().to_vector() == std::vector<double>{1.0, 1.0});
    CHECK(b.grad().to_vector() == std::vector<double>{0.0, 0.0});
  }
  // 0 even for an infinite incoming gradient, as PyTorch's (zeros, not
  // grad * 0). floor_divide is div(a, b, "floor") here, so it has this
  // gradient too; PyTorch 1.13 has no derivative for floor_divide.
  auto c = tl::tensor<double>({1.0}).requires_grad_();
  auto d = tl::tensor<double>({3.0}).requires_grad_();
  tl::Tensor<double>(tl::div(c, d, "floor")).backward(tl::full<double>({1}, std::numeric_limits<double>::infinity()));
  CHECK(c.grad().to_vector() == std::vector<double>{0.0});
  CHECK(d.grad().to_vector() == std::vector<double>{0.0});
}

TEST_CASE("gradcheck: rsub, ldexp, and the stacking ops (vander, block_diag, column_stack, dstack, hsplit)") {
  tl::Generator gen(25);
  auto a = leaf({2, 3}, gen), b = leaf({3}, gen), v = leaf({4}, gen);
  CHECK(check([](const Inputs& in) { return tl::Tensor<double>(tl::rsub(in[0], in[1], 2.5)); }, {a, b}));
  CHECK(check([](const Inputs& in) { return tl::Tensor<double>(tl::ldexp(in[0], in[1] * 3.0)); }, {a, b}));
  CHECK(check([](const Inputs& in) { return tl::vander(in[0]); }, {v}));
  CHECK(check([](const Inputs& in) { return tl::vander(in[0], 5, true); }, {v}));
  // cumprod's gradient at a zero element, as vander meets it for x = 0.
  auto with_zero = tl::tensor<double>({0.0, -0.5, 0.75}).requires_grad_();
  CHECK(check([](const Inputs& in) { return tl::vander(in[0], 4); }, {with_zero}));
  CHECK(check([](const Inputs& in) { return tl::block_diag({in[0], in[1], in[0].t()}); }, {a, b}));
  CHECK(check([](const Inputs& in) { return tl::column_stack({in[0].t(), in[1]}); }, {a, b}));
  CHECK(check([](const Inputs& in) { return tl::dstack({in[0], tl::Tensor<double>(in[0] * 2.0)}); }, {a}));
  CHECK(check([](const Inputs& in) { return in[0].hsplit({1})[1] * 2.0 + tl::atleast_3d(in[1]).sum(); }, {a, b}));
}

TEST_CASE("in-place tril_, triu_, cumsum_, cumprod_, logit_ and the comparisons record on a non-leaf") {
  tl::Generator gen(26);
  auto m = leaf({3, 3}, gen), p = positive_leaf({4}, gen);
  CHECK(check(
      [](const Inputs& in) {
        auto t = in[0].clone();
        t.tril_(-1);
        return t;
      },
      {m}));
  CHECK(check(
      [](const Inputs& in) {
        auto t = in[0] * 1.0;
        tl::Tensor<double> u = t;
        u.triu_();
        u.cumsum_(1);
        return u;
      },
      {m}));
  CHECK(check(
      [](const Inputs& in) {
        auto t = in[0].clone();
        t.cumprod_(0);  // its backward reads the input the write replaces (a copy is kept)
        return t;
      },
      {m}));
  CHECK(check(
      [](const Inputs& in) {
        tl::Tensor<double> t = in[0] / 2.0;
        t.logit_(0.3);
        return t;
      },
      {p}));
  // A comparison written in place cuts the gradient: what flows is through
  // the other factor only, as PyTorch's EqBackward (zeros).
  auto x = tl::tensor<double>({-1.5, 0.5, 2.0}).requires_grad_();
  tl::Tensor<double> y = x * 2.0;
  y.eq_(1.0);
  (y * x).sum().backward();
  CHECK(y.to_vector() == std::vector<double>{0, 1, 0});
  CHECK(x.grad().to_vector() == std::vector<double>{0, 1, 0});
  auto leaf_m = m;
  CHECK_THROWS_AS(leaf_m.tril_(), tl::AutogradError);  // a leaf that requires grad
}

TEST_CASE("gradcheck: addr, multi_dot, cholesky_inverse, vecdot, tensorinv, tensorsolve, inv_ex, cond") {
  tl::Generator gen(27);
  auto inp = leaf({3, 4}, gen), v1 = leaf({3}, gen), v2 = leaf({4}, gen);
  CHECK(check([](const Inputs& in) { return tl::addr(in[0], in[1], in[2], 0.5, -2.0); }, {inp, v1, v2}));
  auto m1 = leaf({4, 2}, gen), m2 = leaf({2, 5}, gen), m3 = leaf({5, 3}, gen);
  CHECK(check(
      [](const Inputs& in) {
        return tl::linalg::multi_dot({in[0], in[1], in[2], in[3], in[4]});
      },
      {v2, m1, m2, m3, v1}));
  // cholesky_inverse through a factor with a positive diagonal.
  auto l = leaf({3, 3}, gen);
  const auto factor = [](const tl::Tensor<double>& t) {
    return tl::Tensor<double>(t.tril(-1) + tl::eye<double>(3) * 2.0);
  };
  CHECK(check([&](const Inputs& in) { return tl::cholesky_inverse(factor(in[0])); }, {l}));
  CHECK(check([&](const Inputs& in) { return tl::cholesky_inverse(factor(in[0]).t(), true); }, {l}));
  CHECK(check([](const Inputs& in) { return tl::linalg::vecdot(in[0], in[1].unsqueeze(1), 0); }, {inp, v1}));
  // Well-conditioned square operands: the identity plus a small perturbation.
  auto t = leaf({2, 3, 6}, gen), b = leaf({2, 3}, gen);
  const auto well = [](const tl::Tensor<double>& x) {
    return tl::Tensor<double>(x * 0.3 + tl::eye<double>(6).reshape({2, 3, 6}));
  };
  CHECK(check([&](const Inputs& in) { return tl::linalg::tensorinv(well(in[0])); }, {t}));
  CHECK(check([&](const Inputs& in) { return tl::linalg::tensorsolve(well(in[0]), in[1]); }, {t, b}));
  auto sq = leaf({2, 3, 3}, gen);
  const auto square = [](const tl::Tensor<double>& x) { return tl::Tensor<double>(x * 0.3 + tl::eye<double>(3)); };
  CHECK(check([&](const Inputs& in) { return tl::linalg::inv_ex(square(in[0])).inverse; }, {sq}));
  CHECK(check([&](const Inputs& in) { return tl::linalg::cond(square(in[0])); }, {sq}));
  CHECK(check([&](const Inputs& in) { return tl::linalg::cond(square(in[0]), "fro"); }, {sq}));
  CHECK(check([&](const Inputs& in) { return tl::linalg::cond(square(in[0]), 1.0); }, {sq}));
}

TEST_CASE(
    "cosine_similarity and pdist have PyTorch's gradients; gradchecks of the distances, view scatters, "
    "trapezoid") {
  const auto& f = fixtures::load("composite_ops.txt");
  const auto& c = f["cosine_similarity"];
  auto a = c.get<double>("a").requires_grad_(), b = c.get<double>("b").requires_grad_();
  tl::cosine_similarity(a, b, 1).sum().backward();
  fixtures::check_close(a.grad(), c.get<double>("ga"), 1e-12, 1e-14, "cosine_similarity d/da");
  fixtures::check_close(b.grad(), c.get<double>("gb"), 1e-12, 1e-14, "cosine_similarity d/db");
  // Norms below eps: the value and the gradient use the raised norm, as PyTorch 1.13's.
  const auto& t = f["cosine_similarity/tiny"];
  auto ta = t.get<double>("a").requires_grad_(), tb = t.get<double>("b").requires_grad_();
  const auto tr = tl::cosine_similarity(ta, tb, 1);
  fixtures::check_close(tr, t.get<double>("r"), 1e-12, 1e-15, "cosine_similarity of tiny vectors");
  (tr * tl::tensor<double>({1.0, -2.0})).sum().backward();
  fixtures::check_close(ta.grad(), t.get<double>("ga"), 1e-9, 1e-6, "d/da of tiny vectors");
  fixtures::check_close(tb.grad(), t.get<double>("gb"), 1e-9, 1e-15, "d/db of tiny vectors");
  const auto& d = f["pdist"];
  auto x = d.get<double>("x").requires_grad_();
  const auto dist = tl::pdist(x);
  (dist * tl::arange<double>(0, dist.numel())).sum().backward();
  fixtures::check_close(x.grad(), d.get<double>("g"), 1e-12, 1e-14, "pdist gradient");

  tl::Generator gen(28);
  auto u = leaf({3, 4}, gen), v = leaf({4}, gen), m = leaf({4, 3}, gen);
  CHECK(check([](const Inputs& in) { return tl::cosine_similarity(in[0], in[1], 1); }, {u, v}));
  CHECK(check([](const Inputs& in) { return tl::pairwise_distance(in[0], in[1], 3.0); }, {u, v}));
  CHECK(check([](const Inputs& in) { return tl::pdist(in[0], 1.5); }, {m}));
  CHECK(check([](const Inputs& in) { return tl::select_scatter(in[0], in[1], 0, 1); }, {m, leaf({3}, gen)}));
  CHECK(check([](const Inputs& in) { return tl::slice_scatter(in[0], in[1], 1, 0, tl::None, 2); },
              {u, leaf({3, 2}, gen)}));
  CHECK(check([](const Inputs& in) { return tl::diagonal_scatter(in[0], in[1], 1); }, {u, leaf({3}, gen)}));
  CHECK(check(
      [](const Inputs& in) {
        return tl::as_strided_scatter(in[0], in[1], {2, 2}, {4, 1}, 1);
      },
      {u, leaf({2, 2}, gen)}));
  auto xs = tl::tensor<double>({0.0, 0.5, 1.5, 1.75}).requires_grad_();
  CHECK(check([](const Inputs& in) { return tl::trapezoid(in[0], in[1]); }, {u, xs}));
  CHECK(check([](const Inputs& in) { return tl::cumulative_trapezoid(in[0], in[1], 0); }, {m, leaf({4, 1}, gen)}));
}

TEST_CASE("gradcheck: stft and istft (through the padding, frames, window, transforms and overlap-add)") {
  tl::Generator gen(30);
  auto x = leaf({2, 21}, gen), window = positive_leaf({6}, gen);
  CHECK(check([](const Inputs& in) { return tl::view_as_real(tl::stft(in[0], 8, 3, 6, in[1])).contiguous(); },
              {x, window}));
  CHECK(check(
      [](const Inputs& in) {
        return tl::view_as_real(tl::stft(in[0], 8, 2, std::nullopt, std::nullopt, true, "replicate", true, false))
            .contiguous();
      },
      {x}));
  auto spectrum = leaf({2, 5, 7, 2}, gen);
  CHECK(check([](const Inputs& in) { return tl::istft(tl::ComplexTensor<double>(in[0]), 8, 2, std::nullopt, in[1]); },
              {spectrum, positive_leaf({8}, gen)}));
}

TEST_CASE("gradcheck: gradient (uniform and coordinate spacing, both edge orders) and histogram's weights") {
  tl::Generator gen(32);
  auto f = leaf({4, 5}, gen);
  auto coords = tl::tensor<double>({0.0, 0.4, 1.5, 1.75, 3.0}).requires_grad_();
  for (int64_t order : {1, 2}) {
    CHECK(check([order](const Inputs& in) { return tl::gradient(in[0], 0.5, {}, order)[0]; }, {f}));
    CHECK(check(
        [order](const Inputs& in) { return tl::gradient(in[0], std::vector<tl::Tensor<double>>{in[1]}, 1, order)[0]; },
        {f, coords}));
  }
  const auto x = tl::tensor<double>({0.1, 0.7, 0.3, 0.9, 0.55});
  auto w = positive_leaf({5}, gen);
  CHECK(check([x](const Inputs& in) { return tl::histogram(x, 3, std::pair{0.0, 1.0}, in[0], true).hist; }, {w}));
}

TEST_CASE("scatter_reduce and index_reduce have PyTorch's gradients: ties, zeros, include_self; gradchecks") {
  const auto& f = fixtures::load("scatter_reduce.txt");
  for (const std::string reduce : {"sum", "prod", "mean", "amax", "amin"})
    for (const bool include_self : {true, false}) {
      const auto& c = f["scatter_reduce/" + reduce + (include_self ? "/self" : "/noself")];
      CAPTURE(reduce);
      CAPTURE(include_self);
      auto x = c.get<double>("self").requires_grad_(), s = c.get<double>("src").requires_grad_();
      const auto y = tl::scatter_reduce(x, 1, c.get<int64_t>("index"), s, reduce, include_self);
      CHECK(grad_fn_name(y) == "ScatterReduceBackward");
      fixtures::check_close(y, c.get<double>("y"), 1e-15, 1e-15, "value");
      (y * c.get<double>("upstream")).sum().backward();
      fixtures::check_close(x.grad(), c.get<double>("gself"), 1e-14, 1e-14, "d/dself");
      fixtures::check_close(s.grad(), c.get<double>("gsrc"), 1e-14, 1e-14, "d/dsrc");
    }
  for (const std::string reduce : {"prod", "mean", "amax", "amin"})
    for (const bool include_self : {true, false}) {
      const auto& c = f["index_reduce/" + reduce + (include_self ? "/self" : "/noself")];
      CAPTURE(reduce);
      CAPTURE(include_self);
      auto x = c.get<double>("input").requires_grad_(), s = c.get<double>("source").requires_grad_();
      const auto y = x.index_reduce(0, c.get<int64_t>("index"), s, reduce, include_self);
      (y * c.get<double>("upstream")).sum().backward();
      fixtures::check_close(x.grad(), c.get<double>("ginput"), 1e-14, 1e-14, "index_reduce d/dinput");
      fixtures::check_close(s.grad(), c.get<double>("gsource"), 1e-14, 1e-14, "index_reduce d/dsource");
    }
  // Distinct values (no ties, no zeros): the finite differences agree.
  tl::Generator gen(33);
  auto self = leaf({3, 4}, gen), src = leaf({3, 5}, gen);
  const auto index = tl::tensor<int64_t>({{0, 1, 1, 3, 0}, {2, 2, 2, 1, 0}, {3, 0, 1, 1, 3}});
  for (const std::string reduce : {"sum", "prod", "mean", "amax", "amin"})
    for (const bool include_self : {true, false}) {
      CAPTURE(reduce);
      CHECK(check([&](const Inputs& in) { return tl::scatter_reduce(in[0], 1, index, in[1], reduce, include_self); },
                  {self, src}));
    }
  CHECK(check(
      [](const Inputs& in) {
        return tl::index_reduce(in[0], 1, tl::tensor<int64_t>({2, 0, 2}), in[1], "mean");
      },
      {self, leaf({3, 3}, gen)}));
}

TEST_CASE("gradcheck: threshold (the gradient passes above the threshold) and polar") {
  tl::Generator gen(34);
  auto x = leaf({3, 4}, gen);
  CHECK(check([](const Inputs& in) { return tl::Tensor<double>(tl::threshold(in[0], 0.1, -2.0)); }, {x}));
  auto r = positive_leaf({5}, gen), a = leaf({5}, gen);
  CHECK(check([](const Inputs& in) { return tl::view_as_real(tl::polar(in[0], in[1])).contiguous(); }, {r, a}));
}

TEST_CASE("gradcheck: solve_ex, cholesky_ex, householder_product and ormqr") {
  tl::Generator gen(35);
  auto a = leaf({2, 3, 3}, gen), b = leaf({2, 3, 2}, gen);
  const auto well = [](const tl::Tensor<double>& x) { return tl::Tensor<double>(x * 0.3 + tl::eye<double>(3)); };
  CHECK(check([&](const Inputs& in) { return tl::linalg::solve_ex(well(in[0]), in[1]).result; }, {a, b}));
  CHECK(check([&](const Inputs& in) { return tl::linalg::solve_ex(well(in[0]), in[1].mT(), false).result; }, {a, b}));
  CHECK(check(
      [&](const Inputs& in) {
        const tl::Tensor<double> spd = tl::matmul(in[0], in[0].mT()) + tl::eye<double>(3) * 3.0;
        return tl::linalg::cholesky_ex(spd).L;
      },
      {a}));
  auto refl = leaf({4, 3}, gen), tau = leaf({3}, gen), c = leaf({4, 2}, gen);
  CHECK(check([](const Inputs& in) { return tl::linalg::householder_product(in[0], in[1]); }, {refl, tau}));
  CHECK(check([](const Inputs& in) { return tl::ormqr(in[0], in[1], in[2], true, true); }, {refl, tau, c}));
}
