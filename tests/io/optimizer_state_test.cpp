// tl::io::pt's optimizer state in PyTorch's format (io/optimizer_state.hpp)
// against checkpoints PyTorch 1.13 wrote (tests/fixtures/
// generate_optim_pt.py): every rule loads PyTorch's state and continues its
// trajectory; what tensorlib writes back has PyTorch's keys and values;
// tensorlib's own checkpoints resume bit-exactly for every rule (NAdam
// included); PyTorch resumes from a committed tensorlib checkpoint (checked
// by the generator); and states that do not fit give PyTorch's errors.

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <concepts>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "fixtures.hpp"
#include "tensorlib/tensorlib.hpp"

namespace optimizer_state_test {

namespace o = tl::optim;
namespace pt = tl::io::pt;
using tl::io::PickleValue;
using Params = std::vector<tl::Tensor<float>>;

constexpr int kNext = 10;  // generate_optim_pt.py's NEXT
// PyTorch's CPU kernels fuse the multiply-adds of add(alpha=) and addcmul;
// so do the rules when built for a target with FMA, and then the replayed
// steps agree to rounding. Without FMA (the sanitizer build) each
// multiply-add rounds twice (tests/optim/rules_test.cpp says more).
#if defined(__FMA__)
constexpr double kRtol = 1e-6;
#else
constexpr double kRtol = 1e-4;
#endif

PickleValue checkpoint(const std::string& name) { return pt::load(fixtures::io_path("optim/" + name + ".pt")); }

tl::Tensor<float> tensor_at(const PickleValue& ckpt, const std::string& key) {
  return ckpt[key].to_tensor().as<float>();
}

// max|a - e| / max|e|, as tests/optim/rules_test.cpp measures trajectories.
double relative_error(const tl::Tensor<float>& actual, const tl::Tensor<float>& expected) {
  const std::vector<float> a = actual.contiguous().to_vector(), e = expected.contiguous().to_vector();
  REQUIRE(a.size() == e.size());
  double diff = 0, scale = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    diff = std::max(diff, std::abs(static_cast<double>(a[i]) - e[i]));
    scale = std::max(scale, std::abs(static_cast<double>(e[i])));
  }
  return diff / scale;
}

// The checkpoint's problem: loss = mean((tanh(X @ W + b) - Y)^2).
struct Problem {
  tl::Tensor<float> X, Y, W, b;
  explicit Problem(const PickleValue& ckpt, const char* w = "W", const char* bias = "b")
      : X(tensor_at(ckpt, "X")),
        Y(tensor_at(ckpt, "Y")),
        W(tensor_at(ckpt, w).clone().requires_grad_()),
        b(tensor_at(ckpt, bias).clone().requires_grad_()) {}
  tl::Tensor<float> loss() const { return tl::square(tl::tanh(tl::matmul(X, W) + b) - Y).mean(); }
  template <class Opt>
  void train(Opt& opt, int steps) const {
    for (int i = 0; i < steps; ++i) {
      if constexpr (std::same_as<Opt, o::LBFGS<float>>) {
        opt.step([&] {
          opt.zero_grad();
          tl::Tensor<float> l = loss();
          l.backward();
          return l;
        });
      } else {
        opt.zero_grad();
        loss().backward();
        opt.step();
      }
    }
  }
};

// Loads PyTorch's state after FIRST steps into `opt` (made with other
// options), replays PyTorch's next gradients and checks each step's
// parameters against PyTorch's.
template <class Opt>
void check_continues(const std::string& name, Opt& opt, Problem& p, const PickleValue& ckpt) {
  pt::load_optimizer_state(opt, ckpt["optimizer"]);
  const tl::Tensor<float> gW = tensor_at(ckpt, "gW"), gb = tensor_at(ckpt, "gb");
  double worst = 0;
  for (int k = 0; k < kNext; ++k) {
    p.W.set_grad(gW.select(0, k).clone());
    p.b.set_grad(gb.select(0, k).clone());
    opt.step();
    worst = std::max({worst, relative_error(p.W, tensor_at(ckpt, "W_next").select(0, k)),
                      relative_error(p.b, tensor_at(ckpt, "b_next").select(0, k))});
  }
  CHECK_MESSAGE(worst <= kRtol, name << ": worst relative error " << worst);
}

