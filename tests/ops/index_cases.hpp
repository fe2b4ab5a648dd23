// Shared by index_test.cpp and advanced_index_test.cpp: reading the cases of
// tests/fixtures/index.txt (made by tests/fixtures/generate_index.py) and
// re-laying tensors out so every op also sees non-contiguous inputs.
#pragma once

#include <doctest/doctest.h>

#include <cmath>
#include <map>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "fixtures.hpp"

namespace index_cases {

using fixtures::arg;
using fixtures::Args;
using fixtures::layouts;
using fixtures::parse_args;

inline int64_t int_arg(const Args& args, const std::string& key) { return std::stoll(arg(args, key)); }

template <class T>
T scalar_arg(const Args& args, const std::string& key) {
  if constexpr (std::is_floating_point_v<T>)
    return static_cast<T>(std::stod(arg(args, key)));
  else
    return static_cast<T>(std::stoll(arg(args, key)));
}

/// Same shape and elements; NaN matches NaN. `tol` is relative (accumulations in float).
template <class T>
void check_same(const tl::Tensor<T>& actual, const tl::Tensor<T>& expected, const std::string& what, double tol = 0) {
  REQUIRE_MESSAGE(actual.defined(), what << ": result is undefined");
  REQUIRE_MESSAGE(actual.sizes() == expected.sizes(),
                  what << ": shape " << actual.sizes() << ", expected " << expected.sizes());
  const auto a = actual.to_vector();
  const auto e = expected.to_vector();
  int failures = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    bool ok = a[i] == e[i];
    if constexpr (std::is_floating_point_v<T>)
      ok = ok || (std::isnan(a[i]) && std::isnan(e[i])) ||
           std::fabs(double(a[i]) - double(e[i])) <= tol * std::fabs(double(e[i]));
    if (!ok && failures++ < 3) FAIL_CHECK(what << ": element " << i << " is " << +a[i] << ", expected " << +e[i]);
  }
  CHECK_MESSAGE(failures == 0, what << ": " << failures << " of " << a.size() << " elements differ");
}

/// `x` as a non-contiguous tensor with the same values (itself when it has < 1 element or is 0-d).
template <class T>
tl::Tensor<T> non_contiguous(const tl::Tensor<T>& x) {
  if (x.dim() == 0 || x.numel() < 2) return x;
  return layouts(x).back().second;
}

/// Calls f(std::type_identity<T>{}) for the element type named in a fixture.
template <class F>
void with_dtype(const std::string& dtype, F&& f) {
  if (dtype == "float32") return f(std::type_identity<float>{});
  if (dtype == "float64") return f(std::type_identity<double>{});
  if (dtype == "int64") return f(std::type_identity<int64_t>{});
  if (dtype == "bool") return f(std::type_identity<bool>{});
  FAIL("unknown fixture dtype " << dtype);
}

/// Runs check(case, args, name) for each case of `op`; returns the number of cases.
template <class Check>
int run_cases(const std::string& op, Check&& check) {
  int cases = 0;
  for (const auto& [name, c] : fixtures::load("index.txt").cases()) {
    if (name.substr(0, name.rfind('/')) != op) continue;
    ++cases;
    check(c, parse_args(c.text("args")), name);
  }
  return cases;
}

}  // namespace index_cases
