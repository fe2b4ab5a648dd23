// Sorting, order statistics, unique, histograms and searching against
// PyTorch (tests/fixtures/sort.txt, made by tests/fixtures/generate_sort.py),
// on contiguous, transposed and strided layouts of every input, plus the
// error paths.

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "fixtures.hpp"

namespace {

using fixtures::Args;
using fixtures::layouts;
using fixtures::parse_args;

int64_t int_arg(const Args& args, const std::string& key) {
  const auto it = args.find(key);
  REQUIRE_MESSAGE(it != args.end(), "fixture args lack " << key);
  return std::stoll(it->second);
}

bool bool_arg(const Args& args, const std::string& key) { return int_arg(args, key) != 0; }

/// Same shape and the same elements: NaN matches NaN, and the sign of zero must match.
template <class T>
void check_same(const tl::Tensor<T>& actual, const tl::Tensor<T>& expected, const std::string& what) {
  REQUIRE_MESSAGE(actual.defined(), what << ": result is undefined");
  REQUIRE_MESSAGE(actual.sizes() == expected.sizes(),
                  what << ": shape " << actual.sizes() << ", expected " << expected.sizes());
  const auto a = actual.to_vector();
  const auto e = expected.to_vector();
  int failures = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    bool ok = a[i] == e[i];
    if constexpr (std::is_floating_point_v<T>)
      ok = (std::isnan(a[i]) && std::isnan(e[i])) || (ok && std::signbit(a[i]) == std::signbit(e[i]));
    if (!ok && failures++ < 3) FAIL_CHECK(what << ": element " << i << " is " << +a[i] << ", expected " << +e[i]);
  }
  CHECK_MESSAGE(failures == 0, what << ": " << failures << " of " << a.size() << " elements differ");
}

/// Calls f(std::type_identity<T>{}) for the element type named in a fixture.
template <class F>
void with_dtype(const std::string& dtype, F&& f) {
  if (dtype == "float32") return f(std::type_identity<float>{});
  if (dtype == "float64") return f(std::type_identity<double>{});
  if (dtype == "int32") return f(std::type_identity<int32_t>{});
  if (dtype == "int64") return f(std::type_identity<int64_t>{});
  if (dtype == "uint8") return f(std::type_identity<uint8_t>{});
  if (dtype == "bool") return f(std::type_identity<bool>{});
  FAIL("unknown fixture dtype " << dtype);
}

template <class T>
void check_vi(const tl::ValuesIndices<T>& r, const fixtures::Case& c, const std::string& what) {
  check_same(r.values, c.get<T>("values"), what + " values");
  check_same(r.indices, c.get<int64_t>("indices"), what + " indices");
}

template <class T>
void check_unique(const tl::UniqueResult<T>& r, const fixtures::Case& c, const std::string& what) {
  check_same(r.output, c.get<T>("output"), what + " output");
  check_same(r.inverse_indices, c.get<int64_t>("inverse"), what + " inverse");
  check_same(r.counts, c.get<int64_t>("counts"), what + " counts");
}

/// Runs the fixture cases of one op: check(case, layout name, input) for each layout of x.
template <class Check>
int run_cases(const std::string& op, Check&& check) {
  int cases = 0;
  for (const auto& [name, c] : fixtures::load("sort.txt").cases()) {
    if (name.substr(0, name.rfind('/')) != op) continue;
    ++cases;
    const Args args = parse_args(c.text("args"));
    with_dtype(c.tensor("x").dtype, [&, &name = name, &c = c](auto type) {
      using T = typename decltype(type)::type;
      tl::Tensor<T> x = c.template get<T>("x");
      if (args.count("expand")) {
        tl::Shape sizes;
        std::istringstream in(args.at("expand"));
        for (std::string s; std::getline(in, s, ',');) sizes.push_back(std::stoll(s));
        x = x.expand(sizes);
      }
      for (const auto& [layout, input] : layouts(x)) check(c, args, input, name + " (" + layout + ")");
    });
  }
  return cases;
}

}  // namespace

TEST_CASE("sort, argsort and msort match PyTorch, ties and NaN included") {
  const int n = run_cases("sort", [](const auto& c, const Args& a, const auto& x, const std::string& what) {
    check_vi(tl::sort(x, int_arg(a, "dim"), bool_arg(a, "descending"), bool_arg(a, "stable")), c, what);
    check_vi(x.sort(int_arg(a, "dim"), bool_arg(a, "descending"), bool_arg(a, "stable")), c, what + " method");
  });
  CHECK(n > 300);
  CHECK(run_cases("argsort", [](const auto& c, const Args& a, const auto& x, const std::string& what) {
          check_same(tl::argsort(x, int_arg(a, "dim"), bool_arg(a, "descending"), bool_arg(a, "stable")),
                     c.template get<int64_t>("indices"), what);
          check_same(x.argsort(int_arg(a, "dim"), bool_arg(a, "descending")), c.template get<int64_t>("indices"),
                     what + " method");
        }) > 40);
  CHECK(run_cases("msort", [](const auto& c, const Args&, const auto& x, const std::string& what) {
          using T = typename std::remove_cvref_t<decltype(x)>::value_type;
          check_same(tl::msort(x), c.template get<T>("values"), what);
        }) > 40);
}

TEST_CASE("topk matches PyTorch for both selection paths, ties and unsorted results") {
  CHECK(run_cases("topk", [](const auto& c, const Args& a, const auto& x, const std::string& what) {
          using T = typename std::remove_cvref_t<decltype(x)>::value_type;
          if constexpr (std::is_same_v<T, bool>) {
            FAIL("no bool topk fixtures expected");
          } else {
            const auto k = int_arg(a, "k"), dim = int_arg(a, "dim");
            check_vi(tl::topk(x, k, dim, bool_arg(a, "largest"), bool_arg(a, "sorted")), c, what);
            check_vi(x.topk(k, dim, bool_arg(a, "largest"), bool_arg(a, "sorted")), c, what + " method");
          }
        }) > 500);
}

