// Spectral ops (tl::fft) and window functions against PyTorch
// (tests/fixtures/fft.txt, made by tests/fixtures/generate_fft.py) on
// contiguous, transposed and strided layouts of every input; algebraic laws
// (inversion, Parseval, unitarity of "ortho", n-D = 1-D per dimension)
// against a direct DFT for lengths the fixtures do not cover; the error paths.
//
// Tolerances: results are compared with |actual - expected| <= tol * max|expected|
// over the tensor (a spectrum's small values carry the error of its large
// ones), tol = 2e-6 for float and 2e-14 for double. tensorlib computes in
// double and rounds once; PyTorch's float transforms round at every stage.

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <map>
#include <numbers>
#include <optional>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "fixtures.hpp"

namespace {

using fixtures::arg;
using fixtures::Args;
using fixtures::parse_args;

std::optional<int64_t> opt_int(const Args& args, const std::string& key) {
  const std::string& v = arg(args, key);
  if (v == "none") return std::nullopt;
  return std::stoll(v);
}

/// A comma-separated list; `none` is the empty list (the ops' "not given").
tl::Shape list_arg(const Args& args, const std::string& key) {
  tl::Shape out;
  const std::string& v = arg(args, key);
  if (v == "none") return out;
  std::istringstream in(v);
  for (std::string s; std::getline(in, s, ',');) out.push_back(std::stoll(s));
  return out;
}

std::string norm_arg(const Args& args) {
  const std::string& v = arg(args, "norm");
  return v == "none" ? "backward" : v;
}

template <class T>
constexpr double tolerance() {
  return std::is_same_v<T, float> ? 2e-6 : 2e-14;
}

/// Same shape, and every element within tol * max(1, max|expected|); NaN matches NaN.
template <class T>
void check_spectrum(const tl::Tensor<T>& actual, const tl::Tensor<T>& expected, const std::string& what,
                    double tol = tolerance<T>()) {
  REQUIRE_MESSAGE(actual.defined(), what << ": result is undefined");
  REQUIRE_MESSAGE(actual.sizes() == expected.sizes(),
                  what << ": shape " << actual.sizes() << ", expected " << expected.sizes());
  const auto a = actual.to_vector();
  const auto e = expected.to_vector();
  double scale = 0;
  for (T v : e) scale = std::max(scale, std::fabs(static_cast<double>(v)));
  const double bound = tol * std::max(scale, 1.0);
  int failures = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const double diff = std::fabs(static_cast<double>(a[i]) - static_cast<double>(e[i]));
    const bool ok = diff <= bound || (std::isnan(a[i]) && std::isnan(e[i]));
    if (!ok && failures++ < 3)
      FAIL_CHECK(what << ": element " << i << " is " << a[i] << ", expected " << e[i] << " (bound " << bound << ")");
  }
  CHECK_MESSAGE(failures == 0, what << ": " << failures << " of " << a.size() << " elements differ");
}

/// The same values in three layouts: as given, transposed storage, and a
/// stride-2 slice. `pairs`: the last dimension holds (re, im) and keeps stride 1.
template <class T>
std::vector<std::pair<std::string, tl::Tensor<T>>> layouts(const tl::Tensor<T>& x, bool pairs) {
  std::vector<std::pair<std::string, tl::Tensor<T>>> out{{"contiguous", x}};
  const int64_t nd = x.dim() - (pairs ? 1 : 0);
  if (nd >= 2) out.emplace_back("transposed", x.transpose(0, nd - 1).contiguous().transpose(0, nd - 1));
  if (nd >= 1) {
    const int64_t d = pairs ? 0 : nd - 1;  // a pair dimension must stay contiguous
    tl::Shape big = x.sizes();
    big[d] *= 2;
    auto strided = tl::zeros<T>(big).slice(d, tl::None, tl::None, 2);
    strided.copy_(x);
    out.emplace_back("strided", strided);
  }
  return out;
}

