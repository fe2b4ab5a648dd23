// LBFGS against torch.optim.LBFGS 1.13 (tests/fixtures/lbfgs.txt, made by
// tests/fixtures/generate_lbfgs.py): 100-step trajectories of a 6-d
// Rosenbrock function and a regularized softmax regression with two
// parameter tensors, with a fixed step and with the strong-Wolfe line search,
// two of them with history_size 3 so the history wraps. Then resuming from a
// state dict, the OptimizerBase face, grad modes, and every misuse error.
//
// Tolerance: 1e-6 relative in double. The remaining differences come from
// reductions (dot products, sums) summed in another order than PyTorch's,
// a few ulp per step.

#include <doctest/doctest.h>

#include <cmath>
#include <functional>
#include <string>
#include <type_traits>
#include <vector>

#include <tensorlib/optim/lbfgs.hpp>
#include <tensorlib/tensorlib.hpp>

#include "fixtures.hpp"

namespace {

using tl::optim::LBFGS;
using tl::optim::LBFGSOptions;

constexpr int kLbfgsSteps = 100;

/// The fixture's loss, written with the same ops as generate_lbfgs.py.
template <class T>
using Objective = std::function<tl::Tensor<T>(const std::vector<tl::Tensor<T>>&)>;

template <class T>
tl::Tensor<T> rosenbrock(const std::vector<tl::Tensor<T>>& p) {
  const auto& x = p[0];
  const int64_t n = x.size(0);
  const auto head = x.narrow(0, 0, n - 1), tail = x.narrow(0, 1, n - 1);
  return (100 * tl::square(tail - tl::square(head)) + tl::square(1 - head)).sum();
}

template <class T>
Objective<T> softmax_regression(const fixtures::Case& c) {
  const auto X = c.get<double>("X").template to<T>();
  const auto onehot = c.get<double>("onehot").template to<T>();
  return [X, onehot](const std::vector<tl::Tensor<T>>& p) -> tl::Tensor<T> {
    const auto& W = p[0];
    const auto& b = p[1];
    const tl::Tensor<T> lp = tl::log_softmax(tl::matmul(X, W) + b, 1);
    return -(lp * onehot).sum(1).mean() + 0.001 * (W * W).sum();
  };
}

struct Setup {
  std::vector<std::string> names;  // fixture keys of the parameters
  LBFGSOptions options;
};

Setup setup(const std::string& name) {
  const auto args = fixtures::parse_args(fixtures::load("lbfgs.txt")[name].text("args"));
  Setup s;
  s.names = name.rfind("rosenbrock", 0) == 0 ? std::vector<std::string>{"x"} : std::vector<std::string>{"W", "b"};
  for (const auto& [key, value] : args) {
    if (key == "lr")
      s.options.lr = std::stod(value);
    else if (key == "max_iter")
      s.options.max_iter = std::stoll(value);
    else if (key == "history_size")
      s.options.history_size = std::stoll(value);
    else if (key == "line_search_fn")
      s.options.line_search_fn = value;
    else
      FAIL("unknown fixture option " << key);
  }
  return s;
}

template <class T>
Objective<T> problem(const std::string& name) {
  if (name.rfind("rosenbrock", 0) == 0) return rosenbrock<T>;
  return softmax_regression<T>(fixtures::load("lbfgs.txt")[name]);
}

/// Fresh leaves holding the fixture's starting values.
template <class T>
std::vector<tl::Tensor<T>> start(const std::string& name, const Setup& s) {
  std::vector<tl::Tensor<T>> params;
  for (const auto& key : s.names)
    params.push_back(fixtures::load("lbfgs.txt")[name].get<double>(key + "0").template to<T>().requires_grad_());
  return params;
}

/// PyTorch's closure: zero the gradients, evaluate, backward, return the loss.
template <class T>
auto make_closure(LBFGS<T>& opt, const Objective<T>& f) {
  return [&opt, &f] {
    opt.zero_grad();
    tl::Tensor<T> loss = f(opt.params());
    loss.backward();
    return loss;
  };
}

void check_trajectory(const std::string& name) {
  const auto& c = fixtures::load("lbfgs.txt")[name];
  const Setup s = setup(name);
  const Objective<double> f = problem<double>(name);
  LBFGS opt(start<double>(name, s), s.options);
  const auto closure = make_closure(opt, f);
  const auto losses = c.get<double>("loss");
  for (int64_t step = 0; step < kLbfgsSteps; ++step) {
    const tl::Tensor<double> loss = opt.step(closure);
    fixtures::check_close(loss, losses.index({step}), 1e-6, 0, name + " loss of step " + std::to_string(step));
    for (std::size_t i = 0; i < s.names.size(); ++i)
      fixtures::check_close(opt.params()[i].detach(), c.get<double>(s.names[i]).index({step}), 1e-6, 0,
                            name + " " + s.names[i] + " after step " + std::to_string(step));
  }
  REQUIRE(opt.state().has_value());
  CHECK(opt.state()->n_iter == c.get<int64_t>("n_iter").item());
  CHECK(opt.state()->func_evals == c.get<int64_t>("func_evals").item());
}

/// Element-wise identical values (not merely close).
template <class T>
void check_equal(const tl::Tensor<T>& a, const tl::Tensor<T>& b) {
  REQUIRE(a.sizes() == b.sizes());
  CHECK(a.to_vector() == b.to_vector());
}

}  // namespace

