// Reductions and scans against PyTorch (tests/fixtures/generate_reduce.py),
// plus laws: one pass over expressions (tl::stats), thread-count independence,
// accuracy of float sums, and the error paths.

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <sstream>
#include <string>

#include "fixtures.hpp"
#include "tensorlib/tensorlib.hpp"

namespace {

template <class T>
tl::Tensor<T> lay_out(const tl::Tensor<T>& stored, const std::string& layout, const tl::Shape& expected_shape) {
  if (layout == "t") return stored.t();
  if (layout == "step") return stored.slice(-1, tl::None, tl::None, 2);
  if (layout == "expand") return stored.expand({expected_shape[0], -1});
  return stored;
}

tl::DimList parse_dims(const std::string& text) {
  if (text == "all") return {};
  std::istringstream in(text);
  std::vector<int64_t> dims;
  for (int64_t d; in >> d;) dims.push_back(d);
  return tl::DimList(dims);
}

// Compares with a tolerance that fits the op: float ops agree to a few ulp
// of the result's scale (different summation orders), integer ops exactly.
template <class A, class B>
void compare(const tl::Tensor<A>& actual, const fixtures::Case& c, const std::string& key, const std::string& what) {
  const auto expected = c.get<B>(key);
  if constexpr (std::is_floating_point_v<A>) {
    const double tol = std::is_same_v<A, float> ? 2e-5 : 1e-12;
    fixtures::check_close(actual, expected, tol, tol, what);
  } else {
    fixtures::check_close(actual, expected, 0, 0, what);
  }
}

template <class T>
void run_case(const std::string& name, const fixtures::Case& c) {
  const std::string op = c.text("op"), layout = c.text("layout"), arg = c.text("arg");
  const bool keepdim = c.text("keepdim") == "1";
  const auto dims = parse_dims(c.text("dims"));
  const auto stored = c.get<T>("x");
  // The expected input shape of "expand" is the output's leading size for
  // the cases that use it (a [1, n] row expanded to [5, n]).
  const auto x = lay_out(stored, layout, tl::Shape{5, stored.dim() > 0 ? stored.size(-1) : 1});
  const std::string what = name + " (" + op + ", " + layout + ")";
  using S = tl::detail::sum_result_t<T>;
  if (op == "sum") {
    compare<S, S>(tl::sum(x, dims, keepdim), c, "out", what);
  } else if (op == "prod") {
    compare<S, S>(tl::prod(x, dims, keepdim), c, "out", what);
  } else if (op == "amax") {
    compare<T, T>(tl::amax(x, dims, keepdim), c, "out", what);
  } else if (op == "amin") {
    compare<T, T>(tl::amin(x, dims, keepdim), c, "out", what);
  } else if (op == "all" || op == "any") {
    const auto r = op == "all" ? tl::all(x, dims, keepdim) : tl::any(x, dims, keepdim);
    // PyTorch keeps uint8 for uint8 inputs (a legacy rule); tensorlib always gives bool.
    if (c.tensor("out").dtype == "uint8")
      compare<uint8_t, uint8_t>(r.template to<uint8_t>(), c, "out", what);
    else
      compare<bool, bool>(r, c, "out", what);
  } else if (op == "count_nonzero") {
    compare<int64_t, int64_t>(tl::count_nonzero(x, dims), c, "out", what);
  } else if (op == "max" || op == "min" || op == "argmax" || op == "argmin") {
    const bool is_max = op == "max" || op == "argmax";
    if (dims.dims().empty()) {
      if (op == "max") compare<T, T>(tl::max(x), c, "out", what);
      if (op == "min") compare<T, T>(tl::min(x), c, "out", what);
      if (op == "argmax") compare<int64_t, int64_t>(tl::argmax(x), c, "out", what);
      if (op == "argmin") compare<int64_t, int64_t>(tl::argmin(x), c, "out", what);
    } else {
      const int64_t d = dims.dims()[0];
      auto [values, indices] = is_max ? tl::max(x, d, keepdim) : tl::min(x, d, keepdim);
      if (op == "max" || op == "min") {
        compare<T, T>(values, c, "out", what);
        compare<int64_t, int64_t>(indices, c, "indices", what + " indices");
        // The GPU's algorithm (three reductions), run on the CPU.
        const int64_t wrapped = tl::wrap_dim(d, x.dim(), "max");
        const auto r = is_max ? tl::detail::extremum_by_reductions<true>(x, wrapped, values.sizes())
                              : tl::detail::extremum_by_reductions<false>(x, wrapped, values.sizes());
        compare<T, T>(r.values, c, "out", what + " by reductions");
        compare<int64_t, int64_t>(r.indices, c, "indices", what + " indices by reductions");
      } else {
        compare<int64_t, int64_t>(is_max ? tl::argmax(x, d, keepdim) : tl::argmin(x, d, keepdim), c, "out", what);
      }
    }
  } else if (op == "cumsum") {
    compare<S, S>(tl::cumsum(x, std::stoll(arg)), c, "out", what);
  } else if (op == "cumprod") {
    compare<S, S>(tl::cumprod(x, std::stoll(arg)), c, "out", what);
  } else if (op == "cummax" || op == "cummin") {
    auto [values, indices] = op == "cummax" ? tl::cummax(x, std::stoll(arg)) : tl::cummin(x, std::stoll(arg));
    compare<T, T>(values, c, "out", what);
    compare<int64_t, int64_t>(indices, c, "indices", what + " indices");
  } else if constexpr (tl::is_floating<T>) {
    if (op == "logcumsumexp")
      compare<T, T>(tl::logcumsumexp(x, std::stoll(arg)), c, "out", what);
    else if (op == "mean")
      compare<T, T>(tl::mean(x, dims, keepdim), c, "out", what);
    else if (op == "nansum")
      compare<T, T>(tl::nansum(x, dims, keepdim), c, "out", what);
    else if (op == "nanmean")
      compare<T, T>(tl::nanmean(x, dims, keepdim), c, "out", what);
    else if (op == "norm")
      compare<T, T>(tl::norm(x, std::stod(arg), dims, keepdim), c, "out", what);
    else if (op == "var")
      compare<T, T>(tl::var(x, dims, std::stoll(arg), keepdim), c, "out", what);
    else if (op == "std")
      compare<T, T>(tl::std(x, dims, std::stoll(arg), keepdim), c, "out", what);
    else if (op == "logsumexp")
      compare<T, T>(tl::logsumexp(x, dims, keepdim), c, "out", what);
    else if (op == "softmax")
      compare<T, T>(tl::softmax(x, std::stoll(arg)), c, "out", what);
    else if (op == "log_softmax")
      compare<T, T>(tl::log_softmax(x, std::stoll(arg)), c, "out", what);
    else
      FAIL("unknown op " << op << " in " << name);
  } else {
    FAIL("unknown op " << op << " for an integer input in " << name);
  }
}

}  // namespace

