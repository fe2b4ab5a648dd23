#pragma once
/// \file
/// Recurrent layers (torch/nn/modules/rnn.py): `RNN` (tanh or relu), `LSTM`
/// and `GRU`, with layers, bidirectionality, batch_first, dropout between
/// layers and unbatched input; parameters named and ordered as PyTorch's
/// (`weight_ih_l0`, `weight_hh_l0`, `bias_ih_l0`, `bias_hh_l0`, then
/// `..._l0_reverse`, then layer 1); packed batches of sequences of
/// different lengths (nn/packed_sequence.hpp).
///
/// Note [recurrent layers by recorded ops]
/// A layer runs as recorded ops, so autograd differentiates it with no
/// formulas of its own: one matmul projects the input of every time step at
/// once, (L, N, in) -> (L, N, G H); each step adds its slice to one matmul of
/// the hidden state and applies the cell, whose pointwise part is one fused
/// expression (LSTM: c' = sigmoid(f) c + sigmoid(i) tanh(g) and
/// h' = sigmoid(o) tanh(c'); GRU: h' = (1 - z) n + z h with its gates
/// inside), one node and one loop each. The steps' states are stacked into
/// the output. No cuDNN.
///
/// Shapes: L sequence length, N batch, D directions (1 or 2), H hidden size,
/// G gates (1 RNN, 4 LSTM, 3 GRU).

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "tensorlib/core/config.hpp"
#include "tensorlib/core/error.hpp"
#include "tensorlib/expr/functions.hpp"
#include "tensorlib/nn/functional/layers.hpp"
#include "tensorlib/nn/module.hpp"
#include "tensorlib/nn/modules/linear.hpp"
#include "tensorlib/nn/packed_sequence.hpp"
#include "tensorlib/ops/factories.hpp"
#include "tensorlib/ops/join.hpp"

namespace tensorlib::nn {

/// The options of the recurrent layers.
struct RNNOptions {
  int64_t num_layers = 1;
  bool bias = true;
  bool batch_first = false;
  /// Dropout on the output of every layer but the last, in training.
  double dropout = 0.0;
  bool bidirectional = false;
  /// RNN only: "tanh" or "relu".
  std::string_view nonlinearity = "tanh";
  /// LSTM only: project each step's h to this size (`weight_hr`); 0: none.
  int64_t proj_size = 0;
};

namespace detail {

/// Parameters whose names are known at run time.
template <class Vector>
struct NamedTensorFields {
  Vector& entries;
  template <class F>
  void for_each(F&& f) const {
    for (auto& entry : entries) f(std::string_view(entry.first), entry.second);
  }
};

/// What RNN, LSTM and GRU share: the parameters and the loop over layers,
/// directions and steps; Derived gives `cell`.
template <class Derived, class T, int64_t Gates>
class RNNBase : public Module<Derived, T> {
 public:
  int64_t input_size;
  int64_t hidden_size;
  int64_t num_layers;
  bool bias;
  bool batch_first;
  double dropout;
  bool bidirectional;
  int64_t proj_size;
  /// The parameters in PyTorch's order, with their names (`_flat_weights`).
  std::vector<std::pair<std::string, Tensor<T>>> flat_weights;

  auto tensorlib_parameters() {
    return NamedTensorFields<std::vector<std::pair<std::string, Tensor<T>>>>{flat_weights};
  }
  auto tensorlib_parameters() const {
    return NamedTensorFields<const std::vector<std::pair<std::string, Tensor<T>>>>{flat_weights};
  }