TEST_CASE("kthvalue, median, nanmedian and mode match PyTorch, keepdim both ways") {
  auto no_bool = [](auto f) {
    return [f](const auto& c, const Args& a, const auto& x, const std::string& what) {
      using T = typename std::remove_cvref_t<decltype(x)>::value_type;
      if constexpr (std::is_same_v<T, bool>)
        FAIL("no bool fixtures expected for " << what);
      else
        f(c, a, x, what);
    };
  };
  CHECK(run_cases("kthvalue", no_bool([](const auto& c, const Args& a, const auto& x, const std::string& what) {
                    check_vi(tl::kthvalue(x, int_arg(a, "k"), int_arg(a, "dim"), bool_arg(a, "keepdim")), c, what);
                  })) > 400);
  CHECK(run_cases("median_dim", no_bool([](const auto& c, const Args& a, const auto& x, const std::string& what) {
                    check_vi(tl::median(x, int_arg(a, "dim"), bool_arg(a, "keepdim")), c, what);
                  })) > 200);
  CHECK(run_cases("nanmedian_dim", no_bool([](const auto& c, const Args& a, const auto& x, const std::string& what) {
                    check_vi(tl::nanmedian(x, int_arg(a, "dim"), bool_arg(a, "keepdim")), c, what);
                  })) > 100);
  CHECK(run_cases("median", no_bool([](const auto& c, const Args&, const auto& x, const std::string& what) {
                    using T = typename std::remove_cvref_t<decltype(x)>::value_type;
                    check_same(tl::median(x), c.template get<T>("y"), what);
                  })) > 40);
  CHECK(run_cases("nanmedian", no_bool([](const auto& c, const Args&, const auto& x, const std::string& what) {
                    using T = typename std::remove_cvref_t<decltype(x)>::value_type;
                    check_same(tl::nanmedian(x), c.template get<T>("y"), what);
                  })) > 20);
  CHECK(run_cases("mode", [](const auto& c, const Args& a, const auto& x, const std::string& what) {
          check_vi(tl::mode(x, int_arg(a, "dim"), bool_arg(a, "keepdim")), c, what);
        }) > 200);
}

namespace {

/// Equal values, where a zero may have either sign (-0.0 and 0.0 tie).
template <class T>
void check_tied_values(const tl::Tensor<T>& actual, const tl::Tensor<T>& expected, const std::string& what) {
  if constexpr (std::is_floating_point_v<T>)
    check_same(tl::Tensor<T>(actual + T(0)), tl::Tensor<T>(expected + T(0)), what);  // -0 + 0 = +0
  else
    check_same(actual, expected, what);
}

/// x's element at each of r's indices along dim equals r's value (NaN
/// matches NaN): the law a tied index must satisfy where PyTorch's choice
/// is not reproduced.
template <class T>
void check_indices_hold_values(const tl::ValuesIndices<T>& r, const tl::Tensor<T>& x, int64_t dim, bool keepdim,
                               const std::string& what) {
  if (x.dim() == 0) {
    CHECK_MESSAGE(r.indices.item() == 0, what);
    return;
  }
  const int64_t d = tl::wrap_dim(dim, x.dim(), "test");
  const auto idx = keepdim ? r.indices : r.indices.unsqueeze(d);
  const auto picked = tl::gather(x.contiguous(), d, idx);
  check_same(keepdim ? picked : picked.squeeze(d), r.values, what + " (x at the indices)");
}

}  // namespace

TEST_CASE("the GPU's order statistics (a stable sort and one position per slice), run on the CPU, match PyTorch") {
  // Note [order statistics from a sort]: values always, median and
  // nanmedian indices too; tied kthvalue and mode indices by the law above.
  auto no_bool = [](auto f) {
    return [f](const auto& c, const Args& a, const auto& x, const std::string& what) {
      using T = typename std::remove_cvref_t<decltype(x)>::value_type;
      if constexpr (!std::is_same_v<T, bool>) f(c, a, x, what);
    };
  };
  CHECK(run_cases("kthvalue", no_bool([](const auto& c, const Args& a, const auto& x, const std::string& what) {
                    using T = typename std::remove_cvref_t<decltype(x)>::value_type;
                    const int64_t dim = int_arg(a, "dim");
                    const bool keepdim = bool_arg(a, "keepdim");
                    const auto r = tl::detail::kthvalue_sorted(x, int_arg(a, "k"), dim, keepdim);
                    check_tied_values(r.values, c.template get<T>("values"), what + " values");
                    check_indices_hold_values(r, x, dim, keepdim, what);
                  })) > 400);
  CHECK(run_cases("median_dim", no_bool([](const auto& c, const Args& a, const auto& x, const std::string& what) {
                    check_vi(tl::detail::median_sorted(x, int_arg(a, "dim"), bool_arg(a, "keepdim"), false, "median"),
                             c, what);
                  })) > 200);
  CHECK(run_cases("nanmedian_dim", no_bool([](const auto& c, const Args& a, const auto& x, const std::string& what) {
                    using T = typename std::remove_cvref_t<decltype(x)>::value_type;
                    auto r = tl::detail::median_sorted(x, int_arg(a, "dim"), bool_arg(a, "keepdim"), true, "nanmedian");
                    auto expected = c.template get<int64_t>("indices");
                    check_same(r.values, c.template get<T>("values"), what + " values");
                    if constexpr (std::is_floating_point_v<T>) {
                      // An all-NaN slice: the first NaN here, PyTorch CPU's nth_element's choice there.
                      check_indices_hold_values(r, x, int_arg(a, "dim"), bool_arg(a, "keepdim"), what);
                      expected = tl::where(tl::isnan(r.values), 0, expected);
                      r.indices = tl::where(tl::isnan(r.values), 0, r.indices);
                    }
                    check_same(r.indices, expected, what + " indices");
                  })) > 100);
  CHECK(run_cases("median", no_bool([](const auto& c, const Args&, const auto& x, const std::string& what) {
                    using T = typename std::remove_cvref_t<decltype(x)>::value_type;
                    if (x.numel() == 0) return;  // handled before the sort
                    check_same(tl::detail::median_sorted(x.reshape({-1}), 0, false, false, "median").values.reshape({}),
                               c.template get<T>("y"), what);
                  })) > 40);
  CHECK(run_cases("mode", [](const auto& c, const Args& a, const auto& x, const std::string& what) {
          using T = typename std::remove_cvref_t<decltype(x)>::value_type;
          const int64_t dim = int_arg(a, "dim");
          const bool keepdim = bool_arg(a, "keepdim");
          const auto r = tl::detail::mode_sorted(x, dim, keepdim);
          check_tied_values(r.values, c.template get<T>("values"), what + " values");
          check_indices_hold_values(r, x, dim, keepdim, what);
        }) > 200);
}