template <class F>
void with_dtype(const std::string& dtype, F&& f) {
  if (dtype == "float32") return f(std::type_identity<float>{});
  if (dtype == "float64") return f(std::type_identity<double>{});
  FAIL("unknown fixture dtype " << dtype);
}

/// Runs every fixture case whose op satisfies `wanted`: check(case, args, T tag).
template <class Wanted, class Check>
int run_cases(Wanted&& wanted, Check&& check) {
  int cases = 0;
  for (const auto& [name, c] : fixtures::load("fft.txt").cases()) {
    const Args args = parse_args(c.text("args"));
    if (!wanted(arg(args, "op"))) continue;
    ++cases;
    with_dtype(arg(args, "dtype"), [&, &name = name, &c = c](auto type) { check(name, c, args, type); });
  }
  return cases;
}

/// A 1-D op by name on complex (pairs) or real input; complex results as pairs.
template <class T>
tl::Tensor<T> run_1d(const std::string& op, const tl::Tensor<T>& x, bool is_complex, std::optional<int64_t> n,
                     int64_t dim, const std::string& norm) {
  namespace F = tl::fft;
  if (is_complex) {
    const auto z = tl::view_as_complex(x);
    if (op == "fft") return tl::view_as_real(F::fft(z, n, dim, norm));
    if (op == "ifft") return tl::view_as_real(F::ifft(z, n, dim, norm));
    if (op == "irfft") return F::irfft(z, n, dim, norm);
    if (op == "hfft") return F::hfft(z, n, dim, norm);
  } else {
    if (op == "fft") return tl::view_as_real(F::fft(x, n, dim, norm));
    if (op == "ifft") return tl::view_as_real(F::ifft(x, n, dim, norm));
    if (op == "rfft") return tl::view_as_real(F::rfft(x, n, dim, norm));
    if (op == "ihfft") return tl::view_as_real(F::ihfft(x, n, dim, norm));
  }
  FAIL("no 1-D op " << op << " for complex=" << is_complex);
  return {};
}

/// An n-D op by name. The 2-D ops are called with their default dim when the
/// fixture gives none, so that default is tested too.
template <class T>
tl::Tensor<T> run_nd(const std::string& op, const tl::Tensor<T>& x, bool is_complex, const tl::Shape& s,
                     const tl::Shape& dim, const std::string& norm) {
  namespace F = tl::fft;
  const tl::DimList dims2 = dim.empty() ? tl::DimList{-2, -1} : tl::DimList(dim);
  if (is_complex) {
    const auto z = tl::view_as_complex(x);
    if (op == "fft2") return tl::view_as_real(F::fft2(z, s, dims2, norm));
    if (op == "ifft2") return tl::view_as_real(F::ifft2(z, s, dims2, norm));
    if (op == "irfft2") return F::irfft2(z, s, dims2, norm);
    if (op == "fftn") return tl::view_as_real(F::fftn(z, s, dim, norm));
    if (op == "ifftn") return tl::view_as_real(F::ifftn(z, s, dim, norm));
    if (op == "irfftn") return F::irfftn(z, s, dim, norm);
  } else {
    if (op == "fft2") return tl::view_as_real(dim.empty() && s.empty() ? F::fft2(x) : F::fft2(x, s, dims2, norm));
    if (op == "ifft2") return tl::view_as_real(F::ifft2(x, s, dims2, norm));
    if (op == "rfft2") return tl::view_as_real(F::rfft2(x, s, dims2, norm));
    if (op == "fftn") return tl::view_as_real(F::fftn(x, s, dim, norm));
    if (op == "ifftn") return tl::view_as_real(F::ifftn(x, s, dim, norm));
    if (op == "rfftn") return tl::view_as_real(F::rfftn(x, s, dim, norm));
  }
  FAIL("no n-D op " << op << " for complex=" << is_complex);
  return {};
}

bool is_1d(const std::string& op) {
  return op == "fft" || op == "ifft" || op == "rfft" || op == "irfft" || op == "hfft" || op == "ihfft";
}

