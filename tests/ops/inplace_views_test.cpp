// In-place views (ops/inplace_views.hpp, Note [in-place views]): the tensor
// and every handle of it take the out-of-place view's geometry; with autograd
// the view's node becomes its history. Expected gradients and errors are
// PyTorch 1.13's (printed by the snippets quoted in each case).
#include <doctest/doctest.h>

#include <functional>
#include <string>
#include <vector>

#include "tensorlib/tensorlib.hpp"

namespace {

using InplaceView = std::function<void(tl::Tensor<float>&)>;
using OutOfPlace = std::function<tl::Tensor<float>(const tl::Tensor<float>&)>;

/// The in-place form leaves the tensor (and an alias of it) as the
/// out-of-place form's result: sizes, strides, offset, values, same storage.
void check_like_view(const tl::Tensor<float>& x, const InplaceView& in_place, const OutOfPlace& view) {
  tl::Tensor<float> y = x.clone();
  const tl::Tensor<float> want = view(y);
  const tl::Tensor<float> alias = y;  // another handle of the same tensor
  const auto version = y._version();
  in_place(y);
  CHECK(alias.sizes() == want.sizes());
  CHECK(alias.strides() == want.strides());
  CHECK(alias.storage_offset() == want.storage_offset());
  CHECK(alias.storage().data() == want.storage().data());
  CHECK(alias.to_vector() == want.to_vector());
  CHECK(y._version() == version + 1);
}

}  // namespace

TEST_CASE("in-place views take the out-of-place view's geometry, seen through every handle") {
  const auto x = tl::arange(24).to<float>().view({2, 1, 3, 4});
  check_like_view(
      x, [](auto& t) { t.transpose_(0, 2); }, [](const auto& t) { return t.transpose(0, 2); });
  check_like_view(
      x, [](auto& t) { t.swapaxes_(-1, 1); }, [](const auto& t) { return t.transpose(-1, 1); });
  check_like_view(
      x, [](auto& t) { t.swapdims_(3, 0); }, [](const auto& t) { return t.transpose(3, 0); });
  check_like_view(
      x, [](auto& t) { t.squeeze_(); }, [](const auto& t) { return t.squeeze(); });
  check_like_view(
      x, [](auto& t) { t.squeeze_(1); }, [](const auto& t) { return t.squeeze(1); });
  check_like_view(
      x, [](auto& t) { t.squeeze_(0); }, [](const auto& t) { return t.squeeze(0); });  // size 2: kept
  check_like_view(
      x, [](auto& t) { t.unsqueeze_(-1); }, [](const auto& t) { return t.unsqueeze(-1); });
  check_like_view(
      x, [](auto& t) { t.unsqueeze_(2); }, [](const auto& t) { return t.unsqueeze(2); });
  check_like_view(
      x,
      [](auto& t) {
        t.as_strided_({3, 2}, {2, 5}, 1);
      },
      [](const auto& t) {
        return t.as_strided({3, 2}, {2, 5}, 1);
      });
  const auto m = tl::arange(6).to<float>().view({2, 3});
  check_like_view(
      m, [](auto& t) { t.t_(); }, [](const auto& t) { return t.t(); });
  check_like_view(
      m.select(0, 1), [](auto& t) { t.t_(); }, [](const auto& t) { return t.t(); });  // 1-D: itself
  check_like_view(
      tl::scalar_tensor(2.f), [](auto& t) { t.t_(); }, [](const auto& t) { return t.t(); });

  // PyTorch: torch.zeros(1, 3, 1).unsqueeze_(-1) has shape (1, 3, 1, 1), strides (3, 1, 1, 1).
  auto z = tl::zeros<float>({1, 3, 1});
  CHECK(&z.unsqueeze_(-1) == &z);
  CHECK(z.sizes() == tl::Shape{1, 3, 1, 1});
  CHECK(z.strides() == tl::Shape{3, 1, 1, 1});
  // Chained, and a view of a view keeps its base's memory: writes go through.
  auto base = tl::zeros<float>({2, 3});
  auto v = base.narrow(1, 1, 2);
  v.t_().unsqueeze_(0).select(0, 0).select(0, 1).fill_(5.f);
  CHECK(v.sizes() == tl::Shape{1, 2, 2});
  CHECK(base.to_vector() == std::vector<float>{0, 0, 5, 0, 0, 5});
}