template <class Opt>
void check_continues(const std::string& name) {
  const PickleValue ckpt = checkpoint(name);
  Problem p(ckpt);
  Opt opt(Params{p.W, p.b});
  check_continues(name, opt, p, ckpt);
}

// Equal as PyTorch would compare them: numbers by value (an int step equals
// a 0-d tensor holding it), tensors by shape and values, sequences item by item.
bool same_value(const PickleValue& a, const PickleValue& b) {
  using K = PickleValue::Kind;
  const auto number = [](const PickleValue& v) {
    return v.kind() == K::Int || v.kind() == K::Float || (v.kind() == K::Tensor && v.to_tensor().numel() == 1);
  };
  const auto value = [](const PickleValue& v) {
    if (v.kind() == K::Tensor) return v.to_tensor().to<double>().reshape({}).item();
    return v.to_double();
  };
  if (a.kind() == K::Tensor && b.kind() == K::Tensor && a.to_tensor().dim() > 0) {
    const tl::Tensor<double> x = a.to_tensor().to<double>(), y = b.to_tensor().to<double>();
    return x.sizes() == y.sizes() && x.to_vector() == y.to_vector();
  }
  if (number(a) && number(b)) return value(a) == value(b);
  if (a.kind() != b.kind()) return false;
  switch (a.kind()) {
    case K::None:
      return true;
    case K::Bool:
      return a.to_bool() == b.to_bool();
    case K::String:
      return a.to_string() == b.to_string();
    case K::Tuple:
    case K::List:
      return a.items().size() == b.items().size() &&
             std::equal(a.items().begin(), a.items().end(), b.items().begin(), same_value);
    default:
      return false;
  }
}

// `ours` has `theirs`'s entries, but for what tensorlib does not keep:
// PyTorch's implementation switches, a None it leaves out, LBFGS's scratch
// list; and PyTorch 1.13 lacks two options of later versions.
void check_same_entries(const PickleValue& ours, const PickleValue& theirs, const std::string& where) {
  for (const auto& [key, value] : ours.dict_items()) {
    const std::string& k = key.to_string();
    const PickleValue* t = theirs.find(k);
    if (!t && (k == "maximize" || k == "decoupled_weight_decay")) continue;
    CHECK_MESSAGE(t != nullptr, where << ": PyTorch has no '" << k << "'");
    if (t) CHECK_MESSAGE(same_value(value, *t), where << "['" << k << "'] differs");
  }
  for (const auto& [key, value] : theirs.dict_items()) {
    const std::string& k = key.to_string();
    const bool kept = ours.find(k) != nullptr || value.is_none() || k == "foreach" || k == "capturable" ||
                      k == "differentiable" || k == "fused" || k == "al";
    CHECK_MESSAGE(kept, where << ": tensorlib left out '" << k << "'");
  }
}

void check_writes_back(const PickleValue& ours, const PickleValue& theirs) {
  REQUIRE(ours["param_groups"].items().size() == theirs["param_groups"].items().size());
  for (std::size_t i = 0; i < ours["param_groups"].items().size(); ++i)
    check_same_entries(ours["param_groups"].items()[i], theirs["param_groups"].items()[i],
                       "param_groups[" + std::to_string(i) + "]");
  REQUIRE(ours["state"].dict_items().size() == theirs["state"].dict_items().size());
  for (std::size_t i = 0; i < ours["state"].dict_items().size(); ++i) {
    const auto& [id, entry] = ours["state"].dict_items()[i];
    CHECK(id.to_int() == theirs["state"].dict_items()[i].first.to_int());
    check_same_entries(entry, theirs["state"].dict_items()[i].second, "state[" + std::to_string(id.to_int()) + "]");
  }
}

