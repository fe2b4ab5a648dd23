#pragma once
// Reads the PyTorch-generated fixtures (tests/fixtures/*.txt, format in
// tests/fixtures/generate.py) and compares tensors against them.

#include <doctest/doctest.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <tensorlib/tensor.hpp>

#ifndef TENSORLIB_FIXTURE_DIR
#error "TENSORLIB_FIXTURE_DIR must name tests/fixtures"
#endif

namespace fixtures {

struct Tensor {
  std::string dtype;
  tl::Shape shape;
  std::vector<std::string> tokens;  // values as written, parsed per element type

  template <class T>
  tl::Tensor<T> as() const {
    REQUIRE_MESSAGE(dtype == tl::DTypeTraits<T>::name,
                    "fixture dtype " << dtype << " read as " << tl::DTypeTraits<T>::name);
    auto t = tl::empty<T>(shape);
    T* p = t.data_ptr();
    for (std::size_t i = 0; i < tokens.size(); ++i) {
      if constexpr (tl::is_floating<T>)
        p[i] = static_cast<T>(std::strtod(tokens[i].c_str(), nullptr));
      else
        p[i] = static_cast<T>(std::strtoll(tokens[i].c_str(), nullptr, 10));
    }
    return t;
  }
};

struct Case {
  std::map<std::string, Tensor> tensors;
  std::map<std::string, std::string> texts;

  const Tensor& tensor(const std::string& key) const {
    auto it = tensors.find(key);
    if (it == tensors.end()) throw std::runtime_error("fixture has no tensor " + key);
    return it->second;
  }
  template <class T>
  tl::Tensor<T> get(const std::string& key) const {
    return tensor(key).as<T>();
  }
  const std::string& text(const std::string& key) const {
    auto it = texts.find(key);
    if (it == texts.end()) throw std::runtime_error("fixture has no text " + key);
    return it->second;
  }
};

class File {
 public:
  explicit File(const std::string& name) {
    std::ifstream in(std::string(TENSORLIB_FIXTURE_DIR) + "/" + name, std::ios::binary);
    if (!in) throw std::runtime_error("cannot open fixture file " + name);
    std::string line;
    Case* current = nullptr;
    while (std::getline(in, line)) {
      if (line.empty() || line[0] == '#') continue;
      std::istringstream ls(line);
      std::string kind;
      ls >> kind;
      if (kind == "case") {
        std::string name_;
        ls >> name_;
        current = &cases_[name_];
      } else if (kind == "tensor") {
        Tensor t;
        std::string key;
        int64_t ndim = 0;
        ls >> key >> t.dtype >> ndim;
        for (int64_t d = 0; d < ndim; ++d) {
          int64_t s;
          ls >> s;
          t.shape.push_back(s);
        }
        for (std::string v; ls >> v;) t.tokens.push_back(v);
        current->tensors[key] = std::move(t);
      } else if (kind == "text") {
        std::string key;
        std::size_t n = 0;
        ls >> key >> n;
        std::string s(n, '\0');
        in.read(s.data(), static_cast<std::streamsize>(n));
        in.ignore(1);  // the newline after the text
        current->texts[key] = std::move(s);
      }
    }
  }

  const Case& operator[](const std::string& name) const {
    auto it = cases_.find(name);
    if (it == cases_.end()) throw std::runtime_error("no fixture case " + name);
    return it->second;
  }
  bool contains(const std::string& name) const { return cases_.count(name) != 0; }
  const std::map<std::string, Case>& cases() const { return cases_; }

 private:
  std::map<std::string, Case> cases_;
};

/// Loads a fixture file once per process.
inline const File& load(const std::string& name) {
  static std::map<std::string, File> files;
  auto it = files.find(name);
  if (it == files.end()) it = files.emplace(name, File(name)).first;
  return it->second;
}

/// Checks shape and values: NaN matches NaN, infinities match exactly,
/// finite values within atol + rtol * |expected|.
template <class T, class U>
void check_close(const tl::Tensor<T>& actual, const tl::Tensor<U>& expected, double rtol = 0, double atol = 0,
                 const std::string& what = "") {
  static_assert(std::is_same_v<T, U>, "check_close: element types differ");
  REQUIRE_MESSAGE(actual.sizes() == expected.sizes(),
                  what << ": shape " << actual.sizes() << " vs expected " << expected.sizes());
  const auto a = actual.to_vector();
  const auto e = expected.to_vector();
  int failures = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const double x = static_cast<double>(a[i]), y = static_cast<double>(e[i]);
    bool ok;
    if (std::isnan(y))
      ok = std::isnan(x);
    else if (std::isinf(y))
      ok = x == y;
    else
      ok = std::fabs(x - y) <= atol + rtol * std::fabs(y);
    if (!ok && failures++ < 5) {
      FAIL_CHECK(what << ": element " << i << " is " << x << ", expected " << y << " (rtol " << rtol << ", atol "
                      << atol << ")");
    }
  }
  CHECK_MESSAGE(failures == 0, what << ": " << failures << " of " << a.size() << " elements differ");
}

/// A fixture case's `args` text, `key=value` words.
using Args = std::map<std::string, std::string>;

inline Args parse_args(const std::string& text) {
  Args args;
  std::istringstream in(text);
  for (std::string word; in >> word;) {
    const auto eq = word.find('=');
    if (eq != std::string::npos) args[word.substr(0, eq)] = word.substr(eq + 1);
  }
  return args;
}

/// The value of `key`; a failed REQUIRE when the fixture lacks it.
inline const std::string& arg(const Args& args, const std::string& key) {
  const auto it = args.find(key);
  REQUIRE_MESSAGE(it != args.end(), "fixture args lack " << key);
  return it->second;
}

/// The same values in three layouts: a contiguous copy, transposed storage
/// and a stride-2 view (the non-contiguous inputs every op is tested on).
template <class T>
std::vector<std::pair<std::string, tl::Tensor<T>>> layouts(const tl::Tensor<T>& x) {
  std::vector<std::pair<std::string, tl::Tensor<T>>> out{{"contiguous", x.clone()}};
  if (x.dim() >= 2) {
    auto t = x.transpose(0, -1).contiguous().transpose(0, -1);
    REQUIRE((x.numel() <= 1 || !t.is_contiguous() || x.size(0) == 1 || x.size(-1) == 1));
    out.emplace_back("transposed", t);
  }
  if (x.dim() >= 1) {
    tl::Shape big = x.sizes();
    big[big.size() - 1] *= 2;
    auto strided = tl::zeros<T>(big).slice(-1, tl::None, tl::None, 2);
    strided.copy_(x);
    out.emplace_back("strided", strided);
  }
  return out;
}

/// The path of binary fixture `name` under tests/fixtures/io/.
inline std::string io_path(const std::string& name) { return std::string(TENSORLIB_FIXTURE_DIR) + "/io/" + name; }

/// The lines of a text fixture (a list of keys, one a line).
inline std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

/// The bytes of a file (a binary fixture).
inline std::string load_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot open fixture file " + path);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

/// The message of the tl::Error that f() throws, or "no error": for
/// comparing whole messages with PyTorch's.
template <class F>
std::string error_message(F f) {
  try {
    f();
  } catch (const tl::Error& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace fixtures