  RNNBase(int64_t in, int64_t hidden, const RNNOptions& options)
      : input_size(in),
        hidden_size(hidden),
        num_layers(options.num_layers),
        bias(options.bias),
        batch_first(options.batch_first),
        dropout(options.dropout),
        bidirectional(options.bidirectional),
        proj_size(options.proj_size) {
    using tensorlib::detail::check;
    check<ValueError>(dropout >= 0 && dropout <= 1,
                      "dropout should be a number in range [0, 1] representing the probability of an element being "
                      "zeroed");
    check<ValueError>(hidden > 0, "hidden_size must be greater than zero");
    check<ValueError>(num_layers > 0, "num_layers must be greater than zero");
    check<ValueError>(proj_size >= 0, "proj_size should be a positive integer or zero to disable projections");
    check<ValueError>(proj_size < hidden, "proj_size has to be smaller than hidden_size");
    check<ValueError>(proj_size == 0 || Gates == 4, "proj_size argument is only supported for LSTM, not RNN or GRU");
    const int64_t real_hidden = output_size();
    const double bound = 1 / std::sqrt(static_cast<double>(hidden));
    const int64_t directions = bidirectional ? 2 : 1;
    for (int64_t layer = 0; layer < num_layers; ++layer) {
      for (int64_t dir = 0; dir < directions; ++dir) {
        const std::string suffix = "_l" + std::to_string(layer) + (dir ? "_reverse" : "");
        const int64_t layer_in = layer == 0 ? in : real_hidden * directions;
        flat_weights.emplace_back("weight_ih" + suffix, uniform_parameter<T>({Gates * hidden, layer_in}, bound));
        flat_weights.emplace_back("weight_hh" + suffix, uniform_parameter<T>({Gates * hidden, real_hidden}, bound));
        if (bias) {
          flat_weights.emplace_back("bias_ih" + suffix, uniform_parameter<T>({Gates * hidden}, bound));
          flat_weights.emplace_back("bias_hh" + suffix, uniform_parameter<T>({Gates * hidden}, bound));
        }
        if (proj_size > 0)
          flat_weights.emplace_back("weight_hr" + suffix, uniform_parameter<T>({proj_size, hidden}, bound));
      }
    }
  }

  /// The parameter named `name` ("weight_ih_l0", ...); a `KeyError` when
  /// there is none.
  const Tensor<T>& parameter(std::string_view name) const {
    for (const auto& [key, t] : flat_weights) {
      if (key == name) return t;
    }
    throw KeyError("RNN: no parameter named '" + std::string(name) + "'");
  }

  std::string extra_repr() const {
    std::string s = std::to_string(input_size) + ", " + std::to_string(hidden_size);
    if (proj_size != 0) s += ", proj_size=" + std::to_string(proj_size);
    if (num_layers != 1) s += ", num_layers=" + std::to_string(num_layers);
    if (!bias) s += ", bias=False";
    if (batch_first) s += ", batch_first=True";
    if (dropout != 0) s += ", dropout=" + python_float(dropout);
    if (bidirectional) s += ", bidirectional=True";
    return s;
  }

  /// The size of h and of each direction's output: proj_size, or hidden_size.
  int64_t output_size() const { return proj_size > 0 ? proj_size : hidden_size; }

 protected:
  /// The input as (L, N, in), with `unbatched` set for 2-d input.
  Tensor<T> time_major(const Tensor<T>& input, const char* op, bool& unbatched) const {
    using tensorlib::detail::check;
    check<ValueError>(input.dim() == 2 || input.dim() == 3, op, ": Expected input to be 2D or 3D, got ", input.dim(),
                      "D instead");
    check<ValueError>(input.size(-1) == input_size, "input.size(-1) must be equal to input_size. Expected ", input_size,
                      ", got ", input.size(-1));
    unbatched = input.dim() == 2;
    if (unbatched) return input.unsqueeze(1);
    return batch_first ? input.transpose(0, 1) : input;
  }
  /// A given initial state checked against (D num_layers, N, width), or
  /// zeros; `width` is H, or the projection's size for an LSTM's h.
  Tensor<T> initial_state(const std::optional<Tensor<T>>& given, int64_t batch, bool unbatched, const Tensor<T>& input,
                          const char* what, int64_t width = 0) const {
    const int64_t layers = num_layers * (bidirectional ? 2 : 1);
    const int64_t size = width > 0 ? width : hidden_size;
    if (!given) return zeros<T>({layers, batch, size}, {.device = input.device()});
    const Tensor<T>& h = *given;
    if (unbatched) {
      tensorlib::detail::check<ValueError>(h.dim() == 2, "For unbatched 2-D input, ", what,
                                           " should also be 2-D but got ", h.dim(), "-D tensor");
    } else {
      tensorlib::detail::check<ValueError>(h.dim() == 3, "For batched 3-D input, ", what,
                                           " should also be 3-D but got ", h.dim(), "-D tensor");
    }
    const Tensor<T> state = unbatched ? h.unsqueeze(1) : h;
    const Shape expected{layers, batch, size};
    tensorlib::detail::check<ValueError>(state.sizes() == expected, "Expected ", what, " size (", layers, ", ", batch,
                                         ", ", size, "), got ", h.sizes());
    return state;
  }

