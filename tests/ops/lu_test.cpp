// The LU family (ops/lu.hpp) against PyTorch (tests/fixtures/lu.txt, made by
// generate_lu.py): factors, pivots, info, P L U, lu_unpack and lu_solve on
// square, wide, tall and batched inputs; laws (P L U = A, A X = B) on
// inputs the fixtures do not cover; then every error path.

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <string>

#include "fixtures.hpp"

TEST_CASE("lu_factor_ex, lu and lu_unpack match PyTorch: square, wide, tall, batches, ties, singular") {
  const auto& f = fixtures::load("lu.txt");
  for (const std::string name : {"square", "wide", "tall", "tall_batch", "ties", "singular", "zero"}) {
    CAPTURE(name);
    const auto& c = f["factor/" + name];
    const auto a = c.get<double>("a");
    const auto r = tl::linalg::lu_factor_ex(a);
    fixtures::check_close(r.LU, c.get<double>("lu"), 1e-12, 1e-12, name + " LU");
    CHECK(r.pivots.to_vector() == c.get<int32_t>("pivots").to_vector());
    CHECK(r.pivots.sizes() == c.get<int32_t>("pivots").sizes());
    CHECK(r.info.to_vector() == c.get<int32_t>("info").to_vector());
    CHECK(r.info.sizes() == c.get<int32_t>("info").sizes());
    const auto plu = tl::linalg::lu(a);
    CHECK(plu.P.to_vector() == c.get<double>("p").to_vector());
    fixtures::check_close(plu.L, c.get<double>("l"), 1e-12, 1e-12, name + " L");
    fixtures::check_close(plu.U, c.get<double>("u"), 1e-12, 1e-12, name + " U");
    const auto unpacked = tl::lu_unpack(r.LU, r.pivots);
    CHECK(unpacked.P.to_vector() == plu.P.to_vector());
    CHECK(unpacked.L.to_vector() == plu.L.to_vector());
    CHECK(unpacked.U.to_vector() == plu.U.to_vector());
    // float: the same pivots where no two candidates are close; values to float rounding.
    const auto rf = tl::linalg::lu_factor_ex(a.to<float>());
    CHECK(rf.pivots.to_vector() == r.pivots.to_vector());
    fixtures::check_close(rf.LU, c.get<double>("lu").to<float>(), 1e-5, 1e-5, name + " float LU");
  }
}

TEST_CASE("lu is a factorization: P L U = A for strided and expression inputs, pivot = false") {
  tl::Generator gen(5);
  const auto base = tl::randn<double>({3, 6, 5}, gen);
  for (const auto& a : {tl::Tensor<double>(base.transpose(-1, -2)), tl::Tensor<double>(base.slice(-1, 0, 5, 2))}) {
    const auto [P, L, U] = tl::linalg::lu(a);
    fixtures::check_close(tl::matmul(P, tl::matmul(L, U)), a, 1e-12, 1e-12, "P L U");
    CHECK(tl::allclose(L, L.tril()));
    CHECK(tl::allclose(U, U.triu()));
    // Partial pivoting: every multiplier is at most 1 in magnitude.
    CHECK(tl::abs(L).max().item() <= 1.0);
  }
  // An expression input, and float.
  const auto [P, L, U] = tl::linalg::lu(base.to<float>() * 2.f);
  fixtures::check_close(tl::matmul(P, tl::matmul(L, U)), tl::Tensor<float>(base.to<float>() * 2.f), 1e-5, 1e-5,
                        "float P L U");
  // Without pivoting: no swaps, P empty, and L U = A (a diagonally dominant A needs none).
  const auto dominant = tl::Tensor<double>(base.narrow(-1, 0, 5).narrow(-2, 0, 5) + 10.0 * tl::eye<double>(5));
  const auto np = tl::linalg::lu(dominant, false);
  CHECK(np.P.sizes() == tl::Shape{0});
  fixtures::check_close(tl::matmul(np.L, np.U), dominant, 1e-12, 1e-12, "L U without pivoting");
  const auto fnp = tl::linalg::lu_factor(dominant, false);
  CHECK(fnp.pivots.to_vector() == std::vector<int32_t>{1, 2, 3, 4, 5, 1, 2, 3, 4, 5, 1, 2, 3, 4, 5});
  // A zero pivot without pivoting divides (inf or NaN below it), as PyTorch on a GPU.
  const auto r = tl::linalg::lu_factor_ex(tl::tensor<double>({{0.0, 1.0}, {1.0, 1.0}}), false);
  CHECK(r.info.item() == 1);
  CHECK(std::isinf(r.LU.to_vector()[2]));
}