TEST_CASE("reductions and scans match PyTorch") {
  const auto& file = fixtures::load("reduce.txt");
  int cases = 0;
  for (const auto& [name, c] : file.cases()) {
    const std::string& dtype = c.tensor("x").dtype;
    if (dtype == "float32")
      run_case<float>(name, c);
    else if (dtype == "float64")
      run_case<double>(name, c);
    else if (dtype == "int32")
      run_case<int32_t>(name, c);
    else if (dtype == "int64")
      run_case<int64_t>(name, c);
    else if (dtype == "uint8")
      run_case<uint8_t>(name, c);
    else if (dtype == "bool")
      run_case<bool>(name, c);
    else
      FAIL("unknown dtype " << dtype);
    ++cases;
  }
  CHECK(cases == 243);
}

TEST_CASE("a reduction of an expression is one pass with no temporary") {
  const auto p = tl::randn({1000, 300});
  const auto y = tl::randn({1000, 300});
  tl::stats::reset();
  const auto before = tl::stats::snapshot();
  const auto loss = ((p - y) * (p - y)).mean();
  const auto d = tl::stats::snapshot() - before;
  CHECK(d.fused_loops == 1);
  CHECK(d.allocations == 1);  // the 0-d result only
  CHECK(d.peak_bytes_in_use - before.bytes_in_use <= 64);
  // Against the two-step version.
  const tl::Tensor<float> sq = (p - y) * (p - y);
  CHECK(loss.item() == doctest::Approx(tl::mean(sq).item()).epsilon(1e-6));

  // Dim reductions of expressions too: sum(exp(x) * w, 1) reads x and w once.
  const auto before2 = tl::stats::snapshot();
  const auto rows = (tl::exp(p) * y).sum(1, true);
  const auto d2 = tl::stats::snapshot() - before2;
  CHECK(d2.fused_loops == 1);
  CHECK(d2.allocations == 1);
  CHECK(rows.sizes() == tl::Shape{1000, 1});
}

