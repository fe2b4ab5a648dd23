// Random tensors: reproducible from a seed, independent of the thread count,
// with the right distributions.

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <numeric>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "fixtures.hpp"

namespace {

template <class T>
double mean(const std::vector<T>& v) {
  return std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
}
template <class T>
double variance(const std::vector<T>& v) {
  const double m = mean(v);
  double s = 0;
  for (T x : v) s += (x - m) * (x - m);
  return s / static_cast<double>(v.size() - 1);
}

}  // namespace

TEST_CASE("the same seed gives the same numbers, the stream advances between calls") {
  tl::manual_seed(42);
  const auto a = tl::rand({1000}).to_vector();
  const auto b = tl::rand({1000}).to_vector();
  tl::manual_seed(42);
  CHECK(tl::rand({1000}).to_vector() == a);
  CHECK(a != b);
  tl::Generator g(7);
  const auto state = g.get_state();
  const auto x = tl::randn({10}, g).to_vector();
  g.set_state(state);
  CHECK(tl::randn({10}, g).to_vector() == x);
  CHECK(g.initial_seed() == 7);
}

TEST_CASE("random numbers do not depend on the thread count") {
  const int threads = tl::get_num_threads();
  tl::Generator g1(123), g2(123);
  tl::set_num_threads(1);
  const auto one = tl::randn({100003}, g1).to_vector();
  tl::set_num_threads(2);
  const auto two = tl::randn({100003}, g2).to_vector();
  tl::set_num_threads(threads);
  CHECK(one == two);
}

TEST_CASE("element i depends only on the seed, the stream offset and i") {
  tl::Generator g(5);
  const auto big = tl::rand({16}, g).to_vector();
  tl::Generator h(5);
  const auto small = tl::rand({7}, h).to_vector();
  CHECK(std::equal(small.begin(), small.end(), big.begin()));
  // rand reserves ceil(n / 4) blocks: the next call starts at block 2 for n = 7.
  CHECK(h.get_state().offset == 2);
}

TEST_CASE("distributions have the right moments and ranges") {
  tl::Generator g(2024);
  const auto u = tl::rand({200000}, g).to_vector();
  CHECK(*std::min_element(u.begin(), u.end()) >= 0.f);
  CHECK(*std::max_element(u.begin(), u.end()) < 1.f);
  CHECK(mean(u) == doctest::Approx(0.5).epsilon(0.01));
  CHECK(variance(u) == doctest::Approx(1.0 / 12).epsilon(0.02));
  const auto n = tl::randn<double>({200000}, g).to_vector();
  CHECK(std::abs(mean(n)) < 0.01);
  CHECK(variance(n) == doctest::Approx(1.0).epsilon(0.02));
  const auto m = tl::normal(3.0, 0.5, {100000}, g).to_vector();
  CHECK(mean(m) == doctest::Approx(3.0).epsilon(0.01));
  CHECK(std::sqrt(variance(m)) == doctest::Approx(0.5).epsilon(0.02));
  const auto r = tl::randint(-3, 4, {70000}, g).to_vector();
  CHECK(*std::min_element(r.begin(), r.end()) == -3);
  CHECK(*std::max_element(r.begin(), r.end()) == 3);
  for (int64_t v = -3; v <= 3; ++v) CHECK(std::count(r.begin(), r.end(), v) == doctest::Approx(10000).epsilon(0.05));
  tl::Generator g1(9), g2(9);  // randint(high, sizes, gen) is randint(0, high, sizes, gen)
  CHECK(tl::randint(7, {2, 50}, g1).to_vector() == tl::randint(0, 7, {2, 50}, g2).to_vector());
  const auto b = tl::bernoulli({100000}, 0.3, g).to_vector();
  CHECK(mean(b) == doctest::Approx(0.3).epsilon(0.02));
  auto x = tl::empty<float>({50000});
  x.uniform_(-2, 2, g);
  CHECK(mean(x.to_vector()) == doctest::Approx(0.0).epsilon(0.02));
  x.normal_(1, 2, g);
  CHECK(mean(x.to_vector()) == doctest::Approx(1.0).epsilon(0.05));
}