bool is_nd(const std::string& op) { return op.ends_with("fft2") || op.ends_with("fftn"); }

/// Complex test data: pairs of shape `sizes + [2]`, values in [-1, 1).
template <class T>
tl::Tensor<T> random_pairs(const tl::Shape& sizes, uint64_t seed) {
  tl::Generator gen(seed);
  tl::Shape s = sizes;
  s.push_back(2);
  return tl::rand<T>(s, gen) * T(2) - T(1);
}

/// The DFT by its definition, in long double, for reference.
std::vector<std::complex<long double>> naive_dft(const std::vector<std::complex<double>>& x, bool inverse) {
  const auto n = static_cast<int64_t>(x.size());
  std::vector<std::complex<long double>> roots(x.size()), out(x.size());
  for (int64_t k = 0; k < n; ++k) {
    const long double angle = (inverse ? 2 : -2) * std::numbers::pi_v<long double> * static_cast<long double>(k) /
                              static_cast<long double>(n);
    roots[static_cast<std::size_t>(k)] = {std::cos(angle), std::sin(angle)};
  }
  for (int64_t j = 0; j < n; ++j) {
    std::complex<long double> sum = 0;
    for (int64_t k = 0; k < n; ++k)
      sum += std::complex<long double>(x[static_cast<std::size_t>(k)]) * roots[static_cast<std::size_t>((j * k) % n)];
    out[static_cast<std::size_t>(j)] = sum;
  }
  return out;
}

}  // namespace

TEST_CASE("1-D transforms match PyTorch: sizes, n, norms, dims, batches, empty batches, layouts") {
  const int n = run_cases(is_1d, [](const std::string& name, const fixtures::Case& c, const Args& a, auto type) {
    using T = typename decltype(type)::type;
    const bool is_complex = arg(a, "complex") == "1";
    const auto expected = c.get<T>("y");
    for (const auto& [layout, x] : layouts(c.get<T>("x"), is_complex)) {
      const auto y = run_1d<T>(arg(a, "op"), x, is_complex, opt_int(a, "n"), std::stoll(arg(a, "dim")), norm_arg(a));
      check_spectrum(y, expected, name + " (" + layout + ")");
      CHECK(y.is_contiguous());
    }
  });
  CHECK(n == 504);
}

TEST_CASE("n-D transforms match PyTorch: s, dim, norms, empty batches, layouts") {
  const int n = run_cases(is_nd, [](const std::string& name, const fixtures::Case& c, const Args& a, auto type) {
    using T = typename decltype(type)::type;
    const bool is_complex = arg(a, "complex") == "1";
    const auto expected = c.get<T>("y");
    for (const auto& [layout, x] : layouts(c.get<T>("x"), is_complex)) {
      const auto y = run_nd<T>(arg(a, "op"), x, is_complex, list_arg(a, "s"), list_arg(a, "dim"), norm_arg(a));
      check_spectrum(y, expected, name + " (" + layout + ")");
    }
  });
  CHECK(n == 224);
}

TEST_CASE("fftfreq, rfftfreq, fftshift and ifftshift match PyTorch") {
  const auto wanted = [](const std::string& op) { return op.ends_with("freq") || op.ends_with("shift"); };
  const int n = run_cases(wanted, [](const std::string& name, const fixtures::Case& c, const Args& a, auto type) {
    using T = typename decltype(type)::type;
    const std::string& op = arg(a, "op");
    const auto expected = c.get<T>("y");
    if (op.ends_with("freq")) {
      const int64_t len = std::stoll(arg(a, "n"));
      const double d = std::stod(arg(a, "d"));
      const auto y = op == "fftfreq" ? tl::fft::fftfreq<T>(len, d) : tl::fft::rfftfreq<T>(len, d);
      check_spectrum(y, expected, name, std::is_same_v<T, float> ? 1e-7 : 1e-15);
      return;
    }
    const bool is_complex = arg(a, "complex") == "1";
    const tl::Shape dim = list_arg(a, "dim");
    for (const auto& [layout, x] : layouts(c.get<T>("x"), is_complex)) {
      tl::Tensor<T> y;
      if (is_complex) {
        const auto z = tl::view_as_complex(x);
        y = tl::view_as_real(op == "fftshift" ? tl::fft::fftshift(z, dim) : tl::fft::ifftshift(z, dim));
      } else {
        y = op == "fftshift" ? tl::fft::fftshift(x, dim) : tl::fft::ifftshift(x, dim);
      }
      check_spectrum(y, expected, name + " (" + layout + ")", 0.0);  // a permutation: exact
    }
  });
  CHECK(n == 2 * 36 + 2 * 16);
}

