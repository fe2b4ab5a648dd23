// In-place pointwise ops on tensors that take part in autograd (Note
// [in-place on graph tensors]): the write rebases the tensor's history, the
// gradients are those of the out-of-place chain, saved tensors written in
// place are caught, and what is not built is refused.
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "tensorlib/tensorlib.hpp"

namespace {

using Inputs = std::vector<tl::Tensor<double>>;

void check_values(const tl::Tensor<double>& t, const std::vector<double>& want) {
  const std::vector<double> got = t.to_vector();
  REQUIRE(got.size() == want.size());
  for (std::size_t i = 0; i < got.size(); ++i) CHECK(got[i] == doctest::Approx(want[i]).epsilon(1e-12));
}

}  // namespace

TEST_CASE("in-place ops on a non-leaf: gradients of the out-of-place chain (gradcheck)") {
  tl::Generator gen(31);
  const Inputs in = {tl::Tensor<double>(tl::rand({3, 4}, gen).to<double>() + 0.5).requires_grad_(),
                     tl::Tensor<double>(tl::rand({4}, gen).to<double>() + 0.5).requires_grad_()};
  auto chain = [](const Inputs& x) {
    tl::Tensor<double> y = x[0] * x[1];
    y.add_(x[0], 2.0);  // y + 2 x0: reads y and another input
    y.sin_();
    y.mul_(y);  // both operands are y
    y.div_(x[1] + 1.0);
    y.sub_(0.5).sqrt_().pow_(3.0);
    return y;
  };
  CHECK(tl::autograd::gradcheck(chain, in));
  CHECK(tl::autograd::gradcheck(
      [](const Inputs& x) {
        tl::Tensor<double> y = x[0].exp();
        y += x[1];  // the operators too
        y *= x[0];
        y.clamp_(0.0, 3.0).tanh_();
        return y;
      },
      in));
  // The same values as the out-of-place chain, and y's history is rebased.
  tl::Tensor<double> y = in[0] * in[1];
  const auto first = y.grad_fn();
  y.exp_();
  CHECK_FALSE(y.is_leaf());
  CHECK(y.grad_fn() != first);
  CHECK(tl::allclose(y, tl::Tensor<double>(tl::exp(in[0] * in[1]))));
  CHECK(y._version() == 1);
}

TEST_CASE("a tensor that needs no gradient becomes part of the graph when a gradient is written into it") {
  auto w = tl::tensor<double>({1.0, -2.0, 3.0}, {.requires_grad = true});
  auto buffer = tl::zeros<double>({3});
  CHECK(buffer.is_leaf());
  buffer.add_(w * w);
  CHECK(buffer.requires_grad());
  CHECK_FALSE(buffer.is_leaf());
  buffer.copy_(buffer * 3.0);
  buffer.sum().backward();
  check_values(w.grad(), {6.0, -12.0, 18.0});
  // copy_ of a tensor that requires grad: the gradient passes through.
  auto v = tl::tensor<double>({0.5, 0.5, 0.5}, {.requires_grad = true});
  auto target = tl::ones<double>({3});
  target.copy_(v);
  (target * target).sum().backward();
  check_values(v.grad(), {1.0, 1.0, 1.0});
}

TEST_CASE("overwriting a non-leaf with a constant: its old history gets a zero gradient") {
  auto x = tl::tensor<double>({1.0, 2.0}, {.requires_grad = true});
  tl::Tensor<double> y = x * 3.0;
  y.zero_();
  CHECK(y.requires_grad());
  CHECK(y.grad_fn()->name() == "FillBackward");
  y.add_(x);  // y = 0 + x
  y.sum().backward();
  check_values(x.grad(), {1.0, 1.0});
  tl::Tensor<double> z = x * 3.0;
  z.copy_(tl::tensor<double>({7.0, 7.0}));  // no gradient in the new value
  CHECK(z.grad_fn()->name() == "CopyBackwards");
  z.sum().backward();
  check_values(x.grad(), {1.0, 1.0});  // + 0
}

TEST_CASE("writing in place a tensor a node saved is caught at backward, with the versions") {
  auto x = tl::tensor<double>({1.0, 2.0}, {.requires_grad = true});
  tl::Tensor<double> y = x * 2.0;
  tl::Tensor<double> z = y * y;  // the fused node saves y
  y.add_(1.0);
  try {
    z.sum().backward();
    FAIL("backward should have failed");
  } catch (const tl::AutogradError& e) {
    const std::string msg = e.what();
    CHECK(msg.find("modified by an inplace operation") != std::string::npos);
    CHECK(msg.find("is at version 1; expected version 0") != std::string::npos);
  }
}

