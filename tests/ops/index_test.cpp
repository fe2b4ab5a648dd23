// gather/scatter, index_select/add/copy/fill, take/put, masked ops and
// nonzero against PyTorch (tests/fixtures/index.txt, made by
// tests/fixtures/generate_index.py), each on contiguous, transposed and
// strided inputs with contiguous and strided index tensors; then laws,
// aliasing, and every error path.

#include <doctest/doctest.h>

#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "index_cases.hpp"

namespace {

using namespace index_cases;

/// Calls f(x, index, what) for every layout of the case's `x` and for a
/// contiguous and a strided `index` (key `index_key`).
template <class T, class F>
void each_layout(const fixtures::Case& c, const std::string& name, F&& f, const char* index_key = "index") {
  const auto index = c.get<int64_t>(index_key);
  for (const auto& ix : {index, non_contiguous(index)}) {
    for (auto& [layout, x] : layouts(c.get<T>("x"))) {
      f(x, ix, name + " (" + layout + (ix.is_contiguous() ? "" : ", strided index") + ")");
    }
  }
}

/// Runs `body` for the case's element type; `body(type, case, args, name)`.
template <class F>
int run_typed(const std::string& op, F&& body) {
  return run_cases(op, [&](const fixtures::Case& c, const Args& a, const std::string& name) {
    with_dtype(c.tensor("x").dtype, [&](auto type) { body(type, c, a, name); });
  });
}

}  // namespace

TEST_CASE("gather matches PyTorch, including empty, size-1, 0-d and negative dims") {
  const int n = run_typed("gather", [](auto type, const fixtures::Case& c, const Args& a, const std::string& name) {
    using T = typename decltype(type)::type;
    const auto y = c.get<T>("y");
    each_layout<T>(c, name, [&](const tl::Tensor<T>& x, const tl::Tensor<int64_t>& ix, const std::string& what) {
      check_same(tl::gather(x, int_arg(a, "dim"), ix), y, what);
      check_same(x.gather(int_arg(a, "dim"), ix), y, what + " method");
    });
  });
  CHECK(n == 28);
}

TEST_CASE("scatter (tensor and value), scatter_add and scatter reduce match PyTorch") {
  CHECK(run_typed("scatter", [](auto type, const fixtures::Case& c, const Args& a, const std::string& name) {
          using T = typename decltype(type)::type;
          const auto y = c.get<T>("y");
          const auto src = c.get<T>("src");
          each_layout<T>(c, name, [&](tl::Tensor<T> x, const tl::Tensor<int64_t>& ix, const std::string& what) {
            check_same(tl::scatter(x, int_arg(a, "dim"), ix, non_contiguous(src)), y, what);
            check_same(x.scatter(int_arg(a, "dim"), ix, src), y, what + " method");
            x.scatter_(int_arg(a, "dim"), ix, src);
            check_same(x, y, what + " in place");
          });
        }) == 36);
  CHECK(run_typed("scatter_value", [](auto type, const fixtures::Case& c, const Args& a, const std::string& name) {
          using T = typename decltype(type)::type;
          const auto y = c.get<T>("y");
          const T v = scalar_arg<T>(a, "value");
          each_layout<T>(c, name, [&](tl::Tensor<T> x, const tl::Tensor<int64_t>& ix, const std::string& what) {
            check_same(tl::scatter(x, int_arg(a, "dim"), ix, v), y, what);
            x.scatter_(int_arg(a, "dim"), ix, v);
            check_same(x, y, what + " in place");
          });
        }) == 18);
  CHECK(run_typed("scatter_add", [](auto type, const fixtures::Case& c, const Args& a, const std::string& name) {
          using T = typename decltype(type)::type;
          const auto y = c.get<T>("y");
          const auto src = c.get<T>("src");
          each_layout<T>(c, name, [&](tl::Tensor<T> x, const tl::Tensor<int64_t>& ix, const std::string& what) {
            check_same(tl::scatter_add(x, int_arg(a, "dim"), ix, src), y, what, 1e-6);
            x.scatter_add_(int_arg(a, "dim"), ix, non_contiguous(src));
            check_same(x, y, what + " in place", 1e-6);
          });
        }) == 7);
  CHECK(run_typed("scatter_reduce2", [](auto type, const fixtures::Case& c, const Args& a, const std::string& name) {
          using T = typename decltype(type)::type;
          const auto y = c.get<T>("y");
          const auto src = c.get<T>("src");
          each_layout<T>(c, name, [&](tl::Tensor<T> x, const tl::Tensor<int64_t>& ix, const std::string& what) {
            check_same(tl::scatter(x, int_arg(a, "dim"), ix, src, arg(a, "reduce")), y, what, 1e-12);
            x.scatter_(int_arg(a, "dim"), ix, src, arg(a, "reduce"));
            check_same(x, y, what + " in place", 1e-12);
          });
        }) == 12);
  CHECK(run_typed("scatter_reduce", [](auto type, const fixtures::Case& c, const Args& a, const std::string& name) {
          using T = typename decltype(type)::type;
          const auto y = c.get<T>("y");
          const auto src = c.get<T>("src");
          const bool include_self = int_arg(a, "include_self") != 0;
          each_layout<T>(c, name, [&](tl::Tensor<T> x, const tl::Tensor<int64_t>& ix, const std::string& what) {
            check_same(tl::scatter_reduce(x, int_arg(a, "dim"), ix, src, arg(a, "reduce"), include_self), y, what,
                       1e-12);
            x.scatter_reduce_(int_arg(a, "dim"), ix, non_contiguous(src), arg(a, "reduce"), include_self);
            check_same(x, y, what + " in place", 1e-12);
          });
        }) == 62);
}

