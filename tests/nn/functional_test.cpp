// tl::nn::functional's losses, normalizations and layer functions against
// PyTorch 1.13 (tests/fixtures/generate_nn_functional.py): every case's
// value and the gradients PyTorch gives its inputs, then running
// statistics, dropout's laws, gradchecks and PyTorch's errors.

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "fixtures.hpp"
#include "tensorlib/tensorlib.hpp"

namespace F = tl::nn::functional;

namespace {

using Leaves = std::vector<tl::Tensor<double>>;
using Call = std::function<tl::Tensor<double>(const Leaves&, const fixtures::Case&)>;

tl::Tensor<int64_t> ints(const fixtures::Case& c, const char* key) { return c.get<int64_t>(key); }

// The same calls as the generator's, by case name.
std::map<std::string, Call> calls() {
  std::map<std::string, Call> m;
  for (const char* red : {"none", "mean", "sum"}) {
    m[std::string("mse_loss/") + red] = [red](const Leaves& in, const fixtures::Case&) {
      return F::mse_loss(in[0], in[1], red);
    };
    m[std::string("l1_loss/") + red] = [red](const Leaves& in, const fixtures::Case&) {
      return F::l1_loss(in[0], in[1], red);
    };
  }
  m["smooth_l1_loss"] = [](const Leaves& in, const fixtures::Case&) {
    return F::smooth_l1_loss(in[0], in[1], "mean", 0.5);
  };
  m["smooth_l1_loss/beta0"] = [](const Leaves& in, const fixtures::Case&) {
    return F::smooth_l1_loss(in[0], in[1], "sum", 0.0);
  };
  m["huber_loss"] = [](const Leaves& in, const fixtures::Case&) { return F::huber_loss(in[0], in[1], "none", 0.7); };
  m["soft_margin_loss"] = [](const Leaves& in, const fixtures::Case&) { return F::soft_margin_loss(in[0], in[1]); };
  m["binary_cross_entropy"] = [](const Leaves& in, const fixtures::Case&) {
    return F::binary_cross_entropy(in[0], in[1], in[2]);
  };
  m["binary_cross_entropy/none"] = [](const Leaves& in, const fixtures::Case&) {
    return F::binary_cross_entropy(in[0], in[1], std::nullopt, "none");
  };
  m["binary_cross_entropy_with_logits"] = [](const Leaves& in, const fixtures::Case&) {
    return F::binary_cross_entropy_with_logits(in[0], in[1], in[2], "mean", in[3]);
  };
  m["binary_cross_entropy_with_logits/plain"] = [](const Leaves& in, const fixtures::Case&) {
    return F::binary_cross_entropy_with_logits(in[0], in[1], std::nullopt, "sum");
  };
  m["kl_div/batchmean"] = [](const Leaves& in, const fixtures::Case&) { return F::kl_div(in[0], in[1], "batchmean"); };
  m["kl_div/log_target"] = [](const Leaves& in, const fixtures::Case&) { return F::kl_div(in[0], in[1], "sum", true); };
  m["poisson_nll_loss"] = [](const Leaves& in, const fixtures::Case&) { return F::poisson_nll_loss(in[0], in[1]); };
  m["poisson_nll_loss/full"] = [](const Leaves& in, const fixtures::Case&) {
    return F::poisson_nll_loss(in[0], in[1], false, true, 1e-8, "none");
  };
  m["gaussian_nll_loss"] = [](const Leaves& in, const fixtures::Case&) {
    return F::gaussian_nll_loss(in[0], in[1], in[2]);
  };
  m["gaussian_nll_loss/full"] = [](const Leaves& in, const fixtures::Case&) {
    return F::gaussian_nll_loss(in[0], in[1], in[2], true, 1e-6, "sum");
  };
  m["gaussian_nll_loss/clamped"] = [](const Leaves& in, const fixtures::Case&) {
    return F::gaussian_nll_loss(in[0], in[1], in[2], false, 0.05, "none");
  };
  m["margin_ranking_loss"] = [](const Leaves& in, const fixtures::Case&) {
    return F::margin_ranking_loss(in[0], in[1], in[2], 0.3);
  };
  m["hinge_embedding_loss"] = [](const Leaves& in, const fixtures::Case&) {
    return F::hinge_embedding_loss(in[0], in[1], 0.8, "none");
  };
  m["cosine_embedding_loss"] = [](const Leaves& in, const fixtures::Case&) {
    return F::cosine_embedding_loss(in[0], in[1], in[2], 0.2);
  };
  m["triplet_margin_loss"] = [](const Leaves& in, const fixtures::Case&) {
    return F::triplet_margin_loss(in[0], in[1], in[2]);
  };
  m["triplet_margin_loss/swap"] = [](const Leaves& in, const fixtures::Case&) {
    return F::triplet_margin_loss(in[0], in[1], in[2], 0.5, 1.0, 1e-6, true, "none");
  };
  m["multilabel_soft_margin_loss"] = [](const Leaves& in, const fixtures::Case&) {
    return F::multilabel_soft_margin_loss(in[0], in[1], in[2]);
  };
  m["nll_loss"] = [](const Leaves& in, const fixtures::Case& c) { return F::nll_loss(in[0], ints(c, "in1")); };
  m["nll_loss/weight_ignore"] = [](const Leaves& in, const fixtures::Case& c) {
    return F::nll_loss(in[0], ints(c, "in1"), in[2]);
  };
  m["nll_loss/none_1d"] = [](const Leaves& in, const fixtures::Case& c) {
    return F::nll_loss(in[0], ints(c, "in1"), std::nullopt, -100, "none");
  };
  m["cross_entropy/spatial"] = [](const Leaves& in, const fixtures::Case& c) {
    return F::cross_entropy(in[0], ints(c, "in1"), std::nullopt, -1, "sum");
  };
  m["cross_entropy"] = [](const Leaves& in, const fixtures::Case& c) {
    return F::cross_entropy(in[0], ints(c, "in1"));
  };
  m["cross_entropy/weight_ignore_smoothing"] = [](const Leaves& in, const fixtures::Case& c) {
    return F::cross_entropy(in[0], ints(c, "in1"), in[2], -100, "mean", 0.2);
  };
  m["cross_entropy/smoothing_none"] = [](const Leaves& in, const fixtures::Case& c) {
    return F::cross_entropy(in[0], ints(c, "in1"), std::nullopt, -100, "none", 0.1);
  };
  m["cross_entropy/probabilities"] = [](const Leaves& in, const fixtures::Case&) {
    return F::cross_entropy(in[0], in[1], in[2], -100, "mean", 0.3);
  };
  m["batch_norm/training"] = [](const Leaves& in, const fixtures::Case& c) {
    const auto rm = c.get<double>("running_mean0"), rv = c.get<double>("running_var0");
    const auto r = F::batch_norm(in[0], rm, rv, in[1], in[2], true, 0.2, 1e-3);
    const auto& after = fixtures::load("nn_functional.txt")["batch_norm/training_stats"];
    fixtures::check_close(rm, after.get<double>("running_mean"), 1e-14, 1e-15, "running_mean");
    fixtures::check_close(rv, after.get<double>("running_var"), 1e-14, 1e-15, "running_var");
    return r;
  };
  m["batch_norm/eval"] = [](const Leaves& in, const fixtures::Case& c) {
    return F::batch_norm(in[0], c.get<double>("running_mean0"), c.get<double>("running_var0"), in[1], in[2], false);
  };
  m["instance_norm"] = [](const Leaves& in, const fixtures::Case&) {
    const auto rm = tl::zeros<double>({3}), rv = tl::ones<double>({3});
    const auto r = F::instance_norm(in[0], rm, rv, in[1], in[2], true, 0.3);
    const auto& after = fixtures::load("nn_functional.txt")["instance_norm/stats"];
    fixtures::check_close(rm, after.get<double>("running_mean"), 1e-14, 1e-15, "instance running_mean");
    fixtures::check_close(rv, after.get<double>("running_var"), 1e-14, 1e-15, "instance running_var");
    return r;
  };
  m["layer_norm"] = [](const Leaves& in, const fixtures::Case&) {
    return F::layer_norm(in[0], {3, 5}, in[1], in[2], 1e-4);
  };
  m["layer_norm/plain"] = [](const Leaves& in, const fixtures::Case&) { return F::layer_norm(in[0], {5}); };
  m["group_norm"] = [](const Leaves& in, const fixtures::Case&) { return F::group_norm(in[0], 3, in[1], in[2]); };
  m["local_response_norm/3d"] = [](const Leaves& in, const fixtures::Case&) {
    return F::local_response_norm(in[0], 3, 1e-2, 0.75, 2.0);
  };
  m["local_response_norm/4d"] = [](const Leaves& in, const fixtures::Case&) {
    return F::local_response_norm(in[0], 4);
  };
  m["normalize"] = [](const Leaves& in, const fixtures::Case&) { return F::normalize(in[0], 1.0, 0); };
  m["linear"] = [](const Leaves& in, const fixtures::Case&) { return F::linear(in[0], in[1], in[2]); };
  m["bilinear"] = [](const Leaves& in, const fixtures::Case&) { return F::bilinear(in[0], in[1], in[2], in[3]); };
  m["embedding/padding_idx"] = [](const Leaves& in, const fixtures::Case& c) {
    return F::embedding(ints(c, "in0"), in[1], 2);
  };
  m["glu"] = [](const Leaves& in, const fixtures::Case&) { return F::glu(in[0], 1); };
  m["softmin"] = [](const Leaves& in, const fixtures::Case&) { return F::softmin(in[0], 1); };
  m["prelu"] = [](const Leaves& in, const fixtures::Case&) { return F::prelu(in[0], in[1]); };
  m["prelu/shared"] = [](const Leaves& in, const fixtures::Case&) { return F::prelu(in[0], in[1]); };
  m["rrelu/eval"] = [](const Leaves& in, const fixtures::Case&) { return F::rrelu(in[0], 0.1, 0.3); };
  m["pixel_shuffle"] = [](const Leaves& in, const fixtures::Case&) { return F::pixel_shuffle(in[0], 2); };
  m["pixel_unshuffle"] = [](const Leaves& in, const fixtures::Case&) { return F::pixel_unshuffle(in[0], 2); };
  m["channel_shuffle"] = [](const Leaves& in, const fixtures::Case&) { return F::channel_shuffle(in[0], 3); };
  const std::map<std::string, F::InterpolateOptions> interpolations = {
      {"nearest_1d", {.size = tl::Shape{8}}},
      {"nearest_down", {.size = tl::Shape{4, 5}}},
      {"nearest_scale", {.scale_factor = {1.7}}},
      {"nearest_double", {.scale_factor = {2.0}}},
      {"nearest_exact", {.size = tl::Shape{7, 4}, .mode = "nearest-exact"}},
      {"linear", {.size = tl::Shape{9}, .mode = "linear"}},
      {"linear_align", {.size = tl::Shape{9}, .mode = "linear", .align_corners = true}},
      {"bilinear", {.size = tl::Shape{7, 3}, .mode = "bilinear"}},
      {"bilinear_scale", {.scale_factor = {1.5, 2.3}, .mode = "bilinear"}},
      {"bilinear_recompute", {.scale_factor = {1.5, 2.3}, .mode = "bilinear", .recompute_scale_factor = true}},
      {"bilinear_align", {.size = tl::Shape{7, 3}, .mode = "bilinear", .align_corners = true}},
      {"bicubic", {.size = tl::Shape{7, 9}, .mode = "bicubic"}},
      {"bicubic_align", {.size = tl::Shape{3, 8}, .mode = "bicubic", .align_corners = true}},
      {"trilinear", {.size = tl::Shape{5, 3, 6}, .mode = "trilinear"}},
      {"area", {.size = tl::Shape{3, 4}, .mode = "area"}},
      {"nearest_3d", {.scale_factor = {2.0, 1.5, 3.0}}},
  };
  m["multi_margin_loss"] = [](const Leaves& in, const fixtures::Case& c) {
    return F::multi_margin_loss(in[0], ints(c, "in1"));
  };
  m["multi_margin_loss/p2_weight"] = [](const Leaves& in, const fixtures::Case& c) {
    return F::multi_margin_loss(in[0], ints(c, "in1"), 2, 0.7, in[2], "none");
  };
  m["multilabel_margin_loss"] = [](const Leaves& in, const fixtures::Case& c) {
    return F::multilabel_margin_loss(in[0], ints(c, "in1"));
  };
  m["multilabel_margin_loss/none"] = [](const Leaves& in, const fixtures::Case& c) {
    return F::multilabel_margin_loss(in[0], ints(c, "in1"), "none");
  };
  m["embedding_bag/mean"] = [](const Leaves& in, const fixtures::Case& c) {
    return F::embedding_bag(ints(c, "in0"), in[1], ints(c, "in2"));
  };
  m["embedding_bag/sum_weights"] = [](const Leaves& in, const fixtures::Case& c) {
    return F::embedding_bag(ints(c, "in0"), in[1], ints(c, "in2"), "sum", in[3]);
  };
  m["embedding_bag/max_2d"] = [](const Leaves& in, const fixtures::Case& c) {
    return F::embedding_bag(ints(c, "in0"), in[1], std::nullopt, "max");
  };
  m["embedding_bag/padding_last_offset"] = [](const Leaves& in, const fixtures::Case& c) {
    return F::embedding_bag(ints(c, "in0"), in[1], ints(c, "in2"), "mean", std::nullopt, true, 4);
  };
  m["affine_grid"] = [](const Leaves& in, const fixtures::Case&) { return F::affine_grid(in[0], {2, 3, 4, 5}); };
  m["affine_grid/align_3d"] = [](const Leaves& in, const fixtures::Case&) {
    return F::affine_grid(in[0], {1, 2, 3, 2, 4}, true);
  };
  for (const char* mode : {"bilinear", "nearest", "bicubic"})
    for (const char* padding : {"zeros", "border", "reflection"})
      for (bool align : {false, true})
        m[std::string("grid_sample/") + mode + "_" + padding + "_" + (align ? "1" : "0")] =
            [mode, padding, align](const Leaves& in, const fixtures::Case&) {
              return F::grid_sample(in[0], in[1], mode, padding, align);
            };
  m["grid_sample/3d"] = [](const Leaves& in, const fixtures::Case&) { return F::grid_sample(in[0], in[1]); };
  m["sdpa"] = [](const Leaves& in, const fixtures::Case&) {
    return F::scaled_dot_product_attention(in[0], in[1], in[2]);
  };
  m["sdpa/causal_scale"] = [](const Leaves& in, const fixtures::Case&) {
    return F::scaled_dot_product_attention(in[0], in[1], in[2], 0.0, true, 0.3);
  };
  m["sdpa/bool_mask"] = [](const Leaves& in, const fixtures::Case& c) {
    return F::scaled_dot_product_attention(in[0], in[1], in[2], c.get<bool>("in3"));
  };
  m["sdpa/float_mask"] = [](const Leaves& in, const fixtures::Case&) {
    return F::scaled_dot_product_attention(in[0], in[1], in[2], in[3]);
  };
  m["triplet_margin_with_distance_loss"] = [](const Leaves& in, const fixtures::Case&) {
    return F::triplet_margin_with_distance_loss(in[0], in[1], in[2]);
  };
  m["triplet_margin_with_distance_loss/cosine_swap"] = [](const Leaves& in, const fixtures::Case&) {
    return F::triplet_margin_with_distance_loss<double>(
        in[0], in[1], in[2],
        [](const tl::Tensor<double>& a, const tl::Tensor<double>& b) {
          return tl::Tensor<double>(1.0 - tl::cosine_similarity(a, b));
        },
        0.4, true, "sum");
  };
  // CTC of log_softmax(logits): the gradients are the logits' (Note [CTC by recorded ops]).
  for (const char* red : {"mean", "sum", "none"})
    m[std::string("ctc_loss/") + red] = [red](const Leaves& in, const fixtures::Case& c) {
      return F::ctc_loss(tl::log_softmax(in[0], 2), ints(c, "in1"), ints(c, "in2"), ints(c, "in3"), 0, red);
    };
  m["ctc_loss/concatenated"] = [](const Leaves& in, const fixtures::Case& c) {
    return F::ctc_loss(tl::log_softmax(in[0], 2), ints(c, "in1"), ints(c, "in2"), ints(c, "in3"), 0, "sum");
  };
  m["ctc_loss/zero_infinity"] = [](const Leaves& in, const fixtures::Case& c) {
    return F::ctc_loss(tl::log_softmax(in[0], 2), ints(c, "in1"), ints(c, "in2"), ints(c, "in3"), 0, "none", true);
  };
  for (const auto& [name, options] : interpolations)
    m["interpolate/" + name] = [options = options](const Leaves& in, const fixtures::Case&) {
      return F::interpolate(in[0], options);
    };
  return m;
}

}  // namespace