TEST_CASE("what is not built is refused, before anything is written") {
  auto x = tl::tensor<double>({1.0, 2.0, 3.0}, {.requires_grad = true});
  CHECK_THROWS_WITH_AS(x.add_(1.0), doctest::Contains("a leaf Variable that requires grad"), tl::AutogradError);
  CHECK_THROWS_WITH_AS(x.narrow(0, 0, 2).mul_(2.0), doctest::Contains("a view of a leaf Variable"), tl::AutogradError);
  tl::Tensor<double> y = x * 2.0;
  {
    // A base with a live view, and one of two live views (PyTorch regenerates
    // the others' histories; not built).
    const auto view = y.narrow(0, 1, 2);
    CHECK_THROWS_WITH_AS(y.mul_(2.0), doctest::Contains("shares memory with other tensors"), tl::NotImplementedError);
    CHECK_THROWS_AS(y.narrow(0, 0, 1).mul_(2.0), tl::NotImplementedError);
  }
  // A view of a temporary view is one of two live views while the statement runs.
  CHECK_THROWS_AS(y.view({3, 1}).select(1, 0).mul_(2.0), tl::NotImplementedError);
  check_values(y.detach(), {2.0, 4.0, 6.0});
  CHECK(y._version() == 0);
  y.mul_(2.0);  // no view left
  check_values(y.detach(), {4.0, 8.0, 12.0});
  // index_put_ with a TensorIndex list of index tensors still refuses graph tensors.
  CHECK_THROWS_WITH_AS(y.index_put_({tl::tensor<int64_t>({0})}, 1.0), doctest::Contains("index_put_"),
                       tl::NotImplementedError);
}

TEST_CASE("writes into views go through the base (CopySlices)") {
  auto x = tl::tensor<double>({1.0, 2.0, 3.0, 4.0}, {.requires_grad = true});
  tl::Tensor<double> y = x * 2.0;
  y.narrow(0, 0, 2).mul_(3.0);  // y = [6 x0, 6 x1, 2 x2, 2 x3]
  check_values(y.detach(), {6.0, 12.0, 6.0, 8.0});
  CHECK(y.grad_fn()->name() == "CopySlices");
  (y * tl::tensor<double>({1.0, 10.0, 100.0, 1000.0})).sum().backward();
  check_values(x.grad(), {6.0, 60.0, 200.0, 2000.0});
  // A buffer that needs no gradient becomes part of the graph through a view.
  auto w = tl::tensor<double>({0.5, -1.0}, {.requires_grad = true});
  auto buffer = tl::zeros<double>({2, 3});
  buffer.select(1, 0).copy_(w);
  buffer.select(1, 2).copy_(w * w);
  CHECK(buffer.requires_grad());
  buffer.sum().backward();
  check_values(w.grad(), {1.0 + 2 * 0.5, 1.0 - 2.0});
  // The view's own history is a view of the new base.
  auto z = tl::tensor<double>({1.0, 2.0, 3.0}, {.requires_grad = true});
  tl::Tensor<double> base = z * 1.0;
  auto view = base.narrow(0, 1, 2);
  view.exp_();
  (view * view).sum().backward();  // d/dz of exp(z)^2 at z1, z2
  check_values(z.grad(), {0.0, 2 * std::exp(4.0), 2 * std::exp(6.0)});
  // Gradcheck of views written in place, fill_ and an indexing op included.
  tl::Generator gen(33);
  const Inputs in = {tl::Tensor<double>(tl::rand({3, 4}, gen).to<double>()).requires_grad_(),
                     tl::Tensor<double>(tl::rand({4}, gen).to<double>()).requires_grad_()};
  CHECK(tl::autograd::gradcheck(
      [](const Inputs& v) {
        tl::Tensor<double> t = v[0] * v[0];
        t.select(0, 1).add_(v[1]);
        t.narrow(1, 2, 2).sin_();
        t.select(1, 0).fill_(0.5);
        t.diagonal().mul_(v[1].narrow(0, 0, 3));
        t.select(0, 2).index_add_(0, tl::tensor<int64_t>({3, 3}), v[1].narrow(0, 1, 2));
        return tl::Tensor<double>(t * 1.0);
      },
      in));
}