TEST_CASE("index_select, index_add, index_copy and index_fill match PyTorch") {
  CHECK(run_typed("index_select", [](auto type, const fixtures::Case& c, const Args& a, const std::string& name) {
          using T = typename decltype(type)::type;
          const auto y = c.get<T>("y");
          each_layout<T>(c, name, [&](const tl::Tensor<T>& x, const tl::Tensor<int64_t>& ix, const std::string& what) {
            check_same(tl::index_select(x, int_arg(a, "dim"), ix), y, what);
            check_same(x.index_select(int_arg(a, "dim"), ix), y, what + " method");
          });
        }) == 19);
  CHECK(run_typed("index_add", [](auto type, const fixtures::Case& c, const Args& a, const std::string& name) {
          using T = typename decltype(type)::type;
          const auto y = c.get<T>("y");
          const auto src = c.get<T>("src");
          const T alpha = scalar_arg<T>(a, "alpha");
          each_layout<T>(c, name, [&](tl::Tensor<T> x, const tl::Tensor<int64_t>& ix, const std::string& what) {
            check_same(tl::index_add(x, int_arg(a, "dim"), ix, src, alpha), y, what, 1e-6);
            x.index_add_(int_arg(a, "dim"), ix, non_contiguous(src), alpha);
            check_same(x, y, what + " in place", 1e-6);
          });
        }) == 18);
  CHECK(run_typed("index_copy", [](auto type, const fixtures::Case& c, const Args& a, const std::string& name) {
          using T = typename decltype(type)::type;
          const auto y = c.get<T>("y");
          const auto src = c.get<T>("src");
          each_layout<T>(c, name, [&](tl::Tensor<T> x, const tl::Tensor<int64_t>& ix, const std::string& what) {
            check_same(tl::index_copy(x, int_arg(a, "dim"), ix, src), y, what);
            x.index_copy_(int_arg(a, "dim"), ix, non_contiguous(src));
            check_same(x, y, what + " in place");
          });
        }) == 18);
  CHECK(run_typed("index_fill", [](auto type, const fixtures::Case& c, const Args& a, const std::string& name) {
          using T = typename decltype(type)::type;
          const auto y = c.get<T>("y");
          const T v = scalar_arg<T>(a, "value");
          each_layout<T>(c, name, [&](tl::Tensor<T> x, const tl::Tensor<int64_t>& ix, const std::string& what) {
            check_same(x.index_fill(int_arg(a, "dim"), ix, v), y, what);
            tl::index_fill_(x, int_arg(a, "dim"), ix, v);
            check_same(x, y, what + " in place");
          });
        }) == 19);
}

TEST_CASE("take and put (with and without accumulate) match PyTorch, negative indices included") {
  CHECK(run_typed("take", [](auto type, const fixtures::Case& c, const Args&, const std::string& name) {
          using T = typename decltype(type)::type;
          const auto y = c.get<T>("y");
          each_layout<T>(c, name, [&](const tl::Tensor<T>& x, const tl::Tensor<int64_t>& ix, const std::string& what) {
            check_same(tl::take(x, ix), y, what);
            check_same(x.take(ix), y, what + " method");
          });
        }) == 12);
  for (const char* op : {"put", "put_acc"}) {
    CHECK(run_typed(op, [](auto type, const fixtures::Case& c, const Args& a, const std::string& name) {
            using T = typename decltype(type)::type;
            const auto y = c.get<T>("y");
            const auto src = c.get<T>("src");
            const bool acc = int_arg(a, "accumulate") != 0;
            each_layout<T>(c, name, [&](tl::Tensor<T> x, const tl::Tensor<int64_t>& ix, const std::string& what) {
              check_same(tl::put(x, ix, src, acc), y, what, 1e-6);
              x.put_(ix, non_contiguous(src), acc);
              check_same(x, y, what + " in place", 1e-6);
            });
          }) == 12);
  }
}