TEST_CASE("window functions match PyTorch") {
  const int n = run_cases([](const std::string& op) { return op.ends_with("_window"); },
                          [](const std::string& name, const fixtures::Case& c, const Args& a, auto type) {
                            using T = typename decltype(type)::type;
                            const std::string& op = arg(a, "op");
                            const int64_t len = std::stoll(arg(a, "length"));
                            const bool periodic = arg(a, "periodic") == "1";
                            tl::Tensor<T> y;
                            if (op == "hann_window") y = tl::hann_window<T>(len, periodic);
                            if (op == "hamming_window")
                              y = a.count("alpha") ? tl::hamming_window<T>(len, periodic, std::stod(arg(a, "alpha")),
                                                                           std::stod(arg(a, "beta")))
                                                   : tl::hamming_window<T>(len, periodic);
                            if (op == "blackman_window") y = tl::blackman_window<T>(len, periodic);
                            if (op == "bartlett_window") y = tl::bartlett_window<T>(len, periodic);
                            if (op == "kaiser_window")
                              y = a.count("beta") ? tl::kaiser_window<T>(len, periodic, std::stod(arg(a, "beta")))
                                                  : tl::kaiser_window<T>(len, periodic);
                            // PyTorch computes float windows in float: a few ulp apart.
                            check_spectrum(y, c.get<T>("y"), name, std::is_same_v<T, float> ? 1e-6 : 1e-14);
                          });
  CHECK(n == 168);
}

TEST_CASE("transforms agree with the DFT's definition for lengths beyond the fixtures") {
  // Mixed radix (18, 169 = 13^2, 420 = 4 3 5 7, 3072 = 4^5 3; 31 and 61 as one
  // direct sum, 122 = 2 61 with the largest radix), Bluestein (67, the first
  // prime past the largest radix, 127, 257, 1009) and radix 2 (16, 2048).
  for (int64_t len : {16, 18, 31, 61, 67, 122, 127, 169, 257, 420, 1009, 2048, 3 * 1024}) {
    CAPTURE(len);
    const auto pairs = random_pairs<double>({len}, static_cast<uint64_t>(len));
    const auto x = tl::view_as_complex(pairs).to_vector();
    for (bool inverse : {false, true}) {
      const auto y = (inverse ? tl::fft::ifft(tl::view_as_complex(pairs), std::nullopt, -1, "forward")
                              : tl::fft::fft(tl::view_as_complex(pairs)))
                         .to_vector();
      const auto ref = naive_dft(x, inverse);
      long double err = 0, scale = 0;
      for (std::size_t j = 0; j < ref.size(); ++j) {
        err = std::max(err, std::abs(std::complex<long double>(y[j]) - ref[j]));
        scale = std::max(scale, std::abs(ref[j]));
      }
      CHECK(static_cast<double>(err / scale) < 1e-14);
    }
  }
}