TEST_CASE("LBFGS matches PyTorch on Rosenbrock with a fixed step") { check_trajectory("rosenbrock_fixed"); }

TEST_CASE("LBFGS matches PyTorch on Rosenbrock with strong Wolfe and a wrapping history") {
  check_trajectory("rosenbrock_wolfe");
}

TEST_CASE("LBFGS matches PyTorch on softmax regression with a fixed step and a wrapping history") {
  check_trajectory("softmax_fixed");
}

TEST_CASE("LBFGS matches PyTorch on softmax regression with strong Wolfe") { check_trajectory("softmax_wolfe"); }

TEST_CASE("LBFGS in float reaches PyTorch's float64 minimum") {
  // Float trajectories are not compared step by step (Note [LBFGS scalars]):
  // only the minimum, whose loss float resolves to about 1e-6 relative.
  for (const std::string name : {"softmax_wolfe", "softmax_fixed"}) {
    const Setup s = setup(name);
    const Objective<float> f = problem<float>(name);
    LBFGS opt(start<float>(name, s), s.options);
    const auto closure = make_closure(opt, f);
    for (int step = 0; step < kLbfgsSteps; ++step) opt.step(closure);
    const double expected = fixtures::load("lbfgs.txt")[name].get<double>("loss").to_vector().back();
    CHECK(static_cast<double>(f(opt.params()).item()) == doctest::Approx(expected).epsilon(1e-5));
  }
}

TEST_CASE("LBFGS resumed from a state dict continues bit for bit") {
  for (const std::string name : {"rosenbrock_wolfe", "softmax_fixed", "softmax_wolfe"}) {
    CAPTURE(name);
    const Setup s = setup(name);
    const Objective<double> f = problem<double>(name);

    LBFGS whole(start<double>(name, s), s.options);
    const auto whole_closure = make_closure(whole, f);
    std::vector<double> whole_losses;
    for (int step = 0; step < kLbfgsSteps; ++step) whole_losses.push_back(whole.step(whole_closure).item());

    LBFGS first(start<double>(name, s), s.options);
    const auto first_closure = make_closure(first, f);
    std::vector<double> losses;
    for (int step = 0; step < kLbfgsSteps / 2; ++step) losses.push_back(first.step(first_closure).item());
    const auto dict = first.state_dict();

    std::vector<tl::Tensor<double>> resumed_params;
    for (const auto& p : first.params()) resumed_params.push_back(p.detach().clone().requires_grad_());
    LBFGS<double> second(resumed_params, {.lr = 123, .history_size = 1});  // options come from the dict
    second.load_state_dict(dict);
    CHECK(second.options().lr == s.options.lr);
    CHECK(second.options().history_size == s.options.history_size);
    const auto second_closure = make_closure(second, f);
    for (int step = kLbfgsSteps / 2; step < kLbfgsSteps; ++step) losses.push_back(second.step(second_closure).item());

    CHECK(losses == whole_losses);
    for (std::size_t i = 0; i < s.names.size(); ++i)
      check_equal(second.params()[i].detach(), whole.params()[i].detach());
    CHECK(second.state()->n_iter == whole.state()->n_iter);
    CHECK(second.state()->func_evals == whole.state()->func_evals);
  }
}

