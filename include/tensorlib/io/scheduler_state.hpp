#pragma once
/// \file
/// Learning-rate schedulers' state in PyTorch's format:
/// `pt::scheduler_state(sched)` is the value `torch.save` writes for
/// `scheduler.state_dict()`, and `pt::load_scheduler_state(sched, value)` is
/// `scheduler.load_state_dict` of one (Note [scheduler state in PyTorch's
/// format]). With io/optimizer_state.hpp, a whole training checkpoint:
///
///     tl::io::pt::load_optimizer_state(opt, ckpt["optimizer"]);
///     tl::io::pt::load_scheduler_state(sched, ckpt["scheduler"]);

#include <concepts>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "tensorlib/core/error.hpp"
#include "tensorlib/io/optimizer_state.hpp"
#include "tensorlib/io/pickle_value.hpp"
#include "tensorlib/optim/lr_scheduler_base.hpp"

// Note [scheduler state in PyTorch's format]
// PyTorch's `scheduler.state_dict()` is the scheduler's `__dict__` without
// the optimizer: its options (`gamma`, `step_size`, ...) and its progress
// (`last_epoch`, `_step_count`, `base_lrs`, `_last_lr`, and per scheduler
// `T_cur`, `best`, `num_bad_epochs`, ...; SequentialLR and ChainedScheduler
// nest their schedulers' dicts under `_schedulers`). `LRSchedulerState`
// holds the progress under the same names, so the conversion is one pair of
// functions for every scheduler. Options are not read: a scheduler is
// rebuilt with its options and then loads its progress, as `load_state_dict`
// expects in both libraries; every numeric entry goes to `values`, where
// each scheduler finds its own. Written, the progress alone is what
// PyTorch's `load_state_dict` (a `__dict__.update`) needs on a scheduler
// built with the same options. One entry is tensorlib's: `_tensorlib_chained`
// (written when true) records that the scheduler had switched to PyTorch's
// chainable update (Note [closed form or chained] in optim/lr_scheduler.hpp),
// which a bit-exact resume needs; PyTorch ignores it.

