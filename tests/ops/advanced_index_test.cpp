// Advanced indexing: x.index({...}) and x.index_put_({...}, v) with int64
// and bool tensors mixed with integers, slices, None and Ellipsis, and the
// list form index_put_(indices, values, accumulate), against PyTorch
// (tests/fixtures/index.txt, cases adv/, adv_put/, index_put/).

#include <doctest/doctest.h>

#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "index_cases.hpp"

namespace {

using namespace index_cases;

/// The index list a fixture spells in its `spec` text (format in generate_index.py).
std::vector<tl::TensorIndex> parse_spec(const fixtures::Case& c, bool strided_tensors) {
  std::vector<tl::TensorIndex> out;
  std::istringstream in(c.text("spec"));
  auto bound = [](const std::string& s) -> tl::SliceBound {
    if (s == "n") return tl::None;
    return std::stoll(s);
  };
  for (std::string tok; in >> tok;) {
    if (tok.rfind("i:", 0) == 0) {
      out.emplace_back(std::stoll(tok.substr(2)));
    } else if (tok.rfind("s:", 0) == 0) {
      std::istringstream parts(tok.substr(2));
      std::string a, b, s;
      std::getline(parts, a, ':');
      std::getline(parts, b, ':');
      std::getline(parts, s, ':');
      out.emplace_back(tl::Slice(bound(a), bound(b), bound(s)));
    } else if (tok == "none") {
      out.emplace_back(tl::None);
    } else if (tok == "ell") {
      out.emplace_back(tl::Ellipsis);
    } else if (tok.rfind("t:", 0) == 0) {
      const auto t = c.get<int64_t>(tok.substr(2));
      out.emplace_back(strided_tensors ? non_contiguous(t) : t);
    } else if (tok.rfind("m:", 0) == 0) {
      const auto m = c.get<bool>(tok.substr(2));
      out.emplace_back(strided_tensors ? non_contiguous(m) : m);
    } else {
      FAIL("bad spec token " << tok);
    }
  }
  return out;
}

}  // namespace

TEST_CASE("index({...}) with index tensors and masks matches PyTorch's advanced indexing") {
  const int n = run_cases("adv", [](const fixtures::Case& c, const Args&, const std::string& name) {
    with_dtype(c.tensor("x").dtype, [&](auto type) {
      using T = typename decltype(type)::type;
      const auto y = c.get<T>("y");
      for (bool strided : {false, true}) {
        const auto spec = parse_spec(c, strided);
        for (auto& [layout, x] : layouts(c.get<T>("x")))
          check_same(x.index(spec), y,
                     name + " [" + c.text("spec") + "] (" + layout + (strided ? ", strided" : "") + ")");
      }
    });
  });
  CHECK(n == 21);
}

TEST_CASE("index_put_({...}, values) with index tensors matches PyTorch's x[idx] = v") {
  const int n = run_cases("adv_put", [](const fixtures::Case& c, const Args&, const std::string& name) {
    const auto y = c.get<float>("y");
    const auto v = c.get<float>("v");
    for (bool strided : {false, true}) {
      const auto spec = parse_spec(c, strided);
      for (auto& [layout, x] : layouts(c.get<float>("x"))) {
        const std::string what = name + " [" + c.text("spec") + "] (" + layout + ")";
        x.index_put_(spec, strided ? non_contiguous(v) : v);
        check_same(x, y, what);
      }
    }
  });
  CHECK(n == 10);
}

TEST_CASE("index_put(indices, values, accumulate) matches PyTorch, repeated positions included") {
  const int n = run_cases("index_put", [](const fixtures::Case& c, const Args& a, const std::string& name) {
    with_dtype(c.tensor("x").dtype, [&](auto type) {
      using T = typename decltype(type)::type;
      const auto y = c.get<T>("y");
      const auto v = c.get<T>("v");
      const bool acc = int_arg(a, "accumulate") != 0;
      std::vector<std::optional<tl::Tensor<int64_t>>> list;
      std::istringstream in(arg(a, "list"));
      for (std::string k; std::getline(in, k, ',');) {
        if (k == "n")
          list.emplace_back(std::nullopt);
        else
          list.emplace_back(c.get<int64_t>(k));
      }
      for (auto& [layout, x] : layouts(c.get<T>("x"))) {
        const std::string what = name + " (" + layout + ")";
        check_same(tl::index_put(x, list, v, acc), y, what, 1e-12);
        x.index_put_(list, non_contiguous(v), acc);
        check_same(x, y, what + " in place", 1e-12);
      }
    });
  });
  CHECK(n == 8);
}

