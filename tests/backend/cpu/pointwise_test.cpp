// The CPU executor: flat and row loops, strided and broadcast operands,
// hoisting (observed by counting functor calls), packet/scalar agreement and
// thread-count independence.

#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <limits>
#include <tuple>
#include <vector>

#include "fixtures.hpp"

namespace {

std::atomic<int64_t> g_calls{0};

// exp, counting how often the functor is invoked (once per packet or element).
struct CountingExp {
  static constexpr std::string_view name = "counting_exp";
  using promotion = tl::promotion::Common;
  template <class T>
  T operator()(T x) const {
    g_calls.fetch_add(1, std::memory_order_relaxed);
    using tl::math::exp;
    return exp(x);
  }
};

template <class T>
std::vector<T> naive(const std::vector<T>& a, const std::vector<T>& b, int64_t rows, int64_t cols, bool b_is_row) {
  std::vector<T> out(static_cast<std::size_t>(rows * cols));
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j) out[i * cols + j] = a[i * cols + j] * std::exp(b[b_is_row ? j : i]);
  return out;
}

}  // namespace

TEST_CASE("flat, strided, transposed and broadcast operands give the same values as a naive loop") {
  const int64_t rows = 37, cols = 53;  // not multiples of any packet width
  const auto a = tl::randn({rows, cols});
  const auto row = tl::randn({cols});
  const auto col = tl::randn({rows, 1});
  const tl::Tensor<float> by_row = a * tl::exp(row);
  const tl::Tensor<float> by_col = a * tl::exp(col);
  const auto av = a.to_vector();
  const auto e_row = naive(av, row.to_vector(), rows, cols, true);
  const auto e_col = naive(av, col.to_vector(), rows, cols, false);
  fixtures::check_close(by_row, tl::from_blob(const_cast<float*>(e_row.data()), {rows, cols}), 1e-6, 0, "row");
  fixtures::check_close(by_col, tl::from_blob(const_cast<float*>(e_col.data()), {rows, cols}), 1e-6, 0, "col");

  // The same computation through a transposed input and a transposed output.
  const auto at = a.t().contiguous().t();  // same values, column-major layout
  const tl::Tensor<float> via_t = at * tl::exp(row);
  CHECK(via_t.to_vector() == by_row.to_vector());
  auto out_t = tl::empty<float>({cols, rows}).t();
  out_t.copy_(a * tl::exp(row));
  CHECK(out_t.to_vector() == by_row.to_vector());
  // Strided slices (step 2) of a larger tensor.
  const auto big = tl::randn({2 * rows, 2 * cols});
  const auto s = big.slice(0, 0, tl::None, 2).slice(1, 1, tl::None, 2);
  const tl::Tensor<float> via_s = s * 2;
  const tl::Tensor<float> via_c = s.contiguous() * 2;
  CHECK(via_s.to_vector() == via_c.to_vector());
}

TEST_CASE("a subexpression of a broadcast row is computed once, not once per row") {
  const int64_t rows = 64, cols = 256;
  const auto a = tl::ones<float>({rows, cols});
  const auto d = tl::linspace(-1, 1, cols);
  g_calls = 0;
  const tl::Tensor<float> y = a + tl::make_map(CountingExp{}, d);
  const int64_t packet = tl::cpu::packet_size<float>;
  CHECK(g_calls.load() == cols / packet);  // hoisted into a buffer: one pass over the row
  const tl::Tensor<float> ref = a + tl::exp(d);
  CHECK(y.to_vector() == ref.to_vector());
}

TEST_CASE("a subexpression constant along each row is computed once per row") {
  const int64_t rows = 64, cols = 256;
  const auto a = tl::ones<float>({rows, cols});
  const auto c = tl::linspace(-1, 1, rows).view({rows, 1});
  g_calls = 0;
  const tl::Tensor<float> y = a * tl::make_map(CountingExp{}, c);
  CHECK(g_calls.load() == rows);
  const tl::Tensor<float> ref = a * tl::exp(c);
  CHECK(y.to_vector() == ref.to_vector());
}

TEST_CASE("a contiguous chain runs on packets: one functor call per packet") {
  const int64_t n = 1000;
  const auto x = tl::linspace(-3, 3, n);
  g_calls = 0;
  const tl::Tensor<float> y = tl::make_map(CountingExp{}, x);
  const int64_t packet = tl::cpu::packet_size<float>;
  CHECK(g_calls.load() == (n + packet - 1) / packet);
  CHECK(y.to_vector() == tl::Tensor<float>(tl::exp(x)).to_vector());
}

