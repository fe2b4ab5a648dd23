// cosine_similarity, pairwise_distance and pdist (ops/distances.hpp) against
// PyTorch 1.13 (tests/fixtures/generate_composite_ops.py). Their gradients
// are in tests/autograd/op_gradcheck_test.cpp.

#include <doctest/doctest.h>

#include <cstdint>
#include <limits>
#include <vector>

#include "fixtures.hpp"

TEST_CASE("cosine_similarity, pairwise_distance and pdist against PyTorch") {
  const auto& f = fixtures::load("composite_ops.txt");
  const auto& c = f["cosine_similarity"];
  fixtures::check_close(tl::cosine_similarity(c.get<double>("a"), c.get<double>("b"), 1), c.get<double>("r"), 1e-14,
                        1e-15, "cosine_similarity");
  fixtures::check_close(tl::cosine_similarity(c.get<double>("a"), c.get<double>("b"), -1), c.get<double>("r_dim_m1"),
                        1e-14, 1e-15, "cosine_similarity dim -1");
  // Zero vectors: the norms are raised to eps, so the similarity is 0.
  CHECK(tl::cosine_similarity(tl::zeros<double>({3}), tl::ones<double>({3}), 0).item() == 0.0);
  const auto& p = f["pairwise_distance"];
  const auto x1 = p.get<double>("x1"), x2 = p.get<double>("x2");
  fixtures::check_close(tl::pairwise_distance(x1, x2), p.get<double>("r"), 1e-14, 1e-15, "pairwise_distance");
  fixtures::check_close(tl::pairwise_distance(x1, x2, 1.0, 0.0, true), p.get<double>("r_p1"), 1e-14, 1e-15,
                        "pairwise_distance p=1 keepdim");
  fixtures::check_close(tl::pairwise_distance(x1, x2, std::numeric_limits<double>::infinity()), p.get<double>("r_inf"),
                        1e-14, 1e-15, "pairwise_distance p=inf");
  const auto& d = f["pdist"];
  fixtures::check_close(tl::pdist(d.get<double>("x")), d.get<double>("r"), 1e-14, 1e-15, "pdist");
  fixtures::check_close(tl::pdist(d.get<double>("x"), 3.0), d.get<double>("r_p3"), 1e-14, 1e-15, "pdist p=3");
  fixtures::check_close(tl::pdist(d.get<double>("x"), 0.0), d.get<double>("r_p0"), 0, 0, "pdist p=0");
  CHECK(tl::pdist(tl::ones<double>({1, 3})).sizes() == tl::Shape{0});
  CHECK(tl::pdist(tl::ones<double>({3, 0}), std::numeric_limits<double>::infinity()).to_vector() ==
        std::vector<double>{0, 0, 0});
  CHECK(fixtures::error_message([] { (void)tl::pdist(tl::ones<double>({3})); }) ==
        "pdist: only supports 2D tensors, got: 1D");
}
