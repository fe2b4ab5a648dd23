// The backward of a materialized pointwise expression (autograd/fused.hpp,
// Note [fused backward]): one node, one fused pass on duals, sums over
// broadcast dimensions. Checked against hand-computed gradients, against the
// same formula evaluated op by op (one node per step), against finite
// differences (gradcheck), and with the stats counters for "one loop, no
// saved intermediates".

#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "tensorlib/tensorlib.hpp"

namespace {

using Inputs = std::vector<tl::Tensor<double>>;

template <class T>
void check_values(const tl::Tensor<T>& t, const std::vector<T>& expected, double eps = 1e-6) {
  REQUIRE(t.defined());
  const std::vector<T> got = t.to_vector();
  REQUIRE(got.size() == expected.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    CAPTURE(i);
    CHECK(got[i] == doctest::Approx(expected[i]).epsilon(eps));
  }
}

// Uniform in [-1, 1), from a seeded generator, as a leaf requiring grad.
template <class T>
tl::Tensor<T> uniform_leaf(const tl::Shape& shape, tl::Generator& gen) {
  tl::Tensor<T> t = tl::rand<T>(shape, gen) * T(2) - T(1);
  return t.requires_grad_();
}

}  // namespace

TEST_CASE("broadcast operands get their gradient summed over the broadcast dimensions") {
  auto a = tl::tensor<float>({{1.f}, {2.f}, {3.f}}, {.requires_grad = true});     // [3, 1]
  auto b = tl::tensor<float>({{1.f, -2.f, 0.5f, 4.f}}, {.requires_grad = true});  // [1, 4]
  auto c = tl::tensor<float>(0.25f, {.requires_grad = true});                     // []
  tl::Tensor<float> y = a * b + c;
  REQUIRE(y.sizes() == tl::Shape{3, 4});
  CHECK(y.grad_fn()->next_edges().size() == 3);  // one node for the whole expression
  auto g = tl::tensor<float>({{1.f, 2.f, 3.f, 4.f}, {0.f, 1.f, 0.f, 1.f}, {-1.f, 0.5f, 2.f, 1.f}});
  y.backward(g);
  // da[i] = sum_j g[i][j] b[j]; db[j] = sum_i g[i][j] a[i]; dc = sum g.
  // a: 1 - 4 + 1.5 + 16 = 14.5; -2 + 4 = 2; -1 - 1 + 1 + 4 = 3.
  // b: 1 - 3 = -2; 2 + 2 + 1.5 = 5.5; 3 + 6 = 9; 4 + 2 + 3 = 9.
  REQUIRE(a.grad().sizes() == tl::Shape{3, 1});
  REQUIRE(b.grad().sizes() == tl::Shape{1, 4});
  REQUIRE(c.grad().sizes() == tl::Shape{});
  check_values(a.grad(), {14.5f, 2.f, 3.f});
  check_values(b.grad(), {-2.f, 5.5f, 9.f, 9.f});
  check_values(c.grad(), {14.5f});
}

TEST_CASE("a leaf used several times gets the sum of its partials") {
  auto x = tl::tensor<float>({-1.5f, 0.5f, 2.f}, {.requires_grad = true});
  tl::Tensor<float> y = x * x;
  CHECK(y.grad_fn()->next_edges().size() == 1);  // one lane for both uses
  y.backward(tl::ones<float>({3}));
  check_values(x.grad(), {-3.f, 1.f, 4.f});
  x.set_grad({});
  tl::Tensor<float> z = tl::sin(x) * x + x;  // d/dx = cos(x) x + sin(x) + 1
  z.backward(tl::ones<float>({3}));
  std::vector<float> expected;
  for (float v : {-1.5f, 0.5f, 2.f}) expected.push_back(std::cos(v) * v + std::sin(v) + 1.f);
  check_values(x.grad(), expected);
}

TEST_CASE("integer leaves never get a gradient and do not disturb the others") {
  auto x = tl::tensor<float>({1.f, 2.f, 3.f}, {.requires_grad = true});
  auto idx = tl::tensor<int64_t>({4, -1, 2});
  SUBCASE("a converted copy") {
    tl::Tensor<float> y = x * idx.to<float>();
    y.backward(tl::ones<float>({3}));
  }
  SUBCASE("an integer leaf inside the expression (promotion)") {
    tl::Tensor<float> y = x * idx + idx;
    CHECK(y.grad_fn()->next_edges().size() == 1);
    y.backward(tl::ones<float>({3}));
  }
  check_values(x.grad(), {4.f, -1.f, 2.f});
  CHECK_FALSE(idx.requires_grad());
  CHECK_FALSE(idx.grad().defined());
}

