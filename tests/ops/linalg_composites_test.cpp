// The linear algebra composites (ops/linalg_composites.hpp) against PyTorch
// 1.13 (tests/fixtures/generate_linalg_composites.py): addr, the in-place
// products, multi_dot and chain_matmul, cholesky_inverse, pinverse, vecdot,
// cond in every norm, inv_ex, tensorinv, tensorsolve; multi_dot's order by
// the memory it allocates; PyTorch's error messages. Gradients are
// in tests/autograd/op_gradcheck_test.cpp.

#include <doctest/doctest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "fixtures.hpp"

namespace {

constexpr double linalg_rtol = 1e-12;
constexpr double linalg_atol = 1e-12;

}  // namespace

TEST_CASE("addr, ger and the in-place products against PyTorch") {
  const auto& f = fixtures::load("linalg_composites.txt");
  const auto& c = f["addr"];
  const auto inp = c.get<double>("input"), v1 = c.get<double>("vec1"), v2 = c.get<double>("vec2");
  fixtures::check_close(tl::addr(inp, v1, v2, 0.5, -2.0), c.get<double>("r"), linalg_rtol, linalg_atol, "addr");
  fixtures::check_close(inp.addr(v1, v2, 0.5, -2.0), c.get<double>("r"), linalg_rtol, linalg_atol, "addr method");
  // The input broadcasts: a row for every row.
  fixtures::check_close(tl::addr(c.get<double>("row"), v1, v2), c.get<double>("broadcast"), linalg_rtol, linalg_atol,
                        "addr broadcast");
  CHECK(tl::equal(tl::ger(v1, v2), tl::outer(v1, v2)));

  const auto& p = f["inplace_products"];
  auto mm = p.get<double>("input").clone();
  mm.addmm_(p.get<double>("mat1"), p.get<double>("mat2"), 0.5, 2.0);
  fixtures::check_close(mm, p.get<double>("addmm_"), linalg_rtol, linalg_atol, "addmm_");
  auto mv = p.get<double>("mv_input").clone();
  mv.addmv_(p.get<double>("mv_mat"), p.get<double>("vec"), 0.5, 2.0);
  fixtures::check_close(mv, p.get<double>("addmv_"), linalg_rtol, linalg_atol, "addmv_");
  auto abm = p.get<double>("input").clone();
  abm.addbmm_(p.get<double>("batch1"), p.get<double>("batch2"), 0.5, 2.0);
  fixtures::check_close(abm, p.get<double>("addbmm_"), linalg_rtol, linalg_atol, "addbmm_");
  auto bbm = p.get<double>("bmm_input").clone();
  bbm.baddbmm_(p.get<double>("batch1"), p.get<double>("batch2"), 0.5, 2.0);
  fixtures::check_close(bbm, p.get<double>("baddbmm_"), linalg_rtol, linalg_atol, "baddbmm_");
  auto ar = p.get<double>("input").clone();
  ar.addr_(p.get<double>("mv_input"), v2, 0.5, 2.0);
  fixtures::check_close(ar, p.get<double>("addr_"), linalg_rtol, linalg_atol, "addr_");
  // An in-place product keeps the tensor's shape: a row cannot take the matrix.
  auto small = tl::zeros<double>({4});
  CHECK_THROWS_AS(small.addmm_(p.get<double>("mat1"), p.get<double>("mat2")), tl::ShapeError);
  CHECK(fixtures::error_message([&] { (void)tl::addr(inp, inp, v2); }) ==
        "addr: Expected 1-D argument vec1, but got 2-D");
}