TEST_CASE("laws: inversion, Parseval, ortho is unitary, irfft(rfft(x), n) == x") {
  for (int64_t len : {1, 2, 3, 8, 12, 17, 64, 97, 100, 1000, 1024}) {
    CAPTURE(len);
    const auto z = tl::view_as_complex(random_pairs<double>({3, len}, static_cast<uint64_t>(len) + 7));
    // ifft(fft(x)) == x, in every norm.
    for (const char* norm : {"backward", "forward", "ortho"}) {
      const auto back = tl::fft::ifft(tl::fft::fft(z, std::nullopt, -1, norm), std::nullopt, -1, norm);
      check_spectrum(tl::view_as_real(back), z.pairs(), std::string("ifft(fft(x)) ") + norm, 1e-13);
    }
    // Parseval: sum |x|^2 = sum |X|^2 / n.
    const auto spectrum = tl::fft::fft(z);
    const double energy_x = tl::Tensor<double>(tl::abs(z) * tl::abs(z)).sum().item();
    const double energy_f = tl::Tensor<double>(tl::abs(spectrum) * tl::abs(spectrum)).sum().item();
    CHECK(energy_f / static_cast<double>(len) == doctest::Approx(energy_x).epsilon(1e-12));
    // "ortho" preserves the norm.
    const auto ortho = tl::fft::fft(z, std::nullopt, -1, "ortho");
    CHECK(tl::Tensor<double>(tl::abs(ortho) * tl::abs(ortho)).sum().item() == doctest::Approx(energy_x).epsilon(1e-12));
    // irfft(rfft(x), n) == x for real x of even and odd length.
    const auto real = z.real().contiguous();
    check_spectrum(tl::fft::irfft(tl::fft::rfft(real), len), real, "irfft(rfft(x), n)", 1e-13);
    // hfft(ihfft(x), n) == x.
    check_spectrum(tl::fft::hfft(tl::fft::ihfft(real), len), real, "hfft(ihfft(x), n)", 1e-13);
    // The real-input transform equals the complex one with zero imaginary parts.
    const auto as_complex = tl::complex(real, tl::zeros_like(real));
    check_spectrum(tl::view_as_real(tl::fft::fft(real)), tl::view_as_real(tl::fft::fft(as_complex)),
                   "fft(real) == fft(complex(real, 0))", 1e-14);
  }
  // Float: inversion within float rounding, even for 1000 (Bluestein).
  const auto zf = tl::view_as_complex(random_pairs<float>({2, 1000}, 3));
  check_spectrum(tl::view_as_real(tl::fft::ifft(tl::fft::fft(zf))), zf.pairs(), "float ifft(fft(x))", 1e-6);
}

TEST_CASE("fftn is the 1-D transform applied along each dimension, rfftn/irfftn invert") {
  const auto z = tl::view_as_complex(random_pairs<double>({4, 6, 5}, 11));
  const auto step = tl::fft::fft(tl::fft::fft(tl::fft::fft(z, std::nullopt, 0), std::nullopt, 1), std::nullopt, 2);
  check_spectrum(tl::view_as_real(tl::fft::fftn(z)), tl::view_as_real(step), "fftn == fft per dim", 1e-14);
  const auto real = z.real().contiguous();
  for (int64_t last : {5, 4}) {  // odd and even last lengths; 4 cuts x first
    const auto y = tl::fft::irfftn(tl::fft::rfftn(real, {-1, -1, last}), {-1, -1, last});
    check_spectrum(y, real.narrow(2, 0, last).contiguous(), "irfftn(rfftn(x, s), s), last " + std::to_string(last),
                   1e-13);
  }
}