template <class Opt>
void check_round_trip(const std::string& name) {
  const PickleValue ckpt = checkpoint(name);
  Problem p(ckpt);
  Opt opt(Params{p.W, p.b});
  pt::load_optimizer_state(opt, ckpt["optimizer"]);
  INFO(name);
  check_writes_back(pt::optimizer_state(opt), ckpt["optimizer"]);
}

// 20 uninterrupted steps against 10, a checkpoint through torch.save's
// bytes, a fresh optimizer with default options loading it, and 10 more.
template <class Opt, class Options>
void check_resumes(const std::string& name, const Options& options) {
  const PickleValue problem = checkpoint("sgd_plain");
  Problem straight(problem, "W0", "b0"), resumed(problem, "W0", "b0");
  Opt a(Params{straight.W, straight.b}, options);
  straight.train(a, 20);
  std::string bytes;
  {
    Opt b(Params{resumed.W, resumed.b}, options);
    resumed.train(b, 10);
    bytes = pt::save_bytes(pt::optimizer_state(b));
  }
  Opt c(Params{resumed.W, resumed.b});
  pt::load_optimizer_state(c, pt::load_bytes(bytes));
  resumed.train(c, 10);
  const auto bits = [](const tl::Tensor<float>& t) { return t.contiguous().to_vector(); };
  CHECK_MESSAGE((bits(straight.W) == bits(resumed.W) && bits(straight.b) == bits(resumed.b)), name);
}

// What the committed tensorlib_adam.pt holds: Adam (lr 0.01, amsgrad) after
// 10 steps from the problem's start.
PickleValue tensorlib_adam_checkpoint() {
  Problem p(checkpoint("sgd_plain"), "W0", "b0");
  o::Adam<float> opt(Params{p.W, p.b}, {.lr = 0.01, .amsgrad = true});
  p.train(opt, 10);
  PickleValue ckpt = PickleValue::dict();
  ckpt.set("W", PickleValue::tensor(p.W.detach()));
  ckpt.set("b", PickleValue::tensor(p.b.detach()));
  ckpt.set("optimizer", pt::optimizer_state(opt));
  return ckpt;
}

TEST_CASE("load_optimizer_state continues PyTorch's trajectory for every rule") {
  check_continues<o::SGD<float>>("sgd_plain");
  check_continues<o::SGD<float>>("sgd_momentum");
  check_continues<o::AdamW<float>>("adamw");
  check_continues<o::Adamax<float>>("adamax");
  check_continues<o::RAdam<float>>("radam");
  check_continues<o::RMSprop<float>>("rmsprop");
  check_continues<o::Adagrad<float>>("adagrad");
  check_continues<o::Adadelta<float>>("adadelta");
  check_continues<o::Rprop<float>>("rprop");
  check_continues<o::ASGD<float>>("asgd");

  // Two groups with their own options, and a scheduler's initial_lr.
  const PickleValue ckpt = checkpoint("adam_groups");
  Problem p(ckpt);
  o::Adam<float> opt(std::vector<o::ParamGroup<o::AdamRule, float>>{{Params{p.W}, {}}, {Params{p.b}, {}}});
  check_continues("adam_groups", opt, p, ckpt);
  const auto& g = opt.param_groups();
  CHECK(g[0].lr == 0.00125);
  CHECK(g[1].lr == 0.0025);
  CHECK(g[0].initial_lr == 0.01);
  CHECK(g[1].initial_lr == 0.02);
  CHECK(!g[0].amsgrad);
  CHECK(g[1].amsgrad);
  CHECK(g[1].betas == o::Betas{0.8, 0.99});
  CHECK(g[1].weight_decay == 0.1);
}