TEST_CASE("multi_dot and chain_matmul against PyTorch, in the cheapest order") {
  const auto& f = fixtures::load("linalg_composites.txt");
  const auto& v = f["multi_dot/vector_ends"];
  std::vector<tl::Tensor<double>> chain;
  for (int i = 0; i < 5; ++i) chain.push_back(v.get<double>("a" + std::to_string(i)));
  const auto r = tl::linalg::multi_dot(chain);
  CHECK(r.dim() == 0);
  fixtures::check_close(r, v.get<double>("r"), linalg_rtol, linalg_atol, "multi_dot with 1-d ends");
  const auto& m = f["multi_dot/matrices"];
  std::vector<tl::Tensor<double>> mats;
  for (int i = 0; i < 4; ++i) mats.push_back(m.get<double>("a" + std::to_string(i)));
  fixtures::check_close(tl::linalg::multi_dot(mats), m.get<double>("r"), linalg_rtol, linalg_atol, "multi_dot");
  fixtures::check_close(tl::chain_matmul(mats), m.get<double>("chain"), linalg_rtol, linalg_atol, "chain_matmul");
  CHECK_FALSE(tl::chain_matmul({mats[0]}).is_alias_of(mats[0]));
  // (10 x 1000) (1000 x 2) (2 x 500): left first costs 30000 products, right
  // first 1010000 and a (1000, 500) intermediate of 4 MB, which the
  // allocator's peak would show.
  const auto a = tl::ones<double>({10, 1000}), b = tl::ones<double>({1000, 2}), c = tl::ones<double>({2, 500});
  tl::stats::reset();
  const int64_t base = tl::stats::snapshot().bytes_in_use;
  const auto r3 = tl::linalg::multi_dot({a, b, c});
  CHECK(tl::stats::snapshot().peak_bytes_in_use - base < 1'000'000);
  CHECK(r3.sizes() == tl::Shape{10, 500});
  CHECK(r3[0][0].item() == 2000.0);
  CHECK(fixtures::error_message([] {
          (void)tl::linalg::multi_dot({tl::ones<double>({2, 2})});
        }) == "multi_dot: expected at least 2 tensors but got 1");
  CHECK(fixtures::error_message([] {
          (void)tl::linalg::multi_dot({tl::ones<double>({2, 2}), tl::ones<double>({2}), tl::ones<double>({2, 2})});
        }) == "multi_dot: tensor 1 must be 2D but got 1D");
  CHECK(fixtures::error_message([] {
          (void)tl::linalg::multi_dot({tl::ones<double>({2, 3}), tl::ones<double>({2, 2})});
        }) == "multi_dot: tensors 0 and 1 with shapes [2, 3] and [2, 2] cannot be multiplied");
  CHECK(fixtures::error_message([] { (void)tl::chain_matmul({tl::ones<double>({2})}); }) ==
        "chain_matmul: Tensor dimension is 1, expected 2 instead.");
}

TEST_CASE("cholesky_inverse, pinverse and vecdot against PyTorch") {
  const auto& f = fixtures::load("linalg_composites.txt");
  const auto& c = f["cholesky_inverse"];
  const auto L = c.get<double>("L");
  fixtures::check_close(tl::cholesky_inverse(L.select(0, 0)), c.get<double>("r"), 1e-12, 1e-14, "cholesky_inverse");
  fixtures::check_close(tl::cholesky_inverse(L), c.get<double>("batched"), 1e-12, 1e-14, "batched");
  fixtures::check_close(tl::cholesky_inverse(c.get<double>("U"), true), c.get<double>("batched_upper"), 1e-12, 1e-14,
                        "upper");
  CHECK(fixtures::error_message([] {
          (void)tl::cholesky_inverse(tl::ones<double>({2, 3}));
        }) == "cholesky_inverse: A must be batches of square matrices, but they are 2 by 3 matrices");
  const auto& p = f["pinverse"];
  fixtures::check_close(tl::pinverse(p.get<double>("wide")), p.get<double>("r"), 1e-10, 1e-12, "pinverse");
  fixtures::check_close(tl::pinverse(p.get<double>("deficient")), p.get<double>("r_deficient"), 1e-9, 1e-12,
                        "pinverse of a rank-2 matrix");
  fixtures::check_close(tl::pinverse(p.get<double>("deficient"), 0.5), p.get<double>("r_rcond"), 1e-9, 1e-12,
                        "pinverse rcond");
  const auto& v = f["vecdot"];
  fixtures::check_close(tl::linalg::vecdot(v.get<double>("x"), v.get<double>("y"), -2), v.get<double>("r"), 1e-14,
                        1e-14, "vecdot");
}

