// Views against the strides PyTorch produces (tests/fixtures/views.txt), plus
// aliasing and every error path.

#include <doctest/doctest.h>

#include <cstdio>
#include <limits>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "fixtures.hpp"

namespace {

std::string describe(const tl::Tensor<int64_t>& t) {
  std::ostringstream os;
  os << "sizes=" << t.sizes() << " strides=" << t.strides() << " offset=" << t.storage_offset()
     << " contiguous=" << t.is_contiguous();
  return os.str();
}

tl::Shape parse_shape(const std::string& s) {  // "[6, 4]"
  tl::Shape out;
  std::istringstream in(s.substr(1, s.size() - 2));
  for (std::string tok; std::getline(in, tok, ',');) out.push_back(std::stoll(tok));
  return out;
}

}  // namespace

TEST_CASE("view, squeeze, unsqueeze and transpose give PyTorch's strides") {
  const auto base = tl::arange(24).view({2, 3, 4});
  std::map<std::string, tl::Tensor<int64_t>> inputs{
      {"contig", base},
      {"perm120", base.permute({1, 2, 0})},
      {"transpose01", base.transpose(0, 1)},
      {"slice_step2", base.slice(2, tl::None, tl::None, 2)},
      {"narrow", base.narrow(2, 1, 2)},
      {"expand", tl::arange(4).view({1, 4}).expand({3, 4})},
      {"unsq", base.unsqueeze(1)},
  };
  std::istringstream table(fixtures::load("views.txt")["views"].text("table"));
  int checked = 0;
  for (std::string line; std::getline(table, line);) {
    const auto space = line.find(' ');
    const std::string label = line.substr(0, space), expected = line.substr(space + 1);
    const auto dot = label.find('.');
    const std::string input = label.substr(0, dot), op = dot == std::string::npos ? "" : label.substr(dot + 1);
    if (!inputs.count(input)) continue;  // the standalone cases are checked below
    INFO(label);
    ++checked;
    const auto& t = inputs.at(input);
    if (op.empty()) {
      CHECK(describe(t) == expected);
    } else if (op.rfind("view", 0) == 0) {
      const tl::Shape target = parse_shape(op.substr(4));
      if (expected == "error")
        CHECK_THROWS_AS(t.view(target), tl::ShapeError);
      else
        CHECK(describe(t.view(target)) == expected);
    } else if (op == "unsqueeze0") {
      CHECK(describe(t.unsqueeze(0)) == expected);
    } else if (op == "unsqueeze-1") {
      CHECK(describe(t.unsqueeze(-1)) == expected);
    } else if (op == "squeeze") {
      CHECK(describe(t.squeeze()) == expected);
    } else if (op == "t01") {
      CHECK(describe(t.transpose(0, -1)) == expected);
    } else {
      FAIL("unknown view op in the fixture: " << op);
    }
  }
  CHECK(checked == 7 * 13);  // every input with its own line, 8 views, 4 more ops
  std::istringstream rest(fixtures::load("views.txt")["views"].text("table"));
  std::map<std::string, std::string> lines;
  for (std::string line; std::getline(rest, line);)
    lines[line.substr(0, line.find(' '))] = line.substr(line.find(' ') + 1);
  CHECK(describe(tl::arange(3).view({3, 1}).expand({2, 3, 5})) == lines["expand_new"]);
  CHECK(describe(base.index({tl::Slice(), tl::Slice(-2, tl::None), tl::Slice(1, tl::None, 2)})) == lines["slice_neg"]);
  CHECK(describe(base.index({1, tl::Slice(), 2})) == lines["select"]);
  CHECK(describe(base.index({tl::None, 0, tl::Ellipsis, tl::None})) == lines["index_none"]);
}

TEST_CASE("views alias their input's storage") {
  auto x = tl::zeros<float>({3, 4});
  x.t().select(0, 1).fill_(1.f);  // column 1 of x
  x.narrow(0, 2, 1).fill_(2.f);   // row 2
  x.view({12}).slice(0, 0, 2).fill_(3.f);
  CHECK(x.to_vector() == std::vector<float>{3, 3, 0, 0, 0, 1, 0, 0, 2, 2, 2, 2});
  CHECK(x.reshape({4, 3}).is_alias_of(x));
  CHECK(x.view_as(tl::zeros<float>({2, 6})).sizes() == tl::Shape{2, 6});
  CHECK(x.t().reshape_as(tl::zeros<float>({12})).sizes() == tl::Shape{12});
  CHECK(x.flatten().is_alias_of(x));
  CHECK_FALSE(x.t().reshape({12}).is_alias_of(x));  // needs a copy
  CHECK(x.t().reshape({12}).to_vector()[1] == 0.f);
  CHECK(x.unflatten(1, {2, -1}).sizes() == tl::Shape{3, 2, 2});
  CHECK(x[2].to_vector() == std::vector<float>(4, 2.f));
  CHECK(x.as_strided({2, 2}, {1, 4}, 1).to_vector() == std::vector<float>{3, 1, 0, 0});
  CHECK(x.expand_as(tl::zeros<float>({2, 3, 4})).stride(0) == 0);
  CHECK(tl::scalar_tensor(1.f).flatten().sizes() == tl::Shape{1});
}

