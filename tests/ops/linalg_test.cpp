// Matrix products, tensordot/kron/cross, einsum, norms and cdist against
// PyTorch (tests/fixtures/linalg.txt, made by generate_linalg.py), with
// non-contiguous operands, empty and size-1 dims; then every error path.

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "fixtures.hpp"

namespace {

std::vector<int64_t> parse_ints(const std::string& s) {
  std::vector<int64_t> out;
  std::istringstream in(s);
  for (int64_t v; in >> v;) out.push_back(v);
  return out;
}

tl::DimList parse_dims(const std::string& s) {
  if (s == "none") return {};
  return tl::DimList(parse_ints(s));
}

// The operand as the generator built it from the stored tensor (layouts in generate_linalg.py).
template <class T>
tl::Tensor<T> operand(const fixtures::Case& c, int i) {
  const auto stored = c.get<T>("in" + std::to_string(i));
  const std::string kind = c.text("layout" + std::to_string(i));
  if (kind == "c") return stored;
  if (kind == "t") return stored.transpose(-1, -2);
  if (kind == "s") return stored.slice(-1, tl::None, tl::None, 2);
  REQUIRE(kind[0] == 'e');
  tl::Shape target = stored.sizes();
  target[0] = std::stoll(kind.substr(1));
  return stored.expand(target);
}

template <class T>
T scalar_arg(const fixtures::Case& c, const std::string& key) {
  return static_cast<T>(std::stod(c.text(key)));
}

template <class T>
tl::Tensor<T> run_product(const fixtures::Case& c, const std::string& op) {
  if (op == "einsum") {
    std::vector<tl::Tensor<T>> ops;
    for (int i = 0; c.tensors.count("in" + std::to_string(i)); ++i) ops.push_back(operand<T>(c, i));
    return tl::einsum(c.text("eq"), ops);
  }
  const auto a = operand<T>(c, 0), b = operand<T>(c, 1);
  if (op == "mm") return tl::mm(a, b);
  if (op == "mv") return tl::mv(a, b);
  if (op == "bmm") return tl::bmm(a, b);
  if (op == "matmul") return tl::matmul(a, b);
  if (op == "dot") return tl::dot(a, b);
  if (op == "vdot") return tl::vdot(a, b);
  if (op == "outer") return tl::outer(a, b);
  if (op == "tensordot_int") return tl::tensordot(a, b, std::stoll(c.text("dims")));
  if (op == "tensordot_lists") return tl::tensordot(a, b, parse_ints(c.text("dims_a")), parse_ints(c.text("dims_b")));
  if (op == "kron") return tl::kron(a, b);
  if (op == "cross") {
    const std::string d = c.text("dim");
    return d == "none" ? tl::cross(a, b) : tl::cross(a, b, std::stoll(d));
  }
  if (op == "linalg_cross") return tl::linalg::cross(a, b, std::stoll(c.text("dim")));
  const auto m = operand<T>(c, 2);
  const T beta = scalar_arg<T>(c, "beta"), alpha = scalar_arg<T>(c, "alpha");
  if (op == "addmm") return tl::addmm(a, b, m, beta, alpha);
  if (op == "addmv") return tl::addmv(a, b, m, beta, alpha);
  if (op == "addbmm") return tl::addbmm(a, b, m, beta, alpha);
  if (op == "baddbmm") return tl::baddbmm(a, b, m, beta, alpha);
  FAIL("unknown op in the fixture: " << op);
  return a;
}

template <class T>
tl::Tensor<T> run_norm(const fixtures::Case& c, const std::string& op) {
  const auto x = operand<T>(c, 0);
  if (op == "cdist") return tl::cdist(x, operand<T>(c, 1), std::stod(c.text("p")));
  const std::string ord = c.text("ord");
  const bool keepdim = c.text("keepdim") == "1";
  const auto dims = parse_dims(c.text("dim"));
  if (op == "vector_norm") return tl::linalg::vector_norm(x, std::stod(ord), dims, keepdim);
  if (op == "matrix_norm") {
    const tl::Shape& d = dims.dims();
    REQUIRE(d.size() == 2);
    if (ord == "fro") return tl::linalg::matrix_norm(x, ord, {d[0], d[1]}, keepdim);
    return tl::linalg::matrix_norm(x, std::stod(ord), {d[0], d[1]}, keepdim);
  }
  REQUIRE(op == "norm");
  if (ord == "fro") return tl::linalg::norm(x, ord, dims, keepdim);
  if (ord == "none") return tl::linalg::norm(x, std::nullopt, dims, keepdim);
  return tl::linalg::norm(x, std::stod(ord), dims, keepdim);
}

template <class T>
void check_case(const std::string& name, const fixtures::Case& c) {
  const std::string op = c.text("op");
  const bool norm = op == "vector_norm" || op == "matrix_norm" || op == "norm" || op == "cdist";
  tl::Tensor<T> out;
  if constexpr (std::is_floating_point_v<T>) {
    out = norm ? run_norm<T>(c, op) : run_product<T>(c, op);
  } else {
    REQUIRE_FALSE(norm);
    out = run_product<T>(c, op);
  }
  const double rtol = std::is_same_v<T, float> ? 1e-5 : std::is_same_v<T, double> ? 1e-12 : 0;
  const double atol = std::is_same_v<T, float> ? 1e-5 : std::is_same_v<T, double> ? 1e-12 : 0;
  fixtures::check_close(out, c.get<T>("out"), rtol, atol, name);
}

}  // namespace

