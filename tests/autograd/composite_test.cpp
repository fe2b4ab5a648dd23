// Gradients of composite functions against PyTorch 1.13 (tests/fixtures/
// autograd.txt, made by tests/fixtures/generate_autograd.py): an MLP with a
// cross-entropy written from primitives, a softmax-weighted sum, and a layer
// norm written from primitives, in float and double. Every op involved
// records: fused pointwise nodes, matmul, log_softmax/softmax, sum/mean (of
// expressions too), views.

#include <doctest/doctest.h>

#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include <tensorlib/tensorlib.hpp>

#include "fixtures.hpp"

namespace {

template <class T>
struct Tol {
  static constexpr double rtol = std::is_same_v<T, float> ? 1e-4 : 1e-10;
  static constexpr double atol = std::is_same_v<T, float> ? 1e-5 : 1e-12;
};

template <class T>
tl::Tensor<T> leaf(const fixtures::Case& c, const std::string& name) {
  return c.tensors.at(name).as<T>().requires_grad_();
}

template <class T>
void check_grad(const fixtures::Case& c, const tl::Tensor<T>& x, const std::string& name) {
  REQUIRE_MESSAGE(x.grad().defined(), name << " has no gradient");
  fixtures::check_close(x.grad(), c.tensors.at("grad_" + name).as<T>(), Tol<T>::rtol, Tol<T>::atol, name);
}

template <class T>
void run_mlp(const fixtures::Case& c) {
  auto x = leaf<T>(c, "x"), w1 = leaf<T>(c, "w1"), b1 = leaf<T>(c, "b1"), w2 = leaf<T>(c, "w2"), b2 = leaf<T>(c, "b2");
  const auto onehot = c.tensors.at("onehot").as<T>();
  const tl::Tensor<T> h = tl::tanh(tl::matmul(x, w1) + b1);
  const tl::Tensor<T> lp = tl::log_softmax(tl::matmul(h, w2) + b2, 1);
  const tl::Tensor<T> loss = -(lp * onehot).sum(1).mean();
  fixtures::check_close(loss, c.tensors.at("loss").as<T>(), Tol<T>::rtol, Tol<T>::atol, "loss");
  loss.backward();
  check_grad(c, x, "x");
  check_grad(c, w1, "w1");
  check_grad(c, b1, "b1");
  check_grad(c, w2, "w2");
  check_grad(c, b2, "b2");
}

template <class T>
void run_softmax(const fixtures::Case& c) {
  auto z = leaf<T>(c, "z");
  const auto v = c.tensors.at("v").as<T>();
  const tl::Tensor<T> loss = (tl::softmax(z, 1) * v).sum();
  fixtures::check_close(loss, c.tensors.at("loss").as<T>(), Tol<T>::rtol, Tol<T>::atol, "loss");
  loss.backward();
  check_grad(c, z, "z");
}

template <class T>
void run_layernorm(const fixtures::Case& c) {
  auto x = leaf<T>(c, "x"), g = leaf<T>(c, "g"), b = leaf<T>(c, "b");
  const auto k = c.tensors.at("c").as<T>();
  const tl::Tensor<T> m = x.mean(-1, true);
  const tl::Tensor<T> v = ((x - m) * (x - m)).mean(-1, true);
  const tl::Tensor<T> y = (x - m) / tl::sqrt(v + T(1e-5)) * g + b;
  const tl::Tensor<T> loss = (y * y * k).sum();
  fixtures::check_close(loss, c.tensors.at("loss").as<T>(), Tol<T>::rtol, Tol<T>::atol, "loss");
  loss.backward();
  check_grad(c, x, "x");
  check_grad(c, g, "g");
  check_grad(c, b, "b");
}

template <class T>
void run_eigh(const fixtures::Case& c) {
  auto a = leaf<T>(c, "a");
  const auto k = c.tensors.at("c").as<T>(), wv = c.tensors.at("wv").as<T>();
  const auto r = tl::linalg::eigh(a);
  const tl::Tensor<T> loss = (r.eigenvalues * k).sum() + (r.eigenvectors * r.eigenvectors * wv).sum();
  fixtures::check_close(loss, c.tensors.at("loss").as<T>(), Tol<T>::rtol * 10, Tol<T>::atol * 10, "loss");
  loss.backward();
  // Jacobi and LAPACK eigenvectors agree to a few ulps of the spectrum's scale.
  REQUIRE(a.grad().defined());
  fixtures::check_close(a.grad(), c.tensors.at("grad_a").as<T>(), Tol<T>::rtol * 10, Tol<T>::atol * 10, "a");
}

template <class T>
void run_cholesky(const fixtures::Case& c) {
  auto a = leaf<T>(c, "a");
  const auto wl = c.tensors.at("wl").as<T>();
  const tl::Tensor<T> loss =
      (tl::linalg::cholesky(a) * wl).sum() + (tl::linalg::cholesky(a, true) * wl.t()).sum() * T(0.5);
  fixtures::check_close(loss, c.tensors.at("loss").as<T>(), Tol<T>::rtol, Tol<T>::atol, "loss");
  loss.backward();
  check_grad(c, a, "a");
}

template <class T>
void run_qr(const fixtures::Case& c) {
  auto a = leaf<T>(c, "a"), b = leaf<T>(c, "b");
  auto w = [&c](const char* name) { return c.tensors.at(name).as<T>(); };
  const auto [Qa, Ra] = tl::linalg::qr(a);
  const auto [Qb, Rb] = tl::linalg::qr(b);
  const tl::Tensor<T> loss =
      (Qa * Qa * w("wqa")).sum() + (Ra * Ra * w("wra")).sum() + (Qb * Qb * w("wqb")).sum() + (Rb * Rb * w("wrb")).sum();
  fixtures::check_close(loss, c.tensors.at("loss").as<T>(), Tol<T>::rtol * 10, Tol<T>::atol * 10, "loss");
  loss.backward();
  check_grad(c, a, "a");
  check_grad(c, b, "b");
}

}  // namespace

