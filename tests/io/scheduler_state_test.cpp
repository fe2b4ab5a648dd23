// tl::io::pt's scheduler state in PyTorch's format (io/scheduler_state.hpp)
// against checkpoints PyTorch 1.13 wrote (tests/fixtures/
// generate_optim_pt.py): each of the 15 schedulers, rebuilt with the saved
// options, loads PyTorch's optimizer and scheduler state and continues its
// learning rates and momenta; written back, the progress has PyTorch's keys
// and values; tensorlib's own checkpoints resume bit-exactly; PyTorch resumes
// from a committed tensorlib checkpoint (checked by the generator); and
// malformed states are errors.

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "fixtures.hpp"
#include "tensorlib/tensorlib.hpp"

namespace scheduler_state_test {

namespace o = tl::optim;
namespace sch = tl::optim::lr_scheduler;
namespace pt = tl::io::pt;
using tl::io::PickleValue;

constexpr int kFirst = 7, kNext = 8;  // generate_optim_pt.py's S_FIRST, S_NEXT

// generate_optim_pt.py's metric for ReduceLROnPlateau.
double metric(int i) { return i < 3 ? 1.0 / (1 + i) : 0.25; }

// SGD (momentum 0.9) over two groups, lr 0.1 and 0.05, as in the fixtures.
struct Setup {
  tl::Tensor<float> w1 = tl::zeros<float>({2}).requires_grad_();
  tl::Tensor<float> w2 = tl::zeros<float>({3}).requires_grad_();
  o::SGD<float> opt{std::vector<o::ParamGroup<o::SGDRule, float>>{{{w1}, {.lr = 0.1, .momentum = 0.9}},
                                                                  {{w2}, {.lr = 0.05, .momentum = 0.9}}}};
};

// A scheduler over `opt` and how to step it.
struct Scheduler {
  std::vector<std::unique_ptr<sch::LRScheduler>> parts;  // a composite's schedulers
  std::unique_ptr<sch::LRSchedulerBase> sched;
  std::unique_ptr<sch::ReduceLROnPlateau> plateau;
  void step(int i) {
    if (plateau)
      plateau->step(metric(i));
    else
      sched->step();
  }
  PickleValue state() const { return plateau ? pt::scheduler_state(*plateau) : pt::scheduler_state(*sched); }
  void load(const PickleValue& v) {
    if (plateau)
      pt::load_scheduler_state(*plateau, v);
    else
      pt::load_scheduler_state(*sched, v);
  }
};

// Each fixture's scheduler, with the options generate_optim_pt.py gave it.
Scheduler make(const std::string& name, o::SGD<float>& opt) {
  Scheduler s;
  if (name == "step") s.sched = std::make_unique<sch::StepLR>(opt, 3, 0.5);
  if (name == "multistep") s.sched = std::make_unique<sch::MultiStepLR>(opt, std::vector<std::int64_t>{2, 5, 9}, 0.5);
  if (name == "exponential") s.sched = std::make_unique<sch::ExponentialLR>(opt, 0.9);
  if (name == "cosine") s.sched = std::make_unique<sch::CosineAnnealingLR>(opt, 6, 0.001);
  if (name == "warm_restarts") s.sched = std::make_unique<sch::CosineAnnealingWarmRestarts>(opt, 3, 2, 0.001);
  if (name == "lambda")
    s.sched = std::make_unique<sch::LambdaLR>(opt, [](std::int64_t e) { return std::pow(0.95, e); });
  if (name == "multiplicative")
    s.sched = std::make_unique<sch::MultiplicativeLR>(opt, [](std::int64_t) { return 0.9; });
  if (name == "linear")
    s.sched = std::make_unique<sch::LinearLR>(opt, sch::LinearLROptions{.start_factor = 0.25, .total_iters = 10});
  if (name == "constant")
    s.sched = std::make_unique<sch::ConstantLR>(opt, sch::ConstantLROptions{.factor = 0.5, .total_iters = 9});
  if (name == "polynomial")
    s.sched = std::make_unique<sch::PolynomialLR>(opt, sch::PolynomialLROptions{.total_iters = 12, .power = 2});
  if (name == "one_cycle")
    s.sched = std::make_unique<sch::OneCycleLR>(opt, sch::OneCycleLROptions{.max_lr = {1.0, 0.5}, .total_steps = 20});
  if (name == "cyclic")
    s.sched = std::make_unique<sch::CyclicLR>(
        opt,
        sch::CyclicLROptions{.base_lr = 0.01, .max_lr = 0.1, .step_size_up = 4, .mode = sch::CyclicMode::triangular2});
  if (name == "plateau")
    s.plateau = std::make_unique<sch::ReduceLROnPlateau>(
        opt, sch::ReduceLROnPlateauOptions{.factor = 0.5, .patience = 1, .cooldown = 1});
  if (name == "sequential" || name == "chained") {
    const bool sequential = name == "sequential";
    s.parts.push_back(std::make_unique<sch::ConstantLR>(
        opt, sch::ConstantLROptions{.factor = 0.5, .total_iters = sequential ? 3 : 9}));
    s.parts.push_back(std::make_unique<sch::ExponentialLR>(opt, 0.9));
    if (sequential)
      s.sched = std::make_unique<sch::SequentialLR>(
          opt, std::vector<std::reference_wrapper<sch::LRScheduler>>{*s.parts[0], *s.parts[1]},
          std::vector<std::int64_t>{4});
    else
      s.sched = std::make_unique<sch::ChainedScheduler>(
          opt, std::vector<std::reference_wrapper<sch::LRSchedulerBase>>{*s.parts[0], *s.parts[1]});
  }
  REQUIRE_MESSAGE((s.sched || s.plateau), "no scheduler named " << name);
  return s;
}

PickleValue checkpoint(const std::string& name) { return pt::load(fixtures::io_path("optim/sched_" + name + ".pt")); }

const char* const kCases[] = {"step",      "multistep",      "exponential", "cosine",     "warm_restarts",
                              "lambda",    "multiplicative", "linear",      "constant",   "polynomial",
                              "one_cycle", "cyclic",         "plateau",     "sequential", "chained"};

bool close(double a, double e) { return std::abs(a - e) <= 1e-12 * std::abs(e); }

TEST_CASE("load_scheduler_state continues PyTorch's schedule for every scheduler") {
  for (const std::string name : kCases) {
    INFO(name);
    const PickleValue ckpt = checkpoint(name);
    Setup setup;
    Scheduler s = make(name, setup.opt);
    pt::load_optimizer_state(setup.opt, ckpt["optimizer"]);
    s.load(ckpt["scheduler"]);
    const tl::Tensor<double> lrs = ckpt["lrs"].to_tensor().as<double>();
    const tl::Tensor<double> momenta = ckpt["momenta"].to_tensor().as<double>();
    bool ok = true;
    for (int k = 0; k < kNext; ++k) {
      s.step(kFirst + k);
      for (std::size_t g = 0; g < 2; ++g) {
        const double lr = setup.opt.param_groups()[g].lr, momentum = setup.opt.param_groups()[g].momentum;
        const double elr = lrs.index({k, static_cast<std::int64_t>(g)}).item();
        const double em = momenta.index({k, static_cast<std::int64_t>(g)}).item();
        if (!close(lr, elr) || !close(momentum, em)) {
          ok = false;
          MESSAGE("step ", k, " group ", g, ": lr ", lr, " (PyTorch ", elr, "), momentum ", momentum, " (", em, ")");
        }
      }
    }
    CHECK(ok);
  }
}

// Every entry of `ours` is in PyTorch's dict with the same value (PyTorch's
// also holds the options, which tensorlib does not save).
void check_subset(const PickleValue& ours, const PickleValue& theirs, const std::string& where) {
  using K = PickleValue::Kind;
  for (const auto& entry : ours.dict_items()) {
    const std::string& k = entry.first.to_string();
    const PickleValue& v = entry.second;
    // PyTorch 1.13's ChainedScheduler keeps no last_epoch of its own.
    if (k == "_tensorlib_chained" ||
        (k == "last_epoch" && theirs.find("_milestones") == nullptr && theirs.find("_schedulers") != nullptr))
      continue;
    const PickleValue* t = theirs.find(k);
    REQUIRE_MESSAGE(t != nullptr, where << ": PyTorch has no '" << k << "'");
    if (k == "_schedulers") {
      REQUIRE(v.items().size() == t->items().size());
      for (std::size_t i = 0; i < v.items().size(); ++i)
        check_subset(v.items()[i], t->items()[i], where + "['_schedulers'][" + std::to_string(i) + "]");
    } else if (v.kind() == K::List) {
      REQUIRE(t->items().size() == v.items().size());
      for (std::size_t i = 0; i < v.items().size(); ++i)
        CHECK_MESSAGE(v.items()[i].to_double() == t->items()[i].to_double(), where << "['" << k << "'][" << i << "]");
    } else {
      CHECK_MESSAGE(v.kind() == t->kind(),
                    where << "['" << k << "'] is a " << v.kind_name() << ", PyTorch's a " << t->kind_name());
      CHECK_MESSAGE(v.to_double() == t->to_double(), where << "['" << k << "']");
    }
  }
}

TEST_CASE("scheduler_state writes PyTorch's progress entries") {
  for (const std::string name : kCases) {
    INFO(name);
    const PickleValue ckpt = checkpoint(name);
    Setup setup;
    Scheduler s = make(name, setup.opt);
    pt::load_optimizer_state(setup.opt, ckpt["optimizer"]);
    s.load(ckpt["scheduler"]);
    const PickleValue ours = s.state();
    check_subset(ours, ckpt["scheduler"], name);
    CHECK(ours.find("last_epoch") != nullptr);
    CHECK(ours.find("_last_lr") != nullptr);
  }
}

TEST_CASE("a scheduler checkpoint in PyTorch's format resumes bit-exactly") {
  for (const std::string name : kCases) {
    INFO(name);
    Setup a, b;
    Scheduler straight = make(name, a.opt), first = make(name, b.opt);
    for (int i = 0; i < kFirst; ++i) {
      straight.step(i);
      first.step(i);
    }
    const std::string bytes = pt::save_bytes(first.state());
    const std::string opt_bytes = pt::save_bytes(pt::optimizer_state(b.opt));
    Setup c;
    Scheduler resumed = make(name, c.opt);
    pt::load_optimizer_state(c.opt, pt::load_bytes(opt_bytes));
    resumed.load(pt::load_bytes(bytes));
    for (int i = kFirst; i < kFirst + kNext; ++i) {
      straight.step(i);
      resumed.step(i);
      for (std::size_t g = 0; g < 2; ++g) {
        CHECK(c.opt.param_groups()[g].lr == a.opt.param_groups()[g].lr);
        CHECK(c.opt.param_groups()[g].momentum == a.opt.param_groups()[g].momentum);
      }
    }
  }
}

// The same structure, numbers within rounding (another compiler may contract
// a multiply-add of the cosine schedule differently).
bool near(const PickleValue& a, const PickleValue& b) {
  using K = PickleValue::Kind;
  if (a.kind() != b.kind()) return false;
  switch (a.kind()) {
    case K::Dict:
      if (a.dict_items().size() != b.dict_items().size()) return false;
      for (std::size_t i = 0; i < a.dict_items().size(); ++i)
        if (!near(a.dict_items()[i].first, b.dict_items()[i].first) ||
            !near(a.dict_items()[i].second, b.dict_items()[i].second))
          return false;
      return true;
    case K::List:
    case K::Tuple:
      return a.items().size() == b.items().size() &&
             std::equal(a.items().begin(), a.items().end(), b.items().begin(), near);
    case K::Int:
      return a.to_int() == b.to_int();
    case K::Float:
      return close(a.to_double(), b.to_double());
    case K::String:
      return a.to_string() == b.to_string();
    case K::Bool:
      return a.to_bool() == b.to_bool();
    case K::None:
      return true;
    default:
      return false;
  }
}

TEST_CASE("PyTorch resumes from tensorlib's committed scheduler checkpoint") {
  // generate_optim_pt.py builds SGD and CosineAnnealingWarmRestarts with the
  // same options, loads this file's two states, and checks the next lrs
  // against its own uninterrupted run; TENSORLIB_WRITE_PT_FIXTURES=1 writes it.
  Setup setup;
  Scheduler s = make("warm_restarts", setup.opt);
  for (int i = 0; i < kFirst; ++i) s.step(i);
  PickleValue ckpt = PickleValue::dict();
  ckpt.set("optimizer", pt::optimizer_state(setup.opt));
  ckpt.set("scheduler", s.state());
  const std::string path = fixtures::io_path("optim/tensorlib_sched.pt");
  if (std::getenv("TENSORLIB_WRITE_PT_FIXTURES")) pt::save(ckpt, path);
  CHECK(near(ckpt, pt::load(path)));
}

TEST_CASE("load_scheduler_state refuses malformed states") {
  Setup setup;
  sch::StepLR s(setup.opt, 3);
  const auto error = [&](const PickleValue& v) {
    return fixtures::error_message([&] { pt::load_scheduler_state(s, v); });
  };
  CHECK(error(PickleValue::list()) == "load_scheduler_state: expected a scheduler's state dict, got list");
  PickleValue bad = PickleValue::dict();
  bad.set("last_epoch", PickleValue::string("3"));
  CHECK(error(bad) == "load_scheduler_state['last_epoch']: expected a number, got str");
  PickleValue lrs = PickleValue::dict();
  lrs.set("_last_lr", PickleValue::floating(0.1));
  CHECK(error(lrs) == "load_scheduler_state['_last_lr']: expected a list of numbers, got float");
  PickleValue groups = PickleValue::dict();  // one group's lrs for two groups
  groups.set("base_lrs", PickleValue::list({PickleValue::floating(0.1)}));
  groups.set("_last_lr", PickleValue::list({PickleValue::floating(0.1)}));
  CHECK(error(groups).find("expected a state for 2 param groups") != std::string::npos);
  CHECK(s.last_epoch() == 0);                 // nothing taken
  PickleValue counter = PickleValue::dict();  // a counter that no int64 holds
  counter.set("T_i", PickleValue::floating(1e300));
  sch::CosineAnnealingWarmRestarts restarts(setup.opt, 3);
  const auto restarts_error = [&](const PickleValue& v) {
    return fixtures::error_message([&] { pt::load_scheduler_state(restarts, v); });
  };
  CHECK(restarts_error(counter) == "load_scheduler_state['T_i']: expected an integer, got 1e+300");
  // All or nothing: a state without T_cur is refused after the common part
  // was read, and the scheduler keeps its own progress.
  PickleValue partial = pt::scheduler_state(restarts);
  for (int i = 0; i < 4; ++i) restarts.step();
  PickleValue without = PickleValue::dict();
  for (const auto& [k, v] : partial.dict_items())
    if (k.to_string() != "T_cur") without.set_item(k, v);
  CHECK(restarts_error(without).find("the state has no T_cur") != std::string::npos);
  CHECK(restarts.last_epoch() == 4);
  CHECK(restarts.T_i() == 3);
}

}  // namespace scheduler_state_test
