// The autograd graph and engine seen through the Tensor API: requires_grad,
// leaves and grad_fn, accumulation, retain_graph, version checks of saved
// tensors, grad modes, detach, hooks, tl::autograd::grad, deep graphs and
// independent backwards on two threads. Graphs are built from pointwise
// expressions only (each materialized expression is one node).

#include <doctest/doctest.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "sanitizers.hpp"
#include "tensorlib/tensorlib.hpp"

namespace {

// The message of the exception f throws (empty when it throws none).
template <class E>
std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const E& e) {
    return e.what();
  }
  return {};
}

void check_values(const tl::Tensor<float>& t, const std::vector<float>& expected) {
  REQUIRE(t.defined());
  const std::vector<float> got = t.to_vector();
  REQUIRE(got.size() == expected.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    CAPTURE(i);
    CHECK(got[i] == doctest::Approx(expected[i]).epsilon(1e-6));
  }
}

}  // namespace

TEST_CASE("requires_grad comes from the factory option or requires_grad_()") {
  auto a = tl::ones<float>({2}, {.requires_grad = true});
  CHECK(a.requires_grad());
  auto b = tl::ones<double>({2});
  CHECK_FALSE(b.requires_grad());
  b.requires_grad_();
  CHECK(b.requires_grad());
  b.requires_grad_(false);
  CHECK_FALSE(b.requires_grad());
  CHECK_FALSE(tl::ones<float>({2}).requires_grad());
}

TEST_CASE("requires_grad_ on an integer tensor is a TypeError") {
  auto idx = tl::tensor<int64_t>({1, 2, 3});
  CHECK_THROWS_WITH_AS(idx.requires_grad_(), doctest::Contains("only Tensors of floating point dtype"), tl::TypeError);
  CHECK_FALSE(idx.requires_grad());
  CHECK_NOTHROW(idx.requires_grad_(false));
}

TEST_CASE("leaves have no grad_fn while results of recorded expressions have one and are not leaves") {
  auto x = tl::tensor<float>({1.f, 2.f}, {.requires_grad = true});
  auto c = tl::tensor<float>({3.f, 4.f});
  CHECK(x.is_leaf());
  CHECK(x.grad_fn() == nullptr);
  CHECK(c.is_leaf());
  tl::Tensor<float> y = x * c;
  CHECK_FALSE(y.is_leaf());
  CHECK(y.requires_grad());
  REQUIRE(y.grad_fn() != nullptr);
  CHECK(y.grad_fn()->name().find("FusedBackward") == 0);
  // Only x needs a gradient: one edge, to x's accumulator.
  CHECK(y.grad_fn()->next_edges().size() == 1);
  tl::Tensor<float> z = c * 2.f;  // no input requires grad: nothing recorded
  CHECK(z.is_leaf());
  CHECK_FALSE(z.requires_grad());
  CHECK(z.grad_fn() == nullptr);
  // requires_grad_ is for leaves only.
  CHECK_THROWS_WITH_AS(y.requires_grad_(false), doctest::Contains("leaf variables"), tl::AutogradError);
}

TEST_CASE("gradients accumulate across backward calls until set_grad({}) clears them") {
  auto x = tl::tensor<float>({1.f, -2.f, 3.f}, {.requires_grad = true});
  auto g = tl::tensor<float>({1.f, 1.f, 1.f});
  CHECK_FALSE(x.grad().defined());
  tl::Tensor<float>(x * x).backward(g);  // first graph
  check_values(x.grad(), {2.f, -4.f, 6.f});
  tl::Tensor<float>(x * 3.f).backward(g);  // a second, separate graph
  check_values(x.grad(), {5.f, -1.f, 9.f});
  x.set_grad({});
  CHECK_FALSE(x.grad().defined());
  tl::Tensor<float>(x * 3.f).backward(g);
  check_values(x.grad(), {3.f, 3.f, 3.f});
  CHECK_THROWS_AS(x.set_grad(tl::ones<float>({2})), tl::ShapeError);
}