TEST_CASE("load_optimizer_state continues PyTorch's LBFGS") {
  const PickleValue ckpt = checkpoint("lbfgs");
  Problem p(ckpt);
  o::LBFGS<float> opt(Params{p.W, p.b});
  pt::load_optimizer_state(opt, ckpt["optimizer"]);
  CHECK(opt.options().lr == 0.5);
  CHECK(opt.options().max_iter == 4);
  CHECK(opt.options().max_eval == 5);
  CHECK(opt.options().history_size == 3);
  CHECK(opt.options().line_search_fn == "strong_wolfe");
  REQUIRE(opt.state().has_value());
  CHECK(opt.state()->old_dirs.size() == 3);
  CHECK(opt.state()->n_iter == ckpt["optimizer"]["state"].dict_items()[0].second["n_iter"].to_int());
  double worst = 0;
  for (int k = 0; k < kNext; ++k) {
    p.train(opt, 1);
    worst = std::max({worst, relative_error(p.W, tensor_at(ckpt, "W_next").select(0, k)),
                      relative_error(p.b, tensor_at(ckpt, "b_next").select(0, k))});
  }
  // Our own gradients and line search: a few ulps a step, as in lbfgs_test.
  CHECK_MESSAGE(worst <= 1e-4, "worst relative error " << worst);
}

TEST_CASE("optimizer_state writes what PyTorch's state_dict holds, key for key") {
  check_round_trip<o::SGD<float>>("sgd_plain");
  check_round_trip<o::SGD<float>>("sgd_momentum");
  check_round_trip<o::AdamW<float>>("adamw");
  check_round_trip<o::Adamax<float>>("adamax");
  check_round_trip<o::RAdam<float>>("radam");
  check_round_trip<o::RMSprop<float>>("rmsprop");
  check_round_trip<o::Adagrad<float>>("adagrad");
  check_round_trip<o::Adadelta<float>>("adadelta");
  check_round_trip<o::Rprop<float>>("rprop");
  check_round_trip<o::ASGD<float>>("asgd");
  check_round_trip<o::LBFGS<float>>("lbfgs");

  // PyTorch's forms: a float32 0-d step, 0-d scalars, Python option values.
  const PickleValue asgd = checkpoint("asgd");
  Problem p(asgd);
  o::ASGD<float> opt(Params{p.W, p.b});
  pt::load_optimizer_state(opt, asgd["optimizer"]);
  const PickleValue ours = pt::optimizer_state(opt);
  const PickleValue& s0 = ours["state"].dict_items()[0].second;
  CHECK(s0["step"].to_tensor().dtype() == tl::kFloat32);
  CHECK(s0["step"].to_tensor().dim() == 0);
  CHECK(s0["eta"].to_tensor().dim() == 0);
  CHECK(ours["param_groups"].items()[0]["t0"].kind() == PickleValue::Kind::Float);
  CHECK(ours["param_groups"].items()[0]["maximize"].kind() == PickleValue::Kind::Bool);
  CHECK(ours["param_groups"].items()[0]["params"].items()[1].to_int() == 1);
}

TEST_CASE("a checkpoint in PyTorch's format resumes every rule bit-exactly") {
  check_resumes<o::SGD<float>>("SGD", o::SGDOptions{.lr = 0.05, .momentum = 0.9, .nesterov = true});
  check_resumes<o::Adam<float>>("Adam", o::AdamOptions{.lr = 0.01, .weight_decay = 0.1, .amsgrad = true});
  check_resumes<o::AdamW<float>>("AdamW", o::AdamWOptions{.lr = 0.01, .maximize = true});
  check_resumes<o::Adamax<float>>("Adamax", o::AdamaxOptions{.lr = 0.02});
  check_resumes<o::NAdam<float>>("NAdam",
                                 o::NAdamOptions{.lr = 0.01, .weight_decay = 0.1, .decoupled_weight_decay = true});
  check_resumes<o::RAdam<float>>("RAdam", o::RAdamOptions{.lr = 0.01});
  check_resumes<o::RMSprop<float>>("RMSprop", o::RMSpropOptions{.lr = 0.01, .momentum = 0.5, .centered = true});
  check_resumes<o::Adagrad<float>>("Adagrad", o::AdagradOptions{.lr = 0.1, .initial_accumulator_value = 0.5});
  check_resumes<o::Adadelta<float>>("Adadelta", o::AdadeltaOptions{.lr = 0.5});
  check_resumes<o::Rprop<float>>("Rprop", o::RpropOptions{.lr = 0.02});
  check_resumes<o::ASGD<float>>("ASGD", o::ASGDOptions{.lr = 0.05, .t0 = 5});
  check_resumes<o::LBFGS<float>>(
      "LBFGS", o::LBFGSOptions{.lr = 0.5, .max_iter = 4, .history_size = 3, .line_search_fn = "strong_wolfe"});
}

