// Padding, convolutions, their transposes and unfold/fold (ops/pad.hpp,
// ops/convolution.hpp) against PyTorch 1.13
// (tests/fixtures/generate_convolution.py): values, and the gradients of
// every input under a fixed upstream gradient. Then gradchecks and
// gradgradchecks (double, central differences), the adjoint law that ties a
// convolution to its transpose, and PyTorch's errors.

#include <doctest/doctest.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "fixtures.hpp"
#include "tensorlib/tensorlib.hpp"

namespace {

tl::Shape shape_of(const fixtures::Case& c, const std::string& key) {
  tl::Shape s;
  for (int64_t v : c.get<int64_t>(key).to_vector()) s.push_back(v);
  return s;
}

// The gradients of `leaves` under r's upstream gradient g, against the fixture's.
void check_grads(const tl::Tensor<double>& r, const fixtures::Case& c, const std::vector<tl::Tensor<double>>& leaves,
                 const std::vector<std::string>& keys, const std::string& what) {
  const auto grads = tl::autograd::grad({r}, leaves, {c.get<double>("g")});
  for (std::size_t i = 0; i < leaves.size(); ++i)
    fixtures::check_close(grads[i], c.get<double>(keys[i]), 1e-12, 1e-12, what + " " + keys[i]);
}

using Inputs = std::vector<tl::Tensor<double>>;

tl::Tensor<double> leaf(const tl::Shape& shape, tl::Generator& gen) {
  tl::Tensor<double> t = tl::rand<double>(shape, gen) * 2.0 - 1.0;
  return t.requires_grad_();
}

}  // namespace

TEST_CASE("pad and constant_pad_nd against PyTorch: four modes, crops, gradients") {
  const auto& f = fixtures::load("convolution.txt");
  int count = 0;
  for (const auto& [name, c] : f.cases()) {
    if (name.rfind("pad/", 0) != 0) continue;
    ++count;
    auto x = c.get<double>("x").requires_grad_();
    const std::string mode = c.text("mode");
    const double value = c.get<double>("value").to_vector()[0];
    const auto r =
        mode == "constant" ? tl::pad(x, shape_of(c, "pad"), mode, value) : tl::pad(x, shape_of(c, "pad"), mode);
    fixtures::check_close(r, c.get<double>("r"), 0, 0, name);
    check_grads(r, c, {x}, {"gx"}, name);
  }
  CHECK(count == 13);
  // constant_pad_nd is pad's constant mode; a pad of zeros is still a copy.
  const auto x = tl::arange<double>(0, 6).reshape({2, 3});
  const auto same = tl::constant_pad_nd(x, {0, 0});
  CHECK(tl::equal(same, x));
  CHECK(!same.is_alias_of(x));
  CHECK(tl::equal(tl::constant_pad_nd(x, {-1, -1, 1, 0}, 9.0), tl::tensor<double>({{9.0}, {1.0}, {4.0}})));
  CHECK(tl::constant_pad_nd(x, {-2, -1}).sizes() == tl::Shape{2, 0});
}

TEST_CASE("conv1d, conv2d, conv3d against PyTorch: stride, padding, same/valid, dilation, groups, bias, unbatched") {
  const auto& f = fixtures::load("convolution.txt");
  int count = 0;
  for (const auto& [name, c] : f.cases()) {
    if (name.rfind("conv", 0) != 0 || name.rfind("conv_transpose", 0) == 0 || name == "conv2d_float") continue;
    ++count;
    auto x = c.get<double>("x").requires_grad_(), w = c.get<double>("w").requires_grad_();
    const bool has_bias = c.tensors.count("b") != 0;
    std::optional<tl::Tensor<double>> b;
    if (has_bias) b = c.get<double>("b").requires_grad_();
    const tl::Shape st = shape_of(c, "stride"), dl = shape_of(c, "dilation");
    const int64_t groups = c.get<int64_t>("groups").to_vector()[0];
    const int64_t dims = w.dim() - 2;
    tl::Tensor<double> r;
    if (c.texts.count("padding")) {
      const std::string p = c.text("padding");
      r = dims == 1   ? tl::conv1d(x, w, b, st, p, dl, groups)
          : dims == 2 ? tl::conv2d(x, w, b, st, p, dl, groups)
                      : tl::conv3d(x, w, b, st, p, dl, groups);
    } else {
      const tl::Shape p = shape_of(c, "padding");
      r = dims == 1   ? tl::conv1d(x, w, b, st, p, dl, groups)
          : dims == 2 ? tl::conv2d(x, w, b, st, p, dl, groups)
                      : tl::conv3d(x, w, b, st, p, dl, groups);
    }
    fixtures::check_close(r, c.get<double>("r"), 1e-12, 1e-12, name);
    if (has_bias)
      check_grads(r, c, {x, w, *b}, {"gx", "gw", "gb"}, name);
    else
      check_grads(r, c, {x, w}, {"gx", "gw"}, name);
  }
  CHECK(count == 13);
}