TEST_CASE("nn::functional losses, normalizations and layers against PyTorch: values and gradients") {
  const auto& f = fixtures::load("nn_functional.txt");
  const auto table = calls();
  int ran = 0;
  for (const auto& [name, call] : table) {
    INFO(name);
    const auto& c = f[name];
    Leaves leaves;
    std::vector<tl::Tensor<double>> differentiated;
    std::vector<std::string> grad_keys;
    for (int i = 0; c.tensors.count("in" + std::to_string(i)); ++i) {
      const std::string key = "in" + std::to_string(i);
      if (c.tensor(key).dtype != "float64") {
        leaves.emplace_back();
        continue;
      }
      auto t = c.get<double>(key);
      if (c.tensors.count("g" + std::to_string(i))) {
        t.requires_grad_();
        differentiated.push_back(t);
        grad_keys.push_back("g" + std::to_string(i));
      }
      leaves.push_back(t);
    }
    const auto r = call(leaves, c);
    fixtures::check_close(r, c.get<double>("r"), 1e-12, 1e-13, name);
    if (c.tensors.count("g")) {
      REQUIRE(!differentiated.empty());
      const auto grads = tl::autograd::grad({r}, differentiated, {c.get<double>("g")});
      for (std::size_t i = 0; i < grads.size(); ++i)
        fixtures::check_close(grads[i], c.get<double>(grad_keys[i]), 1e-11, 1e-13, name + " " + grad_keys[i]);
    }
    ++ran;
  }
  CHECK(ran == 111);
  // embedding's max_norm renormalizes the rows it reads, in place.
  const auto& e = f["embedding/max_norm"];
  const auto weight = e.get<double>("in1");
  fixtures::check_close(F::embedding(e.get<int64_t>("in0"), weight, std::nullopt, 2.0), e.get<double>("r"), 1e-12,
                        1e-13, "embedding max_norm");
  fixtures::check_close(weight, e.get<double>("weight_after"), 1e-12, 1e-13, "embedding max_norm weight");
  const auto& oh = f["one_hot"];
  CHECK(tl::equal(F::one_hot(oh.get<int64_t>("in0"), 7), oh.get<int64_t>("r")));
  CHECK(tl::equal(F::one_hot(oh.get<int64_t>("in0")), oh.get<int64_t>("r_inferred")));
}