TEST_CASE("unique and unique_consecutive match PyTorch, with and without dim") {
  CHECK(run_cases("unique", [](const auto& c, const Args&, const auto& x, const std::string& what) {
          check_unique(tl::unique(x, true, true, true), c, what);
        }) > 30);
  CHECK(run_cases("unique_consecutive", [](const auto& c, const Args&, const auto& x, const std::string& what) {
          check_unique(tl::unique_consecutive(x, true, true), c, what);
        }) > 30);
  CHECK(run_cases("unique_dim", [](const auto& c, const Args& a, const auto& x, const std::string& what) {
          check_unique(tl::unique(x, true, true, true, int_arg(a, "dim")), c, what);
        }) > 50);
  CHECK(run_cases("unique_consecutive_dim", [](const auto& c, const Args& a, const auto& x, const std::string& what) {
          check_unique(tl::unique_consecutive(x, true, true, int_arg(a, "dim")), c, what);
        }) > 50);
  // The GPU's path for slices (one stable sort per column), run on the CPU.
  CHECK(run_cases("unique_dim", [](const auto& c, const Args& a, const auto& x, const std::string& what) {
          if (x.numel() == 0) return;  // handled before the sorts
          const int64_t dim = tl::wrap_dim(int_arg(a, "dim"), x.dim(), "test");
          check_unique(tl::detail::unique_slices_by_sorts(x, dim, false, true, true), c, what + " by sorts");
        }) > 50);
  CHECK(run_cases("unique_consecutive_dim", [](const auto& c, const Args& a, const auto& x, const std::string& what) {
          if (x.numel() == 0) return;
          const int64_t dim = tl::wrap_dim(int_arg(a, "dim"), x.dim(), "test");
          check_unique(tl::detail::unique_slices_by_sorts(x, dim, true, true, true), c, what + " by sorts");
        }) > 50);
}

TEST_CASE("bincount and histc match PyTorch") {
  CHECK(run_cases("bincount", [](const auto& c, const Args& a, const auto& x, const std::string& what) {
          using T = typename std::remove_cvref_t<decltype(x)>::value_type;
          if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>)
            check_same(tl::bincount(x, int_arg(a, "minlength")), c.template get<int64_t>("y"), what);
          else
            FAIL("bincount fixture with a non-integer input: " << what);
        }) > 10);
  CHECK(run_cases("bincount_weights", [](const auto& c, const Args& a, const auto& x, const std::string& what) {
          using T = typename std::remove_cvref_t<decltype(x)>::value_type;
          if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
            const auto& wd = c.tensor("w").dtype;
            if (wd == "float32") {
              check_same(tl::bincount(x, c.template get<float>("w"), int_arg(a, "minlength")),
                         c.template get<float>("y"), what);
            } else if (wd == "float64") {
              check_same(tl::bincount(x, c.template get<double>("w"), int_arg(a, "minlength")),
                         c.template get<double>("y"), what);
            } else {
              check_same(tl::bincount(x, c.template get<int64_t>("w"), int_arg(a, "minlength")),
                         c.template get<double>("y"), what);
            }
          } else {
            FAIL("bincount fixture with a non-integer input: " << what);
          }
        }) > 8);
  CHECK(run_cases("histc", [](const auto& c, const Args& a, const auto& x, const std::string& what) {
          using T = typename std::remove_cvref_t<decltype(x)>::value_type;
          if constexpr (std::is_floating_point_v<T>)
            check_same(tl::histc(x, int_arg(a, "bins"), std::stod(a.at("min")), std::stod(a.at("max"))),
                       c.template get<T>("y"), what);
          else
            FAIL("histc fixture with a non-floating input: " << what);
        }) > 20);
}