TEST_CASE("matrix products, einsum, norms and cdist match PyTorch") {
  std::map<std::string, int> per_op;
  for (const auto& entry : fixtures::load("linalg.txt").cases()) {
    const std::string& name = entry.first;  // not a structured binding: clang 14 cannot capture those in INFO
    const fixtures::Case& c = entry.second;
    INFO(name);
    const std::string dtype = c.text("dtype");
    if (dtype == "float32")
      check_case<float>(name, c);
    else if (dtype == "float64")
      check_case<double>(name, c);
    else if (dtype == "int64")
      check_case<int64_t>(name, c);
    else if (dtype == "int32")
      check_case<int32_t>(name, c);
    else if (dtype == "uint8")
      check_case<uint8_t>(name, c);
    else
      FAIL("unknown dtype " << dtype);
    ++per_op[c.text("op")];
  }
  for (const char* op : {"mm",
                         "mv",
                         "bmm",
                         "matmul",
                         "dot",
                         "vdot",
                         "outer",
                         "addmm",
                         "addmv",
                         "addbmm",
                         "baddbmm",
                         "tensordot_int",
                         "tensordot_lists",
                         "kron",
                         "cross",
                         "linalg_cross",
                         "einsum",
                         "vector_norm",
                         "matrix_norm",
                         "norm",
                         "cdist"}) {
    INFO(op);
    CHECK(per_op[op] > 0);
  }
}

TEST_CASE("the norms a GPU computes (fused reductions, as autograd records them) match PyTorch") {
  // vector_norm as tl::norm, matrix_norm as detail::matrix_norm_by_reductions
  // and cdist as detail::cdist_by_reductions: what a CUDA tensor runs. The
  // terms are computed in the element type there, so float gets a looser rtol.
  int checked = 0;
  for (const auto& entry : fixtures::load("linalg.txt").cases()) {
    const std::string& name = entry.first;
    const fixtures::Case& c = entry.second;
    const std::string op = c.text("op"), dtype = c.text("dtype");
    if (op != "vector_norm" && op != "matrix_norm" && op != "cdist") continue;
    INFO(name);
    const auto run = [&](auto type) {
      using T = decltype(type);
      const auto x = operand<T>(c, 0);
      tl::Tensor<T> out;
      if (op == "cdist") {
        out = tl::detail::cdist_by_reductions(x, operand<T>(c, 1), std::stod(c.text("p")));
      } else {
        const std::string ord = c.text("ord");
        const bool keepdim = c.text("keepdim") == "1";
        const auto dims = parse_dims(c.text("dim"));
        if (op == "vector_norm") {
          out = tl::norm(x, std::stod(ord), dims, keepdim);
        } else {
          const tl::Shape& d = dims.dims();
          REQUIRE(d.size() == 2);
          const int64_t d0 = tl::wrap_dim(d[0], x.dim(), "test"), d1 = tl::wrap_dim(d[1], x.dim(), "test");
          out = ord == "fro" ? tl::detail::matrix_norm_by_reductions(x, ord, 0.0, d0, d1, keepdim)
                             : tl::detail::matrix_norm_by_reductions(x, "", std::stod(ord), d0, d1, keepdim);
        }
      }
      const double tol = std::is_same_v<T, float> ? 2e-5 : 1e-12;
      fixtures::check_close(out, c.get<T>("out"), tol, tol, name);
      ++checked;
    };
    if (dtype == "float32")
      run(float{});
    else if (dtype == "float64")
      run(double{});
  }
  CHECK(checked > 20);
}

TEST_CASE("products accept expressions and have method forms") {
  const auto a = tl::arange(6).view({2, 3}).to<float>();
  const auto b = tl::arange(12).view({3, 4}).to<float>();
  const tl::Tensor<float> ref = tl::mm(a, b);
  fixtures::check_close(tl::mm(a * 2.f, b), tl::Tensor<float>(ref * 2.f), 0, 0, "mm of an expression");
  fixtures::check_close(a.mm(b), ref, 0, 0, "x.mm");
  fixtures::check_close(a.matmul(b), ref, 0, 0, "x.matmul");
  fixtures::check_close(a.matmul(b + 0.f), ref, 0, 0, "x.matmul(expression)");
  const auto v = tl::arange(3).to<float>();
  CHECK(a.mv(v).to_vector() == std::vector<float>{5, 14});
  CHECK(v.dot(v).item() == 5.f);
  CHECK(tl::dot(v + 1.f, v).item() == 8.f);
  CHECK(a.unsqueeze(0).bmm(b.unsqueeze(0)).sizes() == tl::Shape{1, 2, 4});
  CHECK(tl::matmul(a, b).is_contiguous());
  // Results are fresh tensors: writing to one leaves the inputs alone.
  auto r = tl::mm(a, tl::eye<float>(3));
  r.fill_(0.f);
  CHECK(a.to_vector() == std::vector<float>{0, 1, 2, 3, 4, 5});
}