TEST_CASE("backward needs an explicit gradient unless the output has one element") {
  auto x = tl::tensor<float>({1.f, 2.f}, {.requires_grad = true});
  tl::Tensor<float> y = x * x;
  CHECK_THROWS_WITH_AS(y.backward(), doctest::Contains("grad can be implicitly created only for scalar outputs"),
                       tl::AutogradError);
  CHECK_THROWS_WITH_AS(y.backward(tl::ones<float>({3})), doctest::Contains("Mismatch in shape"), tl::ShapeError);

  auto s = tl::tensor<float>(1.5f, {.requires_grad = true});  // shape []
  tl::Tensor<float> t = s * s * 3.f;
  t.backward();
  check_values(s.grad(), {9.f});
  auto one = tl::full<float>({1, 1}, 2.f, {.requires_grad = true});  // shape [1, 1]
  tl::Tensor<float>(tl::exp(one)).backward();
  check_values(one.grad(), {std::exp(2.f)});
}

TEST_CASE("a second backward through a freed graph needs retain_graph") {
  auto x = tl::tensor<float>({1.f, 2.f}, {.requires_grad = true});
  auto g = tl::ones<float>({2});
  {
    tl::Tensor<float> y = tl::sin(x) * x;
    y.backward(g);
    CHECK_THROWS_WITH_AS(y.backward(g), doctest::Contains("retain_graph"), tl::AutogradError);
  }
  x.set_grad({});
  tl::Tensor<float> y = tl::sin(x) * x;
  y.backward(g, /*retain_graph=*/true);
  y.backward(g);  // the second call may free the graph
  const float d1 = std::cos(1.f) * 1.f + std::sin(1.f), d2 = std::cos(2.f) * 2.f + std::sin(2.f);
  check_values(x.grad(), {2 * d1, 2 * d2});
}

TEST_CASE("modifying a saved tensor in place before backward is an error naming the versions") {
  SUBCASE("a leaf that requires grad, written under NoGradGuard") {
    auto x = tl::tensor<float>({1.f, 2.f}, {.requires_grad = true});
    tl::Tensor<float> y = tl::exp(x);
    {
      tl::NoGradGuard no_grad;
      x.mul_(2.f);
    }
    const std::string msg = message_of<tl::AutogradError>([&] { y.backward(tl::ones<float>({2})); });
    CHECK(msg.find("modified by an inplace operation") != std::string::npos);
    CHECK(msg.find("is at version 1; expected version 0") != std::string::npos);
    CHECK(msg.find("float32 [2]") != std::string::npos);
  }
  SUBCASE("an input that needs no gradient, written in grad mode") {
    auto x = tl::tensor<float>({1.f, 2.f}, {.requires_grad = true});
    auto c = tl::tensor<float>({3.f, 4.f});
    tl::Tensor<float> y = x * c;
    c.add_(1.f);  // allowed: c takes no part in autograd itself
    c.add_(1.f);
    const std::string msg = message_of<tl::AutogradError>([&] { y.backward(tl::ones<float>({2})); });
    CHECK(msg.find("modified by an inplace operation") != std::string::npos);
    CHECK(msg.find("is at version 2; expected version 0") != std::string::npos);
  }
  SUBCASE("a write before the graph is built is fine") {
    auto c = tl::tensor<float>({3.f, 4.f});
    c.add_(1.f);
    auto x = tl::tensor<float>({1.f, 2.f}, {.requires_grad = true});
    tl::Tensor<float> y = x * c;
    y.backward(tl::ones<float>({2}));
    check_values(x.grad(), {4.f, 5.f});
  }
}

TEST_CASE("an in-place op on a leaf that requires grad is refused in grad mode") {
  auto x = tl::tensor<float>({1.f, 2.f}, {.requires_grad = true});
  CHECK_THROWS_WITH_AS(x.mul_(2.f), doctest::Contains("a leaf Variable that requires grad"), tl::AutogradError);
  CHECK(x._version() == 0);
  check_values(x, {1.f, 2.f});
  {
    tl::NoGradGuard no_grad;  // what optimizers do
    x.mul_(2.f);
  }
  CHECK(x._version() == 1);
  check_values(x, {2.f, 4.f});
}