namespace {

template <class F, class T>
void check_packet_matches_scalar(F f, const std::vector<T>& xs) {
  const auto x = tl::from_blob(const_cast<T*>(xs.data()), {static_cast<int64_t>(xs.size())});
  const tl::Tensor<T> y = tl::make_map(f, x);  // flat loop on packets, partial tail
  const auto yv = y.to_vector();
  int mismatches = 0;
  for (std::size_t i = 0; i < xs.size(); ++i) {
    const T s = f(xs[i]);
    const bool same = (std::isnan(s) && std::isnan(yv[i])) || std::memcmp(&s, &yv[i], sizeof(T)) == 0;
    if (!same && mismatches++ < 3) FAIL_CHECK(F::name << "(" << xs[i] << "): packet " << yv[i] << ", scalar " << s);
  }
}

template <class T>
std::vector<T> sweep() {
  std::vector<T> xs;
  for (int i = -400; i <= 400; ++i) xs.push_back(static_cast<T>(i) * T(0.0371));
  for (T v : {T(0), T(-0.0), T(1e-20), T(1e-5), T(0.999), T(50), T(-60), T(88.5), T(100), T(1e6)}) xs.push_back(v);
  xs.push_back(std::numeric_limits<T>::infinity());
  xs.push_back(-std::numeric_limits<T>::infinity());
  xs.push_back(std::numeric_limits<T>::quiet_NaN());
  return xs;
}

using UnaryFloatFunctors =
    std::tuple<tl::fn::Abs, tl::fn::Neg, tl::fn::Sign, tl::fn::Reciprocal, tl::fn::Square, tl::fn::Floor, tl::fn::Ceil,
               tl::fn::Round, tl::fn::Trunc, tl::fn::Frac, tl::fn::Exp, tl::fn::Exp2, tl::fn::Expm1, tl::fn::Log,
               tl::fn::Log2, tl::fn::Log10, tl::fn::Log1p, tl::fn::Sqrt, tl::fn::Rsqrt, tl::fn::Sin, tl::fn::Cos,
               tl::fn::Tan, tl::fn::Asin, tl::fn::Acos, tl::fn::Atan, tl::fn::Sinh, tl::fn::Cosh, tl::fn::Tanh,
               tl::fn::Asinh, tl::fn::Acosh, tl::fn::Atanh, tl::fn::Erf, tl::fn::Erfc, tl::fn::Erfinv, tl::fn::Lgamma,
               tl::fn::Digamma, tl::fn::Polygamma, tl::fn::Entr, tl::fn::Erfcx, tl::fn::I0, tl::fn::I0e, tl::fn::I1,
               tl::fn::I1e, tl::fn::BesselJ0, tl::fn::BesselJ1, tl::fn::BesselY0, tl::fn::BesselY1,
               tl::fn::ModifiedBesselK0, tl::fn::ModifiedBesselK1, tl::fn::ScaledModifiedBesselK0,
               tl::fn::ScaledModifiedBesselK1, tl::fn::SphericalBesselJ0, tl::fn::AiryAi, tl::fn::LogNdtr,
               tl::fn::Ndtri, tl::fn::Sigmoid, tl::fn::Logit, tl::fn::Relu, tl::fn::Gelu, tl::fn::Silu,
               tl::fn::Softplus, tl::fn::Hardtanh, tl::fn::LeakyRelu, tl::fn::Elu, tl::fn::Hardshrink>;

}  // namespace

TEST_CASE("every float functor gives bit-identical results on packets and on scalars") {
  std::apply([](auto... f) { (check_packet_matches_scalar(f, sweep<float>()), ...); }, UnaryFloatFunctors{});
  std::apply([](auto... f) { (check_packet_matches_scalar(f, sweep<double>()), ...); }, UnaryFloatFunctors{});
  check_packet_matches_scalar(tl::fn::Gelu{true}, sweep<float>());
  check_packet_matches_scalar(tl::fn::Polygamma{3}, sweep<double>());
  check_packet_matches_scalar(tl::fn::Clamp<float>{-1.f, 2.f, true, true}, sweep<float>());
}

