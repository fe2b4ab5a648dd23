// tl::nn::Module and the layers of nn/modules/ against PyTorch 1.13
// (tests/fixtures/generate_nn_modules.py): each case loads PyTorch's state
// dict into the same module and compares its keys and their order, its
// printed form, the training-mode output, the gradients of input and
// parameters, the buffers after the forward and the evaluation-mode output.
// Then the traversal's laws, default initializations, load_state_dict's
// messages, train/eval, zero_grad, to and the containers.

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <sstream>
#include <string>
#include <typeinfo>
#include <vector>

#include "fixtures.hpp"
#include "tensorlib/tensorlib.hpp"

namespace nn = tl::nn;

namespace {

const fixtures::File& modules_file() { return fixtures::load("nn_modules.txt"); }

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

tl::AnyTensor any_of(const fixtures::Case& c, const std::string& key) {
  if (c.tensor(key).dtype == "int64") return c.get<int64_t>(key);
  return c.get<double>(key);
}

// PyTorch's state dict of the case, in its order.
nn::StateDict fixture_state(const fixtures::Case& c) {
  nn::StateDict sd;
  for (const auto& key : split_lines(c.text("keys"))) sd.insert(key, any_of(c, "sd:" + key));
  return sd;
}

void check_any(const tl::AnyTensor& actual, const fixtures::Case& c, const std::string& key) {
  if (c.tensor(key).dtype == "int64") {
    fixtures::check_close(actual.as<int64_t>(), c.get<int64_t>(key), 0, 0, key);
  } else {
    fixtures::check_close(actual.as<double>(), c.get<double>(key), 1e-10, 1e-12, key);
  }
}

// Checks a module's state dict keys and printed form against the case's,
// then loads the case's state dict into it.
template <class M>
void check_names_and_load(M& m, const fixtures::Case& c) {
  CHECK(m.state_dict().keys() == split_lines(c.text("keys")));
  std::ostringstream printed;
  printed << m;
  CHECK(printed.str() == c.text("repr"));
  m.load_state_dict(fixture_state(c));
}

// Checks every parameter's gradient against the case's `grad:<name>`.
template <class M>
void check_parameter_grads(const M& m, const fixtures::Case& c) {
  for (const auto& [key, p] : m.named_parameters()) {
    fixtures::check_close(p.grad(), c.get<double>("grad:" + key), 1e-10, 1e-12, "grad:" + key);
  }
}

template <class X>
X fixture_input(const fixtures::Case& c, const char* key) {
  X x = c.get<typename X::value_type>(key);
  if constexpr (std::is_same_v<typename X::value_type, double>) x.requires_grad_();
  return x;
}

// Runs the fixture case `name` on `m`: inputs of types In (Tensor<double>
// or Tensor<int64_t>), `forwards` training-mode forwards of which the last
// is checked.
template <class... In, class M>
void run_case(const std::string& name, M m, int forwards = 1) {
  CAPTURE(name);
  const auto& c = modules_file()[name];
  check_names_and_load(m, c);
  const auto inputs = [&]<std::size_t... I>(std::index_sequence<I...>) {
    return std::tuple<In...>{fixture_input<In>(c, ("in" + std::to_string(I)).c_str())...};
  }
  (std::index_sequence_for<In...>{});
  tl::Tensor<double> out;
  for (int i = 0; i < forwards; ++i) out = std::apply(m, inputs);
  fixtures::check_close(out, c.get<double>("out"), 1e-10, 1e-12, "out");
  if (out.requires_grad()) {
    out.backward(c.get<double>("g"));
    if constexpr (std::is_same_v<std::tuple_element_t<0, std::tuple<In...>>, tl::Tensor<double>>) {
      fixtures::check_close(std::get<0>(inputs).grad(), c.get<double>("gin0"), 1e-10, 1e-12, "gin0");
    }
  }
  if constexpr (!std::is_void_v<typename M::parameter_type>) check_parameter_grads(m, c);
  for (const auto& [key, value] : m.state_dict()) check_any(value, c, "after:" + key);
  m.eval();
  tl::NoGradGuard no_grad;
  fixtures::check_close(std::apply(m, inputs), c.get<double>("eval"), 1e-10, 1e-12, "eval");
}

using D = tl::Tensor<double>;
using I = tl::Tensor<int64_t>;

// The generator's Net.
struct Net : nn::Module<Net, double> {
  nn::Conv2d<double> conv{2, 4, {3}, {.padding = {1}}};
  nn::BatchNorm2d<double> bn{4};
  nn::MaxPool2d pool{{2}};
  nn::Sequential<nn::Flatten, nn::Linear<double>, nn::GELU, nn::LayerNorm<double>> head{
      nn::Flatten(), nn::Linear<double>(4 * 3 * 3, 8), nn::GELU(), nn::LayerNorm<double>({8})};
  nn::Embedding<double> emb{5, 8, {.padding_idx = 0}};
  nn::ModuleList<nn::Linear<double>> out{nn::Linear<double>(8, 8), nn::Linear<double>(8, 3, false)};
  nn::Dropout drop{0.0};
  TENSORLIB_MODULES(conv, bn, pool, head, emb, out, drop)

