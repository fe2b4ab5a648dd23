// The linear algebra decompositions against PyTorch 1.13
// (tests/fixtures/decomp.txt, made by generate_decomp.py): float and double,
// batches (broadcast in solve and lstsq), empty and 1x1 matrices,
// transposed and sliced inputs, ill-conditioned and rank-deficient ones;
// then every error path.
//
// Tolerances: with eps the element type's epsilon, N = max(m, n, 1) and
// cond the fixture's 2-norm condition number of A (of its non-zero part when
// rank-deficient), capped at 1 / eps:
//   backward errors (reconstructions A = Q R = U S Vh = L L^T, residuals of
//   solve, orthogonality):              64 N eps * scale
//   forward errors (solutions, inverses, factors compared with PyTorch's):
//                                       64 N eps * cond * scale
//   (cond^2 for lstsq and pinv, whose sensitivity is quadratic)
// where scale is the largest magnitude of the quantity compared.
// Singular vectors and eigenvectors are unique only up to sign: they are
// compared as |<ours_i, torch_i>| = 1 (1e-3 float, 1e-9 double) when the
// fixture says the values are well separated.

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "fixtures.hpp"

namespace {

template <class T>
tl::Tensor<T> input(const fixtures::Case& c) {
  const auto stored = c.get<T>("in0");
  const std::string kind = c.text("layout0");
  if (kind == "t") return stored.transpose(-1, -2);
  if (kind == "s") return stored.slice(-1, tl::None, tl::None, 2);
  REQUIRE(kind == "c");
  return stored;
}

template <class T>
double max_abs(const tl::Tensor<T>& t) {
  double m = 0;
  for (T v : t.contiguous().to_vector()) m = std::max(m, std::fabs(static_cast<double>(v)));
  return m;
}

template <class T>
double eps() {
  return std::numeric_limits<T>::epsilon();
}

std::optional<double> opt_arg(const fixtures::Case& c, const std::string& key) {
  if (!c.texts.count(key) || c.text(key) == "None") return std::nullopt;
  return std::stod(c.text(key));
}

// Context shared by the checks of one case.
template <class T>
struct Ctx {
  double N;     // max(m, n, 1)
  double cond;  // capped at 1 / eps