TEST_CASE("autograd::grad returns gradients and leaves .grad() alone") {
  auto x = tl::tensor<float>({1.f, 2.f}, {.requires_grad = true});
  auto w = tl::tensor<float>({3.f, -1.f}, {.requires_grad = true});
  auto unused = tl::tensor<float>({0.f, 0.f}, {.requires_grad = true});
  auto g = tl::tensor<float>({1.f, 0.5f});
  tl::Tensor<float> y = x * w + tl::exp(x);

  const auto grads = tl::autograd::grad<float>({y}, {x, w}, {g}, /*retain_graph=*/true);
  REQUIRE(grads.size() == 2);
  check_values(grads[0], {(3.f + std::exp(1.f)) * 1.f, (-1.f + std::exp(2.f)) * 0.5f});
  check_values(grads[1], {1.f, 1.f});
  CHECK_FALSE(x.grad().defined());
  CHECK_FALSE(w.grad().defined());

  CHECK_THROWS_WITH_AS(tl::autograd::grad<float>({y}, {x, unused}, {g}, true),
                       doctest::Contains("appears to not have been used in the graph"), tl::AutogradError);
  const auto with_unused = tl::autograd::grad<float>({y}, {x, unused}, {g}, true, false, /*allow_unused=*/true);
  check_values(with_unused[0], grads[0].to_vector());
  CHECK_FALSE(with_unused[1].defined());

  auto no_grad_input = tl::tensor<float>({1.f, 1.f});
  CHECK_THROWS_WITH_AS(tl::autograd::grad<float>({y}, {no_grad_input}, {g}, true),
                       doctest::Contains("does not require grad"), tl::AutogradError);
  tl::Tensor<float> constant = no_grad_input * 2.f;
  CHECK_THROWS_WITH_AS(tl::autograd::grad<float>({constant}, {x}, {g}), doctest::Contains("does not require grad"),
                       tl::AutogradError);
}

// Regression: grad() used to order nodes by creation to decide which ones
// lead to a requested input, but the accumulators of fresh leaves are created
// while their first user's node is built (after it), so the gradients of
// every input of a first fused node came back undefined.
TEST_CASE("autograd::grad reaches leaves whose accumulators were created by the node using them") {
  auto x = tl::tensor<double>({0.5, 1.5}, {.requires_grad = true});
  auto w = tl::tensor<double>({2.0, -3.0}, {.requires_grad = true});
  tl::Tensor<double> y = tl::exp(x) * w;
  const auto grads = tl::autograd::grad<double>({y}, {x, w}, {tl::ones<double>({2})});
  REQUIRE(grads[0].defined());
  REQUIRE(grads[1].defined());
  CHECK(grads[0].to_vector()[0] == doctest::Approx(std::exp(0.5) * 2.0));
  CHECK(grads[0].to_vector()[1] == doctest::Approx(std::exp(1.5) * -3.0));
  CHECK(grads[1].to_vector()[0] == doctest::Approx(std::exp(0.5)));
  CHECK(grads[1].to_vector()[1] == doctest::Approx(std::exp(1.5)));
}

TEST_CASE("grad modes: nothing is recorded while grad mode is off, and scopes restore it") {
  auto x = tl::tensor<float>({1.f, 2.f}, {.requires_grad = true});
  REQUIRE(tl::is_grad_enabled());
  {
    tl::NoGradGuard no_grad;
    CHECK_FALSE(tl::is_grad_enabled());
    tl::Tensor<float> y = x * 2.f;
    CHECK_FALSE(y.requires_grad());
    CHECK(y.grad_fn() == nullptr);
    {
      tl::AutoGradMode enable(true);
      CHECK(tl::Tensor<float>(x * 2.f).requires_grad());
    }
    CHECK_FALSE(tl::is_grad_enabled());
  }
  CHECK(tl::is_grad_enabled());
  {
    tl::AutoGradMode disable(false);
    CHECK_FALSE(tl::Tensor<float>(x * 2.f).requires_grad());
  }
  CHECK(tl::is_grad_enabled());
  tl::set_grad_enabled(false);
  CHECK_FALSE(tl::Tensor<float>(x * 2.f).requires_grad());
  tl::set_grad_enabled(true);
  CHECK(tl::Tensor<float>(x * 2.f).requires_grad());
  {
    tl::InferenceMode inference;
    CHECK(tl::is_inference_mode_enabled());
    CHECK_FALSE(tl::is_grad_enabled());
    CHECK_FALSE(tl::Tensor<float>(x * 2.f).requires_grad());
  }
  CHECK_FALSE(tl::is_inference_mode_enabled());
  CHECK(tl::is_grad_enabled());
  {
    tl::InferenceMode off(false);
    CHECK_FALSE(tl::is_inference_mode_enabled());
    CHECK(tl::Tensor<float>(x * 2.f).requires_grad());
  }
  // Grad mode is per thread.
  tl::NoGradGuard no_grad;
  bool other_thread_enabled = false;
  std::thread([&] { other_thread_enabled = tl::is_grad_enabled(); }).join();
  CHECK(other_thread_enabled);
}