TEST_CASE("reductions do not depend on the thread count") {
  const tl::Tensor<float> x = tl::randn({300, 1000}) * 3.f + 1.f;
  const int saved = tl::get_num_threads();
  std::vector<std::vector<float>> results;
  for (int threads : {1, 2, 3}) {
    tl::set_num_threads(threads);
    std::vector<float> r;
    r.push_back(x.sum().item());
    r.push_back(x.t().sum().item());
    for (float v : x.sum(0).to_vector()) r.push_back(v);
    for (float v : x.sum(1).to_vector()) r.push_back(v);
    for (float v : x.t().sum(1).to_vector()) r.push_back(v);
    r.push_back(tl::amax(tl::exp(x)).item());
    results.push_back(r);
  }
  tl::set_num_threads(saved);
  CHECK(results[0] == results[1]);
  CHECK(results[0] == results[2]);
}

TEST_CASE("float sums are accurate over many elements") {
  // 2^24 + 3 ones: naive float accumulation stops at 2^24.
  const int64_t n = (int64_t{1} << 24) + 3;
  const auto ones = tl::ones<float>({n});
  CHECK(ones.sum().item() == static_cast<float>(n));
  CHECK(tl::mean(ones).item() == 1.0f);
  // Large values with a small mean: blocked sums keep the relative error tiny.
  const tl::Tensor<float> x = tl::randn({1 << 20}) + 1000.f;
  double reference = 0;
  for (float v : x.to_vector()) reference += v;
  CHECK(x.sum().item() == doctest::Approx(reference).epsilon(1e-7));
  // Column sums over many rows (the kept-inner path) and row sums (inner-reduced).
  const auto m = tl::randn({4096, 64});
  const auto col = m.sum(0).to_vector();
  const auto v = m.contiguous().to_vector();
  for (int64_t j = 0; j < 64; j += 21) {
    double r = 0;
    for (int64_t i = 0; i < 4096; ++i) r += v[i * 64 + j];
    CHECK(col[j] == doctest::Approx(r).epsilon(1e-6));
  }
}