TEST_CASE("PyTorch resumes from tensorlib's committed checkpoint") {
  // generate_optim_pt.py loads this file with PyTorch, continues 10 steps and
  // checks them against its own 20; TENSORLIB_WRITE_PT_FIXTURES=1 writes it anew.
  const std::string path = fixtures::io_path("optim/tensorlib_adam.pt");
  const PickleValue ours = tensorlib_adam_checkpoint();
  if (std::getenv("TENSORLIB_WRITE_PT_FIXTURES")) pt::save(ours, path);
  const PickleValue committed = pt::load(path);
  // Within rounding: another compiler may differ in the last bits.
  CHECK(relative_error(tensor_at(ours, "W"), tensor_at(committed, "W")) <= kRtol);
  CHECK(relative_error(tensor_at(ours, "b"), tensor_at(committed, "b")) <= kRtol);
  const auto& a = ours["optimizer"]["state"].dict_items();
  const auto& b = committed["optimizer"]["state"].dict_items();
  REQUIRE(a.size() == b.size());
  for (std::size_t i = 0; i < a.size(); ++i)
    for (const char* key : {"exp_avg", "exp_avg_sq", "max_exp_avg_sq"})
      CHECK(relative_error(a[i].second[key].to_tensor().as<float>(), b[i].second[key].to_tensor().as<float>()) <=
            10 * kRtol);
  check_same_entries(ours["optimizer"]["param_groups"].items()[0], committed["optimizer"]["param_groups"].items()[0],
                     "param_groups[0]");
}