TEST_CASE("multithreaded runs match a naive loop, split by rows and by columns") {
  const int threads = tl::get_num_threads();
  tl::set_num_threads(2);
  // Split by rows: 300 rows, a broadcast row operand (a buffered hoist) and a
  // transposed operand (gathered into scratch blocks).
  const auto a = tl::randn({300, 700});
  const auto b = tl::randn({700});
  const auto at = tl::randn({700, 300}).t();
  const tl::Tensor<float> y = tl::tanh(a) * tl::sigmoid(b) + at / 3;
  const auto av = a.to_vector(), bv = b.to_vector(), atv = at.to_vector(), yv = y.to_vector();
  int bad = 0;
  for (int64_t i = 0; i < 300 * 700; ++i) {
    const float expect = std::tanh(av[i]) / (1 + std::exp(-bv[i % 700])) + atv[i] / 3;
    bad += std::fabs(yv[i] - expect) > 1e-5f * (1 + std::fabs(expect));
  }
  CHECK(bad == 0);
  // Split by columns: one long row whose exp(c) of a 1x1 operand is constant
  // along the row (a row-constant hoist, in blocks narrower than a task).
  const int64_t n = 3 * 32768 + 77;
  const auto r = tl::randn({1, n});
  const auto c = tl::full<float>({1, 1}, 0.5f);
  const tl::Tensor<float> z = r * tl::exp(c);
  const auto rv = r.to_vector(), zv = z.to_vector();
  bad = 0;
  for (int64_t i = 0; i < n; ++i) bad += zv[i] != rv[i] * tl::math::exp(0.5f);
  CHECK(bad == 0);
  tl::set_num_threads(threads);
}

