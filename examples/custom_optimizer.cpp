// A user's own update rule in a few lines: Lion (Chen et al. 2023,
// "Symbolic Discovery of Optimization Algorithms"). The rule gives options,
// per-parameter state and the element update; Optimizer<Rule> supplies
// groups, state dicts, zero_grad, closures and scheduler support, and runs
// the update as one fused loop per parameter (CPU) or kernel (CUDA).
// TENSORLIB_FIELDS names the members that a checkpoint in PyTorch's format
// holds (tl::io::pt::optimizer_state / load_optimizer_state).

#include <cstdio>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include <tensorlib/tensorlib.hpp>

struct LionOptions {
  double lr = 1e-4;
  tl::optim::Betas betas{0.9, 0.99};
  double weight_decay = 0;
  TENSORLIB_FIELDS(lr, betas, weight_decay)
};

// Lion's step for one element: c = b1*m + (1 - b1)*g; p = p*(1 - lr*wd) - lr*sign(c);
// m = b2*m + (1 - b2)*g.
template <class T>
struct LionStep {
  T beta1, beta2, decay, lr;
  template <class V>
  TENSORLIB_HOST_DEVICE void operator()(V& p, V g, V& m) const {
    using tl::math::select;
    const V c = m * V(beta1) + V(T(1) - beta1) * g;
    const V sign = select(c > V(T(0)), V(T(1)), select(c < V(T(0)), V(T(-1)), V(T(0))));
    p = p * V(decay) - V(lr) * sign;
    m = m * V(beta2) + V(T(1) - beta2) * g;
  }
};

struct LionRule {
  static constexpr std::string_view name = "Lion";
  using Options = LionOptions;
  template <class T>
  struct State {
    tl::Tensor<T> exp_avg;
    auto tensors() { return std::tie(exp_avg); }
    TENSORLIB_FIELDS(exp_avg)
  };
  static void check(const Options& o) {
    if (o.lr < 0) throw tl::ValueError("Invalid learning rate: " + std::to_string(o.lr));
  }
  template <class T>
  static State<T> init(const Options&, const tl::Tensor<T>& p) {
    return {tl::zeros<T>(p.sizes(), {.device = p.device()})};
  }
  template <class T>
  static void update(const Options& o, State<T>& s, tl::Tensor<T>& p, const tl::Tensor<T>& g) {
    tl::optim::fused_update(LionStep<T>{T(o.betas[0]), T(o.betas[1]), T(1 - o.lr * o.weight_decay), T(o.lr)}, p, g,
                            s.exp_avg);
  }
};

int main() {
  // Fit y = x @ w_true with Lion and a cosine schedule.
  tl::Generator gen(0);
  const auto x = tl::randn({256, 8}, gen);
  const auto w_true = tl::randn({8, 1}, gen);
  const tl::Tensor<float> y = tl::matmul(x, w_true);
  auto w = tl::zeros({8, 1}).requires_grad_();

  tl::optim::Optimizer<LionRule> opt(std::vector{w}, {.lr = 0.01});
  tl::optim::lr_scheduler::CosineAnnealingLR sched(opt, 1000);
  std::string checkpoint;  // what tl::io::pt::save would write to a file
  for (int step = 0; step <= 1000; ++step) {
    if (step == 500) {  // a restart halfway: the state goes through torch.save's format
      checkpoint = tl::io::pt::save_bytes(tl::io::pt::optimizer_state(opt));
      tl::optim::Optimizer<LionRule> restarted(std::vector{w});
      tl::io::pt::load_optimizer_state(restarted, tl::io::pt::load_bytes(checkpoint));
      opt.load_state_dict(restarted.state_dict());
    }
    opt.zero_grad();
    tl::Tensor<float> loss = tl::square(tl::matmul(x, w) - y).mean();
    loss.backward();
    opt.step();
    sched.step();
    if (step % 200 == 0) std::printf("step %3d  loss %.6f  lr %.5f\n", step, loss.item(), opt.param_groups()[0].lr);
  }
  const tl::Tensor<float> diff = w.detach() - w_true;
  const float error = tl::linalg::vector_norm(diff).item();
  std::printf("|w - w_true| = %.4f\n", error);
  return error < 0.05f ? 0 : 1;
}