TEST_CASE("a plain tensor reduces in place exactly like an expression") {
  // Plain tensors read contiguously skip the evaluation into scratch; the
  // blocks and their order are the same, so results are bit-identical to the
  // expression path (x * 1 is exact).
  const tl::Tensor<float> x = tl::randn({37, 1029}) * 3.f + 1.f;
  for (int64_t d : {0, 1}) {
    CHECK(x.sum(d).to_vector() == (x * 1.f).sum(d).to_vector());
    CHECK(x.amax(d).to_vector() == (x * 1.f).amax(d).to_vector());
    CHECK(x.prod(d).to_vector() == (x * 1.f).prod(d).to_vector());
  }
  CHECK(x.sum().item() == (x * 1.f).sum().item());
  const auto x3 = tl::randn({5, 6, 700}).permute({1, 0, 2});  // inner dim contiguous, outer permuted
  CHECK(x3.sum({0, 2}).to_vector() == (x3 * 1.f).sum({0, 2}).to_vector());
  CHECK(x3.sum(1).to_vector() == (x3 * 1.f).sum(1).to_vector());
  // Sizes that split into many tasks: rows, columns of a 1-d input, the
  // kept-inner path with a strided accumulator, and stepped rows.
  const auto big = tl::randn({1 << 21});
  CHECK(big.sum().item() == (big * 1.f).sum().item());
  const auto tall = tl::randn({4096, 300});
  CHECK(tall.sum(0).to_vector() == (tall * 1.f).sum(0).to_vector());
  const auto stepped = tall.slice(0, tl::None, tl::None, 3);
  CHECK(stepped.sum(0).to_vector() == (stepped * 1.f).sum(0).to_vector());
  const auto cube = tl::randn({4, 5, 3000}).permute({2, 1, 0});  // sum(1) keeps a strided inner accumulator
  CHECK(cube.sum(1).to_vector() == (cube * 1.f).sum(1).to_vector());
}

TEST_CASE("softmax of contiguous rows matches the three-pass form") {
  // The row kernel (contiguous last dim) against the fused three-pass path
  // (the same values laid out transposed), tails and NaN/inf rows included.
  for (int64_t cols : {2, 7, 16, 33, 1000}) {
    const tl::Tensor<float> x = tl::randn({9, cols}) * 4.f;
    const auto xt = x.t().contiguous();      // [cols, 9]: softmax over dim 0, not the last, takes three passes
    const auto xs = x.t().contiguous().t();  // dim 1 strided: copied, then the row kernel
    for (bool log : {false, true}) {
      const auto fast = log ? tl::log_softmax(x, -1) : tl::softmax(x, 1);
      const auto slow = log ? tl::log_softmax(xt, 0) : tl::softmax(xt, 0);
      const auto a = fast.to_vector(), b = slow.t().contiguous().to_vector();
      CHECK((log ? tl::log_softmax(xs, 1) : tl::softmax(xs, 1)).to_vector() == a);
      // log_softmax: (x - m) - log(s) carries float rounding at the scale of
      // |x - m| (< ~30 here), so it is compared with an absolute tolerance.
      const double scale = log ? 30.0 : 1e-3;
      for (std::size_t i = 0; i < a.size(); ++i) CHECK(a[i] == doctest::Approx(b[i]).epsilon(1e-6).scale(scale));
    }
  }
  // Special rows longer than two packets, so the SIMD paths see them.
  const float inf = std::numeric_limits<float>::infinity();
  auto special = tl::zeros<float>({3, 40});
  for (int64_t j = 0; j < 40; ++j) {
    special.index_put_({0, j}, static_cast<float>(j));
    special.index_put_({1, j}, j % 2 ? 0.f : -inf);
    special.index_put_({2, j}, -inf);
  }
  special.index_put_({0, 33}, std::nanf(""));
  const auto sm = tl::softmax(special, 1).to_vector();
  const auto lsm = tl::log_softmax(special, 1).to_vector();
  for (int j = 0; j < 40; ++j) {
    CAPTURE(j);
    CHECK(std::isnan(sm[j]));  // a NaN anywhere makes the row NaN (PyTorch)
    CHECK(std::isnan(lsm[j]));
    if (j % 2) {
      CHECK(sm[40 + j] == doctest::Approx(0.05).epsilon(1e-6));
      CHECK(lsm[40 + j] == doctest::Approx(std::log(0.05)).epsilon(1e-6));
    } else {
      CHECK(sm[40 + j] == 0.0);
      CHECK(lsm[40 + j] == -inf);
    }
    CHECK(std::isnan(sm[80 + j]));  // all -inf: 0/0
    CHECK(std::isnan(lsm[80 + j]));
  }
  // Large equal logits: log_softmax is -log(n), not 0 (x - (m + log s) would
  // lose log s next to m). Both paths.
  for (float big : {1e4f, 1e8f}) {
    const auto row = tl::full<float>({2, 40}, big);
    for (const auto& r : {tl::log_softmax(row, 1), tl::log_softmax(row.t().contiguous().t(), 1)})
      for (float v : r.contiguous().to_vector()) CHECK(v == doctest::Approx(-std::log(40.0)).epsilon(1e-6));
  }
}

