#pragma once
/// \file
/// Optimizer state in PyTorch's format: `pt::optimizer_state(opt)` is the
/// value `torch.save` writes for `optimizer.state_dict()`, and
/// `pt::load_optimizer_state(opt, value)` is `optimizer.load_state_dict` of
/// such a value, read from a checkpoint PyTorch or tensorlib wrote:
///
///     auto ckpt = tl::io::pt::load("checkpoint.pt");
///     model.load_state_dict(ckpt["model"].to_state_dict());
///     tl::io::pt::load_optimizer_state(opt, ckpt["optimizer"]);
///
/// Every rule of optim/ and LBFGS; keys are the members their
/// `TENSORLIB_FIELDS` name (Note [optimizer state in PyTorch's format]).

#include <concepts>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

#include "tensorlib/core/any_tensor.hpp"
#include "tensorlib/core/error.hpp"
#include "tensorlib/core/tensor.hpp"
#include "tensorlib/io/pickle_value.hpp"
#include "tensorlib/ops/factories.hpp"
#include "tensorlib/optim/lbfgs.hpp"
#include "tensorlib/optim/optimizer.hpp"

// Note [optimizer state in PyTorch's format]
// PyTorch's `optimizer.state_dict()` is {'state': {id: {key: value}},
// 'param_groups': [{option: value, ..., 'params': [id, ...]}]}. The keys are
// the names of the rule's option and state members (`TENSORLIB_FIELDS`,
// which are PyTorch's names), so one pair of functions serves every rule.
// Values take PyTorch's forms: options are Python numbers, bools and tuples;
// a rule's `step` is a float32 0-d tensor and its other scalars (ASGD's
// `eta` and `mu`, NAdam's `mu_product`) 0-d tensors of the parameters'
// type, as current PyTorch stores them; LBFGS's scalars are Python numbers.
// Reading accepts a number or a 0-d tensor for any scalar (PyTorch 1.13
// wrote RMSprop's, Adadelta's and Rprop's `step` as an int).
// Loading follows `torch.optim.Optimizer.load_state_dict`: saved ids map to
// the optimizer's parameters by position, group by group; a saved group's
// missing options take the rule's defaults (PyTorch's `__setstate__`), and
// keys tensorlib has no member for (`foreach`, `fused`, `capturable`,
// `differentiable`, a scheduler's `max_lr`) are ignored. A parameter's state
// starts from the rule's `init` with the saved group's options, and the saved
// entries replace its members; a state key the rule lacks is a `ValueError`,
// since it means the state of another rule. LBFGS keeps its state under its
// first parameter and ignores `al` (scratch space PyTorch saves). State
// tensors go to their parameters' device, as in PyTorch.
// Not written: group keys a scheduler adds. PyTorch's OneCycleLR and
// CyclicLR keep `max_lr`, `min_lr`, `max_momentum`, `base_momentum` in
// `param_groups` and read them each step, and PyTorch's load_state_dict
// replaces the groups by the saved ones; so PyTorch resuming such a
// scheduler from a tensorlib checkpoint must build the scheduler after
// loading the optimizer (tensorlib's schedulers keep these values
// themselves).