TEST_CASE("qr gradients match PyTorch (tall and wide)") {
  const auto& file = fixtures::load("autograd.txt");
  run_qr<float>(file["qr"]);
  run_qr<double>(file["qr_f64"]);
}

TEST_CASE("eigh and cholesky gradients match PyTorch (symmetric, as PyTorch's)") {
  const auto& file = fixtures::load("autograd.txt");
  run_eigh<float>(file["eigh"]);
  run_eigh<double>(file["eigh_f64"]);
  run_cholesky<float>(file["cholesky"]);
  run_cholesky<double>(file["cholesky_f64"]);
}

TEST_CASE("an MLP's cross-entropy gradients match PyTorch") {
  const auto& file = fixtures::load("autograd.txt");
  run_mlp<float>(file["mlp"]);
  run_mlp<double>(file["mlp_f64"]);
}

TEST_CASE("softmax gradients match PyTorch") {
  const auto& file = fixtures::load("autograd.txt");
  run_softmax<float>(file["softmax"]);
  run_softmax<double>(file["softmax_f64"]);
}

TEST_CASE("a layer norm from primitives has PyTorch's gradients") {
  const auto& file = fixtures::load("autograd.txt");
  run_layernorm<float>(file["layernorm"]);
  run_layernorm<double>(file["layernorm_f64"]);
}

TEST_CASE("log_softmax and sum record without saving intermediates of a fused expression") {
  // sum of an expression is one node saving only its leaves: a second
  // backward through it fails only because those were freed.
  auto x = tl::tensor({1.0, 2.0, 3.0}, {.requires_grad = true});
  const tl::Tensor<float> s = (x * x + 1.f).sum();
  CHECK(s.grad_fn()->name() == "SumBackward");
  s.backward();
  CHECK(x.grad().to_vector() == std::vector<float>{2.f, 4.f, 6.f});
  CHECK_THROWS_AS(s.backward(), tl::AutogradError);
}