  /// Runs every layer and direction over `x` (L, N, in) from the initial
  /// states (one tensor per kind of state, each (D num_layers, N, H));
  /// returns the output (L, N, D H) and the final states.
  std::pair<Tensor<T>, std::vector<Tensor<T>>> run(const Tensor<T>& x, const std::vector<Tensor<T>>& initial) const {
    const int64_t steps = x.size(0), batch = x.size(1);
    auto [out, finals] = run_packed(x.reshape({steps * batch, x.size(2)}),
                                    std::vector<int64_t>(static_cast<std::size_t>(steps), batch), initial);
    return {out.view({steps, batch, out.size(1)}), std::move(finals)};
  }

  /// The same over a packed batch (Note [packed sequences]): `x` is (sum of
  /// lengths, in), step t's rows its first `batch_sizes[t]` sequences. At a
  /// step only that prefix of the states advances: in the forward direction
  /// the sequences that ended keep their last states, in the reverse one the
  /// sequences that have not begun keep their initial states. Returns the
  /// packed output (sum of lengths, D H) and the final states.
  std::pair<Tensor<T>, std::vector<Tensor<T>>> run_packed(Tensor<T> x, const std::vector<int64_t>& batch_sizes,
                                                          const std::vector<Tensor<T>>& initial) const {
    const int64_t directions = bidirectional ? 2 : 1, steps = static_cast<int64_t>(batch_sizes.size());
    const int64_t batch = initial[0].size(1);
    const std::size_t per_direction = (bias ? 4 : 2) + (proj_size > 0 ? 1 : 0);
    std::vector<int64_t> offsets(batch_sizes.size() + 1, 0);
    for (std::size_t t = 0; t < batch_sizes.size(); ++t) offsets[t + 1] = offsets[t] + batch_sizes[t];
    std::vector<std::vector<Tensor<T>>> finals(initial.size());
    for (int64_t layer = 0; layer < num_layers; ++layer) {
      std::vector<Tensor<T>> outputs;
      for (int64_t dir = 0; dir < directions; ++dir) {
        const int64_t k = layer * directions + dir;
        const std::size_t w = static_cast<std::size_t>(k) * per_direction;
        const Tensor<T>& w_hh = flat_weights[w + 1].second;
        // Note [recurrent layers by recorded ops]: every step's input
        // projection in one matmul.
        Tensor<T> xw = matmul(x, flat_weights[w].second.t());
        if (bias) xw = xw + flat_weights[w + 2].second;
        std::vector<Tensor<T>> state;
        for (const auto& s : initial) state.push_back(s.select(0, k));
        std::vector<Tensor<T>> hs(static_cast<std::size_t>(steps));
        for (int64_t i = 0; i < steps; ++i) {
          const auto t = static_cast<std::size_t>(dir ? steps - 1 - i : i);
          const int64_t active = batch_sizes[t];
          std::vector<Tensor<T>> advancing = state;
          if (active < batch)
            for (auto& s : advancing) s = s.narrow(0, 0, active);
          Tensor<T> hw = matmul(advancing[0], w_hh.t());
          if (bias) hw = hw + flat_weights[w + 3].second;
          static_cast<const Derived&>(*this).cell(xw.narrow(0, offsets[t], active), hw, advancing);
          if (proj_size > 0) advancing[0] = matmul(advancing[0], flat_weights[w + per_direction - 1].second.t());
          for (std::size_t s = 0; s < state.size(); ++s)
            state[s] =
                active < batch ? cat({advancing[s], state[s].narrow(0, active, batch - active)}, 0) : advancing[s];
          hs[t] = advancing[0];
        }
        outputs.push_back(cat(hs, 0));
        for (std::size_t s = 0; s < state.size(); ++s) finals[s].push_back(state[s]);
      }
      x = directions == 1 ? outputs[0] : cat(outputs, 1);
      if (dropout > 0 && this->training && layer + 1 < num_layers) x = functional::dropout(x, dropout, true);
    }
    std::vector<Tensor<T>> out;
    for (auto& f : finals) out.push_back(stack(f, 0));
    return {x, out};
  }