TEST_CASE("in-place views give the out-of-place views' errors and leave the tensor as it was") {
  auto x = tl::zeros<float>({2, 3, 4});
  CHECK_THROWS_WITH_AS(x.t_(), "t_: expects a tensor with <= 2 dimensions, but self is 3D", tl::ShapeError);
  CHECK_THROWS_WITH_AS(x.transpose_(0, 3), doctest::Contains("dimension out of range"), tl::IndexError);
  CHECK_THROWS_WITH_AS(x.unsqueeze_(4), doctest::Contains("dimension out of range"), tl::IndexError);
  CHECK_THROWS_WITH_AS(x.squeeze_(-4), doctest::Contains("dimension out of range"), tl::IndexError);
  CHECK_THROWS_WITH_AS(x.as_strided_({25}, {1}), doctest::Contains("out of bounds for storage of size 96"),
                       tl::ShapeError);
  CHECK(x.sizes() == tl::Shape{2, 3, 4});
  CHECK(x._version() == 0);
}

TEST_CASE("an in-place view on a non-leaf records the view's node over the old history") {
  // x = torch.randn(2, 3, requires_grad=True); y = x * 2; y.t_()
  // y.grad_fn is TBackward1 over MulBackward0, y._version 1, and
  // (y * w).sum().backward() gives x.grad = 2 w.t().
  auto x = tl::randn<double>({2, 3}).requires_grad_();
  tl::Tensor<double> y = x * 2.0;
  const auto mul = y.grad_fn();
  y.t_();
  REQUIRE(y.grad_fn() != nullptr);
  CHECK(y.grad_fn()->name() == "TransposeBackward");
  CHECK(y.grad_fn()->next_edges().at(0).function == mul);
  CHECK(y._version() == 1);
  const auto w = tl::arange(6).to<double>().view({3, 2});
  tl::Tensor<double>((y * w).sum()).backward();
  CHECK(x.grad().to_vector() == std::vector<double>{0, 4, 8, 2, 6, 10});

  // u = x * 1; u.unsqueeze_(0); (u * [[1, 2, 3]]).sum().backward(): x.grad = [1, 2, 3].
  auto a = tl::randn<double>({3}).requires_grad_();
  tl::Tensor<double> u = a * 1.0;
  u.unsqueeze_(0);
  CHECK(u.sizes() == tl::Shape{1, 3});
  CHECK(u.grad_fn()->name() == "UnsqueezeBackward");
  tl::Tensor<double>((u * tl::tensor<double>({{1, 2, 3}})).sum()).backward();
  CHECK(a.grad().to_vector() == std::vector<double>{1, 2, 3});

  // y = x * 1; y.as_strided_((3,), (2,), 1); y.sum().backward():
  // x.grad = [[0, 1, 0], [1, 0, 1]].
  auto b = tl::randn<double>({2, 3}).requires_grad_();
  tl::Tensor<double> s = b * 1.0;
  s.as_strided_({3}, {2}, 1);
  CHECK(s.grad_fn()->name() == "AsStridedBackward");
  s.sum().backward();
  CHECK(b.grad().to_vector() == std::vector<double>{0, 1, 0, 1, 0, 1});

  // Gradcheck through a chain of them.
  auto chain = [](const std::vector<tl::Tensor<double>>& in) {
    tl::Tensor<double> t = in[0] * in[0];
    t.unsqueeze_(1).transpose_(0, 2).squeeze_();
    tl::Tensor<double> out = t * in[1];
    out.t_();
    return out;
  };
  tl::Generator gen(5);
  const std::vector<tl::Tensor<double>> in = {tl::randn<double>({4, 3}, gen).requires_grad_(),
                                              tl::randn<double>({3, 4}, gen).requires_grad_()};
  CHECK(tl::autograd::gradcheck(chain, in));
}

