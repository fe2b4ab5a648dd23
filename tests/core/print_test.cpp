// Printing against PyTorch's repr (tests/fixtures/printing.txt): every case
// is printed with the same print options PyTorch used, then compared as text.

#include <doctest/doctest.h>

#include <sstream>
#include <string>

#include "fixtures.hpp"

namespace {

// "edgeitems=1 threshold=5" -> options
tl::PrintOptionsUpdate parse_options(const std::string& text) {
  tl::PrintOptionsUpdate u;
  u.profile = "default";
  std::istringstream in(text);
  for (std::string kv; in >> kv;) {
    const auto eq = kv.find('=');
    const std::string k = kv.substr(0, eq), v = kv.substr(eq + 1);
    if (k == "precision") u.precision = std::stoi(v);
    if (k == "threshold") u.threshold = std::stoll(v);
    if (k == "edgeitems") u.edgeitems = std::stoll(v);
    if (k == "linewidth") u.linewidth = std::stoll(v);
    if (k == "sci_mode") u.sci_mode = v == "True";
  }
  return u;
}

std::string torch_to_tl(std::string s) {
  for (std::size_t p; (p = s.find("torch.")) != std::string::npos;) s.replace(p, 6, "tl.");
  return s;
}

std::string print_any(const fixtures::Tensor& t) {
  std::ostringstream os;
  if (t.dtype == "float32")
    os << t.as<float>();
  else if (t.dtype == "float64")
    os << t.as<double>();
  else if (t.dtype == "int64")
    os << t.as<int64_t>();
  else if (t.dtype == "int32")
    os << t.as<int32_t>();
  else if (t.dtype == "uint8")
    os << t.as<uint8_t>();
  else
    os << t.as<bool>();
  return os.str();
}

}  // namespace

TEST_CASE("tensors print exactly like PyTorch's repr") {
  const auto& file = fixtures::load("printing.txt");
  int cases = 0;
  for (const auto& entry : file.cases()) {
    const std::string& name = entry.first;  // not a structured binding: clang 14 cannot capture those
    const fixtures::Case& c = entry.second;
    INFO(name);
    tl::set_printoptions(parse_options(c.text("options")));
    CHECK(print_any(c.tensor("t")) == torch_to_tl(c.text("repr")));
    ++cases;
  }
  tl::set_printoptions({.profile = "default"});
  CHECK(cases >= 30);
}

TEST_CASE("expressions print their values, AnyTensor prints its tensor") {
  std::ostringstream os;
  const auto x = tl::tensor({1.f, 2.f});
  os << x * 2;
  CHECK(os.str() == "tensor([2., 4.])");
  os.str("");
  tl::AnyTensor any = tl::tensor({1, 2});
  os << any;
  CHECK(os.str() == "tensor([1, 2])");
}

TEST_CASE("print options: profiles, and errors for unknown ones") {
  tl::set_printoptions({.precision = 2});
  std::ostringstream os;
  os << tl::tensor({1.2345f});
  CHECK(os.str() == "tensor([1.23])");
  tl::set_printoptions({.profile = "default"});
  CHECK(tl::get_printoptions().precision == 4);
  tl::set_printoptions({.profile = "short"});
  CHECK(tl::get_printoptions().edgeitems == 2);
  CHECK_THROWS_AS(tl::set_printoptions({.profile = "long"}), tl::ValueError);
  tl::set_printoptions({.profile = "default"});
}