TEST_CASE("beta = 0 ignores NaN and inf in the input, alpha = 0 ignores the product") {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const auto input = tl::full<float>({2, 2}, nan);
  const auto m = tl::ones<float>({2, 2});
  CHECK(tl::addmm(input, m, m, 0.f).to_vector() == std::vector<float>{2, 2, 2, 2});
  CHECK(tl::addmv(tl::full<float>({2}, nan), m, tl::ones<float>({2}), 0.f).to_vector() == std::vector<float>{2, 2});
  CHECK(tl::baddbmm(tl::full<float>({1, 2, 2}, nan), m.unsqueeze(0), m.unsqueeze(0), 0.f).to_vector() ==
        std::vector<float>{2, 2, 2, 2});
  CHECK(tl::addbmm(input, m.unsqueeze(0), m.unsqueeze(0), 0.f).to_vector() == std::vector<float>{2, 2, 2, 2});
  CHECK(tl::addbmm(input, tl::zeros<float>({0, 2, 2}), tl::zeros<float>({0, 2, 2}), 0.f).to_vector() ==
        std::vector<float>{0, 0, 0, 0});
  const auto nan_mat = tl::full<float>({2, 2}, nan);
  CHECK(tl::addmm(m, nan_mat, m, 1.f, 0.f).to_vector() == std::vector<float>{1, 1, 1, 1});
}

TEST_CASE("integer products wrap around like PyTorch's") {
  const auto big = tl::full<int64_t>({2, 2}, int64_t{1} << 62);
  CHECK(tl::mm(tl::ones<int64_t>({2, 2}), big).to_vector() == std::vector<int64_t>(4, INT64_MIN));
  const auto u = tl::full<uint8_t>({1, 3}, uint8_t{200});
  CHECK(tl::mm(u, u.t()).item() == uint8_t((200 * 200 * 3) % 256));
}

TEST_CASE("einsum returns views where PyTorch does") {
  auto x = tl::arange(9).view({3, 3}).to<float>();
  auto d = tl::einsum("ii->i", {x});
  CHECK(d.is_alias_of(x));
  CHECK(d.to_vector() == std::vector<float>{0, 4, 8});
  CHECK(tl::einsum("ij->ji", {x}).is_alias_of(x));
  CHECK_FALSE(tl::einsum("ij->j", {x}).is_alias_of(x));
}