TEST_CASE("searchsorted and bucketize match PyTorch, with sorter and N-d boundaries") {
  CHECK(run_cases("searchsorted", [](const auto& c, const Args& a, const auto& x, const std::string& what) {
          using T = typename std::remove_cvref_t<decltype(x)>::value_type;
          if constexpr (std::is_same_v<T, bool>) {
            FAIL("no bool searchsorted fixtures expected");
          } else {
            for (const auto& [layout, b] : layouts(c.template get<T>("b"))) {
              const auto expected = c.template get<int64_t>("y");
              const std::string w = what + " boundaries " + layout;
              if (a.count("side")) {
                const auto sorter = c.template get<int64_t>("sorter");
                check_same(tl::searchsorted(b, x, false, a.at("side"), sorter), expected, w);
                check_same(tl::searchsorted(b, x, a.at("side") == "right", std::nullopt, sorter), expected, w);
              } else {
                check_same(tl::searchsorted(b, x, bool_arg(a, "right")), expected, w);
                check_same(tl::searchsorted(b, x, false, bool_arg(a, "right") ? "right" : "left"), expected, w);
                check_same(tl::searchsorted<int32_t>(b, x, bool_arg(a, "right")), expected.template to<int32_t>(),
                           w + " int32");
              }
            }
          }
        }) > 30);
  CHECK(run_cases("bucketize", [](const auto& c, const Args& a, const auto& x, const std::string& what) {
          using T = typename std::remove_cvref_t<decltype(x)>::value_type;
          if constexpr (std::is_same_v<T, bool>)
            FAIL("no bool bucketize fixtures expected");
          else
            check_same(tl::bucketize(x, c.template get<T>("b"), bool_arg(a, "right")), c.template get<int64_t>("y"),
                       what);
        }) > 10);
}

TEST_CASE("results: structured bindings, expressions as inputs, shapes of 0-d and empty inputs") {
  const auto x = tl::tensor({3.f, 1.f, 2.f});
  auto [values, indices] = tl::sort(x * 2.f, 0, true);
  check_same(values, tl::tensor({6.f, 4.f, 2.f}), "sort of an expression");
  check_same(indices, tl::tensor<int64_t>({0, 2, 1}), "sort of an expression");
  check_same(tl::topk(x + 1.f, 1).values, tl::tensor({4.f}), "topk of an expression");
  check_same(tl::median(x - 1.f), tl::full<float>({}, 1.f), "median of an expression");
  check_same(tl::argsort(-x), tl::tensor<int64_t>({0, 2, 1}), "argsort of an expression");

  const auto s = tl::full<float>({}, 5.f);
  for (int64_t dim : {0, -1}) {
    const auto [v, i] = tl::sort(s, dim);
    CHECK(v.dim() == 0);
    CHECK(i.item() == 0);
    CHECK(tl::topk(s, 1, dim).values.item() == 5.f);
    CHECK(tl::kthvalue(s, 1, dim, true).values.dim() == 0);
    CHECK(tl::median(s, dim).indices.dim() == 0);
    CHECK(tl::mode(s, dim, true).values.item() == 5.f);
  }
  CHECK(tl::msort(s).item() == 5.f);
  const auto u = tl::unique(s, true, true, true);
  CHECK(u.output.sizes() == tl::Shape{1});
  CHECK(u.inverse_indices.dim() == 0);

  const auto plain = tl::unique(tl::tensor({2, 1, 2}));
  check_same(plain.output, tl::tensor<int64_t>({1, 2}), "unique without inverse or counts");
  CHECK_FALSE(plain.inverse_indices.defined());
  CHECK_FALSE(plain.counts.defined());
  const auto [out, inverse, counts] = tl::unique(tl::tensor({2, 1, 2}), false, false, true);
  check_same(counts, tl::tensor<int64_t>({1, 2}), "unique counts only");
  CHECK_FALSE(inverse.defined());

  check_same(tl::searchsorted(tl::tensor({1.f, 2.f, 3.f}), 2.f), tl::full<int64_t>({}, 1), "scalar searchsorted");
  check_same(tl::searchsorted(tl::tensor({1.f, 2.f, 3.f}), 2.f, true), tl::full<int64_t>({}, 2), "scalar, right");
  check_same(tl::bucketize<int32_t>(2.f, tl::tensor({1.f, 2.f, 3.f})), tl::full<int32_t>({}, 1), "scalar bucketize");
  const float nan = std::numeric_limits<float>::quiet_NaN();
  // Differences from PyTorch 1.13 that are bugs there (see the headers).
  const auto m = tl::mode(tl::tensor({nan, 1.f, nan, 2.f, 3.f, 1.f}));
  CHECK(m.values.item() == 1.f);
  CHECK(m.indices.item() == 5);
  CHECK(std::isnan(tl::mode(tl::tensor({nan, nan})).values.item()));
  check_same(tl::histc(tl::tensor({nan, 0.5f, nan}), 2, 0, 1), tl::tensor({0.f, 1.f}), "histc ignores NaN");
  const auto un = tl::unique(tl::tensor({1.f, nan, nan, 2.f}), true, true, true);
  CHECK(un.output.sizes() == tl::Shape{4});
  CHECK(std::isnan(un.output.to_vector()[2]));
  CHECK(std::isnan(un.output.to_vector()[3]));
  check_same(un.inverse_indices, tl::tensor<int64_t>({0, 2, 3, 1}), "unique inverse with NaN");
  check_same(un.counts, tl::tensor<int64_t>({1, 1, 1, 1}), "unique counts with NaN");
  const auto top0 = tl::topk(s, 0);
  CHECK(top0.values.dim() == 0);
  CHECK(top0.values.item() == 5.f);
  const auto median_empty = tl::median(tl::zeros<double>({0}));
  CHECK(median_empty.dim() == 0);
  CHECK(std::isnan(median_empty.item()));
}

