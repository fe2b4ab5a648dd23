// Custom functions (autograd/function.hpp): PyTorch's autograd.Function
// semantics for saving, dirty inputs, non-differentiable outputs,
// needs_input_grad, and the errors.

#include <doctest/doctest.h>

#include <any>
#include <vector>

#include "tensorlib/tensorlib.hpp"

namespace {

using tl::autograd::FunctionCtx;
using Grads = std::vector<tl::Tensor<double>>;
using Inputs = std::vector<tl::Tensor<double>>;

// exp, saving its output (the common pattern that would make a cycle).
struct Exp : tl::autograd::Function<Exp> {
  static tl::Tensor<double> forward(FunctionCtx& ctx, const tl::Tensor<double>& x) {
    tl::Tensor<double> y = tl::exp(x);
    ctx.save_for_backward(y);
    return y;
  }
  static Grads backward(FunctionCtx& ctx, const Grads& g) { return {g[0] * ctx.saved_tensors()[0].as<double>()}; }
};

// a * x + y with a non-tensor argument in between.
struct ScaledAdd : tl::autograd::Function<ScaledAdd> {
  static tl::Tensor<double> forward(FunctionCtx& ctx, const tl::Tensor<double>& x, double a,
                                    const tl::Tensor<double>& y) {
    ctx.saved_data["a"] = a;
    ctx.saved_data["needs"] = std::vector<bool>{ctx.needs_input_grad(0), ctx.needs_input_grad(1)};
    return x * a + y;
  }
  static Grads backward(FunctionCtx& ctx, const Grads& g) {
    const double a = std::any_cast<double>(ctx.saved_data["a"]);
    const auto needs = std::any_cast<std::vector<bool>>(ctx.saved_data["needs"]);
    return {needs[0] ? tl::Tensor<double>(g[0] * a) : tl::Tensor<double>(), needs[1] ? g[0] : tl::Tensor<double>()};
  }
};

// Two outputs: x^2 and a (non-differentiable) sign indicator.
struct SquareAndSign : tl::autograd::Function<SquareAndSign> {
  static std::vector<tl::Tensor<double>> forward(FunctionCtx& ctx, const tl::Tensor<double>& x) {
    ctx.save_for_backward(x);
    tl::Tensor<double> sign = tl::sign(x);
    ctx.mark_non_differentiable(sign);
    return {x * x, sign};
  }
  static Grads backward(FunctionCtx& ctx, const Grads& g) {
    CHECK(tl::all(g[1] == 0.0).item());  // the non-differentiable output's gradient is zeros
    return {g[0] * 2.0 * ctx.saved_tensors()[0].as<double>()};
  }
};

// x += 1 in place, declared dirty.
struct AddOneInPlace : tl::autograd::Function<AddOneInPlace> {
  static tl::Tensor<double> forward(FunctionCtx& ctx, const tl::Tensor<double>& x) {
    tl::Tensor<double> y = x;
    y.add_(1.0);
    ctx.mark_dirty(y);
    return y;
  }
  static Grads backward(FunctionCtx&, const Grads& g) { return {g[0]}; }
};

// A float input and a double output: the gradient comes back as float.
struct Widen : tl::autograd::Function<Widen> {
  static tl::Tensor<double> forward(FunctionCtx&, const tl::Tensor<float>& x) { return x.to<double>() * 2.0; }
  static Grads backward(FunctionCtx&, const Grads& g) { return {g[0] * 2.0}; }
};

// Marks a tensor dirty that it does not return.
struct DirtyNotReturned : tl::autograd::Function<DirtyNotReturned> {
  static tl::Tensor<double> forward(FunctionCtx& ctx, const tl::Tensor<double>& x) {
    ctx.mark_dirty(x);
    return x * 2.0;
  }
  static Grads backward(FunctionCtx&, const Grads& g) { return {g[0]}; }
};

// Returns its input unchanged (not dirty) and gives back the wrong number of gradients.
struct Identity : tl::autograd::Function<Identity> {
  static tl::Tensor<double> forward(FunctionCtx&, const tl::Tensor<double>& x) { return x; }
  static Grads backward(FunctionCtx&, const Grads& g) { return {g[0]}; }
};
struct TooMany : tl::autograd::Function<TooMany> {
  static tl::Tensor<double> forward(FunctionCtx&, const tl::Tensor<double>& x) { return x * 2.0; }
  static Grads backward(FunctionCtx&, const Grads& g) { return {g[0], g[0]}; }
};
struct WrongShape : tl::autograd::Function<WrongShape> {
  static tl::Tensor<double> forward(FunctionCtx&, const tl::Tensor<double>& x) { return x.sum(); }
  static Grads backward(FunctionCtx&, const Grads& g) { return {g[0]}; }
};

}  // namespace