TEST_CASE("masked_fill, masked_select and masked_scatter broadcast like PyTorch") {
  CHECK(run_typed("masked_fill", [](auto type, const fixtures::Case& c, const Args& a, const std::string& name) {
          using T = typename decltype(type)::type;
          const auto y = c.get<T>("y");
          const T v = scalar_arg<T>(a, "value");
          const auto mask = c.get<bool>("mask");
          for (const auto& m : {mask, non_contiguous(mask)}) {
            for (auto& [layout, x] : layouts(c.get<T>("x"))) {
              const std::string what = name + " (" + layout + ")";
              check_same(tl::masked_fill(x, m, v), y, what);
              check_same(x.masked_fill(m, tl::scalar_tensor<T>(v)), y, what + " 0-d value");
              if (y.sizes() == x.sizes()) {
                x.masked_fill_(m, v);
                check_same(x, y, what + " in place");
              }
            }
          }
        }) == 24);
  CHECK(run_typed("masked_select", [](auto type, const fixtures::Case& c, const Args&, const std::string& name) {
          using T = typename decltype(type)::type;
          const auto y = c.get<T>("y");
          const auto mask = c.get<bool>("mask");
          for (const auto& m : {mask, non_contiguous(mask)}) {
            for (auto& [layout, x] : layouts(c.get<T>("x"))) {
              check_same(tl::masked_select(x, m), y, name + " (" + layout + ")");
              check_same(x.masked_select(m), y, name + " (" + layout + ") method");
              // The GPU's path (Note [compaction on a GPU]), run on the CPU.
              const tl::Shape shape = tl::broadcast_shapes(x.sizes(), m.sizes(), "test");
              check_same(tl::detail::masked_select_by_ranks(x, m, shape), y, name + " (" + layout + ") by ranks");
            }
          }
        }) == 24);
  CHECK(run_typed("masked_scatter", [](auto type, const fixtures::Case& c, const Args&, const std::string& name) {
          using T = typename decltype(type)::type;
          const auto y = c.get<T>("y");
          const auto mask = c.get<bool>("mask");
          const auto src = c.get<T>("src");
          for (const auto& m : {mask, non_contiguous(mask)}) {
            for (auto& [layout, x] : layouts(c.get<T>("x"))) {
              const std::string what = name + " (" + layout + ")";
              check_same(tl::masked_scatter(x, m, non_contiguous(src)), y, what);
              // The GPU's path (Note [compaction on a GPU]), run on the CPU.
              const auto by_ranks = x.expand(y.sizes()).clone();
              tl::detail::masked_scatter_by_ranks(by_ranks, m.expand(y.sizes()), src.contiguous());
              check_same(by_ranks, y, what + " by ranks");
              if (y.sizes() == x.sizes()) {
                x.masked_scatter_(m, src);
                check_same(x, y, what + " in place");
              }
            }
          }
        }) == 24);
}

TEST_CASE("nonzero, argwhere and where(cond) match PyTorch") {
  CHECK(run_typed("nonzero", [](auto type, const fixtures::Case& c, const Args&, const std::string& name) {
          using T = typename decltype(type)::type;
          const auto y = c.get<int64_t>("y");
          for (auto& [layout, x] : layouts(c.get<T>("x"))) {
            const std::string what = name + " (" + layout + ")";
            check_same(tl::nonzero(x), y, what);
            check_same(x.argwhere(), y, what + " argwhere");
            check_same(tl::detail::nonzero_by_ranks(x.contiguous()), y, what + " by ranks");
            const auto cols = tl::where(x);
            if (x.dim() == 0) {  // a 0-d input counts as 1-d: one list of 0s
              REQUIRE(cols.size() == 1);
              check_same(cols[0], tl::zeros<int64_t>({y.size(0)}), what + " where");
              continue;
            }
            REQUIRE(static_cast<int64_t>(cols.size()) == y.size(1));
            for (int64_t d = 0; d < y.size(1); ++d)
              check_same(cols[static_cast<std::size_t>(d)], y.select(1, d).contiguous(), what + " where");
          }
        }) == 19);
  // An expression is evaluated first.
  const auto x = tl::tensor({{0.f, 2.f}, {3.f, 0.f}});
  check_same(tl::nonzero(x > 1.f), tl::tensor({{0, 1}, {1, 0}}), "nonzero of an expression");
}