TEST_CASE("float and double leaves in one expression: the adjoint crosses the promotion cast") {
  // exp(a) * b with a float and b double computes in double (a is cast up);
  // a's gradient is converted back to float.
  auto a = tl::tensor<float>({-1.f, 0.25f, 2.f}, {.requires_grad = true});
  auto b = tl::tensor<double>({3.0, -2.0, 0.5}, {.requires_grad = true});
  tl::Tensor<double> y = tl::exp(a) * b + a;
  CHECK(y.grad_fn()->next_edges().size() == 2);
  y.backward(tl::tensor<double>({1.0, 2.0, -1.0}));
  const std::vector<double> g = {1.0, 2.0, -1.0}, av = {-1.0, 0.25, 2.0}, bv = {3.0, -2.0, 0.5};
  std::vector<float> ga;
  std::vector<double> gb;
  for (std::size_t i = 0; i < 3; ++i) {
    const double e = std::exp(static_cast<double>(static_cast<float>(av[i])));
    ga.push_back(static_cast<float>(g[i] * (e * bv[i] + 1.0)));
    gb.push_back(g[i] * e);
  }
  check_values(a.grad(), ga);
  check_values(b.grad(), gb);
}

TEST_CASE("comparisons inside where give PyTorch's gradient (the chosen branch's)") {
  // leaky relu; at 0 the condition picks the x * 0.1 branch, as in PyTorch.
  auto x = tl::tensor<float>({-2.f, -0.5f, 0.f, 0.5f, 3.f}, {.requires_grad = true});
  tl::Tensor<float> y = tl::where(x > 0.f, x, x * 0.1f);
  y.backward(tl::tensor<float>({1.f, 2.f, 3.f, 4.f, 5.f}));
  check_values(x.grad(), {0.1f, 0.2f, 0.3f, 4.f, 5.f});
  // A bool-valued chain that only feeds a comparison: zero gradient, not NaN.
  auto z = tl::tensor<float>({1.f, -1.f}, {.requires_grad = true});
  tl::Tensor<float> w = tl::where(tl::exp(z) > 1.f, 1.f, 0.f) + z * 0.f;
  w.backward(tl::ones<float>({2}));
  check_values(z.grad(), {0.f, 0.f});
}

TEST_CASE("an 8-op chain of 3 inputs: one fused loop forward, one backward, no saved intermediates") {
  constexpr int64_t n = 1000;
  const auto before_inputs = tl::stats::snapshot();
  tl::Generator gen(7);
  auto a = uniform_leaf<float>({n}, gen);
  auto b = uniform_leaf<float>({n}, gen);
  auto c = uniform_leaf<float>({n}, gen);
  auto g = uniform_leaf<float>({n}, gen).requires_grad_(false);

  const auto before = tl::stats::snapshot();
  // mul, add, sigmoid, exp, mul, tanh, div, sub
  tl::Tensor<float> y = tl::sigmoid(a * b + c) * tl::exp(a) - tl::tanh(c) / 2.f;
  const auto forward = tl::stats::snapshot() - before;
  CHECK(forward.fused_loops == 1);
  // Only the output is allocated, and nothing else stays alive: the node
  // keeps the expression's leaves, which exist anyway.
  CHECK(forward.allocations == 1);
  CHECK(forward.bytes_in_use == n * 4);
  CHECK(tl::stats::snapshot().bytes_in_use - before_inputs.bytes_in_use == 5 * n * 4);  // a, b, c, g, y

  const auto before_backward = tl::stats::snapshot();
  y.backward(g);
  const auto backward = tl::stats::snapshot() - before_backward;
  CHECK(backward.fused_loops == 1);
  CHECK(backward.allocations == 3);  // the three gradients, adopted as .grad()
  CHECK(backward.copies == 0);

  const std::vector<float> va = a.to_vector(), vb = b.to_vector(), vc = c.to_vector(), vg = g.to_vector();
  const std::vector<float> ga = a.grad().to_vector(), gb = b.grad().to_vector(), gc = c.grad().to_vector();
  int bad = 0;
  for (int64_t i = 0; i < n; ++i) {
    const double s = 1 / (1 + std::exp(-(double(va[i]) * vb[i] + vc[i]))), e = std::exp(double(va[i]));
    const double ds = s * (1 - s), t = std::tanh(double(vc[i]));
    const double da = vg[i] * (ds * vb[i] * e + s * e), db = vg[i] * ds * va[i] * e;
    const double dc = vg[i] * (ds * e - (1 - t * t) / 2);
    auto close = [](double got, double want) { return std::abs(got - want) <= 1e-5 * (1 + std::abs(want)); };
    bad += !close(ga[i], da) + !close(gb[i], db) + !close(gc[i], dc);
  }
  CHECK(bad == 0);
}

