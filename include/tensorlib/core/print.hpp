#pragma once
/// \file
/// Printing tensors exactly as PyTorch's `repr` does (torch/_tensor_str.py):
/// one formatter for all displayed elements (integer, fixed or scientific
/// notation, common width), summarization with `...` past `threshold`
/// elements, wrapping at `linewidth`, and `dtype=`/`device=`/`size=`
/// suffixes. Element types print as `tl.float64` where PyTorch prints
/// `torch.float64`. Options: `tl::set_printoptions`.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <optional>
#include <ostream>
#include <sstream>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "tensorlib/core/error.hpp"
#include "tensorlib/core/expression.hpp"
#include "tensorlib/core/tensor.hpp"

namespace tensorlib {

/// How tensors print (PyTorch's PRINT_OPTS).
struct PrintOptions {
  int precision = 4;
  int64_t threshold = 1000;
  int64_t edgeitems = 3;
  int64_t linewidth = 80;
  /// Force scientific notation on (true) or off (false); automatic if empty.
  std::optional<bool> sci_mode{};
};

/// Arguments of `set_printoptions`: fields left empty keep their value, except
/// `sci_mode`, which (as in PyTorch) is always set, empty meaning automatic.
/// Every member has a default initializer, so designated initializers that
/// name only some fields compile cleanly under -Wextra.
struct PrintOptionsUpdate {
  std::optional<int> precision{};
  std::optional<int64_t> threshold{};
  std::optional<int64_t> edgeitems{};
  std::optional<int64_t> linewidth{};
  /// "default", "short" or "full": resets the other options first.
  std::optional<std::string_view> profile{};
  std::optional<bool> sci_mode{};
};

namespace detail {
inline PrintOptions& print_options() {
  static PrintOptions options;
  return options;
}
}  // namespace detail

/// The current print options.
inline const PrintOptions& get_printoptions() { return detail::print_options(); }

/// Changes how tensors print: `tl::set_printoptions({.precision = 2})`.
inline void set_printoptions(const PrintOptionsUpdate& u) {
  PrintOptions& o = detail::print_options();
  if (u.profile) {
    if (*u.profile == "default")
      o = PrintOptions{};
    else if (*u.profile == "short")
      o = PrintOptions{2, 1000, 2, 80, std::nullopt};
    else if (*u.profile == "full")
      o = PrintOptions{4, std::numeric_limits<int64_t>::max(), 3, 80, std::nullopt};
    else
      throw ValueError(
          detail::concat("set_printoptions: unknown profile '", *u.profile, "' (expected default, short or full)"));
  }
  if (u.precision) o.precision = *u.precision;
  if (u.threshold) o.threshold = *u.threshold;
  if (u.edgeitems) o.edgeitems = *u.edgeitems;
  if (u.linewidth) o.linewidth = *u.linewidth;
  o.sci_mode = u.sci_mode;
}

namespace detail {

inline std::string printf_double(const char* fmt, int width, int precision, double v) {
  if (std::isnan(v)) return std::string(static_cast<std::size_t>(std::max(0, width - 3)), ' ') + "nan";
  char buf[512];
  std::snprintf(buf, sizeof buf, fmt, width, precision, v);
  return buf;
}

/// Row-major host copy of the elements: doubles for floating types (exact),
/// decimal text for integral and bool types (exact for all of int64).
struct HostValues {
  Shape sizes;
  std::vector<double> floats;
  std::vector<std::string> texts;
  std::size_t flat(const std::vector<int64_t>& index) const {
    int64_t f = 0;
    for (int64_t d = 0; d < sizes.size(); ++d) f = f * sizes[d] + index[static_cast<std::size_t>(d)];
    return static_cast<std::size_t>(f);
  }
};

/// PyTorch's _Formatter: chooses a notation and a width from the displayed values.
class ElementFormatter {
 public:
  ElementFormatter(const HostValues& values, const std::vector<std::size_t>& shown, const PrintOptions& opts)
      : v_(values), floating_(values.texts.empty()), precision_(opts.precision) {
    if (!floating_) {
      for (std::size_t i : shown) max_width_ = std::max(max_width_, values.texts[i].size());
      return;
    }
    std::vector<double> finite;
    for (std::size_t i : shown)
      if (std::isfinite(values.floats[i]) && values.floats[i] != 0) finite.push_back(values.floats[i]);
    if (!finite.empty()) {
      double lo = std::numeric_limits<double>::infinity(), hi = 0;
      for (double v : finite) {
        lo = std::min(lo, std::fabs(v));
        hi = std::max(hi, std::fabs(v));
        int_mode_ = int_mode_ && v == std::ceil(v);
      }
      if (int_mode_) {
        sci_mode_ = hi / lo > 1000. || hi > 1.e8;
        for (double v : finite)
          max_width_ = std::max(max_width_, sci_mode_ ? sci(v, 0).size() : fixed(v, 0, 0).size() + 1);
      } else {
        sci_mode_ = hi / lo > 1000. || hi > 1.e8 || lo < 1.e-4;
        for (double v : finite)
          max_width_ = std::max(max_width_, sci_mode_ ? sci(v, 0).size() : fixed(v, 0, precision_).size());
      }
    }
    if (opts.sci_mode) sci_mode_ = *opts.sci_mode;
  }