TEST_CASE("index with tensors: hand-checked placement rules and the braced forms") {
  const auto x = tl::arange<int64_t>(0, 24).reshape({2, 3, 4});
  // Adjacent advanced indices stay in place, separated ones go first.
  CHECK(x.index({tl::Slice(), tl::tensor({0, 2}), tl::tensor({1, 3})}).sizes() == tl::Shape{2, 2});
  CHECK(x.index({tl::tensor({0}), tl::Slice(), tl::tensor({1})}).sizes() == tl::Shape{1, 3});
  CHECK(x.index({0, tl::Slice(), tl::tensor({0, 1})}).sizes() == tl::Shape{3, 2});
  CHECK(x.index({tl::Ellipsis, tl::tensor({-1})}).to_vector() == std::vector<int64_t>{3, 7, 11, 15, 19, 23});
  // A mask expression is evaluated; selecting with it is masked_select.
  CHECK(x.index({x > int64_t(20)}).to_vector() == std::vector<int64_t>{21, 22, 23});
  // Without index tensors index() is still a view.
  CHECK(x.index({1, tl::Slice(1)}).is_alias_of(x));
  CHECK_FALSE(x.index({tl::tensor({1})}).is_alias_of(x));
  // The braced assigning form, scalar and tensor values.
  auto y = tl::zeros<float>({3, 4});
  y.index_put_({tl::tensor({0, 2}), tl::tensor({1, 3})}, 5);
  y.index_put_({tl::Slice(), tl::tensor({0})}, tl::tensor({{1.f}, {2.f}, {3.f}}));
  y.index_put_({y > 4.f}, 7.f);
  CHECK(y.to_vector() == std::vector<float>{1, 7, 0, 0, 2, 0, 0, 0, 3, 0, 0, 7});
}

TEST_CASE("advanced indexing errors name the index, dimension and size") {
  const auto x = tl::zeros<float>({2, 3});
  CHECK_THROWS_WITH_AS(x.index({tl::tensor({5})}),
                       doctest::Contains("index 5 is out of bounds for dimension 0 with size 2"), tl::IndexError);
  CHECK_THROWS_WITH_AS(x.index({tl::Slice(), tl::tensor({-4})}),
                       doctest::Contains("index -4 is out of bounds for dimension 1 with size 3"), tl::IndexError);
  CHECK_THROWS_WITH_AS(x.index({tl::ones<bool>({3})}),
                       doctest::Contains("The shape of the mask [3] at index 0 does not match"), tl::IndexError);
  CHECK_THROWS_WITH_AS(x.index({tl::tensor({0, 1}), tl::tensor({0, 1, 2})}), doctest::Contains("cannot broadcast"),
                       tl::ShapeError);
  CHECK_THROWS_WITH_AS(x.index({tl::tensor({0}), tl::tensor({0}), tl::tensor({0})}),
                       doctest::Contains("too many indices"), tl::IndexError);
  CHECK_THROWS_WITH_AS(x.index({tl::tensor({0}), tl::Ellipsis, tl::Ellipsis}), doctest::Contains("single ellipsis"),
                       tl::IndexError);
  auto y = x.clone();
  CHECK_THROWS_WITH_AS(
      tl::index_put_(y, {tl::tensor({0, 1})}, tl::ones<float>({4})),
      doctest::Contains("value tensor of shape [4] cannot be broadcast to indexing result of shape [2, 3]"),
      tl::ShapeError);
  CHECK_THROWS_WITH_AS(tl::index_put_(y, {tl::tensor({0}), tl::tensor({0}), tl::tensor({0})}, tl::ones<float>({1})),
                       doctest::Contains("too many indices"), tl::IndexError);
  auto e = tl::zeros<float>({3}).expand({2, 3});
  CHECK_THROWS_WITH_AS(tl::index_put_(e, {tl::tensor({0})}, tl::ones<float>({3})),
                       doctest::Contains("more than one element of the written-to tensor"), tl::ValueError);
  CHECK(y.to_vector() == std::vector<float>(6, 0.f));
}