  double backward(double scale) const { return 64 * N * eps<T>() * std::max(scale, 1e-30); }
  double forward(double scale, int power = 1) const {
    return 64 * N * eps<T>() * std::pow(cond, power) * std::max(scale, 1e-30);
  }
};

template <class T>
void close(const tl::Tensor<T>& actual, const tl::Tensor<T>& expected, double atol, const std::string& what) {
  fixtures::check_close(actual, expected, 0, atol, what);
}

template <class T>
tl::Tensor<T> identity_like(int64_t n, const tl::Shape& batch) {
  tl::Shape s = batch;
  s.push_back(n);
  s.push_back(n);
  return tl::eye<T>(n).expand(s).contiguous();
}

template <class T>
tl::Tensor<T> mT(const tl::Tensor<T>& x) {
  return x.transpose(-1, -2);
}

template <class T>
tl::Shape batch_of(const tl::Tensor<T>& x) {
  tl::Shape b = x.sizes();
  b.resize(x.dim() - 2);
  return b;
}

// Columns of `ours` and `theirs` (..., rows, k) agree up to sign.
template <class T>
void same_up_to_sign(const tl::Tensor<T>& ours, const tl::Tensor<T>& theirs, int64_t k, const std::string& what) {
  if (k == 0 || ours.numel() == 0) return;
  const auto a = ours.narrow(-1, 0, k), b = theirs.narrow(-1, 0, k);
  const tl::Tensor<T> dots = (a * b).sum(-2).abs();
  const double tol = std::is_same_v<T, float> ? 1e-3 : 1e-9;
  close(dots, tl::ones_like(dots).eval(), tol, what + " |<ours, torch>|");
}

template <class T>
void orthonormal_columns(const tl::Tensor<T>& q, const Ctx<T>& x, const std::string& what) {
  const auto gram = tl::matmul(mT(q), q);
  close(gram, identity_like<T>(q.size(-1), batch_of(q)), x.backward(1), what + " Q^T Q = I");
}

template <class T>
void run_case(const std::string& name, const fixtures::Case& c) {
  CAPTURE(name);
  const std::string op = c.text("op");
  const auto A = input<T>(c);
  Ctx<T> x{1, std::min(std::stod(c.text("cond")), 1 / eps<T>())};
  x.N = static_cast<double>(std::max<int64_t>({A.dim() >= 2 ? A.size(-1) : 1, A.dim() >= 2 ? A.size(-2) : 1, 1}));
  if (op == "solve") {
    const auto B = c.get<T>("in1");
    const bool left = !c.texts.count("left");
    const auto X = tl::linalg::solve(A, B, left);
    const auto expected = c.get<T>("out");
    close(X, expected, x.forward(max_abs(expected)), name);
    // Residual A X - B (X A - B), small relative to |A| |X| whatever the conditioning.
    const bool vec = B.dim() == 1 || X.dim() < A.dim();
    const auto AX = vec ? tl::matmul(A, X.unsqueeze(-1)).squeeze(-1) : left ? tl::matmul(A, X) : tl::matmul(X, A);
    const tl::Tensor<T> res = AX - B;
    CHECK(max_abs(res) <= x.backward(max_abs(A) * max_abs(X) * x.N + max_abs(B)));
  } else if (op == "inv") {
    const auto X = tl::linalg::inv(A);
    const auto expected = c.get<T>("out");
    close(X, expected, x.forward(max_abs(expected)), name);
    close(tl::matmul(A, X), identity_like<T>(A.size(-1), batch_of(A)), x.backward(max_abs(A) * max_abs(X) * x.N),
          name + " A inv(A) = I");
  } else if (op == "det") {
    const auto d = tl::linalg::det(A);
    const auto expected = c.get<T>("out");
    // Hadamard's bound prod ||row|| >= |det| scales the absolute error.
    const double hadamard = A.numel() == 0 ? 1.0 : max_abs(tl::linalg::vector_norm(A, 2, {-1}).prod(-1));
    fixtures::check_close(d, expected, 64 * x.N * eps<T>() * x.cond, 64 * x.N * eps<T>() * hadamard, name);
  } else if (op == "slogdet") {
    const auto [sign, logabs] = tl::linalg::slogdet(A);
    fixtures::check_close(sign, c.get<T>("sign"), 0, 0, name + " sign");
    close(logabs, c.get<T>("logabsdet"), 64 * x.N * eps<T>() * x.cond, name + " logabsdet");
  } else if (op == "cholesky") {
    const bool upper = c.text("upper") == "1";
    const auto L = tl::linalg::cholesky(A, upper);
    const auto expected = c.get<T>("out");
    close(L, expected, x.forward(max_abs(expected)), name);
    const auto lower = upper ? mT(L) : L;
    close(lower, lower.tril().eval(), 0, name + " triangular");
    close(tl::matmul(lower, mT(lower)), A.contiguous(), x.backward(max_abs(A)), name + " L L^T = A");
  } else if (op == "qr") {
    const std::string mode = c.text("mode");
    const auto [Q, R] = tl::linalg::qr(A, mode);
    const auto R_torch = c.get<T>("R");
    CHECK(Q.sizes() == c.get<T>("Q").sizes());
    close(R.abs().eval(), R_torch.abs().eval(), x.forward(max_abs(R_torch)), name + " |R|");
    close(R, R.triu().eval(), 0, name + " R upper triangular");
    if (mode != "r") {
      close(tl::matmul(Q, R), A.contiguous(), x.backward(max_abs(A)), name + " Q R = A");
      orthonormal_columns(Q, x, name);
    }
  } else if (op == "svd") {
    const bool full = c.text("full_matrices") == "1";
    const auto [U, S, Vh] = tl::linalg::svd(A, full);
    const auto S_torch = c.get<T>("S");
    CHECK(U.sizes() == c.get<T>("U").sizes());
    CHECK(Vh.sizes() == c.get<T>("Vh").sizes());
    close(S, S_torch, x.backward(max_abs(S_torch)), name + " S");
    const int64_t k = S.size(-1);
    const auto Uk = U.narrow(-1, 0, k), Vk = Vh.narrow(-2, 0, k);
    close(tl::matmul(Uk * S.unsqueeze(-2), Vk), A.contiguous(), x.backward(max_abs(A)), name + " U S Vh = A");
    orthonormal_columns(U, x, name + " U");
    orthonormal_columns(mT(Vh), x, name + " V");
    if (c.text("distinct") == "1") {
      same_up_to_sign(U, c.get<T>("U"), k, name + " U");
      same_up_to_sign(mT(Vh), mT(c.get<T>("Vh")), k, name + " V");
    }
  } else if (op == "svdvals") {
    const auto expected = c.get<T>("out");
    close(tl::linalg::svdvals(A), expected, x.backward(max_abs(expected)), name);
  } else if (op == "eigh" || op == "eigvalsh") {
    const std::string uplo = c.text("UPLO");
    const auto expected = c.get<T>(op == "eigh" ? "eigenvalues" : "out");
    if (op == "eigvalsh") {
      close(tl::linalg::eigvalsh(A, uplo), expected, x.backward(max_abs(expected)), name);
      return;
    }
    const auto [w, V] = tl::linalg::eigh(A, uplo);
    close(w, expected, x.backward(max_abs(expected)), name + " eigenvalues");
    // The symmetric matrix the named triangle stands for.
    const tl::Tensor<T> sym =
        uplo == "L" ? tl::Tensor<T>(A.tril() + mT(A.tril(-1))) : tl::Tensor<T>(A.triu() + mT(A.triu(1)));
    close(tl::matmul(sym, V), (V * w.unsqueeze(-2)).eval(), x.backward(max_abs(sym) * x.N), name + " A V = V diag(w)");
    orthonormal_columns(V, x, name + " V");
    if (c.text("distinct") == "1") same_up_to_sign(V, c.get<T>("eigenvectors"), w.size(-1), name + " V");
  } else if (op == "lstsq") {
    const auto B = c.get<T>("in1");
    const auto r = tl::linalg::lstsq(A, B);
    const auto expected = c.get<T>("solution");
    close(r.solution, expected, x.forward(max_abs(expected), 2), name + " solution");
    CHECK(r.rank.sizes() == c.get<int64_t>("rank").sizes());
    CHECK(r.rank.to_vector() == c.get<int64_t>("rank").to_vector());
    CHECK(r.residuals.sizes() == c.get<T>("residuals").sizes());
    CHECK(r.singular_values.sizes() == c.get<T>("singular_values").sizes());
  } else if (op == "pinv") {
    const bool herm = c.texts.count("hermitian") && c.text("hermitian") == "1";
    const auto X = tl::linalg::pinv(A, opt_arg(c, "atol"), opt_arg(c, "rtol"), herm);
    const auto expected = c.get<T>("out");
    close(X, expected, x.forward(max_abs(expected), 2), name);
    if (!c.texts.count("atol"))  // A X A = A when nothing above the default cutoff is dropped
      close(tl::matmul(tl::matmul(A, X), A), A.contiguous(), x.forward(max_abs(A)), name + " A X A = A");
  } else if (op == "matrix_rank") {
    const bool herm = c.texts.count("hermitian") && c.text("hermitian") == "1";
    const auto r = tl::linalg::matrix_rank(A, opt_arg(c, "atol"), opt_arg(c, "rtol"), herm);
    const auto expected = c.get<int64_t>("out");
    CHECK(r.sizes() == expected.sizes());
    CHECK(r.to_vector() == expected.to_vector());
  } else if (op == "matrix_norm" || op == "norm") {
    const std::string ord = c.text("ord");
    const auto expected = c.get<T>("out");
    tl::Tensor<T> got;
    if (op == "norm") {
      got = ord == "nuc" ? tl::linalg::norm(A, "nuc") : tl::linalg::norm(A, std::stod(ord));
    } else {
      std::istringstream in(c.text("dims"));
      int64_t d0 = 0, d1 = 0;
      in >> d0 >> d1;
      const bool keepdim = c.text("keepdim") == "1";
      got = ord == "nuc" ? tl::linalg::matrix_norm(A, "nuc", {d0, d1}, keepdim)
                         : tl::linalg::matrix_norm(A, std::stod(ord), {d0, d1}, keepdim);
    }
    close(got, expected, x.backward(max_abs(expected)), name);
  } else {
    FAIL("unknown op " << op);
  }
}

}  // namespace