namespace {

// Random compositions: chains of steps drawn at compile time from a seeded
// LCG, each step one of kSteps differentiable pointwise functions of the
// running value y and one input. `m` is applied after every step: the
// identity builds one expression (one fused node), a materialization builds
// one node per step. Inputs lie in [-1, 1), so no step can overflow.
constexpr uint64_t lcg(uint64_t s) { return s * 6364136223846793005ULL + 1442695040888963407ULL; }
constexpr int kSteps = 11;

template <int Op, class Y, class X>
auto step(const Y& y, const X& x) {
  using T = tl::value_type_t<X>;
  if constexpr (Op == 0)
    return tl::tanh(y);
  else if constexpr (Op == 1)
    return tl::sigmoid(y);
  else if constexpr (Op == 2)
    return tl::sin(y);
  else if constexpr (Op == 3)
    return tl::exp(y * T(0.3));
  else if constexpr (Op == 4)
    return y * x;
  else if constexpr (Op == 5)
    return y + x;
  else if constexpr (Op == 6)
    return y - x;
  else if constexpr (Op == 7)
    return y / (T(1.5) + x * x);
  else if constexpr (Op == 8)
    return tl::maximum(y, x);
  else if constexpr (Op == 9)
    return y * tl::sigmoid(x);
  else
    return x / (T(1.5) + y * y);
}

template <uint64_t S, int Depth, class M, class Y, class T>
auto chain(const M& m, const Y& y, const std::array<tl::Tensor<T>, 4>& in) {
  if constexpr (Depth == 0) {
    return y;
  } else {
    constexpr uint64_t s = lcg(S);
    constexpr int op = static_cast<int>((s >> 33) % kSteps);
    constexpr std::size_t arg = (s >> 50) % 4;
    return chain<s, Depth - 1>(m, m(step<op>(y, in[arg])), in);
  }
}

struct Tolerance {
  double abs, rel;
};

template <class T, uint64_t Seed>
void compare_fused_with_unfused(const Tolerance& tol, double& worst) {
  constexpr int depth = 1 + static_cast<int>((lcg(Seed * 7919) >> 40) % 8);
  constexpr std::size_t start = (lcg(Seed * 104729) >> 45) % 4;
  CAPTURE(Seed);
  CAPTURE(depth);
  tl::Generator gen(Seed);
  const std::array<tl::Tensor<T>, 4> in = {uniform_leaf<T>({4, 5}, gen), uniform_leaf<T>({1, 5}, gen),
                                           uniform_leaf<T>({4, 1}, gen), uniform_leaf<T>({}, gen)};
  const std::vector<tl::Tensor<T>> inputs(in.begin(), in.end());
  const auto keep_expression = [](const auto& e) { return e; };
  const auto materialize = [](const auto& e) { return tl::Tensor<T>(e); };

  const auto before = tl::stats::snapshot();
  const tl::Tensor<T> fused = chain<Seed, depth>(keep_expression, in[start], in);
  CHECK((tl::stats::snapshot() - before).fused_loops == 1);
  const tl::Tensor<T> unfused = chain<Seed, depth>(materialize, in[start], in);
  REQUIRE(fused.sizes() == unfused.sizes());

  const tl::Tensor<T> g = uniform_leaf<T>(fused.sizes(), gen).requires_grad_(false);
  const auto gf = tl::autograd::grad<T>({fused}, inputs, {g}, false, false, /*allow_unused=*/true);
  const auto gu = tl::autograd::grad<T>({unfused}, inputs, {g}, false, false, /*allow_unused=*/true);
  auto compare = [&](const tl::Tensor<T>& got, const tl::Tensor<T>& want) {
    const std::vector<T> a = got.to_vector(), b = want.to_vector();
    REQUIRE(a.size() == b.size());
    int bad = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
      const double err = std::abs(double(a[i]) - double(b[i]));
      worst = std::max(worst, err / (tol.abs + tol.rel * std::abs(double(b[i]))));
      bad += !(err <= tol.abs + tol.rel * std::abs(double(b[i])));
    }
    CHECK(bad == 0);
  };
  compare(fused, unfused);
  for (std::size_t i = 0; i < 4; ++i) {
    CAPTURE(i);
    REQUIRE(gf[i].defined() == gu[i].defined());
    if (!gf[i].defined()) continue;
    REQUIRE(gf[i].sizes() == in[i].sizes());
    compare(gf[i], gu[i]);
  }
  // Both graphs share the tangent machinery: finite differences check the
  // fused one independently.
  if constexpr (std::is_same_v<T, double>) {
    auto f = [keep_expression](const std::vector<tl::Tensor<double>>& x) -> tl::Tensor<double> {
      const std::array<tl::Tensor<double>, 4> a = {x[0], x[1], x[2], x[3]};
      return chain<Seed, depth>(keep_expression, a[start], a);
    };
    CHECK(tl::autograd::gradcheck(f, inputs));
  }
}

