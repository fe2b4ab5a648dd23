// The CPU GEMM against a double-precision reference loop: odd sizes on both
// sides of every tile and block edge, all transpose combinations, strides
// wider than the matrix, alpha/beta combinations, both micro-kernels, the
// integer path, and results that do not depend on the thread count. Built a
// second time with TENSORLIB_USE_BLAS (test_linalg_blas) when a BLAS exists.

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <type_traits>
#include <vector>

#include <tensorlib/tensorlib.hpp>

namespace {

using tl::cpu::MatrixView;

// A matrix stored with padding: row-major with a row stride wider than the
// row, or column-major (a transposed operand) with a wider column stride.
template <class T>
struct Stored {
  std::vector<T> data;
  int64_t rows, cols, rs, cs;

  Stored(int64_t r, int64_t c, bool column_major, int64_t pad, std::mt19937& rng) : rows(r), cols(c) {
    rs = column_major ? 1 : c + pad;
    cs = column_major ? r + pad : 1;
    data.resize(static_cast<std::size_t>(std::max<int64_t>(1, (column_major ? c : r) * (column_major ? cs : rs))));
    std::uniform_int_distribution<int> dist(-8, 8);
    for (auto& v : data) v = static_cast<T>(std::is_unsigned_v<T> ? dist(rng) + 8 : dist(rng));
    if constexpr (std::is_floating_point_v<T>)
      for (auto& v : data) v = v / T(4);
  }
  MatrixView<const T> view() const { return {data.data(), rows, cols, rs, cs}; }
  MatrixView<T> mut() { return {data.data(), rows, cols, rs, cs}; }
  T at(int64_t i, int64_t j) const { return data[static_cast<std::size_t>(i * rs + j * cs)]; }
};

// Reference: C = alpha * A B + beta * C in double (integers: in the
// unsigned type, wrapping like the GEMM).
template <class T>
std::vector<double> reference(T alpha, const Stored<T>& a, const Stored<T>& b, T beta, const Stored<T>& c) {
  std::vector<double> out(static_cast<std::size_t>(c.rows * c.cols));
  for (int64_t i = 0; i < c.rows; ++i)
    for (int64_t j = 0; j < c.cols; ++j) {
      if constexpr (std::is_floating_point_v<T>) {
        double s = 0;
        for (int64_t p = 0; p < a.cols; ++p) s += double(a.at(i, p)) * double(b.at(p, j));
        out[static_cast<std::size_t>(i * c.cols + j)] =
            double(alpha) * s + (beta == T(0) ? 0.0 : double(beta) * double(c.at(i, j)));
      } else {
        using U = std::make_unsigned_t<T>;
        U s = 0;
        for (int64_t p = 0; p < a.cols; ++p) s = U(s + U(U(a.at(i, p)) * U(b.at(p, j))));
        const U v = U(U(alpha) * s);
        out[static_cast<std::size_t>(i * c.cols + j)] = double(T(beta == T(0) ? v : U(v + U(U(beta) * U(c.at(i, j))))));
      }
    }
  return out;
}

enum class Kernel { Selected, Portable };

template <class T>
void run(Kernel kernel, T alpha, const Stored<T>& a, const Stored<T>& b, T beta, Stored<T>& c) {
  if constexpr (std::is_floating_point_v<T>) {
    if (kernel == Kernel::Portable) {
      tl::cpu::detail::gemm_blocked<T, true>(alpha, a.view(), b.view(), beta, c.mut());
      return;
    }
  }
  tl::cpu::gemm(alpha, a.view(), b.view(), beta, c.mut());
}

// One product, checked element by element (and the padding left untouched).
template <class T>
void check_product(Kernel kernel, int64_t m, int64_t n, int64_t k, bool ta, bool tb, bool tc, T alpha, T beta,
                   std::mt19937& rng) {
  const Stored<T> a(m, k, ta, 3, rng), b(k, n, tb, 5, rng);
  Stored<T> c(m, n, tc, 2, rng);
  if constexpr (std::is_floating_point_v<T>) {
    if (beta == T(0))  // must not be read
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j)
          c.data[static_cast<std::size_t>(i * c.rs + j * c.cs)] = std::numeric_limits<T>::quiet_NaN();
  }
  const std::vector<T> before = c.data;
  const auto expected = reference(alpha, a, b, beta, c);
  run(kernel, alpha, a, b, beta, c);
  INFO("m=" << m << " n=" << n << " k=" << k << " ta=" << ta << " tb=" << tb << " tc=" << tc
            << " alpha=" << double(alpha) << " beta=" << double(beta) << " portable=" << (kernel == Kernel::Portable));
  int bad = 0;
  std::vector<bool> inside(c.data.size(), false);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      const auto idx = static_cast<std::size_t>(i * c.rs + j * c.cs);
      inside[idx] = true;
      const double got = double(c.data[idx]), want = expected[static_cast<std::size_t>(i * n + j)];
      const double tol = std::is_same_v<T, float>    ? 1e-5 * (1 + std::fabs(want)) + 1e-5 * double(k)
                         : std::is_same_v<T, double> ? 1e-12 * (1 + std::fabs(want))
                                                     : 0;
      if (!(std::fabs(got - want) <= tol) && bad++ < 3)
        FAIL_CHECK("C(" << i << ", " << j << ") = " << got << ", expected " << want);
    }
  for (std::size_t i = 0; i < c.data.size(); ++i)
    if (!inside[i] && !(c.data[i] == before[i]) && bad++ < 6) FAIL_CHECK("padding element " << i << " was written");
  CHECK(bad == 0);
}