TEST_CASE("float16 and bfloat16 rand and randn round the float numbers of the same stream") {
  for (uint64_t seed : {uint64_t{5}, uint64_t{77}}) {
    tl::Generator g(seed), h(seed);
    const auto half = tl::randn<tl::Half>({1001}, g);
    CHECK(half.dtype() == tl::kFloat16);
    CHECK(half.to<float>().to_vector() == tl::randn({1001}, h).to<tl::Half>().to<float>().to_vector());
    // The generators stay in step: the next draws agree too.
    const auto u = tl::rand<tl::BFloat16>({100000}, g).to<float>().to_vector();
    const auto f = tl::rand({100000}, h).to_vector();
    int rounded_to_one = 0;
    for (std::size_t i = 0; i < f.size(); ++i) {
      const float r = static_cast<float>(tl::BFloat16(f[i]));
      rounded_to_one += r == 1.f ? 1 : 0;
      CHECK(u[i] == (r == 1.f ? 0.f : r));  // [0, 1): a draw that rounds to 1 becomes 0
    }
    CHECK(rounded_to_one > 0);  // bfloat16 has 8 bits: about 1 in 512 float draws rounds up to 1
    CHECK(*std::max_element(u.begin(), u.end()) < 1.f);
  }
  CHECK_THROWS_AS(tl::randn<tl::Half>({3}, {.requires_grad = true}), tl::TypeError);
}

TEST_CASE("randperm is a permutation") {
  tl::Generator g(9);
  const auto p = tl::randperm(1000, g).to_vector();
  std::set<int64_t> s(p.begin(), p.end());
  CHECK(s.size() == 1000);
  CHECK(*s.begin() == 0);
  CHECK(*s.rbegin() == 999);
  CHECK(p != tl::randperm(1000, g).to_vector());
  CHECK(tl::randperm(0).numel() == 0);
}

TEST_CASE("random argument errors") {
  CHECK_THROWS_WITH_AS(tl::randint(5, 5, {2}),
                       "randint: random_ expects 'from' to be less than 'to', but got from=5 "
                       ">= to=5",
                       tl::ValueError);
  CHECK_THROWS_AS(tl::normal(0, -1, {2}), tl::ValueError);
  CHECK_THROWS_AS(tl::bernoulli(tl::tensor({0.5f, 1.5f})), tl::ValueError);
  CHECK_THROWS_AS(tl::randperm(-1), tl::ValueError);
  auto x = tl::empty<float>({2});
  CHECK_THROWS_AS(x.uniform_(1, 0), tl::ValueError);
}

TEST_CASE("randint into floats, randperm's range and uniform_'s bounds follow PyTorch") {
  const auto f = tl::randint<float>(0, 10, {200});
  for (const float v : f.to_vector()) CHECK((v >= 0 && v < 10 && v == std::floor(v)));
  CHECK_THROWS_WITH_AS(tl::randint<uint8_t>(0, 300, {2}), "randint: the range [0, 300) does not fit in uint8",
                       tl::ValueError);
  CHECK_THROWS_WITH_AS(tl::randperm<uint8_t>(300), doctest::Contains("does not fit in uint8"), tl::ValueError);
  auto p = tl::randperm<uint8_t>(256).to<int64_t>().to_vector();
  std::sort(p.begin(), p.end());
  std::vector<int64_t> all(256);
  std::iota(all.begin(), all.end(), int64_t{0});
  CHECK(p == all);
  CHECK_THROWS_WITH_AS(tl::randperm<float>((int64_t{1} << 24) + 2),
                       doctest::Contains("cannot be greater than 16777217"), tl::ValueError);
  CHECK_THROWS_WITH_AS(tl::randperm<tl::Half>(2050), doctest::Contains("cannot be greater than 2049"), tl::ValueError);
  auto x = tl::zeros<float>({3});
  CHECK_THROWS_WITH_AS(x.uniform_(-INFINITY, INFINITY), doctest::Contains("from is out of bounds"), tl::ValueError);
  CHECK_THROWS_WITH_AS(x.uniform_(0, 1e39), doctest::Contains("to is out of bounds"), tl::ValueError);
  auto y = tl::zeros<double>({3});
  CHECK_THROWS_WITH_AS(y.uniform_(-1e308, 1e308), doctest::Contains("to-from to exceed the limit"), tl::ValueError);
  CHECK_NOTHROW(y.uniform_(-1e300, 1e300));
}