TEST_CASE("laws: index_select is gather with an expanded index, masked_select counts mask.sum()") {
  const auto x = tl::arange<float>(0, 30).reshape({5, 6}).t();  // (6, 5), not contiguous
  const auto idx = tl::tensor({4, 0, 0, 2});
  check_same(x.index_select(1, idx), x.gather(1, idx.unsqueeze(0).expand({6, 4})), "index_select == gather dim 1");
  check_same(x.index_select(0, idx), x.gather(0, idx.unsqueeze(1).expand({4, 5})), "index_select == gather dim 0");
  // take is index_select of the flattened tensor.
  check_same(x.take(idx), x.flatten().index_select(0, idx), "take == flatten().index_select");
  const tl::Tensor<bool> mask = tl::remainder(x.to<int64_t>(), int64_t(3)) == int64_t(0);
  CHECK(x.masked_select(mask).numel() == mask.to<int64_t>().sum().item());
  // masked_scatter of masked_select restores the selected elements.
  auto z = tl::zeros<float>({6, 5});
  z.masked_scatter_(mask, x.masked_select(mask));
  check_same(z, x.masked_fill(mask.logical_not(), 0.f).eval(), "masked_scatter(masked_select)");
  // scatter inverts gather along a permutation.
  const auto perm = tl::tensor({{2, 0, 1}, {1, 2, 0}});
  const auto src = tl::arange<double>(0, 6).reshape({2, 3});
  check_same(tl::zeros<double>({2, 3}).scatter(1, perm, src).gather(1, perm), src, "gather(scatter(src)) == src");
  // scatter_add of ones counts the index values (a bincount).
  const auto bins = tl::tensor({3, 1, 3, 3, 0});
  check_same(tl::zeros<int64_t>({5}).scatter_add(0, bins, tl::ones<int64_t>({5})), tl::tensor({1, 1, 0, 3, 0}),
             "scatter_add bincount");
  // index_add with alpha = -1 undoes index_add.
  const auto base = tl::arange<double>(0, 12).reshape({4, 3});
  const auto s = tl::arange<double>(0, 9).reshape({3, 3}) * 0.5;
  const auto id = tl::tensor({1, 1, 3});
  check_same(base.index_add(0, id, s).index_add(0, id, s.eval(), -1.0), base, "index_add(-alpha) undoes");
  // put with accumulate is the flat index_put accumulate.
  auto flat = tl::zeros<double>({12});
  flat.index_put_({id}, tl::ones<double>({3}), true);
  check_same(tl::zeros<double>({4, 3}).put(id, tl::ones<double>({3}), true).flatten(), flat, "put == index_put");
  // x.index({mask}) is masked_select.
  check_same(x.index({mask}), x.masked_select(mask), "index(mask) == masked_select");
}

TEST_CASE("in-place indexing ops read inputs that alias the destination before writing") {
  auto x = tl::tensor({1.0, 2.0, 3.0, 4.0});
  // src is x itself, reversed into x: every read must see the old values.
  x.index_copy_(0, tl::tensor({3, 2, 1, 0}), x);
  check_same(x, tl::tensor({4.0, 3.0, 2.0, 1.0}), "index_copy_ from itself");
  x.scatter_(0, tl::tensor({1, 0, 3, 2}), x);
  check_same(x, tl::tensor({3.0, 4.0, 1.0, 2.0}), "scatter_ from itself");
  auto ix = tl::tensor({2, 0, 1});
  ix.put_(ix, tl::tensor({10, 20, 30}));
  check_same(ix, tl::tensor({20, 30, 10}), "put_ with its own index");
  auto m = tl::tensor({true, false, true});
  m.masked_fill_(m, false);
  check_same(m, tl::zeros<bool>({3}), "masked_fill_ with itself as mask");
  // An expanded destination is rejected, as in PyTorch.
  auto e = tl::zeros<float>({1, 3}).expand({2, 3});
  CHECK_THROWS_WITH_AS(e.index_fill_(1, tl::tensor({0}), 1.f), doctest::Contains("more than one element"),
                       tl::ValueError);
  CHECK_THROWS_AS(e.scatter_(0, tl::zeros<int64_t>({1, 3}), 1.f), tl::ValueError);
  CHECK_THROWS_AS(e.masked_fill_(tl::ones<bool>({2, 3}), 1.f), tl::ValueError);
  // An expanded input is fine.
  const auto ex = tl::tensor({1.f, 2.f, 3.f}).expand({4, 3});
  check_same(ex.index_select(0, tl::tensor({3, 0})), tl::tensor({{1.f, 2.f, 3.f}, {1.f, 2.f, 3.f}}), "expanded input");
  check_same(ex.gather(1, tl::tensor({{2}, {0}, {1}, {1}})), tl::tensor({{3.f}, {1.f}, {2.f}, {2.f}}),
             "gather expanded");
}