namespace tensorlib::io {

namespace detail {

using tensorlib::detail::check;

/// The number `v` holds: an int, float or bool, or a one-element tensor.
inline double number_of(const PickleValue& v, const std::string& where) {
  switch (v.kind()) {
    case PickleValue::Kind::Bool:
      return v.to_bool() ? 1 : 0;
    case PickleValue::Kind::Int:
    case PickleValue::Kind::Float:
      return v.to_double();
    case PickleValue::Kind::Tensor: {
      const AnyTensor& t = v.to_tensor();
      check<TypeError>(t.numel() == 1, where, ": expected a number or a one-element tensor, got a tensor of shape ",
                       t.sizes());
      return t.visit([](const auto& x) { return static_cast<double>(x.cpu().reshape({}).item()); });
    }
    default:
      throw TypeError(where + ": expected a number, got " + std::string(v.kind_name()));
  }
}

/// An integer held as a number or a one-element tensor (PyTorch's `step`).
inline int64_t integer_of(const PickleValue& v, const std::string& where) {
  if (v.kind() == PickleValue::Kind::Int) return v.to_int();
  const double x = number_of(v, where);
  // The range first: casting NaN, an infinity or 1e300 is undefined.
  check<ValueError>(x >= -0x1p63 && x < 0x1p63 && x == static_cast<double>(static_cast<int64_t>(x)), where,
                    ": expected an integer, got ", x);
  return static_cast<int64_t>(x);
}

/// Reads `member` from `v`; `where` names it in errors
/// ("param_groups[0]['betas']").
template <Element T, class M>
void read_field(M& member, const PickleValue& v, const std::string& where) {
  using K = PickleValue::Kind;
  if constexpr (std::same_as<M, bool>) {
    check<TypeError>(v.kind() == K::Bool || v.kind() == K::Int, where, ": expected a bool, got ", v.kind_name());
    member = v.kind() == K::Bool ? v.to_bool() : v.to_int() != 0;
  } else if constexpr (std::same_as<M, int64_t>) {
    member = integer_of(v, where);
  } else if constexpr (std::floating_point<M> || std::same_as<M, T>) {
    member = static_cast<M>(number_of(v, where));
  } else if constexpr (std::same_as<M, optim::Betas>) {
    check<TypeError>(v.kind() == K::Tuple || v.kind() == K::List, where, ": expected a tuple of 2 numbers, got ",
                     v.kind_name());
    check<ValueError>(v.items().size() == 2, where, ": expected a tuple of 2 numbers, got ", v.items().size());
    for (std::size_t i = 0; i < 2; ++i) member[i] = number_of(v.items()[i], where);
  } else if constexpr (std::same_as<M, std::optional<int64_t>>) {
    member = v.is_none() ? std::nullopt : std::optional<int64_t>(integer_of(v, where));
  } else if constexpr (std::same_as<M, std::optional<std::string>>) {
    check<TypeError>(v.is_none() || v.kind() == K::String, where, ": expected a str or None, got ", v.kind_name());
    member = v.is_none() ? std::nullopt : std::optional<std::string>(v.to_string());
  } else if constexpr (std::same_as<M, Tensor<T>>) {
    check<TypeError>(v.is_none() || v.kind() == K::Tensor, where, ": expected a tensor or None, got ", v.kind_name());
    member = v.is_none() ? Tensor<T>() : v.to_tensor().template to<T>();
  } else if constexpr (std::same_as<M, std::vector<Tensor<T>>> || std::same_as<M, std::vector<double>>) {
    check<TypeError>(v.kind() == K::List || v.kind() == K::Tuple, where, ": expected a list, got ", v.kind_name());
    member.clear();
    for (std::size_t i = 0; i < v.items().size(); ++i) {
      check<TypeError>(!std::same_as<M, std::vector<Tensor<T>>> || v.items()[i].kind() == K::Tensor, where, "[", i,
                       "]: expected a tensor, got ", v.items()[i].kind_name());
      typename M::value_type item;
      read_field<T>(item, v.items()[i], where + "[" + std::to_string(i) + "]");
      member.push_back(std::move(item));
    }
  } else {
    static_assert(sizeof(M) == 0, "pt::load_optimizer_state: a TENSORLIB_FIELDS member of a type it cannot read");
  }
}

/// How `field_value` writes scalars: Python numbers (options, LBFGS's
/// state), or 0-d tensors as a rule's state in current PyTorch.
enum class Scalars { Numbers, Tensors };

/// `member` in PyTorch's form; None for an undefined tensor (the caller
/// omits the key).
template <Element T, Scalars S, class M>
PickleValue field_value(std::string_view name, const M& member) {
  if constexpr (std::same_as<M, bool>) {
    return PickleValue::boolean(member);
  } else if constexpr (std::same_as<M, int64_t>) {
    if (S == Scalars::Tensors && name == "step")  // PyTorch's float32 step count
      return PickleValue::tensor(scalar_tensor<float>(static_cast<float>(member)));
    return PickleValue::integer(member);
  } else if constexpr (std::floating_point<M> || std::same_as<M, T>) {
    if constexpr (S == Scalars::Tensors) return PickleValue::tensor(scalar_tensor<T>(static_cast<T>(member)));
    return PickleValue::floating(static_cast<double>(member));
  } else if constexpr (std::same_as<M, optim::Betas>) {
    return PickleValue::tuple({PickleValue::floating(member[0]), PickleValue::floating(member[1])});
  } else if constexpr (std::same_as<M, std::optional<int64_t>>) {
    return member ? PickleValue::integer(*member) : PickleValue();
  } else if constexpr (std::same_as<M, std::optional<std::string>>) {
    return member ? PickleValue::string(*member) : PickleValue();
  } else if constexpr (std::same_as<M, Tensor<T>>) {
    return member.defined() ? PickleValue::tensor(member) : PickleValue();
  } else if constexpr (std::same_as<M, std::vector<Tensor<T>>> || std::same_as<M, std::vector<double>>) {
    PickleValue out = PickleValue::list();
    for (const auto& item : member) out.append(field_value<T, S>(name, item));
    return out;
  } else {
    static_assert(sizeof(M) == 0, "pt::optimizer_state: a TENSORLIB_FIELDS member of a type it cannot write");
  }
}

/// A dict of `fields`' members (their `TENSORLIB_FIELDS`), undefined
/// tensors left out.
template <Element T, Scalars S, class Fields>
PickleValue fields_dict(const Fields& fields) {
  PickleValue out = PickleValue::dict();
  fields.for_each([&](std::string_view name, const auto& member) {
    PickleValue v = field_value<T, S>(name, member);
    if (!v.is_none() || !std::same_as<std::remove_cvref_t<decltype(member)>, Tensor<T>>)
      out.set(std::string(name), std::move(v));
  });
  return out;
}

/// Reads the entries of dict `v` into the members `fields` names. A key
/// with no member is skipped when `ignore_unknown` (options) and a
/// `ValueError` otherwise (state).
template <Element T, class Fields>
void read_fields(const Fields& fields, const PickleValue& v, const std::string& where, bool ignore_unknown,
                 std::string_view owner) {
  check<TypeError>(v.kind() == PickleValue::Kind::Dict, where, ": expected a dict, got ", v.kind_name());
  for (const auto& entry : v.dict_items()) {  // not a structured binding: clang 14 cannot capture one
    const PickleValue& key = entry.first;
    const PickleValue& value = entry.second;
    check<TypeError>(key.kind() == PickleValue::Kind::String, where, ": expected str keys, got ", key.kind_name());
    bool found = false;
    const std::string& k = key.to_string();
    fields.for_each([&](std::string_view name, auto& member) {
      if (name != k) return;
      found = true;
      read_field<T>(member, value, where + "['" + k + "']");
    });
    check<ValueError>(found || ignore_unknown, where, ": '", k, "' is not part of ", owner,
                      "'s state (a state dict of another optimizer?)");
  }
}

/// The saved groups, each checked to be a dict with a list of parameter
/// ids as long as the optimizer's group (PyTorch's messages).
inline const std::vector<PickleValue>& saved_groups(const PickleValue& state, const std::vector<std::size_t>& sizes,
                                                    std::string_view who) {
  check<TypeError>(state.kind() == PickleValue::Kind::Dict, who,
                   ": expected a dict with 'state' and 'param_groups', got ", state.kind_name());
  const PickleValue* found = state.find("param_groups");
  check<KeyError>(found != nullptr, who, ": the state dict has no 'param_groups'");
  const PickleValue& groups = *found;
  check<TypeError>(groups.kind() == PickleValue::Kind::List || groups.kind() == PickleValue::Kind::Tuple, who,
                   ": 'param_groups' is a ", groups.kind_name(), ", not a list");
  check<ValueError>(groups.items().size() == sizes.size(), who,
                    ": loaded state dict has a different number of parameter groups: ", groups.items().size(),
                    ", the optimizer has ", sizes.size());
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    const PickleValue& g = groups.items()[i];
    check<TypeError>(g.kind() == PickleValue::Kind::Dict, who, ": param_groups[", i, "] is a ", g.kind_name(),
                     ", not a dict");
    const PickleValue* listed = g.find("params");
    check<KeyError>(listed != nullptr, who, ": param_groups[", i, "] has no 'params'");
    const PickleValue& params = *listed;
    check<TypeError>(params.kind() == PickleValue::Kind::List || params.kind() == PickleValue::Kind::Tuple, who,
                     ": param_groups[", i, "]['params'] is a ", params.kind_name(), ", not a list");
    check<ValueError>(params.items().size() == sizes[i], who,
                      ": loaded state dict contains a parameter group that doesn't match the size of optimizer's "
                      "group: group ",
                      i, " has ", params.items().size(), " parameters, the optimizer's ", sizes[i]);
  }
  return groups.items();
}

/// The saved ids of all groups' parameters in order, each distinct, as a
/// map to positions.
inline std::unordered_map<int64_t, int64_t> saved_ids(const std::vector<PickleValue>& groups, std::string_view who) {
  std::unordered_map<int64_t, int64_t> position;
  for (std::size_t i = 0; i < groups.size(); ++i) {
    const std::vector<PickleValue>& params = groups[i]["params"].items();
    for (std::size_t j = 0; j < params.size(); ++j) {
      const std::string where =
          std::string(who) + ": param_groups[" + std::to_string(i) + "]['params'][" + std::to_string(j) + "]";
      check<TypeError>(params[j].kind() == PickleValue::Kind::Int, where, " is a ", params[j].kind_name(),
                       ", not an int");
      const auto size = static_cast<int64_t>(position.size());
      check<ValueError>(position.emplace(params[j].to_int(), size).second, where, ": parameter id ", params[j].to_int(),
                        " appears twice");
    }
  }
  return position;
}

/// The saved state dict's 'state' entry: a dict keyed by parameter id.
inline const PickleValue& saved_state(const PickleValue& state, std::string_view who) {
  const PickleValue* found = state.find("state");
  check<KeyError>(found != nullptr, who, ": the state dict has no 'state'");
  const PickleValue& s = *found;
  check<TypeError>(s.kind() == PickleValue::Kind::Dict, who, ": 'state' is a ", s.kind_name(), ", not a dict");
  for (const auto& [key, value] : s.dict_items())
    check<TypeError>(key.kind() == PickleValue::Kind::Int, who, ": 'state' is keyed by ", key.kind_name(),
                     ", not by parameter ids (int)");
  return s;
}

/// {'state': state, 'param_groups': groups}.
inline PickleValue state_and_groups(PickleValue state, PickleValue groups) {
  PickleValue out = PickleValue::dict();
  out.set("state", std::move(state));
  out.set("param_groups", std::move(groups));
  return out;
}

}  // namespace detail