TEST_CASE("an in-place view of a view of a non-leaf differentiates through the base") {
  // w = torch.randn(4, 3, requires_grad=True); u = w * 1; v = u[0:2]; v.t_()
  // v.shape (3, 2), v._base is u; (v * arange(6).view(3, 2)).sum().backward():
  // w.grad = [[0, 2, 4], [1, 3, 5], [0, 0, 0], [0, 0, 0]].
  auto w = tl::randn<double>({4, 3}).requires_grad_();
  tl::Tensor<double> u = w * 1.0;
  auto v = u.narrow(0, 0, 2);
  v.t_();
  CHECK(v.sizes() == tl::Shape{3, 2});
  CHECK(v.impl()->view_base == u.impl());
  tl::Tensor<double>((v * tl::arange(6).to<double>().view({3, 2})).sum()).backward();
  CHECK(w.grad().to_vector() == std::vector<double>{0, 2, 4, 1, 3, 5, 0, 0, 0, 0, 0, 0});
}

TEST_CASE("in-place views refuse leaves that require grad, and saved tensors see the version bump") {
  auto leaf = tl::randn<double>({2, 3}).requires_grad_();
  CHECK_THROWS_WITH_AS(leaf.t_(), "t_: a leaf Variable that requires grad is being used in an in-place operation.",
                       tl::AutogradError);
  CHECK_THROWS_WITH_AS(leaf.as_strided_({3}, {1}),
                       "as_strided_: a leaf Variable that requires grad is being used in an in-place operation.",
                       tl::AutogradError);
  auto view = leaf.narrow(0, 0, 1);
  CHECK_THROWS_WITH_AS(view.squeeze_(),
                       "squeeze_: a view of a leaf Variable that requires grad is being used in an in-place operation.",
                       tl::AutogradError);
  CHECK(leaf.sizes() == tl::Shape{2, 3});
  CHECK(view.sizes() == tl::Shape{1, 3});
  // with torch.no_grad(): v = y[0:1]; then v.t_(): PyTorch's "A view was
  // created in no_grad mode and is being modified inplace with grad mode enabled".
  const tl::Tensor<double> nonleaf = leaf * 2.0;
  tl::Tensor<double> untracked;
  {
    tl::NoGradGuard no_grad;
    untracked = nonleaf.narrow(0, 0, 1);
  }
  CHECK_THROWS_WITH_AS(untracked.t_(), doctest::Contains("t_: A view was created in no_grad mode"), tl::AutogradError);
  CHECK(untracked.sizes() == tl::Shape{1, 3});
  {
    // PyTorch: with torch.no_grad(): k.t_() on a leaf only changes its shape.
    tl::NoGradGuard no_grad;
    leaf.t_();
  }
  CHECK(leaf.sizes() == tl::Shape{3, 2});
  CHECK(leaf.requires_grad());
  CHECK(leaf.is_leaf());

  // x = torch.randn(2, 3, requires_grad=True); y = x.exp(); z = y * y; y.t_();
  // z.sum().backward(): "one of the variables needed for gradient computation
  // has been modified by an inplace operation: ... is at version 1; expected
  // version 0 instead."
  auto x = tl::randn<double>({2, 3}).requires_grad_();
  tl::Tensor<double> y = x.exp();
  const tl::Tensor<double> z = y * y;
  y.t_();
  CHECK_THROWS_WITH_AS(z.sum().backward(), doctest::Contains("is at version 1; expected version 0"), tl::AutogradError);
}