  /// Runs a packed batch from the given initial states (in the caller's
  /// batch order, or zeros) and returns the packed output and the final
  /// states in the caller's order (PyTorch's permute_hidden).
  std::pair<utils::rnn::PackedSequence<T>, std::vector<Tensor<T>>> run_sequence(
      const utils::rnn::PackedSequence<T>& input, const std::vector<std::optional<Tensor<T>>>& given,
      const char* op) const {
    using tensorlib::detail::check;
    check<ValueError>(input.data.dim() == 2 && !input.batch_sizes.empty(), op,
                      ": a PackedSequence's data must be 2-D (sum of lengths, input_size), got ", input.data.sizes());
    check<ValueError>(input.data.size(1) == input_size, "input.size(-1) must be equal to input_size. Expected ",
                      input_size, ", got ", input.data.size(1));
    const int64_t batch = input.batch_sizes.front();
    int64_t rows = 0;
    for (std::size_t t = 0; t < input.batch_sizes.size(); ++t) {
      const int64_t active = input.batch_sizes[t];
      check<ValueError>(active > 0 && (t == 0 || active <= input.batch_sizes[t - 1]), op,
                        ": a PackedSequence's batch_sizes must be positive and non-increasing, got ", active,
                        " at step ", t);
      rows += active;
    }
    check<ValueError>(rows == input.data.size(0), op, ": a PackedSequence's batch_sizes add up to ", rows,
                      " rows, its data has ", input.data.size(0));
    for (const Tensor<int64_t>* indices : {&input.sorted_indices, &input.unsorted_indices})
      check<ValueError>(!indices->defined() || (indices->dim() == 1 && indices->numel() == batch), op,
                        ": a PackedSequence's sorted and unsorted indices must hold ", batch, " entries");
    std::vector<Tensor<T>> initial;
    for (std::size_t s = 0; s < given.size(); ++s) {
      const char* what = given.size() == 1 ? "hx" : s == 0 ? "hidden[0]" : "hidden[1]";
      Tensor<T> h = initial_state(given[s], batch, false, input.data, what, s == 0 ? output_size() : hidden_size);
      if (given[s] && input.sorted_indices.defined()) h = h.index_select(1, input.sorted_indices.to(h.device()));
      initial.push_back(h);
    }
    auto [data, finals] = run_packed(input.data, input.batch_sizes, initial);
    if (input.unsorted_indices.defined())
      for (auto& f : finals) f = f.index_select(1, input.unsorted_indices.to(f.device()));
    return {utils::rnn::PackedSequence<T>{data, input.batch_sizes, input.sorted_indices, input.unsorted_indices},
            std::move(finals)};
  }

  /// The output in the caller's layout.
  Tensor<T> caller_layout(const Tensor<T>& output, bool unbatched) const {
    if (unbatched) return output.squeeze(1);
    return batch_first ? output.transpose(0, 1) : output;
  }
};

}  // namespace detail

/// `nn.RNN(input_size, hidden_size, ...)`: h' = tanh(W_ih x + b_ih + W_hh h
/// + b_hh) (or relu). forward(input, h0) gives (output, h_n).
template <Element T = float>
class RNN : public detail::RNNBase<RNN<T>, T, 1> {
 public:
  std::string nonlinearity;