TEST_CASE("view and shape errors say what was expected and what was got") {
  const auto x = tl::arange(6).view({2, 3});
  CHECK_THROWS_WITH_AS(x.view({4, 2}), "view: shape '[4, 2]' is invalid for input of size 6", tl::ShapeError);
  CHECK_THROWS_WITH_AS(x.view({-1, -1}), "view: only one dimension can be inferred", tl::ValueError);
  CHECK_THROWS_WITH_AS(x.t().view({6}),
                       doctest::Contains("view size is not compatible with input tensor's size and "
                                         "stride"),
                       tl::ShapeError);
  CHECK_THROWS_WITH_AS(x.permute({0, 0}), "permute: repeated dim 0 in [0, 0]", tl::ValueError);
  CHECK_THROWS_AS(x.permute({0}), tl::ShapeError);
  CHECK_THROWS_WITH_AS(x.transpose(0, 2),
                       "transpose: dimension out of range (expected to be in range of [-2, 1], but "
                       "got 2)",
                       tl::IndexError);
  CHECK_THROWS_WITH_AS(tl::zeros<float>({2, 2, 2}).t(), "t: expects a tensor with <= 2 dimensions, but self is 3D",
                       tl::ShapeError);
  CHECK_THROWS_WITH_AS(x.expand({2, 4}),
                       "expand: the expanded size of the tensor (4) must match the existing size (3) "
                       "at non-singleton dimension 1.  Target sizes: [2, 4].  Tensor sizes: [2, 3]",
                       tl::ShapeError);
  CHECK_THROWS_AS(x.expand({3}), tl::ShapeError);
  CHECK_THROWS_WITH_AS(tl::ones<float>({1}).expand({-2}), doctest::Contains("must be non-negative"), tl::ValueError);
  CHECK_THROWS_WITH_AS(x.as_strided({2}, {-1}), doctest::Contains("negative strides are not supported"),
                       tl::ValueError);
  CHECK_THROWS_AS(x.unflatten(1, {2, 2}), tl::ShapeError);
  CHECK_THROWS_AS(x.narrow(0, 0, -1), tl::ValueError);
  CHECK_THROWS_WITH_AS(x.select(0, 2), "select: index 2 out of range for tensor of size [2, 3] at dimension 0",
                       tl::IndexError);
  CHECK_THROWS_WITH_AS(x.narrow(1, 2, 2), "narrow: start (2) + length (2) exceeds dimension size (3).", tl::IndexError);
  CHECK_THROWS_WITH_AS(x.slice(0, 0, 2, 0), "slice: step must be positive, got 0", tl::ValueError);
  CHECK_THROWS_WITH_AS(x.index({0, 0, 0}), "index: too many indices for tensor of dimension 2", tl::IndexError);
  CHECK_THROWS_AS(x.index({tl::Ellipsis, 0, tl::Ellipsis}), tl::IndexError);
  CHECK_THROWS_WITH_AS(x.as_strided({3, 3}, {3, 1}), doctest::Contains("out of bounds for storage of size 48"),
                       tl::ShapeError);
  CHECK_THROWS_AS(x.unsqueeze(3), tl::IndexError);
  CHECK_THROWS_AS(x.flatten(1, 0), tl::ValueError);
  CHECK_THROWS_WITH_AS(tl::scalar_tensor(1).select(0, 0), "select: cannot be applied to a 0-dim tensor.",
                       tl::IndexError);
}