TEST_CASE("lu of empty matrices has PyTorch's shapes") {
  const auto r = tl::linalg::lu_factor(tl::zeros<double>({0, 3}));
  CHECK(r.LU.sizes() == tl::Shape{0, 3});
  CHECK(r.pivots.sizes() == tl::Shape{0});
  const auto [P, L, U] = tl::linalg::lu(tl::zeros<double>({2, 0, 3}));
  CHECK(P.sizes() == tl::Shape{2, 0, 0});
  CHECK(L.sizes() == tl::Shape{2, 0, 0});
  CHECK(U.sizes() == tl::Shape{2, 0, 3});
  // (3, 0): P is the identity, L (3, 0), U (0, 0).
  const auto tall = tl::linalg::lu(tl::zeros<float>({3, 0}));
  CHECK(tall.P.to_vector() == tl::eye<float>(3).to_vector());
  CHECK(tall.L.sizes() == tl::Shape{3, 0});
  CHECK(tall.U.sizes() == tl::Shape{0, 0});
}

TEST_CASE("lu edge cases: zero columns, empty batches, empty right-hand sides, a singular factor") {
  // A zero first column: no swap, info 1, the factor unchanged (PyTorch's values).
  const auto zero_column = tl::tensor<double>({{0.0, 1.0, 2.0}, {0.0, 3.0, 4.0}});
  const auto r = tl::linalg::lu_factor_ex(zero_column);
  CHECK(r.LU.to_vector() == zero_column.to_vector());
  CHECK(r.pivots.to_vector() == std::vector<int32_t>{1, 2});
  CHECK(r.info.item() == 1);
  // A batch with no matrices.
  const auto none = tl::linalg::lu_factor_ex(tl::zeros<float>({0, 3, 3}));
  CHECK(none.LU.sizes() == tl::Shape{0, 3, 3});
  CHECK(none.pivots.sizes() == tl::Shape{0, 3});
  CHECK(none.info.sizes() == tl::Shape{0});
  CHECK(tl::linalg::lu(tl::zeros<float>({0, 3, 3})).P.sizes() == tl::Shape{0, 3, 3});
  // Empty systems.
  const auto [LU, pivots] = tl::linalg::lu_factor(tl::Tensor<double>(tl::eye<double>(3) * 2.0));
  CHECK(tl::linalg::lu_solve(LU, pivots, tl::zeros<double>({3, 0})).sizes() == tl::Shape{3, 0});
  const auto empty = tl::linalg::lu_factor(tl::zeros<double>({0, 0}));
  CHECK(tl::linalg::lu_solve(empty.LU, empty.pivots, tl::zeros<double>({0, 2})).sizes() == tl::Shape{0, 2});
  // A singular factor divides by its zero: inf, as PyTorch's getrs.
  const auto singular = tl::linalg::lu_factor_ex(tl::tensor<double>({{1.0, 2.0}, {2.0, 4.0}}));
  const auto x = tl::linalg::lu_solve(singular.LU, singular.pivots, tl::tensor<double>({{1.0}, {1.0}})).to_vector();
  CHECK(std::isinf(x[1]));
}