TEST_CASE("layouts the fixtures do not cover: expanded inputs, zero-length lines, any thread count") {
  // A stride-0 dimension is read in place like any other.
  const auto row = tl::rand<double>({1, 12});
  const auto expanded = row.expand({3, 12});
  REQUIRE(expanded.stride(0) == 0);
  check_spectrum(tl::view_as_real(tl::fft::rfft(expanded)), tl::view_as_real(tl::fft::rfft(expanded.contiguous())),
                 "rfft of an expanded tensor", 0.0);
  check_spectrum(tl::view_as_real(tl::fft::fft(expanded, std::nullopt, 0)),
                 tl::view_as_real(tl::fft::fft(expanded.contiguous(), std::nullopt, 0)), "fft along a stride-0 dim",
                 0.0);
  // Zero-length lines padded to n give zeros (PyTorch does the same).
  const auto padded = tl::fft::fft(tl::zeros<float>({3, 0}), 4);
  CHECK(padded.sizes() == tl::Shape{3, 4});
  check_spectrum(tl::view_as_real(padded), tl::zeros<float>({3, 4, 2}), "fft of empty lines, n = 4", 0.0);
  CHECK(tl::fft::irfft(tl::view_as_complex(tl::zeros<float>({2, 0, 2})), 5).sizes() == tl::Shape{2, 5});
  // fftn of a 0-d tensor transforms nothing and returns a new tensor.
  const auto scalar = tl::view_as_complex(tl::tensor<double>({2.0, -1.0}).reshape({2}));
  const auto same = tl::fft::fftn(scalar);
  CHECK(same.to_vector() == scalar.to_vector());
  CHECK(!tl::view_as_real(same).is_alias_of(scalar.pairs()));
  CHECK(tl::fft::fftn(tl::full<double>({}, 3.0)).to_vector() == std::vector<std::complex<double>>{{3.0, 0.0}});
  // Lines are independent, so the thread count cannot change a result.
  const auto z = tl::view_as_complex(random_pairs<float>({64, 2000}, 5));  // 2000 lines: several tasks
  const int threads = tl::get_num_threads();
  tl::set_num_threads(1);
  const auto serial = tl::view_as_real(tl::fft::fft(z, std::nullopt, 0));
  tl::set_num_threads(std::max(threads, 3));
  const auto parallel = tl::view_as_real(tl::fft::fft(z, std::nullopt, 0));
  tl::set_num_threads(threads);
  CHECK(serial.to_vector() == parallel.to_vector());
}

TEST_CASE("real inputs may be expressions or integer tensors (converted to float, as in PyTorch)") {
  const auto x = tl::rand<float>({4, 10});
  const auto w = tl::hann_window(10);
  const tl::Tensor<float> product = x * w;
  check_spectrum(tl::view_as_real(tl::fft::rfft(x * w)), tl::view_as_real(tl::fft::rfft(product)),
                 "rfft of an expression", 0.0);
  check_spectrum(tl::view_as_real(tl::fft::fftn(x * w)), tl::view_as_real(tl::fft::fftn(product)),
                 "fftn of an expression", 0.0);
  check_spectrum(tl::fft::fftshift(x * w), tl::fft::fftshift(product), "fftshift of an expression", 0.0);
  const auto ints = tl::arange<int64_t>(0, 12).reshape({3, 4});
  static_assert(std::is_same_v<decltype(tl::fft::fft(ints)), tl::ComplexTensor<float>>);
  check_spectrum(tl::view_as_real(tl::fft::fft(ints)), tl::view_as_real(tl::fft::fft(ints.to<float>())), "fft of int64",
                 0.0);
  check_spectrum(tl::view_as_real(tl::fft::rfft2(ints)), tl::view_as_real(tl::fft::rfft2(ints.to<float>())),
                 "rfft2 of int64", 0.0);
  // torch.fft.ifftshift(torch.arange(12).reshape(3, 4)).flatten()
  CHECK(tl::fft::ifftshift(ints).to_vector() == std::vector<int64_t>{6, 7, 4, 5, 10, 11, 8, 9, 2, 3, 0, 1});
}