TEST_CASE("the in-place fills have their distributions' moments, ranges and quantiles") {
  tl::Generator g(77);
  auto x = tl::empty<double>({200000});
  x.bernoulli_(0.3, g);
  auto v = x.to_vector();
  CHECK(std::count_if(v.begin(), v.end(), [](double e) { return e != 0.0 && e != 1.0; }) == 0);
  CHECK(mean(v) == doctest::Approx(0.3).epsilon(0.02));
  x.exponential_(4.0, g);
  v = x.to_vector();
  CHECK(*std::min_element(v.begin(), v.end()) >= 0.0);
  CHECK(mean(v) == doctest::Approx(0.25).epsilon(0.02));
  CHECK(variance(v) == doctest::Approx(1.0 / 16).epsilon(0.04));
  x.geometric_(0.2, g);
  v = x.to_vector();
  CHECK(*std::min_element(v.begin(), v.end()) == 1.0);
  CHECK(std::count_if(v.begin(), v.end(), [](double e) { return e != std::floor(e); }) == 0);
  CHECK(mean(v) == doctest::Approx(5.0).epsilon(0.02));  // 1 / p
  CHECK(static_cast<double>(std::count(v.begin(), v.end(), 1.0)) / 200000 == doctest::Approx(0.2).epsilon(0.03));
  x.log_normal_(0.5, 0.25, g);
  v = x.to_vector();
  for (double& e : v) e = std::log(e);
  CHECK(mean(v) == doctest::Approx(0.5).epsilon(0.01));
  CHECK(std::sqrt(variance(v)) == doctest::Approx(0.25).epsilon(0.02));
  // Cauchy has no moments: its median and quartiles are median -+ sigma.
  x.cauchy_(2.0, 3.0, g);
  v = x.to_vector();
  std::sort(v.begin(), v.end());
  CHECK(v[100000] == doctest::Approx(2.0).epsilon(0.02));
  CHECK(v[50000] == doctest::Approx(-1.0).epsilon(0.05));
  CHECK(v[150000] == doctest::Approx(5.0).epsilon(0.03));
  // float draws, and a tensor of probabilities (0 and 1 are exact).
  auto f = tl::empty<float>({3, 20000});
  f.bernoulli_(tl::tensor<float>({{0.f}, {1.f}, {0.75f}}), g);
  const auto rows = f.mean({1}).to_vector();
  CHECK(rows[0] == 0.f);
  CHECK(rows[1] == 1.f);
  CHECK(rows[2] == doctest::Approx(0.75).epsilon(0.02));
  f.exponential_(0, g);
  CHECK(std::isinf(f.min().item()));
}

TEST_CASE("random_ covers its range in every element type") {
  tl::Generator g(78);
  auto i = tl::empty<int32_t>({70000});
  i.random_(-3, 4, g);
  auto v = i.to_vector();
  for (int32_t k = -3; k <= 3; ++k) CHECK(std::count(v.begin(), v.end(), k) == doctest::Approx(10000).epsilon(0.05));
  auto u8 = tl::empty<uint8_t>({100000});
  u8.random_(g);  // [0, 255]
  const auto bytes = u8.to_vector();
  CHECK(std::set<uint8_t>(bytes.begin(), bytes.end()).size() == 256);
  auto b = tl::empty<bool>({10000});
  b.random_(g);
  CHECK(b.to<int64_t>().sum().item() == doctest::Approx(5000).epsilon(0.05));  // 10 sigma
  auto f = tl::empty<float>({100000});
  f.random_(g);  // [0, 2^24]
  const auto fv = f.to_vector();
  CHECK(*std::min_element(fv.begin(), fv.end()) >= 0.f);
  CHECK(*std::max_element(fv.begin(), fv.end()) <= 16777216.f);
  CHECK(*std::max_element(fv.begin(), fv.end()) > 16000000.f);
  CHECK(std::count_if(fv.begin(), fv.end(), [](float e) { return e != std::floor(e); }) == 0);
  f.random_(10, g);
  const auto tens = f.to_vector();
  CHECK(std::set<float>(tens.begin(), tens.end()) == std::set<float>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9});
  // int64 over its whole range: both signs appear.
  auto l = tl::empty<int64_t>({1000});
  l.random_(std::numeric_limits<int64_t>::min(), std::nullopt, g);
  CHECK(l.min().item() < 0);
  CHECK(l.max().item() > 0);
  l.random_(g);  // [0, 2^63 - 1]
  CHECK(l.min().item() >= 0);
  CHECK(l.max().item() > (int64_t{1} << 62));
  // The same seed gives the same fill; strided views are written in place.
  tl::Generator g1(5), g2(5);
  auto m = tl::zeros<double>({4, 6});
  auto view = m.slice(1, 0, 6, 2);
  view.exponential_(1.0, g1);
  auto expected = tl::empty<double>({4, 3});
  expected.exponential_(1.0, g2);
  CHECK(view.contiguous().to_vector() == expected.to_vector());
  CHECK(m.slice(1, 1, 6, 2).abs().sum().item() == 0.0);
}