  RNN(int64_t in, int64_t hidden, const RNNOptions& options = {})
      : detail::RNNBase<RNN<T>, T, 1>(in, hidden, options), nonlinearity(options.nonlinearity) {
    tensorlib::detail::check<ValueError>(nonlinearity == "tanh" || nonlinearity == "relu", "Unknown nonlinearity '",
                                         nonlinearity, "'. Select from 'tanh' or 'relu'.");
  }
  std::tuple<Tensor<T>, Tensor<T>> forward(const Tensor<T>& input, const std::optional<Tensor<T>>& h0 = {}) const {
    bool unbatched = false;
    const Tensor<T> x = this->time_major(input, "RNN", unbatched);
    const auto [out, states] = this->run(x, {this->initial_state(h0, x.size(1), unbatched, input, "hx")});
    return {this->caller_layout(out, unbatched), unbatched ? states[0].squeeze(1) : states[0]};
  }
  /// A packed batch (Note [packed sequences]): (packed output, h_n).
  std::tuple<utils::rnn::PackedSequence<T>, Tensor<T>> forward(const utils::rnn::PackedSequence<T>& input,
                                                               const std::optional<Tensor<T>>& h0 = {}) const {
    auto [out, states] = this->run_sequence(input, {h0}, "RNN");
    return {std::move(out), states[0]};
  }
  void cell(const Tensor<T>& xw, const Tensor<T>& hw, std::vector<Tensor<T>>& state) const {
    state[0] = nonlinearity == "tanh" ? Tensor<T>(tanh(xw + hw)) : Tensor<T>(relu(xw + hw));
  }
};

/// `nn.LSTM(input_size, hidden_size, ...)`: gates i, f, g, o; with
/// proj_size, h' = W_hr (sigmoid(o) tanh(c')), of proj_size features.
/// forward(input, h0, c0) gives (output, h_n, c_n).
template <Element T = float>
class LSTM : public detail::RNNBase<LSTM<T>, T, 4> {
 public:
  LSTM(int64_t in, int64_t hidden, const RNNOptions& options = {})
      : detail::RNNBase<LSTM<T>, T, 4>(in, hidden, options) {}
  std::tuple<Tensor<T>, Tensor<T>, Tensor<T>> forward(const Tensor<T>& input, const std::optional<Tensor<T>>& h0 = {},
                                                      const std::optional<Tensor<T>>& c0 = {}) const {
    tensorlib::detail::check<ValueError>(h0.has_value() == c0.has_value(), "LSTM: give both h0 and c0, or neither");
    bool unbatched = false;
    const Tensor<T> x = this->time_major(input, "LSTM", unbatched);
    const auto [out, states] =
        this->run(x, {this->initial_state(h0, x.size(1), unbatched, input, "hidden[0]", this->output_size()),
                      this->initial_state(c0, x.size(1), unbatched, input, "hidden[1]")});
    if (unbatched) return {this->caller_layout(out, true), states[0].squeeze(1), states[1].squeeze(1)};
    return {this->caller_layout(out, false), states[0], states[1]};
  }
  /// A packed batch (Note [packed sequences]): (packed output, h_n, c_n).
  std::tuple<utils::rnn::PackedSequence<T>, Tensor<T>, Tensor<T>> forward(
      const utils::rnn::PackedSequence<T>& input, const std::optional<Tensor<T>>& h0 = {},
      const std::optional<Tensor<T>>& c0 = {}) const {
    tensorlib::detail::check<ValueError>(h0.has_value() == c0.has_value(), "LSTM: give both h0 and c0, or neither");
    auto [out, states] = this->run_sequence(input, {h0, c0}, "LSTM");
    return {std::move(out), states[0], states[1]};
  }
  void cell(const Tensor<T>& xw, const Tensor<T>& hw, std::vector<Tensor<T>>& state) const {
    const int64_t h = this->hidden_size;
    const Tensor<T> gates = xw + hw;  // (N, 4 H): i, f, g, o
    const auto gate = [&](int64_t k) { return gates.narrow(1, k * h, h); };
    state[1] = sigmoid(gate(1)) * state[1] + sigmoid(gate(0)) * tanh(gate(2));
    state[0] = sigmoid(gate(3)) * tanh(state[1]);
  }
};

/// `nn.GRU(input_size, hidden_size, ...)`: gates r, z, n;
/// h' = (1 - z) n + z h with n = tanh(W_in x + b_in + r (W_hn h + b_hn)).
/// forward(input, h0) gives (output, h_n).
template <Element T = float>
class GRU : public detail::RNNBase<GRU<T>, T, 3> {
 public:
  GRU(int64_t in, int64_t hidden, const RNNOptions& options = {})
      : detail::RNNBase<GRU<T>, T, 3>(in, hidden, options) {}
  std::tuple<Tensor<T>, Tensor<T>> forward(const Tensor<T>& input, const std::optional<Tensor<T>>& h0 = {}) const {
    bool unbatched = false;
    const Tensor<T> x = this->time_major(input, "GRU", unbatched);
    const auto [out, states] = this->run(x, {this->initial_state(h0, x.size(1), unbatched, input, "hx")});
    return {this->caller_layout(out, unbatched), unbatched ? states[0].squeeze(1) : states[0]};
  }
  /// A packed batch (Note [packed sequences]): (packed output, h_n).
  std::tuple<utils::rnn::PackedSequence<T>, Tensor<T>> forward(const utils::rnn::PackedSequence<T>& input,
                                                               const std::optional<Tensor<T>>& h0 = {}) const {
    auto [out, states] = this->run_sequence(input, {h0}, "GRU");
    return {std::move(out), states[0]};
  }
  void cell(const Tensor<T>& xw, const Tensor<T>& hw, std::vector<Tensor<T>>& state) const {
    const int64_t h = this->hidden_size;
    const auto x_gate = [&](int64_t k) { return xw.narrow(1, k * h, h); };
    const auto h_gate = [&](int64_t k) { return hw.narrow(1, k * h, h); };
    const auto z = sigmoid(x_gate(1) + h_gate(1));
    const auto n = tanh(x_gate(2) + sigmoid(x_gate(0) + h_gate(0)) * h_gate(2));
    state[0] = (T(1) - z) * n + z * state[0];
  }
};

}  // namespace tensorlib::nn
