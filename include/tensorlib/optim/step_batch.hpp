#pragma once
/// \file
/// `StepBatch`: gathers the GPU updates of one optimizer step so that each
/// kind of update runs as one multi-tensor kernel.
///
/// Note [multi-tensor steps]
/// An update rule runs one fused pass per parameter (optim/fused_update.hpp).
/// On a GPU a model of many small tensors then spends its step launching
/// kernels: 50 tensors of 200k floats move 5.6 MB each, a few microseconds of
/// work beside a few microseconds of launch. While `Optimizer::step` runs, a
/// `StepBatch` is active on the thread: `fused_update` hands it the update of
/// every parameter whose tensors are contiguous CUDA tensors, and at the end
/// of the step it launches each kind of update (functor, element type,
/// buffer kinds, device) as one kernel over all their buffers
/// (backend/cuda/for_each.hpp: block b finds its parameter by a binary
/// search over the launch's item list, passed as the kernel argument).
/// A kind is also launched as soon as it holds kFlushElements elements (a
/// few microseconds of GPU work), then at twice as many, four times, ..., so
/// the GPU starts while the host still prepares the remaining parameters and
/// each launch's work covers the host time until the next. Measured on an
/// H100 over 50 tensors of 200k floats: deferring every launch to the end
/// left the GPU idle for the whole host part of the step (32 us of 143);
/// a launch per 2^20 elements made the host the bottleneck (each launch of a
/// 4 KiB argument costs several microseconds: 103 us of host time); the
/// doubling thresholds gave 133 us, but only 125 us (77% of copy) behind
/// queued work, where one 10M tensor takes 110 us: each launch ends in a
/// partly filled wave.
/// So a kind's first early launch waits for a threshold at which the GPU is
/// idle (the device's current stream has run all its work, `stream_idle`);
/// from then on every threshold launches, the schedule measured above. From
/// an idle GPU the step runs as before; behind queued work (a step after the
/// backward's kernels, as in training) the host part is hidden anyway and
/// the step becomes one launch at its end, as long as the items fit one
/// kernel argument (a launch's items share their functor: 82 of Adam's;
/// items with other functors, such as parameters at another step count,
/// go to other launches). This policy is not measured yet (written without
/// a GPU).
/// Deferring is safe because a rule's `update` ends with its `fused_update`
/// (its other work is on host scalars and on new state buffers, which the
/// stream orders before the launch) and parameters are distinct tensors.
/// That is part of the `UpdateRule` contract (optim/optimizer.hpp): a rule
/// must not read on the GPU what its `fused_update` wrote within the same
/// step, and two parameters must not share memory (their updates may now
/// run in one kernel); nor may a gradient or a state buffer share memory
/// with another parameter's tensors (`p1.set_grad(p2)`), which the check
/// within one update does not see and which would race in one kernel. The
/// check across a launch's items is left out, as PyTorch's multi-tensor
/// steps leave it out: it would cost host time on every step.
/// Other updates (CPU tensors, non-contiguous ones, `fused_update` outside a
/// step) run at once.

#include <memory>
#include <utility>
#include <vector>

#include "tensorlib/core/device.hpp"
#include "tensorlib/core/error.hpp"
#include "tensorlib/ops/dispatch.hpp"

namespace tensorlib::optim::detail {

class StepBatch {
 public:
  StepBatch() : outer_(active()) { active() = this; }
  StepBatch(const StepBatch&) = delete;
  StepBatch& operator=(const StepBatch&) = delete;
  /// Launches what is still queued (after an exception in the step: the
  /// parameters updated so far stay consistent with their state), then
  /// deactivates.
  ~StepBatch() {
    active() = outer_;
    try {
      flush();
    } catch (...) {  // the exception already in flight is the one the caller sees
    }
  }

  /// The batch of this thread's running step, or null.
  static StepBatch*& active() {
    thread_local StepBatch* batch = nullptr;
    return batch;
  }

  /// Elements queued in one kind before its first launch within the step
  /// (if the GPU is idle then); each threshold reached doubles the next one
  /// (Note [multi-tensor steps]).
  static constexpr int64_t kFlushElements = int64_t{1} << 20;

  /// Queues f over elements [0, n) of `ptrs` on `device` (a GPU).
  template <Element T, class F, class... P>
  void add(Device device, const F& f, int64_t n, P... ptrs) {
    auto& g = group<T, F, P...>(device);
    g.items.push_back({f, n, {static_cast<const void*>(ptrs)...}});
    g.elements += n;
    if (g.elements >= g.threshold) {
      if (g.launched_early || tensorlib::detail::stream_idle(device)) {
        g.launch();
        g.launched_early = true;
      }
      g.threshold *= 2;
    }
  }

  /// Launches every queued update, one multi-tensor kernel per kind.
  void flush() {
    auto groups = std::move(groups_);
    groups_.clear();
    for (auto& g : groups) g->launch();
  }

 private:
  struct Group {
    virtual ~Group() = default;
    virtual void launch() = 0;
  };
  template <Element T, class F, class... P>
  struct Items final : Group {
    explicit Items(Device d) : device(d) {}
    Device device;
    std::vector<cuda::detail::ForEachItem<F, P...>> items;
    int64_t elements = 0;
    int64_t threshold = kFlushElements;
    bool launched_early = false;
    void launch() override {
      auto queued = std::move(items);
      items.clear();
      elements = 0;
      tensorlib::detail::dispatch_for_each_list<T>(device, queued);
    }
  };

  template <Element T, class F, class... P>
  Items<T, F, P...>& group(Device device) {
    for (auto& g : groups_)
      if (auto* items = dynamic_cast<Items<T, F, P...>*>(g.get()); items != nullptr && items->device == device)
        return *items;
    groups_.push_back(std::make_unique<Items<T, F, P...>>(device));
    return static_cast<Items<T, F, P...>&>(*groups_.back());
  }

  std::vector<std::unique_ptr<Group>> groups_;
  StepBatch* outer_;
};

}  // namespace tensorlib::optim::detail