TEST_CASE("sizes whose product or offsets overflow int64 are errors, not wrapped views") {
  constexpr int64_t big = int64_t{1} << 32;
  constexpr int64_t max = std::numeric_limits<int64_t>::max();
  const auto x = tl::arange<float>(5);
  // start + length would wrap negative and pass a plain `start + length <= n`.
  CHECK_THROWS_WITH_AS(x.narrow(0, 1, max),
                       "narrow: start (1) + length (9223372036854775807) exceeds dimension size (5).", tl::IndexError);
  // [2^32, 2^32] has 2^64 elements, which wraps to 0 == the input's numel.
  CHECK_THROWS_WITH_AS(tl::empty<float>({0}).view({big, big}),
                       "view: integer multiplication overflow (4294967296 * 4294967296)", tl::ValueError);
  CHECK_THROWS_AS(tl::empty<float>({0}).reshape({big, -1, big}), tl::ValueError);
  CHECK_THROWS_WITH_AS(tl::ones<float>({1}).expand({big, big}),
                       "expand: numel: integer multiplication overflow for sizes [4294967296, 4294967296]",
                       tl::ValueError);
  CHECK_THROWS_WITH_AS(tl::empty<float>({0, big, big}).flatten(1, 2),
                       "flatten: integer multiplication overflow (4294967296 * 4294967296)", tl::ValueError);
  // The span fits, but the offset plus the span does not.
  CHECK_THROWS_WITH_AS(x.as_strided({2}, {1}, max - 1), doctest::Contains("span overflows"), tl::ShapeError);
  CHECK_THROWS_WITH_AS(x.as_strided({2}, {1}, max / 4), doctest::Contains("requiring a storage size of over 2^63 - 1"),
                       tl::ShapeError);
  // A step near INT64_MAX: one element, no overflow in the length or stride.
  CHECK(x.slice(0, 1, tl::None, max).to_vector() == std::vector<float>{1});
  CHECK(x.slice(0, 5, tl::None, max).numel() == 0);
  // Just inside the bounds still works.
  CHECK(x.narrow(0, 1, 4).sizes() == tl::Shape{4});
  CHECK(tl::ones<float>({1}).expand({big, 2}).sizes() == tl::Shape{big, 2});
  CHECK(x.as_strided({2}, {1}, 3).to_vector() == std::vector<float>{3, 4});
}

TEST_CASE("a 0-d tensor has no size or stride to ask for, and flattens only with dims -1 and 0") {
  const auto s = tl::scalar_tensor(1.f);
  CHECK_THROWS_WITH_AS((void)s.size(0), "size: dimension specified as 0 but tensor has no dimensions", tl::IndexError);
  CHECK_THROWS_WITH_AS((void)s.size(-1), "size: dimension specified as -1 but tensor has no dimensions",
                       tl::IndexError);
  CHECK_THROWS_AS((void)s.stride(0), tl::IndexError);
  // A squeezed tensor keeps no stale size behind its last dimension.
  CHECK_THROWS_AS((void)tl::arange(5).select(0, 2).size(0), tl::IndexError);
  CHECK_THROWS_WITH_AS(tl::ones<float>({1}).squeeze(0).unflatten(0, {1}),
                       "unflatten: dimension specified as 0 but tensor has no dimensions", tl::IndexError);
  CHECK_THROWS_WITH_AS(s.flatten(5, 7),
                       "flatten: dimension out of range (expected to be in range of [-1, 0], but got 5)",
                       tl::IndexError);
  CHECK(s.flatten(-1, 0).sizes() == tl::Shape{1});
}

TEST_CASE("slicing clamps out-of-range bounds like Python") {
  const auto x = tl::arange(10);
  CHECK(x.slice(0, -3).to_vector() == std::vector<int64_t>{7, 8, 9});
  CHECK(x.slice(0, 8, 100).to_vector() == std::vector<int64_t>{8, 9});
  CHECK(x.slice(0, 5, 2).numel() == 0);
  CHECK(x.slice(0, -100, 3, 2).to_vector() == std::vector<int64_t>{0, 2});
  CHECK(x.index({tl::Slice(tl::None, tl::None, 3)}).to_vector() == std::vector<int64_t>{0, 3, 6, 9});
  const std::size_t i = 4;  // any integer type indexes
  const long long j = -1;
  CHECK(x.index({i}).item() == 4);
  CHECK(x.index({tl::Slice(i, j)}).to_vector() == std::vector<int64_t>{4, 5, 6, 7, 8});
}