TEST_CASE("nn::functional edge cases PyTorch defines: BCE at 0 and 1, hinges at the hinge, prelu at 0") {
  // binary_cross_entropy's gradient is PyTorch's formula, finite at 0 and 1.
  auto p = tl::tensor<double>({1.0, 0.0, 1.0, 0.0, 1e-15}).requires_grad_();
  const auto t = tl::tensor<double>({1.0, 0.0, 0.0, 1.0, 1.0});
  const auto l = F::binary_cross_entropy(p, t, std::nullopt, "none");
  fixtures::check_close(l.detach(), tl::tensor<double>({0.0, 0.0, 100.0, 100.0, 34.538776394910684}), 1e-15, 0,
                        "bce at the ends");
  l.sum().backward();
  fixtures::check_close(p.grad(),
                        tl::tensor<double>({0.0, 0.0, 1000000003995.8029, -1000000003995.8029, -1000000003995.8018}),
                        1e-15, 0, "bce gradient at the ends");
  // Hinges pass the gradient at the hinge (clamp_min), as PyTorch's.
  auto a = tl::tensor<double>({1.0}).requires_grad_(), b = tl::tensor<double>({1.0}).requires_grad_();
  F::margin_ranking_loss(a, b, tl::tensor<double>({1.0})).backward();
  CHECK(a.grad().item() == -1.0);
  CHECK(b.grad().item() == 1.0);
  auto h = tl::tensor<double>({1.0}).requires_grad_();
  F::hinge_embedding_loss(h, tl::tensor<double>({-1.0}), 1.0).backward();
  CHECK(h.grad().item() == -1.0);
  // prelu at 0 takes the weight's slope; a 0-d input stays 0-d.
  auto z = tl::tensor<double>({{0.0}}).requires_grad_();
  F::prelu(z, tl::tensor<double>({0.25})).sum().backward();
  CHECK(z.grad().item() == 0.25);
  CHECK(F::prelu(tl::tensor<double>(-2.0), tl::tensor<double>({0.25})).dim() == 0);
  // gaussian_nll_loss of 0-d input and target with var [1].
  CHECK(F::gaussian_nll_loss(tl::tensor<double>(1.0), tl::tensor<double>(0.0), tl::tensor<double>({2.0})).item() ==
        doctest::Approx(0.5965735902799727).epsilon(1e-14));
  // Empty batches normalize to empty results.
  CHECK(F::batch_norm(tl::ones<double>({0, 3}), std::nullopt, std::nullopt, std::nullopt, std::nullopt, true).sizes() ==
        tl::Shape{0, 3});
  CHECK(F::group_norm(tl::ones<double>({0, 4, 2}), 2).sizes() == tl::Shape{0, 4, 2});
  CHECK(F::instance_norm(tl::ones<double>({0, 4, 2})).sizes() == tl::Shape{0, 4, 2});
  CHECK(F::local_response_norm(tl::ones<double>({0, 4, 2, 2}), 2).sizes() == tl::Shape{0, 4, 2, 2});
  // dropout2d reads a 3-D input as (N, C, L): whole rows drop.
  tl::Generator gen(4);
  const auto rows = F::dropout2d(tl::ones<double>({4, 30, 5}), 0.5, true, gen);
  CHECK(tl::equal(rows.amax(2), rows.amin(2)));
  CHECK(!tl::equal(rows.amax({1, 2}), rows.amin({1, 2})));
}