TEST_CASE("sorting a long row is n log n and agrees with std::stable_sort") {
  const int64_t n = 300000;
  auto x = tl::empty<double>({n});
  for (int64_t k = 0; k < n; ++k) x.data_ptr()[k] = static_cast<double>(k * 7919 % 1000);
  const auto [v, i] = tl::sort(x, -1, false, true);
  const std::vector<double> xs = x.to_vector(), vs = v.to_vector();
  const std::vector<int64_t> is = i.to_vector();
  std::vector<int64_t> expected(static_cast<std::size_t>(n));
  for (int64_t k = 0; k < n; ++k) expected[static_cast<std::size_t>(k)] = k;
  std::stable_sort(expected.begin(), expected.end(), [&xs](int64_t a, int64_t b) {
    return xs[static_cast<std::size_t>(a)] < xs[static_cast<std::size_t>(b)];
  });
  CHECK(is == expected);
  CHECK(std::is_sorted(vs.begin(), vs.end()));
  CHECK(tl::topk(x, 5).values.to_vector() == std::vector<double>{999, 999, 999, 999, 999});
}

TEST_CASE("dimension errors name the op and the valid range") {
  const auto x = tl::zeros<float>({3, 4});
  const std::string range = ": dimension out of range (expected to be in range of [-2, 1], but got 2)";
  CHECK_THROWS_WITH_AS(tl::sort(x, 2), ("sort" + range).c_str(), tl::IndexError);
  CHECK_THROWS_WITH_AS(tl::argsort(x, 2), ("argsort" + range).c_str(), tl::IndexError);
  CHECK_THROWS_WITH_AS(tl::topk(x, 1, 2), ("topk" + range).c_str(), tl::IndexError);
  CHECK_THROWS_WITH_AS(tl::kthvalue(x, 1, -3),
                       "kthvalue: dimension out of range (expected to be in range of [-2, 1], "
                       "but got -3)",
                       tl::IndexError);
  CHECK_THROWS_WITH_AS(tl::median(x, 2), ("median" + range).c_str(), tl::IndexError);
  CHECK_THROWS_WITH_AS(tl::nanmedian(x, 2), ("nanmedian" + range).c_str(), tl::IndexError);
  CHECK_THROWS_WITH_AS(tl::mode(x, 2), ("mode" + range).c_str(), tl::IndexError);
  CHECK_THROWS_WITH_AS(tl::unique(x, true, false, false, 2), ("unique" + range).c_str(), tl::IndexError);
  CHECK_THROWS_WITH_AS(tl::unique_consecutive(x, false, false, 2), ("unique_consecutive" + range).c_str(),
                       tl::IndexError);
}

TEST_CASE("k, empty-dimension and unique errors follow PyTorch's wording") {
  const auto x = tl::zeros<float>({3, 4});
  CHECK_THROWS_WITH_AS(tl::topk(x, 5), doctest::Contains("topk: selected index k out of range"), tl::IndexError);
  CHECK_THROWS_WITH_AS(tl::topk(x, -1), doctest::Contains("topk: selected index k out of range"), tl::IndexError);
  CHECK_THROWS_WITH_AS(tl::topk(x, 4, 0),
                       "topk: selected index k out of range (expected k in [0, 3] for dimension 0 "
                       "of size 3, but got k = 4)",
                       tl::IndexError);
  CHECK_THROWS_WITH_AS(tl::kthvalue(x, 0),
                       doctest::Contains("kthvalue: selected number k out of range for dimension 1"), tl::IndexError);
  CHECK_THROWS_WITH_AS(tl::kthvalue(x, 5),
                       "kthvalue: selected number k out of range for dimension 1 (expected k in "
                       "[1, 4], but got k = 5)",
                       tl::IndexError);
  const auto e = tl::zeros<float>({0, 3});
  CHECK_THROWS_WITH_AS(tl::kthvalue(e, 1, 0), "kthvalue: Expected reduction dim 0 to have non-zero size.",
                       tl::IndexError);
  CHECK_THROWS_WITH_AS(tl::median(e, -2), "median: Expected reduction dim 0 to have non-zero size.", tl::IndexError);
  CHECK_THROWS_WITH_AS(tl::nanmedian(e, 0), "nanmedian: Expected reduction dim 0 to have non-zero size.",
                       tl::IndexError);
  CHECK_THROWS_WITH_AS(tl::mode(e, 0), "mode: Expected reduction dim 0 to have non-zero size.", tl::IndexError);
  CHECK_THROWS_WITH_AS(tl::median(tl::zeros<int64_t>({0})),
                       doctest::Contains("median: cannot take the median of an "
                                         "empty int64 tensor"),
                       tl::ValueError);
  CHECK_THROWS_WITH_AS(tl::unique(tl::zeros<float>({2, 0}), true, false, false, 0),
                       "unique: There are 0 sized dimensions, and they aren't selected, so unique cannot be applied",
                       tl::ValueError);
  CHECK_THROWS_WITH_AS(tl::unique_consecutive(tl::zeros<float>({0, 0}), false, false, 1),
                       "unique_consecutive: Number of zero sized dimensions is more than one, so unique cannot be "
                       "applied",
                       tl::ValueError);
  CHECK_THROWS_WITH_AS(tl::unique(tl::full<float>({}, 1.f), true, false, false, 0),
                       "unique: Dimension specified as 0 but tensor has no dimensions", tl::IndexError);
}