TEST_CASE("operands read transposed run in tiles and match a naive loop (Note [transposed tiles])") {
  const int threads = tl::get_num_threads();
  for (const int nthreads : {1, 2}) {
    tl::set_num_threads(nthreads);
    CAPTURE(nthreads);
    // 260 x 203: float, double and int64 leaves read transposed are staged in
    // tiles of 64 x 64 (four full row tiles and one of 4 rows, three full column
    // tiles and one of 11: a partial packet); a flipped leaf or a 1-byte one sends
    // the expression to the gather's tiles of 256 x 32.
    const int64_t rows = 260, cols = 203;
    const auto src = tl::randn({cols, rows});  // read as src.t(): strides (1, rows)
    const auto row = tl::randn({cols});
    const auto col = tl::randn({rows, 1});
    const auto c = tl::randn({rows, cols});
    const auto sv = src.to_vector(), rv = row.to_vector(), cv = col.to_vector(), ccv = c.to_vector();
    const auto at = [&](int64_t i, int64_t j) { return sv[static_cast<std::size_t>(j * rows + i)]; };

    const tl::Tensor<float> copied = src.t().contiguous();
    // A transposed leaf beside a contiguous one, a buffered row and a row-constant column.
    const tl::Tensor<float> mixed = src.t() * tl::exp(row) + c - tl::sigmoid(col);
    // The transposed leaf flipped along both dimensions (negative strides).
    const tl::Tensor<float> flipped = src.t().flip({0, 1}) * 2;
    const auto copied_v = copied.to_vector(), mixed_v = mixed.to_vector(), flipped_v = flipped.to_vector();
    int bad = 0;
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < cols; ++j) {
        const auto k = static_cast<std::size_t>(i * cols + j);
        bad += copied_v[k] != at(i, j);
        const float expect = at(i, j) * std::exp(rv[static_cast<std::size_t>(j)]) + ccv[k] -
                             1 / (1 + std::exp(-cv[static_cast<std::size_t>(i)]));
        bad += std::fabs(mixed_v[k] - expect) > 1e-5f * (1 + std::fabs(expect));
        bad += flipped_v[k] != at(rows - 1 - i, cols - 1 - j) * 2;
      }
    // In place into a transposed output: a tile run twice would add twice.
    auto target = tl::randn({cols, rows});
    const auto target_before = target.to_vector();
    auto target_t = target.t();  // (rows, cols), strides (1, rows): c is read transposed
    target_t += c;
    const auto target_v = target.to_vector();
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < cols; ++j) {
        const auto k = static_cast<std::size_t>(j * rows + i);
        bad += target_v[k] != target_before[k] + ccv[static_cast<std::size_t>(i * cols + j)];
      }
    CHECK(bad == 0);
    // Leaves read transposed are staged through registers tile by tile (Note
    // [register transposes]): an outer dimension and several tasks (3 x 11 x 2
    // tiles of 64 x 64), and a staged leaf beside a flipped one, which sends the
    // whole expression back to the gather's tiles.
    const auto x3 = tl::randn({3, 70, 700}), y3 = tl::randn({3, 700, 70});
    const tl::Tensor<float> staged = x3.permute({0, 2, 1}) * 2.f + y3;
    const tl::Tensor<float> both = src.t() - src.t().flip({0, 1});
    const auto x3v = x3.to_vector(), y3v = y3.to_vector(), staged_v = staged.to_vector(), both_v = both.to_vector();
    for (int64_t o = 0; o < 3; ++o)
      for (int64_t i = 0; i < 700; ++i)
        for (int64_t j = 0; j < 70; ++j) {
          const auto k = static_cast<std::size_t>((o * 700 + i) * 70 + j);
          bad += staged_v[k] != x3v[static_cast<std::size_t>((o * 70 + j) * 700 + i)] * 2.f + y3v[k];
        }
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < cols; ++j)
        bad += both_v[static_cast<std::size_t>(i * cols + j)] != at(i, j) - at(rows - 1 - i, cols - 1 - j);
    CHECK(bad == 0);
    // A staged result into the first 3 of 4 outer slices: a tile running past
    // its outer index would write into the fourth.
    auto big = tl::zeros<float>({4, 700, 70});
    big.slice(0, 0, 3).copy_(x3.permute({0, 2, 1}) * 2.f + y3);
    const auto big_v = big.to_vector();
    for (int64_t o = 0; o < 4; ++o)
      for (int64_t k = 0; k < 700 * 70; ++k) {
        const auto at_big = static_cast<std::size_t>(o * 700 * 70 + k);
        bad += big_v[at_big] != (o < 3 ? staged_v[at_big] : 0.f);
      }
    // Mixed: a float leaf read transposed promoted against a double, an int32
    // leaf in an int32 expression (both staged), a uint8 leaf (gathered), and
    // an outer index of 8 rows (below 16: gathered).
    const auto dd = tl::randn<double>({rows, cols});
    const auto mixed_types = tl::Tensor<double>(src.t() + dd).to_vector();
    const auto ddv = dd.to_vector();
    const auto i32 = tl::randint<int32_t>(-1000, 1000, {cols, rows});
    const auto i32v = i32.to_vector(), i32t = tl::Tensor<int32_t>(i32.t() * 3).to_vector();
    const auto u8 = tl::randint<uint8_t>(0, 200, {cols, rows});
    const auto u8v = u8.to_vector(), u8t = tl::Tensor<uint8_t>(u8.t() + uint8_t{1}).to_vector();
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < cols; ++j) {
        const auto k = static_cast<std::size_t>(i * cols + j), from = static_cast<std::size_t>(j * rows + i);
        bad += mixed_types[k] != static_cast<double>(sv[from]) + ddv[k];
        bad += i32t[k] != i32v[from] * 3;
        bad += u8t[k] != static_cast<uint8_t>(u8v[from] + 1);
      }
    // (40, 8, 50) with strides (1000, 1, 20): read transposed, 8 rows an outer index.
    const auto short_base = tl::randn({40, 50, 20});
    const auto sr = tl::Tensor<float>(short_base.slice(2, 0, 8).transpose(1, 2) + 1.f).to_vector();
    const auto sbv = short_base.to_vector();
    for (int64_t o = 0; o < 40; ++o)
      for (int64_t i = 0; i < 8; ++i)
        for (int64_t j = 0; j < 50; ++j)
          bad += sr[static_cast<std::size_t>((o * 8 + i) * 50 + j)] !=
                 sbv[static_cast<std::size_t>((o * 50 + j) * 20 + i)] + 1.f;
    CHECK(bad == 0);
    // Doubles, and integers (the scalar loop), through the same tiles.
    const auto d = tl::randn<double>({cols, rows});
    const auto dv = d.to_vector(), dt = tl::Tensor<double>(d.t() + 1.0).to_vector();
    const auto n = tl::randint<int64_t>(-50, 50, {cols, rows});
    const auto nv = n.to_vector(), nt = tl::Tensor<int64_t>(n.t() * 3).to_vector();
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < cols; ++j) {
        const auto k = static_cast<std::size_t>(i * cols + j), from = static_cast<std::size_t>(j * rows + i);
        bad += dt[k] != dv[from] + 1.0;
        bad += nt[k] != nv[from] * 3;
      }
    CHECK(bad == 0);
  }
  tl::set_num_threads(threads);
}