TEST_CASE("nn::functional edge cases of the second review: -inf in CTC, last offsets, nearest scales") {
  // Classes masked with -inf: the loss is +inf (or 0 with zero_infinity), not NaN.
  const double inf = std::numeric_limits<double>::infinity();
  auto lp = tl::log_softmax(tl::zeros<double>({3, 1, 4}), 2);
  lp = lp.index_fill(2, tl::tensor<int64_t>({0, 1}), -inf);
  lp.select(0, 1).select(0, 0).fill_(-inf);
  const auto targets = tl::tensor<int64_t>({{1, 2}});
  CHECK(std::isinf(F::ctc_loss(lp, targets, tl::tensor<int64_t>({3}), tl::tensor<int64_t>({2}), 0, "sum").item()));
  CHECK(F::ctc_loss(lp, targets, tl::tensor<int64_t>({3}), tl::tensor<int64_t>({2}), 0, "sum", true).item() == 0.0);
  // include_last_offset: elements after the last offset belong to no bag.
  const auto weight = tl::arange<double>(0, 12).reshape({6, 2});
  CHECK(tl::equal(
      F::embedding_bag(tl::arange<int64_t>(0, 6), weight, tl::tensor<int64_t>({0, 2, 4}), "sum", std::nullopt, true),
      tl::tensor<double>({{2.0, 4.0}, {10.0, 12.0}})));
  CHECK(F::embedding_bag(tl::arange<int64_t>(0, 6), weight, tl::tensor<int64_t>({0}), "sum", std::nullopt, true)
            .sizes() == tl::Shape{0, 2});
  // nearest with a scale factor has no shortcut for equal or doubled sizes (PyTorch's [0, 0, 1]).
  const auto row = tl::tensor<double>({{{10.0, 20.0, 30.0}}});
  CHECK(tl::equal(F::interpolate(row, {.scale_factor = {1.3}}), tl::tensor<double>({{{10.0, 10.0, 20.0}}})));
  CHECK(tl::equal(F::interpolate(row, {.scale_factor = {2.1}}),
                  tl::tensor<double>({{{10.0, 10.0, 10.0, 20.0, 20.0, 30.0}}})));
  // nearest-exact in double from 2 to 41: index 20 reads element 1, as PyTorch's double arithmetic.
  const auto two = tl::tensor<double>({{{1.0, 2.0}}});
  CHECK(F::interpolate(two, {.size = tl::Shape{41}, .mode = "nearest-exact"}).select(-1, 20).item() == 2.0);
  // 0-d multi_margin_loss input; a NaN in a grid gives NaN, not a crash.
  CHECK(F::multi_margin_loss(tl::tensor<double>(1.0), tl::tensor<int64_t>(0)).item() == 0.0);
  const auto nan_grid = tl::full<double>({1, 1, 1, 2}, std::numeric_limits<double>::quiet_NaN());
  CHECK(std::isnan(F::grid_sample(tl::ones<double>({1, 1, 2, 2}), nan_grid).item()));
  // sparse_ with a sparsity above 1 zeroes every row.
  auto s = tl::empty<double>({3, 2});
  tl::nn::init::sparse_(s, 1.5);
  CHECK(s.abs().max().item() == 0.0);
  auto empty_weight = tl::empty<float>({3, 0});
  tl::nn::init::kaiming_uniform_(empty_weight);
  CHECK(empty_weight.numel() == 0);
}