TEST_CASE("matrix product errors name the op, what was expected and what was got") {
  const auto a = tl::zeros<float>({2, 3}), b = tl::zeros<float>({4, 5});
  const auto v3 = tl::zeros<float>({3}), v4 = tl::zeros<float>({4});
  CHECK_THROWS_WITH_AS(tl::mm(a, b), "mm: mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)", tl::ShapeError);
  CHECK_THROWS_WITH_AS(tl::mm(a, v3), "mm: mat2 must be a matrix, got 1-D tensor", tl::ShapeError);
  CHECK_THROWS_WITH_AS(tl::mm(v3, a), "mm: mat1 must be a matrix, got 1-D tensor", tl::ShapeError);
  CHECK_THROWS_WITH_AS(tl::mv(a, v4), "mv: size mismatch, got mat (2x3), vec (4)", tl::ShapeError);
  CHECK_THROWS_WITH_AS(tl::mv(a, a), "mv: expected a 2-D matrix and a 1-D vector, but got 2-D and 2-D tensors",
                       tl::ShapeError);
  CHECK_THROWS_WITH_AS(tl::bmm(tl::zeros<float>({2, 2, 3}), tl::zeros<float>({3, 3, 4})),
                       "bmm: Expected size for first two dimensions of batch2 tensor to be: [2, 3] but got: [3, 3].",
                       tl::ShapeError);
  CHECK_THROWS_WITH_AS(tl::bmm(a, tl::zeros<float>({2, 3, 4})), "bmm: batch1 must be a 3D tensor, got 2-D tensor",
                       tl::ShapeError);
  CHECK_THROWS_WITH_AS(tl::bmm(tl::zeros<float>({2, 3, 4}), a), "bmm: batch2 must be a 3D tensor, got 2-D tensor",
                       tl::ShapeError);
  CHECK_THROWS_WITH_AS(tl::matmul(tl::scalar_tensor(1.f), a),
                       "matmul: both arguments to matmul need to be at least 1D, but they are 0D and 2D",
                       tl::ShapeError);
  CHECK_THROWS_WITH_AS(tl::matmul(v3, v4),
                       "matmul: inconsistent tensor size, expected tensor [3] and src [4] to have the same number of "
                       "elements, but got 3 and 4 elements respectively",
                       tl::ShapeError);
  CHECK_THROWS_WITH_AS(tl::matmul(tl::zeros<float>({2, 2, 3}), b),
                       "matmul: mat1 and mat2 shapes cannot be multiplied (4x3 and 4x5)", tl::ShapeError);
  CHECK_THROWS_WITH_AS(tl::matmul(tl::zeros<float>({2, 2, 3}), tl::zeros<float>({3, 3, 4})),
                       "matmul: shapes [2] and [3] cannot broadcast", tl::ShapeError);
  CHECK_THROWS_WITH_AS(tl::matmul(tl::zeros<float>({2, 2, 3}), tl::zeros<float>({2, 4, 5})),
                       "matmul: Expected size for first two dimensions of batch2 tensor to be: [2, 3] but got: [2, 4].",
                       tl::ShapeError);
  CHECK_THROWS_WITH_AS(tl::dot(a, v3), "dot: 1D tensors expected, but got 2D and 1D tensors", tl::ShapeError);
  CHECK_THROWS_WITH_AS(tl::vdot(v3, v4),
                       "vdot: inconsistent tensor size, expected tensor [3] and src [4] to have the same number of "
                       "elements, but got 3 and 4 elements respectively",
                       tl::ShapeError);
  CHECK_THROWS_WITH_AS(tl::outer(a, v3), "outer: Expected 1-D argument self, but got 2-D", tl::ShapeError);
  CHECK_THROWS_WITH_AS(tl::outer(v3, a), "outer: Expected 1-D argument vec2, but got 2-D", tl::ShapeError);
  CHECK_THROWS_WITH_AS(tl::addmm(v3, a, tl::zeros<float>({3, 4})),
                       "addmm: The expanded size of the tensor (4) must match the existing size (3) at non-singleton "
                       "dimension 1.  Target sizes: [2, 4].  Tensor sizes: [3]",
                       tl::ShapeError);
  CHECK_THROWS_WITH_AS(tl::addmm(tl::zeros<float>({1, 2, 4}), a, tl::zeros<float>({3, 4})),
                       "addmm: expand([1, 2, 4], size=[2, 4]): the number of sizes provided (2) must be greater or "
                       "equal to the number of dimensions in the tensor (3)",
                       tl::ShapeError);
  CHECK_THROWS_WITH_AS(tl::addmm(a, a, b), "addmm: mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)",
                       tl::ShapeError);
  CHECK_THROWS_WITH_AS(tl::addmv(tl::zeros<float>({2}), a, v4), "addmv: size mismatch, got mat (2x3), vec (4)",
                       tl::ShapeError);
  CHECK_THROWS_AS(tl::addmv(v3, a, v3), tl::ShapeError);
  CHECK_THROWS_WITH_AS(tl::addbmm(a, tl::zeros<float>({2, 2, 3}), tl::zeros<float>({3, 3, 4})),
                       "addbmm: batch1 and batch2 must have same number of batches, got 2 and 3", tl::ShapeError);
  CHECK_THROWS_WITH_AS(tl::addbmm(a, tl::zeros<float>({2, 2, 3}), tl::zeros<float>({2, 4, 4})),
                       "addbmm: Incompatible matrix sizes for bmm (2x3 and 4x4)", tl::ShapeError);
  CHECK_THROWS_WITH_AS(tl::addbmm(a, a, a), "addbmm: batch1 must be a 3D tensor, got 2-D tensor", tl::ShapeError);
  CHECK_THROWS_WITH_AS(
      tl::baddbmm(tl::zeros<float>({3, 2, 4}), tl::zeros<float>({2, 2, 3}), tl::zeros<float>({2, 3, 4})),
      "baddbmm: The expanded size of the tensor (2) must match the existing size (3) at "
      "non-singleton dimension 0.  Target sizes: [2, 2, 4].  Tensor sizes: [3, 2, 4]",
      tl::ShapeError);
  CHECK_THROWS_WITH_AS(
      tl::baddbmm(a, tl::zeros<float>({2, 2, 3}), tl::zeros<float>({2, 4, 4})),
      "baddbmm: Expected size for first two dimensions of batch2 tensor to be: [2, 3] but got: [2, 4].",
      tl::ShapeError);
}

TEST_CASE("tensordot, kron and cross errors") {
  const auto a = tl::zeros<float>({2, 3}), b = tl::zeros<float>({4, 5});
  CHECK_THROWS_WITH_AS(tl::tensordot(a, b, 1),
                       "tensordot: contracted dimensions need to match, but first has size 3 in dim -1 and second has "
                       "size 4 in dim 0",
                       tl::ShapeError);
  CHECK_THROWS_WITH_AS(tl::tensordot(a, b, -1), "tensordot: tensordot expects dims >= 0, but got dims=-1",
                       tl::ValueError);
  CHECK_THROWS_WITH_AS(tl::tensordot(a, b, 3),
                       "tensordot: dimension out of range (expected to be in range of [-2, 1], but got -3)",
                       tl::IndexError);
  CHECK_THROWS_WITH_AS(tl::tensordot(a, b, {0}, {1, 0}),
                       "tensordot: both dimension lists should have same length, got 1 and 2", tl::ShapeError);
  CHECK_THROWS_WITH_AS(tl::tensordot(a, b, {0}, {5}),
                       "tensordot: dimension out of range (expected to be in range of [-2, 1], but got 5)",
                       tl::IndexError);
  CHECK_THROWS_WITH_AS(tl::tensordot(a, tl::zeros<float>({3, 2}), {0, 0}, {1, 1}),
                       "tensordot: dim 0 appears multiple times in the list of dims", tl::ValueError);
  CHECK_THROWS_WITH_AS(tl::cross(tl::zeros<float>({2, 3}), tl::zeros<float>({2, 4})),
                       "cross: inputs dimension 1 must have length 3. Got 3 and 4", tl::ShapeError);
  CHECK_THROWS_WITH_AS(tl::cross(tl::zeros<float>({2, 4}), tl::zeros<float>({2, 4})),
                       "cross: no dimension of size 3 in input (shape [2, 4])", tl::ShapeError);
  CHECK_THROWS_WITH_AS(tl::linalg::cross(tl::zeros<float>({3}), tl::zeros<float>({2, 3})),
                       "linalg.cross: inputs must have the same number of dimensions, got 1 and 2", tl::ShapeError);
  CHECK_THROWS_WITH_AS(tl::linalg::cross(tl::zeros<float>({3, 4}), tl::zeros<float>({3, 4})),
                       "linalg.cross: inputs dimension -1 must have length 3. Got 4 and 4", tl::ShapeError);
  CHECK_THROWS_WITH_AS(tl::linalg::cross(tl::zeros<float>({3, 3}), tl::zeros<float>({2, 3})),
                       "linalg.cross: shapes [3, 3] and [2, 3] cannot broadcast", tl::ShapeError);
  CHECK_THROWS_AS(tl::linalg::cross(tl::zeros<float>({3, 3}), tl::zeros<float>({3, 3}), 2), tl::IndexError);
}