TEST_CASE("ComplexTensor views and helpers") {
  auto pairs = tl::tensor<double>({{1, 2}, {3, -4}, {0, 1}});
  const auto z = tl::view_as_complex(pairs);
  CHECK(z.sizes() == tl::Shape{3});
  CHECK(z.dim() == 1);
  CHECK(z.numel() == 3);
  CHECK(tl::view_as_real(z).is_alias_of(pairs));
  CHECK(z.real().to_vector() == std::vector<double>{1, 3, 0});
  CHECK(z.imag().to_vector() == std::vector<double>{2, -4, 1});
  CHECK(z.to_vector()[1] == std::complex<double>(3, -4));
  CHECK(tl::abs(z).to_vector()[1] == 5.0);
  CHECK(tl::angle(z).to_vector()[2] == doctest::Approx(std::numbers::pi / 2));
  CHECK(tl::conj(z).imag().to_vector() == std::vector<double>{-2, 4, -1});
  pairs.index({1, 0}) = 7.0;  // a view: writes show through
  CHECK(z.real().to_vector()[1] == 7.0);
  CHECK_THROWS_WITH_AS(tl::view_as_complex(tl::zeros<float>({2, 3})),
                       "view_as_complex: Tensor must have a last dimension of size 2, got shape [2, 3]",
                       tl::ShapeError);
  CHECK_THROWS_WITH_AS(tl::view_as_complex(tl::zeros<float>({2, 2}).t()),
                       "view_as_complex: Tensor must have a last dimension with stride 1, got strides [1, 2]",
                       tl::ShapeError);
  CHECK_THROWS_AS(tl::complex(tl::zeros<float>({2}), tl::zeros<float>({3})), tl::ShapeError);
}

TEST_CASE("spectral op errors name the op and the bad argument") {
  namespace F = tl::fft;
  const auto x = tl::zeros<float>({4, 5});
  const auto z = tl::view_as_complex(tl::zeros<float>({4, 5, 2}));
  CHECK_THROWS_WITH_AS(F::fft(x, 0), "fft: Invalid number of data points (0) specified", tl::ValueError);
  CHECK_THROWS_WITH_AS(F::ifft(z, -1), "ifft: Invalid number of data points (-1) specified", tl::ValueError);
  CHECK_THROWS_WITH_AS(F::rfft(x, 0), "rfft: Invalid number of data points (0) specified", tl::ValueError);
  CHECK_THROWS_WITH_AS(F::fft(x, std::nullopt, 2),
                       "fft: dimension out of range (expected to be in range of [-2, 1], but got 2)", tl::IndexError);
  CHECK_THROWS_WITH_AS(F::irfft(z, std::nullopt, -3),
                       "irfft: dimension out of range (expected to be in range of [-2, 1], but got -3)",
                       tl::IndexError);
  CHECK_THROWS_WITH_AS(F::fft(x, std::nullopt, -1, "bad"),
                       "fft: Invalid normalization mode: \"bad\" (expected \"backward\", \"forward\" or \"ortho\")",
                       tl::ValueError);
  CHECK_THROWS_AS(F::fftn(z, {}, {}, "Ortho"), tl::ValueError);
  // irfft / hfft output length 2 (size - 1) = 0 from a one-element spectrum, or n <= 0.
  const auto one = tl::view_as_complex(tl::zeros<double>({1, 2}));
  CHECK_THROWS_WITH_AS(F::irfft(one), "irfft: Invalid number of data points (0) specified", tl::ValueError);
  CHECK_THROWS_WITH_AS(F::hfft(one), "hfft: Invalid number of data points (0) specified", tl::ValueError);
  CHECK_THROWS_WITH_AS(F::irfft(z, 0), "irfft: Invalid number of data points (0) specified", tl::ValueError);
  CHECK_THROWS_WITH_AS(F::irfftn(tl::view_as_complex(tl::zeros<double>({2, 1, 2}))),
                       "irfftn: Invalid number of data points (0) specified", tl::ValueError);
  // A transformed dimension of size 0 without n.
  CHECK_THROWS_WITH_AS(F::fft(tl::zeros<float>({3, 0})), "fft: Invalid number of data points (0) specified",
                       tl::ValueError);
  CHECK_THROWS_WITH_AS(F::fft(tl::zeros<float>({})),
                       "fft: expected a tensor with at least one dimension, got a 0-d tensor", tl::IndexError);
  // n-D argument checks.
  CHECK_THROWS_WITH_AS(F::fftn(x, {2, 3, 4}), "fftn: Got shape with 3 values but input tensor only has 2 dimensions.",
                       tl::ValueError);
  CHECK_THROWS_WITH_AS(F::fftn(x, {2, 3}, {0}),
                       "fftn: When given, dim and shape arguments must have the same length, got s = [2, 3] and "
                       "dim = [0]",
                       tl::ValueError);
  CHECK_THROWS_WITH_AS(F::fftn(x, {}, {0, -2}), "fftn: FFT dims must be unique, got [0, -2]", tl::ValueError);
  CHECK_THROWS_WITH_AS(F::rfft2(x, {0, 3}), "rfft2: Invalid number of data points (0) specified", tl::ValueError);
  CHECK_THROWS_WITH_AS(F::ifft2(z, {}, {0, 2}),
                       "ifft2: dimension out of range (expected to be in range of [-2, 1], but got 2)", tl::IndexError);
  CHECK_THROWS_WITH_AS(F::rfftn(tl::zeros<float>({})), "rfftn: must transform at least one axis", tl::ValueError);
  CHECK_THROWS_WITH_AS(F::fftshift(x, {3}),
                       "fftshift: dimension out of range (expected to be in range of [-2, 1], but got 3)",
                       tl::IndexError);
  CHECK_THROWS_WITH_AS(F::fftfreq(-1), "fftfreq: negative dimension -1 in size [-1]", tl::ValueError);
  // A 0-d input has no dimension 0 (PyTorch's errors): its hidden (re, im)
  // pair is neither transformed, rolled nor reported as a size.
  const auto c0 = tl::view_as_complex(tl::tensor<double>({1.0, 2.0}));
  CHECK_THROWS_WITH_AS(F::fftn(c0, {}, {0}), "fftn: Invalid number of data points (0) specified", tl::ValueError);
  CHECK_THROWS_WITH_AS(F::fftn(tl::full<double>({}, 3.0), {}, {-1}),
                       "fftn: Invalid number of data points (0) specified", tl::ValueError);
  CHECK_THROWS_WITH_AS(F::fftshift(c0, {0}), "fftshift: dimension specified as 0 but tensor has no dimensions",
                       tl::IndexError);
  CHECK_THROWS_WITH_AS(F::ifftshift(tl::full<double>({}, 3.0), {-1}),
                       "ifftshift: dimension specified as -1 but tensor has no dimensions", tl::IndexError);
  CHECK_THROWS_WITH_AS((void)c0.size(0), "size: dimension specified as 0 but tensor has no dimensions", tl::IndexError);
  CHECK(c0.dim() == 0);
}