TEST_CASE("unfold's gradient matches PyTorch with overlapping windows and with gaps") {
  const auto& f = fixtures::load("surface.txt");
  for (const char* key : {"1/3/1", "1/2/3", "0/2/1"}) {
    INFO(key);
    const auto& c = f[std::string("unfold_grad/") + key];
    int64_t dim = 0, size = 0, step = 0;
    REQUIRE(std::sscanf(key, "%ld/%ld/%ld", &dim, &size, &step) == 3);
    auto x = leaf<double>(c, "x");
    (x.unfold(dim, size, step) * c.tensors.at("w").as<double>()).sum().backward();
    REQUIRE(x.grad().defined());
    fixtures::check_close(x.grad(), c.tensors.at("grad").as<double>(), 1e-12, 1e-12, "grad");
  }
}

TEST_CASE("xlogy's gradients match PyTorch where x is exactly 0") {
  const auto& c = fixtures::load("surface.txt")["xlogy_grad"];
  auto x = leaf<double>(c, "x"), y = leaf<double>(c, "y");
  tl::sum(tl::xlogy(x, y)).backward();
  fixtures::check_close(x.grad(), c.tensors.at("gx").as<double>(), 1e-15, 1e-15, "d/dx");
  fixtures::check_close(y.grad(), c.tensors.at("gy").as<double>(), 1e-15, 1e-15, "d/dy");
  // At x = 0, y = +inf the value is 0 and d/dx is 0 here, inf in PyTorch
  // (docs/architecture.md, "Known differences").
  auto x0 = tl::tensor<double>({0.0}, {.requires_grad = true});
  const auto y0 = tl::tensor<double>({std::numeric_limits<double>::infinity()});
  const tl::Tensor<double> v = tl::xlogy(x0, y0);
  CHECK(v.item() == 0.0);
  v.sum().backward();
  CHECK(x0.grad().item() == 0.0);
}