TEST_CASE("einsum errors follow PyTorch's wording") {
  const auto a = tl::zeros<float>({2, 3}), b = tl::zeros<float>({3, 4}), s = tl::zeros<float>({3, 3});
  const auto err = [](std::string_view eq, std::vector<tl::Tensor<float>> ops) { (void)tl::einsum(eq, ops); };
  CHECK_THROWS_WITH_AS(err("ij,jk->ik", {a}),
                       "einsum(): fewer operands were provided than specified in the equation (1 vs 2)",
                       tl::ValueError);
  CHECK_THROWS_WITH_AS(err("ij,jk->ik", {a, b, b}),
                       "einsum(): more operands were provided than specified in the equation (3 vs 2)", tl::ValueError);
  CHECK_THROWS_WITH_AS(err("ijk,jk->ik", {a, b}),
                       "einsum(): the number of subscripts in the equation (3) does not match the number of "
                       "dimensions (2) for operand 0 and no ellipsis was given",
                       tl::ShapeError);
  CHECK_THROWS_WITH_AS(err("ij...", {tl::zeros<float>({2})}),
                       "einsum(): the number of subscripts in the equation (2) is more than the number of dimensions "
                       "(1) for operand 0",
                       tl::ShapeError);
  CHECK_THROWS_WITH_AS(err("ij,jk->il", {a, b}),
                       "einsum(): output subscript l does not appear in the equation for any input operand",
                       tl::ValueError);
  CHECK_THROWS_WITH_AS(err("ij,jk->ii", {a, b}), "einsum(): output subscript i appears more than once in the output",
                       tl::ValueError);
  // A size-0 label does not broadcast (only size 1 does), whichever operand comes first.
  CHECK_THROWS_WITH_AS(err("j,j->", {tl::zeros<float>({0}), tl::zeros<float>({3})}),
                       "einsum(): subscript j has size 3 for operand 1 which does not broadcast with previously seen "
                       "size 0",
                       tl::ShapeError);
  CHECK_THROWS_WITH_AS(err("j,j->", {tl::zeros<float>({3}), tl::zeros<float>({0})}),
                       "einsum(): subscript j has size 0 for operand 1 which does not broadcast with previously seen "
                       "size 3",
                       tl::ShapeError);
  CHECK_THROWS_WITH_AS(err("ii->i", {a}),
                       "einsum(): subscript i is repeated for operand 0 but the sizes don't match, 2 != 3",
                       tl::ShapeError);
  CHECK_THROWS_WITH_AS(err("i1,j->ij", {a, b}),
                       "einsum(): invalid subscript given at index 1 in the equation string, subscripts must be in "
                       "[a-zA-Z]",
                       tl::ValueError);
  CHECK_THROWS_WITH_AS(err("ij->i->j", {a}),
                       "einsum(): invalid subscript given at index 5 in the equation string, subscripts must be in "
                       "[a-zA-Z]",
                       tl::ValueError);
  CHECK_THROWS_WITH_AS(err("i.j", {a}), "einsum(): found '.' for operand 0 that is not part of any ellipsis",
                       tl::ValueError);
  CHECK_THROWS_WITH_AS(err("...i...j", {a}),
                       "einsum(): found '.' for operand 0 for which an ellipsis was already found", tl::ValueError);
  CHECK_THROWS_WITH_AS(err("ji,jk", {a, b}),
                       "einsum(): subscript j has size 3 for operand 1 which does not broadcast with previously seen "
                       "size 2",
                       tl::ShapeError);
  CHECK_THROWS_WITH_AS(err("...,...->...", {a, tl::zeros<float>({4})}),
                       "einsum(): dimension 1 covered by ellipsis in operand 1 has size 4 which does not broadcast "
                       "with previously seen ellipsis with size 3 for the respective dimension",
                       tl::ShapeError);
  CHECK_THROWS_WITH_AS(err("", {}), "einsum(): must provide at least one operand", tl::ValueError);
  CHECK_NOTHROW(err("ij,jk->ik", {a, s}));
}