TEST_CASE("masked_fill_ records like the other pointwise writes; index_put_ with index tensors refuses") {
  auto x = tl::tensor<double>({1.0, 2.0, 3.0}, {.requires_grad = true});
  auto v = tl::tensor<double>(5.0, {.requires_grad = true});
  const auto mask = tl::tensor({true, false, true});
  tl::Tensor<double> y = x * 2.0;
  y.masked_fill_(mask, v);  // v's gradient: the sum over the masked positions
  (y * tl::tensor<double>({1.0, 10.0, 100.0})).sum().backward();
  check_values(x.grad(), {0.0, 20.0, 0.0});
  CHECK(v.grad().item() == 101.0);
  tl::Tensor<double> z = x * 2.0;
  z.masked_fill_(mask, 0.0);
  CHECK(z._version() == 1);
  // Advanced indexing writes still refuse graph tensors (and a value that
  // requires grad), before writing: no gradient is silently lost.
  const auto before = z.detach().to_vector();
  CHECK_THROWS_WITH_AS(z.index_put_({tl::tensor<int64_t>({0})}, 7.0), doctest::Contains("index_put_"),
                       tl::NotImplementedError);
  auto plain = tl::zeros<double>({3});
  CHECK_THROWS_AS(plain.index_put_({tl::tensor<int64_t>({0})}, x.narrow(0, 0, 1)), tl::NotImplementedError);
  CHECK(z.detach().to_vector() == before);
}

TEST_CASE("the in-place indexing ops record through their out-of-place forms") {
  tl::Generator gen(32);
  const Inputs in = {tl::Tensor<double>(tl::rand({4, 3}, gen).to<double>()).requires_grad_(),
                     tl::Tensor<double>(tl::rand({2, 3}, gen).to<double>()).requires_grad_()};
  const auto rows = tl::tensor<int64_t>({2, 0});
  const auto index = tl::tensor<int64_t>({{1, 0, 3}, {2, 2, 0}});
  const auto mask = tl::tensor({{true, false, true}, {false, false, true}, {true, true, false}, {false, true, false}});
  auto f = [&](const Inputs& x, int which) {
    tl::Tensor<double> y = x[0] * 3.0;
    switch (which) {
      case 0:
        y.index_add_(0, rows, x[1], 2.0);
        break;
      case 1:
        y.index_copy_(0, rows, x[1]);
        break;
      case 2:
        y.index_fill_(1, tl::tensor<int64_t>({1}), -1.0);
        break;
      case 3:
        y.scatter_(0, index, x[1]);
        break;
      case 4:
        y.scatter_add_(0, index, x[1]);
        break;
      case 5:
        y.masked_scatter_(mask, x[1]);
        break;
      case 6:
        y.index_put_({std::optional<tl::Tensor<int64_t>>(rows)}, x[1], true);
        break;
      default:
        y.scatter_reduce_(0, index, x[1], "amax");  // distinct values: no ties
        break;
    }
    return tl::Tensor<double>(y * y);
  };
  for (int which = 0; which < 8; ++which) {
    CAPTURE(which);
    CHECK(tl::autograd::gradcheck([&](const Inputs& x) { return f(x, which); }, in));
  }
  // Without a differentiable form: refused before writing.
  tl::Tensor<double> y = in[0] * 1.0;
  CHECK_THROWS_AS(y.put_(tl::tensor<int64_t>({0}), in[1].narrow(1, 0, 1).reshape({-1}).narrow(0, 0, 1)),
                  tl::NotImplementedError);
  CHECK(y._version() == 0);
}