TEST_CASE("detach shares memory and the version counter and does not require grad") {
  auto x = tl::tensor<float>({1.f, 2.f}, {.requires_grad = true});
  tl::Tensor<float> y = tl::exp(x);
  tl::Tensor<float> d = x.detach();
  CHECK(d.data_ptr() == x.data_ptr());
  CHECK_FALSE(d.requires_grad());
  CHECK(d.is_leaf());
  CHECK(d._version() == x._version());
  d.add_(1.f);  // allowed in grad mode: d takes no part in autograd
  CHECK(x._version() == 1);
  check_values(x, {2.f, 3.f});
  // x is saved by y's node: the write through d is caught.
  CHECK_THROWS_WITH_AS(y.backward(tl::ones<float>({2})), doctest::Contains("modified by an inplace operation"),
                       tl::AutogradError);

  tl::Tensor<float> z = x * 3.f;
  CHECK_FALSE(tl::Tensor<float>(z.detach()).requires_grad());
  z.detach_();
  CHECK(z.is_leaf());
  CHECK_FALSE(z.requires_grad());
  CHECK(z.grad_fn() == nullptr);
  check_values(z, {6.f, 9.f});
}

TEST_CASE("hooks on leaves and non-leaves and retain_grad") {
  auto g = tl::tensor<float>({1.f, 2.f});
  SUBCASE("a leaf hook observes and can replace the gradient") {
    auto x = tl::tensor<float>({1.f, 2.f}, {.requires_grad = true});
    std::vector<float> seen;
    x.register_hook([&](const tl::Tensor<float>& grad) { seen = grad.to_vector(); });
    x.register_hook([](const tl::Tensor<float>& grad) { return tl::Tensor<float>(grad * 2.f); });
    tl::Tensor<float>(x * 3.f).backward(g);
    CHECK(seen == std::vector<float>{3.f, 6.f});
    check_values(x.grad(), {6.f, 12.f});
    // grad() sees the leaf's hooks too.
    const auto grads = tl::autograd::grad<float>({tl::Tensor<float>(x * 3.f)}, {x}, {g});
    check_values(grads[0], {6.f, 12.f});
  }
  SUBCASE("a non-leaf hook changes what flows to the leaves") {
    auto x = tl::tensor<float>({1.f, 2.f}, {.requires_grad = true});
    tl::Tensor<float> y = x * 3.f;  // non-leaf
    tl::Tensor<float> z = y * y;
    std::vector<float> seen;
    y.register_hook([&](const tl::Tensor<float>& grad) {
      seen = grad.to_vector();
      return tl::Tensor<float>(grad * 0.5f);
    });
    z.backward(g);
    // dz/dy = 2y g = {6, 24}; halved by the hook; then dy/dx = 3.
    CHECK(seen == std::vector<float>{6.f, 24.f});
    check_values(x.grad(), {9.f, 36.f});
    CHECK_FALSE(y.grad().defined());  // a non-leaf keeps no grad unless it retains it
  }
  SUBCASE("retain_grad fills a non-leaf's grad, after its hooks") {
    auto x = tl::tensor<float>({1.f, 2.f}, {.requires_grad = true});
    tl::Tensor<float> y = x * 3.f;
    tl::Tensor<float> z = y * y;
    y.retain_grad();
    CHECK(y.retains_grad());
    y.register_hook([](const tl::Tensor<float>& grad) { return tl::Tensor<float>(grad + 1.f); });
    z.backward(g, /*retain_graph=*/true);
    check_values(y.grad(), {7.f, 25.f});
    z.backward(g);
    check_values(y.grad(), {14.f, 50.f});
    CHECK_THROWS_AS(tl::ones<float>({2}).retain_grad(), tl::AutogradError);
  }
  CHECK_THROWS_WITH_AS(tl::ones<float>({2}).register_hook([](const tl::Tensor<float>&) {}),
                       doctest::Contains("doesn't require gradient"), tl::AutogradError);
}