TEST_CASE("cond in every norm, and inf for a singular matrix, against PyTorch") {
  const auto& c = fixtures::load("linalg_composites.txt")["cond"];
  const auto A = c.get<double>("A");
  const double inf = std::numeric_limits<double>::infinity();
  fixtures::check_close(tl::linalg::cond(A), c.get<double>("none"), 1e-11, 0, "cond");
  fixtures::check_close(tl::linalg::cond(A, -2.0), c.get<double>("m2"), 1e-11, 0, "cond -2");
  fixtures::check_close(tl::linalg::cond(A, "fro"), c.get<double>("fro"), 1e-11, 0, "cond fro");
  fixtures::check_close(tl::linalg::cond(A, "nuc"), c.get<double>("nuc"), 1e-11, 0, "cond nuc");
  fixtures::check_close(tl::linalg::cond(A, inf), c.get<double>("inf"), 1e-11, 0, "cond inf");
  fixtures::check_close(tl::linalg::cond(A, -inf), c.get<double>("minf"), 1e-11, 0, "cond -inf");
  fixtures::check_close(tl::linalg::cond(A, 1.0), c.get<double>("one"), 1e-11, 0, "cond 1");
  fixtures::check_close(tl::linalg::cond(A, -1.0), c.get<double>("mone"), 1e-11, 0, "cond -1");
  fixtures::check_close(tl::linalg::cond(c.get<double>("tall")), c.get<double>("tall_none"), 1e-11, 0, "cond tall");
  fixtures::check_close(tl::linalg::cond(c.get<double>("singular"), 1.0), c.get<double>("singular_one"), 0, 0,
                        "cond of a singular matrix");
  fixtures::check_close(tl::linalg::cond(c.get<double>("singular"), "fro"), c.get<double>("singular_fro"), 0, 0,
                        "cond fro of a singular matrix");
  fixtures::check_close(tl::linalg::cond(c.get<double>("with_nan"), 1.0), c.get<double>("with_nan_one"), 0, 0,
                        "cond of a matrix holding NaN is inf");
  fixtures::check_close(tl::linalg::cond(tl::zeros<double>({2, 0, 0})), c.get<double>("empty"), 0, 0, "cond empty");
  fixtures::check_close(tl::linalg::cond(tl::zeros<double>({2, 0, 0}), 1.0), c.get<double>("empty_one"), 0, 0,
                        "cond 1 empty");
  CHECK(fixtures::error_message([&] { (void)tl::linalg::cond(A, 3.0); }) == "linalg.cond: got an invalid norm type: 3");
  CHECK(fixtures::error_message([&] { (void)tl::linalg::cond(A, "max"); }) ==
        "linalg.cond: got an invalid norm type: max");
  CHECK(fixtures::error_message([&] { (void)tl::linalg::cond(c.get<double>("tall"), 1.0); }).find("square") !=
        std::string::npos);
}

TEST_CASE("inv_ex reports singular matrices instead of throwing; tensorinv and tensorsolve against PyTorch") {
  const auto& f = fixtures::load("linalg_composites.txt");
  const auto& e = f["inv_ex"];
  const auto r = tl::linalg::inv_ex(e.get<double>("A"));
  CHECK(r.info.to_vector() == e.get<int32_t>("info").to_vector());
  fixtures::check_close(r.inverse.select(0, 0), e.get<double>("inverse0"), 1e-12, 1e-14, "inv_ex inverse");
  // The singular matrix's inverse is not finite (PyTorch's holds NaNs there too).
  CHECK_FALSE(tl::Tensor<bool>(tl::isfinite(r.inverse.select(0, 1))).all().item());
  CHECK(fixtures::error_message([&] { (void)tl::linalg::inv_ex(e.get<double>("A"), true); }) ==
        "linalg.inv_ex: (Batch element 1): The diagonal element 2 is zero, the inversion could not be completed "
        "because the input matrix is singular.");
  const auto& t = f["tensorinv"];
  fixtures::check_close(tl::linalg::tensorinv(t.get<double>("ind1"), 1), t.get<double>("r1"), 1e-11, 1e-13,
                        "tensorinv ind=1");
  fixtures::check_close(tl::linalg::tensorinv(t.get<double>("ind2")), t.get<double>("r2"), 1e-11, 1e-13,
                        "tensorinv ind=2");
  CHECK(fixtures::error_message([&] { (void)tl::linalg::tensorinv(t.get<double>("ind1"), 2); }) ==
        "linalg.tensorinv: Expected self to satisfy the requirement prod(self.shape[ind:]) == "
        "prod(self.shape[:ind]), but got 3 != 12");
  const auto& s = f["tensorsolve"];
  fixtures::check_close(tl::linalg::tensorsolve(s.get<double>("A"), s.get<double>("B")), s.get<double>("r"), 1e-11,
                        1e-13, "tensorsolve");
  fixtures::check_close(tl::linalg::tensorsolve(s.get<double>("A_dims"), s.get<double>("B"), std::vector<int64_t>{0}),
                        s.get<double>("r_dims"), 1e-11, 1e-13, "tensorsolve dims");
  // Only the element counts must agree: B (3, 2) against A's leading (2, 3).
  fixtures::check_close(tl::linalg::tensorsolve(s.get<double>("A"), s.get<double>("Bt")), s.get<double>("r_counts"),
                        1e-11, 1e-13, "tensorsolve by counts");
}