TEST_CASE("decompositions match PyTorch on every fixture case") {
  const auto& file = fixtures::load("decomp.txt");
  int runs = 0;
  for (const auto& [name, c] : file.cases()) {
    if (name == "errors") continue;
    if (c.text("dtype") == "float32")
      run_case<float>(name, c);
    else
      run_case<double>(name, c);
    ++runs;
  }
  CHECK(runs > 400);
}

TEST_CASE("results are structs usable with structured bindings, top-level aliases") {
  const auto A = tl::tensor<double>({{4.0, 1.0}, {1.0, 3.0}});
  const auto [sign, logabsdet] = tl::linalg::slogdet(A);
  CHECK(sign.item() == 1.0);
  CHECK(logabsdet.item() == doctest::Approx(std::log(11.0)).epsilon(1e-14));
  const auto [w, V] = tl::linalg::eigh(A);
  CHECK(w.to_vector()[0] == doctest::Approx((7 - std::sqrt(5.0)) / 2).epsilon(1e-14));
  CHECK(w.to_vector()[1] == doctest::Approx((7 + std::sqrt(5.0)) / 2).epsilon(1e-14));
  CHECK(V.sizes() == tl::Shape{2, 2});
  const auto [U, S, Vh] = tl::linalg::svd(A);
  CHECK(S.to_vector()[0] == doctest::Approx((7 + std::sqrt(5.0)) / 2).epsilon(1e-14));
  const auto [Q, R] = tl::linalg::qr(A);
  CHECK(std::fabs(R.to_vector()[0]) == doctest::Approx(std::sqrt(17.0)).epsilon(1e-14));
  const auto [solution, residuals, rank, singular_values] = tl::linalg::lstsq(A, tl::tensor<double>({1.0, 2.0}));
  CHECK(rank.item() == 2);
  // rcond drops singular values at or below rcond * largest: the truncated-SVD solution.
  const auto D = tl::tensor<double>({{10.0, 0.0, 0.0}, {0.0, 1.0, 0.0}, {0.0, 0.0, 0.01}});
  const auto truncated = tl::linalg::lstsq(D, tl::ones<double>({3, 1}), 0.05);
  fixtures::check_close(truncated.solution, tl::tensor<double>({{0.1}, {1.0}, {0.0}}), 0, 1e-15, "lstsq rcond");
  CHECK(truncated.rank.item() == 2);
  CHECK(tl::linalg::lstsq(D, tl::ones<double>({3, 1})).rank.item() == 3);
  CHECK(tl::det(A).item() == doctest::Approx(11.0).epsilon(1e-14));
  fixtures::check_close(tl::inverse(A), (tl::tensor<double>({{3.0, -1.0}, {-1.0, 4.0}}) / 11.0).eval(), 0, 1e-15,
                        "inverse");
  fixtures::check_close(tl::cholesky(A), tl::linalg::cholesky(A), 0, 0, "cholesky alias");
  CHECK(U.sizes() == tl::Shape{2, 2});
  CHECK(Vh.sizes() == tl::Shape{2, 2});
  CHECK(Q.sizes() == tl::Shape{2, 2});
  CHECK(residuals.numel() == 0);
  CHECK(singular_values.numel() == 0);
  CHECK(solution.sizes() == tl::Shape{2});
  // Lazy expressions are evaluated first.
  fixtures::check_close(tl::linalg::inv(A * 2.0), (tl::linalg::inv(A) / 2.0).eval(), 0, 1e-15, "inv(expression)");
  fixtures::check_close(tl::linalg::solve(A + 0.0, tl::ones<double>({2}) * 11.0), tl::tensor<double>({2.0, 3.0}), 0,
                        1e-14, "solve(expressions)");
  CHECK(tl::linalg::det(A * -1.0).item() == doctest::Approx(11.0).epsilon(1e-14));
  CHECK(tl::linalg::svdvals(A * 1.0).sizes() == tl::Shape{2});
}