TEST_CASE("softmax of float16 and bfloat16 computes in float and rounds once, as PyTorch") {
  // PyTorch 1.13 (CPU, bfloat16; it has no CPU float16 softmax):
  //   x = torch.tensor([[0.5, -1.25, 3.0, 2.0, 0.0], [1.0] * 5]).bfloat16()
  //   torch.softmax(x, -1), torch.log_softmax(x, 0)
  const tl::Tensor<tl::BFloat16> x =
      tl::tensor({{0.5f, -1.25f, 3.0f, 2.0f, 0.0f}, {1.f, 1.f, 1.f, 1.f, 1.f}}).to<tl::BFloat16>();
  const std::vector<float> softmax_rows = {0.05419921875f,  0.0093994140625f, 0.66015625f,   0.2431640625f,
                                           0.032958984375f, 0.2001953125f,    0.2001953125f, 0.2001953125f,
                                           0.2001953125f,   0.2001953125f};
  const std::vector<float> log_softmax_cols = {-0.97265625f,  -2.34375f,       -0.126953125f, -0.3125f, -1.3125f,
                                               -0.474609375f, -0.10009765625f, -2.125f,       -1.3125f, -0.3125f};
  CHECK(tl::softmax(x, -1).to<float>().to_vector() == softmax_rows);
  CHECK(tl::log_softmax(x, 0).to<float>().to_vector() == log_softmax_cols);
  // float16: the float result rounded once (the law PyTorch's CUDA kernel follows).
  const tl::Tensor<tl::Half> h = (tl::randn({6, 33}) * 3.f).to<tl::Half>();
  CHECK(tl::softmax(h, 1).to<float>().to_vector() ==
        tl::softmax(h.to<float>(), 1).to<tl::Half>().to<float>().to_vector());
  CHECK(tl::log_softmax(h * 2, 0).to<float>().to_vector() ==
        tl::log_softmax(tl::Tensor<tl::Half>(h * 2).to<float>(), 0).to<tl::Half>().to<float>().to_vector());
}

TEST_CASE("reduction methods on tensors and expressions") {
  const auto x = tl::tensor({{1.f, 2.f, 3.f}, {4.f, 5.f, 6.f}});
  CHECK(x.sum().item() == 21.f);
  CHECK(x.sum(0).to_vector() == std::vector<float>{5.f, 7.f, 9.f});
  CHECK(x.sum({0, 1}).item() == 21.f);
  CHECK(x.sum(-1, true).sizes() == tl::Shape{2, 1});
  CHECK(x.mean().item() == 3.5f);
  CHECK((x * 2).max().item() == 12.f);
  CHECK(x.argmax().item() == 5);
  CHECK(x.prod().item() == 720.f);
  CHECK((x > 3.f).any().item());
  CHECK(!(x > 3.f).all().item());
  CHECK((x > 3.f).sum().item() == 3);
  CHECK(x.count_nonzero().item() == 6);
  CHECK(x.cumsum(1).to_vector() == std::vector<float>{1.f, 3.f, 6.f, 4.f, 9.f, 15.f});
  const auto [v, i] = x.min(1);
  CHECK(v.to_vector() == std::vector<float>{1.f, 4.f});
  CHECK(i.to_vector() == std::vector<int64_t>{0, 0});
  CHECK(x.softmax(1).sum(1).to_vector()[0] == doctest::Approx(1.0));
  const auto [s, m] = tl::std_mean(x, 1);
  CHECK(m.to_vector() == std::vector<float>{2.f, 5.f});
  CHECK(s.to_vector()[0] == doctest::Approx(1.0));
  const auto [var, mean] = tl::var_mean(x);
  CHECK(mean.item() == 3.5f);
  CHECK(var.item() == doctest::Approx(3.5));
  // 0-d inputs reduce over dim 0 or -1.
  CHECK(tl::scalar_tensor(4.f).sum(0).item() == 4.f);
  CHECK(tl::scalar_tensor(4.f).max(0).indices.item() == 0);
}

