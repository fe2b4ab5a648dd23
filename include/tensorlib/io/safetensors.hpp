#pragma once
/// \file
/// The safetensors format (Hugging Face; PyTorch's way to share weights
/// without pickle): `tl::io::safetensors::load_file` / `save_file` and the
/// in-memory `load` / `save`, the names of Python's `safetensors.torch`.
/// Weights saved from PyTorch load into the module with the same state dict
/// keys (`model.load_state_dict(io::safetensors::load_file(path))`).
///
/// Note [safetensors layout]
/// A file is an 8-byte little-endian header length N, N bytes of JSON
/// {"name": {"dtype": "F32", "shape": [2, 3], "data_offsets": [begin, end]},
/// ..., "__metadata__": {"key": "value"}}, then the data, each tensor
/// row-major little-endian at [begin, end) of the data block. Reading checks
/// everything a damaged or hostile file could get wrong (the lengths, the
/// JSON, known dtypes, byte counts against shapes, offsets tiling the data
/// block exactly, as the reference reader does) and gives a `ValueError`
/// naming it, never a crash. Writing orders tensors as the reference writer
/// does, by its dtype rank (I64, F64, F32, I32, BF16, F16, U8, BOOL), then by
/// name, and pads the header with spaces to a multiple of 8,
/// so every tensor's bytes are aligned for its type; the same tensors give
/// the reference writer's bytes (tested). Reading
/// returns tensors in the order of their data.

#include <algorithm>
#include <bit>
#include <climits>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tensorlib/core/any_tensor.hpp"
#include "tensorlib/core/error.hpp"
#include "tensorlib/io/json.hpp"
#include "tensorlib/nn/state_dict.hpp"
#include "tensorlib/ops/copy.hpp"
#include "tensorlib/ops/factories.hpp"

namespace tensorlib::io {

namespace detail {

/// The safetensors name of an element type, and back (nullopt: unknown).
inline std::string_view safetensors_dtype(ScalarType t) {
  switch (t) {
    case ScalarType::Bool:
      return "BOOL";
    case ScalarType::UInt8:
      return "U8";
    case ScalarType::Int32:
      return "I32";
    case ScalarType::Int64:
      return "I64";
    case ScalarType::Float16:
      return "F16";
    case ScalarType::BFloat16:
      return "BF16";
    case ScalarType::Float32:
      return "F32";
    case ScalarType::Float64:
      return "F64";
  }
  throw TypeError("safetensors: unknown dtype");
}
inline std::optional<ScalarType> scalar_type_of_safetensors(std::string_view name) {
  for (const ScalarType t : {ScalarType::Bool, ScalarType::UInt8, ScalarType::Int32, ScalarType::Int64,
                             ScalarType::Float16, ScalarType::BFloat16, ScalarType::Float32, ScalarType::Float64}) {
    if (safetensors_dtype(t) == name) return t;
  }
  return std::nullopt;
}

/// The rank of an element type in the reference writer's order (its Dtype
/// enumeration: BOOL < U8 < F16 < BF16 < I32 < F32 < F64 < I64).
inline int safetensors_rank(ScalarType t) {
  switch (t) {
    case ScalarType::Bool:
      return 0;
    case ScalarType::UInt8:
      return 1;
    case ScalarType::Float16:
      return 2;
    case ScalarType::BFloat16:
      return 3;
    case ScalarType::Int32:
      return 4;
    case ScalarType::Float32:
      return 5;
    case ScalarType::Float64:
      return 6;
    case ScalarType::Int64:
      return 7;
  }
  return -1;
}

/// The element count of a shape read from a file; an error naming `what`
/// when it, or its byte count at 8 bytes an element, would overflow int64
/// (the count is multiplied in order, as Shape::numel does).
inline uint64_t checked_numel(const Shape& shape, const std::string& what) {
  int64_t numel = 1;
  for (int64_t i = 0; i < shape.size(); ++i) {
    tensorlib::detail::check<ValueError>(!__builtin_mul_overflow(numel, shape[i], &numel) && numel <= INT64_MAX / 8,
                                         what, " has a shape whose size overflows");
  }
  return static_cast<uint64_t>(numel);
}

/// Copies a file's bytes into a new tensor's storage; bool bytes other than
/// 0 and 1 become 1, since any other byte is not a valid C++ bool.
inline void copy_elements(const AnyTensor& t, const char* bytes, std::size_t count) {
  std::memcpy(t.impl()->data(), bytes, count);
  if (t.dtype() == ScalarType::Bool) {
    auto* b = static_cast<unsigned char*>(t.impl()->data());
    for (std::size_t i = 0; i < count; ++i) b[i] = b[i] != 0;
  }
}

/// A new contiguous CPU tensor of element type `t`.
inline AnyTensor empty_of(ScalarType t, const Shape& shape) {
  switch (t) {
    case ScalarType::Bool:
      return empty<bool>(shape);
    case ScalarType::UInt8:
      return empty<uint8_t>(shape);
    case ScalarType::Int32:
      return empty<int32_t>(shape);
    case ScalarType::Int64:
      return empty<int64_t>(shape);
    case ScalarType::Float16:
      return empty<Half>(shape);
    case ScalarType::BFloat16:
      return empty<BFloat16>(shape);
    case ScalarType::Float32:
      return empty<float>(shape);
    case ScalarType::Float64:
      return empty<double>(shape);
  }
  throw TypeError("safetensors: unknown dtype");
}

inline void check_little_endian(const char* op) {
  tensorlib::detail::check<NotImplementedError>(std::endian::native == std::endian::little, op,
                                                ": only little-endian machines are supported");
}

/// A contiguous CPU copy (or the tensor itself when it already is one).
inline AnyTensor host_contiguous(const AnyTensor& t) {
  return t.visit([](const auto& typed) -> AnyTensor { return typed.detach().cpu().contiguous(); });
}

inline std::string read_whole_file(const std::string& path, const char* op) {
  std::ifstream in(path, std::ios::binary);
  tensorlib::detail::check<ValueError>(static_cast<bool>(in), op, ": cannot open ", path);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  tensorlib::detail::check<ValueError>(!in.bad(), op, ": cannot read ", path);
  return bytes;
}

inline void write_whole_file(const std::string& path, std::string_view bytes, const char* op) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  tensorlib::detail::check<ValueError>(static_cast<bool>(out), op, ": cannot create ", path);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.close();
  tensorlib::detail::check<ValueError>(static_cast<bool>(out), op, ": cannot write ", path);
}

}  // namespace detail

