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
/// Deferring is safe because a rule's `update` ends with its `fused_update`
/// (its other work is on host scalars and on new state buffers, which the
/// stream orders before the launch) and parameters are distinct tensors.
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
    } catch (const Error&) {  // the exception already in flight is the one the caller sees
    }
  }

  /// The batch of this thread's running step, or null.
  static StepBatch*& active() {
    thread_local StepBatch* batch = nullptr;
    return batch;
  }

  /// Queues f over elements [0, n) of `ptrs` on `device` (a GPU).
  template <Element T, class F, class... P>
  void add(Device device, const F& f, int64_t n, P... ptrs) {
    group<T, F, P...>(device).items.push_back({f, n, 0, {static_cast<const void*>(ptrs)...}});
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
    void launch() override { tensorlib::detail::dispatch_for_each_list<T>(device, items); }
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