template <class T, uint64_t... Seeds>
double compare_all(const Tolerance& tol, std::integer_sequence<uint64_t, Seeds...>) {
  double worst = 0;
  (compare_fused_with_unfused<T, Seeds + 1>(tol, worst), ...);
  return worst;
}

}  // namespace

// Tolerances: |fused - unfused| <= 1e-12 + 1e-12 |unfused| in double and
// 1e-6 + 1e-6 |unfused| in float (the absolute term covers gradients that
// cancel to near zero in the sums over broadcast dimensions). Measured: the
// largest error is below a tenth of the float tolerance (the MESSAGE).
TEST_CASE("random fused compositions match the same formula evaluated op by op") {
  constexpr auto seeds = std::make_integer_sequence<uint64_t, 16>{};
  const double worst_double = compare_all<double>({1e-12, 1e-12}, seeds);
  const double worst_float = compare_all<float>({1e-6, 1e-6}, seeds);
  MESSAGE("largest error as a fraction of the tolerance: double ", worst_double, ", float ", worst_float);
}

namespace {

// gradcheck functions (double): inputs in, one output.
tl::Tensor<double> exp_sigmoid(const Inputs& in) { return tl::exp(in[0]) * in[1] + tl::sigmoid(in[0] * in[1]); }
tl::Tensor<double> broadcast_mix(const Inputs& in) {
  return tl::tanh(in[0] * in[1]) / (1.5 + in[2] * in[2]) + tl::sin(in[2] - in[0]);
}

}  // namespace