TEST_CASE("indexing ops report out-of-range indices with op, index, dimension and size") {
  const auto x = tl::zeros<float>({2, 3});
  auto y = x.clone();
  using doctest::Contains;
  CHECK_THROWS_WITH_AS(x.gather(1, tl::tensor({{7}})),
                       Contains("gather(): index 7 is out of bounds for dimension 1 with size 3"), tl::IndexError);
  CHECK_THROWS_WITH_AS(x.gather(0, tl::tensor({{-1}})),
                       Contains("gather(): index -1 is out of bounds for dimension 0 with size 2"), tl::IndexError);
  CHECK_THROWS_WITH_AS(y.scatter_(1, tl::tensor({{3}}), 1.f),
                       Contains("scatter_(): index 3 is out of bounds for dimension 1 with size 3"), tl::IndexError);
  CHECK_THROWS_WITH_AS(y.scatter_add_(0, tl::tensor({{-1}}), tl::ones<float>({1, 1})),
                       Contains("scatter_add_(): index -1 is out of bounds for dimension 0 with size 2"),
                       tl::IndexError);
  CHECK_THROWS_WITH_AS(y.scatter_reduce_(0, tl::tensor({{2}}), tl::ones<float>({1, 1}), "amax"),
                       Contains("scatter_reduce_(): index 2 is out of bounds for dimension 0 with size 2"),
                       tl::IndexError);
  CHECK_THROWS_WITH_AS(tl::arange<float>(0, 5).index_select(0, tl::tensor({7})),
                       Contains("index_select(): index 7 is out of bounds for dimension 0 with size 5"),
                       tl::IndexError);
  CHECK_THROWS_WITH_AS(x.index_select(1, tl::tensor({-1})),
                       Contains("index_select(): index -1 is out of bounds for dimension 1 with size 3"),
                       tl::IndexError);
  CHECK_THROWS_WITH_AS(y.index_add_(0, tl::tensor({5}), tl::ones<float>({1, 3})),
                       Contains("index_add_(): index 5 is out of bounds for dimension 0 with size 2"), tl::IndexError);
  CHECK_THROWS_WITH_AS(y.index_copy_(0, tl::tensor({-1}), tl::ones<float>({1, 3})),
                       Contains("index_copy_(): index -1 is out of bounds for dimension 0 with size 2"),
                       tl::IndexError);
  CHECK_THROWS_WITH_AS(y.index_fill_(1, tl::tensor({-4}), 1.f),
                       Contains("index_fill_(): index -4 is out of bounds for dimension 1 with size 3"),
                       tl::IndexError);
  CHECK_THROWS_WITH_AS(x.take(tl::tensor({6})),
                       Contains("take(): out of range: tried to access index 6 on a tensor of 6 elements"),
                       tl::IndexError);
  CHECK_THROWS_WITH_AS(y.put_(tl::tensor({-7}), tl::ones<float>({1})),
                       Contains("put_(): out of range: tried to access index -7 on a tensor of 6 elements"),
                       tl::IndexError);
  CHECK(y.to_vector() == std::vector<float>(6, 0.f));  // nothing was written before the bad index
  // An empty result or source reads no index, but index_select and index_add_ check it all the
  // same (PyTorch).
  CHECK_THROWS_WITH_AS(tl::zeros<float>({3, 0}).index_select(0, tl::tensor({5})),
                       Contains("index_select(): index 5 is out of bounds for dimension 0 with size 3"),
                       tl::IndexError);
  auto e = tl::zeros<float>({0, 3});
  CHECK_THROWS_WITH_AS(e.index_add_(1, tl::tensor({5}), tl::zeros<float>({0, 1})),
                       Contains("index_add_(): index 5 is out of bounds for dimension 1 with size 3"), tl::IndexError);
  CHECK(tl::zeros<float>({3, 0}).index_select(0, tl::tensor({2, 0})).sizes() == tl::Shape{2, 0});
  // PyTorch's index_copy_ does not check an index it never reads.
  CHECK(e.index_copy_(1, tl::tensor({5}), tl::zeros<float>({0, 1})).sizes() == tl::Shape{0, 3});
}