TEST_CASE("conv_transpose1d, 2d, 3d against PyTorch: stride, padding, output_padding, groups, dilation") {
  const auto& f = fixtures::load("convolution.txt");
  int count = 0;
  for (const auto& [name, c] : f.cases()) {
    if (name.rfind("conv_transpose", 0) != 0) continue;
    ++count;
    auto x = c.get<double>("x").requires_grad_(), w = c.get<double>("w").requires_grad_();
    const bool has_bias = c.tensors.count("b") != 0;
    std::optional<tl::Tensor<double>> b;
    if (has_bias) b = c.get<double>("b").requires_grad_();
    const tl::Shape st = shape_of(c, "stride"), p = shape_of(c, "padding"), op = shape_of(c, "output_padding"),
                    dl = shape_of(c, "dilation");
    const int64_t groups = c.get<int64_t>("groups").to_vector()[0];
    const int64_t dims = w.dim() - 2;
    const auto r = dims == 1   ? tl::conv_transpose1d(x, w, b, st, p, op, groups, dl)
                   : dims == 2 ? tl::conv_transpose2d(x, w, b, st, p, op, groups, dl)
                               : tl::conv_transpose3d(x, w, b, st, p, op, groups, dl);
    fixtures::check_close(r, c.get<double>("r"), 1e-12, 1e-12, name);
    if (has_bias)
      check_grads(r, c, {x, w, *b}, {"gx", "gw", "gb"}, name);
    else
      check_grads(r, c, {x, w}, {"gx", "gw"}, name);
  }
  CHECK(count == 7);
  // float32 against PyTorch's float32.
  const auto& c = f["conv2d_float"];
  const auto w = c.get<float>("w");
  const auto r = tl::conv2d(c.get<float>("x"), w, c.get<float>("b"), {2}, {1});
  fixtures::check_close(r, c.get<float>("r"), 1e-5, 1e-5, "conv2d float");
  fixtures::check_close(tl::conv_transpose2d(r, w, std::nullopt, {2}, {1}, {1}), c.get<float>("rt"), 1e-5, 1e-4,
                        "conv_transpose2d float");
}

TEST_CASE("im2col and col2im (unfold/fold) against PyTorch, with gradients") {
  const auto& f = fixtures::load("convolution.txt");
  int count = 0;
  for (const auto& [name, c] : f.cases()) {
    if (name.rfind("unfold/", 0) != 0) continue;
    ++count;
    auto x = c.get<double>("x").requires_grad_();
    const tl::Shape k = shape_of(c, "kernel"), dl = shape_of(c, "dilation"), p = shape_of(c, "padding"),
                    st = shape_of(c, "stride");
    const auto r = tl::im2col(x, k, dl, p, st);
    fixtures::check_close(r, c.get<double>("r"), 0, 0, name);
    check_grads(r, c, {x}, {"gx"}, name);
    auto cols = c.get<double>("r").requires_grad_();
    const tl::Shape out = {x.size(-2), x.size(-1)};
    const auto folded = tl::col2im(cols, out, k, dl, p, st);
    fixtures::check_close(folded, c.get<double>("fold"), 1e-14, 1e-14, name + " fold");
    const auto g = tl::autograd::grad({folded}, std::vector<tl::Tensor<double>>{cols}, {c.get<double>("fold_g")});
    fixtures::check_close(g[0], c.get<double>("fold_gx"), 0, 0, name + " fold gradient");
  }
  CHECK(count == 3);
}

