// detail::Tuple (core/tuple.hpp), the tuple of an expression node's
// children: construction order, get on every value category, apply, copies
// and moves member by member, the empty tuple.

#include <doctest/doctest.h>

#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <tensorlib/core/tuple.hpp>

namespace {

// Called qualified, as the library calls them: with std types among the
// elements, an unqualified apply(f, t) also finds std::apply by ADL.
namespace td = tensorlib::detail;
using td::get;
using td::Tuple;

}  // namespace

TEST_CASE("detail::Tuple: braces build the elements left to right, get reaches each by index") {
  std::vector<int> order;
  const auto next = [&](int v) {
    order.push_back(v);
    return v;
  };
  const Tuple<int, std::string, double> t{next(1), std::to_string(next(2)), double(next(3))};
  CHECK(order == std::vector<int>{1, 2, 3});
  CHECK(get<0>(t) == 1);
  CHECK(get<1>(t) == "2");
  CHECK(get<2>(t) == 3.0);
  static_assert(Tuple<int, std::string, double>::size == 3);
  static_assert(std::is_same_v<decltype(get<1>(t)), const std::string&>);
  Tuple<int, std::string> m{4, "four"};
  get<0>(m) = 5;
  CHECK(get<0>(m) == 5);
  static_assert(std::is_same_v<decltype(get<1>(std::move(m))), std::string&&>);
  const std::string taken = get<1>(std::move(m));
  CHECK(taken == "four");
}

TEST_CASE("detail::Tuple: apply passes the elements in order; copies and moves go member by member") {
  Tuple a{1, std::string("x"), 2.5};  // deduced: Tuple<int, std::string, double>
  static_assert(std::is_same_v<decltype(a), Tuple<int, std::string, double>>);
  const std::string joined = td::apply(
      [](int i, const std::string& s, double d) { return std::to_string(i) + s + std::to_string(int(d * 2)); }, a);
  CHECK(joined == "1x5");
  td::apply(
      [](int& i, std::string& s, double&) {
        i = 7;
        s += "y";
      },
      a);
  CHECK(get<0>(a) == 7);
  CHECK(get<1>(a) == "xy");
  auto copy = a;
  get<1>(copy) = "copy";
  CHECK(get<1>(a) == "xy");
  auto moved = std::move(copy);
  CHECK(get<1>(moved) == "copy");
  a = moved;
  CHECK(get<1>(a) == "copy");
  const auto& same = a;
  a = same;  // self-assignment keeps the values
  CHECK(get<1>(a) == "copy");
  a = Tuple<int, std::string, double>{9, "nine", 0.0};
  CHECK(get<0>(a) == 9);
  CHECK(get<1>(a) == "nine");
  const Tuple<> empty{};
  static_assert(Tuple<>::size == 0);
  CHECK(td::apply([] { return 42; }, empty) == 42);
  // Default construction value-initializes, as std::tuple's does; elements
  // that cannot be default-constructed (a capturing lambda) are still held.
  const Tuple<int, double> zeros;
  CHECK(get<0>(zeros) == 0);
  CHECK(get<1>(zeros) == 0.0);
  int offset = 3;  // not a constant: the lambda must capture it
  const Tuple held{[offset](int v) { return v + offset; }, 4};
  CHECK(td::apply([](const auto& f, int v) { return f(v); }, held) == 7);
}