TEST_CASE("indexing ops reject bad dims, shapes and arguments with PyTorch-like messages") {
  const auto x = tl::zeros<float>({2, 3});
  auto y = x.clone();
  using doctest::Contains;
  // dims out of range
  CHECK_THROWS_WITH_AS(x.gather(2, tl::zeros<int64_t>({1, 1})), Contains("dimension out of range"), tl::IndexError);
  CHECK_THROWS_WITH_AS(x.index_select(-3, tl::tensor({0})), Contains("index_select: dimension out of range"),
                       tl::IndexError);
  CHECK_THROWS_AS(y.scatter_(5, tl::zeros<int64_t>({1, 1}), 1.f), tl::IndexError);
  CHECK_THROWS_AS(y.index_add_(2, tl::tensor({0}), tl::ones<float>({2, 1})), tl::IndexError);
  // index / src ranks and sizes
  CHECK_THROWS_WITH_AS(x.gather(1, tl::tensor({0})),
                       Contains("Index tensor must have the same number of dimensions as input tensor"),
                       tl::ShapeError);
  CHECK_THROWS_WITH_AS(x.gather(1, tl::zeros<int64_t>({3, 1})),
                       Contains("Size does not match at dimension 0 expected index [3, 1] to be smaller than self "
                                "[2, 3] apart from dimension 1"),
                       tl::ShapeError);
  CHECK_THROWS_WITH_AS(y.scatter_(0, tl::zeros<int64_t>({1, 1}), tl::ones<float>({1})),
                       Contains("Index tensor must have the same number of dimensions as src tensor"), tl::ShapeError);
  CHECK_THROWS_WITH_AS(y.scatter_(0, tl::zeros<int64_t>({1, 2}), tl::ones<float>({1, 1})),
                       Contains("to be smaller size than src [1, 1]"), tl::ShapeError);
  CHECK_THROWS_WITH_AS(y.scatter_(0, tl::zeros<int64_t>({1, 4}), 1.f),
                       Contains("Expected index [1, 4] to be smaller than self [2, 3] apart from dimension 0"),
                       tl::ShapeError);
  CHECK_THROWS_WITH_AS(x.index_select(0, tl::zeros<int64_t>({2, 1})), Contains("Index is supposed to be a vector"),
                       tl::ShapeError);
  CHECK_THROWS_WITH_AS(y.index_add_(0, tl::tensor({0, 1}), tl::ones<float>({1, 3})),
                       Contains("Number of indices (2) should be equal to source.size(dim) (1)"), tl::ShapeError);
  CHECK_THROWS_WITH_AS(y.index_copy_(0, tl::tensor({0}), tl::ones<float>({1, 2})),
                       Contains("must have the same size apart from dimension 0"), tl::ShapeError);
  CHECK_THROWS_WITH_AS(y.index_add_(0, tl::tensor({0}), tl::ones<float>({3})),
                       Contains("must have the same number of dimensions"), tl::ShapeError);
  CHECK_THROWS_WITH_AS(y.put_(tl::tensor({0, 1}), tl::ones<float>({3})),
                       Contains("Expected source and index to have the same number of elements"), tl::ShapeError);
  // reduce names
  CHECK_THROWS_WITH_AS(y.scatter_(0, tl::zeros<int64_t>({1, 1}), 1.f, "max"),
                       Contains("reduce argument must be either add or multiply"), tl::ValueError);
  CHECK_THROWS_WITH_AS(y.scatter_reduce_(0, tl::zeros<int64_t>({1, 1}), tl::ones<float>({1, 1}), "add"),
                       Contains("reduce argument must be either sum, prod, mean, amax or amin"), tl::ValueError);
  // masks
  CHECK_THROWS_WITH_AS(y.masked_fill_(tl::ones<bool>({3, 3}), 1.f), Contains("cannot be broadcast"), tl::ShapeError);
  CHECK_THROWS_WITH_AS(y.masked_fill_(tl::ones<bool>({2, 1}), tl::ones<float>({1})),
                       Contains("only supports a 0-dimensional value tensor"), tl::ShapeError);
  CHECK_THROWS_WITH_AS(x.masked_select(tl::ones<bool>({4})), Contains("masked_select: shapes [2, 3] and [4]"),
                       tl::ShapeError);
  CHECK_THROWS_WITH_AS(y.masked_scatter_(tl::ones<bool>({2, 3}), tl::ones<float>({5})),
                       Contains("Number of elements of source < number of ones in mask"), tl::ShapeError);
  CHECK_THROWS_WITH_AS(y.masked_scatter_(tl::ones<bool>({2}), tl::ones<float>({9})), Contains("cannot be broadcast"),
                       tl::ShapeError);
  CHECK(y.to_vector() == std::vector<float>(6, 0.f));
}

TEST_CASE("index_select and index_add also take int32 indices, as in PyTorch") {
  const auto x = tl::arange<double>(0, 12).reshape({3, 4}).t();
  const auto i64 = tl::tensor({2, 0, 2});
  const auto i32 = i64.to<int32_t>();
  check_same(x.index_select(1, i32), x.index_select(1, i64), "index_select int32");
  check_same(tl::index_select(x, 1, i32), x.index_select(1, i64), "tl::index_select int32");
  auto a = tl::zeros<double>({4, 3});
  auto b = tl::zeros<double>({4, 3});
  a.index_add_(1, i32, x.index_select(1, i64), 2.0);
  b.index_add_(1, i64, x.index_select(1, i64), 2.0);
  check_same(a, b, "index_add_ int32");
  CHECK_THROWS_WITH_AS(x.index_select(0, tl::tensor<int32_t>({4})),
                       doctest::Contains("index 4 is out of bounds for dimension 0 with size 4"), tl::IndexError);
}