TEST_CASE("gradcheck and gradgradcheck of pointwise chains") {
  tl::Generator gen(3);
  SUBCASE("same shapes") {
    const Inputs in = {uniform_leaf<double>({5}, gen), uniform_leaf<double>({5}, gen)};
    CHECK(tl::autograd::gradcheck(exp_sigmoid, in));
    CHECK(tl::autograd::gradgradcheck(exp_sigmoid, in));
  }
  SUBCASE("broadcasting: [3, 1], [1, 4], []") {
    const Inputs in = {uniform_leaf<double>({3, 1}, gen), uniform_leaf<double>({1, 4}, gen),
                       uniform_leaf<double>({}, gen)};
    CHECK(tl::autograd::gradcheck(broadcast_mix, in));
    CHECK(tl::autograd::gradgradcheck(broadcast_mix, in));
  }
  SUBCASE("a non-contiguous leaf (a transpose)") {
    // The base needs no grad, so the transpose records no node: it is a leaf (as in PyTorch).
    auto xt = tl::rand<double>({2, 3}, gen).t();
    REQUIRE(xt.is_leaf());
    xt.requires_grad_();
    REQUIRE_FALSE(xt.is_contiguous());
    auto w = uniform_leaf<double>({2}, gen);
    auto f = [](const Inputs& in) -> tl::Tensor<double> {
      return tl::exp(in[0]) * in[1] - tl::maximum(in[0], in[1]) + tl::sqrt(1.0 + in[0] * in[0]);
    };
    CHECK(tl::autograd::gradcheck(f, {xt, w}));
    CHECK(tl::autograd::gradgradcheck(f, {xt, w}));
  }
  SUBCASE("where with a comparison, away from the kink") {
    auto x = tl::tensor<double>({-2.0, -0.5, 0.3, 1.7}, {.requires_grad = true});
    auto f = [](const Inputs& in) -> tl::Tensor<double> { return tl::where(in[0] > 0.0, in[0] * in[0], in[0] * 0.1); };
    CHECK(tl::autograd::gradcheck(f, {x}));
    CHECK(tl::autograd::gradgradcheck(f, {x}));
  }
  SUBCASE("addcmul and addcdiv, broadcast, their methods and in-place forms") {
    tl::Tensor<double> away_from_zero = tl::rand<double>({3, 4}, gen) + 2.0;  // the divisor
    const Inputs in = {uniform_leaf<double>({3, 1}, gen), uniform_leaf<double>({4}, gen),
                       away_from_zero.requires_grad_()};
    auto f = [](const Inputs& v) -> tl::Tensor<double> {
      return tl::addcmul(v[0], v[1], v[2], 0.5) + v[0].addcdiv(v[1], v[2], -1.5);
    };
    CHECK(tl::autograd::gradcheck(f, in));
    CHECK(tl::autograd::gradgradcheck(f, in));
    auto g = [](const Inputs& v) -> tl::Tensor<double> {
      tl::Tensor<double> y = v[2] * 1.0;
      y.addcmul_(v[0], v[1], 2).addcdiv_(v[1], v[2]);
      return y;
    };
    CHECK(tl::autograd::gradcheck(g, in));
  }
  SUBCASE("logaddexp, logaddexp2, xlogy and nan_to_num (the gradient passes where x is finite)") {
    tl::Tensor<double> positive = tl::rand<double>({3, 4}, gen) + 0.5;
    const Inputs in = {uniform_leaf<double>({3, 1}, gen), uniform_leaf<double>({4}, gen), positive.requires_grad_()};
    auto f = [](const Inputs& v) -> tl::Tensor<double> {
      return tl::logaddexp(v[0], v[1]) * tl::logaddexp2(v[1], v[0] * 3.0) + tl::xlogy(v[0], v[2]) +
             tl::nan_to_num(v[1] * v[2]);
    };
    CHECK(tl::autograd::gradcheck(f, in));
    CHECK(tl::autograd::gradgradcheck(f, in));
    const double inf = std::numeric_limits<double>::infinity();
    auto x = tl::tensor<double>({1.5, inf, -inf, std::nan("")}, {.requires_grad = true});
    tl::sum(tl::nan_to_num(x) * 2.0).backward();
    CHECK(x.grad().to_vector() == std::vector<double>{2.0, 0.0, 0.0, 0.0});
  }
  SUBCASE("an input that needs no gradient and an integer tensor") {
    auto x = uniform_leaf<double>({4}, gen);
    auto c = tl::tensor<double>({1.0, 2.0, -1.0, 0.5});  // passed through, not differentiated
    auto idx = tl::tensor<int64_t>({3, 0, -2, 1});
    auto f = [idx](const Inputs& in) -> tl::Tensor<double> { return tl::log1p(in[0] * in[0]) * in[1] + in[0] * idx; };
    CHECK(tl::autograd::gradcheck(f, {x, c}));
    CHECK(tl::autograd::gradgradcheck(f, {x, c}));
  }
}

TEST_CASE("double backward through a fused expression: one node, one pass, Hessian-vector products") {
  // f = sum(x^3 * w + sin(x) * w): H_xx = diag(6 x w - sin(x) w), H_xw = diag(3 x^2 + cos(x)), H_ww = 0.
  auto x = tl::tensor<double>({0.5, -0.3, 1.2}, {.requires_grad = true});
  auto w = tl::tensor<double>({1.5, 2.0, -1.0}, {.requires_grad = true});
  const std::vector<double> vx = {0.5, -0.3, 1.2}, vw = {1.5, 2.0, -1.0}, v = {1.0, -2.0, 0.5};
  tl::Tensor<double> y = (x * x * x * w + tl::sin(x) * w).sum();
  const auto g = tl::autograd::grad<double>({y}, {x, w}, {}, /*retain_graph=*/true, /*create_graph=*/true);
  REQUIRE(g[0].requires_grad());
  REQUIRE(g[0].grad_fn() != nullptr);
  const auto vt = tl::tensor<double>({1.0, -2.0, 0.5});
  tl::Tensor<double> s = (g[0] * vt).sum();
  // Through the gradient node, the backward costs one fused loop more than
  // the same backward ending at a leaf: the second-order pass.
  auto leaf = g[0].detach().requires_grad_();
  tl::Tensor<double> s_leaf = (leaf * vt).sum();
  auto before = tl::stats::snapshot();
  (void)tl::autograd::grad<double>({s_leaf}, {leaf});
  const int64_t first_order = (tl::stats::snapshot() - before).fused_loops;
  before = tl::stats::snapshot();
  const auto hv = tl::autograd::grad<double>({s}, {x, w});
  CHECK((tl::stats::snapshot() - before).fused_loops == first_order + 1);
  std::vector<double> want_x, want_w;
  for (std::size_t i = 0; i < 3; ++i) {
    want_x.push_back((6 * vx[i] * vw[i] - std::sin(vx[i]) * vw[i]) * v[i]);
    want_w.push_back((3 * vx[i] * vx[i] + std::cos(vx[i])) * v[i]);
  }
  check_values(hv[0], want_x, 1e-12);
  check_values(hv[1], want_w, 1e-12);
}