TEST_CASE("expressions stage their transposed leaves when every one can be staged (Note [register transposes])") {
  using tl::cpu::make_loop_plan;
  using tl::cpu::detail::stages_all_transposed;
  const auto x = tl::randn({260, 203}), y = tl::randn({260, 203});
  const auto u = tl::zeros<uint8_t>({260, 203});
  // Output (rows, cols) contiguous; the leaves' strides as given, in tree order.
  const auto plan = [](int64_t rows, int64_t cols, std::vector<tl::Shape> leaves) {
    leaves.insert(leaves.begin(), tl::Shape{cols, 1});
    return make_loop_plan({rows, cols}, leaves);
  };
  const auto e = x + y;
  CHECK(stages_all_transposed(e, plan(260, 203, {{1, 260}, {203, 1}})));          // x.t() + y
  CHECK(stages_all_transposed(e, plan(260, 203, {{1, 260}, {1, 260}})));          // both read transposed
  CHECK_FALSE(stages_all_transposed(e, plan(260, 203, {{1, 260}, {-1, -260}})));  // one flipped
  CHECK_FALSE(stages_all_transposed(tl::cast<float>(u) + y, plan(260, 203, {{1, 260}, {203, 1}})));  // a 1-byte leaf
  CHECK_FALSE(stages_all_transposed(e, plan(8, 203, {{1, 8}, {203, 1}})));                           // 8 rows
}

TEST_CASE("the tiled order is chosen for leaves read across lines along the row, one element apart between rows") {
  using tl::cpu::make_loop_plan;
  using tl::cpu::detail::reads_transposed;
  // Output (rows, cols) contiguous; operand 1 as given.
  const auto plan = [](int64_t rows, int64_t cols, tl::Shape leaf) {
    return make_loop_plan({rows, cols}, {tl::Shape{cols, 1}, std::move(leaf)});
  };
  CHECK(reads_transposed(plan(260, 203, {1, 260})));        // x.t()
  CHECK(reads_transposed(plan(260, 203, {-1, -260})));      // x.t().flip({0, 1})
  CHECK_FALSE(reads_transposed(plan(260, 203, {203, 1})));  // contiguous
  CHECK_FALSE(reads_transposed(plan(260, 203, {0, 1})));    // a broadcast row
  CHECK_FALSE(reads_transposed(plan(260, 203, {1, 0})));    // a broadcast column
  CHECK_FALSE(reads_transposed(plan(260, 203, {1, 8})));    // inner stride within a line
  CHECK_FALSE(reads_transposed(plan(15, 203, {1, 15})));    // too few rows to share lines
  CHECK_FALSE(reads_transposed(plan(260, 32, {1, 260})));   // one tile wide
}

namespace {

// Copies src.permute(dims) (src contiguous) into a fresh contiguous tensor and
// into `out` (a view of the same shape), and checks both bit for bit against
// element-wise indexing of the source.
template <class T>
int check_transposing_copy(const tl::Tensor<T>& src, const tl::Shape& dims, tl::Tensor<T> out) {
  const auto view = src.permute(dims);
  const tl::Tensor<T> fresh = view.contiguous();
  out.copy_(view);
  REQUIRE(src.is_contiguous());
  const auto sv = src.to_vector();
  int bad = 0;
  const int64_t n = view.numel(), nd = view.dim();
  for (int64_t flat = 0; flat < n; ++flat) {
    int64_t rest = flat, from = 0, to_out = 0, to_fresh = 0;
    for (int64_t d = nd - 1; d >= 0; --d) {
      const int64_t index = rest % view.size(d);
      rest /= view.size(d);
      from += index * view.stride(d);
      to_out += index * out.stride(d);
      to_fresh += index * fresh.stride(d);
    }
    const T expect = sv[static_cast<std::size_t>(from)];
    bad += std::memcmp(&fresh.data_ptr()[to_fresh], &expect, sizeof(T)) != 0;
    bad += std::memcmp(&out.data_ptr()[to_out], &expect, sizeof(T)) != 0;
  }
  return bad;
}

}  // namespace