TEST_CASE("larger matrices: 80 x 60 SVD, 70 x 70 eigh, QR and solve reconstruct their input") {
  tl::Generator gen(7);
  const auto A = tl::randn<double>({80, 60}, gen);
  const auto [U, S, Vh] = tl::linalg::svd(A, false);
  fixtures::check_close(tl::matmul(U * S.unsqueeze(0), Vh), A, 0, 1e-12, "svd 80x60");
  fixtures::check_close(tl::matmul(U.t(), U), tl::eye<double>(60), 0, 1e-13, "svd U orthonormal");
  const tl::Tensor<double> sym = A.narrow(1, 0, 60).narrow(0, 0, 60) + A.narrow(1, 0, 60).narrow(0, 0, 60).t();
  const auto [w, V] = tl::linalg::eigh(sym);
  fixtures::check_close(tl::matmul(sym, V), (V * w.unsqueeze(0)).eval(), 0, 1e-12, "eigh 60x60");
  const auto wv = w.to_vector();
  CHECK(std::is_sorted(wv.begin(), wv.end()));
  const auto [Q, R] = tl::linalg::qr(A, "complete");
  fixtures::check_close(tl::matmul(Q, R), A, 0, 1e-12, "qr 80x60");
  fixtures::check_close(tl::matmul(Q.t(), Q), tl::eye<double>(80), 0, 1e-13, "qr Q orthogonal");
  const auto sq = A.narrow(0, 0, 60);
  const auto b = tl::randn<double>({60, 3}, gen);
  fixtures::check_close(tl::matmul(sq, tl::linalg::solve(sq, b)), b, 0, 1e-10, "solve 60x60");
  // full_matrices on a tall, skinny matrix: 298 completed columns of U.
  const auto thin = tl::randn<double>({300, 2}, gen);
  const auto full = tl::linalg::svd(thin);
  fixtures::check_close(tl::matmul(full.U.t(), full.U), tl::eye<double>(300), 0, 1e-13, "svd full U orthogonal");
  fixtures::check_close(tl::matmul(full.U.narrow(1, 0, 2) * full.S.unsqueeze(0), full.Vh), thin, 0, 1e-13, "svd 300x2");
  // The spectral norm is the largest singular value; the nuclear norm their sum.
  CHECK(tl::linalg::matrix_norm(A, 2.0).item() == doctest::Approx(S.to_vector()[0]).epsilon(1e-14));
  CHECK(tl::linalg::matrix_norm(A, "nuc").item() == doctest::Approx(S.sum().item()).epsilon(1e-13));
}