TEST_CASE("in-place writes: op results that view an internal temporary, broadcast sources, no-grad views") {
  tl::Generator gen(34);
  auto x = tl::Tensor<double>(tl::rand({2, 3, 4}, gen).to<double>()).requires_grad_();
  auto w = tl::Tensor<double>(tl::rand({4, 2}, gen).to<double>()).requires_grad_();
  // matmul's batched result is a view of a temporary nothing else holds.
  tl::Tensor<double> y = tl::matmul(x, w);
  y.mul_(2.0);
  y.sum().backward();
  const auto gw = w.grad().to_vector();
  w.grad().zero_();
  tl::Tensor<double>(tl::matmul(x, w) * 2.0).sum().backward();
  CHECK(gw == w.grad().to_vector());
  // reshape's copy of a transposed tensor.
  auto m = tl::tensor<double>({{1.0, -2.0}, {3.0, -4.0}}, {.requires_grad = true});
  tl::Tensor<double> flat = m.t().reshape({-1});
  flat.relu_();
  flat.sum().backward();
  check_values(m.grad(), {1.0, 0.0, 1.0, 0.0});
  // A broadcast source gets the sum over the broadcast dimensions.
  auto row = tl::tensor<double>({1.0, 2.0, 3.0}, {.requires_grad = true});
  auto target = tl::zeros<double>({2, 3});
  target.copy_(row);
  (target * tl::tensor<double>({{1.0, 1.0, 1.0}, {10.0, 10.0, 10.0}})).sum().backward();
  check_values(row.grad(), {11.0, 11.0, 11.0});
  auto into_view = tl::zeros<double>({3, 3});
  into_view.narrow(0, 0, 2).copy_(row * 1.0);
  into_view.sum().backward();
  check_values(row.grad(), {13.0, 13.0, 13.0});
  // A view made under NoGradGuard of a tensor that requires grad: written
  // with grad on, PyTorch refuses (Note [views made under no_grad]); written
  // under no_grad, the write is not recorded.
  tl::Tensor<double> base = row * 1.0;
  tl::Tensor<double> v;
  tl::Tensor<double> leaf_view;
  {
    tl::NoGradGuard no_grad;
    v = base.narrow(0, 1, 2);
    leaf_view = row.narrow(0, 0, 1);
  }
  const auto no_grad_view = doctest::Contains("A view was created in no_grad mode and is being modified inplace");
  CHECK_THROWS_WITH_AS(v.mul_(3.0), no_grad_view, tl::AutogradError);
  CHECK_THROWS_WITH_AS(v.fill_(1.0), no_grad_view, tl::AutogradError);
  CHECK_THROWS_WITH_AS(v.copy_(tl::ones<double>({2})), no_grad_view, tl::AutogradError);
  CHECK_THROWS_WITH_AS(v.uniform_(), no_grad_view, tl::AutogradError);
  CHECK_THROWS_WITH_AS(v.index_fill_(0, tl::tensor<int64_t>({0}), 0.0), no_grad_view, tl::AutogradError);
  CHECK_THROWS_WITH_AS(v.add_(row.narrow(0, 0, 2)), no_grad_view, tl::AutogradError);
  CHECK_THROWS_WITH_AS(leaf_view.fill_(0.0), doctest::Contains("fill_: A view was created in no_grad mode"),
                       tl::AutogradError);
  CHECK(base._version() == 0);
  check_values(base, {1.0, 2.0, 3.0});
  {
    tl::NoGradGuard no_grad;
    v.mul_(3.0);
  }
  CHECK(base.grad_fn()->name() != "CopySlices");
  row.grad().zero_();
  base.sum().backward();
  check_values(row.grad(), {1.0, 1.0, 1.0});
  check_values(base, {1.0, 6.0, 9.0});
  // A view (made with grad on) of a view made under no_grad is refused too.
  tl::Tensor<double> inner = v.narrow(0, 0, 1);
  CHECK_THROWS_WITH_AS(inner.mul_(2.0), no_grad_view, tl::AutogradError);
  // Refused before writing: a source that reads the view's base, an
  // overlapping view.
  tl::Tensor<double> square = tl::Tensor<double>(m * 1.0);
  CHECK_THROWS_WITH_AS(square.t().add_(square), doctest::Contains("reads the base"), tl::NotImplementedError);
  CHECK(square._version() == 0);
  tl::Tensor<double> line = tl::Tensor<double>(row * 1.0);
  CHECK_THROWS_AS(line.expand({2, 3}).index_fill_(0, tl::tensor<int64_t>({0}), 0.0), tl::Error);
  CHECK(line._version() == 0);
}

TEST_CASE("fill_diagonal_ on a non-leaf: the filled positions get no gradient (PyTorch's values)") {
  auto x = tl::randn<double>({3, 3}).requires_grad_();
  auto y = x.clone();
  y.fill_diagonal_(0.0);
  y.sum().backward();
  CHECK(x.grad().to_vector() == tl::Tensor<double>(1.0 - tl::eye<double>(3)).to_vector());
  auto leaf = tl::zeros<double>({2, 2}).requires_grad_();
  CHECK_THROWS_AS(leaf.fill_diagonal_(1.0), tl::AutogradError);
}