TEST_CASE("unfold gives PyTorch's windows, sizes and strides, as a view") {
  const auto& f = fixtures::load("surface.txt");
  const auto base = tl::arange<float>(0, 42).view({2, 7, 3});
  std::map<std::string, tl::Tensor<float>> inputs{
      {"contig", base}, {"transpose", base.transpose(0, 1)}, {"slice", base.slice(1, 1, tl::None, 2)}};
  std::istringstream table(f["unfold/strides"].text("table"));
  int checked = 0;
  for (std::string line; std::getline(table, line);) {
    const auto space = line.find(' ');
    const std::string label = line.substr(0, space), expected = line.substr(space + 1);
    INFO(label);
    const auto dot = label.find(".unfold(");
    const std::string input = label.substr(0, dot);
    int64_t dim = 0, size = 0, step = 0;
    REQUIRE(std::sscanf(label.c_str() + dot, ".unfold(%ld,%ld,%ld)", &dim, &size, &step) == 3);
    ++checked;
    if (input == "scalar") {
      const auto s = tl::tensor<float>(5.0f);
      const auto u = s.unfold(dim, size, step);
      std::ostringstream os;
      os << "sizes=" << u.sizes() << " strides=" << u.strides() << " offset=" << u.storage_offset();
      CHECK(os.str() == expected);
      CHECK(u.to_vector() == std::vector<float>(static_cast<std::size_t>(size), 5.0f));
      continue;
    }
    const auto& t = inputs.at(input);
    if (expected == "error") {
      CHECK_THROWS_WITH_AS(t.unfold(dim, size, step), doctest::Contains("maximum size for tensor at dimension"),
                           tl::ValueError);
      continue;
    }
    const auto u = t.unfold(dim, size, step);
    std::ostringstream os;
    os << "sizes=" << u.sizes() << " strides=" << u.strides() << " offset=" << u.storage_offset();
    CHECK(os.str() == expected);
    CHECK(u.storage().data() == base.storage().data());
    const auto& c =
        f["unfold/" + input + "/" + std::to_string(dim) + "/" + std::to_string(size) + "/" + std::to_string(step)];
    fixtures::check_close(t.contiguous(), c.get<float>("x"), 0, 0, "input");
    fixtures::check_close(u.contiguous(), c.get<float>("y"), 0, 0, "windows");
  }
  CHECK(checked == 3 * 7 + 2);
  // Writes through one position of overlapping windows reach the input.
  auto x = tl::zeros<float>({5});
  x.unfold(0, 3, 1).select(1, 1).fill_(1.0f);
  CHECK(x.to_vector() == std::vector<float>{0, 1, 1, 1, 0});
}

TEST_CASE("unfold's errors use PyTorch's wording") {
  const auto x = tl::arange<float>(0, 5);
  CHECK_THROWS_WITH_AS(x.unfold(0, 6, 1), "unfold: maximum size for tensor at dimension 0 is 5 but size is 6",
                       tl::ValueError);
  CHECK_THROWS_WITH_AS(x.unfold(0, -1, 1), "unfold: size is -1 but must be >= 0", tl::ValueError);
  CHECK_THROWS_WITH_AS(x.unfold(0, 2, 0), "unfold: step is 0 but must be > 0", tl::ValueError);
  CHECK_THROWS_AS(x.unfold(1, 2, 1), tl::IndexError);
  CHECK_THROWS_AS(tl::tensor<float>(1.0f).unfold(1, 1, 1), tl::IndexError);
  CHECK_THROWS_WITH_AS(tl::tensor<float>(1.0f).unfold(0, 2, 1),
                       "unfold: maximum size for tensor at dimension 0 is 1 but size is 2", tl::ValueError);
}

TEST_CASE("mT and mH give PyTorch's transposes") {
  const auto x = tl::zeros<float>({2, 3, 4});
  CHECK(x.mT().sizes() == tl::Shape{2, 4, 3});
  CHECK(x.mT().strides() == tl::Shape{12, 1, 4});
  CHECK(x.mH().strides() == x.mT().strides());
  CHECK(x.mT().storage().data() == x.storage().data());
  CHECK_THROWS_WITH_AS(tl::zeros<float>({2}).mT(),
                       "mT: tensor.mT is only supported on matrices or batches of matrices. Got 1-D tensor.",
                       tl::ShapeError);
}

TEST_CASE("free forms of the views (torch.reshape(x, ...), ...) are the methods") {
  const auto x = tl::arange<float>(0, 24).view({2, 3, 4});
  auto same = [](const tl::Tensor<float>& a, const tl::Tensor<float>& b) {
    return a.sizes() == b.sizes() && a.strides() == b.strides() && a.data_ptr() == b.data_ptr();
  };
  CHECK(same(tl::reshape(x, {4, 6}), x.reshape({4, 6})));
  CHECK(same(tl::flatten(x, 1), x.flatten(1)));
  CHECK(same(tl::unflatten(x, 2, {2, 2}), x.unflatten(2, {2, 2})));
  CHECK(same(tl::permute(x, {2, 0, 1}), x.permute({2, 0, 1})));
  CHECK(same(tl::transpose(x, 0, 2), x.transpose(0, 2)));
  CHECK(same(tl::squeeze(x.unsqueeze(1)), x));
  CHECK(same(tl::squeeze(x.unsqueeze(1), 1), x));
  CHECK(same(tl::unsqueeze(x, -1), x.unsqueeze(-1)));
  CHECK(same(tl::narrow(x, 1, 1, 2), x.narrow(1, 1, 2)));
  const auto c = tl::clone(x);
  CHECK(c.to_vector() == x.to_vector());
  CHECK(c.data_ptr() != x.data_ptr());
}
