#pragma once
/// \file
/// Grad modes (PyTorch's GradMode and InferenceMode): thread-local switches
/// that decide whether operations record the autograd graph. They live in
/// core/ because every layer that creates tensors reads them; the graph
/// itself is autograd/'s.

namespace tensorlib {
namespace detail {

struct GradModeState {
  bool enabled = true;
  bool inference = false;
};

inline GradModeState& grad_mode_state() noexcept {
  thread_local GradModeState state;
  return state;
}

}  // namespace detail

/// True when operations on this thread record the graph (the default).
inline bool is_grad_enabled() noexcept { return detail::grad_mode_state().enabled; }
/// Turns graph recording on or off for this thread (`torch.set_grad_enabled`).
inline void set_grad_enabled(bool enabled) noexcept { detail::grad_mode_state().enabled = enabled; }
/// True inside an `InferenceMode` scope.
inline bool is_inference_mode_enabled() noexcept { return detail::grad_mode_state().inference; }

/// Sets grad mode for a scope and restores the previous mode on exit
/// (`torch::AutoGradMode`).
class AutoGradMode {
 public:
  explicit AutoGradMode(bool enabled) : previous_(is_grad_enabled()) { set_grad_enabled(enabled); }
  AutoGradMode(const AutoGradMode&) = delete;
  AutoGradMode& operator=(const AutoGradMode&) = delete;
  ~AutoGradMode() { set_grad_enabled(previous_); }

 private:
  bool previous_;
};

/// Disables graph recording for a scope (`torch::NoGradGuard`).
class NoGradGuard : public AutoGradMode {
 public:
  NoGradGuard() : AutoGradMode(false) {}
};

/// A scope in which nothing is recorded and tensors created are inference
/// tensors (`torch::InferenceMode`): grad mode off, and the flag is visible
/// through `is_inference_mode_enabled()`. `InferenceMode(false)` leaves
/// grad mode as it was.
class InferenceMode {
 public:
  explicit InferenceMode(bool enabled = true) : previous_(detail::grad_mode_state()) {
    if (!enabled) return;
    detail::grad_mode_state() = {.enabled = false, .inference = true};
  }
  InferenceMode(const InferenceMode&) = delete;
  InferenceMode& operator=(const InferenceMode&) = delete;
  ~InferenceMode() { detail::grad_mode_state() = previous_; }

 private:
  detail::GradModeState previous_;
};

}  // namespace tensorlib