TEST_CASE("dropout: laws of the masks, the scale, eval mode and gradients") {
  tl::Generator gen(3);
  const auto x = tl::ones<double>({200, 50});
  for (double p : {0.2, 0.5, 0.9}) {
    auto leaf = x.clone().requires_grad_();
    const auto y = F::dropout(leaf, p, true, gen);
    const auto kept = tl::Tensor<double>(tl::cast<double>(tl::ne(y, 0.0)));
    // Kept elements scaled by 1 / (1 - p); the kept fraction near 1 - p.
    CHECK(tl::equal(y, tl::Tensor<double>(kept * (1 / (1 - p)))));
    CHECK(std::abs(kept.mean().item() - (1 - p)) < 0.03);
    y.sum().backward();
    CHECK(tl::equal(leaf.grad(), y));
  }
  CHECK(F::dropout(x, 0.5, false).is_same(x));
  CHECK(tl::equal(F::dropout(x, 1.0, true, gen), tl::zeros<double>({200, 50})));
  // Channel dropouts zero whole planes.
  const auto planes = F::dropout2d(tl::ones<double>({4, 30, 3, 3}), 0.5, true, gen);
  const auto per_plane = planes.amax({2, 3}), per_plane_min = planes.amin({2, 3});
  CHECK(tl::equal(per_plane, per_plane_min));
  CHECK(F::dropout1d(tl::ones<double>({4, 6, 5}), 0.5, true, gen).sizes() == tl::Shape{4, 6, 5});
  CHECK(F::dropout3d(tl::ones<double>({6, 2, 2, 2}), 0.5, true, gen).sizes() == tl::Shape{6, 2, 2, 2});
  // Alpha dropout keeps mean 0 and variance 1 of a standard normal input.
  const auto z = tl::randn<double>({400000}, gen);
  const auto a = F::alpha_dropout(z, 0.3, true, gen);
  CHECK(std::abs(a.mean().item()) < 0.01);
  CHECK(std::abs(a.var().item() - 1) < 0.02);
  CHECK(F::alpha_dropout(z, 0.3, false).is_same(z));
  const auto fa = F::feature_alpha_dropout(tl::randn<double>({8, 16, 4}, gen), 0.5, true, gen);
  CHECK(fa.sizes() == tl::Shape{8, 16, 4});
  // rrelu while training: negative inputs scaled by slopes in [lower, upper].
  const auto neg = tl::full<double>({1000}, -1.0);
  const auto rr = F::rrelu(neg, 0.1, 0.3, true, gen);
  CHECK(rr.max().item() <= -0.1);
  CHECK(rr.min().item() >= -0.3);
}