TEST_CASE("bincount and histc reject bad arguments") {
  CHECK_THROWS_WITH_AS(tl::bincount(tl::tensor({1, -1})),
                       "bincount: only supports 1-d non-negative integral inputs, but got a tensor of shape [2] with "
                       "negative values",
                       tl::ValueError);
  CHECK_THROWS_WITH_AS(tl::bincount(tl::tensor({{1, 2}})),
                       "bincount: only supports 1-d non-negative integral inputs, but got a tensor of shape [1, 2]",
                       tl::ValueError);
  CHECK_THROWS_WITH_AS(tl::bincount(tl::tensor({1}), -1), "bincount: minlength should be >= 0, but got -1",
                       tl::ValueError);
  CHECK_THROWS_WITH_AS(tl::bincount(tl::tensor({1, 2}), tl::tensor({1.f})),
                       "bincount: weights should be 1-d and have the same length as input, but got weights of shape "
                       "[1] for input of shape [2]",
                       tl::ShapeError);
  // An empty input gives minlength zeros before the weights are looked at,
  // as in PyTorch (whose result is int64 there).
  const auto none = tl::bincount(tl::zeros<int64_t>({0}), tl::tensor({1.f, 2.f}), 3);
  CHECK(none.to_vector() == std::vector<float>{0, 0, 0});
  const auto x = tl::tensor({1.f, 2.f});
  CHECK_THROWS_WITH_AS(tl::histc(x, 0), "histc: bins must be > 0, but got 0", tl::ValueError);
  CHECK_THROWS_WITH_AS(tl::histc(x, 3, 2, 1), "histc: max must be larger than min, but got min 2 and max 1",
                       tl::ValueError);
  CHECK_THROWS_WITH_AS(tl::histc(x, 3, -INFINITY, 1), "histc: range of [-inf, 1] is not finite", tl::ValueError);
  CHECK_THROWS_WITH_AS(tl::histc(tl::tensor({1.f, NAN})), doctest::Contains("is not finite"), tl::ValueError);
  CHECK_THROWS_WITH_AS(tl::histc(tl::tensor({1.f, INFINITY})), "histc: range of [1, inf] is not finite",
                       tl::ValueError);
  // Finite in double but not in float: the edges would be +-inf and every
  // element would land in bin 0.
  CHECK_THROWS_WITH_AS(tl::histc(x, 4, -1e300, 1e300), doctest::Contains("without overflow"), tl::ValueError);
  CHECK_THROWS_WITH_AS(tl::histc(x, 4, 0, 1e39), doctest::Contains("without overflow"), tl::ValueError);
  CHECK(tl::histc(tl::tensor<double>({1.0, 2.0}), 2, -1e300, 1e300).to_vector() == std::vector<double>{0, 2});
  // max + 1 bins must fit in int64.
  CHECK_THROWS_WITH_AS(tl::bincount(tl::tensor({std::numeric_limits<int64_t>::max()})),
                       "bincount: the input's maximum 9223372036854775807 leaves no room for 9223372036854775807 + 1 "
                       "bins",
                       tl::ValueError);
  CHECK_THROWS_AS(tl::bincount(tl::tensor({std::numeric_limits<int64_t>::max()}), tl::tensor({1.f})), tl::ValueError);
}

TEST_CASE("searchsorted and bucketize reject bad arguments") {
  const auto b = tl::tensor({1.f, 2.f, 3.f});
  const auto v = tl::zeros<float>({3, 1});
  CHECK_THROWS_WITH_AS(tl::searchsorted(tl::zeros<float>({2, 3}), v),
                       "searchsorted: boundaries tensor should be 1 dimension or the first N-1 dimensions of "
                       "boundaries tensor and input value tensor must match, but we got boundaries tensor [2, 3] and "
                       "input value tensor [3, 1]",
                       tl::ShapeError);
  CHECK_THROWS_WITH_AS(tl::searchsorted(b, v, true, "left"),
                       "searchsorted: side and right can't be set to opposites, got side of left while right was True",
                       tl::ValueError);
  CHECK_THROWS_WITH_AS(tl::searchsorted(b, v, false, "up"),
                       "searchsorted: side can only be 'left' or 'right' but got up", tl::ValueError);
  CHECK_THROWS_WITH_AS(tl::searchsorted(b, v, false, std::nullopt, tl::tensor<int64_t>({0, 1})),
                       "searchsorted: boundary and sorter must have the same size, but got boundary tensor [3] and "
                       "got sorter tensor [2]",
                       tl::ShapeError);
  CHECK_THROWS_WITH_AS(tl::searchsorted(b, v, false, std::nullopt, tl::tensor<int64_t>({0, 1, 5})),
                       "searchsorted: sorter index 5 is out of range for boundaries of size 3 in the last dimension",
                       tl::IndexError);
  CHECK_THROWS_WITH_AS(tl::searchsorted(b, v, false, std::nullopt, tl::tensor<int64_t>({0, -1, 2})),
                       doctest::Contains("sorter index -1 is out of range"), tl::IndexError);
  CHECK_THROWS_WITH_AS(tl::searchsorted(tl::full<float>({}, 1.f), v),
                       "searchsorted: boundaries tensor should have positive dimension, but got 0 dimension",
                       tl::ShapeError);
  CHECK_THROWS_WITH_AS(tl::searchsorted(tl::zeros<float>({2, 3}), 1.f),
                       "searchsorted: input value can be a scalar only when boundaries tensor dimension is 1, but we "
                       "got boundaries tensor dim(2) and input value's dim(0) numel(1)",
                       tl::ShapeError);
  CHECK_THROWS_WITH_AS(tl::bucketize(v, tl::zeros<float>({2, 3})),
                       "bucketize: boundaries tensor must be 1 dimension, but got dim(2)", tl::ShapeError);
  CHECK_THROWS_WITH_AS(tl::bucketize(1.f, tl::full<float>({}, 1.f)),
                       "bucketize: boundaries tensor must be 1 dimension, but got dim(0)", tl::ShapeError);
}

