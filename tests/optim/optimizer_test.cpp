// Optimizer<Rule, T> itself: the fused step (counters), state dicts that
// resume bit-exactly, parameter groups, zero_grad, closures, schedulers on
// a real optimizer, misuse with PyTorch's messages, and gradient clipping.

#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include <tensorlib/tensorlib.hpp>

namespace o = tl::optim;

namespace {

tl::Tensor<float> seeded_randn(const tl::Shape& sizes, uint64_t seed) {
  tl::Generator gen(seed);
  return tl::randn(sizes, gen);
}

// A small problem with a parameter of each kind of layout: a matrix, a
// vector and a 0-d scalar.
struct Problem {
  tl::Tensor<float> x = seeded_randn({6, 4}, 1);
  tl::Tensor<float> y = seeded_randn({6, 3}, 2);
  std::vector<tl::Tensor<float>> params{seeded_randn({4, 3}, 3).requires_grad_(), seeded_randn({3}, 4).requires_grad_(),
                                        tl::full<float>({}, 0.5f).requires_grad_()};

  tl::Tensor<float> loss() const {
    return tl::square(tl::tanh(tl::matmul(x, params[0]) + params[1]) * params[2] - y).mean();
  }
  template <class Opt>
  void train(Opt& opt, int steps) const {
    for (int i = 0; i < steps; ++i) {
      opt.zero_grad();
      loss().backward();
      opt.step();
    }
  }
  // Bit patterns, so that the resume test demands identity.
  std::vector<float> values() const {
    std::vector<float> v;
    for (const auto& p : params)
      for (float f : p.contiguous().to_vector()) v.push_back(f);
    return v;
  }
};

bool identical(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

// 100 uninterrupted steps against 50 + save + load into a fresh optimizer
// (over the same parameters, as after a restart) + 50.
template <template <class> class Opt, class Options>
void check_resume(const Options& options) {
  Problem straight, resumed;
  Opt<float> a(straight.params, options);
  straight.train(a, 100);

  std::optional<typename Opt<float>::StateDict> saved;
  {
    Opt<float> first(resumed.params, options);
    resumed.train(first, 50);
    saved = first.state_dict();
  }
  Opt<float> second(resumed.params, options);
  second.load_state_dict(*saved);
  resumed.train(second, 50);
  CHECK_MESSAGE(identical(straight.values(), resumed.values()), Opt<float>::Rule::name);
}

template <class F>
std::string message_of(F&& f) {
  try {
    f();
  } catch (const tl::Error& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST_CASE("each parameter's update is one fused loop and steady steps allocate nothing") {
  Problem p;
  o::Adam opt(p.params, {.lr = 1e-2, .weight_decay = 0.1, .amsgrad = true});
  p.loss().backward();
  opt.step();  // creates the state
  const auto before = tl::stats::snapshot();
  opt.step();
  const auto delta = tl::stats::snapshot() - before;
  CHECK(delta.fused_loops == p.params.size());
  CHECK(delta.allocations == 0);
  CHECK(delta.copies == 0);

  // The same for every rule with its largest state.
  auto one_pass_each = [&](auto& optimizer) {
    optimizer.step();
    const auto b = tl::stats::snapshot();
    optimizer.step();
    const auto d = tl::stats::snapshot() - b;
    CHECK(d.fused_loops == p.params.size());
    CHECK(d.allocations == 0);
    CHECK(d.copies == 0);
  };
  o::SGD sgd(p.params, {.lr = 1e-2, .momentum = 0.9, .nesterov = true});
  one_pass_each(sgd);
  o::RMSprop rms(p.params, {.momentum = 0.5, .centered = true});
  one_pass_each(rms);
  o::NAdam nadam(p.params);
  one_pass_each(nadam);
  o::Rprop rprop(p.params);
  one_pass_each(rprop);
  o::ASGD asgd(p.params);
  one_pass_each(asgd);
}

TEST_CASE("state_dict then load_state_dict resumes bit-exactly") {
  check_resume<o::SGD>(o::SGDOptions{.lr = 0.05, .momentum = 0.9, .nesterov = true});
  check_resume<o::Adam>(o::AdamOptions{.lr = 0.01, .amsgrad = true});
  check_resume<o::AdamW>(o::AdamWOptions{.lr = 0.01});
  check_resume<o::Adamax>(o::AdamaxOptions{});
  check_resume<o::NAdam>(o::NAdamOptions{.lr = 0.01});
  check_resume<o::RAdam>(o::RAdamOptions{.lr = 0.01});
  check_resume<o::RMSprop>(o::RMSpropOptions{.momentum = 0.5, .centered = true});
  check_resume<o::Adagrad>(o::AdagradOptions{.lr_decay = 0.01});
  check_resume<o::Adadelta>(o::AdadeltaOptions{});
  check_resume<o::Rprop>(o::RpropOptions{});
  check_resume<o::ASGD>(o::ASGDOptions{.t0 = 10});
}

TEST_CASE("a saved state dict is a deep copy and carries group options") {
  Problem p;
  o::Adam opt(p.params, {.lr = 0.01});
  p.train(opt, 2);
  auto saved = opt.state_dict();
  const auto m = saved.state.at(0).exp_avg.to_vector();
  opt.param_groups()[0].lr = 0.5;
  p.train(opt, 1);
  CHECK(saved.state.at(0).exp_avg.to_vector() == m);
  CHECK(saved.param_groups[0].options.lr == 0.01);
  CHECK(saved.state.at(0).step == 2);
  opt.load_state_dict(saved);
  CHECK(opt.param_groups()[0].lr == 0.01);
  CHECK(opt.state(p.params[0])->step == 2);
}

TEST_CASE("parameter groups have their own options") {
  auto a = tl::ones({2}).requires_grad_(), b = tl::ones({2}).requires_grad_();
  o::SGD opt(std::vector<o::ParamGroup<o::SGDRule, float>>{{{a}, {.lr = 0.1}}, {{b}, {.lr = 0.5}}});
  a.set_grad(tl::ones({2}));
  b.set_grad(tl::ones({2}));
  opt.step();
  CHECK(a.to_vector() == std::vector<float>{0.9f, 0.9f});
  CHECK(b.to_vector() == std::vector<float>{0.5f, 0.5f});
  auto c = tl::ones({1}).requires_grad_();
  auto options = opt.defaults();
  options.lr = 2;
  opt.add_param_group({{c}, options});
  c.set_grad(tl::ones({1}));
  opt.step();
  CHECK(c.to_vector() == std::vector<float>{-1.f});
  CHECK(opt.group_count() == 3);
  CHECK(opt.param_groups()[2].lr == 2);
}

TEST_CASE("zero_grad clears or zeroes and a closure's loss is returned") {
  Problem p;
  o::SGD opt(p.params, {.lr = 0.1});
  p.loss().backward();
  opt.zero_grad(false);
  CHECK(p.params[0].grad().defined());
  CHECK(tl::count_nonzero(p.params[0].grad()).item() == 0);
  opt.zero_grad();
  CHECK_FALSE(p.params[0].grad().defined());

  const auto start = p.values();
  tl::NoGradGuard outer;  // the closure runs with gradients enabled anyway
  const auto loss = opt.step([&] {
    opt.zero_grad();
    auto l = p.loss();
    l.backward();
    return l;
  });
  CHECK(loss.item() > 0);
  CHECK_FALSE(identical(start, p.values()));
}

TEST_CASE("a step writes in place and bumps the version counter") {
  auto base = seeded_randn({3, 4}, 5);
  auto w = base.t().requires_grad_();  // a non-contiguous leaf
  REQUIRE_FALSE(w.is_contiguous());
  const auto before = w.clone();
  const auto version = w._version();
  o::SGD opt(std::vector{w}, {.lr = 0.5});
  const auto g = seeded_randn({4, 3}, 6);
  w.set_grad(g);
  opt.step();
  const tl::Tensor<float> expected = before - 0.5f * g;
  CHECK(tl::allclose(w, expected));
  CHECK(w._version() > version);
  CHECK(w.data_ptr() == base.data_ptr());
}

TEST_CASE("schedulers drive a real optimizer") {
  Problem p;
  o::Adam opt(p.params, {.lr = 0.1});
  o::lr_scheduler::StepLR sched(opt, 2, 0.5);
  for (int i = 0; i < 4; ++i) {
    p.train(opt, 1);
    sched.step();
  }
  CHECK(opt.param_groups()[0].lr == doctest::Approx(0.025));
  CHECK(opt.param_groups()[0].initial_lr == 0.1);
  CHECK(opt.momentum(0) == 0.9);
  CHECK(opt.momentum_is_beta1());
  opt.set_momentum(0, 0.8);
  CHECK(opt.param_groups()[0].betas[0] == 0.8);
  o::SGD sgd(p.params, {.lr = 0.1, .momentum = 0.3});
  CHECK_FALSE(sgd.momentum_is_beta1());
  CHECK(sgd.momentum(0) == 0.3);
  o::Adagrad adagrad(p.params);
  CHECK_FALSE(adagrad.momentum(0).has_value());
  CHECK_THROWS_AS(adagrad.set_momentum(0, 0.5), tl::ValueError);
}

TEST_CASE("misuse gives PyTorch's messages") {
  Problem p;
  auto w = p.params[0];
  CHECK(message_of([&] { o::SGD opt(std::vector{w, w}); }).find("duplicate parameters") != std::string::npos);
  CHECK(message_of([&] {
          o::SGD opt(std::vector{w});
          opt.add_param_group(std::vector{w});
        }) == "some parameters appear in more than one parameter group");
  CHECK(message_of([&] { o::SGD opt(p.params, {.lr = -1}); }) == "Invalid learning rate: -1");
  CHECK(message_of([&] { o::Adam opt(p.params, {.betas = {1.0, 0.999}}); }) == "Invalid beta parameter at index 0: 1");
  CHECK(message_of([&] {
          o::AdamW opt(p.params, {.betas = {0.9, -0.1}});
        }) == "Invalid beta parameter at index 1: -0.1");
  CHECK(message_of([&] { o::Adam opt(p.params, {.eps = -1e-8}); }) == "Invalid epsilon value: -1e-08");
  CHECK(message_of([&] { o::SGD opt(p.params, {.lr = 0.1, .nesterov = true}); }) ==
        "Nesterov momentum requires a momentum and zero dampening");
  CHECK(message_of([&] { o::Rprop opt(p.params, {.etas = {1.5, 1.2}}); }) == "Invalid eta values: 1.5, 1.2");
  CHECK(message_of([&] { o::SGD opt(std::vector<tl::Tensor<float>>{}); }) == "optimizer got an empty parameter list");
  auto leaf = tl::ones({2}).requires_grad_();
  const tl::Tensor<float> non_leaf = leaf * 2;
  CHECK(message_of([&] { o::SGD opt(std::vector{non_leaf}); }) == "can't optimize a non-leaf Tensor");

  o::Adam two(p.params);
  two.add_param_group(std::vector{leaf});
  p.train(two, 1);
  o::Adam one(p.params);
  CHECK(message_of([&] { one.load_state_dict(two.state_dict()); }) ==
        "loaded state dict has a different number of parameter groups");
  o::Adam fewer(std::vector{p.params[0], p.params[1]});
  auto dict = o::Adam(p.params).state_dict();
  CHECK(message_of([&] { fewer.load_state_dict(dict); }) ==
        "loaded state dict contains a parameter group that doesn't match the size of optimizer's group");
  auto swapped = tl::randn({3}).requires_grad_();
  auto reshaped = tl::randn({4, 3}).requires_grad_();
  o::Adam other(std::vector{swapped, reshaped, p.params[2]});
  auto wrong = two.state_dict();
  wrong.param_groups.pop_back();
  CHECK(message_of([&] { other.load_state_dict(wrong); }).find("a state tensor of parameter 0 has shape [4, 3]") !=
        std::string::npos);
}

TEST_CASE("clip_grad_norm_ and clip_grad_value_") {
  auto a = tl::zeros({2}).requires_grad_(), b = tl::zeros({2}).requires_grad_(), c = tl::zeros({1}).requires_grad_();
  const std::vector params{a, b, c};
  a.set_grad(tl::tensor({3.f, 0.f}));
  b.set_grad(tl::tensor({0.f, 4.f}));  // total 2-norm 5; c has no gradient
  const auto total = o::clip_grad_norm_(params, 1.0);
  CHECK(total.item() == 5.f);
  const float s = static_cast<float>(1.0 / (5 + 1e-6));
  CHECK(a.grad().to_vector() == std::vector<float>{3 * s, 0});
  CHECK(b.grad().to_vector() == std::vector<float>{0, 4 * s});
  // Below the bound nothing changes (the factor is clamped to 1).
  CHECK(o::clip_grad_norm_(params, 10.0).item() == doctest::Approx(1.0));
  CHECK(tl::nn::utils::clip_grad_norm_(params, 10.0).item() == doctest::Approx(1.0));  // PyTorch's name
  CHECK(b.grad().to_vector() == std::vector<float>{0, 4 * s});
  // The inf-norm is the largest magnitude, the 1-norm the sum.
  a.set_grad(tl::tensor({-3.f, 1.f}));
  b.set_grad(tl::tensor({2.f, 0.f}));
  CHECK(o::clip_grad_norm_(params, 100.0, INFINITY).item() == 3.f);
  CHECK(o::clip_grad_norm_(params, 100.0, 1.0).item() == 6.f);
  a.set_grad(tl::tensor({NAN, 1.f}));
  CHECK(message_of([&] { o::clip_grad_norm_(params, 1.0, 2.0, true); }).find("is non-finite") != std::string::npos);
  a.set_grad(tl::tensor({-3.f, 0.5f}));
  o::clip_grad_value_(params, 1.0);
  CHECK(a.grad().to_vector() == std::vector<float>{-1, 0.5});
  CHECK(b.grad().to_vector() == std::vector<float>{1, 0});
}

TEST_CASE("an update refuses partly overlapping tensors and accepts the same one twice") {
  auto base = tl::ones({5});
  auto w = base.slice(0, 0, 4).requires_grad_();
  w.set_grad(base.slice(0, 1, 5));  // shifted by one element: a race in one loop
  o::SGD opt(std::vector{w}, {.lr = 0.5});
  CHECK(message_of([&] { opt.step(); }) == "optimizer step: two of the update's tensors partly overlap in memory");
  auto v = tl::full<float>({3}, 2.f).requires_grad_();
  CHECK(message_of([&] { v.set_grad(v); }) == "set_grad: can't assign Variable as its own grad");
  v.set_grad(v.detach());  // the gradient is the parameter's memory: read before written
  o::SGD same(std::vector{v}, {.lr = 0.5});
  same.step();
  CHECK(v.to_vector() == std::vector<float>{1.f, 1.f, 1.f});
}

TEST_CASE("clip_grad_norm_ with the -inf and 0 norms") {
  auto a = tl::zeros({2}).requires_grad_(), b = tl::zeros({2}).requires_grad_();
  const std::vector params{a, b};
  a.set_grad(tl::tensor({3.f, -4.f}));
  b.set_grad(tl::tensor({0.f, 0.f}));
  // Per-gradient -inf norms (smallest magnitude) are 3 and 0; their -inf norm is 0.
  CHECK(o::clip_grad_norm_(params, 100.0, -INFINITY).item() == 0.f);
  // 0-norms count non-zeros: 2 and 0, so the total counts one non-zero norm.
  CHECK(o::clip_grad_norm_(params, 100.0, 0.0).item() == 1.f);
}