TEST_CASE("convolutions: gradcheck, gradgradcheck, and the adjoint law") {
  tl::Generator gen(5);
  const auto x = leaf({2, 4, 5, 4}, gen), w = leaf({2, 2, 3, 2}, gen), b = leaf({2}, gen);
  const auto conv = [](const Inputs& in) { return tl::conv2d(in[0], in[1], in[2], {2, 1}, {1, 0}, {1, 2}, 2); };
  CHECK(tl::autograd::gradcheck(conv, {x, w, b}));
  CHECK(tl::autograd::gradgradcheck(conv, {x, w, b}));
  const auto xt = leaf({1, 2, 3, 3}, gen), wt = leaf({2, 3, 2, 2}, gen);
  const auto convt = [](const Inputs& in) {
    return tl::conv_transpose2d(in[0], in[1], std::nullopt, {2}, {1}, {1}, 1, {2});
  };
  CHECK(tl::autograd::gradcheck(convt, {xt, wt}));
  CHECK(tl::autograd::gradgradcheck(convt, {xt, wt}));
  const auto x1 = leaf({2, 3, 6}, gen);
  CHECK(tl::autograd::gradgradcheck([](const Inputs& in) { return tl::pad(in[0], {2, 3}, "reflect"); }, {x1}));
  CHECK(tl::autograd::gradgradcheck([](const Inputs& in) { return tl::pad(in[0], {-1, 4}, "circular"); }, {x1}));
  CHECK(tl::autograd::gradcheck(
      [](const Inputs& in) {
        return tl::col2im(tl::im2col(in[0], {2, 3}, {1}, {1}, {2}), {5, 4}, {2, 3}, {1}, {1}, {2});
      },
      {x}));

  // <conv(x, w), y> = <x, conv_transpose(y, w)>, for every stride, padding,
  // dilation and group count: the transpose is the convolution's adjoint
  // (output_padding makes up the input length that strides leave over).
  tl::NoGradGuard no_grad;
  for (int64_t stride : {1, 2, 3})
    for (int64_t padding : {0, 1})
      for (int64_t dilation : {1, 2})
        for (int64_t groups : {1, 2}) {
          const auto xi = tl::rand<double>({2, 4, 11}, gen), wi = tl::rand<double>({6, 4 / groups, 3}, gen);
          const auto y = tl::conv1d(xi, wi, std::nullopt, {stride}, {padding}, {dilation}, groups);
          const auto yo = tl::rand<double>(y.sizes(), gen);
          const int64_t covered = (y.size(2) - 1) * stride - 2 * padding + dilation * 2 + 1;
          const auto back =
              tl::conv_transpose1d(yo, wi, std::nullopt, {stride}, {padding}, {11 - covered}, groups, {dilation});
          REQUIRE(back.sizes() == xi.sizes());
          CHECK((y * yo).sum().item() == doctest::Approx((xi * back).sum().item()).epsilon(1e-12));
        }
}