TEST_CASE("lu_unpack leaves out what it is told to") {
  const auto& c = fixtures::load("lu.txt")["factor/square"];
  const auto lu = c.get<double>("lu");
  const auto piv = c.get<int32_t>("pivots");
  const auto no_data = tl::lu_unpack(lu, piv, false);
  CHECK(no_data.P.to_vector() == c.get<double>("p").to_vector());
  CHECK(no_data.L.sizes() == tl::Shape{0});
  CHECK(no_data.U.sizes() == tl::Shape{0});
  const auto no_pivots = tl::lu_unpack(lu, piv, true, false);
  CHECK(no_pivots.P.sizes() == tl::Shape{0});
  fixtures::check_close(no_pivots.U, c.get<double>("u"), 1e-12, 1e-12, "U");
}

TEST_CASE("lu_solve matches PyTorch: both sides, adjoint, broadcast batches") {
  const auto& f = fixtures::load("lu.txt");
  for (const bool left : {true, false})
    for (const bool adjoint : {false, true}) {
      const std::string key = std::string("solve/") + (left ? "1" : "0") + (adjoint ? "1" : "0");
      CAPTURE(key);
      const auto& c = f[key];
      const auto x =
          tl::linalg::lu_solve(c.get<double>("lu"), c.get<int32_t>("pivots"), c.get<double>("b"), left, adjoint);
      fixtures::check_close(x, c.get<double>("x"), 1e-12, 1e-12, key);
      const auto xf = tl::linalg::lu_solve(c.get<double>("lu").to<float>(), c.get<int32_t>("pivots"),
                                           c.get<double>("b").to<float>(), left, adjoint);
      fixtures::check_close(xf, c.get<double>("x").to<float>(), 1e-5, 1e-5, key + " float");
    }
  // The law on a transposed right-hand side: A X = B with X = lu_solve(lu_factor(A), B).
  tl::Generator gen(8);
  const auto a = tl::Tensor<double>(tl::randn<double>({4, 4}, gen) + 4.0 * tl::eye<double>(4));
  const auto b = tl::randn<double>({3, 4}, gen).t();
  const auto [LU, pivots] = tl::linalg::lu_factor(a);
  fixtures::check_close(tl::matmul(a, tl::linalg::lu_solve(LU, pivots, b)), b, 1e-12, 1e-12, "A X = B");
  fixtures::check_close(tl::linalg::lu_solve(LU, pivots, b), tl::linalg::solve(a, b), 1e-12, 1e-12, "as solve");
}