TEST_CASE("double backward through broadcasting, a mean and a float expression") {
  tl::Generator gen(11);
  SUBCASE("a mean of an expression (the reduced node)") {
    auto f = [](const Inputs& in) -> tl::Tensor<double> {
      return ((in[0] - in[1]) * (in[0] - in[1]) * tl::exp(in[1])).mean();
    };
    const Inputs in = {uniform_leaf<double>({2, 3}, gen), uniform_leaf<double>({3}, gen)};
    CHECK(tl::autograd::gradgradcheck(f, in));
  }
  SUBCASE("a float expression agrees with the double one") {
    auto xd = uniform_leaf<double>({4, 1}, gen), wd = uniform_leaf<double>({5}, gen);
    auto xf = xd.detach().to<float>().requires_grad_(), wf = wd.detach().to<float>().requires_grad_();
    auto second = [](const auto& x, const auto& w) {
      using T = typename std::remove_cvref_t<decltype(x)>::value_type;
      tl::Tensor<T> y = tl::tanh(x * w) * x + tl::sigmoid(w);
      const auto g = tl::autograd::grad<T>({y.sum()}, {x, w}, {}, true, true);
      tl::Tensor<T> s = (g[0] * g[0]).sum() + g[1].sum();
      return tl::autograd::grad<T>({s}, {x, w});
    };
    const auto d = second(xd, wd);
    const auto f = second(xf, wf);
    for (int k = 0; k < 2; ++k) {
      const std::vector<double> want = d[static_cast<std::size_t>(k)].to_vector();
      const std::vector<float> got = f[static_cast<std::size_t>(k)].to_vector();
      REQUIRE(got.size() == want.size());
      for (std::size_t i = 0; i < got.size(); ++i) CHECK(got[i] == doctest::Approx(want[i]).epsilon(1e-5));
    }
  }
}

TEST_CASE("double backward refuses what it cannot do") {
  auto x = tl::tensor<double>({0.5, 1.5}, {.requires_grad = true});
  SUBCASE("a third derivative") {
    tl::Tensor<double> y = (tl::exp(x) * x).sum();
    const auto g = tl::autograd::grad<double>({y}, {x}, {}, true, true);
    CHECK_THROWS_WITH_AS(tl::autograd::grad<double>({g[0].sum()}, {x}, {}, true, /*create_graph=*/true),
                         doctest::Contains("third derivative"), tl::NotImplementedError);
  }
  SUBCASE("a leaf modified in place between the backwards") {
    tl::Tensor<double> y = (x * x * x).sum();
    const auto g = tl::autograd::grad<double>({y}, {x}, {}, true, true);
    {
      tl::NoGradGuard no_grad;
      x.add_(1.0);
    }
    CHECK_THROWS_WITH_AS(tl::autograd::grad<double>({g[0].sum()}, {x}), doctest::Contains("inplace operation"),
                         tl::AutogradError);
  }
}