TEST_CASE("convolutions and pad: PyTorch's errors") {
  const auto x = tl::ones<float>({1, 2, 5, 5}), w = tl::ones<float>({4, 3, 3, 3});
  CHECK(fixtures::error_message([&] { (void)tl::conv2d(x, w); }) ==
        "Given groups=1, weight of size [4, 3, 3, 3], expected input[1, 2, 5, 5] to have 3 channels, but got 2 "
        "channels instead");
  CHECK(fixtures::error_message([&] {
          (void)tl::conv2d(tl::ones<float>({2, 3}), w);
        }) == "Expected 3D (unbatched) or 4D (batched) input to conv2d, but got input of size: [2, 3]");
  CHECK(fixtures::error_message([&] {
          (void)tl::conv2d(tl::ones<float>({1, 3, 2, 2}), w);
        }) ==
        "Calculated padded input size per channel: (2 x 2). Kernel size: (3 x 3). Kernel size can't be greater than "
        "actual input size");
  CHECK(fixtures::error_message([&] {
          (void)tl::conv2d(tl::ones<float>({1, 6, 5, 5}), w, std::nullopt, {1}, {0}, {1}, 4);
        }) ==
        "Given groups=4, weight of size [4, 3, 3, 3], expected input[1, 6, 5, 5] to have 12 channels, but got 6 "
        "channels instead");
  CHECK(fixtures::error_message([&] {
          (void)tl::conv2d(tl::ones<float>({1, 9, 5, 5}), w, std::nullopt, {1}, {0}, {1}, 3);
        }) ==
        "Given groups=3, expected weight to be divisible by 3 at dimension 0, but got weight of size [4, 3, 3, 3] "
        "instead");
  CHECK(fixtures::error_message([&] {
          (void)tl::conv2d(tl::ones<float>({1, 3, 5, 5}), w, tl::ones<float>({3}));
        }) ==
        "Given weight of size [4, 3, 3, 3], expected bias to be 1-dimensional with 4 elements, but got bias of size "
        "[3] instead");
  CHECK(fixtures::error_message([&] {
          (void)tl::conv2d(tl::ones<float>({1, 3, 5, 5}), w, std::nullopt, {0});
        }) == "conv2d: non-positive stride is not supported");
  CHECK(fixtures::error_message([&] {
          (void)tl::conv2d(tl::ones<float>({1, 3, 5, 5}), w, std::nullopt, {1, 1, 1});
        }) ==
        "conv2d: expected stride to be a single integer value or a list of 2 values to match the convolution "
        "dimensions, but got stride=[1, 1, 1]");
  CHECK(fixtures::error_message([&] {
          (void)tl::conv2d(tl::ones<float>({1, 3, 5, 5}), w, std::nullopt, {2}, "same");
        }) == "conv2d: padding='same' is not supported for strided convolutions");
  CHECK(fixtures::error_message([&] {
          (void)tl::conv2d(tl::ones<float>({1, 3, 5, 5}), w, std::nullopt, {1}, "full");
        }) == "conv2d: Invalid padding string: 'full'");
  CHECK(fixtures::error_message([&] {
          (void)tl::conv1d(tl::ones<float>({1, 1, 5}), tl::ones<float>({1, 1, 0}));
        }) == "conv1d: kernel size should be greater than zero, but got weight of size [1, 1, 0]");
  CHECK(fixtures::error_message([&] {
          (void)tl::im2col(tl::ones<float>({1, 0, 4, 4}), {2});
        }) == "unfold: Expected non-empty 3D or 4D input tensor, but got input of size [1, 0, 4, 4]");
  CHECK(tl::pad(tl::ones<float>({1, 1, 3}), {-1, -2}, "circular").sizes() == tl::Shape{1, 1, 0});
  CHECK(fixtures::error_message([&] {
          (void)tl::conv1d(tl::ones<float>({1, 3, 5}), w);
        }) == "conv1d: expected weight to be 3-dimensional, but got weight of size [4, 3, 3, 3]");
  CHECK(fixtures::error_message([&] {
          (void)tl::conv_transpose2d(x, tl::ones<float>({3, 2, 3, 3}));
        }) ==
        "Given transposed=1, weight of size [3, 2, 3, 3], expected input[1, 2, 5, 5] to have 3 channels, but "
        "got 2 channels instead");
  CHECK(fixtures::error_message([&] {
          (void)tl::conv_transpose2d(x, tl::ones<float>({2, 2, 3, 3}), std::nullopt, {2}, {0}, {2});
        }) ==
        "conv_transpose2d: output padding must be smaller than either stride or dilation, but got "
        "output_padding=[2, 2], stride=[2, 2], dilation=[1, 1]");
  CHECK(fixtures::error_message([&] {
          (void)tl::conv_transpose1d(tl::ones<float>({1, 2, 1}), tl::ones<float>({2, 2, 1}), std::nullopt, {1}, {1});
        }) == "Given input size per channel: (1). Calculated output size per channel: (-1). Output size is too small");
  CHECK(fixtures::error_message([&] {
          (void)tl::col2im(tl::ones<float>({1, 5, 4}), {3, 3}, {2, 2});
        }) ==
        "fold: Expected size of input's dimension 1 to be divisible by the product of kernel_size, but got "
        "input.size(1)=5 and kernel_size=[2, 2]");
  CHECK(fixtures::error_message([&] {
          (void)tl::col2im(tl::ones<float>({1, 4, 5}), {3, 3}, {2, 2});
        }) ==
        "fold: Given output_size=[3, 3], kernel_size=[2, 2], dilation=[1, 1], padding=[0, 0], stride=[1, 1], "
        "expected size of input's dimension 2 to match the calculated number of sliding blocks 2 * 2 = 4, but got "
        "input.size(2)=5.");
  CHECK(fixtures::error_message([&] {
          (void)tl::im2col(tl::ones<float>({5, 5}), {2});
        }) == "unfold: Input Error: Only 3D or 4D input Tensors are supported (got 2D)");

  const auto y = tl::ones<float>({1, 2, 3});
  CHECK(fixtures::error_message([&] { (void)tl::pad(y, {1, 2, 3}); }) == "pad: Padding length must be divisible by 2");
  CHECK(fixtures::error_message([&] {
          (void)tl::pad(y, {1, 1, 1, 1, 1, 1, 1, 1});
        }) ==
        "pad: Padding length should be less than or equal to two times the input dimension but got padding length 8 "
        "and input of dimension 3");
  CHECK(fixtures::error_message([&] {
          (void)tl::pad(y, {-2, -2});
        }) ==
        "constant_pad_nd: The input size 3, plus negative padding -2 and -2 resulted in a negative output size, which "
        "is invalid. Check dimension 2 of your input.");
  CHECK(fixtures::error_message([&] {
          (void)tl::pad(y, {3, 0}, "reflect");
        }) ==
        "pad: Argument #4: Padding size should be less than the corresponding input dimension, but got: padding (3, "
        "0) at dimension 2 of input [1, 2, 3]");
  CHECK(fixtures::error_message([&] {
          (void)tl::pad(y, {4, 0}, "circular");
        }) == "pad: Padding value causes wrapping around more than once.");
  CHECK(fixtures::error_message([&] {
          (void)tl::pad(y, {1, 1}, "reflect", 2.0);
        }) == "pad: Padding mode \"reflect\" doesn't take in value argument");
  CHECK(fixtures::error_message([&] { (void)tl::pad(y, {1, 1}, "wrap"); }) == "pad: Unrecognised padding mode wrap");
  CHECK(fixtures::error_message([&] {
          (void)tl::pad(tl::ones<float>({3}), {1, 1}, "replicate");
        }) ==
        "pad: Only 2D, 3D, 4D, 5D padding with non-constant padding are supported for now (got padding of length 2 "
        "for an input of size [3])");
}