TEST_CASE("reduction errors say what went wrong") {
  const auto x = tl::randn({2, 3});
  CHECK_THROWS_WITH_AS(x.sum(2), "sum: dimension out of range (expected to be in range of [-2, 1], but got 2)",
                       tl::IndexError);
  CHECK_THROWS_WITH_AS(x.sum({0, -2}), "sum: dim 0 appears multiple times in the list of dims", tl::ValueError);
  CHECK_THROWS_WITH_AS(x.max(5), "max: dimension out of range (expected to be in range of [-2, 1], but got 5)",
                       tl::IndexError);
  const auto e = tl::empty<float>({0, 3});
  CHECK_THROWS_WITH_AS(e.max(),
                       "max(): Expected reduction dim to be specified for input.numel() == 0. Specify the reduction "
                       "dim with the 'dim' argument.",
                       tl::IndexError);
  CHECK_THROWS_WITH_AS(e.amax(0), "amax(): Expected reduction dim 0 to have non-zero size.", tl::IndexError);
  CHECK_THROWS_WITH_AS(e.max(0), "max(): Expected reduction dim 0 to have non-zero size.", tl::IndexError);
  CHECK_THROWS_WITH_AS(e.argmax(), doctest::Contains("argmax(): Expected reduction dim to be specified"),
                       tl::IndexError);
  CHECK(e.amax(1).sizes() == tl::Shape{0});
  CHECK(e.sum(0).to_vector() == std::vector<float>{0.f, 0.f, 0.f});
  CHECK(std::isnan(e.mean().item()));
  CHECK_THROWS_WITH_AS(x.cumsum(3), doctest::Contains("cumsum: dimension out of range"), tl::IndexError);
  CHECK_THROWS_WITH_AS(x.softmax(-3), doctest::Contains("softmax: dimension out of range"), tl::IndexError);
}

TEST_CASE("logcumsumexp: the log of cumsum of exp, 0-d and empty inputs, expressions, methods, errors") {
  tl::Generator g(5);
  const auto x = tl::randn<double>({4, 6}, g);
  for (const int64_t dim : {0, 1, -1}) {
    CAPTURE(dim);
    fixtures::check_close(tl::logcumsumexp(x, dim), tl::Tensor<double>(tl::log(tl::cumsum(tl::exp(x), dim))), 1e-14,
                          1e-14, "log(cumsum(exp))");
  }
  CHECK(tl::logcumsumexp(tl::scalar_tensor(0.5f), 0).item() == 0.5f);
  CHECK(tl::logcumsumexp(tl::zeros<float>({3, 0}), 1).sizes() == tl::Shape{3, 0});
  // An expression input, and the method on a float tensor.
  fixtures::check_close(tl::logcumsumexp(x * 2.0, 1), tl::Tensor<double>(x * 2.0).logcumsumexp(1), 0, 0, "method");
  const auto f = tl::tensor<float>({1000.0f, 1000.0f});
  CHECK(f.logcumsumexp(0).to_vector()[1] == doctest::Approx(1000.0 + std::log(2.0)).epsilon(1e-7));
  CHECK_THROWS_WITH_AS((void)tl::logcumsumexp(x, 2), doctest::Contains("logcumsumexp: dimension out of range"),
                       tl::IndexError);
}