TEST_CASE("norm and cdist errors") {
  const auto a = tl::zeros<float>({2, 3}), v = tl::zeros<float>({3});
  const double inf = std::numeric_limits<double>::infinity();
  using tl::linalg::matrix_norm,
      tl::linalg::vector_norm;  // norm stays qualified: tl::norm (reductions) is found by ADL
  CHECK_THROWS_WITH_AS(vector_norm(tl::zeros<float>({0}), inf),
                       "linalg.vector_norm cannot compute the inf norm on an empty tensor because the operation does "
                       "not have an identity",
                       tl::ValueError);
  CHECK_THROWS_WITH_AS(vector_norm(tl::zeros<float>({0}), -1),
                       "linalg.vector_norm cannot compute the -1 norm on an empty tensor because the operation does "
                       "not have an identity",
                       tl::ValueError);
  CHECK_THROWS_WITH_AS(vector_norm(tl::zeros<float>({0, 3}), inf, 0),
                       "linalg.vector_norm cannot compute the inf norm on the dimension 0 because this dimension is "
                       "empty and the operation does not have an identity",
                       tl::ValueError);
  CHECK(vector_norm(tl::zeros<float>({0, 3}), inf, 1).sizes() == tl::Shape{0});
  CHECK_THROWS_WITH_AS(vector_norm(a, 2, {0, 0}),
                       "linalg.vector_norm: dim 0 appears multiple times in the list of dims", tl::ValueError);
  CHECK_THROWS_WITH_AS(vector_norm(a, 2, 2),
                       "linalg.vector_norm: dimension out of range (expected to be in range of [-2, 1], but got 2)",
                       tl::IndexError);
  CHECK_THROWS_WITH_AS(matrix_norm(v), "linalg.matrix_norm: The input tensor A must have at least 2 dimensions.",
                       tl::ShapeError);
  CHECK_THROWS_WITH_AS(matrix_norm(a, 3), "linalg.matrix_norm: Order 3 not supported.", tl::ValueError);
  CHECK_THROWS_WITH_AS(matrix_norm(a, "foo"), "linalg.matrix_norm: Order foo not supported.", tl::ValueError);
  // 'nuc', 2 and -2 come from the singular values (values checked in tests/ops/decomp_test.cpp).
  CHECK(matrix_norm(a, "nuc").item() == 0.f);
  CHECK(matrix_norm(a, 2).item() == 0.f);
  CHECK(matrix_norm(a, -2).item() == 0.f);
  CHECK_THROWS_WITH_AS(matrix_norm(a, "fro", {0, 0}), "linalg.matrix_norm: dims must be different. Got (0, 0)",
                       tl::ValueError);
  CHECK_THROWS_WITH_AS(matrix_norm(tl::zeros<float>({0, 3}), inf),
                       "linalg.matrix_norm: Expected reduction dim 0 to have non-zero size.", tl::IndexError);
  // The same message from the reductions a GPU and autograd run.
  CHECK_THROWS_WITH_AS(tl::detail::matrix_norm_by_reductions(tl::zeros<float>({0, 3}), "", inf, 0, 1, false),
                       "linalg.matrix_norm: Expected reduction dim 0 to have non-zero size.", tl::IndexError);
  CHECK_THROWS_WITH_AS(tl::linalg::norm(tl::zeros<float>({2, 2, 2}), 2),
                       "linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. Got 3D.",
                       tl::ShapeError);
  CHECK_THROWS_WITH_AS(tl::linalg::norm(v, "fro"),
                       "linalg.matrix_norm: The input tensor A must have at least 2 dimensions.", tl::ShapeError);
  CHECK_THROWS_WITH_AS(tl::linalg::norm(a, std::nullopt, {0, 1, 1}),
                       "linalg.norm: If dim is specified, it must be of length 1 or 2. Got [0, 1, 1]", tl::ShapeError);
  CHECK_THROWS_WITH_AS(tl::linalg::norm(a, "fro", {0}), "linalg.matrix_norm: dim must be a 2-tuple. Got [0]",
                       tl::ShapeError);
  CHECK_THROWS_WITH_AS(tl::cdist(v, v), "cdist: cdist only supports at least 2D tensors, X1 got: 1D", tl::ShapeError);
  CHECK_THROWS_WITH_AS(tl::cdist(a, v), "cdist: cdist only supports at least 2D tensors, X2 got: 1D", tl::ShapeError);
  CHECK_THROWS_WITH_AS(tl::cdist(a, tl::zeros<float>({4, 5})),
                       "cdist: X1 and X2 must have the same number of columns. X1: 3 X2: 5", tl::ShapeError);
  CHECK_THROWS_WITH_AS(tl::cdist(a, a, -1), "cdist: cdist only supports non-negative p values, got -1", tl::ValueError);
  CHECK_THROWS_WITH_AS(tl::cdist(tl::zeros<float>({2, 2, 3}), tl::zeros<float>({3, 2, 3})),
                       "cdist: shapes [2] and [3] cannot broadcast", tl::ShapeError);
}