TEST_CASE("in-place fill errors follow PyTorch's wording") {
  const auto message = [](auto f) { return fixtures::error_message(f); };
  auto x = tl::empty<float>({3});
  CHECK(message([&] { x.bernoulli_(1.5); }) == "bernoulli_ expects p to be in [0, 1], but got p=1.5");
  CHECK(message([&] {
          x.bernoulli_(tl::tensor<float>({0.5f, 2.f, 0.1f}));
        }) == "bernoulli: all elements of p must be in [0, 1], got 2");
  CHECK(message([&] { x.exponential_(-1); }) == "exponential_ expects lambda >= 0.0, but found lambda=-1");
  CHECK(message([&] { x.geometric_(0); }) == "geometric_ expects p to be in (0, 1), but got p=0");
  CHECK(message([&] { x.geometric_(1); }) == "geometric_ expects p to be in (0, 1), but got p=1");
  CHECK(message([&] { x.log_normal_(1, 0); }) == "log_normal_ expects std > 0.0, but found std=0");
  CHECK(message([&] { x.random_(5, 5); }) == "random_ expects 'from' to be less than 'to', but got from=5 >= to=5");
  auto u8 = tl::empty<uint8_t>({3});
  CHECK(message([&] { u8.random_(300); }) == "random_: to - 1 is out of bounds for uint8");
  CHECK(message([&] { u8.random_(-3, 300); }) == "random_: from is out of bounds for uint8");
  CHECK(message([&] { x.random_(16777216, std::nullopt); }) ==
        "random_ expects 'from' casted to dtype to be less than or equal to 'to_inc' casted to dtype, but got "
        "from=16777216 > to_inc=16777216");
  auto leaf = tl::ones<float>({3}).requires_grad_();
  CHECK_THROWS_AS(leaf.uniform_(), tl::AutogradError);
  CHECK(message([&] { leaf.bernoulli_(0.5); }).rfind("bernoulli_: ", 0) == 0);  // the fill's own name
  CHECK_THROWS_AS(x.bernoulli_(tl::ones<float>({2})), tl::ShapeError);
}

TEST_CASE("a refused fill draws nothing from its generator") {
  // PyTorch checks the target before its kernel draws; so does every fill
  // here (Note [fill checks] in ops/random_fill.hpp), so the next draw is the
  // one a fresh generator gives.
  auto leaf = tl::ones<float>({4}).requires_grad_();
  auto expanded = tl::zeros<float>({1}).expand({4});
  const auto base = tl::ones<float>({6}).requires_grad_();
  tl::Tensor<float> no_grad_view;
  {
    tl::NoGradGuard no_grad;
    no_grad_view = base.narrow(0, 1, 4);
  }
  const auto other_leaf = tl::ones<float>({6}).requires_grad_();
  auto leaf_view = other_leaf.narrow(0, 2, 4);  // with grad mode on: a view of a leaf
  const std::vector<std::pair<std::string, std::function<void(tl::Tensor<float>&, tl::Generator&)>>> fills{
      {"uniform_", [](auto& t, auto& g) { t.uniform_(0, 1, g); }},
      {"normal_", [](auto& t, auto& g) { t.normal_(0, 1, g); }},
      {"bernoulli_", [](auto& t, auto& g) { t.bernoulli_(0.5, g); }},
      {"bernoulli_ (tensor)", [](auto& t, auto& g) { t.bernoulli_(tl::full<float>({4}, 0.5f), g); }},
      {"exponential_", [](auto& t, auto& g) { t.exponential_(1, g); }},
      {"geometric_", [](auto& t, auto& g) { t.geometric_(0.5, g); }},
      {"log_normal_", [](auto& t, auto& g) { t.log_normal_(1, 2, g); }},
      {"cauchy_", [](auto& t, auto& g) { t.cauchy_(0, 1, g); }},
      {"random_", [](auto& t, auto& g) { t.random_(0, 10, g); }},
  };
  tl::Generator fresh_gen(7);
  const tl::Tensor<float> fresh = tl::rand<float>({8}, fresh_gen);
  for (const auto& entry : fills) {
    const std::string& name = entry.first;
    const auto& fill = entry.second;
    CAPTURE(name);
    tl::Generator gen(7);
    CHECK_THROWS_AS(fill(leaf, gen), tl::AutogradError);
    CHECK_THROWS_AS(fill(expanded, gen), tl::Error);
    CHECK_THROWS_AS(fill(no_grad_view, gen), tl::AutogradError);
    CHECK_THROWS_WITH_AS(fill(leaf_view, gen), doctest::Contains("a view of a leaf Variable"), tl::AutogradError);
    CHECK(tl::equal(tl::rand<float>({8}, gen), fresh));
  }
  CHECK(base._version() == 0);
  CHECK(other_leaf._version() == 0);
}