namespace safetensors {

/// What a safetensors file holds: its tensors (in the order of their data)
/// and its metadata.
struct Contents {
  nn::StateDict tensors;
  std::map<std::string, std::string> metadata;
};

/// Parses safetensors bytes (Note [safetensors layout]); `what` names the
/// source in errors. Tensors come back on the CPU, owning their memory.
inline Contents load_with_metadata(std::string_view bytes, const std::string& what = "safetensors") {
  using tensorlib::detail::check;
  detail::check_little_endian("safetensors");
  check<ValueError>(bytes.size() >= 8, what, ": truncated: ", bytes.size(),
                    " bytes, fewer than the 8 of the header length");
  uint64_t n = 0;
  std::memcpy(&n, bytes.data(), 8);
  check<ValueError>(n <= bytes.size() - 8, what, ": the header length ", n, " runs past the end of the ", bytes.size(),
                    "-byte file");
  check<ValueError>(n <= 100'000'000, what, ": the header length ", n, " exceeds the limit of 100000000 bytes");
  const std::string_view header = bytes.substr(8, n);
  check<ValueError>(!header.empty() && header.front() == '{', what, ": the header is not a JSON object");
  const io::detail::Json root = io::detail::JsonParser(header, what).parse_document();
  const std::string_view data = bytes.substr(8 + n);

  Contents out;
  struct Entry {
    std::string name;
    ScalarType dtype;
    Shape shape;
    uint64_t begin, end;
  };
  std::vector<Entry> entries;
  for (std::size_t member = 0; member < root.keys.size(); ++member) {
    const std::string& name = root.keys[member];
    const io::detail::Json& value = root.values[member];
    if (name == "__metadata__") {
      check<ValueError>(value.kind == io::detail::Json::Kind::Object, what, ": __metadata__ is not an object");
      for (std::size_t i = 0; i < value.keys.size(); ++i) {
        check<ValueError>(value.values[i].kind == io::detail::Json::Kind::String, what, ": __metadata__ value of '",
                          value.keys[i], "' is not a string");
        out.metadata[value.keys[i]] = value.values[i].string;
      }
      continue;
    }
    const auto* dtype = value.find("dtype");
    const auto* shape = value.find("shape");
    const auto* offsets = value.find("data_offsets");
    check<ValueError>(value.kind == io::detail::Json::Kind::Object && dtype && shape && offsets &&
                          dtype->kind == io::detail::Json::Kind::String &&
                          shape->kind == io::detail::Json::Kind::Array &&
                          offsets->kind == io::detail::Json::Kind::Array && offsets->array.size() == 2,
                      what, ": tensor '", name, "' needs a string dtype, a shape and two data_offsets");
    const auto type = detail::scalar_type_of_safetensors(dtype->string);
    check<NotImplementedError>(type.has_value(), what, ": tensor '", name, "' has dtype ", dtype->string,
                               ", which tensorlib has no element type for");
    Entry e{name, *type, {}, 0, 0};
    check<ValueError>(shape->array.size() <= static_cast<std::size_t>(Shape::kMaxDims), what, ": tensor '", name,
                      "' has ", shape->array.size(), " dimensions, more than ", Shape::kMaxDims);
    for (const auto& s : shape->array) {
      check<ValueError>(s.is_integer && s.integer >= 0, what, ": tensor '", name,
                        "' has a shape entry that is not a non-negative integer");
      e.shape.push_back(s.integer);
    }
    const uint64_t numel = detail::checked_numel(e.shape, what + ": tensor '" + name + "'");
    for (const auto& o : offsets->array) {
      check<ValueError>(o.is_integer && o.integer >= 0, what, ": tensor '", name,
                        "' has a data offset that is not a non-negative integer");
    }
    e.begin = static_cast<uint64_t>(offsets->array[0].integer);
    e.end = static_cast<uint64_t>(offsets->array[1].integer);
    const uint64_t size = numel * static_cast<uint64_t>(element_size(*type));  // numel < 2^60: no wrap
    check<ValueError>(e.begin <= e.end && e.end - e.begin == size, what, ": tensor '", name, "' has data_offsets [",
                      e.begin, ", ", e.end, "], but its shape ", e.shape, " and dtype ", dtype->string, " need ", size,
                      " bytes");
    entries.push_back(std::move(e));
  }
  std::stable_sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) { return a.begin < b.begin; });
  uint64_t expected = 0;
  for (const Entry& e : entries) {
    check<ValueError>(!out.tensors.contains(e.name), what, ": tensor '", e.name, "' appears twice");
    check<ValueError>(e.begin == expected, what, ": the data offsets of tensor '", e.name,
                      "' leave a gap or overlap (it starts at ", e.begin, ", the data before ends at ", expected, ")");
    check<ValueError>(e.end <= data.size(), what, ": tensor '", e.name, "' ends at byte ", e.end,
                      " of a data block of ", data.size(), " bytes (truncated file?)");
    expected = e.end;
    AnyTensor t = detail::empty_of(e.dtype, e.shape);
    if (e.end > e.begin) detail::copy_elements(t, data.data() + e.begin, e.end - e.begin);
    out.tensors.insert(e.name, t);
  }
  check<ValueError>(expected == data.size(), what, ": the tensors cover ", expected, " bytes of a data block of ",
                    data.size());
  return out;
}