// Note [iterative graph destruction] (autograd/node.hpp): a recursive
// backward or destructor would need one stack frame per node. The sanitizer
// build (-O0, ASan+UBSan) runs a tenth of the chain: 2*10^5 nodes took 45 s
// there in CI, against 11 s for 10^6 in Release. A recursive destructor
// spends several frames per node (the node, its shared_ptr's release and
// dispose), larger with ASan's redzones: a chain of nodes holding their
// successors in a vector of shared_ptrs, destroyed recursively, already
// overflowed the 8 MB main-thread stack at 2*10^4 nodes built with clang
// -O0 ASan+UBSan (checked when this was set).
#ifdef TL_TEST_ASAN
constexpr int kChainLength = 100000;
#else
constexpr int kChainLength = 1000000;
#endif

TEST_CASE("a chain of a million nodes: backward and destruction use no recursion") {
  using clock = std::chrono::steady_clock;
  const float c = 1.0000001f;
  float expected = 1.f;  // the backward multiplies by c once per node, in this order
  for (int i = 0; i < kChainLength; ++i) expected *= c;

  SUBCASE("backward, then destruction") {
    auto x = tl::ones<float>({1}, {.requires_grad = true});
    const auto t0 = clock::now();
    {
      tl::Tensor<float> y = x;
      for (int i = 0; i < kChainLength; ++i) y = tl::Tensor<float>(y * c);
      const auto t1 = clock::now();
      y.backward();
      const auto t2 = clock::now();
      MESSAGE("chain of ", kChainLength, " nodes: forward ", std::chrono::duration<double>(t1 - t0).count(),
              " s, backward ", std::chrono::duration<double>(t2 - t1).count(), " s");
    }
    MESSAGE("total with destruction ", std::chrono::duration<double>(clock::now() - t0).count(), " s");
    REQUIRE(x.grad().defined());
    CHECK(x.grad().item() == doctest::Approx(expected).epsilon(1e-6));
  }
  SUBCASE("destruction of a graph that never ran") {
    auto x = tl::ones<float>({1}, {.requires_grad = true});
    const auto t0 = clock::now();
    {
      tl::Tensor<float> y = x;
      for (int i = 0; i < kChainLength; ++i) y = tl::Tensor<float>(y * c);
    }
    MESSAGE("build and destroy ", kChainLength, " nodes: ", std::chrono::duration<double>(clock::now() - t0).count(),
            " s");
    CHECK_FALSE(x.grad().defined());
  }
}

TEST_CASE("independent backwards on two threads") {
  // Large enough that each fused pass wants the thread pool: the thread that
  // does not get it runs serially (Note [one pool]).
  constexpr int64_t n = 100000;
  auto shared = tl::zeros<float>({n}, {.requires_grad = true});  // both graphs accumulate into it
  auto run = [&shared](float scale, std::vector<float>& grad_x) {
    auto x = tl::full<float>({n}, scale, {.requires_grad = true});
    for (int iter = 0; iter < 20; ++iter) {
      tl::Tensor<float> y = tl::sin(x) * x + shared * scale;
      y.backward(tl::ones<float>({n}));
    }
    grad_x = x.grad().to_vector();
  };
  std::vector<float> g1, g2;
  std::thread t1([&] { run(0.5f, g1); });
  std::thread t2([&] { run(2.0f, g2); });
  t1.join();
  t2.join();
  const float d1 = 20 * (std::cos(0.5f) * 0.5f + std::sin(0.5f));
  const float d2 = 20 * (std::cos(2.0f) * 2.0f + std::sin(2.0f));
  REQUIRE(g1.size() == static_cast<std::size_t>(n));
  REQUIRE(g2.size() == static_cast<std::size_t>(n));
  int bad1 = 0, bad2 = 0, bad_shared = 0;
  for (int64_t i = 0; i < n; ++i) {
    bad1 += std::abs(g1[i] - d1) > 1e-4f * std::abs(d1);
    bad2 += std::abs(g2[i] - d2) > 1e-4f * std::abs(d2);
  }
  // 20 backwards with scale 0.5 and 20 with scale 2 accumulated under the lock.
  const std::vector<float> s = shared.grad().to_vector();
  for (int64_t i = 0; i < n; ++i) bad_shared += std::abs(s[i] - 50.f) > 1e-4f;
  CHECK(bad1 == 0);
  CHECK(bad2 == 0);
  CHECK(bad_shared == 0);
}