TEST_CASE("lu errors follow PyTorch's wording") {
  const auto message = [](auto f) { return fixtures::error_message(f); };
  const auto singular = tl::tensor<double>({{1.0, 2.0}, {2.0, 4.0}});
  CHECK(message([&] { (void)tl::linalg::lu_factor(singular); }) ==
        "torch.linalg.lu_factor: U[2,2] is zero and using it on lu_solve would result in a division by zero. If you "
        "still want to perform the factorization, consider calling linalg.lu(A, pivot) or linalg.lu_factor_ex(A, "
        "pivot)");
  CHECK_THROWS_AS((void)tl::linalg::lu_factor(singular), tl::LinAlgError);
  CHECK(message([&] {
          (void)tl::linalg::lu_factor(tl::stack({tl::eye<double>(2), singular}));
        }).rfind("torch.linalg.lu_factor: (Batch element 1): U[2,2] is zero", 0) == 0);
  CHECK(message([] {
          (void)tl::linalg::lu_factor_ex(tl::zeros<double>({2, 3, 3}), true, true);
        }).rfind("torch.linalg.lu_factor_ex: (Batch element 0): U[1,1] is zero", 0) == 0);
  CHECK(message([] { (void)tl::linalg::lu_factor(tl::ones<float>({3})); }) ==
        "torch.lu_factor: Expected tensor with 2 or more dimensions. Got size: [3] instead");
  CHECK(message([] { (void)tl::linalg::lu(tl::ones<float>({3})); }) ==
        "linalg.lu: Expected tensor with 2 or more dimensions. Got size: [3] instead");
  CHECK(message([] { (void)tl::lu_unpack(tl::ones<float>({3}), tl::ones<int32_t>({1})); }) ==
        "torch.lu_unpack: Expected tensor with 2 or more dimensions. Got size: [3] instead");
  // PyTorch 1.13 corrupts its heap on these pivots; here they are a ShapeError.
  CHECK(message([] {
          (void)tl::lu_unpack(tl::ones<float>({2, 3, 3}), tl::ones<int32_t>({3, 3}));
        }) ==
        "torch.lu_unpack: Expected LU_pivots of shape [2, 3] (LU's batch dimensions and min(m, n)), but got [3, 3]");
  for (const auto& bad : {tl::tensor<int32_t>({1, 4, 3}), tl::tensor<int32_t>({0, 2, 3})})
    CHECK(message([&] { (void)tl::lu_unpack(tl::eye<float>(3), bad); }) ==
          "pivots passed to lu_unpack must be between 1 and LU.size(-2) inclusive. Did you properly pass the result "
          "of lu_factor?");
  // Pivots are not looked at when P is not asked for (PyTorch too).
  CHECK(tl::lu_unpack(tl::eye<float>(3).expand({2, 3, 3}), tl::ones<int32_t>({3, 3}), true, false).L.sizes() ==
        tl::Shape{2, 3, 3});
  // Named references, not structured bindings: clang 14 cannot capture those in lambdas.
  const auto factor = tl::linalg::lu_factor(tl::Tensor<float>(tl::eye<float>(3) * 2.f));
  const auto& LU = factor.LU;
  const auto& piv = factor.pivots;
  CHECK(message([&] {
          (void)tl::linalg::lu_solve(LU, piv, tl::ones<float>({2, 3}));
        }) == "linalg.lu_solve: Incompatible shapes of A and B for the equation AX = B (3x3 and 2x3)");
  CHECK(message([&] {
          (void)tl::linalg::lu_solve(LU, piv, tl::ones<float>({3, 2}), false);
        }) == "linalg.lu_solve: Incompatible shapes of A and B for the equation XA = B (3x3 and 3x2)");
  CHECK(message([&] { (void)tl::linalg::lu_solve(LU, piv, tl::ones<float>({3})); }) ==
        "linalg.lu_solve: The input tensor B must have at least 2 dimensions.");
  CHECK(message([&] {
          (void)tl::linalg::lu_solve(tl::ones<float>({3}), piv, tl::ones<float>({3, 1}));
        }) == "torch.linalg.lu_solve: The input tensor A must have at least 2 dimensions.");
  CHECK(message([&] {
          (void)tl::linalg::lu_solve(LU.narrow(0, 0, 2), piv, tl::ones<float>({3, 1}));
        }) == "torch.linalg.lu_solve: A must be batches of square matrices, but they are 2 by 3 matrices");
  CHECK(message([&] {
          (void)tl::linalg::lu_solve(LU, piv.narrow(0, 0, 2), tl::ones<float>({3, 1}));
        }) == "linalg.lu_solve: Number of pivots per batch should be same as the dimension of the matrix");
  CHECK(message([&] {
          (void)tl::linalg::lu_solve(LU.expand({2, 3, 3}), piv.expand({3, 3}), tl::ones<float>({3, 1}));
        }) ==
        "linalg.lu_solve: Expected LU.shape[:-1] and pivots.shape to be the same, but got pivots with shape "
        "[3, 3] instead");
  CHECK(message([&] {
          (void)tl::linalg::lu_solve(LU, tl::tensor<int32_t>({1, 2, 7}), tl::ones<float>({3, 1}));
        }) ==
        "Pivots given to lu_solve must all be smaller or equal to LU.size(-2). Did you properly pass the result of "
        "lu_factor?");
  CHECK(message([&] {
          (void)tl::linalg::lu_solve(LU, tl::tensor<int32_t>({1, 0, 3}), tl::ones<float>({3, 1}));
        }) ==
        "Pivots given to lu_solve must all be greater or equal to 1. Did you properly pass the result of lu_factor?");
}