TEST_CASE("quantile and nanquantile match PyTorch: every interpolation, q scalar or vector, dims, keepdim, NaNs") {
  const auto& f = fixtures::load("surface.txt");
  int checked = 0;
  for (const char* method : {"linear", "lower", "higher", "midpoint", "nearest"})
    for (const bool nan_aware : {false, true})
      for (const char* dim : {"none", "0", "1", "-1"})
        for (const bool keepdim : {false, true}) {
          const std::string op = nan_aware ? "nanquantile" : "quantile";
          const std::string key = op + "/" + method + "/" + dim + "/" + (keepdim ? "1" : "0");
          INFO(key);
          const auto& c = f[key];
          const auto x = c.get<float>("x"), q = c.get<float>("q");
          const std::optional<int64_t> d =
              std::string(dim) == "none" ? std::nullopt : std::optional<int64_t>(std::stoll(dim));
          const auto y = nan_aware ? tl::nanquantile(x, q, d, keepdim, method) : tl::quantile(x, q, d, keepdim, method);
          fixtures::check_close(y, c.get<float>("y"), 1e-6, 1e-6, "vector q");
          const auto ys =
              nan_aware ? tl::nanquantile(x, 0.37, d, keepdim, method) : tl::quantile(x, 0.37, d, keepdim, method);
          fixtures::check_close(ys, c.get<float>("y_scalar"), 1e-6, 1e-6, "scalar q");
          ++checked;
        }
  CHECK(checked == 80);
  const auto& c = f["quantile/double"];
  fixtures::check_close(tl::quantile(c.get<double>("x"), c.get<double>("q"), 1), c.get<double>("y"), 1e-15, 1e-15,
                        "double");
  // A 0-d q gives a scalar; a 0-d input is its own quantile.
  CHECK(tl::quantile(tl::arange<float>(0, 4), tl::scalar_tensor(0.5f)).item() == 1.5f);
  CHECK(tl::quantile(tl::scalar_tensor(3.0f), 0.3, 0, true).dim() == 0);
}

TEST_CASE("quantile's errors use PyTorch's wording") {
  const auto x = tl::arange<float>(0, 4);
  CHECK_THROWS_WITH_AS(tl::quantile(x, 1.5), "quantile() q must be in the range [0, 1] but got 1.5", tl::ValueError);
  CHECK_THROWS_WITH_AS(tl::nanquantile(x, tl::tensor<float>({0.5f, -0.1f})),
                       "quantile() q values must be in the range [0, 1]", tl::ValueError);
  CHECK_THROWS_WITH_AS(tl::quantile(x, tl::zeros<float>({1, 1})), "quantile() q must be a scalar or 1D tensor",
                       tl::ShapeError);
  CHECK_THROWS_WITH_AS(tl::quantile(x, 0.5, std::nullopt, false, "cubic"),
                       "quantile() interpolation must be one of linear, lower, higher, midpoint or nearest, but got "
                       "cubic",
                       tl::ValueError);
  CHECK_THROWS_WITH_AS(tl::quantile(tl::zeros<float>({2, 0}), 0.5, 1), "quantile() input tensor must be non-empty",
                       tl::ValueError);
  CHECK_THROWS_AS(tl::quantile(x, 0.5, 1), tl::IndexError);
}

TEST_CASE("order statistics, histograms and unique as methods equal the free functions") {
  const auto x = tl::tensor<float>({{3.f, 1.f, 2.f, 1.f}, {0.5f, NAN, 4.f, 4.f}});
  CHECK(std::isnan(x.median().item()));  // NaN propagates, as in tl::median
  CHECK(x.median(1).values.to_vector().size() == 2);
  CHECK(x.median(1).indices.to_vector() == tl::median(x, 1).indices.to_vector());
  CHECK(x.nanmedian().item() == tl::nanmedian(x).item());
  CHECK(x.nanmedian(1, true).values.sizes() == tl::Shape{2, 1});
  CHECK(x.kthvalue(2).indices.to_vector() == tl::kthvalue(x, 2).indices.to_vector());
  CHECK(x.mode(1).values.to_vector() == tl::mode(x, 1).values.to_vector());
  const auto row = x.select(0, 0);
  CHECK(row.quantile(0.25).item() == tl::quantile(row, 0.25).item());
  CHECK(x.nanquantile(0.5, 1).to_vector() == tl::nanquantile(x, 0.5, 1).to_vector());
  CHECK((row * 2.f).median().item() == 2.f);  // the lower of the two middle values, as PyTorch
  CHECK(row.histc(4, 0, 4).to_vector() == tl::histc(row, 4, 0, 4).to_vector());
  const auto ints = tl::tensor<int64_t>({3, 1, 1, 0});
  CHECK(ints.bincount(5).to_vector() == std::vector<int64_t>{1, 2, 0, 1, 0});
  CHECK(ints.unique().output.to_vector() == std::vector<int64_t>{0, 1, 3});
  CHECK(ints.unique(true, true).inverse_indices.to_vector() == std::vector<int64_t>{2, 1, 1, 0});
}