TEST_CASE("window errors: negative window_length") {
  CHECK_THROWS_WITH_AS(tl::hann_window(-1), "hann_window requires non-negative window_length, got window_length=-1",
                       tl::ValueError);
  CHECK_THROWS_WITH_AS(tl::hamming_window<double>(-2),
                       "hamming_window requires non-negative window_length, got window_length=-2", tl::ValueError);
  CHECK_THROWS_WITH_AS(tl::blackman_window(-1),
                       "blackman_window requires non-negative window_length, got window_length=-1", tl::ValueError);
  CHECK_THROWS_WITH_AS(tl::bartlett_window(-1),
                       "bartlett_window requires non-negative window_length, got window_length=-1", tl::ValueError);
  CHECK_THROWS_WITH_AS(tl::kaiser_window(-1), "kaiser_window requires non-negative window_length, got window_length=-1",
                       tl::ValueError);
}

TEST_CASE("polar and isreal against PyTorch") {
  const auto& f = fixtures::load("aliases.txt");
  const auto& p = f["polar"];
  const auto z = tl::polar(p.get<float>("abs"), p.get<float>("angle"));
  fixtures::check_close(tl::view_as_real(z).contiguous(), p.get<float>("r"), 1e-6, 1e-7, "polar");
  const auto& r = f["isreal"];
  CHECK(tl::isreal(tl::ComplexTensor<float>(r.get<float>("z"))).to_vector() == r.get<bool>("r").to_vector());
  CHECK(tl::isreal(tl::arange<float>(0, 3)).to_vector() == std::vector<bool>{true, true, true});
}