TEST_CASE("a custom function's gradient passes gradcheck, with a non-tensor argument") {
  tl::Generator gen(5);
  auto x = tl::Tensor<double>(tl::rand<double>({3}, gen)).requires_grad_();
  auto y = tl::Tensor<double>(tl::rand<double>({3}, gen)).requires_grad_();
  CHECK(tl::autograd::gradcheck([](const Inputs& in) { return Exp::apply(in[0]); }, {x}));
  CHECK(tl::autograd::gradcheck([](const Inputs& in) { return Exp::apply(tl::Tensor<double>(in[0] * in[0])).sum(); },
                                {x}));
  CHECK(tl::autograd::gradcheck([](const Inputs& in) { return ScaledAdd::apply(in[0], 2.5, in[1]); }, {x, y}));
  auto out = Exp::apply(x);
  CHECK(out.grad_fn()->name() == "CustomFunctionBackward");
  CHECK_FALSE(out.is_leaf());
}

TEST_CASE("needs_input_grad follows requires_grad of the tensor arguments; without any, forward just runs") {
  auto x = tl::ones<double>({2}).requires_grad_();
  auto c = tl::ones<double>({2});
  auto out = ScaledAdd::apply(x, 3.0, c);
  out.sum().backward();
  CHECK(x.grad().to_vector() == std::vector<double>{3.0, 3.0});
  auto plain = ScaledAdd::apply(c, 3.0, c);
  CHECK_FALSE(plain.requires_grad());
  CHECK(plain.to_vector() == std::vector<double>{4.0, 4.0});
  tl::NoGradGuard no_grad;
  CHECK_FALSE(ScaledAdd::apply(x, 1.0, c).requires_grad());
}

TEST_CASE("mark_non_differentiable: that output has no grad_fn and gets zeros in backward") {
  auto x = tl::tensor<double>({-1.5, 2.0}, {.requires_grad = true});
  auto outs = SquareAndSign::apply(x);
  CHECK(outs[0].requires_grad());
  CHECK_FALSE(outs[1].requires_grad());
  CHECK(outs[1].to_vector() == std::vector<double>{-1.0, 1.0});
  outs[0].sum().backward();
  CHECK(x.grad().to_vector() == std::vector<double>{-3.0, 4.0});
}

TEST_CASE("mark_dirty moves the input's history onto the function; a leaf that requires grad is refused") {
  auto x = tl::tensor<double>({1.0, 2.0}, {.requires_grad = true});
  tl::Tensor<double> h = x * 3.0;  // a non-leaf
  auto out = AddOneInPlace::apply(h);
  CHECK(out.impl() == h.impl());
  CHECK(h.grad_fn()->name() == "CustomFunctionBackward");
  CHECK(h.to_vector() == std::vector<double>{4.0, 7.0});
  h.sum().backward();
  CHECK(x.grad().to_vector() == std::vector<double>{3.0, 3.0});
  CHECK_THROWS_WITH_AS(AddOneInPlace::apply(x), doctest::Contains("leaf Variable that requires grad"),
                       tl::AutogradError);
}

TEST_CASE("a gradient comes back in its input's floating type; dirty tensors must be returned") {
  auto x = tl::tensor<float>({1.0f, -2.0f}, {.requires_grad = true});
  auto y = Widen::apply(x);
  y.sum().backward();
  CHECK(x.grad().to_vector() == std::vector<float>{2.0f, 2.0f});
  tl::Tensor<double> h = tl::tensor<double>({1.0}, {.requires_grad = true}) * 1.0;
  CHECK_THROWS_WITH_AS(DirtyNotReturned::apply(h), doctest::Contains("not returned as outputs"), tl::AutogradError);
}

TEST_CASE("an input returned unchanged comes back as a new tensor, leaving the input's history alone") {
  auto x = tl::tensor<double>({1.0, 2.0}, {.requires_grad = true});
  auto out = Identity::apply(x);
  CHECK(out.impl() != x.impl());
  CHECK(x.is_leaf());
  CHECK(out.data_ptr() == x.data_ptr());
  out.sum().backward();
  CHECK(x.grad().to_vector() == std::vector<double>{1.0, 1.0});
}

TEST_CASE("custom function errors: gradient count and shape, a saved tensor modified, a second backward") {
  auto x = tl::tensor<double>({1.0, 2.0}, {.requires_grad = true});
  CHECK_THROWS_WITH_AS(TooMany::apply(x).sum().backward(),
                       doctest::Contains("returned an incorrect number of gradients (expected 1, got 2)"),
                       tl::AutogradError);
  CHECK_THROWS_WITH_AS(WrongShape::apply(x).backward(), doctest::Contains("invalid gradient at index 0"),
                       tl::AutogradError);
  auto y = Exp::apply(x);
  {
    tl::NoGradGuard no_grad;
    y.mul_(2.0);  // the saved output changes
  }
  CHECK_THROWS_WITH_AS(y.sum().backward(), doctest::Contains("modified by an inplace operation"), tl::AutogradError);
  auto z = Exp::apply(x);
  tl::Tensor<double> s = z.sum();
  s.backward();
  CHECK_THROWS_WITH_AS(s.backward(), doctest::Contains("second time"), tl::AutogradError);
}

TEST_CASE("a function that saves its own output does not keep itself alive") {
  std::weak_ptr<tl::autograd::Node> node;
  {
    auto x = tl::tensor<double>({1.0}, {.requires_grad = true});
    auto y = Exp::apply(x);
    node = y.grad_fn();
    REQUIRE_FALSE(node.expired());
  }
  CHECK(node.expired());
}