TEST_CASE("isin against PyTorch: integers, floats with NaN, signed zeros and infinities, scalars, invert") {
  const auto& f = fixtures::load("composite_ops.txt");
  const auto& i = f["isin/int64"];
  CHECK(tl::isin(i.get<int64_t>("elements"), i.get<int64_t>("test")).to_vector() == i.get<bool>("r").to_vector());
  CHECK(tl::isin(i.get<int64_t>("elements"), i.get<int64_t>("test"), false, true).to_vector() ==
        i.get<bool>("inverted").to_vector());
  const auto& fl = f["isin/float"];
  CHECK(tl::isin(fl.get<float>("elements"), fl.get<float>("test")).to_vector() == fl.get<bool>("r").to_vector());
  // Promotion: the int elements against double test values compare as double.
  CHECK(tl::isin(tl::tensor<int64_t>({1, 2, 3}), tl::tensor<double>({2.5, 3.0})).to_vector() ==
        std::vector<bool>{false, false, true});
  CHECK(tl::isin(tl::tensor<int64_t>({1, 2}), 2).to_vector() == std::vector<bool>{false, true});
  CHECK(tl::isin(tl::tensor<int64_t>({1, 2}), 2.5).to_vector() == std::vector<bool>{false, false});
  CHECK(tl::isin(2, tl::tensor<int64_t>({1, 2})).item());
  CHECK_FALSE(tl::isin(2, tl::tensor<int64_t>({1, 2}), false, true).item());
  CHECK(tl::isin(tl::tensor<float>({1.f}), tl::empty<float>({0})).to_vector() == std::vector<bool>{false});
  CHECK(tl::isin(tl::tensor<float>({1.f}), tl::empty<float>({0}), false, true).to_vector() == std::vector<bool>{true});
  // Every element against a larger random set: the same answer as a scan.
  tl::Generator gen(3);
  const tl::Tensor<int64_t> e = tl::randint(0, 50, {200}, gen), t = tl::randint(0, 50, {37}, gen);
  const auto got = tl::isin(e, t).to_vector();
  const auto ev = e.to_vector(), tv = t.to_vector();
  for (std::size_t k = 0; k < ev.size(); ++k) CHECK(got[k] == (std::find(tv.begin(), tv.end(), ev[k]) != tv.end()));
}

TEST_CASE("histogram against PyTorch: equal bins, a range, given edges, weights, density; NaN left out") {
  const auto& c = fixtures::load("composite_ops.txt")["histogram"];
  const auto x = c.get<double>("x"), w = c.get<double>("w"), edges = c.get<double>("edges");
  const auto check = [&](const tl::Histogram<double>& h, const std::string& name) {
    fixtures::check_close(h.hist, c.get<double>(name + "_hist"), 1e-12, 1e-12, name);
    fixtures::check_close(h.bin_edges, c.get<double>(name + "_edges"), 1e-15, 1e-15, name + " edges");
  };
  const auto h7 = tl::histogram(x.to<float>(), 7);
  fixtures::check_close(h7.hist, c.get<float>("bins7_float_hist"), 0, 0, "bins7 float");
  fixtures::check_close(h7.bin_edges, c.get<float>("bins7_float_edges"), 1e-6, 1e-6, "bins7 float edges");
  // Over the data's own range every element is counted, the maximum in the
  // last bin (PyTorch 1.13 drops it in double: its count is 199 here).
  CHECK(tl::histogram(x, 7).hist.sum().item() == 200.0);
  check(tl::histogram(x, 5, std::pair{-1.0, 1.5}), "range");
  check(tl::histogram(x, edges), "edges");
  check(tl::histogram(x, 6, std::pair{-2.0, 2.0}, w, true), "weighted_density");
  check(tl::histogram(x, edges, w), "edges_weighted");
  check(tl::histogram(x, edges, std::nullopt, true), "edges_density");
  check(tl::histogram(tl::full<double>({5}, 2.0), 4), "constant");
  const auto& f = fixtures::load("composite_ops.txt")["histogram/float"];
  const auto hf = tl::histogram(f.get<float>("x"), 3);
  fixtures::check_close(hf.hist, f.get<float>("hist"), 0, 0, "float");
  fixtures::check_close(hf.bin_edges, f.get<float>("edges"), 1e-7, 1e-7, "float edges");
  // NaN and the elements outside the range are in no bin (PyTorch 1.13 puts a
  // NaN in some bin through an undefined conversion); the last edge is in the last.
  const auto with_nan = tl::tensor<float>({1.f, std::nanf(""), 4.f, 9.f, 0.f});
  CHECK(tl::histogram(with_nan, 2, std::pair{0.0, 4.0}).hist.to_vector() == std::vector<float>{2, 1});
  CHECK(tl::histogram(tl::empty<float>({0}), 2).bin_edges.to_vector() == std::vector<float>{0, 0.5f, 1});
  CHECK(fixtures::error_message([&] { (void)tl::histogram(with_nan, 2); }) ==
        "histogram: range of [nan, nan] is not finite");
  CHECK(fixtures::error_message([&] { (void)tl::histogram(x, 0); }) == "histogram: bins must be > 0, but got 0");
  CHECK(fixtures::error_message([&] {
          (void)tl::histogram(x, 2, std::pair{3.0, 1.0});
        }) == "histogram: min should not exceed max, but got min 3 max 1");
  CHECK(fixtures::error_message([&] {
          (void)tl::histogram(x, tl::tensor<double>({1.0, 0.0}));
        }) == "histogram: bin edges must increase monotonically, got tensor([1., 0.], dtype=tl.float64)");
  CHECK(fixtures::error_message([&] { (void)tl::histogram(x, 2, std::nullopt, tl::ones<double>({3})); }) ==
        "histogram: weight should have as many elements as input, but got input [200] and weight [3]");
  // The edges returned are the result's own; a weight of another shape but as many elements is accepted.
  const auto h = tl::histogram(x, edges);
  CHECK_FALSE(h.bin_edges.is_alias_of(edges));
  fixtures::check_close(tl::histogram(x, edges, w.reshape({10, 20})).hist, c.get<double>("edges_weighted_hist"), 1e-12,
                        1e-12, "a weight of another shape");
}