template <class T>
void sweep(Kernel kernel) {
  std::mt19937 rng(42);
  const int64_t sizes[] = {1, 2, 5, 6, 7, 8, 13, 16, 17, 31, 33, 48, 70};
  const int64_t depths[] = {1, 3, 8, 17, 64, 70};
  const T alphas[] = {T(1), T(2), T(1), T(3)};
  const T betas[] = {T(0), T(1), T(2), T(0)};
  int combo = 0;
  for (int64_t m : sizes)
    for (int64_t n : sizes)
      for (int64_t k : depths) {
        const int t = combo++;
        check_product<T>(kernel, m, n, k, t & 1, t & 2, t & 4, alphas[t % 4], betas[(t / 4) % 4], rng);
      }
  // Every transpose combination on a size that crosses tile edges.
  for (int t = 0; t < 8; ++t) check_product<T>(kernel, 23, 37, 29, t & 1, t & 2, t & 4, T(1), T(1), rng);
}

}  // namespace

TEST_CASE("gemm matches a reference loop over odd sizes, layouts and alpha/beta (float)") {
  sweep<float>(Kernel::Selected);
}
TEST_CASE("gemm matches a reference loop over odd sizes, layouts and alpha/beta (double)") {
  sweep<double>(Kernel::Selected);
}
TEST_CASE("the portable micro-kernel matches the reference too") {
  sweep<float>(Kernel::Portable);
  sweep<double>(Kernel::Portable);
}
TEST_CASE("integer gemm matches the reference, wrapping on overflow") {
  sweep<int64_t>(Kernel::Selected);
  sweep<int32_t>(Kernel::Selected);
  sweep<uint8_t>(Kernel::Selected);
}

TEST_CASE("gemm crosses the KC, MC and NC block edges") {
  std::mt19937 rng(7);
  // k > KC (256) exercises the beta = 1 accumulation over depth slices;
  // m > MC (144 floats, 72 doubles); n > NC (4096 floats, 2048 doubles).
  check_product<float>(Kernel::Selected, 150, 20, 530, false, true, false, 1.f, 0.5f, rng);
  check_product<double>(Kernel::Selected, 150, 20, 530, true, false, true, 2.0, 1.0, rng);
  check_product<float>(Kernel::Selected, 7, 4100, 3, false, false, false, 1.f, 0.f, rng);
  check_product<double>(Kernel::Selected, 7, 2050, 3, true, true, false, 1.0, 0.0, rng);
  check_product<float>(Kernel::Portable, 150, 20, 300, true, false, false, 1.f, 1.f, rng);
}