TEST_CASE("plain copies read transposed move through register transposes (Note [register transposes])") {
  const int threads = tl::get_num_threads();
  for (const int nthreads : {1, 2}) {
    tl::set_num_threads(nthreads);
    CAPTURE(nthreads);
    // (300, 70) read transposed: row tiles of 64 (four) and 44, column tiles of
    // 64 and 6: full blocks and partial edges in both directions.
    auto f = tl::randn({70, 300});
    f.index({3, 5}) = std::numeric_limits<float>::quiet_NaN();  // bits, not values, move
    f.index({4, 6}) = -0.f;
    CHECK(check_transposing_copy(f, {1, 0}, tl::empty<float>({300, 70})) == 0);
    CHECK(check_transposing_copy(tl::randn<double>({70, 300}), {1, 0}, tl::empty<double>({300, 70})) == 0);
    CHECK(check_transposing_copy(tl::randint<int32_t>(-1 << 30, 1 << 30, {70, 300}), {1, 0},
                                 tl::empty<int32_t>({300, 70})) == 0);
    CHECK(check_transposing_copy(tl::randint<int64_t>(-(int64_t{1} << 60), int64_t{1} << 60, {70, 300}), {1, 0},
                                 tl::empty<int64_t>({300, 70})) == 0);
    // An outer dimension (NCHW -> NHWC-like, (3, 45, 37) -> (3, 37, 45)): tiles never straddle it.
    CHECK(check_transposing_copy(tl::randn({3, 45, 37}), {0, 2, 1}, tl::empty<float>({3, 37, 45})) == 0);
    CHECK(check_transposing_copy(tl::randn<double>({45, 2, 37}), {1, 2, 0}, tl::empty<double>({2, 37, 45})) == 0);
    // Narrow: NCHW -> NHWC with 16 channels (one tile wide).
    CHECK(check_transposing_copy(tl::randn({2, 16, 9, 11}), {0, 2, 3, 1}, tl::empty<float>({2, 9, 11, 16})) == 0);
    // Several tasks: 32 tiles of 64 x 64 at 8 tiles a task, and, with an outer
    // dimension, task boundaries inside one outer index.
    CHECK(check_transposing_copy(tl::randn({70, 1024}), {1, 0}, tl::empty<float>({1024, 70})) == 0);
    CHECK(check_transposing_copy(tl::randn({3, 70, 700}), {0, 2, 1}, tl::empty<float>({3, 700, 70})) == 0);
    // Into a view: rows of a wider tensor, and rows running backwards in memory
    // (a negative row stride).
    const auto wide = tl::zeros<float>({300, 80});
    CHECK(check_transposing_copy(f, {1, 0}, wide.slice(1, 5, 75)) == 0);
    const auto backwards =
        tl::Tensor<float>::from_storage(tl::zeros<float>({300, 70}).storage(), {300, 70}, {-70, 1}, 299 * 70);
    CHECK(check_transposing_copy(f, {1, 0}, backwards) == 0);
    // An outer dimension of stride 0 (a source expanded along it).
    const auto base = tl::randn({1, 70, 300});
    auto out = tl::empty<float>({4, 300, 70});
    out.copy_(base.expand({4, 70, 300}).permute({0, 2, 1}));
    const auto bv = base.to_vector(), ov = out.to_vector();
    int bad = 0;
    for (int64_t o = 0; o < 4; ++o)
      for (int64_t i = 0; i < 300; ++i)
        for (int64_t j = 0; j < 70; ++j)
          bad += ov[static_cast<std::size_t>((o * 300 + i) * 70 + j)] != bv[static_cast<std::size_t>(j * 300 + i)];
    CHECK(bad == 0);
  }
  tl::set_num_threads(threads);
}