TEST_CASE("gumbel_softmax: distributions, one-hot samples, straight-through gradients") {
  tl::Generator gen(8);
  auto logits = tl::tensor<double>({{1.0, 2.0, 0.5}, {0.0, -1.0, 3.0}}).requires_grad_();
  const auto soft = F::gumbel_softmax(logits, 0.5, false, -1, gen);
  fixtures::check_close(soft.sum(-1).detach(), tl::ones<double>({2}), 1e-15, 1e-15, "soft rows sum to 1");
  const auto hard = F::gumbel_softmax(logits, 0.5, true, -1, gen);
  CHECK(tl::equal(hard.detach().sum(-1), tl::ones<double>({2})));
  CHECK(tl::equal(tl::Tensor<double>(hard.detach() * (1.0 - hard.detach())), tl::zeros<double>({2, 3})));
  (hard * tl::tensor<double>({1.0, 2.0, 3.0})).sum().backward();
  CHECK(logits.grad().defined());
  // The sample frequencies follow softmax(logits) (tau does not change them).
  const auto row = tl::tensor<double>({1.0, 2.0, 0.5});
  tl::Tensor<double> counts = tl::zeros<double>({3});
  for (int i = 0; i < 4000; ++i) counts = counts + F::gumbel_softmax(row, 1.0, true, -1, gen);
  const auto expected = tl::softmax(row, 0);
  for (int64_t j = 0; j < 3; ++j)
    CHECK(std::abs(counts.select(0, j).item() / 4000 - expected.select(0, j).item()) < 0.03);
  // scaled_dot_product_attention's dropout is F.dropout of the attention weights.
  const auto q = tl::randn<double>({2, 3, 4}, gen), k = tl::randn<double>({2, 5, 4}, gen),
             v = tl::randn<double>({2, 5, 2}, gen);
  tl::Generator g1(5), g2(5);
  const auto weights = tl::softmax(tl::Tensor<double>(tl::matmul(q, k.transpose(-2, -1)) * 0.5), -1);
  fixtures::check_close(F::scaled_dot_product_attention(q, k, v, 0.4, false, std::nullopt, g1),
                        tl::matmul(F::dropout(weights, 0.4, true, g2), v), 1e-14, 1e-15, "attention dropout");
}