TEST_CASE("gemm with empty or zero-depth matrices scales C by beta") {
  std::mt19937 rng(3);
  for (float beta : {0.f, 1.f, 2.f}) {
    check_product<float>(Kernel::Selected, 4, 5, 0, false, false, false, 1.f, beta, rng);
    check_product<float>(Kernel::Selected, 0, 5, 3, false, false, false, 1.f, beta, rng);
    check_product<float>(Kernel::Selected, 4, 0, 3, false, false, false, 1.f, beta, rng);
    check_product<float>(Kernel::Selected, 4, 5, 6, false, false, false, 0.f, beta, rng);
  }
}

TEST_CASE("stride-0 operands (a broadcast row or column) are read correctly") {
  const std::vector<float> row{1, 2, 3};
  const MatrixView<const float> a{row.data(), 4, 3, 0, 1};  // four copies of the row
  const std::vector<float> eye{1, 0, 0, 0, 1, 0, 0, 0, 1};
  const MatrixView<const float> b{eye.data(), 3, 3, 3, 1};
  std::vector<float> c(12, -1.f);
  tl::cpu::gemm(1.f, a, b, 0.f, MatrixView<float>{c.data(), 4, 3, 3, 1});
  CHECK(c == std::vector<float>{1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2, 3});
}

TEST_CASE("gemm results do not depend on the thread count") {
  const int saved = tl::get_num_threads();
  std::mt19937 rng(11);
  const Stored<float> a(257, 513, false, 0, rng), b(513, 300, true, 0, rng);
  std::vector<std::vector<float>> results;
  for (int threads : {1, 2, 3, 4}) {
    tl::set_num_threads(threads);
    Stored<float> c(257, 300, false, 0, rng);
    tl::cpu::gemm(1.f, a.view(), b.view(), 0.f, c.mut());
    results.push_back(c.data);
  }
  tl::set_num_threads(saved);
  for (std::size_t i = 1; i < results.size(); ++i) CHECK(results[i] == results[0]);
  // The same through matmul on tensors, batched and not.
  auto x = tl::randn({3, 70, 90}), y = tl::randn({90, 50});
  tl::set_num_threads(1);
  const auto r1 = tl::matmul(x, y).to_vector(), b1 = tl::bmm(x, y.expand({3, 90, 50})).to_vector();
  tl::set_num_threads(2);
  const auto r2 = tl::matmul(x, y).to_vector(), b2 = tl::bmm(x, y.expand({3, 90, 50})).to_vector();
  tl::set_num_threads(saved);
  CHECK(r1 == r2);
  CHECK(b1 == b2);
}

#if defined(TENSORLIB_USE_BLAS)
TEST_CASE("with TENSORLIB_USE_BLAS, float and double go through CBLAS where the layout allows") {
  std::mt19937 rng(5);
  const Stored<float> a(9, 11, false, 2, rng), b(11, 7, true, 1, rng);
  Stored<float> c(9, 7, false, 0, rng);
  CHECK(tl::cpu::detail::blas_gemm(1.f, a.view(), b.view(), 0.f, c.mut()));
  Stored<double> cd(9, 7, true, 3, rng);
  const Stored<double> ad(9, 11, true, 0, rng), bd(11, 7, false, 4, rng);
  CHECK(tl::cpu::detail::blas_gemm(1.0, ad.view(), bd.view(), 0.5, cd.mut()));
  // No unit stride: our own kernel takes over.
  const std::vector<float> sparse(64, 1.f);
  CHECK_FALSE(tl::cpu::detail::blas_gemm(1.f, MatrixView<const float>{sparse.data(), 3, 3, 6, 2},
                                         MatrixView<const float>{sparse.data(), 3, 3, 3, 1}, 0.f, c.mut()));
}
#endif