TEST_CASE("fills of 16-bit floats: random_ keeps to its bounds where they are not exact, the rest are distributed") {
  tl::Generator g(79);
  // 4095 is not a float16: the top moves to 4094, so no draw rounds onto 4096 (PyTorch's update_to).
  auto h = tl::empty<tl::Half>({200000});
  h.random_(0, 4096, g);
  const auto hv = h.to<float>().to_vector();
  CHECK(*std::max_element(hv.begin(), hv.end()) == 4094.f);
  CHECK(*std::min_element(hv.begin(), hv.end()) == 0.f);
  h.random_(-4095, 1, g);  // -4095 moves up to -4094
  CHECK(h.to<float>().min().item() == -4094.f);
  auto bf = tl::empty<tl::BFloat16>({100000});
  bf.exponential_(2.0, g);
  CHECK(bf.to<float>().mean().item() == doctest::Approx(0.5).epsilon(0.02));
  bf.log_normal_(0.0, 0.5, g);
  CHECK(tl::log(bf.to<float>()).mean().item() == doctest::Approx(0.0).epsilon(0.01));
  bf.cauchy_(0.0, 1.0, g);
  CHECK(tl::median(bf.to<float>()).item() == doctest::Approx(0.0).epsilon(0.03));
  h.geometric_(0.5, g);
  CHECK(h.to<float>().min().item() == 1.f);
  h.bernoulli_(0.5, g);
  CHECK(h.to<float>().mean().item() == doctest::Approx(0.5).epsilon(0.02));
  auto f = tl::empty<float>({4});
  f.exponential_(std::numeric_limits<double>::infinity(), g);
  CHECK(f.abs().max().item() == 0.f);
}

TEST_CASE("fills check in PyTorch's order: autograd first, then their arguments, then internal overlap") {
  // Note [fill checks]: PyTorch 1.13 refuses leaf.bernoulli_(2.0) as a leaf
  // write, and expanded.bernoulli_(2.0) for its argument; random_ checks its
  // bounds inside the kernel, after the overlap.
  auto leaf = tl::ones<float>({3}).requires_grad_();
  auto expanded = tl::zeros<float>({1}).expand({3});
  const std::vector<std::pair<std::string, std::function<void(tl::Tensor<float>&)>>> bad_arguments{
      {"uniform_", [](auto& t) { t.uniform_(2, 1); }},    {"normal_", [](auto& t) { t.normal_(0, -1); }},
      {"bernoulli_", [](auto& t) { t.bernoulli_(2.0); }}, {"exponential_", [](auto& t) { t.exponential_(-1); }},
      {"geometric_", [](auto& t) { t.geometric_(2); }},   {"log_normal_", [](auto& t) { t.log_normal_(0, -1); }},
  };
  for (const auto& entry : bad_arguments) {
    const std::string& name = entry.first;
    CAPTURE(name);
    CHECK_THROWS_WITH_AS(entry.second(leaf), doctest::Contains("a leaf Variable that requires grad"),
                         tl::AutogradError);
    CHECK_THROWS_WITH_AS(entry.second(expanded), doctest::Contains("expects"), tl::ValueError);
  }
  CHECK_THROWS_AS(leaf.random_(5, 2), tl::AutogradError);
  CHECK_THROWS_WITH_AS(expanded.random_(5, 2), doctest::Contains("more than one element"), tl::ValueError);
  CHECK_THROWS_WITH_AS(tl::zeros<float>({3}).random_(5, 2), doctest::Contains("expects 'from' to be less than 'to'"),
                       tl::ValueError);
  CHECK_THROWS_WITH_AS(expanded.bernoulli_(tl::full<float>({3}, 2.f)), doctest::Contains("more than one element"),
                       tl::ValueError);
}