TEST_CASE("the triangle UPLO does not name is never read") {
  auto A = tl::tensor<double>({{2.0, 100.0}, {1.0, 2.0}});  // lower triangle: [[2, 1], [1, 2]]
  fixtures::check_close(tl::linalg::eigvalsh(A), tl::tensor<double>({1.0, 3.0}), 0, 1e-14, "eigvalsh L");
  fixtures::check_close(tl::linalg::eigvalsh(A, "U"), tl::tensor<double>({-98.0, 102.0}), 0, 1e-12, "eigvalsh U");
  auto C = tl::tensor<double>({{4.0, std::nan("")}, {2.0, 5.0}});
  fixtures::check_close(tl::linalg::cholesky(C), tl::tensor<double>({{2.0, 0.0}, {1.0, 2.0}}), 0, 1e-15,
                        "cholesky reads the lower triangle");
  fixtures::check_close(tl::linalg::cholesky(C.t(), true), tl::tensor<double>({{2.0, 1.0}, {0.0, 2.0}}), 0, 1e-15,
                        "cholesky(upper) reads the upper triangle");
}

TEST_CASE("decomposition errors name the op, what was expected and what was got") {
  const auto& errors = fixtures::load("decomp.txt")["errors"];
  const auto rect = tl::zeros<float>({3, 4});
  const auto vec = tl::ones<float>({3});
  const auto sq = tl::eye<float>(3);
  // Non-square input.
  CHECK_THROWS_WITH_AS(tl::linalg::inv(rect),
                       "linalg.inv: A must be batches of square matrices, but they are 3 by 4 matrices",
                       tl::ShapeError);
  CHECK_THROWS_WITH_AS(tl::linalg::det(rect),
                       "linalg.det: A must be batches of square matrices, but they are 3 by 4 matrices",
                       tl::ShapeError);
  CHECK_THROWS_WITH_AS(tl::linalg::slogdet(rect),
                       "linalg.slogdet: A must be batches of square matrices, but they are 3 by 4 matrices",
                       tl::ShapeError);
  CHECK_THROWS_WITH_AS(tl::linalg::cholesky(rect),
                       "linalg.cholesky: A must be batches of square matrices, but they are 3 by 4 matrices",
                       tl::ShapeError);
  CHECK_THROWS_WITH_AS(tl::linalg::eigh(rect),
                       "linalg.eigh: A must be batches of square matrices, but they are 3 by 4 matrices",
                       tl::ShapeError);
  CHECK_THROWS_WITH_AS(tl::linalg::eigvalsh(rect),
                       "linalg.eigh: A must be batches of square matrices, but they are 3 by 4 matrices",
                       tl::ShapeError);
  CHECK_THROWS_WITH_AS(tl::linalg::solve(rect, vec),
                       "linalg.solve: A must be batches of square matrices, but they are 3 by 4 matrices",
                       tl::ShapeError);
  // 0-d and 1-d input.
  CHECK_THROWS_WITH_AS(tl::linalg::inv(vec), "linalg.inv: The input tensor A must have at least 2 dimensions.",
                       tl::ShapeError);
  CHECK_THROWS_WITH_AS(tl::linalg::inv(tl::scalar_tensor(1.f)),
                       "linalg.inv: The input tensor A must have at least 2 dimensions.", tl::ShapeError);
  CHECK_THROWS_WITH_AS(tl::linalg::det(vec), "linalg.det: The input tensor A must have at least 2 dimensions.",
                       tl::ShapeError);
  CHECK_THROWS_WITH_AS(tl::linalg::cholesky(vec),
                       "linalg.cholesky: The input tensor A must have at least 2 dimensions.", tl::ShapeError);
  CHECK_THROWS_WITH_AS(tl::linalg::qr(vec), "linalg.qr: The input tensor A must have at least 2 dimensions.",
                       tl::ShapeError);
  CHECK_THROWS_WITH_AS(tl::linalg::svd(vec), "linalg.svd: The input tensor A must have at least 2 dimensions.",
                       tl::ShapeError);
  CHECK_THROWS_WITH_AS(tl::linalg::svdvals(vec), "linalg.svd: The input tensor A must have at least 2 dimensions.",
                       tl::ShapeError);
  CHECK_THROWS_WITH_AS(tl::linalg::eigh(vec), "linalg.eigh: The input tensor A must have at least 2 dimensions.",
                       tl::ShapeError);
  CHECK_THROWS_WITH_AS(tl::linalg::solve(vec, vec), "linalg.solve: The input tensor A must have at least 2 dimensions.",
                       tl::ShapeError);
  CHECK_THROWS_WITH_AS(tl::linalg::lstsq(vec, vec), "torch.linalg.lstsq: input must have at least 2 dimensions.",
                       tl::ShapeError);
  CHECK_THROWS_WITH_AS(tl::linalg::matrix_rank(vec),
                       "torch.linalg.matrix_rank: The input tensor input must have at least 2 dimensions.",
                       tl::ShapeError);
  CHECK_THROWS_WITH_AS(tl::linalg::pinv(vec), "linalg.pinv: The input tensor A must have at least 2 dimensions.",
                       tl::ShapeError);
  CHECK_THROWS_WITH_AS(tl::linalg::matrix_norm(vec, "nuc"),
                       "linalg.matrix_norm: The input tensor A must have at least 2 dimensions.", tl::ShapeError);
  // Shape mismatches.
  CHECK_THROWS_WITH_AS(tl::linalg::solve(sq, tl::ones<float>({4, 2})),
                       "linalg.solve: Incompatible shapes of A and B for the equation AX = B (3x3 and 4x2)",
                       tl::ShapeError);
  CHECK_THROWS_WITH_AS(tl::linalg::solve(sq, tl::ones<float>({4})),
                       "linalg.solve: Incompatible shapes of A and B for the equation AX = B (3x3 and 4x1)",
                       tl::ShapeError);
  CHECK_THROWS_AS(tl::linalg::solve(tl::ones<float>({2, 3, 3}), tl::ones<float>({3, 3, 2})), tl::ShapeError);
  CHECK_THROWS_WITH_AS(tl::linalg::solve(sq, tl::ones<float>({2, 4}), false),
                       "linalg.solve: Incompatible shapes of A and B for the equation XA = B (3x3 and 2x4)",
                       tl::ShapeError);
  CHECK_THROWS_WITH_AS(tl::linalg::solve(tl::ones<float>({1, 1}), tl::ones<float>({1}), false),
                       errors.text("solve_vector_right").c_str(), tl::ShapeError);
  CHECK_THROWS_WITH_AS(tl::linalg::solve(sq, vec, false),
                       "linalg.solve: Incompatible shapes of A and B for the equation XA = B (3x3 and 3x1)",
                       tl::ShapeError);
  CHECK_THROWS_WITH_AS(tl::linalg::lstsq(tl::ones<float>({3, 2}), tl::ones<float>({4, 2})),
                       "torch.linalg.lstsq: input.size(-2) should match other.size(-2)", tl::ShapeError);
  CHECK_THROWS_WITH_AS(tl::linalg::lstsq(tl::ones<float>({3, 2}), tl::ones<float>({4})),
                       "torch.linalg.lstsq: input.size(-2) should match other.size(-1)", tl::ShapeError);
  CHECK_THROWS_WITH_AS(
      tl::linalg::lstsq(tl::ones<float>({5, 3}), tl::ones<float>({2, 5, 2})),
      "torch.linalg.lstsq: input.dim() must be greater or equal to other.dim() and (input.dim() - other.dim()) <= 1",
      tl::ShapeError);
  // Bad arguments.
  CHECK_THROWS_WITH_AS(
      tl::linalg::qr(sq, "foo"),
      "qr received unrecognized mode 'foo' but expected one of 'reduced' (default), 'r', or 'complete'",
      tl::ValueError);
  CHECK_THROWS_WITH_AS(tl::linalg::eigh(sq, "X"), "Expected UPLO argument to be 'L' or 'U', but got X", tl::ValueError);
  CHECK_THROWS_WITH_AS(tl::linalg::eigvalsh(sq, "l"), "Expected UPLO argument to be 'L' or 'U', but got l",
                       tl::ValueError);
  // Singular and not positive-definite inputs: LinAlgError, PyTorch's text.
  // Exact elimination (multipliers 0.5), so the zero pivot does not depend on rounding.
  const auto singular = tl::tensor<float>({{2.f, 4.f, 2.f}, {1.f, 2.f, 1.f}, {0.f, 1.f, 3.f}});
  CHECK_THROWS_WITH_AS(tl::linalg::inv(singular),
                       "linalg.inv: The diagonal element 2 is zero, the inversion could not be completed because the "
                       "input matrix is singular.",
                       tl::LinAlgError);
  CHECK_THROWS_WITH_AS(tl::linalg::solve(singular, vec),
                       "torch.linalg.solve: The solver failed because the input matrix is singular.", tl::LinAlgError);
  CHECK_THROWS_WITH_AS(tl::linalg::cholesky(tl::tensor<double>(
                           {{1.0, 0.0, 0.0, 0.0}, {0.0, 2.0, 0.0, 0.0}, {0.0, 0.0, -3.0, 0.0}, {0.0, 0.0, 0.0, 4.0}})),
                       "linalg.cholesky: The factorization could not be completed because the input is not "
                       "positive-definite (the leading minor of order 3 is not positive-definite).",
                       tl::LinAlgError);
  CHECK_THROWS_WITH_AS(tl::linalg::cholesky(tl::tensor<double>({{1.0, 2.0}, {2.0, 1.0}}), true),
                       "linalg.cholesky: The factorization could not be completed because the input is not "
                       "positive-definite (the leading minor of order 2 is not positive-definite).",
                       tl::LinAlgError);
  // The batched forms, compared with PyTorch's own text.
  const auto inv_batch = tl::stack({tl::eye<float>(2), tl::tensor<float>({{1.f, 2.f}, {2.f, 4.f}})});
  CHECK_THROWS_WITH_AS(tl::linalg::inv(singular.to<double>()), errors.text("inv_singular").c_str(), tl::LinAlgError);
  CHECK_THROWS_WITH_AS(tl::linalg::inv(inv_batch), errors.text("inv_singular_batched").c_str(), tl::LinAlgError);
  CHECK_THROWS_WITH_AS(tl::linalg::solve(tl::zeros<float>({2, 2, 2}), tl::ones<float>({2, 2})),
                       errors.text("solve_singular_batched").c_str(), tl::LinAlgError);
  const auto chol_batch = tl::stack({tl::eye<float>(3), (-tl::eye<float>(3)).eval()});
  CHECK_THROWS_WITH_AS(tl::linalg::cholesky(chol_batch), errors.text("cholesky_batched").c_str(), tl::LinAlgError);
  // LinAlgError is a ValueError, hence a tl::Error.
  CHECK_THROWS_AS(tl::linalg::inv(singular), tl::ValueError);
  CHECK_THROWS_AS(tl::linalg::inv(singular), tl::Error);
}