namespace tensorlib::io {

/// A scheduler whose progress is an `LRSchedulerState` (every scheduler of
/// `optim::lr_scheduler`, ReduceLROnPlateau included).
template <class S>
concept SchedulerWithState = requires(S& s, const optim::lr_scheduler::LRSchedulerState& state) {
  { std::as_const(s).state_dict() } -> std::same_as<optim::lr_scheduler::LRSchedulerState>;
  s.load_state_dict(state);
};

namespace detail {

// PyTorch's counters among the scheduler-specific values: ints while integral.
inline bool is_counter(const std::string& key) {
  return key == "T_i" || key == "T_cur" || key == "num_bad_epochs" || key == "cooldown_counter";
}

inline PickleValue number_list(const std::vector<double>& xs) {
  PickleValue out = PickleValue::list();
  for (const double x : xs) out.append(PickleValue::floating(x));
  return out;
}

inline std::vector<double> numbers_of(const PickleValue& v, const std::string& where) {
  check<TypeError>(v.kind() == PickleValue::Kind::List || v.kind() == PickleValue::Kind::Tuple, where,
                   ": expected a list of numbers, got ", v.kind_name());
  std::vector<double> out;
  for (std::size_t i = 0; i < v.items().size(); ++i)
    out.push_back(number_of(v.items()[i], where + "[" + std::to_string(i) + "]"));
  return out;
}

inline PickleValue scheduler_value(const optim::lr_scheduler::LRSchedulerState& s) {
  PickleValue out = PickleValue::dict();
  for (const auto& [key, value] : s.values)
    out.set(key, is_counter(key) && value >= -0x1p63 && value < 0x1p63 &&
                         value == static_cast<double>(static_cast<int64_t>(value))
                     ? PickleValue::integer(static_cast<int64_t>(value))
                     : PickleValue::floating(value));
  if (!s.base_lrs.empty()) out.set("base_lrs", number_list(s.base_lrs));
  out.set("last_epoch", PickleValue::integer(s.last_epoch));
  if (s.step_count > 0) out.set("_step_count", PickleValue::integer(s.step_count));  // none: ReduceLROnPlateau
  out.set("_last_lr", number_list(s.last_lrs));
  if (s.chained) out.set("_tensorlib_chained", PickleValue::boolean(true));
  if (!s.schedulers.empty()) {
    PickleValue nested = PickleValue::list();
    for (const auto& inner : s.schedulers) nested.append(scheduler_value(inner));
    out.set("_schedulers", std::move(nested));
  }
  return out;
}

// `depth` bounds the nesting of `_schedulers` (the unpickler already bounds
// the value's depth; this keeps the recursion's own frames few).
inline optim::lr_scheduler::LRSchedulerState scheduler_state_of(const PickleValue& v, const std::string& where,
                                                                int depth = 0) {
  using K = PickleValue::Kind;
  check<TypeError>(v.kind() == K::Dict, where, ": expected a scheduler's state dict, got ", v.kind_name());
  check<ValueError>(depth < 64, where, ": schedulers nested more than 64 deep");
  optim::lr_scheduler::LRSchedulerState s;
  for (const auto& entry : v.dict_items()) {
    const PickleValue& key = entry.first;
    const PickleValue& value = entry.second;
    check<TypeError>(key.kind() == K::String, where, ": expected str keys, got ", key.kind_name());
    const std::string& k = key.to_string();
    const std::string at = where + "['" + k + "']";
    if (k == "last_epoch") {
      s.last_epoch = integer_of(value, at);
    } else if (k == "_step_count") {
      s.step_count = integer_of(value, at);
    } else if (k == "base_lrs") {
      s.base_lrs = numbers_of(value, at);
    } else if (k == "_last_lr") {
      s.last_lrs = numbers_of(value, at);
    } else if (k == "_tensorlib_chained") {
      check<TypeError>(value.kind() == K::Bool, at, ": expected a bool, got ", value.kind_name());
      s.chained = value.to_bool();
    } else if (k == "_schedulers") {
      check<TypeError>(value.kind() == K::List || value.kind() == K::Tuple, at, ": expected a list, got ",
                       value.kind_name());
      for (std::size_t i = 0; i < value.items().size(); ++i)
        s.schedulers.push_back(scheduler_state_of(value.items()[i], at + "[" + std::to_string(i) + "]", depth + 1));
    } else if (k != "T_cur" && is_counter(k)) {                  // T_cur may be fractional (step(epoch))
      s.values[k] = static_cast<double>(integer_of(value, at));  // checked: schedulers cast it back
    } else if (value.kind() == K::Int || value.kind() == K::Float) {
      s.values[k] = value.to_double();  // options and scheduler-specific progress
    }
  }
  return s;
}

}  // namespace detail

namespace pt {

/// `state` as PyTorch's `scheduler.state_dict()` (its progress; Note
/// [scheduler state in PyTorch's format]).
inline PickleValue scheduler_state(const optim::lr_scheduler::LRSchedulerState& state) {
  return detail::scheduler_value(state);
}
/// `sched.state_dict()` as PyTorch's `scheduler.state_dict()`.
template <SchedulerWithState S>
PickleValue scheduler_state(const S& sched) {
  return detail::scheduler_value(sched.state_dict());
}

/// A scheduler's progress read from PyTorch's `scheduler.state_dict()`.
inline optim::lr_scheduler::LRSchedulerState scheduler_state_dict(const PickleValue& state) {
  return detail::scheduler_state_of(state, "load_scheduler_state");
}
/// PyTorch's `scheduler.load_state_dict(state)`: `sched`, built with the
/// saved scheduler's options, takes its progress. Load the optimizer's state
/// too: as in PyTorch, this does not set the optimizer's lrs.
template <SchedulerWithState S>
void load_scheduler_state(S& sched, const PickleValue& state) {
  sched.load_state_dict(scheduler_state_dict(state));
}

}  // namespace pt

}  // namespace tensorlib::io
