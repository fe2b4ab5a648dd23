// linalg.matrix_exp (ops/matrix_exp.hpp, Note [matrix exponential]): values
// against PyTorch 1.13 (tests/fixtures/generate_matrix_exp.py), laws of the
// exponential, and PyTorch's errors. Gradients are in
// tests/autograd/op_gradcheck_test.cpp.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "fixtures.hpp"
#include "tensorlib/tensorlib.hpp"

TEST_CASE("matrix_exp matches PyTorch in double and float") {
  const auto& f = fixtures::load("matrix_exp.txt");
  for (const std::string name : {"small", "unit", "large", "batch", "rotation", "nilpotent", "scalar"}) {
    CAPTURE(name);
    const auto& c = f["value/" + name];
    const auto a = c.get<double>("a");
    // The large norms are squared up to nine times, which multiplies the
    // rounding of both PyTorch's result and ours.
    fixtures::check_close(tl::linalg::matrix_exp(a), c.get<double>("exp"), 1e-11, 1e-12, name);
    // Float inputs are computed in double (Note [linalg working precision]),
    // so they are within float rounding of PyTorch's double result.
    fixtures::check_close(tl::linalg::matrix_exp(a.to<float>()), c.get<double>("exp").to<float>(), 2e-6, 1e-6,
                          name + " float");
    // PyTorch's own float path (computed in float) is within 1e-5 of it.
    fixtures::check_close(tl::linalg::matrix_exp(a.to<float>()), c.get<float>("exp_float"), 2e-5, 1e-5,
                          name + " against PyTorch's float");
  }
  // exp(diag(800, 1)) overflows in one element only, in double as PyTorch
  // gives it; PyTorch's float path gives NaN everywhere, ours the rounded
  // double result (Known differences in docs/architecture.md).
  const auto& c = f["value/overflow"];
  const auto want = c.get<double>("exp").to_vector();
  const auto got = tl::linalg::matrix_exp(c.get<double>("a")).to_vector();
  CHECK(std::isinf(got[0]));
  CHECK(got[1] == 0.0);
  CHECK(got[2] == 0.0);
  CHECK(got[3] == doctest::Approx(want[3]).epsilon(1e-12));
  const auto got_float = tl::linalg::matrix_exp(c.get<double>("a").to<float>()).to_vector();
  CHECK(std::isinf(got_float[0]));
  CHECK(got_float[3] == doctest::Approx(std::exp(1.0)).epsilon(1e-7));
}

TEST_CASE("matrix_exp obeys the exponential's laws") {
  tl::Generator gen(17);
  const auto a = tl::randn<double>({5, 5}, gen);
  const auto eye = tl::eye<double>(5);
  // exp(A) exp(-A) = I; exp(2A) = exp(A)^2; exp(0) = I; exp(D) is exp of the
  // diagonal; exp(A^T) = exp(A)^T; det exp(A) = e^trace(A).
  const auto e = tl::linalg::matrix_exp(a);
  fixtures::check_close(tl::matmul(e, tl::linalg::matrix_exp(tl::Tensor<double>(-a))), eye, 1e-11, 1e-11, "inverse");
  fixtures::check_close(tl::linalg::matrix_exp(tl::Tensor<double>(a * 2.0)), tl::matmul(e, e), 1e-11, 1e-11, "square");
  CHECK(tl::equal(tl::linalg::matrix_exp(tl::zeros<double>({3, 3})), tl::eye<double>(3)));
  const auto d = tl::tensor<double>({-3.0, 0.5, 7.0});
  fixtures::check_close(tl::linalg::matrix_exp(tl::diag(d)), tl::diag(tl::Tensor<double>(tl::exp(d))), 1e-13, 0,
                        "diagonal");
  fixtures::check_close(tl::linalg::matrix_exp(a.t()), e.t().contiguous(), 1e-12, 1e-12, "transpose");
  CHECK(tl::linalg::det(e).item() == doctest::Approx(std::exp(tl::trace(a).item())).epsilon(1e-10));
  // Strided, batched and expression inputs give what contiguous ones give.
  const auto batch = tl::randn<double>({3, 4, 4}, gen);
  const auto batched = tl::linalg::matrix_exp(batch.transpose(1, 2));
  for (int64_t i = 0; i < 3; ++i)
    CHECK(tl::equal(batched.select(0, i), tl::linalg::matrix_exp(batch.select(0, i).t().contiguous())));
  CHECK(tl::equal(tl::matrix_exp(a * 0.5), tl::linalg::matrix_exp(tl::Tensor<double>(a * 0.5))));
  CHECK(tl::equal((a * 0.5).matrix_exp(), tl::linalg::matrix_exp(tl::Tensor<double>(a * 0.5))));
  // Empty shapes, and NaN or infinite elements (NaN everywhere: PyTorch
  // gives NaN for inf and reads uninitialized memory for NaN).
  CHECK(tl::linalg::matrix_exp(tl::zeros<double>({0, 0})).sizes() == tl::Shape{0, 0});
  CHECK(tl::linalg::matrix_exp(tl::zeros<float>({3, 0, 0})).sizes() == tl::Shape{3, 0, 0});
  for (const double bad : {std::numeric_limits<double>::infinity(), std::numeric_limits<double>::quiet_NaN()}) {
    const auto m = tl::tensor<double>({{bad, 0.0}, {0.0, 1.0}});
    for (const double v : tl::linalg::matrix_exp(m).to_vector()) CHECK(std::isnan(v));
  }
  // Element sums that overflow double still give a finite scaling (s = 1022)
  // and the overflowed exponential, not NaN.
  const auto huge = tl::full<double>({2, 2}, 1e308);
  for (const double v : tl::linalg::matrix_exp(huge).to_vector()) CHECK(v == std::numeric_limits<double>::infinity());
}

TEST_CASE("matrix_exp gives PyTorch's errors") {
  CHECK_THROWS_WITH_AS(tl::linalg::matrix_exp(tl::zeros<double>({2, 3})),
                       "linalg.matrix_exp: A must be batches of square matrices, but they are 2 by 3 matrices",
                       tl::ShapeError);
  CHECK_THROWS_WITH_AS(tl::linalg::matrix_exp(tl::zeros<float>({3})),
                       "linalg.matrix_exp: The input tensor A must have at least 2 dimensions.", tl::ShapeError);
}