  std::size_t width() const { return max_width_; }

  /// The padded text of the element at row-major position i.
  std::string format(std::size_t i) const {
    std::string s;
    const double v = floating_ ? v_.floats[i] : 0.0;
    if (!floating_)
      s = v_.texts[i];
    else if (sci_mode_)
      s = sci(v, static_cast<int>(max_width_));
    else if (int_mode_)
      s = fixed(v, 0, 0) + (std::isfinite(v) ? "." : "");
    else
      s = fixed(v, 0, precision_);
    if (s.size() < max_width_) s.insert(0, max_width_ - s.size(), ' ');
    return s;
  }

 private:
  std::string sci(double v, int width) const { return printf_double("%*.*e", width, precision_, v); }
  static std::string fixed(double v, int width, int precision) { return printf_double("%*.*f", width, precision, v); }

  const HostValues& v_;
  bool floating_;
  int precision_;
  bool int_mode_ = true;
  bool sci_mode_ = false;
  std::size_t max_width_ = 1;
};

class TensorPrinter {
 public:
  TensorPrinter(const HostValues& v, const PrintOptions& o, const ElementFormatter& f, bool summarize)
      : v_(v), o_(o), f_(f), summarize_(summarize) {}

  std::string print(std::vector<int64_t>& index, int64_t indent) const {
    const int64_t d = static_cast<int64_t>(index.size());
    const int64_t dims = v_.sizes.size();
    if (dims == 0) return f_.format(0);
    const int64_t n = v_.sizes[d];
    const bool cut = summarize_ && n > 2 * o_.edgeitems;
    if (d == dims - 1) {
      std::vector<std::string> data;
      auto element = [&](int64_t i) {
        index.push_back(i);
        data.push_back(f_.format(v_.flat(index)));
        index.pop_back();
      };
      if (summarize_ && o_.edgeitems == 0) {
        data.push_back("...");
      } else if (cut) {
        for (int64_t i = 0; i < o_.edgeitems; ++i) element(i);
        data.push_back(" ...");
        for (int64_t i = n - o_.edgeitems; i < n; ++i) element(i);
      } else {
        for (int64_t i = 0; i < n; ++i) element(i);
      }
      const auto per_line = static_cast<std::size_t>(
          std::max<int64_t>(1, (o_.linewidth - indent) / static_cast<int64_t>(f_.width() + 2)));
      std::string out = "[";
      for (std::size_t i = 0; i < data.size(); ++i) {
        if (i > 0) out += i % per_line == 0 ? ",\n" + std::string(static_cast<std::size_t>(indent + 1), ' ') : ", ";
        out += data[i];
      }
      return out + "]";
    }
    std::vector<std::string> slices;
    auto slice = [&](int64_t i) {
      index.push_back(i);
      slices.push_back(print(index, indent + 1));
      index.pop_back();
    };
    if (cut) {
      for (int64_t i = 0; i < o_.edgeitems; ++i) slice(i);
      slices.push_back("...");
      for (int64_t i = n - o_.edgeitems; i < n; ++i) slice(i);
    } else {
      for (int64_t i = 0; i < n; ++i) slice(i);
    }
    const std::string sep = "," + std::string(static_cast<std::size_t>(dims - d - 1), '\n') +
                            std::string(static_cast<std::size_t>(indent + 1), ' ');
    std::string out = "[";
    for (std::size_t i = 0; i < slices.size(); ++i) out += (i ? sep : "") + slices[i];
    return out + "]";
  }