namespace pt {

/// A rule whose options and state name their members (`TENSORLIB_FIELDS`),
/// which PyTorch's format keys by.
template <class R, class T>
concept RuleWithNamedFields = requires(const typename R::Options& o, const typename R::template State<T>& s) {
  o.tensorlib_fields();
  s.tensorlib_fields();
};

/// `opt.state_dict()` as PyTorch's `optimizer.state_dict()` (Note [optimizer
/// state in PyTorch's format]): what to put in a checkpoint for `save`.
template <class R, Element T>
PickleValue optimizer_state(const optim::Optimizer<R, T>& opt) {
  static_assert(RuleWithNamedFields<R, T>,
                "pt::optimizer_state: name the rule's option and state members with TENSORLIB_FIELDS(...)");
  using detail::Scalars;
  const typename optim::Optimizer<R, T>::StateDict sd = opt.state_dict();
  PickleValue state = PickleValue::dict();
  for (const auto& [index, s] : sd.state)
    state.set_item(PickleValue::integer(index), detail::fields_dict<T, Scalars::Tensors>(s.tensorlib_fields()));
  PickleValue groups = PickleValue::list();
  for (const auto& g : sd.param_groups) {
    PickleValue group = detail::fields_dict<T, Scalars::Numbers>(g.options.tensorlib_fields());
    if (g.initial_lr) group.set("initial_lr", PickleValue::floating(*g.initial_lr));
    PickleValue params = PickleValue::list();
    for (const int64_t p : g.params) params.append(PickleValue::integer(p));
    group.set("params", std::move(params));
    groups.append(std::move(group));
  }
  return detail::state_and_groups(std::move(state), std::move(groups));
}

/// LBFGS's state as PyTorch's (its state under the first parameter).
template <std::floating_point T>
PickleValue optimizer_state(const optim::LBFGS<T>& opt) {
  using detail::Scalars;
  const typename optim::LBFGS<T>::StateDict sd = opt.state_dict();
  PickleValue state = PickleValue::dict();
  if (sd.state)
    state.set_item(PickleValue::integer(0), detail::fields_dict<T, Scalars::Numbers>(sd.state->tensorlib_fields()));
  const optim::LBFGSParamGroup& g = sd.param_groups.front();
  PickleValue group = detail::fields_dict<T, Scalars::Numbers>(g.options.tensorlib_fields());
  if (g.initial_lr) group.set("initial_lr", PickleValue::floating(*g.initial_lr));
  PickleValue params = PickleValue::list();
  for (const int64_t p : g.params) params.append(PickleValue::integer(p));
  group.set("params", std::move(params));
  return detail::state_and_groups(std::move(state), PickleValue::list({std::move(group)}));
}

/// PyTorch's `optimizer.load_state_dict(state)` for a state in PyTorch's
/// format (Note [optimizer state in PyTorch's format]). A `TypeError` or
/// `ValueError` naming the entry on a state that does not fit the optimizer,
/// which is then unchanged.
template <class R, Element T>
void load_optimizer_state(optim::Optimizer<R, T>& opt, const PickleValue& state) {
  static_assert(RuleWithNamedFields<R, T>,
                "pt::load_optimizer_state: name the rule's option and state members with TENSORLIB_FIELDS(...)");
  using StateDict = typename optim::Optimizer<R, T>::StateDict;
  const std::string who = "load_optimizer_state(" + std::string(R::name) + ")";
  std::vector<std::size_t> sizes;
  std::vector<const Tensor<T>*> params;  // by position
  std::vector<std::size_t> group_of;     // by position
  for (const auto& g : opt.param_groups()) {
    sizes.push_back(g.params.size());
    for (const auto& p : g.params) {
      params.push_back(&p);
      group_of.push_back(sizes.size() - 1);
    }
  }
  const std::vector<PickleValue>& groups = detail::saved_groups(state, sizes, who);
  const std::unordered_map<int64_t, int64_t> position = detail::saved_ids(groups, who);
  StateDict dict;
  int64_t next = 0;
  for (std::size_t i = 0; i < groups.size(); ++i) {
    typename StateDict::Group group{typename R::Options{}, {}, std::nullopt};
    const std::string where = who + ": param_groups[" + std::to_string(i) + "]";
    detail::read_fields<T>(group.options.tensorlib_fields(), groups[i], where, true, R::name);
    if (const PickleValue* lr = groups[i].find("initial_lr"); lr && !lr->is_none())
      group.initial_lr = detail::number_of(*lr, where + "['initial_lr']");
    for (std::size_t j = 0; j < sizes[i]; ++j) group.params.push_back(next++);
    dict.param_groups.push_back(std::move(group));
  }
  for (const auto& [id, saved] : detail::saved_state(state, who).dict_items()) {
    const auto it = position.find(id.to_int());
    if (it == position.end()) continue;  // PyTorch keeps it unused
    const auto pos = static_cast<std::size_t>(it->second);
    const typename R::Options& options = dict.param_groups[group_of[pos]].options;
    R::check(options);
    typename R::template State<T> s = R::init(options, *params[pos]);
    detail::read_fields<T>(s.tensorlib_fields(), saved, who + ": state[" + std::to_string(id.to_int()) + "]", false,
                           R::name);
    dict.state.emplace(it->second, std::move(s));
  }
  opt.load_state_dict(dict);
}

/// PyTorch's `LBFGS.load_state_dict(state)` for a state in PyTorch's format.
template <std::floating_point T>
void load_optimizer_state(optim::LBFGS<T>& opt, const PickleValue& state) {
  const std::string who = "load_optimizer_state(LBFGS)";
  const std::vector<PickleValue>& groups = detail::saved_groups(state, {opt.params().size()}, who);
  detail::saved_ids(groups, who);  // distinct int ids
  typename optim::LBFGS<T>::StateDict dict;
  optim::LBFGSParamGroup group;
  detail::read_fields<T>(group.options.tensorlib_fields(), groups[0], who + ": param_groups[0]", true, "LBFGS");
  if (const PickleValue* lr = groups[0].find("initial_lr"); lr && !lr->is_none())
    group.initial_lr = detail::number_of(*lr, who + ": param_groups[0]['initial_lr']");
  for (std::size_t j = 0; j < opt.params().size(); ++j) group.params.push_back(static_cast<int64_t>(j));
  dict.param_groups.push_back(std::move(group));
  const int64_t first = groups[0]["params"].items()[0].to_int();
  for (const auto& [id, saved] : detail::saved_state(state, who).dict_items()) {
    if (id.to_int() != first) continue;  // LBFGS keeps everything under its first parameter
    optim::LBFGSState<T> s;
    PickleValue entries = PickleValue::dict();  // without 'al', PyTorch's scratch space
    for (const auto& [key, value] : saved.dict_items())
      if (!(key.kind() == PickleValue::Kind::String && key.to_string() == "al")) entries.set_item(key, value);
    detail::read_fields<T>(s.tensorlib_fields(), entries, who + ": state[" + std::to_string(first) + "]", false,
                           "LBFGS");
    // Onto the parameters' device, as PyTorch's load_state_dict casts state.
    const Device device = opt.params().front().device();
    for (Tensor<T>* t : {&s.d, &s.prev_flat_grad})
      if (t->defined()) *t = t->to(device);
    for (auto* list : {&s.old_dirs, &s.old_stps})
      for (Tensor<T>& t : *list) t = t.to(device);
    if (!entries.dict_items().empty()) dict.state = std::move(s);
  }
  opt.load_state_dict(dict);
}

}  // namespace pt

}  // namespace tensorlib::io