TEST_CASE("matrix_power matches PyTorch: negative, zero and positive powers of a batch, integers") {
  const auto& f = fixtures::load("surface.txt");
  for (const int64_t n : {-3, -2, -1, 0, 1, 2, 3, 4, 5, 6, 7, 12}) {
    CAPTURE(n);
    const auto& c = f["matrix_power/" + std::to_string(n)];
    const auto y = tl::linalg::matrix_power(c.get<double>("a"), n);
    fixtures::check_close(y, c.get<double>("y"), 1e-12, 1e-12, "matrix_power");
    CHECK(tl::matrix_power(c.get<double>("a").to<float>(), n).sizes() == y.sizes());
  }
  for (const int64_t n : {5, -3}) {
    CAPTURE(n);
    const auto& c = f["matrix_power/float32/" + std::to_string(n)];
    fixtures::check_close(tl::linalg::matrix_power(c.get<float>("a"), n), c.get<float>("y"), 1e-5, 1e-5, "float");
  }
  const auto& ci = f["matrix_power/int64/5"];
  fixtures::check_close(tl::linalg::matrix_power(ci.get<int64_t>("a"), 5), ci.get<int64_t>("y"), 0, 0, "int64");
  // n = 0: identities.
  CHECK(tl::linalg::matrix_power(tl::tensor<double>({{2.0, 1.0}, {0.5, 3.0}}), 0).to_vector() ==
        std::vector<double>{1.0, 0.0, 0.0, 1.0});
  for (const int64_t n : {-2, 0, 3}) {
    CAPTURE(n);
    CHECK(tl::linalg::matrix_power(tl::zeros<float>({4, 0, 0}), n).sizes() == tl::Shape{4, 0, 0});
    CHECK(tl::linalg::matrix_power(tl::zeros<float>({0, 0}), n).sizes() == tl::Shape{0, 0});
  }
}

TEST_CASE("solve_triangular matches PyTorch: both triangles and sides, unitriangular, broadcast batches") {
  const auto& f = fixtures::load("surface.txt");
  for (const bool upper : {false, true})
    for (const bool left : {true, false})
      for (const bool unit : {false, true}) {
        const std::string key =
            std::string("solve_triangular/") + (upper ? "1" : "0") + (left ? "1" : "0") + (unit ? "1" : "0");
        CAPTURE(key);
        const auto& c = f[key];
        // The fixture's A is full: the other triangle (and a unit diagonal)
        // must not be read.
        const auto x = tl::linalg::solve_triangular(c.get<double>("a"), c.get<double>("b"), upper, left, unit);
        fixtures::check_close(x, c.get<double>("x"), 1e-12, 1e-12, key);
        const auto xf = tl::linalg::solve_triangular(c.get<double>("a").to<float>(), c.get<double>("b").to<float>(),
                                                     upper, left, unit);
        fixtures::check_close(xf, c.get<double>("x").to<float>(), 1e-5, 1e-5, key + " float");
      }
  for (const bool upper : {false, true}) {
    const auto& c = f[std::string("cholesky_solve/") + (upper ? "1" : "0")];
    fixtures::check_close(tl::cholesky_solve(c.get<double>("b"), c.get<double>("l"), upper), c.get<double>("x"), 1e-12,
                          1e-12, "cholesky_solve");
  }
  // An expression input; a zero on the diagonal gives inf, as PyTorch's trsm;
  // empty matrices.
  const auto a = tl::tensor<double>({{2.0, 0.0}, {1.0, 0.0}});
  const auto x = tl::linalg::solve_triangular(a * 1.0, tl::ones<double>({2, 3}), false).to_vector();
  CHECK(x[0] == 0.5);
  CHECK(std::isinf(x[3]));
  CHECK(tl::linalg::solve_triangular(tl::zeros<float>({0, 0}), tl::zeros<float>({0, 3}), true).sizes() ==
        tl::Shape{0, 3});
  CHECK(
      tl::linalg::solve_triangular(tl::eye<float>(2).expand({2, 3, 2, 2}), tl::ones<float>({3, 2, 1}), false).sizes() ==
      tl::Shape{2, 3, 2, 1});
}

TEST_CASE("solve_triangular and cholesky_solve errors follow PyTorch's wording") {
  const auto message = [](auto f) { return fixtures::error_message(f); };
  const auto b = tl::ones<float>({2, 3});
  CHECK(message([&] {
          (void)tl::linalg::solve_triangular(tl::ones<float>({2, 3}), b, false);
        }) == "linalg.solve_triangular: A must be batches of square matrices, but they are 2 by 3 matrices");
  CHECK(message([&] { (void)tl::linalg::solve_triangular(tl::ones<float>({2}), b, false); }) ==
        "linalg.solve_triangular: The input tensor A must have at least 2 dimensions.");
  CHECK(message([] { (void)tl::linalg::solve_triangular(tl::eye<float>(2), tl::ones<float>({2}), false); }) ==
        "linalg.solve_triangular: The input tensor B must have at least 2 dimensions.");
  CHECK(message([] {
          (void)tl::linalg::solve_triangular(tl::eye<float>(2), tl::ones<float>({3, 2}), false);
        }) == "linalg.solve_triangular: Incompatible shapes of A and B for the equation AX = B (2x2 and 3x2)");
  CHECK(message([&] { (void)tl::linalg::solve_triangular(tl::eye<float>(2), b, false, false); }) ==
        "linalg.solve_triangular: Incompatible shapes of A and B for the equation XA = B (2x2 and 2x3)");
  CHECK_THROWS_AS(
      (void)tl::linalg::solve_triangular(tl::eye<float>(2).expand({2, 2, 2}), tl::ones<float>({3, 2, 1}), false),
      tl::ShapeError);
  CHECK(message([] { (void)tl::cholesky_solve(tl::ones<float>({2}), tl::eye<float>(2)); }) ==
        "b should have at least 2 dimensions, but has 1 dimensions instead");
  CHECK(message([] {
          (void)tl::cholesky_solve(tl::ones<float>({2, 1}), tl::ones<float>({2}));
        }) == "u should have at least 2 dimensions, but has 1 dimensions instead");
  CHECK(message([] {
          (void)tl::cholesky_solve(tl::ones<float>({3, 1}), tl::eye<float>(2));
        }) == "Incompatible matrix sizes for cholesky_solve: each A matrix is 2 by 2 but each b matrix is 3 by 1");
}