 private:
  const HostValues& v_;
  const PrintOptions& o_;
  const ElementFormatter& f_;
  bool summarize_;
};

// The values PyTorch's get_summarized_data keeps: per dimension, all indices
// or the first and last `edgeitems`.
inline std::vector<std::size_t> displayed_positions(const HostValues& v, bool summarize, int64_t edge) {
  std::vector<std::vector<int64_t>> keep;
  for (int64_t s : v.sizes) {
    std::vector<int64_t> k;
    for (int64_t i = 0; i < s; ++i)
      if (!summarize || s <= 2 * edge || i < edge || i >= s - edge) k.push_back(i);
    keep.push_back(std::move(k));
  }
  std::vector<std::size_t> out;
  std::vector<int64_t> pos(keep.size(), 0), index(keep.size(), 0);
  for (const auto& k : keep)
    if (k.empty()) return out;
  for (;;) {
    for (std::size_t d = 0; d < keep.size(); ++d) index[d] = keep[d][static_cast<std::size_t>(pos[d])];
    out.push_back(v.flat(index));
    int64_t d = static_cast<int64_t>(keep.size()) - 1;
    while (d >= 0 &&
           ++pos[static_cast<std::size_t>(d)] == static_cast<int64_t>(keep[static_cast<std::size_t>(d)].size())) {
      pos[static_cast<std::size_t>(d)] = 0;
      --d;
    }
    if (d < 0) break;
  }
  return out;
}

/// PyTorch's repr of a tensor with these values and type facts.
inline std::string tensor_repr(const HostValues& v, ScalarType dtype, Device device, const PrintOptions& o) {
  const std::string prefix = "tensor(";
  const int64_t indent = static_cast<int64_t>(prefix.size());
  std::vector<std::string> suffixes;
  if (!device.is_cpu()) suffixes.push_back(concat("device='", device, "'"));
  std::string body;
  const int64_t numel = v.sizes.numel();
  if (numel == 0) {
    if (v.sizes.size() != 1) {
      std::string size = "size=(";
      for (int64_t d = 0; d < v.sizes.size(); ++d) size += (d ? ", " : "") + std::to_string(v.sizes[d]);
      suffixes.push_back(size + ")");  // never one dimension here, so no "(n,)" form
    }
    if (dtype != kFloat32) suffixes.push_back(concat("dtype=tl.", name(dtype)));
    body = "[]";
  } else {
    if (dtype != kFloat32 && dtype != kInt64 && dtype != kBool) suffixes.push_back(concat("dtype=tl.", name(dtype)));
    const bool summarize = numel > o.threshold;
    const ElementFormatter f(v, displayed_positions(v, summarize, o.edgeitems), o);
    std::vector<int64_t> index;
    body = TensorPrinter(v, o, f, summarize).print(index, indent);
  }
  std::string out = prefix + body;
  const auto nl = out.rfind('\n');
  int64_t last_line = static_cast<int64_t>(out.size()) - (nl == std::string::npos ? -1 : static_cast<int64_t>(nl)) + 1;
  for (const auto& s : suffixes) {
    const auto len = static_cast<int64_t>(s.size());
    if (last_line + len + 2 > o.linewidth) {
      out += ",\n" + std::string(static_cast<std::size_t>(indent), ' ') + s;
      last_line = indent + len;
    } else {
      out += ", " + s;
      last_line += len + 2;
    }
  }
  return out + ")";
}

}  // namespace detail

/// The text `std::cout << t` prints.
template <Element T>
std::string repr(const Tensor<T>& t) {
  if (!t.defined()) return "tensor(undefined)";
  detail::HostValues v{t.sizes(), {}, {}};
  for (T x : t.to_vector()) {
    if constexpr (std::is_same_v<T, bool>)
      v.texts.push_back(x ? "True" : "False");
    else if constexpr (is_floating<T>)
      v.floats.push_back(static_cast<double>(x));
    else
      v.texts.push_back(std::to_string(static_cast<long long>(x)));
  }
  return detail::tensor_repr(v, t.dtype(), t.device(), get_printoptions());
}

/// Prints a tensor, or evaluates and prints an expression, like PyTorch.
template <Expression E>
std::ostream& operator<<(std::ostream& os, const E& e) {
  if constexpr (std::is_same_v<E, Tensor<value_type_t<E>>>)
    return os << repr(e);
  else
    return os << repr(Tensor<value_type_t<E>>(e));
}

}  // namespace tensorlib