// Note [masked adjoints]: an infinite gradient reaching a functor that
// selects gets masked where the input was not selected, as in PyTorch's
// where(mask, grad, 0); one that multiplies (mul, abs) gives NaN as in PyTorch.
// Expected values from PyTorch 1.13 (the inputs are 0, 2, -1, 0.5). The
// second derivatives are regression values: the mask does not change them.
TEST_CASE("selecting functors mask an infinite gradient instead of multiplying it by 0") {
  const auto check = [](const std::vector<double>& got, const std::vector<double>& expected) {
    REQUIRE(got.size() == expected.size());
    for (std::size_t i = 0; i < got.size(); ++i) {
      CAPTURE(i);
      if (std::isnan(expected[i]))
        CHECK(std::isnan(got[i]));
      else if (std::isinf(expected[i]))
        CHECK(got[i] == expected[i]);
      else
        CHECK(got[i] == doctest::Approx(expected[i]));
    }
  };
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  const auto zeros = tl::zeros<double>({4});
  struct Case {
    const char* name;
    tl::Tensor<double> (*f)(const tl::Tensor<double>&, const tl::Tensor<double>&);
    std::vector<double> grad, second;  // second: d/dx of the gradient's sum
  };
  const Case cases[] = {
      {"where",
       [](const auto& x, const auto& z) -> tl::Tensor<double> { return tl::log(tl::where(x > 0.25, x, z)); },
       {0, 0.5, 0, 2},
       {0, -0.25, 0, -4}},
      {"relu",
       [](const auto& x, const auto&) -> tl::Tensor<double> { return tl::log(tl::relu(x)); },
       {0, 0.5, 0, 2},
       {0, -0.25, 0, -4}},
      {"clamp",
       [](const auto& x, const auto&) -> tl::Tensor<double> { return tl::log(tl::clamp(x, 0.0, 5.0)); },
       {inf, 0.5, 0, 2},
       {-inf, -0.25, 0, -4}},
      {"hardtanh",
       [](const auto& x, const auto&) -> tl::Tensor<double> { return tl::log(tl::hardtanh(x, 0.0, 1.0)); },
       {0, 0, 0, 2},
       {}},
      {"maximum",
       [](const auto& x, const auto& z) -> tl::Tensor<double> { return tl::log(tl::maximum(x, z)); },
       {inf, 0.5, 0, 2},
       {-inf, -0.25, 0, -4}},
      {"minimum",
       [](const auto& x, const auto& z) -> tl::Tensor<double> { return tl::log(-tl::minimum(x, z)); },
       {inf, 0, -1, 0},
       {}},
      {"floor",
       [](const auto& x, const auto&) -> tl::Tensor<double> { return tl::log(tl::floor(x)); },
       {0, 0, 0, 0},
       {}},
      {"ceil", [](const auto& x, const auto&) -> tl::Tensor<double> { return tl::log(tl::ceil(x)); }, {0, 0, 0, 0}, {}},
      {"round",
       [](const auto& x, const auto&) -> tl::Tensor<double> { return tl::log(tl::round(x)); },
       {0, 0, 0, 0},
       {}},
      {"trunc",
       [](const auto& x, const auto&) -> tl::Tensor<double> { return tl::log(tl::trunc(x)); },
       {0, 0, 0, 0},
       {}},
      {"sign",
       [](const auto& x, const auto&) -> tl::Tensor<double> { return tl::reciprocal(tl::sign(x)); },
       {0, 0, 0, 0},
       {}},
      {"logit with eps",  // 0 outside [eps, 1 - eps], whatever the gradient (PyTorch 1.13)
       [](const auto& x, const auto&) -> tl::Tensor<double> {
         // logit(0.25) computed as the clamped inputs' is: the same bits, so 1 / 0.
         return tl::reciprocal(tl::logit(x, 0.25) - tl::Tensor<double>(tl::logit(tl::scalar_tensor(0.25))));
       },
       {0, 0, 0, -4 / (std::log(3.0) * std::log(3.0))},
       {}},
      {"mul",
       [](const auto& x, const auto&) -> tl::Tensor<double> { return tl::log(x * 0.0); },
       {nan, nan, nan, nan},
       {}},
      {"abs",
       [](const auto& x, const auto&) -> tl::Tensor<double> { return tl::sqrt(tl::abs(x) * 0.0); },
       {nan, nan, nan, nan},
       {}},
  };
  for (const Case& c : cases) {
    const std::string name = c.name;
    CAPTURE(name);
    auto x = tl::tensor<double>({0.0, 2.0, -1.0, 0.5}, {.requires_grad = true});
    const auto g = tl::autograd::grad<double>({c.f(x, zeros).sum()}, {x}, {}, true, true);
    check(g[0].to_vector(), c.grad);
    if (!c.second.empty()) check(tl::autograd::grad<double>({g[0].sum()}, {x})[0].to_vector(), c.second);
  }
  // The composites whose PyTorch formula multiplies by a mask keep the NaN:
  // nan_to_num (grad * isfinite(x)) and nansum (grad * !isnan(x)).
  auto y = tl::tensor<double>({nan, inf, 1.0}, {.requires_grad = true});
  check(tl::autograd::grad<double>({tl::reciprocal(tl::nan_to_num(y)).sum()}, {y})[0].to_vector(), {nan, 0, -1});
  auto z = tl::tensor<double>({nan, 0.0, 1.0}, {.requires_grad = true});
  check(tl::autograd::grad<double>({tl::reciprocal(tl::nansum(z) - 1.0)}, {z})[0].to_vector(), {nan, -inf, -inf});
  // relu lets the gradient through at NaN (threshold_backward: x <= 0 ? 0 : grad).
  auto r = tl::tensor<double>({nan, 0.0, -1.0, 2.0}, {.requires_grad = true});
  check(tl::autograd::grad<double>({tl::relu(r).sum()}, {r})[0].to_vector(), {1, 0, 0, 1});
  // logit without eps: NaN outside [0, 1], inf at 0 and 1 (PyTorch 1.13's logit_backward).
  auto q = tl::tensor<double>({-1.0, 0.0, 0.3, 1.0, 2.0}, {.requires_grad = true});
  check(tl::autograd::grad<double>({tl::logit(q).sum()}, {q})[0].to_vector(), {nan, inf, 1 / 0.21, inf, nan});
}