TEST_CASE("LBFGS state_dict is a deep copy") {
  const Setup s = setup("softmax_wolfe");
  const Objective<double> f = problem<double>("softmax_wolfe");
  LBFGS opt(start<double>("softmax_wolfe", s), s.options);
  const auto closure = make_closure(opt, f);
  CHECK_FALSE(opt.state_dict().state.has_value());  // PyTorch's state is empty before the first step
  opt.step(closure);
  const auto dict = opt.state_dict();
  REQUIRE(dict.state.has_value());
  REQUIRE(dict.param_groups.size() == 1);
  CHECK(dict.param_groups[0].params == std::vector<int64_t>{0, 1});
  CHECK(dict.param_groups[0].options.max_eval == 6);  // max_iter * 5 / 4, filled in
  const auto d = dict.state->d.clone();
  const auto prev = dict.state->prev_flat_grad.clone();
  opt.step(closure);
  check_equal(dict.state->d, d);
  check_equal(dict.state->prev_flat_grad, prev);
  CHECK_FALSE(dict.state->d.is_alias_of(opt.state()->d));
}

TEST_CASE("LBFGS writes parameters in place and runs the closure with grad mode on") {
  auto x = tl::tensor<double>({-1.2, 1.0, 0.5}).requires_grad_();
  const auto* data = x.data_ptr();
  LBFGS opt({x}, {.max_iter = 3, .line_search_fn = "strong_wolfe"});
  static_assert(std::is_same_v<decltype(opt), LBFGS<double>>);
  const uint32_t version = x._version();
  int calls = 0;
  const auto closure = [&] {
    CHECK(tl::is_grad_enabled());
    ++calls;
    opt.zero_grad();
    tl::Tensor<double> loss = rosenbrock<double>({x});
    loss.backward();
    return loss;
  };
  {
    tl::NoGradGuard no_grad;  // the closure still records
    const tl::Tensor<double> loss = opt.step(closure);
    CHECK_FALSE(tl::is_grad_enabled());
    CHECK(loss.requires_grad());  // the closure's own loss, as PyTorch returns it
  }
  CHECK(tl::is_grad_enabled());
  CHECK(x.data_ptr() == data);
  CHECK(x._version() > version);
  CHECK(calls == opt.state()->func_evals);
  CHECK(x.is_leaf());
}

TEST_CASE("LBFGS zero_grad clears or zeroes") {
  auto w = tl::ones<float>({2}).requires_grad_();
  LBFGS opt({w});
  (w * w).sum().backward();
  opt.zero_grad(false);
  REQUIRE(w.grad().defined());
  CHECK(w.grad().to_vector() == std::vector<float>{0, 0});
  opt.zero_grad();
  CHECK_FALSE(w.grad().defined());
}

TEST_CASE("LBFGS stops at once when the gradient is already below tolerance_grad") {
  auto x = tl::ones<double>({6}).requires_grad_();  // Rosenbrock's minimum
  LBFGS opt({x});
  int calls = 0;
  const auto closure = [&] {
    ++calls;
    opt.zero_grad();
    tl::Tensor<double> loss = rosenbrock<double>({x});
    loss.backward();
    return loss;
  };
  CHECK(opt.step(closure).item() == 0);
  CHECK(calls == 1);
  CHECK(opt.state()->n_iter == 0);
  CHECK(x.detach().to_vector() == std::vector<double>(6, 1.0));
}

TEST_CASE("LBFGS through OptimizerBase") {
  auto w = tl::zeros<float>({3}).requires_grad_();
  LBFGS opt({w}, {.lr = 0.5});
  tl::optim::OptimizerBase& base = opt;
  CHECK(base.group_count() == 1);
  CHECK(base.lr(0) == 0.5);
  base.set_lr(0, 0.25);
  CHECK(opt.options().lr == 0.25);
  CHECK_FALSE(base.initial_lr(0).has_value());
  base.set_initial_lr(0, 0.25);
  CHECK(base.initial_lr(0) == 0.25);
  CHECK(opt.state_dict().param_groups[0].initial_lr == 0.25);
  CHECK_FALSE(base.momentum(0).has_value());
  CHECK_FALSE(base.momentum_is_beta1());
  CHECK_THROWS_AS(base.set_momentum(0, 0.9), tl::ValueError);
  CHECK_THROWS_AS(base.lr(1), tl::IndexError);
  CHECK(opt.options().max_eval == 25);  // 20 * 5 / 4
}