TEST_CASE("load_optimizer_state refuses states that do not fit, with PyTorch's messages") {
  const PickleValue ckpt = checkpoint("adamw");
  Problem p(ckpt);
  o::AdamW<float> opt(Params{p.W, p.b}, {.lr = 0.5});
  const PickleValue& good = ckpt["optimizer"];
  const auto load = [&](const PickleValue& v) {
    return fixtures::error_message([&] { pt::load_optimizer_state(opt, v); });
  };
  // A state dict with its entries replaced: f(state, group 0, state of parameter 0).
  const auto edited = [&](auto&& edit) {
    PickleValue group = PickleValue::dict();
    for (const auto& [k, v] : good["param_groups"].items()[0].dict_items()) group.set_item(k, v);
    PickleValue state = PickleValue::dict();
    PickleValue entry0 = PickleValue::dict();
    for (const auto& [k, v] : good["state"].dict_items()[0].second.dict_items()) entry0.set_item(k, v);
    state.set_item(PickleValue::integer(0), entry0);
    state.set_item(PickleValue::integer(1), good["state"].dict_items()[1].second);
    edit(group, entry0);
    PickleValue out = PickleValue::dict();
    out.set("state", state);
    out.set("param_groups", PickleValue::list({group}));
    return out;
  };

  CHECK(load(edited([](PickleValue&, PickleValue&) {})) == "no error");  // the edit itself is faithful
  opt.param_groups()[0].lr = 0.5;

  PickleValue two = PickleValue::dict();
  two.set("state", PickleValue::dict());
  two.set("param_groups", PickleValue::list({good["param_groups"].items()[0], good["param_groups"].items()[0]}));
  CHECK(load(two).find("loaded state dict has a different number of parameter groups") != std::string::npos);
  CHECK(load(edited([](PickleValue& g, PickleValue&) {
          g.set("params", PickleValue::list({PickleValue::integer(0)}));
        })).find("doesn't match the size of optimizer's group") != std::string::npos);
  CHECK(load(edited([](PickleValue& g, PickleValue&) {
          g.set("params", PickleValue::list({PickleValue::integer(3), PickleValue::integer(3)}));
        })).find("parameter id 3 appears twice") != std::string::npos);
  CHECK(load(edited([](PickleValue& g, PickleValue&) { g.set("betas", PickleValue::floating(0.9)); })) ==
        "load_optimizer_state(AdamW): param_groups[0]['betas']: expected a tuple of 2 numbers, got float");
  CHECK(load(edited([](PickleValue& g, PickleValue&) { g.set("lr", PickleValue::floating(-1)); })) ==
        "Invalid learning rate: -1");
  CHECK(load(edited([](PickleValue&, PickleValue& s) {
          s.set("momentum_buffer", PickleValue::tensor(tl::zeros<float>({3, 2})));
        })) ==
        "load_optimizer_state(AdamW): state[0]: 'momentum_buffer' is not part of AdamW's state "
        "(a state dict of another optimizer?)");
  CHECK(load(edited([](PickleValue&, PickleValue& s) {
          s.set("step", PickleValue::tensor(tl::scalar_tensor<float>(1.5f)));
        })) == "load_optimizer_state(AdamW): state[0]['step']: expected an integer, got 1.5");
  CHECK(load(edited([](PickleValue&, PickleValue& s) {
          s.set("exp_avg", PickleValue::tensor(tl::zeros<float>({2, 3})));
        })).find("a state tensor of parameter 0 has shape [2, 3], the parameter has [3, 2]") != std::string::npos);
  CHECK(load(edited([](PickleValue&, PickleValue& s) { s.set("exp_avg", PickleValue::string("x")); })) ==
        "load_optimizer_state(AdamW): state[0]['exp_avg']: expected a tensor or None, got str");
  CHECK(load(PickleValue::list()).find("expected a dict with 'state' and 'param_groups', got list") !=
        std::string::npos);
  CHECK(load(edited([](PickleValue&, PickleValue& s) {
          s.set("step", PickleValue::floating(std::numeric_limits<double>::infinity()));
        })) == "load_optimizer_state(AdamW): state[0]['step']: expected an integer, got inf");
  CHECK(load(PickleValue::dict()) == "load_optimizer_state(AdamW): the state dict has no 'param_groups'");
  // Nothing of a refused state was taken.
  CHECK(opt.param_groups()[0].lr == 0.5);
  CHECK(opt.state(p.W) != nullptr);

  o::LBFGS<float> lbfgs(Params{p.W, p.b});
  CHECK(fixtures::error_message([&] {
          pt::load_optimizer_state(lbfgs, two);
        }).find("loaded state dict has a different number of parameter groups") != std::string::npos);
  PickleValue wrong = PickleValue::dict();
  PickleValue entry = PickleValue::dict();
  entry.set("exp_avg", PickleValue::tensor(tl::zeros<float>({8})));
  wrong.set_item(PickleValue::integer(0), entry);
  PickleValue lbfgs_state = PickleValue::dict();
  lbfgs_state.set("state", wrong);
  lbfgs_state.set("param_groups", checkpoint("lbfgs")["optimizer"]["param_groups"]);
  CHECK(fixtures::error_message([&] { pt::load_optimizer_state(lbfgs, lbfgs_state); }) ==
        "load_optimizer_state(LBFGS): state[0]: 'exp_avg' is not part of LBFGS's state (a state dict of another "
        "optimizer?)");
}

}  // namespace optimizer_state_test
