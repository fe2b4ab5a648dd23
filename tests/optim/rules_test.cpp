// Every update rule against PyTorch trajectories (tests/fixtures/optim.txt,
// made by tests/fixtures/generate_optim.py): 100 steps of each rule with its
// main option combinations on loss = mean((tanh(X @ W + b) - Y)^2), the
// parameters compared after every step. NAdam and RAdam follow current
// PyTorch where 1.13 differs (see the script): NAdam's mu_product_next and
// the decoupled_weight_decay/maximize options.

#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include <tensorlib/tensorlib.hpp>

#include "fixtures.hpp"

namespace {

// Norm-wise relative error max|a - e| / max|e| of one parameter tensor:
// elements that pass near zero carry the absolute rounding error of their
// larger past values, which an element-wise relative bound would magnify.
// The rules round like PyTorch's CPU kernels, which fuse the multiply-adds of
// add(alpha=) and addcmul (AVX2 + FMA); built for a target with FMA the
// replayed trajectories are bit-identical for all but RAdam (~5e-8). Without
// FMA (the sanitizer build targets baseline x86-64) each multiply-add rounds
// twice and 100 steps drift apart by up to ~4e-5 (Adamax, whose max() picks
// between near ties).
#if defined(__FMA__)
constexpr double kRtol = 1e-6;
#else
constexpr double kRtol = 1e-4;
#endif

double worst_relative(const tl::Tensor<float>& actual, const tl::Tensor<float>& expected) {
  const auto a = actual.to_vector(), e = expected.to_vector();
  double diff = 0, scale = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (!std::isfinite(a[i])) return INFINITY;  // std::max would drop a NaN
    diff = std::max(diff, std::fabs(double(a[i]) - double(e[i])));
    scale = std::max(scale, std::fabs(double(e[i])));
  }
  return diff / scale;
}

tl::Tensor<float> loss_of(const tl::Tensor<float>& x, const tl::Tensor<float>& y, const tl::Tensor<float>& w,
                          const tl::Tensor<float>& b) {
  return tl::square(tl::tanh(tl::matmul(x, w) + b) - y).mean();
}

// Runs 100 steps of Opt with `options` and checks the parameters after every
// step against the fixture case `name`. Replaying PyTorch's gradients (the
// default) checks the rule alone, to kRtol; with `backward`, the gradients
// come from our autograd, whose float rounding differs from PyTorch's by a
// few ulps per step, so the trajectories agree to `rtol` only.
template <template <class> class Opt, class Options>
void check_rule(const std::string& name, const Options& options, bool backward = false, double rtol = kRtol) {
  const auto& problem = fixtures::load("optim.txt")["problem"];
  const auto& expected = fixtures::load("optim.txt")[name];
  const auto x = problem.get<float>("X"), y = problem.get<float>("Y");
  auto w = problem.get<float>("W0").requires_grad_();
  auto b = problem.get<float>("b0").requires_grad_();
  const auto ew = expected.get<float>("W"), eb = expected.get<float>("b");
  const auto gw = expected.get<float>("gW"), gb = expected.get<float>("gb");
  Opt<float> opt(std::vector{w, b}, options);
  double worst = 0;
  for (int64_t step = 0; step < ew.size(0); ++step) {
    opt.zero_grad();
    if (backward) {
      loss_of(x, y, w, b).backward();
    } else {
      w.set_grad(gw.select(0, step).clone());
      b.set_grad(gb.select(0, step).clone());
    }
    opt.step();
    worst = std::max({worst, worst_relative(w, ew.select(0, step)), worst_relative(b, eb.select(0, step))});
  }
  CHECK_MESSAGE(worst <= rtol,
                name << std::string(backward ? " (our gradients)" : "") << ": worst relative error " << worst);
}

}  // namespace

namespace o = tl::optim;

TEST_CASE("SGD trajectories match PyTorch") {
  check_rule<o::SGD>("sgd/plain", o::SGDOptions{.lr = 0.1});
  check_rule<o::SGD>("sgd/momentum",
                     o::SGDOptions{.lr = 0.05, .momentum = 0.9, .dampening = 0.1, .weight_decay = 0.01});
  check_rule<o::SGD>("sgd/nesterov", o::SGDOptions{.lr = 0.05, .momentum = 0.9, .nesterov = true});
  check_rule<o::SGD>("sgd/maximize", o::SGDOptions{.lr = 0.01, .momentum = 0.5, .maximize = true});
}

