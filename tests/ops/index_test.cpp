// gather/scatter, index_select/add/copy/fill, take/put, masked ops and
// nonzero against PyTorch (tests/fixtures/index.txt, made by
// tests/fixtures/generate_index.py), each on contiguous, transposed and
// strided inputs with contiguous and strided index tensors; then laws,
// aliasing, and every error path.

#include <doctest/doctest.h>

#include <string>
#include <type_traits>

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