namespace {

// The choices of copy_transposed for element type T; nothing where no register
// kernel exists for it (the body is then never instantiated).
template <class T>
void check_register_transpose_choice() {
  if constexpr (tl::cpu::has_register_transpose<T>) {
    using tl::cpu::make_loop_plan;
    using tl::cpu::detail::copy_transposed;
    constexpr int64_t B = tl::cpu::TransposeBlock<sizeof(T)>::kSize;
    std::vector<T> in(40 * 50), out(40 * 50, T(-1));
    for (std::size_t k = 0; k < in.size(); ++k) in[k] = static_cast<T>(k);
    // Output (rows, cols) with the given strides; the source as given.
    const auto plan = [](int64_t rows, int64_t cols, tl::Shape out_strides, tl::Shape in_strides) {
      return make_loop_plan({rows, cols}, {std::move(out_strides), std::move(in_strides)});
    };
    T* last = in.data() + in.size() - 1;
    CHECK_FALSE(copy_transposed(plan(40, 50, {50, 1}, {-1, -40}), out.data(), last));           // flipped
    CHECK_FALSE(copy_transposed(plan(40, 50, {50, 1}, {2, 80}), out.data(), in.data()));        // rows two apart
    CHECK_FALSE(copy_transposed(plan(40, 50, {50, 1}, {50, 1}), out.data(), in.data()));        // not transposed
    CHECK_FALSE(copy_transposed(plan(40, 50, {1, 40}, {1, 40}), out.data(), in.data()));        // both transposed
    CHECK_FALSE(copy_transposed(plan(B - 1, 50, {50, 1}, {1, B - 1}), out.data(), in.data()));  // under a block of rows
    CHECK_FALSE(copy_transposed(plan(40, B - 1, {B - 1, 1}, {1, 40}), out.data(), in.data()));  // of columns
    CHECK(std::all_of(out.begin(), out.end(), [](T v) { return v == T(-1); }));                 // untouched
    // A narrow copy (NCHW -> NHWC with few channels) is taken: one block wide is enough.
    REQUIRE(copy_transposed(plan(40, B, {B, 1}, {1, 40}), out.data(), in.data()));
    REQUIRE(copy_transposed(plan(40, 50, {50, 1}, {1, 40}), out.data(), in.data()));
    int bad = 0;
    for (int64_t i = 0; i < 40; ++i)
      for (int64_t j = 0; j < 50; ++j)
        bad += out[static_cast<std::size_t>(i * 50 + j)] != in[static_cast<std::size_t>(i + j * 40)];
    CHECK(bad == 0);
  }
}

}  // namespace

TEST_CASE("register transposes are taken only by copies of a source contiguous between rows") {
  // 1- and 2-byte elements never take them; 4- and 8-byte ones do where the
  // target has SIMD registers (SSE2 or AVX).
  static_assert(!tl::cpu::has_register_transpose<bool> && !tl::cpu::has_register_transpose<uint8_t>);
  static_assert(!tl::cpu::has_register_transpose<tl::Half> && !tl::cpu::has_register_transpose<tl::BFloat16>);
  check_register_transpose_choice<float>();
  check_register_transpose_choice<double>();
#if defined(__SSE2__)
  static_assert(tl::cpu::has_register_transpose<float> && tl::cpu::has_register_transpose<int64_t>);
#endif
}

TEST_CASE("hoisted subexpressions are right when the work is split across threads") {
  const int threads = tl::get_num_threads();
  tl::set_num_threads(2);
  const int64_t rows = 256, cols = 515;  // several tasks; blocks of 512 and 3
  const auto a = tl::randn({rows, cols});
  const auto row = tl::randn({cols});
  const auto col = tl::randn({rows, 1});
  g_calls = 0;
  const tl::Tensor<float> y = a + tl::make_map(CountingExp{}, row) * tl::sigmoid(col);
  const int64_t packet = tl::cpu::packet_size<float>;
  CHECK(g_calls.load() == 512 / packet + 1);  // buffered once: a block of 512 and a partial packet of 3
  const auto av = a.to_vector(), rv = row.to_vector(), cv = col.to_vector(), yv = y.to_vector();
  int bad = 0;
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j) {
      const float expect = av[i * cols + j] + std::exp(rv[j]) / (1 + std::exp(-cv[i]));
      bad += std::fabs(yv[i * cols + j] - expect) > 1e-5f * (1 + std::fabs(expect));
    }
  CHECK(bad == 0);
  tl::set_num_threads(threads);
}

TEST_CASE("integer and mixed-type expressions run the scalar loop correctly") {
  const auto i = tl::arange(100000);
  const tl::Tensor<int64_t> z = tl::remainder(i * 3 + 7, 1000);
  const auto zv = z.to_vector();
  bool ok = true;
  for (int64_t k = 0; k < 100000; ++k) ok = ok && zv[k] == (k * 3 + 7) % 1000;
  CHECK(ok);
}