TEST_CASE("Adam and AdamW trajectories match PyTorch") {
  check_rule<o::Adam>("adam/default", o::AdamOptions{.lr = 0.01});
  check_rule<o::Adam>("adam/amsgrad_wd",
                      o::AdamOptions{.lr = 0.01, .betas = {0.8, 0.99}, .weight_decay = 0.1, .amsgrad = true});
  check_rule<o::Adam>("adam/maximize", o::AdamOptions{.lr = 0.01, .maximize = true});
  check_rule<o::AdamW>("adamw/default", o::AdamWOptions{.lr = 0.01});
  check_rule<o::AdamW>("adamw/amsgrad", o::AdamWOptions{.lr = 0.01, .weight_decay = 0.1, .amsgrad = true});
}

TEST_CASE("Adamax NAdam and RAdam trajectories match PyTorch") {
  check_rule<o::Adamax>("adamax/default", o::AdamaxOptions{.lr = 0.02});
  check_rule<o::Adamax>("adamax/wd_maximize", o::AdamaxOptions{.lr = 0.01, .weight_decay = 0.1, .maximize = true});
  check_rule<o::NAdam>("nadam/default", o::NAdamOptions{.lr = 0.01});
  check_rule<o::NAdam>("nadam/wd", o::NAdamOptions{.lr = 0.01, .weight_decay = 0.1, .momentum_decay = 0.01});
  check_rule<o::NAdam>(
      "nadam/decoupled_maximize",
      o::NAdamOptions{.lr = 0.01, .weight_decay = 0.1, .decoupled_weight_decay = true, .maximize = true});
  check_rule<o::RAdam>("radam/default", o::RAdamOptions{.lr = 0.01});
  check_rule<o::RAdam>("radam/wd", o::RAdamOptions{.lr = 0.01, .weight_decay = 0.1});
  check_rule<o::RAdam>(
      "radam/decoupled_maximize",
      o::RAdamOptions{.lr = 0.01, .weight_decay = 0.1, .decoupled_weight_decay = true, .maximize = true});
}

TEST_CASE("RMSprop Adagrad and Adadelta trajectories match PyTorch") {
  check_rule<o::RMSprop>("rmsprop/default", o::RMSpropOptions{.lr = 0.01});
  check_rule<o::RMSprop>("rmsprop/centered", o::RMSpropOptions{.lr = 0.01, .centered = true});
  check_rule<o::RMSprop>("rmsprop/momentum", o::RMSpropOptions{.lr = 0.01, .alpha = 0.9, .momentum = 0.9});
  check_rule<o::RMSprop>("rmsprop/centered_momentum_wd",
                         o::RMSpropOptions{.lr = 0.005, .weight_decay = 0.1, .momentum = 0.5, .centered = true});
  check_rule<o::Adagrad>("adagrad/default", o::AdagradOptions{.lr = 0.1});
  check_rule<o::Adagrad>(
      "adagrad/decay_init_wd",
      o::AdagradOptions{
          .lr = 0.1, .lr_decay = 0.01, .weight_decay = 0.1, .initial_accumulator_value = 0.5, .maximize = true});
  check_rule<o::Adadelta>("adadelta/default", o::AdadeltaOptions{});
  check_rule<o::Adadelta>("adadelta/wd_rho", o::AdadeltaOptions{.lr = 0.5, .rho = 0.95, .weight_decay = 0.1});
}

TEST_CASE("closed-loop training with our gradients follows PyTorch") {
  check_rule<o::SGD>("sgd/nesterov", o::SGDOptions{.lr = 0.05, .momentum = 0.9, .nesterov = true}, true, 1e-4);
  check_rule<o::Adam>("adam/default", o::AdamOptions{.lr = 0.01}, true, 1e-4);
  check_rule<o::RMSprop>("rmsprop/momentum", o::RMSpropOptions{.lr = 0.01, .alpha = 0.9, .momentum = 0.9}, true, 1e-4);
}

TEST_CASE("Rprop and ASGD trajectories match PyTorch") {
  check_rule<o::Rprop>("rprop/default", o::RpropOptions{.lr = 0.01});
  check_rule<o::Rprop>("rprop/custom",
                       o::RpropOptions{.lr = 0.02, .etas = {0.3, 1.5}, .step_sizes = {1e-4, 0.05}, .maximize = true});
  check_rule<o::ASGD>("asgd/default", o::ASGDOptions{.lr = 0.05});
  check_rule<o::ASGD>("asgd/averaging",
                      o::ASGDOptions{.lr = 0.05, .lambd = 1e-3, .alpha = 0.5, .t0 = 20, .weight_decay = 0.01});
}