TEST_CASE("solve_ex, cholesky_ex, householder_product, orgqr and ormqr against PyTorch") {
  const auto& f = fixtures::load("linalg_composites.txt");
  const auto& s = f["solve_ex"];
  const auto A = s.get<double>("A");
  const auto r = tl::linalg::solve_ex(A, s.get<double>("B"));
  CHECK(r.info.to_vector() == s.get<int32_t>("info").to_vector());
  fixtures::check_close(r.result.select(0, 0), s.get<double>("x0"), 1e-12, 1e-13, "solve_ex");
  fixtures::check_close(tl::linalg::solve_ex(A, s.get<double>("b")).result.select(0, 0), s.get<double>("xv0"), 1e-12,
                        1e-13, "solve_ex of a batch of vectors");
  fixtures::check_close(tl::linalg::solve_ex(A.select(0, 0), s.get<double>("Bl"), false).result, s.get<double>("xl"),
                        1e-12, 1e-13, "solve_ex X A = B");
  CHECK(fixtures::error_message([&] { (void)tl::linalg::solve_ex(A, s.get<double>("B"), true, true); }) ==
        "linalg.solve_ex: (Batch element 1): The solver failed because the input matrix is singular.");
  const auto& c = f["cholesky_ex"];
  const auto spd = c.get<double>("A");
  const auto ce = tl::linalg::cholesky_ex(spd);
  CHECK(ce.info.to_vector() == c.get<int32_t>("info").to_vector());
  fixtures::check_close(ce.L.select(0, 0), c.get<double>("L0"), 1e-12, 1e-13, "cholesky_ex");
  CHECK(tl::equal(ce.L.select(0, 1), tl::zeros<double>({4, 4})));  // the failed matrix's factor
  fixtures::check_close(tl::linalg::cholesky_ex(spd, true).L.select(0, 0), c.get<double>("U0"), 1e-12, 1e-13,
                        "cholesky_ex upper");
  CHECK(fixtures::error_message([&] { (void)tl::linalg::cholesky_ex(spd, false, true); }) ==
        "linalg.cholesky_ex: (Batch element 1): The factorization could not be completed because the input is not "
        "positive-definite (the leading minor of order 2 is not positive-definite).");
  const auto& h = f["householder"];
  const auto a = h.get<double>("a"), tau = h.get<double>("tau");
  fixtures::check_close(tl::linalg::householder_product(a, tau), h.get<double>("Q"), 1e-12, 1e-13,
                        "householder_product");
  fixtures::check_close(tl::orgqr(a.narrow(-1, 0, 2), tau.narrow(-1, 0, 2)), h.get<double>("Q2"), 1e-12, 1e-13,
                        "orgqr of two reflectors");
  fixtures::check_close(tl::ormqr(a, tau, h.get<double>("C")), h.get<double>("left"), 1e-12, 1e-13, "ormqr Q C");
  fixtures::check_close(tl::ormqr(a, tau, h.get<double>("C"), true, true), h.get<double>("left_t"), 1e-12, 1e-13,
                        "ormqr Q^T C");
  fixtures::check_close(tl::ormqr(a, tau, h.get<double>("Cr"), false), h.get<double>("right"), 1e-12, 1e-13,
                        "ormqr C Q");
  fixtures::check_close(tl::ormqr(a, tau, h.get<double>("Cr"), false, true), h.get<double>("right_t"), 1e-12, 1e-13,
                        "ormqr C Q^T");
  CHECK(fixtures::error_message([&] {
          (void)tl::linalg::householder_product(a.mT(), tau);
        }).find("input.shape[-2] must be greater than or equal to input.shape[-1]") != std::string::npos);
}
