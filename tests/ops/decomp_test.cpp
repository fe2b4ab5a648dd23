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
  std::string name;
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
  Ctx<T> x{name, 1, std::min(std::stod(c.text("cond")), 1 / eps<T>())};
  x.N = static_cast<double>(std::max<int64_t>({A.dim() >= 2 ? A.size(-1) : 1, A.dim() >= 2 ? A.size(-2) : 1, 1}));
  if (op == "solve") {
    const auto B = c.get<T>("in1");
    const auto X = tl::linalg::solve(A, B);
    const auto expected = c.get<T>("out");
    close(X, expected, x.forward(max_abs(expected)), name);
    // Residual A X - B, small relative to |A| |X| whatever the conditioning.
    const bool vec = B.dim() == 1 || X.dim() < A.dim();
    const auto AX = vec ? tl::matmul(A, X.unsqueeze(-1)).squeeze(-1) : tl::matmul(A, X);
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
    const tl::Tensor<T> sym = uplo == "L" ? tl::Tensor<T>(A.tril() + mT(A.tril(-1)))
                                          : tl::Tensor<T>(A.triu() + mT(A.triu(1)));
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