TEST_CASE("0-d tensors count as 1-d of one element in gather and scatter") {
  const auto x = tl::scalar_tensor(4.5f);
  check_same(x.gather(0, tl::tensor({0})), tl::tensor({4.5f}), "gather 0-d input, 1-d index");
  check_same(x.scatter(0, tl::tensor({0}), tl::scalar_tensor(2.f)), tl::scalar_tensor(2.f), "scatter 0-d src");
  check_same(tl::zeros<float>({3}).scatter_add(0, tl::scalar_tensor<int64_t>(1), tl::scalar_tensor(2.f)),
             tl::tensor({0.f, 2.f, 0.f}), "scatter_add 0-d index and src");
  CHECK_THROWS_AS(x.gather(0, tl::tensor({1})), tl::IndexError);
}

TEST_CASE("scatter_reduce details: NaN in amax/amin, integer mean floors, untouched positions keep their value") {
  auto x = tl::tensor({0.0, 10.0, 20.0});
  const auto idx = tl::tensor({0, 0, 2});
  const auto src = tl::tensor({std::nan(""), 1.0, 25.0});
  const auto mx = x.scatter_reduce(0, idx, src, "amax");
  CHECK(std::isnan(mx.to_vector()[0]));
  CHECK(mx.to_vector()[1] == 10.0);
  CHECK(mx.to_vector()[2] == 25.0);
  const auto ints =
      tl::tensor<int64_t>({-7, 5, 9}).scatter_reduce(0, tl::tensor({0, 0}), tl::tensor<int64_t>({0, 0}), "mean");
  check_same(ints, tl::tensor<int64_t>({-3, 5, 9}), "floor mean: (-7 + 0 + 0) / 3 = -3 (floor of -2.33)");
  // uint8 counts wrap as PyTorch's do (its count tensor has self's dtype, and
  // a zero count divides by 1). From PyTorch 1.13:
  //   torch.full((1,), 7, dtype=torch.uint8).scatter_reduce(
  //       0, torch.zeros(k, dtype=torch.int64), torch.full((k,), 2, dtype=torch.uint8), "mean")
  // gives 5 for k = 255 (sum 517 = 5 mod 256, count 256 = 0) and 2 for k = 300 (95 / 45).
  for (const auto& [k, expected] : {std::pair{int64_t{255}, uint8_t{5}}, std::pair{int64_t{300}, uint8_t{2}}}) {
    const auto bytes =
        tl::full<uint8_t>({1}, 7).scatter_reduce(0, tl::zeros<int64_t>({k}), tl::full<uint8_t>({k}, 2), "mean");
    CHECK(bytes.to_vector() == std::vector<uint8_t>{expected});
  }
  const auto excl = x.scatter_reduce(0, tl::tensor({1}), tl::tensor({4.0}), "prod", false);
  check_same(excl, tl::tensor({0.0, 4.0, 20.0}), "include_self=false starts from the identity");
}

TEST_CASE_TEMPLATE("float16 and bfloat16 scatters and accumulating puts compute like float, rounded once", T, tl::Half,
                   tl::BFloat16) {
  // Small integers: sums, products, maxima and minima are exact in float
  // and in T, so T's results equal float's; the mean divides the same
  // exact sum in float and rounds the quotient to T once.
  tl::Generator g(5);
  const auto rep = tl::randint(0, 7, {5, 300}, g);
  const tl::Tensor<float> many = tl::randint(-2, 3, {5, 300}, g).to<float>();
  const tl::Tensor<float> signs = tl::randint(-1, 2, {5, 300}, g).to<float>();
  const tl::Tensor<float> base = tl::randint(-4, 5, {5, 7}, g).to<float>();
  const auto as_t = [](const tl::Tensor<float>& t) { return t.to<T>(); };
  for (const bool include_self : {true, false}) {
    CAPTURE(include_self);
    for (const char* r : {"sum", "prod", "mean", "amax", "amin"}) {
      CAPTURE(r);
      const auto& src = std::string(r) == "prod" ? signs : many;
      check_same(tl::scatter_reduce(as_t(base), 1, rep, as_t(src), r, include_self).template to<float>(),
                 as_t(tl::scatter_reduce(base, 1, rep, src, r, include_self)).template to<float>(), r);
    }
  }
  check_same(tl::scatter_add(as_t(base), 1, rep, as_t(many)).template to<float>(), tl::scatter_add(base, 1, rep, many),
             "scatter_add");
  const auto rows = tl::randint(0, 5, {40}, g);
  const tl::Tensor<float> src = tl::randint(-4, 5, {40, 7}, g).to<float>();
  check_same(tl::index_add(as_t(base), 0, rows, as_t(src), T(0.5f)).template to<float>(),
             tl::index_add(base, 0, rows, src, 0.5f), "index_add");
  const auto flat = tl::randint(0, 35, {100}, g);
  const tl::Tensor<float> vals = tl::randint(-4, 5, {100}, g).to<float>();
  check_same(tl::put(as_t(base), flat, as_t(vals), true).template to<float>(), tl::put(base, flat, vals, true),
             "put accumulate");
  const std::vector<std::optional<tl::Tensor<int64_t>>> at{rows};
  check_same(tl::index_put(as_t(base), at, as_t(src), true).template to<float>(), tl::index_put(base, at, src, true),
             "index_put accumulate");
}