TEST_CASE("nn::functional: gradchecks and PyTorch's errors") {
  using Inputs = std::vector<tl::Tensor<double>>;
  tl::Generator gen(21);
  auto x = (tl::rand<double>({3, 4}, gen) * 2.0 - 1.0).eval().requires_grad_();
  auto t = tl::rand<double>({3, 4}, gen).requires_grad_();
  CHECK(tl::autograd::gradgradcheck([](const Inputs& in) { return F::binary_cross_entropy_with_logits(in[0], in[1]); },
                                    {x, t}));
  CHECK(tl::autograd::gradgradcheck(
      [](const Inputs& in) {
        return F::cross_entropy(in[0], tl::tensor<int64_t>({1, 3, 0}), std::nullopt, -100, "mean", 0.1);
      },
      {x}));
  CHECK(tl::autograd::gradgradcheck([](const Inputs& in) { return F::layer_norm(in[0], {4}); }, {x}));
  CHECK(tl::autograd::gradgradcheck([](const Inputs& in) { return F::group_norm(in[0].reshape({1, 4, 3}), 2); }, {x}));
  // The resampling, sampling, attention and sequence losses, first order in
  // every differentiable input (values away from the kinks).
  auto img = (tl::rand<double>({1, 2, 3, 4}, gen) * 2.0 - 1.0).eval().requires_grad_();
  CHECK(tl::autograd::gradcheck(
      [](const Inputs& in) {
        return F::interpolate(in[0], {.size = tl::Shape{5, 6}, .mode = "bicubic"});
      },
      {img}));
  CHECK(tl::autograd::gradcheck(
      [](const Inputs& in) {
        return F::interpolate(in[0], {.scale_factor = {1.7}, .mode = "bilinear", .align_corners = true});
      },
      {img}));
  auto grid = (tl::rand<double>({1, 2, 3, 2}, gen) * 1.6 - 0.8).eval().requires_grad_();
  for (const char* padding : {"zeros", "border", "reflection"})
    for (const char* mode : {"bilinear", "bicubic"}) {
      INFO(mode << " " << padding);
      CHECK(tl::autograd::gradcheck(
          [mode, padding](const Inputs& in) { return F::grid_sample(in[0], in[1], mode, padding); }, {img, grid}));
    }
  auto theta = tl::rand<double>({1, 2, 3}, gen).requires_grad_();
  CHECK(tl::autograd::gradcheck([](const Inputs& in) { return F::affine_grid(in[0], {1, 1, 3, 2}); }, {theta}));
  auto q = tl::rand<double>({2, 3, 4}, gen).requires_grad_(), k = tl::rand<double>({2, 5, 4}, gen).requires_grad_(),
       v = tl::rand<double>({2, 5, 2}, gen).requires_grad_();
  CHECK(tl::autograd::gradcheck(
      [](const Inputs& in) { return F::scaled_dot_product_attention(in[0], in[1], in[2], 0.0, true); }, {q, k, v}));
  auto ctc_logits = tl::rand<double>({6, 2, 4}, gen).requires_grad_();
  CHECK(tl::autograd::gradcheck(
      [](const Inputs& in) {
        return F::ctc_loss(tl::log_softmax(in[0], 2), tl::tensor<int64_t>({{1, 2, 2}, {3, 1, 0}}),
                           tl::tensor<int64_t>({6, 5}), tl::tensor<int64_t>({3, 2}), 0, "none");
      },
      {ctc_logits}));
  auto table = tl::rand<double>({5, 3}, gen).requires_grad_();
  CHECK(tl::autograd::gradcheck(
      [](const Inputs& in) {
        return F::embedding_bag(tl::tensor<int64_t>({0, 2, 4, 1, 2}), in[0], tl::tensor<int64_t>({0, 2}), "mean");
      },
      {table}));

  const auto logits = tl::zeros<float>({3, 4});
  CHECK(fixtures::error_message([&] {
          (void)F::cross_entropy(logits, tl::tensor<int64_t>({0, 4, 1}));
        }) == "cross_entropy: Target 4 is out of bounds.");
  CHECK(fixtures::error_message([&] {
          (void)F::nll_loss(logits, tl::tensor<int64_t>({0, 1}));
        }) == "nll_loss: Expected input batch_size (3) to match target batch_size (2).");
  CHECK(fixtures::error_message([&] {
          (void)F::nll_loss(logits, tl::tensor<int64_t>({0, 1, 2}), tl::ones<float>({3}));
        }) ==
        "nll_loss: weight tensor should be defined either for all 4 classes or no classes but got weight tensor of "
        "shape: [3]");
  CHECK(fixtures::error_message([&] { (void)F::mse_loss(logits, logits, "avg"); }) ==
        "avg is not a valid value for reduction");
  CHECK(fixtures::error_message([&] { (void)F::binary_cross_entropy(tl::Tensor<float>(logits + 2.f), logits); }) ==
        "binary_cross_entropy: all elements of input should be between 0 and 1");
  CHECK(fixtures::error_message([&] {
          (void)F::cross_entropy(logits, tl::tensor<int64_t>({0, 1, 2}), std::nullopt, -100, "mean", 1.5);
        }) == "cross_entropy: label_smoothing must be between 0.0 and 1.0. Got: 1.5");
  CHECK(fixtures::error_message([&] {
          (void)F::batch_norm(tl::ones<float>({1, 3}), std::nullopt, std::nullopt, std::nullopt, std::nullopt, true);
        }) == "batch_norm: Expected more than 1 value per channel when training, got input size [1, 3]");
  CHECK(fixtures::error_message([&] { (void)F::layer_norm(logits, {3}); }) ==
        "layer_norm: Given normalized_shape=[3], expected input with shape [*, 3], but got input of size[3, 4]");
  CHECK(fixtures::error_message([&] {
          (void)F::group_norm(tl::ones<float>({2, 6, 4}), 4);
        }) ==
        "group_norm: Expected number of channels in input to be divisible by num_groups, but got input of shape "
        "[2, 6, 4] and num_groups=4");
  CHECK(fixtures::error_message([&] {
          (void)F::glu(tl::ones<float>({3, 5}));
        }) == "glu: Halving dimension must be even, but dimension 1 is size 5");
  CHECK(fixtures::error_message([&] {
          (void)F::prelu(tl::ones<float>({2, 4}), tl::ones<float>({3}));
        }) ==
        "prelu: Mismatch of parameter numbers and input channel size. Found parameter numbers = 3 and channel size = "
        "4.");
  CHECK(fixtures::error_message([&] { (void)F::dropout(logits, 1.5); }) ==
        "dropout: dropout probability has to be between 0 and 1, but got 1.5");
  CHECK(fixtures::error_message([&] {
          (void)F::one_hot(tl::tensor<int64_t>({0, 3}), 3);
        }) == "one_hot: Class values must be smaller than num_classes.");
  CHECK(fixtures::error_message([&] {
          (void)F::pixel_shuffle(tl::ones<float>({1, 6, 2, 2}), 2);
        }) ==
        "pixel_shuffle expects its input's 'channel' dimension to be divisible by the square of upscale_factor, but "
        "input.size(-3)=6 is not divisible by 4");
}