TEST_CASE("aminmax matches PyTorch: whole tensor and each dim, keepdim, NaN, integers") {
  const auto& f = fixtures::load("surface.txt");
  for (const char* dim : {"none", "0", "1", "-1"})
    for (const bool keepdim : {false, true}) {
      const std::string key = std::string("aminmax/") + dim + "/" + (keepdim ? "1" : "0");
      CAPTURE(key);
      const auto& c = f[key];
      const std::optional<int64_t> d =
          std::string(dim) == "none" ? std::nullopt : std::optional<int64_t>(std::stoll(dim));
      const auto [lo, hi] = tl::aminmax(c.get<float>("x"), d, keepdim);
      fixtures::check_close(lo, c.get<float>("min"), 0, 0, "min");
      fixtures::check_close(hi, c.get<float>("max"), 0, 0, "max");
    }
  const auto& cn = f["aminmax/nan"];
  const auto rn = tl::aminmax(cn.get<float>("x"), 1);
  fixtures::check_close(rn.min, cn.get<float>("min"), 0, 0, "nan min");
  fixtures::check_close(rn.max, cn.get<float>("max"), 0, 0, "nan max");
  const auto& ci = f["aminmax/int64"];
  const auto ri = tl::aminmax(ci.get<int64_t>("x"), 0);
  fixtures::check_close(ri.min, ci.get<int64_t>("min"), 0, 0, "int64 min");
  fixtures::check_close(ri.max, ci.get<int64_t>("max"), 0, 0, "int64 max");
  const auto& cb = f["aminmax/bool"];
  const auto rb = tl::aminmax(cb.get<bool>("x"), 1);
  fixtures::check_close(rb.min, cb.get<bool>("min"), 0, 0, "bool min");
  fixtures::check_close(rb.max, cb.get<bool>("max"), 0, 0, "bool max");
  // An expression, a 0-d tensor along dim 0, and an empty reduction.
  const auto x = tl::arange<float>(0, 6).reshape({2, 3});
  CHECK(tl::aminmax(x * -1.0f).min.item() == -5.0f);
  CHECK(tl::aminmax(tl::scalar_tensor(2.0f), 0).max.item() == 2.0f);
  CHECK(tl::aminmax(tl::zeros<float>({2, 0}), 0).min.sizes() == tl::Shape{0});
  CHECK_THROWS_WITH_AS((void)tl::aminmax(tl::zeros<float>({2, 0}), 1),
                       "aminmax: Expected reduction dim 1 to have non-zero size.", tl::IndexError);
  CHECK_THROWS_WITH((void)tl::aminmax(tl::zeros<float>({0})),
                    "aminmax(): cannot compute aminmax over an empty dimension as the operation has no identity.");
}