/// The tensors of safetensors bytes (Python's `safetensors.torch.load`).
inline nn::StateDict load(std::string_view bytes) { return load_with_metadata(bytes).tensors; }

/// The tensors of a safetensors file (`safetensors.torch.load_file`).
inline nn::StateDict load_file(const std::string& path) {
  return load_with_metadata(detail::read_whole_file(path, "safetensors"), path).tensors;
}

/// The metadata of a safetensors file.
inline std::map<std::string, std::string> metadata(const std::string& path) {
  return load_with_metadata(detail::read_whole_file(path, "safetensors"), path).metadata;
}

/// `tensors` as safetensors bytes (`safetensors.torch.save`): GPU tensors
/// are copied to the host, views written as their elements.
inline std::string save(const nn::StateDict& tensors, const std::map<std::string, std::string>& meta = {}) {
  detail::check_little_endian("safetensors");
  std::vector<std::pair<std::string, AnyTensor>> items;
  for (const auto& [name, t] : tensors) {
    tensorlib::detail::check<ValueError>(t.defined(), "safetensors: tensor '", name, "' is undefined");
    items.emplace_back(name, detail::host_contiguous(t));
  }
  std::sort(items.begin(), items.end(), [](const auto& a, const auto& b) {
    const int ra = detail::safetensors_rank(a.second.dtype()), rb = detail::safetensors_rank(b.second.dtype());
    return ra != rb ? ra > rb : a.first < b.first;
  });
  std::string header = "{";
  if (!meta.empty()) {
    header += "\"__metadata__\":{";
    bool first = true;
    for (const auto& [key, value] : meta) {
      header += (first ? "" : ",") + io::detail::json_quote(key) + ":" + io::detail::json_quote(value);
      first = false;
    }
    header += "}";
  }
  uint64_t offset = 0;
  for (const auto& [name, t] : items) {
    tensorlib::detail::check<ValueError>(name != "__metadata__", "safetensors: a tensor cannot be named __metadata__");
    const auto bytes = static_cast<uint64_t>(t.numel() * element_size(t.dtype()));
    header += (header.size() > 1 ? "," : "") + io::detail::json_quote(name) + ":{\"dtype\":\"" +
              std::string(detail::safetensors_dtype(t.dtype())) + "\",\"shape\":[";
    for (int64_t d = 0; d < t.dim(); ++d) header += (d ? "," : "") + std::to_string(t.sizes()[d]);
    header += "],\"data_offsets\":[" + std::to_string(offset) + "," + std::to_string(offset + bytes) + "]}";
    offset += bytes;
  }
  header += "}";
  header.append((8 - header.size() % 8) % 8, ' ');
  std::string out(8, '\0');
  const uint64_t n = header.size();
  std::memcpy(out.data(), &n, 8);
  out += header;
  out.reserve(out.size() + offset);
  for (const auto& [name, t] : items) {
    const auto bytes = static_cast<std::size_t>(t.numel() * element_size(t.dtype()));
    if (bytes) out.append(static_cast<const char*>(t.impl()->data()), bytes);
  }
  return out;
}

/// Writes `tensors` (and `meta`) to a safetensors file
/// (`safetensors.torch.save_file`).
inline void save_file(const nn::StateDict& tensors, const std::string& path,
                      const std::map<std::string, std::string>& meta = {}) {
  detail::write_whole_file(path, save(tensors, meta), "safetensors");
}

}  // namespace safetensors
}  // namespace tensorlib::io