TEST_CASE("double backward of sigmoid far in the tail stays finite (declared derivatives at both levels)") {
  auto x = tl::tensor<float>({-100.f, -30.f, 0.5f}, {.requires_grad = true});
  tl::Tensor<float> y = tl::sigmoid(x).sum();
  const auto g = tl::autograd::grad<float>({y}, {x}, {}, true, true);
  const auto h = tl::autograd::grad<float>({g[0].sum()}, {x});
  const std::vector<float> got = h[0].to_vector();
  // d2/dx2 sigmoid = s (1 - s) (1 - 2 s).
  for (std::size_t i = 0; i < got.size(); ++i) {
    const double v = std::vector<double>{-100.0, -30.0, 0.5}[i], sg = 1 / (1 + std::exp(-v));
    CHECK(std::isfinite(got[i]));
    CHECK(got[i] == doctest::Approx(sg * (1 - sg) * (1 - 2 * sg)).epsilon(1e-5).scale(1e-30));
  }
}

TEST_CASE("autograd's own arithmetic (casts, gradient sums, sum_to_size) differentiates again") {
  // Note [autograd's own arithmetic]: x feeds two casts to double, so the
  // engine sums two float gradients at x; f = sum(u^2) + sum(v^3) with
  // u = v = x gives f' = 2x + 3x^2 and f'' = 2 + 6x.
  const std::vector<float> vx = {0.5f, -1.5f, 2.f};
  auto x = tl::tensor<float>({0.5f, -1.5f, 2.f}, {.requires_grad = true});
  const tl::Tensor<double> u = x.to<double>(), v = x.to<double>();
  REQUIRE(u.grad_fn() != nullptr);
  CHECK(u.grad_fn()->name() == "ToCopyBackward0");
  tl::Tensor<double> fd = (u * u).sum() + (v * v * v).sum();
  const tl::Tensor<float> f = fd.to<float>();
  const auto g = tl::autograd::grad<float>({f}, {x}, {}, /*retain_graph=*/true, /*create_graph=*/true);
  REQUIRE(g[0].grad_fn() != nullptr);
  CHECK(g[0].grad_fn()->name() == "AddBackward0");
  std::vector<float> first, second;
  for (float e : vx) first.push_back(2 * e + 3 * e * e), second.push_back(2 + 6 * e);
  check_values(g[0], first);
  const auto h = tl::autograd::grad<float>({g[0].sum()}, {x}, {}, /*retain_graph=*/true);
  check_values(h[0], second);

  SUBCASE("accumulating into .grad under create_graph records the sum") {
    f.backward({}, /*retain_graph=*/true, /*create_graph=*/true);
    f.backward({}, /*retain_graph=*/true, /*create_graph=*/true);
    const tl::Tensor<float> acc = x.grad();
    REQUIRE(acc.grad_fn() != nullptr);
    CHECK(acc.grad_fn()->name() == "AddBackward0");
    std::vector<float> twice;
    for (float e : first) twice.push_back(2 * e);
    check_values(acc, twice);
    // d/dx sum(2 f'(x)) = 2 f''(x).
    const auto h2 = tl::autograd::grad<float>({acc.sum()}, {x});
    for (float& e : second) e *= 2;
    check_values(h2[0], second);
    x.set_grad({});  // x.grad's graph holds x: break the cycle (PyTorch has it too)
  }
  SUBCASE("sum_to_size and mean of a tensor differentiate again") {
    // A broadcast leaf b: d/db sum(b * y) sums over the broadcast rows,
    // through a SumBackward of the materialized gradient.
    auto b = tl::tensor<double>({{1.0, -2.0, 0.5}}, {.requires_grad = true});
    const auto y = tl::tensor<double>({{1.0, 2.0, 3.0}, {4.0, 5.0, 6.0}});
    auto fn = [&y](const Inputs& in) -> tl::Tensor<double> {
      const tl::Tensor<double> p = in[0] * in[0] * y;
      return p.mean() + p.sum(0).mean();
    };
    CHECK(tl::autograd::gradcheck(fn, {b}));
    CHECK(tl::autograd::gradgradcheck(fn, {b}));
    const tl::Tensor<double> t = (b * b).sum(0);
    CHECK(tl::Tensor<double>(b * 1.0).sum().grad_fn()->name() == "SumBackward");
    CHECK(t.grad_fn()->name() == "SumBackward");
  }
}