TEST_CASE("cov and corrcoef match PyTorch: corrections, frequency and importance weights, vectors, integers") {
  const auto& f = fixtures::load("surface.txt");
  for (const int64_t correction : {0, 1, 2}) {
    CAPTURE(correction);
    const std::string k = std::to_string(correction);
    const auto& plain = f["cov/plain/" + k];
    const auto x = plain.get<double>("x");
    fixtures::check_close(tl::cov(x, correction), plain.get<double>("y"), 1e-13, 1e-13, "plain");
    const auto& fw = f["cov/fweights/" + k];
    fixtures::check_close(tl::cov(x, correction, fw.get<int64_t>("fw")), fw.get<double>("y"), 1e-13, 1e-13, "fw");
    const auto& aw = f["cov/aweights/" + k];
    fixtures::check_close(tl::cov(x, correction, std::nullopt, aw.get<double>("aw")), aw.get<double>("y"), 1e-13, 1e-13,
                          "aw");
    const auto& both = f["cov/both/" + k];
    fixtures::check_close(tl::cov(x, correction, both.get<int64_t>("fw"), both.get<double>("aw")),
                          both.get<double>("y"), 1e-13, 1e-13, "both");
  }
  for (const char* key : {"cov/vector", "corrcoef/plain", "corrcoef/vector", "corrcoef/constant_row"}) {
    CAPTURE(key);
    const auto& c = f[key];
    const auto y = std::string(key).starts_with("cov") ? tl::cov(c.get<double>("x")) : tl::corrcoef(c.get<double>("x"));
    fixtures::check_close(y, c.get<double>("y"), 1e-13, 1e-13, key);
  }
  // Integral inputs give float.
  fixtures::check_close(tl::cov(f["cov/int64"].get<int64_t>("x")), f["cov/int64"].get<float>("y"), 1e-6, 1e-6,
                        "int64 cov");
  fixtures::check_close(tl::corrcoef(f["corrcoef/int64"].get<int64_t>("x")), f["corrcoef/int64"].get<float>("y"), 1e-6,
                        1e-6, "int64 corrcoef");
  // One observation: no degrees of freedom, NaN (PyTorch warns).
  for (const double v : tl::cov(tl::ones<double>({2, 1})).to_vector()) CHECK(std::isnan(v));
  // Corrections outside [0, N): negative, N and above N (inf: the clamped
  // zero divisor).
  for (const int64_t correction : {-1, 3, 5}) {
    CAPTURE(correction);
    const auto& c = f["cov/correction/" + std::to_string(correction)];
    fixtures::check_close(tl::cov(c.get<float>("x"), correction), c.get<float>("y"), 1e-6, 1e-6, "correction");
  }
  // Empty and 0-d inputs, as PyTorch 1.13: no observations give NaN, no
  // variables an empty (0, 0) matrix, a 0-d input one observation (NaN).
  for (const float v : tl::cov(tl::zeros<float>({2, 0})).to_vector()) CHECK(std::isnan(v));
  CHECK(tl::cov(tl::zeros<float>({2, 0})).sizes() == tl::Shape{2, 2});
  CHECK(tl::cov(tl::zeros<float>({0, 5})).sizes() == tl::Shape{0, 0});
  CHECK(tl::corrcoef(tl::zeros<float>({0, 5})).sizes() == tl::Shape{0, 0});
  CHECK(tl::cov(tl::scalar_tensor(3.0f)).dim() == 0);
  CHECK(std::isnan(tl::cov(tl::scalar_tensor(3.0f)).item()));
  CHECK(std::isnan(tl::corrcoef(tl::scalar_tensor(3.0f)).item()));
  for (const float v : tl::corrcoef(tl::zeros<float>({2, 0})).to_vector()) CHECK(std::isnan(v));
}

TEST_CASE("cov errors follow PyTorch's wording") {
  const auto x = tl::ones<float>({2, 4});
  CHECK_THROWS_WITH((void)tl::corrcoef(tl::ones<float>({2, 2, 2})),
                    "corrcoef(): expected input to have two or fewer dimensions but got an input with 3 dimensions");
  CHECK_THROWS_WITH((void)tl::cov(tl::ones<float>({2, 2, 2})),
                    "cov(): expected input to have two or fewer dimensions but got an input with 3 dimensions");
  CHECK_THROWS_WITH((void)tl::cov(x, 1, tl::ones<int64_t>({2, 4})),
                    "cov(): expected fweights to have one or fewer dimensions but got fweights with 2 dimensions");
  CHECK_THROWS_WITH((void)tl::cov(x, 1, tl::ones<int64_t>({3})),
                    "cov(): expected fweights to have the same numel as there are observations in the input but "
                    "got 3 != 4");
  CHECK_THROWS_WITH((void)tl::cov(x, 1, tl::full<int64_t>({4}, -1)), "cov(): fweights cannot be negative");
  CHECK_THROWS_WITH((void)tl::cov(x, 1, std::nullopt, tl::full<float>({4}, -1.0f)),
                    "cov(): aweights cannot be negative");
  CHECK_THROWS_WITH((void)tl::cov(x, 1, std::nullopt, tl::zeros<float>({4})),
                    "cov(): weights sum to zero, can't be normalized");
}