TEST_CASE("fmax, fmin, hypot, xlog1py, sinc, ndtr, deg2rad, rad2deg and float_power have PyTorch's gradients") {
  const auto& f = fixtures::load("composites.txt");
  const auto unary = [&](const std::string& name, auto op, double rtol = 1e-14) {
    INFO(name);
    const auto& c = f["grad/" + name];
    auto x = leaf<double>(c, "x0");
    tl::Tensor<double>(op(x)).sum().backward();
    fixtures::check_close(x.grad(), c.tensors.at("g0").as<double>(), rtol, 1e-15, "d/dx");
  };
  const auto binary = [&](const std::string& name, auto op) {
    INFO(name);
    const auto& c = f["grad/" + name];
    auto x = leaf<double>(c, "x0"), y = leaf<double>(c, "x1");
    tl::Tensor<double>(op(x, y)).sum().backward();
    fixtures::check_close(x.grad(), c.tensors.at("g0").as<double>(), 1e-14, 1e-15, "d/da");
    fixtures::check_close(y.grad(), c.tensors.at("g1").as<double>(), 1e-14, 1e-15, "d/db");
  };
  // Ties give fmax's and fmin's first operand the gradient, a NaN the other.
  binary("fmax", [](const auto& a, const auto& b) { return tl::fmax(a, b); });
  binary("fmin", [](const auto& a, const auto& b) { return a.fmin(b); });
  // NaN at the origin, a / hypot elsewhere (ties and a zero operand too).
  binary("hypot", [](const auto& a, const auto& b) { return tl::hypot(a, b); });
  binary("xlog1py", [](const auto& a, const auto& b) { return tl::special::xlog1py(a, b); });
  binary("float_power", [](const auto& a, const auto& b) { return tl::float_power(a, b); });
  // 0 at x = 0. Near 0 both derivatives cancel (pi x cos(pi x) - sin(pi x)):
  // at x = 1e-3 PyTorch's is 4e-12 from the exact value.
  unary(
      "sinc", [](const auto& x) { return tl::sinc(x); }, 1e-10);
  unary("ndtr", [](const auto& x) { return tl::special::ndtr(x); });
  unary("deg2rad", [](const auto& x) { return x.deg2rad(); });
  unary("rad2deg", [](const auto& x) { return tl::rad2deg(x); });
  // An infinite operand gets NaN, the finite one beside it 0, as PyTorch's.
  const double inf = std::numeric_limits<double>::infinity();
  auto u = tl::tensor<double>({inf, 2.0, -inf}, {.requires_grad = true});
  auto v = tl::tensor<double>({1.0, -inf, std::numeric_limits<double>::quiet_NaN()}, {.requires_grad = true});
  const tl::Tensor<double> h = tl::hypot(u, v);
  CHECK(h.to_vector() == std::vector<double>{inf, inf, inf});
  h.sum().backward();
  const auto gu = u.grad().to_vector(), gv = v.grad().to_vector();
  CHECK(std::isnan(gu[0]));
  CHECK(gu[1] == 0.0);
  CHECK(std::isnan(gu[2]));
  CHECK(gv[0] == 0.0);
  CHECK(std::isnan(gv[1]));
  CHECK(std::isnan(gv[2]));
  // Finite differences in double away from the kinks, through broadcasting.
  using Inputs = std::vector<tl::Tensor<double>>;
  tl::manual_seed(7);
  const auto a = tl::randn<double>({3, 4}).requires_grad_();
  const auto b = tl::randn<double>({4}).requires_grad_();
  const auto p = tl::Tensor<double>(tl::rand<double>({3, 4}) + 0.25).requires_grad_();
  CHECK(tl::autograd::gradcheck([](const Inputs& in) { return tl::Tensor<double>(tl::hypot(in[0], in[1])); }, {a, b}));
  CHECK(tl::autograd::gradcheck([](const Inputs& in) { return tl::Tensor<double>(tl::fmax(in[0], in[1])); }, {a, b}));
  CHECK(tl::autograd::gradcheck([](const Inputs& in) { return tl::Tensor<double>(tl::fmin(in[0], in[1])); }, {a, b}));
  CHECK(
      tl::autograd::gradcheck([](const Inputs& in) { return tl::Tensor<double>(tl::xlog1py(in[0], in[1])); }, {a, p}));
  CHECK(tl::autograd::gradcheck([](const Inputs& in) { return tl::Tensor<double>(tl::float_power(in[1], in[0])); },
                                {a, p}));
  CHECK(tl::autograd::gradcheck([](const Inputs& in) { return tl::Tensor<double>(tl::sinc(in[0])); }, {a}));
  CHECK(tl::autograd::gradcheck([](const Inputs& in) { return tl::Tensor<double>(tl::ndtr(in[0])); }, {a}));
}

TEST_CASE("quantile differentiates with respect to q, as PyTorch's linear interpolation does") {
  auto q = tl::tensor<double>({0.3, 0.75}, {.requires_grad = true});
  const auto x = tl::tensor<double>({4.0, 1.0, 3.0, 2.0});
  tl::sum(tl::quantile(x, q)).backward();
  REQUIRE(q.grad().defined());
  // d/dq = (x_(k+1) - x_(k)) * (n - 1) = 3 for both ranks (0.9 and 2.25).
  CHECK(q.grad().to_vector() == std::vector<double>{3.0, 3.0});
  auto qn = tl::tensor<double>({0.3}, {.requires_grad = true});
  const auto xn = tl::tensor<double>({4.0, std::nan(""), 1.0, 3.0, 2.0});
  tl::sum(tl::nanquantile(xn, qn)).backward();
  CHECK(qn.grad().to_vector() == std::vector<double>{3.0});
  // A slice with a NaN reads its NaN: nothing depends on q there.
  auto qq = tl::tensor<double>({0.3}, {.requires_grad = true});
  tl::sum(tl::quantile(xn, qq)).backward();
  CHECK(qq.grad().to_vector() == std::vector<double>{0.0});
}
