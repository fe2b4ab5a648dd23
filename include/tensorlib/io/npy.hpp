#pragma once
/// \file
/// NumPy's `.npy` format: `tl::io::npy::save(path, tensor)` and
/// `tl::io::npy::load(path)` (`numpy.save` / `numpy.load` of one array),
/// and the in-memory `to_bytes` / `from_bytes`.
///
/// Note [npy layout]
/// "\x93NUMPY", a major and minor version byte, the header length (2 bytes
/// little-endian in version 1, 4 in versions 2 and 3), then a Python dict
/// literal {'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }
/// padded with spaces and a newline so that the data starts at a multiple of
/// 64 bytes. Reading takes any version, either byte order ('<', '>', '|',
/// '=') and Fortran order (the data is read as the reversed shape and
/// transposed back); writing gives version 1 (version 2 when the header
/// needs it), little-endian, C order, as numpy does. Damaged files give a
/// `ValueError` naming what is wrong.

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tensorlib/core/any_tensor.hpp"
#include "tensorlib/core/error.hpp"
#include "tensorlib/io/safetensors.hpp"
#include "tensorlib/ops/copy.hpp"
#include "tensorlib/ops/factories.hpp"
#include "tensorlib/ops/views.hpp"

namespace tensorlib::io {

namespace detail {

/// numpy's type character and size of an element type ('f', 4 for float).
inline std::pair<char, int64_t> npy_kind(ScalarType t) {
  switch (t) {
    case ScalarType::Bool:
      return {'b', 1};
    case ScalarType::UInt8:
      return {'u', 1};
    case ScalarType::Int32:
      return {'i', 4};
    case ScalarType::Int64:
      return {'i', 8};
    case ScalarType::Float16:
      return {'f', 2};
    case ScalarType::Float32:
      return {'f', 4};
    case ScalarType::Float64:
      return {'f', 8};
    case ScalarType::BFloat16:
      break;
  }
  throw TypeError("npy: numpy has no bfloat16; convert the tensor to float first");
}

/// The fields of an npy header's dict literal.
struct NpyHeader {
  std::string descr;
  bool fortran_order = false;
  Shape shape;
};

/// Parses the dict literal of an npy header: string keys with a string, a
/// bool or a tuple of integers as values.
inline NpyHeader parse_npy_header(std::string_view text, const std::string& what) {
  std::size_t at = 0;
  const auto fail = [&](std::string_view message) {
    throw ValueError(what + ": malformed npy header at byte " + std::to_string(at) + ": " + std::string(message));
  };
  const auto skip = [&] {
    while (at < text.size() && (text[at] == ' ' || text[at] == '\n' || text[at] == '\t')) ++at;
  };
  const auto consume = [&](char c) {
    skip();
    if (at < text.size() && text[at] == c) {
      ++at;
      return true;
    }
    return false;
  };
  const auto string = [&] {
    skip();
    if (at >= text.size() || (text[at] != '\'' && text[at] != '"')) fail("expected a string");
    const char quote = text[at++];
    const std::size_t end = text.find(quote, at);
    if (end == std::string_view::npos) fail("unterminated string");
    std::string s(text.substr(at, end - at));
    at = end + 1;
    return s;
  };
  const auto integer = [&] {
    skip();
    int64_t v = 0;
    const auto r = std::from_chars(text.data() + at, text.data() + text.size(), v);
    if (r.ec != std::errc() || v < 0) fail("expected a non-negative integer");
    at = static_cast<std::size_t>(r.ptr - text.data());
    // Python 2 wrote longs as 3L.
    if (at < text.size() && text[at] == 'L') ++at;
    return v;
  };
  NpyHeader h;
  bool has_descr = false, has_order = false, has_shape = false;
  if (!consume('{')) fail("expected '{'");
  while (!consume('}')) {
    const std::string key = string();
    if (!consume(':')) fail("expected ':'");
    skip();
    if (key == "descr") {
      h.descr = string();
      has_descr = true;
    } else if (key == "fortran_order") {
      if (text.substr(at, 4) == "True") {
        h.fortran_order = true;
        at += 4;
      } else if (text.substr(at, 5) == "False") {
        at += 5;
      } else {
        fail("fortran_order is not True or False");
      }
      has_order = true;
    } else if (key == "shape") {
      if (!consume('(')) fail("expected a tuple for shape");
      while (!consume(')')) {
        if (h.shape.size() == Shape::kMaxDims) fail("too many dimensions");
        h.shape.push_back(integer());
        if (!consume(',')) {
          if (!consume(')')) fail("expected ',' or ')' in shape");
          break;
        }
      }
      has_shape = true;
    } else {
      fail("unknown key '" + key + "'");
    }
    if (!consume(',')) {
      if (!consume('}')) fail("expected ',' or '}'");
      break;
    }
  }
  if (!has_descr || !has_order || !has_shape) fail("descr, fortran_order and shape are required");
  return h;
}

}  // namespace detail

namespace npy {

/// The array of `.npy` bytes, on the CPU (`what` names the source in errors).
inline AnyTensor from_bytes(std::string_view bytes, const std::string& what = "npy") {
  using tensorlib::detail::check;
  check<ValueError>(bytes.size() >= 10 && bytes.substr(0, 6) == std::string_view("\x93NUMPY", 6), what,
                    ": not an npy file (no \\x93NUMPY magic)");
  const auto major = static_cast<unsigned char>(bytes[6]);
  check<ValueError>(major >= 1 && major <= 3, what, ": unsupported npy version ", int{major});
  const std::size_t length_bytes = major == 1 ? 2 : 4;
  check<ValueError>(bytes.size() >= 8 + length_bytes, what, ": truncated header");
  uint64_t header_length = 0;
  for (std::size_t i = 0; i < length_bytes; ++i)
    header_length |= uint64_t{static_cast<unsigned char>(bytes[8 + i])} << (8 * i);
  const std::size_t start = 8 + length_bytes;
  check<ValueError>(header_length <= bytes.size() - start, what, ": the header length ", header_length,
                    " runs past the end of the ", bytes.size(), "-byte file");
  const detail::NpyHeader h = detail::parse_npy_header(bytes.substr(start, header_length), what);
  check<ValueError>(h.descr.size() >= 3, what, ": unknown descr '", h.descr, "'");
  const char order = h.descr[0], kind = h.descr[1];
  int64_t size = 0;
  const auto [size_end, size_error] = std::from_chars(h.descr.data() + 2, h.descr.data() + h.descr.size(), size);
  check<ValueError>((order == '<' || order == '>' || order == '|' || order == '=') && size_error == std::errc() &&
                        size_end == h.descr.data() + h.descr.size(),
                    what, ": unknown descr '", h.descr, "'");
  ScalarType type{};
  if (kind == 'b' && size == 1) {
    type = ScalarType::Bool;
  } else if (kind == 'u' && size == 1) {
    type = ScalarType::UInt8;
  } else if (kind == 'i' && (size == 4 || size == 8)) {
    type = size == 4 ? ScalarType::Int32 : ScalarType::Int64;
  } else if (kind == 'f' && (size == 2 || size == 4 || size == 8)) {
    type = size == 2 ? ScalarType::Float16 : size == 4 ? ScalarType::Float32 : ScalarType::Float64;
  } else {
    throw NotImplementedError(what + ": dtype '" + h.descr + "' has no tensorlib element type");
  }
  const bool swap = size > 1 && ((order == '>' && std::endian::native == std::endian::little) ||
                                 (order == '<' && std::endian::native == std::endian::big));
  Shape stored = h.shape;
  if (h.fortran_order) std::reverse(stored.begin(), stored.end());
  const uint64_t numel = io::detail::checked_numel(stored, what);
  const std::string_view data = bytes.substr(start + header_length);
  check<ValueError>(data.size() == numel * static_cast<uint64_t>(size), what, ": the data holds ", data.size(),
                    " bytes, shape ", h.shape, " and descr '", h.descr, "' need ", numel * static_cast<uint64_t>(size));
  AnyTensor t = detail::empty_of(type, stored);
  auto* out = static_cast<char*>(t.impl()->data());
  if (!data.empty()) io::detail::copy_elements(t, data.data(), data.size());
  if (swap) {
    for (uint64_t i = 0; i < numel; ++i) std::reverse(out + i * size, out + (i + 1) * size);
  }
  if (!h.fortran_order || h.shape.size() < 2) return t;
  return t.visit([&](const auto& typed) -> AnyTensor {
    Shape dims;
    for (int64_t d = typed.dim() - 1; d >= 0; --d) dims.push_back(d);
    return typed.permute(dims).contiguous();
  });
}

/// The array of an `.npy` file (`numpy.load`).
inline AnyTensor load(const std::string& path) { return from_bytes(io::detail::read_whole_file(path, "npy"), path); }
/// The array of an `.npy` file as a `Tensor<T>`; a `TypeError` when the
/// file holds another element type.
template <class T>
Tensor<T> load(const std::string& path) {
  return load(path).as<T>();
}

/// `t` as `.npy` bytes (version 1, little-endian, C order).
inline std::string to_bytes(const AnyTensor& t) {
  tensorlib::detail::check<ValueError>(t.defined(), "npy: the tensor is undefined");
  const AnyTensor host = io::detail::host_contiguous(t);
  const auto [kind, size] = detail::npy_kind(host.dtype());
  const char order = size == 1 ? '|' : std::endian::native == std::endian::little ? '<' : '>';
  std::string dims;
  for (int64_t d = 0; d < host.dim(); ++d) dims += (d ? ", " : "") + std::to_string(host.sizes()[d]);
  if (host.dim() == 1) dims += ",";
  std::string header = std::string("{'descr': '") + order + kind + std::to_string(size) +
                       "', 'fortran_order': False, 'shape': (" + dims + "), }";
  const bool v2 = header.size() + 11 > 65535;
  const std::size_t prefix = v2 ? 12 : 10;
  header.append(63 - (prefix + header.size()) % 64, ' ');
  header += '\n';
  std::string out("\x93NUMPY", 6);
  out += static_cast<char>(v2 ? 2 : 1);
  out += '\0';
  const std::size_t length = header.size();
  for (std::size_t i = 0; i < (v2 ? 4u : 2u); ++i) out += static_cast<char>((length >> (8 * i)) & 0xFF);
  out += header;
  if (host.numel() > 0) {
    out.append(static_cast<const char*>(host.impl()->data()), static_cast<std::size_t>(host.numel() * size));
  }
  return out;
}

/// Writes `t` to an `.npy` file (`numpy.save`).
inline void save(const std::string& path, const AnyTensor& t) {
  io::detail::write_whole_file(path, to_bytes(t), "npy");
}

}  // namespace npy
}  // namespace tensorlib::io