  D forward(const D& x, const I& idx) {
    D h = head(pool(D(tl::relu(bn(conv(x)))))) + emb(idx);
    for (auto& layer : out) h = layer(h);
    return drop(h);
  }
};

TEST_CASE("nn modules: values, gradients and buffers against PyTorch") {
  run_case<D>("linear", nn::Linear<double>(4, 3));
  run_case<D>("linear_no_bias", nn::Linear<double>(4, 3, false));
  run_case<D, D>("bilinear", nn::Bilinear<double>(3, 4, 2));
  run_case<D>("conv1d_reflect", nn::Conv1d<double>(2, 3, {3}, {.padding = {1}, .padding_mode = "reflect"}));
  run_case<D>("conv2d_groups", nn::Conv2d<double>(4, 6, {3, 2}, {.stride = {2}, .padding = {1, 0}, .groups = 2}));
  run_case<D>(
      "conv2d_circular",
      nn::Conv2d<double>(2, 2, {3}, {.padding = {2}, .dilation = {2}, .bias = false, .padding_mode = "circular"}));
  run_case<D>("conv3d", nn::Conv3d<double>(2, 2, {2}));
  run_case<D>("conv_transpose2d",
              nn::ConvTranspose2d<double>(3, 2, {3}, {.stride = {2}, .padding = {1}, .output_padding = {1}}));
  run_case<D>("batchnorm1d_cumulative", nn::BatchNorm1d<double>(3, {.momentum = std::nullopt}), 3);
  run_case<D>("batchnorm1d_3d", nn::BatchNorm1d<double>(3, {.affine = false}));
  run_case<D>("batchnorm2d", nn::BatchNorm2d<double>(3, {.eps = 1e-3, .momentum = 0.3}), 2);
  run_case<D>("batchnorm3d_untracked", nn::BatchNorm3d<double>(2, {.track_running_stats = false}));
  run_case<D>("layernorm", nn::LayerNorm<double>({3, 4}));
  run_case<D>("groupnorm", nn::GroupNorm<double>(2, 4));
  run_case<D>("prelu", nn::PReLU<double>(3));
  run_case<I>("embedding", nn::Embedding<double>(6, 3, {.padding_idx = 2}));
  run_case<D>("maxpool2d", nn::MaxPool2d({3}, {.stride = {2}, .padding = {1}, .ceil_mode = true}));
  run_case<D>("avgpool2d", nn::AvgPool2d({2}, {.padding = {1}, .count_include_pad = false}));
  run_case<D>("adaptive_avgpool2d", nn::AdaptiveAvgPool2d({2, 3}));
  run_case<D>("adaptive_maxpool1d", nn::AdaptiveMaxPool1d({3}));
  run_case<D>("leaky_relu", nn::LeakyReLU(0.2));
  run_case<D>("elu", nn::ELU(0.5));
  run_case<D>("gelu_tanh", nn::GELU("tanh"));
  run_case<D>("softplus", nn::Softplus(2.0, 1.5));
  run_case<D>("hardtanh", nn::Hardtanh(-0.5, 1.5));
  run_case<D>("softmax", nn::Softmax(1));
  run_case<D>("log_softmax", nn::LogSoftmax(0));
  run_case<D>("silu", nn::SiLU());
  run_case<D>("mish", nn::Mish());
  run_case<D>("flatten", nn::Flatten(0, 1));
  run_case<D>("unflatten", nn::Unflatten(1, {2, 3}));
  run_case<D, I>("cross_entropy",
                 nn::CrossEntropyLoss<double>({.weight = tl::ones<double>({4}), .label_smoothing = 0.1}));
  run_case<D, I>("nll", nn::NLLLoss<double>({.ignore_index = 1, .reduction = "sum"}));
  run_case<D, D>("bce_with_logits", nn::BCEWithLogitsLoss<double>({}, "mean", tl::ones<double>({3})));
  run_case<D, D>("smooth_l1", nn::SmoothL1Loss("mean", 0.5));
  run_case<D, D>("huber", nn::HuberLoss("sum", 2.0));
  run_case<D, D>("kl_div", nn::KLDivLoss("batchmean", true));
  run_case<D, D>("mse", nn::MSELoss());
  run_case<D, I>("net", Net());
}

// Runs the recurrent fixture case `name`: `call(m, x, c)` gives the output
// and the final states; their gradients under the fixture's upstream
// gradients are checked for the input and every parameter.
template <class M, class Call>
void run_rnn_case(const std::string& name, M m, Call call) {
  CAPTURE(name);
  const auto& c = modules_file()[name];
  check_names_and_load(m, c);
  D x = c.get<double>("in0");
  x.requires_grad_();
  const std::vector<D> results = call(m, x, c);
  const std::vector<std::string> keys{"out", "h_n", "c_n"}, grads{"g_out", "g_h", "g_c"};
  D loss = tl::zeros<double>({});
  for (std::size_t i = 0; i < results.size(); ++i) {
    fixtures::check_close(results[i], c.get<double>(keys[i]), 1e-10, 1e-12, keys[i]);
    loss = loss + (results[i] * c.get<double>(grads[i])).sum();
  }
  loss.backward();
  fixtures::check_close(x.grad(), c.get<double>("gin0"), 1e-10, 1e-12, "gin0");
  check_parameter_grads(m, c);
}

TEST_CASE("nn recurrent layers: values and gradients against PyTorch") {
  using C = fixtures::Case;
  const auto lstm = [](auto& m, const D& x, const C& c) {
    const auto [out, h, cell] =
        c.tensors.count("state0") ? m(x, c.get<double>("state0"), c.get<double>("state1")) : m(x);
    return std::vector<D>{out, h, cell};
  };
  const auto gru = [](auto& m, const D& x, const C& c) {
    const auto [out, h] = c.tensors.count("state0") ? m(x, c.get<double>("state0")) : m(x);
    return std::vector<D>{out, h};
  };
  run_rnn_case("lstm_bidirectional", nn::LSTM<double>(3, 4, {.num_layers = 2, .bidirectional = true}), lstm);
  run_rnn_case("lstm_states_batch_first", nn::LSTM<double>(3, 2, {.batch_first = true}), lstm);
  run_rnn_case("gru_unbatched", nn::GRU<double>(3, 4, {.num_layers = 2}), gru);
  run_rnn_case("gru_bidirectional_no_bias",
               nn::GRU<double>(2, 3, {.bias = false, .batch_first = true, .bidirectional = true}), gru);
  run_rnn_case("rnn_relu", nn::RNN<double>(3, 4, {.num_layers = 2, .nonlinearity = "relu"}), gru);
  run_rnn_case("rnn_tanh", nn::RNN<double>(2, 3), gru);
  run_rnn_case("lstm_proj", nn::LSTM<double>(3, 5, {.num_layers = 2, .bidirectional = true, .proj_size = 2}), lstm);
}

TEST_CASE("nn recurrent layers on packed sequences: values and gradients against PyTorch") {
  namespace rnn = nn::utils::rnn;
  using C = fixtures::Case;
  // Packs the padded input, runs the layer, checks the packed output and
  // its batch sizes, and gives the padded output and the final states.
  const auto packed = [](bool batch_first, bool enforce_sorted) {
    return [=](auto& m, const D& x, const C& c) {
      const rnn::PackedSequence<double> in =
          rnn::pack_padded_sequence(x, c.get<int64_t>("lengths"), batch_first, enforce_sorted);
      CHECK(in.sorted_indices.defined() == !enforce_sorted);
      const bool states = c.tensors.count("state0") != 0;
      const auto results = [&] {
        if constexpr (std::tuple_size_v<decltype(m(in))> == 3)  // LSTM: h0 and c0
          return states ? m(in, c.get<double>("state0"), c.get<double>("state1")) : m(in);
        else
          return states ? m(in, c.get<double>("state0")) : m(in);
      }();
      const rnn::PackedSequence<double>& out = std::get<0>(results);
      fixtures::check_close(out.data, c.get<double>("packed"), 1e-10, 1e-12, "packed");
      CHECK(out.batch_sizes == c.get<int64_t>("batch_sizes").to_vector());
      const auto [padded, lengths] = rnn::pad_packed_sequence(out, batch_first);
      CHECK(tl::equal(lengths, c.get<int64_t>("lengths")));
      std::vector<D> v{padded, std::get<1>(results)};
      if constexpr (std::tuple_size_v<std::remove_cvref_t<decltype(results)>> == 3) v.push_back(std::get<2>(results));
      return v;
    };
  };
  run_rnn_case("lstm_packed_unsorted", nn::LSTM<double>(3, 4, {.num_layers = 2, .bidirectional = true}),
               packed(false, false));
  run_rnn_case("gru_packed_batch_first", nn::GRU<double>(2, 3, {.batch_first = true}), packed(true, true));
  run_rnn_case("rnn_packed_bidirectional", nn::RNN<double>(2, 3, {.bidirectional = true}), packed(false, false));
  run_rnn_case("lstm_proj_packed", nn::LSTM<double>(2, 4, {.bias = false, .proj_size = 3}), packed(false, false));
}

TEST_CASE("nn::utils::rnn: PyTorch's packing, padding and errors") {
  namespace rnn = nn::utils::rnn;
  const tl::Tensor<float> a = tl::tensor({1.f, 2.f, 3.f}), b = tl::tensor({4.f}), c = tl::tensor({5.f, 6.f});
  // pad_sequence: (L, N) by default, (N, L) batch_first, with the padding value.
  CHECK(
      tl::equal(rnn::pad_sequence<float>({a, b, c}), tl::tensor({{1.f, 4.f, 5.f}, {2.f, 0.f, 6.f}, {3.f, 0.f, 0.f}})));
  CHECK(tl::equal(rnn::pad_sequence<float>({a, b}, true, -1.f), tl::tensor({{1.f, 2.f, 3.f}, {4.f, -1.f, -1.f}})));
  // pack_sequence of unsorted lengths 3, 1, 2: sorted 3, 2, 1 (sequences a, c, b).
  const rnn::PackedSequence<float> p = rnn::pack_sequence<float>({a, b, c}, false);
  CHECK(p.data.to_vector() == std::vector<float>{1, 5, 4, 2, 6, 3});
  CHECK(p.batch_sizes == std::vector<int64_t>{3, 2, 1});
  CHECK(p.sorted_indices.to_vector() == std::vector<int64_t>{0, 2, 1});
  CHECK(p.unsorted_indices.to_vector() == std::vector<int64_t>{0, 2, 1});
  const auto [padded, lengths] = rnn::pad_packed_sequence(p, true, 0.f, 4);
  CHECK(tl::equal(padded, tl::tensor({{1.f, 2.f, 3.f, 0.f}, {4.f, 0.f, 0.f, 0.f}, {5.f, 6.f, 0.f, 0.f}})));
  CHECK(lengths.to_vector() == std::vector<int64_t>{3, 1, 2});
  CHECK(fixtures::error_message([&] {
          rnn::pack_sequence<float>({a, b, c});
        }).find("`lengths` array must be sorted in decreasing order") == 0);
  CHECK(fixtures::error_message([&] { rnn::pad_packed_sequence(p, false, 0.f, 2); }) ==
        "Expected total_length to be at least the length of the longest sequence in input, but got total_length=2 "
        "and max sequence length being 3");
  const tl::Tensor<float> x = tl::zeros<float>({3, 2, 1});
  CHECK(fixtures::error_message([&] {
          rnn::pack_padded_sequence(x, std::vector<int64_t>{3, 0});
        }) == "Length of all samples has to be greater than 0, but found an element in 'lengths' that is <= 0");
  CHECK(fixtures::error_message([&] {
          rnn::pack_padded_sequence(x, std::vector<int64_t>{4, 1});
        }) == "pack_padded_sequence: a sequence of length 4 in a padded batch of 3 steps");
  CHECK(fixtures::error_message([&] { rnn::pack_padded_sequence(x, std::vector<int64_t>{3}); }) ==
        "pack_padded_sequence: expected one length per sequence (2), got lengths of shape [1]");
  // proj_size: LSTM only, smaller than hidden_size; h0 has its width.
  CHECK(fixtures::error_message([] { nn::GRU<float>(2, 3, {.proj_size = 1}); }) ==
        "proj_size argument is only supported for LSTM, not RNN or GRU");
  CHECK(fixtures::error_message([] { nn::LSTM<float>(2, 3, {.proj_size = 3}); }) ==
        "proj_size has to be smaller than hidden_size");
  nn::LSTM<float> projected(1, 3, {.proj_size = 2});
  CHECK(fixtures::error_message([&] {
          projected(tl::zeros<float>({3, 2, 1}), tl::zeros<float>({1, 2, 3}), tl::zeros<float>({1, 2, 3}));
        }) == "Expected hidden[0] size (1, 2, 2), got [1, 2, 3]");
  CHECK(std::get<0>(projected(tl::zeros<float>({3, 2, 1}))).sizes() == tl::Shape{3, 2, 2});
  // A layer refuses a packed batch of the wrong width, and an h0 of the wrong batch.
  nn::GRU<float> gru(2, 3);
  const rnn::PackedSequence<float> one = rnn::pack_padded_sequence(x, std::vector<int64_t>{3, 1});
  CHECK(fixtures::error_message([&] { gru(one); }) == "input.size(-1) must be equal to input_size. Expected 2, got 1");
  nn::GRU<float> narrow(1, 3);
  CHECK(fixtures::error_message([&] {
          narrow(one, tl::zeros<float>({1, 3, 3}));
        }) == "Expected hx size (1, 2, 3), got [1, 3, 3]");
  rnn::PackedSequence<float> growing = one;
  growing.batch_sizes = {1, 2, 1};
  CHECK(fixtures::error_message([&] { narrow(growing); }) ==
        "GRU: a PackedSequence's batch_sizes must be positive and non-increasing, got 2 at step 1");
  growing.batch_sizes = {2, 1};
  CHECK(fixtures::error_message([&] { narrow(growing); }) ==
        "GRU: a PackedSequence's batch_sizes add up to 3 rows, its data has 4");
  // Sequences of one length packed give the padded layer's results.
  const tl::Tensor<float> full = tl::randn<float>({4, 2, 1});
  const auto [packed_out, packed_h] = narrow(rnn::pack_padded_sequence(full, std::vector<int64_t>{4, 4}));
  const auto [padded_out, padded_h] = narrow(full);
  CHECK(tl::allclose(packed_out.data, padded_out.reshape({8, 3})));
  CHECK(tl::allclose(packed_h, padded_h));
}

// Runs an attention fixture case: `call(m, inputs, c)` gives the outputs,
// checked with their gradients for the inputs and parameters, then again in
// evaluation mode without grad.
template <class M, class Call>
void run_attention_case(const std::string& name, M m, int inputs, Call call) {
  CAPTURE(name);
  const auto& c = modules_file()[name];
  check_names_and_load(m, c);
  std::vector<D> in;
  for (int i = 0; i < inputs; ++i) in.push_back(c.get<double>("in" + std::to_string(i)).requires_grad_());
  const std::vector<D> results = call(m, in, c);
  D loss = tl::zeros<double>({});
  for (std::size_t i = 0; i < results.size(); ++i) {
    const std::string k = std::to_string(i);
    fixtures::check_close(results[i], c.get<double>("out" + k), 1e-10, 1e-12, "out" + k);
    loss = loss + (results[i] * c.get<double>("g" + k)).sum();
  }
  loss.backward();
  for (int i = 0; i < inputs; ++i) {
    const std::string k = std::to_string(i);
    fixtures::check_close(in[static_cast<std::size_t>(i)].grad(), c.get<double>("gin" + k), 1e-10, 1e-12, "gin" + k);
  }
  check_parameter_grads(m, c);
  m.eval();
  tl::NoGradGuard no_grad;
  const std::vector<D> evals = call(m, in, c);
  for (std::size_t i = 0; i < evals.size(); ++i) {
    fixtures::check_close(evals[i], c.get<double>("eval" + std::to_string(i)), 1e-10, 1e-12, "eval");
  }
}

TEST_CASE("nn attention and transformer layers: values and gradients against PyTorch") {
  using C = fixtures::Case;
  using V = std::vector<D>;
  run_attention_case("mha", nn::MultiheadAttention<double>(8, 2), 3, [](auto& m, const V& in, const C& c) {
    const auto [out, weights] = m(in[0], in[1], in[2], tl::AnyTensor(c.get<bool>("mask:key_padding_mask")), true,
                                  tl::AnyTensor(c.get<double>("mask:attn_mask")));
    return V{out, weights};
  });
  run_attention_case(
      "mha_batch_first_causal", nn::MultiheadAttention<double>(6, 3, {.bias = false, .batch_first = true}), 3,
      [](auto& m, const V& in, const C& c) {
        const auto [out, weights] =
            m(in[0], in[1], in[2], std::nullopt, true, tl::AnyTensor(c.get<bool>("mask:attn_mask")), false);
        return V{out, weights};
      });
  run_attention_case("mha_unbatched_no_weights", nn::MultiheadAttention<double>(4, 1), 3,
                     [](auto& m, const V& in, const C&) {
                       const auto [out, weights] = m(in[0], in[1], in[2], std::nullopt, false);
                       CHECK_FALSE(weights.defined());
                       return V{out};
                     });
  run_attention_case(
      "mha_kdim_vdim_bias_kv_zero_attn",
      nn::MultiheadAttention<double>(8, 2, {.add_bias_kv = true, .add_zero_attn = true, .kdim = 5, .vdim = 3}), 3,
      [](auto& m, const V& in, const C& c) {
        const auto [out, weights] = m(in[0], in[1], in[2], tl::AnyTensor(c.get<bool>("mask:key_padding_mask")), true,
                                      tl::AnyTensor(c.get<double>("mask:attn_mask")));
        return V{out, weights};
      });
  run_attention_case(
      "mha_bias_kv_batch_first", nn::MultiheadAttention<double>(6, 3, {.add_bias_kv = true, .batch_first = true}), 3,
      [](auto& m, const V& in, const C& c) {
        const auto [out, weights] =
            m(in[0], in[1], in[2], std::nullopt, true, tl::AnyTensor(c.get<bool>("mask:attn_mask")), false);
        return V{out, weights};
      });
  run_attention_case("mha_unbatched_zero_attn",
                     nn::MultiheadAttention<double>(4, 2, {.bias = false, .add_zero_attn = true, .kdim = 3, .vdim = 3}),
                     3, [](auto& m, const V& in, const C& c) {
                       const auto [out, weights] =
                           m(in[0], in[1], in[2], tl::AnyTensor(c.get<bool>("mask:key_padding_mask")));
                       return V{out, weights};
                     });
  run_attention_case("transformer_layer",
                     nn::TransformerEncoderLayer<double>(8, 2, {.dim_feedforward = 16, .dropout = 0}), 1,
                     [](auto& m, const V& in, const C& c) {
                       return V{m(in[0], std::nullopt, tl::AnyTensor(c.get<bool>("mask:src_key_padding_mask")))};
                     });
  run_attention_case(
      "transformer_layer_norm_first_gelu",
      nn::TransformerEncoderLayer<double>(
          6, 2, {.dim_feedforward = 12, .dropout = 0, .activation = "gelu", .batch_first = true, .norm_first = true}),
      1, [](auto& m, const V& in, const C& c) { return V{m(in[0], tl::AnyTensor(c.get<double>("mask:src_mask")))}; });
  run_attention_case(
      "transformer_encoder",
      nn::TransformerEncoder<double>(nn::TransformerEncoderLayer<double>(4, 2, {.dim_feedforward = 8, .dropout = 0}), 2,
                                     nn::LayerNorm<double>({4})),
      1, [](auto& m, const V& in, const C&) { return V{m(in[0])}; });
  run_attention_case("transformer_decoder_layer",
                     nn::TransformerDecoderLayer<double>(8, 2, {.dim_feedforward = 16, .dropout = 0}), 2,
                     [](auto& m, const V& in, const C& c) {
                       return V{m(in[0], in[1], tl::AnyTensor(c.get<double>("mask:tgt_mask")), std::nullopt,
                                  std::nullopt, tl::AnyTensor(c.get<bool>("mask:memory_key_padding_mask")))};
                     });
  run_attention_case(
      "transformer_decoder_layer_norm_first_gelu",
      nn::TransformerDecoderLayer<double>(
          6, 2, {.dim_feedforward = 12, .dropout = 0, .activation = "gelu", .batch_first = true, .norm_first = true}),
      2, [](auto& m, const V& in, const C& c) {
        return V{m(in[0], in[1], std::nullopt, tl::AnyTensor(c.get<double>("mask:memory_mask")),
                   tl::AnyTensor(c.get<bool>("mask:tgt_key_padding_mask")))};
      });
  run_attention_case(
      "transformer_decoder",
      nn::TransformerDecoder<double>(nn::TransformerDecoderLayer<double>(4, 2, {.dim_feedforward = 8, .dropout = 0}), 2,
                                     nn::LayerNorm<double>({4})),
      2, [](auto& m, const V& in, const C&) { return V{m(in[0], in[1])}; });
  run_attention_case("transformer",
                     nn::Transformer<double>({.d_model = 4,
                                              .nhead = 2,
                                              .num_encoder_layers = 2,
                                              .num_decoder_layers = 1,
                                              .dim_feedforward = 8,
                                              .dropout = 0}),
                     2, [](auto& m, const V& in, const C& c) {
                       const tl::AnyTensor padding(c.get<bool>("mask:src_key_padding_mask"));
                       return V{m(in[0], in[1], std::nullopt, tl::AnyTensor(c.get<double>("mask:tgt_mask")),
                                  std::nullopt, padding, std::nullopt, padding)};
                     });
}

TEST_CASE("nn attention: kdim, vdim and add_bias_kv take PyTorch's parameters and checks") {
  nn::MultiheadAttention<float> mha(8, 2, {.add_bias_kv = true, .kdim = 5, .vdim = 3});
  CHECK(mha.state_dict().keys() == std::vector<std::string>{"q_proj_weight", "k_proj_weight", "v_proj_weight",
                                                            "in_proj_bias", "bias_k", "bias_v", "out_proj.weight",
                                                            "out_proj.bias"});
  CHECK(mha.k_proj_weight.sizes() == tl::Shape{8, 5});
  CHECK(mha.bias_k.sizes() == tl::Shape{1, 1, 8});
  CHECK(fixtures::error_message([&] {
          mha(tl::zeros<float>({2, 1, 8}), tl::zeros<float>({3, 1, 5}), tl::zeros<float>({4, 1, 3}));
        }) == "key's sequence and batch dims [3, 1, 5] do not match value's [4, 1, 3]");
  CHECK(fixtures::error_message([&] {
          mha(tl::zeros<float>({2, 1, 8}), tl::zeros<float>({3, 1, 8}), tl::zeros<float>({3, 1, 3}));
        }) ==
        "MultiheadAttention: key and value must be (S, N, kdim) and (S, N, vdim) with the query's N, kdim 5 "
        "and vdim 3, got [3, 1, 8] and [3, 1, 3]");
  // The masks are checked against the given source length, before bias_k's row.
  const auto [out, weights] = mha(tl::zeros<float>({2, 1, 8}), tl::zeros<float>({3, 1, 5}), tl::zeros<float>({3, 1, 3}),
                                  tl::AnyTensor(tl::zeros<bool>({1, 3})));
  CHECK(weights.sizes() == tl::Shape{1, 2, 4});
  CHECK(fixtures::error_message([] { nn::MultiheadAttention<float>(8, 2, {.kdim = -1}); }) ==
        "MultiheadAttention: kdim and vdim must be positive, got -1 and 8");
}

TEST_CASE("nn.Transformer: PyTorch's mask, initialization and errors") {
  const tl::Tensor<float> mask = nn::Transformer<float>::generate_square_subsequent_mask(3);
  const float inf = std::numeric_limits<float>::infinity();
  CHECK(mask.to_vector() == std::vector<float>{0, -inf, -inf, 0, 0, -inf, 0, 0, 0});
  CHECK(nn::Transformer<float>::generate_square_subsequent_mask(0).numel() == 0);
  nn::Transformer<float> t(
      {.d_model = 8, .nhead = 2, .num_encoder_layers = 1, .num_decoder_layers = 1, .dim_feedforward = 16});
  // _reset_parameters: xavier_uniform_ on every matrix, so the feed-forward
  // weights are bounded by sqrt(6 / (fan_in + fan_out)), not Linear's default.
  const auto& linear1 = t.encoder.layers[0].linear1.weight;
  CHECK(linear1.abs().max().item() <= std::sqrt(6.0f / (8 + 16)));
  CHECK(linear1.abs().max().item() > 1 / std::sqrt(8.0f));  // beyond kaiming_uniform_'s bound (whp)
  CHECK(t.state_dict().size() == 12 + 2 + 18 + 2);          // an encoder layer, its norm, a decoder layer, its norm
  const auto src = tl::zeros<float>({5, 2, 8});
  CHECK(fixtures::error_message([&] {
          t(src, tl::zeros<float>({3, 3, 8}));
        }) == "the batch number of src and tgt must be equal");
  CHECK(fixtures::error_message([&] {
          t(src, tl::zeros<float>({3, 2, 4}));
        }) == "the feature number of src and tgt must be equal to d_model");
  CHECK(fixtures::error_message([] { nn::TransformerDecoderLayer<float>(8, 2, {.activation = "tanh"}); }) ==
        "activation should be relu/gelu, not tanh");
  CHECK(t(src, tl::zeros<float>({3, 2, 8})).sizes() == tl::Shape{3, 2, 8});
}

TEST_CASE("nn attention: PyTorch's initialization and errors") {
  nn::MultiheadAttention mha(8, 2);
  CHECK(tl::equal(mha.in_proj_bias, tl::zeros<float>({24})));
  CHECK(tl::equal(mha.out_proj.bias, tl::zeros<float>({8})));
  CHECK(mha.in_proj_weight.abs().max().item() <= std::sqrt(6.0 / (24 + 8)));  // xavier_uniform_
  CHECK(fixtures::error_message([] { nn::MultiheadAttention(8, 3); }) == "embed_dim must be divisible by num_heads");
  CHECK(fixtures::error_message([&] {
          mha(tl::zeros<float>({2, 1, 5}), tl::zeros<float>({2, 1, 5}), tl::zeros<float>({2, 1, 5}));
        }) == "was expecting embedding dimension of 8, but got 5");
  CHECK(fixtures::error_message([&] {
          mha(tl::zeros<float>({2, 1, 8}), tl::zeros<float>({3, 1, 8}), tl::zeros<float>({3, 1, 8}), std::nullopt, true,
              tl::AnyTensor(tl::zeros<bool>({2, 2})));
        }) == "The shape of the attn_mask should be [2, 3] or [2, 2, 3], but got [2, 2]");
  CHECK_THROWS_AS(mha(tl::zeros<float>({2, 1, 8}), tl::zeros<float>({2, 1, 8}), tl::zeros<float>({2, 1, 8}),
                      tl::AnyTensor(tl::zeros<int64_t>({1, 2}))),
                  tl::TypeError);
  // In training with dropout, the weights returned are the dropped-out ones (PyTorch's).
  nn::MultiheadAttention dropping(8, 2, {.dropout = 0.5});
  const auto x = tl::randn<float>({8, 4, 8});
  const auto [dropped_out, dropped] = dropping(x, x, x);
  CHECK(tl::Tensor<bool>(dropped == 0.f).any().item());
  // A masked key gets no weight.
  const auto q = tl::randn<float>({1, 1, 8});
  const auto kv = tl::randn<float>({3, 1, 8});
  const auto [out, weights] = mha(q, kv, kv, tl::AnyTensor(tl::tensor<bool>({{false, true, false}})));
  CHECK(weights.select(2, 1).item() == 0.f);
  CHECK(std::abs(weights.sum().item() - 1.f) < 1e-6f);
}

TEST_CASE("nn recurrent layers: PyTorch's errors and initialization") {
  nn::LSTM lstm(3, 4, {.num_layers = 2});
  CHECK(lstm.parameter("weight_hh_l1").sizes() == tl::Shape{16, 4});
  CHECK(lstm.parameter("weight_ih_l1").sizes() == tl::Shape{16, 4});
  CHECK(lstm.parameters().size() == 8);
  for (const auto& p : lstm.parameters()) CHECK(p.abs().max().item() <= 0.5f);  // 1 / sqrt(4)
  CHECK_THROWS_AS((void)lstm.parameter("weight"), tl::KeyError);
  CHECK(fixtures::error_message([&] {
          lstm(tl::zeros<float>({2, 2, 3, 1}));
        }) == "LSTM: Expected input to be 2D or 3D, got 4D instead");
  CHECK(fixtures::error_message([&] {
          lstm(tl::zeros<float>({2, 2, 5}));
        }) == "input.size(-1) must be equal to input_size. Expected 3, got 5");
  CHECK(fixtures::error_message([&] {
          lstm(tl::zeros<float>({2, 2, 3}), tl::zeros<float>({1, 2, 4}), tl::zeros<float>({2, 2, 4}));
        }) == "Expected hidden[0] size (2, 2, 4), got [1, 2, 4]");
  CHECK(fixtures::error_message([&] {
          lstm(tl::zeros<float>({2, 3}), tl::zeros<float>({2, 1, 4}), tl::zeros<float>({2, 1, 4}));
        }) == "For unbatched 2-D input, hidden[0] should also be 2-D but got 3-D tensor");
  CHECK(fixtures::error_message([] { nn::RNN(2, 2, {.nonlinearity = "sigmoid"}); }) ==
        "Unknown nonlinearity 'sigmoid'. Select from 'tanh' or 'relu'.");
  CHECK(fixtures::error_message([] { nn::GRU(2, 0); }) == "hidden_size must be greater than zero");
  // Dropout between layers acts only in training.
  nn::GRU gru(2, 3, {.num_layers = 2, .dropout = 0.5});
  const auto x = tl::randn<float>({4, 2, 2});
  gru.eval();
  const auto [a, ha] = gru(x);
  const auto [b, hb] = gru(x);
  CHECK(tl::equal(a, b));
}

TEST_CASE("nn::Module: names of parameters, buffers and modules are PyTorch's") {
  const auto& c = modules_file()["net_names"];
  Net net;
  std::vector<std::string> params, buffers;
  for (const auto& [name, p] : net.named_parameters()) params.push_back(name);
  for (const auto& [name, b] : net.named_buffers()) buffers.push_back(name);
  CHECK(params == split_lines(c.text("parameters")));
  CHECK(buffers == split_lines(c.text("buffers")));
  std::vector<std::string> modules = net.module_names();
  modules[0] = "";  // PyTorch's first name is the empty string, its own line
  CHECK(modules == std::vector<std::string>{"", "conv", "bn", "pool", "head", "head.0", "head.1", "head.2", "head.3",
                                            "emb", "out", "out.0", "out.1", "drop"});
  CHECK(split_lines(c.text("modules")) == std::vector<std::string>{"", "conv", "bn", "pool", "head", "head.0", "head.1",
                                                                   "head.2", "head.3", "emb", "out", "out.0", "out.1",
                                                                   "drop"});
  CHECK(net.parameters().size() == params.size());
  CHECK(net.named_parameters(false).empty());
  CHECK(net.conv.named_parameters(false).size() == 2);
}

TEST_CASE("nn::Module: load_state_dict's errors are PyTorch's") {
  const auto& c = modules_file()["load_errors"];
  nn::Linear lin(4, 3);
  const tl::Tensor<float> weight = lin.weight.detach().clone();
  const auto load = [&](nn::StateDict sd) { return fixtures::error_message([&] { lin.load_state_dict(sd); }); };
  CHECK(load({{"weight", tl::zeros<float>({3, 4})}}) == c.text("missing"));
  CHECK(load({{"weight", tl::zeros<float>({3, 4})},
              {"bias", tl::zeros<float>({3})},
              {"scale", tl::zeros<float>({1})},
              {"w2", tl::zeros<float>({1})}}) == c.text("unexpected"));
  CHECK(load({{"bias", tl::zeros<float>({3})}, {"extra", tl::zeros<float>({1})}}) == c.text("both"));
  CHECK(load({{"weight", tl::zeros<float>({4, 3})}, {"bias", tl::zeros<float>({3})}}) == c.text("size"));
  // Nothing was copied by a failed load.
  CHECK(tl::equal(lin.weight, weight));
  // Not strict: the keys come back and the rest is loaded, converted to float.
  const auto keys =
      lin.load_state_dict({{"weight", tl::ones<double>({3, 4})}, {"extra", tl::zeros<float>({1})}}, false);
  CHECK(keys.missing_keys == std::vector<std::string>{"bias"});
  CHECK(keys.unexpected_keys == std::vector<std::string>{"extra"});
  CHECK(tl::equal(lin.weight, tl::ones<float>({3, 4})));
  CHECK(lin.weight.requires_grad());
  CHECK(lin.weight.is_leaf());
}

TEST_CASE("nn::Module: a batch norm's num_batches_tracked may be missing from a state dict") {
  nn::BatchNorm1d<> bn(2);
  bn.num_batches_tracked.fill_(7);
  const auto keys = bn.load_state_dict({{"weight", tl::full<float>({2}, 2.f)},
                                        {"bias", tl::zeros<float>({2})},
                                        {"running_mean", tl::ones<float>({2})},
                                        {"running_var", tl::ones<float>({2})}});
  CHECK(keys.missing_keys.empty());
  CHECK(bn.num_batches_tracked.item() == 7);
  CHECK(tl::equal(bn.weight, tl::full<float>({2}, 2.f)));
  CHECK(nn::detail::is_num_batches_tracked("features.1.num_batches_tracked"));
  CHECK_FALSE(nn::detail::is_num_batches_tracked("my_num_batches_tracked"));
}

TEST_CASE("nn modules are callable through const references") {
  const nn::Sequential seq{nn::Linear(2, 3), nn::ReLU(), nn::Linear(3, 1)};
  CHECK(seq(tl::ones<float>({4, 2})).sizes() == tl::Shape{4, 1});
  const nn::TransformerEncoder enc(nn::TransformerEncoderLayer(4, 2, {.dim_feedforward = 8}), 2);
  CHECK(enc(tl::ones<float>({3, 1, 4})).sizes() == tl::Shape{3, 1, 4});
}

TEST_CASE("nn::StateDict keeps insertion order and names missing keys") {
  nn::StateDict sd{{"b", tl::zeros<float>({1})}, {"a", tl::ones<int64_t>({2})}};
  sd.insert("b", tl::ones<float>({3}));
  CHECK(sd.keys() == std::vector<std::string>{"b", "a"});
  CHECK(sd.get<float>("b").numel() == 3);
  CHECK(sd.at("a").dtype() == tl::kInt64);
  CHECK(fixtures::error_message([&] { (void)sd.at("c"); }) == "StateDict: no key 'c'");
  CHECK_THROWS_AS((void)sd.at("c"), tl::KeyError);
  CHECK_THROWS_AS((void)sd.get<double>("b"), tl::TypeError);
  sd.erase("b");
  CHECK(sd.keys() == std::vector<std::string>{"a"});
  CHECK(sd.at("a").numel() == 2);
}

TEST_CASE("nn::Module: state_dict shares the module's tensors, detached") {
  nn::Linear lin(2, 2);
  const auto sd = lin.state_dict();
  const auto w = sd.get<float>("weight");
  CHECK(w.data_ptr() == lin.weight.data_ptr());
  CHECK_FALSE(w.requires_grad());
}

// Two layers sharing one weight (tied weights): parameters() lists it once,
// the state dict under both names, as PyTorch.
struct Tied : nn::Module<Tied> {
  nn::Linear<> a{3, 3};
  nn::Linear<> b{3, 3};
  TENSORLIB_MODULES(a, b)
  Tied() { b.weight = a.weight; }
  tl::Tensor<float> forward(const tl::Tensor<float>& x) { return b(a(x)); }
};

TEST_CASE("nn::Module: clone() copies deeply, a C++ copy shares") {
  nn::Sequential seq{nn::Linear(2, 3), nn::BatchNorm1d(3)};
  seq.get<0>().weight.sum().backward();
  const auto shared = seq;
  const auto deep = seq.clone();
  CHECK(shared.get<0>().weight.impl() == seq.get<0>().weight.impl());
  CHECK(deep.get<0>().weight.impl() != seq.get<0>().weight.impl());
  CHECK(tl::equal(deep.get<0>().weight, seq.get<0>().weight));
  CHECK(deep.get<0>().weight.requires_grad());
  CHECK(deep.get<0>().weight.is_leaf());
  CHECK(tl::equal(deep.get<0>().weight.grad(), tl::ones<float>({3, 2})));
  CHECK(deep.get<1>().num_batches_tracked.impl() != seq.get<1>().num_batches_tracked.impl());
  seq.get<1>().running_mean.fill_(5.f);
  CHECK(deep.get<1>().running_mean.sum().item() == 0.f);
  // TransformerEncoder's layers are clones of one layer: equal, not shared.
  nn::TransformerEncoder enc(nn::TransformerEncoderLayer(4, 2, {.dim_feedforward = 8}), 3);
  CHECK(tl::equal(enc.layers[0].linear1.weight, enc.layers[2].linear1.weight));
  CHECK(enc.layers[0].linear1.weight.impl() != enc.layers[2].linear1.weight.impl());
  CHECK(enc.parameters().size() == 36);
}

TEST_CASE("nn::Sequential of StaticLinear layers checks its sizes at compile time") {
  nn::Sequential mlp{nn::StaticLinear<4, 8>(), nn::ReLU(), nn::Dropout(0.0), nn::StaticLinear<8, 2>()};
  CHECK(mlp(tl::randn<float>({3, 4})).sizes() == tl::Shape{3, 2});
  CHECK(mlp.state_dict().keys() == std::vector<std::string>{"0.weight", "0.bias", "3.weight", "3.bias"});
  static_assert(nn::detail::SizesAgree<0, -1, nn::StaticLinear<4, 8>, nn::GELU, nn::StaticLinear<8, 2>>::value);
  // tests/compile_fail/sequential_sizes.cpp: StaticLinear<784, 256>, ReLU, StaticLinear<128, 10> does not compile.
  static_assert(nn::detail::features_after<nn::StaticLinear<4, 8>>(-1) == 8);
  static_assert(nn::detail::features_after<nn::Tanh>(8) == 8);
  static_assert(nn::detail::features_after<nn::Flatten>(8) == -1);
  // A layer of run-time sizes in between makes the sizes unknown: checked when it runs.
  nn::Sequential mixed{nn::StaticLinear<4, 8>(), nn::Linear(8, 3), nn::StaticLinear<5, 2>()};
  CHECK_THROWS_AS(mixed(tl::randn<float>({1, 4})), tl::Error);
}

TEST_CASE("nn::Module: a shared parameter is listed once, saved under each name") {
  Tied t;
  CHECK(t.parameters().size() == 3);
  CHECK(t.state_dict().keys() == std::vector<std::string>{"a.weight", "a.bias", "b.weight", "b.bias"});
  // clone() keeps the tie, as copy.deepcopy does.
  const Tied copy = t.clone();
  CHECK(copy.a.weight.impl() == copy.b.weight.impl());
  CHECK(copy.a.weight.impl() != t.a.weight.impl());
  CHECK(copy.parameters().size() == 3);
}

TEST_CASE("nn layers: default initialization has PyTorch's bounds and moments") {
  tl::manual_seed(11);
  nn::Linear lin(1000, 400);
  const double bound = 1 / std::sqrt(1000.0);
  CHECK(lin.weight.abs().max().item() <= bound);
  CHECK(lin.bias.abs().max().item() <= bound);
  // uniform(-b, b) has standard deviation b / sqrt(3)
  CHECK(lin.weight.std().item() == doctest::Approx(bound / std::sqrt(3.0)).epsilon(0.01));
  CHECK(lin.weight.requires_grad());
  CHECK(lin.weight.is_leaf());
  nn::Conv2d<> conv(16, 8, {3}, {.groups = 2});
  CHECK(conv.weight.sizes() == tl::Shape{8, 8, 3, 3});
  CHECK(conv.weight.abs().max().item() <= 1 / std::sqrt(72.0));
  nn::ConvTranspose2d<> deconv(4, 6, {2}, {.groups = 2});
  CHECK(deconv.weight.sizes() == tl::Shape{4, 3, 2, 2});
  CHECK(deconv.bias.sizes() == tl::Shape{6});
  nn::BatchNorm2d<> bn(5);
  CHECK(tl::equal(bn.weight, tl::ones<float>({5})));
  CHECK(tl::equal(bn.bias, tl::zeros<float>({5})));
  CHECK(tl::equal(bn.running_var, tl::ones<float>({5})));
  CHECK(bn.num_batches_tracked.item() == 0);
  CHECK(bn.num_batches_tracked.dim() == 0);
  nn::Embedding emb(300, 20, {.padding_idx = -1});
  CHECK(emb.padding_idx == 299);
  CHECK(emb.weight.select(0, 299).abs().sum().item() == 0);
  CHECK(emb.weight.std().item() == doctest::Approx(1.0).epsilon(0.05));
}

TEST_CASE("nn layers: argument errors") {
  CHECK(fixtures::error_message([] { nn::Conv2d<>(3, 4, {3}, {.groups = 2}); }) ==
        "in_channels must be divisible by groups");
  CHECK(fixtures::error_message([] { nn::Conv2d<>(4, 3, {3}, {.groups = 2}); }) ==
        "out_channels must be divisible by groups");
  CHECK(fixtures::error_message([] { nn::Conv2d<>(4, 4, {3}, {.groups = 0}); }) == "groups must be a positive integer");
  CHECK(fixtures::error_message([] { nn::Conv2d<>(4, 4, {3}, {.padding_mode = "zero"}); }) ==
        "padding_mode must be one of ['zeros', 'reflect', 'replicate', 'circular'], but got padding_mode='zero'");
  CHECK(fixtures::error_message([] { nn::ConvTranspose1d<>(4, 4, {3}, {.padding_mode = "reflect"}); }) ==
        "Only \"zeros\" padding mode is supported for ConvTranspose1d");
  CHECK(fixtures::error_message([] { nn::Dropout(1.5); }) ==
        "dropout probability has to be between 0 and 1, but got 1.5");
  CHECK(fixtures::error_message([] { nn::Embedding(3, 2, {.padding_idx = 3}); }) ==
        "Padding_idx must be within num_embeddings");
  nn::BatchNorm2d<> bn(3);
  CHECK(fixtures::error_message([&] { bn(tl::zeros<float>({2, 3, 4})); }) == "expected 4D input (got 3D input)");
  nn::BatchNorm1d<> bn1(3);
  CHECK(fixtures::error_message([&] {
          bn1(tl::zeros<float>({2, 3, 4, 5}));
        }) == "expected 2D or 3D input (got 4D input)");
  nn::ModuleList<nn::Linear<>> list{nn::Linear(1, 1)};
  CHECK(fixtures::error_message([&] { (void)list[1]; }) == "ModuleList: index 1 is out of range");
  CHECK(&list[-1] == &list[0]);
}

TEST_CASE("nn::Module: train and eval reach every submodule and change Dropout and BatchNorm") {
  Net net;
  net.eval();
  bool all_eval = true;
  net.for_each_module([&](const std::string&, const auto& m) { all_eval = all_eval && !m.training; });
  CHECK(all_eval);
  CHECK_FALSE(net.head.get<3>().training);
  net.train();
  CHECK(net.out[1].training);
  nn::Dropout drop(0.5);
  const auto x = tl::ones<float>({1000});
  const auto y = drop(x);
  const double zeros = (y == 0.f).sum().item();
  CHECK(zeros > 400);
  CHECK(zeros < 600);
  CHECK(tl::equal(y.masked_select(y != 0.f), tl::full<float>({1000 - static_cast<int64_t>(zeros)}, 2.f)));
  drop.eval();
  CHECK(tl::equal(drop(x), x));
  // BatchNorm in evaluation mode uses (and keeps) the running statistics.
  nn::BatchNorm1d<> bn(2);
  bn.eval();
  const auto in = tl::tensor<float>({{1, 2}, {3, 6}});
  CHECK(tl::allclose(bn(in), in / std::sqrt(1 + 1e-5)));
  CHECK(bn.num_batches_tracked.item() == 0);
}

TEST_CASE("nn::Module: zero_grad, requires_grad_, apply and to") {
  nn::Sequential seq{nn::Linear(3, 4), nn::Tanh(), nn::Linear(4, 2)};
  seq(tl::randn<float>({5, 3})).sum().backward();
  for (const auto& p : seq.parameters()) CHECK(p.grad().defined());
  seq.zero_grad(false);
  for (const auto& p : seq.parameters()) CHECK(p.grad().abs().sum().item() == 0);
  seq.zero_grad();
  for (const auto& p : seq.parameters()) CHECK_FALSE(p.grad().defined());
  seq.requires_grad_(false);
  CHECK_FALSE(seq(tl::randn<float>({2, 3})).requires_grad());
  seq.requires_grad_();
  // apply visits children before parents.
  std::vector<std::string> order;
  seq.apply([&](auto& m) {
    order.push_back(nn::detail::module_name<std::remove_cvref_t<decltype(m)>>());
    if constexpr (requires { m.bias; }) m.bias.detach().fill_(0.f);
  });
  CHECK(order == std::vector<std::string>{"Linear", "Tanh", "Linear", "Sequential"});
  CHECK(seq.get<2>().bias.abs().sum().item() == 0);
  // to(device) moves in place: handles taken before see the move.
  auto handle = seq.get<0>().weight;
  seq.to(tl::Device(tl::kCPU));
  CHECK(handle.impl() == seq.get<0>().weight.impl());
  CHECK(seq.size() == 3);
}

TEST_CASE("nn::Module: a model trains with an optimizer over parameters()") {
  tl::manual_seed(2);
  nn::Sequential model{nn::Linear(2, 16), nn::ReLU(), nn::Linear(16, 1)};
  tl::optim::Adam opt(model.parameters(), {.lr = 0.02});
  const auto x = tl::randn<float>({64, 2});
  const auto y = tl::Tensor<float>(x.select(1, 0) * x.select(1, 1)).unsqueeze(1);
  nn::MSELoss loss_fn;
  double first = 0, last = 0;
  for (int step = 0; step < 300; ++step) {
    opt.zero_grad();
    auto loss = loss_fn(model(x), y);
    loss.backward();
    opt.step();
    (step == 0 ? first : last) = loss.item();
  }
  CHECK(last < first / 10);
}

TEST_CASE("nn printing: Python's float and tuple spelling") {
  using nn::detail::python_float;
  CHECK(python_float(1e-5) == "1e-05");
  CHECK(python_float(0.1) == "0.1");
  CHECK(python_float(1.0) == "1.0");
  CHECK(python_float(0.0001) == "0.0001");
  CHECK(python_float(123.5) == "123.5");
  CHECK(python_float(-0.0) == "-0.0");
  CHECK(python_float(1e16) == "1e+16");
  CHECK(python_float(1.5e-300) == "1.5e-300");
  CHECK(python_float(12345678.0) == "12345678.0");
  CHECK(nn::detail::python_tuple({5}) == "(5,)");
  CHECK(nn::detail::python_int_or_tuple({2, 3}) == "(2, 3)");
}

}  // namespace