TEST_CASE("matrix_power errors follow PyTorch's wording") {
  const auto message = [](auto f) { return fixtures::error_message(f); };
  CHECK(message([] {
          (void)tl::linalg::matrix_power(tl::ones<float>({2, 3}), 2);
        }) == "linalg.matrix_power: A must be batches of square matrices, but they are 2 by 3 matrices");
  CHECK(message([] { (void)tl::linalg::matrix_power(tl::ones<float>({3}), 2); }) ==
        "linalg.matrix_power: The input tensor A must have at least 2 dimensions.");
  CHECK_THROWS_AS((void)tl::linalg::matrix_power(tl::ones<float>({2, 3}), 2), tl::ShapeError);
  CHECK_THROWS_AS((void)tl::linalg::matrix_power(tl::ones<float>({3}), 2), tl::ShapeError);
  CHECK_THROWS_AS((void)tl::linalg::matrix_power(tl::eye<double>(2), std::numeric_limits<int64_t>::min()),
                  tl::ValueError);
  CHECK_THROWS_AS((void)tl::linalg::matrix_power(tl::ones<int64_t>({2, 2}), -1), tl::TypeError);
  CHECK_THROWS_AS((void)tl::linalg::matrix_power(tl::zeros<double>({2, 2}), -1), tl::LinAlgError);
}

TEST_CASE("logdet and dist match PyTorch; the method forms equal the free functions") {
  const auto a = tl::tensor<double>({{{2.0, 1.0}, {1.0, 3.0}}, {{0.0, 1.0}, {1.0, 0.0}}, {{1.0, 2.0}, {2.0, 4.0}}});
  const auto ld = tl::logdet(a).to_vector();  // torch.logdet: log 5, NaN (det -1), -inf (singular)
  CHECK(ld[0] == doctest::Approx(1.6094379124341005).epsilon(1e-14));
  CHECK(std::isnan(ld[1]));
  CHECK(ld[2] == -std::numeric_limits<double>::infinity());
  CHECK(a.logdet().to_vector()[0] == ld[0]);
  const auto x = tl::tensor<float>({{1.f, -2.f, 3.f}});
  const auto y = tl::tensor<float>({{0.5f}, {2.f}});
  // torch.dist(x, y, p) with broadcasting.
  CHECK(tl::dist(x, y).item() == doctest::Approx(5.5452680587768555).epsilon(1e-6));
  CHECK(tl::dist(x, y, 1).item() == 11.5f);
  CHECK(tl::dist(x, y, std::numeric_limits<double>::infinity()).item() == 4.f);
  CHECK(tl::dist(x, y, 0).item() == 6.f);
  CHECK(x.dist(y, 3).item() == doctest::Approx(4.600614547729492).epsilon(1e-6));
  CHECK((x * 1.f).dist(y).item() == tl::dist(x, y).item());
  // Methods are the free functions, on tensors and on expressions.
  const auto m = tl::tensor<double>({{4.0, 1.0, 0.5}, {1.0, 3.0, 0.2}, {0.5, 0.2, 2.0}});
  CHECK(m.det().item() == tl::det(m).item());
  CHECK((m * 2.0).det().item() == tl::det(m * 2.0).item());
  CHECK(m.inverse().to_vector() == tl::inverse(m).to_vector());
  CHECK(m.slogdet().logabsdet.item() == tl::linalg::slogdet(m).logabsdet.item());
  CHECK(m.matrix_power(3).to_vector() == tl::linalg::matrix_power(m, 3).to_vector());
  CHECK(m.trace().item() == 9.0);
  CHECK(m.diag().to_vector() == std::vector<double>{4.0, 3.0, 2.0});
  CHECK(m.diag(1).to_vector() == std::vector<double>{1.0, 0.2});
  CHECK(m.diag().diag_embed().to_vector() == tl::diag_embed(tl::diag(m)).to_vector());
  CHECK(m.cross(m * 2.0, 1).to_vector() == tl::cross(m, tl::Tensor<double>(m * 2.0), 1).to_vector());
  CHECK(m.kron(tl::eye<double>(2)).to_vector() == tl::kron(m, tl::eye<double>(2)).to_vector());
  const auto t = tl::zeros<float>({2, 3, 4});
  CHECK(t.swapaxes(0, 2).sizes() == tl::Shape{4, 3, 2});
  CHECK(t.swapdims(-1, 1).sizes() == tl::Shape{2, 4, 3});
  CHECK(t.moveaxis(0, -1).sizes() == tl::Shape{3, 4, 2});
  CHECK(tl::moveaxis(t, 2, 0).is_alias_of(t));
}