TEST_CASE("singular matrices: det is 0, slogdet is (0, -inf), NaN inputs") {
  const auto singular = tl::tensor<double>({{1.0, 2.0}, {2.0, 4.0}});
  CHECK(tl::linalg::det(singular).item() == 0.0);
  const auto [sign, logabsdet] = tl::linalg::slogdet(singular);
  CHECK(sign.item() == 0.0);
  CHECK(logabsdet.item() == -std::numeric_limits<double>::infinity());
  const auto nan = tl::tensor<double>({{1.0, std::nan("")}, {2.0, 4.0}});
  CHECK(std::isnan(tl::linalg::det(nan).item()));
  CHECK_THROWS_WITH_AS(tl::linalg::svdvals(nan),
                       "linalg.svd: The algorithm failed to converge because the input matrix contained non-finite "
                       "values.",
                       tl::LinAlgError);
  CHECK_THROWS_WITH_AS(tl::linalg::svd(tl::stack({tl::eye<double>(2), nan})),
                       "linalg.svd: (Batch element 1): The algorithm failed to converge because the input matrix "
                       "contained non-finite values.",
                       tl::LinAlgError);
  for (double w : tl::linalg::eigvalsh(nan, "U").to_vector()) CHECK(std::isnan(w));
  // matrix_rank and pinv go through the SVD too: PyTorch's error, not a rank
  // of 0 from NaN singular values (their hermitian forms do not check, as PyTorch).
  CHECK_THROWS_WITH_AS(tl::linalg::matrix_rank(nan), doctest::Contains("input matrix contained non-finite values"),
                       tl::LinAlgError);
  CHECK_THROWS_WITH_AS(tl::linalg::pinv(tl::stack({tl::eye<double>(2), nan})),
                       "linalg.pinv: (Batch element 1): The algorithm failed to converge because the input matrix "
                       "contained non-finite values.",
                       tl::LinAlgError);
}

TEST_CASE("svd and eigh scale: entries near the overflow and underflow thresholds") {
  const auto A = tl::tensor<double>({{3.0, 1.0, 0.5}, {1.0, 2.0, 0.25}, {0.5, 0.25, 1.0}});
  const auto s = tl::linalg::svdvals(A).to_vector();
  const auto w = tl::linalg::eigvalsh(A).to_vector();
  for (double scale : {1e200, 1e-200, 1e300, 1e-300}) {
    CAPTURE(scale);
    const tl::Tensor<double> B = A * scale;
    const auto sb = tl::linalg::svdvals(B).to_vector();
    const auto wb = tl::linalg::eigvalsh(B).to_vector();
    for (std::size_t i = 0; i < 3; ++i) {
      CHECK(sb[i] == doctest::Approx(s[i] * scale).epsilon(1e-13));
      CHECK(wb[i] == doctest::Approx(w[i] * scale).epsilon(1e-13));
    }
    const auto [U, S, Vh] = tl::linalg::svd(B);
    fixtures::check_close(tl::matmul(U * S.unsqueeze(0), Vh), B.eval(), 0, 1e-13 * scale, "svd reconstruction");
  }
}