TEST_CASE("take_along_dim matches PyTorch: broadcasting both ways, negative dims, argsort indices, no dim") {
  const auto& f = fixtures::load("surface.txt");
  const auto& b = f["take_along_dim/broadcast"];
  fixtures::check_close(tl::take_along_dim(b.get<float>("x"), b.get<int64_t>("i"), 1), b.get<float>("y"), 0, 0,
                        "broadcast");
  const auto& n = f["take_along_dim/neg_dim"];
  fixtures::check_close(tl::take_along_dim(n.get<float>("x"), n.get<int64_t>("i"), -1), n.get<float>("y"), 0, 0,
                        "negative dim");
  const auto& s = f["take_along_dim/argsort"];
  fixtures::check_close(tl::take_along_dim(s.get<float>("x"), s.get<int64_t>("i"), 0), s.get<float>("y"), 0, 0,
                        "argsort");
  fixtures::check_close(tl::take_along_dim(s.get<float>("x"), tl::argsort(s.get<float>("x"), 0), 0),
                        tl::sort(s.get<float>("x"), 0).values, 0, 0, "sorted");
  const auto& fl = f["take_along_dim/flat"];
  fixtures::check_close(
      tl::take_along_dim(fl.get<float>("x").transpose(0, 2).contiguous().transpose(0, 2), fl.get<int64_t>("i")),
      fl.get<float>("y"), 0, 0, "flattened, non-contiguous input");
  const auto x = tl::zeros<float>({2, 4});
  CHECK_THROWS_WITH_AS(tl::take_along_dim(x, tl::tensor<int64_t>({0, 1}), 1),
                       "take_along_dim(): input and indices should have the same number of dimensions, but got 2 "
                       "dimensions for input, and 1 dimensions for indices",
                       tl::ShapeError);
  CHECK_THROWS_WITH_AS(tl::take_along_dim(x, tl::tensor<int64_t>({5}).view({1, 1}), 1),
                       doctest::Contains("index 5 is out of bounds for dimension 1 with size 4"), tl::IndexError);
  CHECK_THROWS_AS(tl::take_along_dim(x, tl::zeros<int64_t>({1, 1}), 2), tl::IndexError);
  CHECK_THROWS_AS(tl::take_along_dim(x, tl::zeros<int64_t>({3, 2}), 1), tl::ShapeError);
}

TEST_CASE("index_reduce matches PyTorch for every reduction, with and without include_self; errors") {
  const auto& f = fixtures::load("scatter_reduce.txt");
  for (const std::string reduce : {"prod", "mean", "amax", "amin"})
    for (const bool include_self : {true, false}) {
      const auto& c = f["index_reduce/" + reduce + (include_self ? "/self" : "/noself")];
      CAPTURE(reduce);
      CAPTURE(include_self);
      const auto input = c.get<double>("input"), source = c.get<double>("source");
      const auto index = c.get<int64_t>("index");
      fixtures::check_close(tl::index_reduce(input, 0, index, source, reduce, include_self), c.get<double>("y"), 1e-15,
                            1e-15, "index_reduce");
      auto in_place = input.clone();
      in_place.index_reduce_(0, index, source, reduce, include_self);
      fixtures::check_close(in_place, c.get<double>("y"), 1e-15, 1e-15, "index_reduce_");
      // Along dim 1 of the transposed operands: the same values, transposed.
      fixtures::check_close(input.t().index_reduce(1, index, source.t(), reduce, include_self).t().contiguous(),
                            c.get<double>("y"), 1e-15, 1e-15, "index_reduce along dim 1");
    }
  const auto x = tl::zeros<float>({3, 2});
  CHECK(fixtures::error_message([&] {
          (void)x.index_reduce(0, tl::tensor<int64_t>({0}), tl::ones<float>({1, 2}), "sum");
        }) == "index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got sum.");
  CHECK(fixtures::error_message([&] {
          (void)x.index_reduce(0, tl::tensor<int64_t>({0, 1}), tl::ones<float>({1, 2}), "amax");
        }) == "index_reduce(): Number of indices (2) should be equal to source.size(dim) (1)");
  CHECK(fixtures::error_message([&] {
          (void)x.index_reduce(0, tl::tensor<int64_t>({0}), tl::ones<float>({1, 3}), "amax");
        }) == "index_reduce(): source [1, 3] and destination [3, 2] differ in dimension 1");
  CHECK(fixtures::error_message([&] {
          (void)x.index_reduce(0, tl::tensor<int64_t>({5}), tl::ones<float>({1, 2}), "amax");
        }).find("out of bounds") != std::string::npos);
}