TEST_CASE("LBFGS errors") {
  auto w = tl::ones<double>({2}).requires_grad_();
  auto b = tl::zeros<double>({1}).requires_grad_();
  LBFGS opt({w, b});
  CHECK_THROWS_WITH_AS(opt.step(), doctest::Contains("requires a closure"), tl::ValueError);
  CHECK_THROWS_WITH_AS(opt.add_param_group({tl::zeros<double>({1})}),
                       "LBFGS doesn't support per-parameter options (parameter groups)", tl::ValueError);
  CHECK_THROWS_WITH_AS(LBFGS({w, b, w}), doctest::Contains("parameter 2 is the same tensor as parameter 0"),
                       tl::ValueError);
  const tl::Tensor<double> computed = w * 2;
  CHECK_THROWS_WITH_AS(LBFGS({computed}), doctest::Contains("can't optimize a non-leaf Tensor"), tl::ValueError);
  CHECK_THROWS_WITH_AS(LBFGS(std::vector<tl::Tensor<double>>{}), doctest::Contains("empty parameter list"),
                       tl::ValueError);
  CHECK_THROWS_WITH_AS(LBFGS({w}, {.line_search_fn = "backtracking"}),
                       "LBFGS: only 'strong_wolfe' is supported as line_search_fn, got 'backtracking'", tl::ValueError);
  CHECK_THROWS_WITH_AS(LBFGS({w}, {.history_size = 0}), doctest::Contains("history_size must be positive"),
                       tl::ValueError);
  double host[2] = {};
  const auto fake_cuda = tl::from_blob(host, {2}, {1}, {}, tl::Device(tl::kCUDA, 0));
  CHECK_THROWS_WITH_AS(LBFGS({w, fake_cuda}),
                       "LBFGS: parameters must be on one device, parameter 1 is on cuda:0 and parameter 0 on cpu",
                       tl::DeviceError);

  const auto vector_loss = [&] { return tl::Tensor<double>(w * 1.0); };
  CHECK_THROWS_WITH_AS(opt.step(vector_loss), doctest::Contains("one-element tensor"), tl::ValueError);
}

TEST_CASE("LBFGS load_state_dict rejects a dict of other parameters") {
  const auto train = [](LBFGS<double>& opt) {
    const auto closure = [&opt] {
      opt.zero_grad();
      tl::Tensor<double> loss = rosenbrock<double>(opt.params());
      loss.backward();
      return loss;
    };
    opt.step(closure);
    opt.step(closure);
  };
  LBFGS six({tl::zeros<double>({6}).requires_grad_()}, {.history_size = 3});
  train(six);
  const auto dict = six.state_dict();

  LBFGS two_params({tl::zeros<double>({3}).requires_grad_(), tl::zeros<double>({3}).requires_grad_()});
  CHECK_THROWS_WITH_AS(two_params.load_state_dict(dict),
                       doctest::Contains("loaded state dict contains a parameter group that doesn't match the size of "
                                         "optimizer's group"),
                       tl::ValueError);
  LBFGS five({tl::zeros<double>({5}).requires_grad_()});
  CHECK_THROWS_WITH_AS(five.load_state_dict(dict), doctest::Contains("state 'd' has shape [6], expected [5]"),
                       tl::ValueError);
  CHECK_FALSE(five.state().has_value());  // unchanged
  // State on the CPU for parameters on a GPU (host memory labelled cuda:0:
  // the check comes before anything reads it).
  double host[6] = {};
  LBFGS on_gpu({tl::from_blob(host, {6}, {1}, {}, tl::Device(tl::kCUDA, 0))});
  CHECK_THROWS_WITH_AS(on_gpu.load_state_dict(dict),
                       "LBFGS: load_state_dict: state 'd' is on cpu, expected the parameters' device cuda:0",
                       tl::DeviceError);

  auto no_groups = dict;
  no_groups.param_groups.clear();
  CHECK_THROWS_WITH_AS(six.load_state_dict(no_groups), doctest::Contains("different number of parameter groups"),
                       tl::ValueError);
  auto long_history = dict;
  long_history.param_groups[0].options.history_size = 1;
  if (long_history.state->ro.size() > 1)
    CHECK_THROWS_WITH_AS(six.load_state_dict(long_history), doctest::Contains("exceed history_size"), tl::ValueError);
  auto bad_fn = dict;
  bad_fn.param_groups[0].options.line_search_fn = "armijo";
  CHECK_THROWS_WITH_AS(six.load_state_dict(bad_fn), doctest::Contains("only 'strong_wolfe' is supported"),
                       tl::ValueError);
  six.load_state_dict(dict);  // its own dict is fine
}
