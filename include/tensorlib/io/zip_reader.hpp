#pragma once
/// \file
/// `ZipReader`: the entries of an uncompressed ZIP archive held in memory, the
/// container of PyTorch's `torch.save` files (io/pt.hpp).
///
/// Note [zip layout]
/// An archive ends with the end-of-central-directory record (signature
/// PK\5\6, followed by a comment of at most 65535 bytes), which gives the
/// entry count and the offset and size of the central directory; ZIP64
/// archives (over 4 GiB, or over 65535 entries) put a locator (PK\6\7) just
/// before it that points at a ZIP64 record with 64-bit fields, and give each
/// entry's sizes and offset in a ZIP64 extra field where the 32-bit field
/// holds 0xFFFFFFFF. Each central directory entry (PK\1\2) names an entry
/// and gives its method, CRC-32, sizes and the offset of its local header
/// (PK\3\4), after whose name and extra field the data starts. PyTorch's
/// writer stores entries (method 0) and pads the local extra field so that
/// data is 64-byte aligned, and sets flag bit 3: the local header's sizes
/// are zero, so sizes come from the central directory only. Everything is
/// bounds-checked, entries may not overlap or repeat a name, and each
/// entry's CRC-32 is checked when read; a damaged archive gives a
/// `ValueError` naming what is wrong, and a compressed or encrypted entry a
/// `NotImplementedError`.

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "tensorlib/core/error.hpp"

namespace tensorlib::io {

/// The CRC-32 of `bytes` (ZIP's, polynomial 0xEDB88320).
inline uint32_t crc32(std::string_view bytes) {
  static constexpr auto table = [] {
    std::array<uint32_t, 256> t{};
    for (uint32_t i = 0; i < 256; ++i) {
      uint32_t c = i;
      for (int k = 0; k < 8; ++k) c = (c & 1U) ? 0xEDB88320U ^ (c >> 1) : c >> 1;
      t[i] = c;
    }
    return t;
  }();
  uint32_t c = 0xFFFFFFFFU;
  for (const char ch : bytes) c = table[(c ^ static_cast<unsigned char>(ch)) & 0xFFU] ^ (c >> 8);
  return c ^ 0xFFFFFFFFU;
}

/// One stored entry of an archive.
struct ZipEntry {
  std::string name;
  uint64_t data_offset = 0;  ///< of its first data byte in the archive
  uint64_t size = 0;
  uint32_t crc = 0;
};

/// Reads the entries of an archive (Note [zip layout]); the bytes must
/// outlive the reader.
class ZipReader {
 public:
  /// Parses the central directory of `bytes`; `what` names the archive in
  /// errors.
  explicit ZipReader(std::string_view bytes, std::string what = "zip") : bytes_(bytes), what_(std::move(what)) {
    parse();
  }

  const std::vector<ZipEntry>& entries() const noexcept { return entries_; }
  /// The entry named `name`, or null.
  const ZipEntry* find(std::string_view name) const {
    const auto it = index_.find(std::string(name));
    return it == index_.end() ? nullptr : &entries_[it->second];
  }
  /// The data of `entry`, its CRC-32 checked unless the archive stores 0
  /// (PyTorch 2.6+ may write files without CRCs, and its own reader skips
  /// the check).
  std::string_view read(const ZipEntry& entry) const {
    tensorlib::detail::check<ValueError>(
        entry.data_offset <= bytes_.size() && entry.size <= bytes_.size() - entry.data_offset, what_, ": entry '",
        entry.name, "' lies outside the archive");
    const std::string_view data = bytes_.substr(entry.data_offset, entry.size);
    tensorlib::detail::check<ValueError>(entry.crc == 0 || crc32(data) == entry.crc, what_, ": entry '", entry.name,
                                         "' fails its CRC-32 check (damaged file?)");
    return data;
  }

 private:
  template <class U>
  U get(uint64_t at, const char* field) const {
    tensorlib::detail::check<ValueError>(at <= bytes_.size() && bytes_.size() - at >= sizeof(U), what_,
                                         ": truncated archive (", field, " at byte ", at, " of ", bytes_.size(), ")");
    U v;
    std::memcpy(&v, bytes_.data() + at, sizeof(U));
    return v;  // little-endian: checked by the caller's format
  }

  void parse() {
    using tensorlib::detail::check;
    check<ValueError>(bytes_.size() >= 22, what_, ": not a zip archive (", bytes_.size(), " bytes)");
    // The end record: the last PK\5\6 whose comment runs exactly to the end.
    uint64_t end = 0;
    bool found = false;
    const uint64_t lowest = bytes_.size() > 22 + 65535 ? bytes_.size() - 22 - 65535 : 0;
    for (uint64_t at = bytes_.size() - 22;; --at) {
      if (get<uint32_t>(at, "end record") == 0x06054b50U &&
          at + 22 + get<uint16_t>(at + 20, "comment length") == bytes_.size()) {
        end = at;
        found = true;
        break;
      }
      if (at == lowest) break;
    }
    check<ValueError>(found, what_, ": not a zip archive (no end of central directory record)");
    uint64_t count = get<uint16_t>(end + 10, "entry count");
    uint64_t dir_size = get<uint32_t>(end + 12, "directory size");
    uint64_t dir_offset = get<uint32_t>(end + 16, "directory offset");
    if (end >= 20 && get<uint32_t>(end - 20, "zip64 locator") == 0x07064b50U) {
      const auto record = get<uint64_t>(end - 12, "zip64 record offset");
      check<ValueError>(get<uint32_t>(record, "zip64 record") == 0x06064b50U, what_,
                        ": the ZIP64 end record is missing");
      count = get<uint64_t>(record + 32, "entry count");
      dir_size = get<uint64_t>(record + 40, "directory size");
      dir_offset = get<uint64_t>(record + 48, "directory offset");
    }
    check<ValueError>(dir_offset <= bytes_.size() && dir_size <= bytes_.size() - dir_offset, what_,
                      ": the central directory lies outside the file (truncated?)");
    check<ValueError>(count <= dir_size / 46, what_, ": ", count, " entries cannot fit a directory of ", dir_size,
                      " bytes");
    entries_.reserve(count);
    uint64_t at = dir_offset;
    for (uint64_t i = 0; i < count; ++i) at = parse_entry(at, dir_offset + dir_size);
    // No two entries may share bytes (else a small file could name one
    // large block many times over) or a name.
    std::vector<std::pair<uint64_t, uint64_t>> spans;  // [local header, data end)
    for (std::size_t i = 0; i < entries_.size(); ++i) {
      spans.emplace_back(locals_[i], entries_[i].data_offset + entries_[i].size);
      check<ValueError>(index_.emplace(entries_[i].name, i).second, what_, ": entry '", entries_[i].name,
                        "' appears twice");
    }
    std::sort(spans.begin(), spans.end());
    for (std::size_t i = 1; i < spans.size(); ++i)
      check<ValueError>(spans[i].first >= spans[i - 1].second, what_, ": two entries overlap at byte ", spans[i].first);
  }

  /// Parses the central directory entry at `at` (which must end by `limit`)
  /// and returns where the next one starts.
  uint64_t parse_entry(uint64_t at, uint64_t limit) {
    using tensorlib::detail::check;
    check<ValueError>(get<uint32_t>(at, "directory entry") == 0x02014b50U, what_,
                      ": damaged central directory (bad signature at byte ", at, ")");
    const auto flags = get<uint16_t>(at + 8, "flags");
    const auto method = get<uint16_t>(at + 10, "method");
    ZipEntry e;
    e.crc = get<uint32_t>(at + 16, "crc");
    uint64_t compressed = get<uint32_t>(at + 20, "size");
    uint64_t size = get<uint32_t>(at + 24, "size");
    const uint64_t name_length = get<uint16_t>(at + 28, "name length");
    const uint64_t extra_length = get<uint16_t>(at + 30, "extra length");
    const uint64_t comment_length = get<uint16_t>(at + 32, "comment length");
    uint64_t local = get<uint32_t>(at + 42, "local header offset");
    const uint64_t next = at + 46 + name_length + extra_length + comment_length;
    check<ValueError>(next <= limit, what_, ": damaged central directory (entry at byte ", at, " overruns it)");
    e.name.assign(bytes_.substr(at + 46, name_length));
    // ZIP64: the fields holding 0xFFFFFFFF follow in the extra field 0x0001,
    // in this order.
    for (uint64_t x = at + 46 + name_length; x + 4 <= at + 46 + name_length + extra_length;) {
      const auto id = get<uint16_t>(x, "extra field");
      const uint64_t length = get<uint16_t>(x + 2, "extra field");
      check<ValueError>(x + 4 + length <= at + 46 + name_length + extra_length, what_, ": entry '", e.name,
                        "' has a damaged extra field");
      if (id == 0x0001) {
        uint64_t field = x + 4;
        const auto take = [&](uint64_t& v) {
          if (v != 0xFFFFFFFFU) return;
          check<ValueError>(field + 8 <= x + 4 + length, what_, ": entry '", e.name, "' has a short ZIP64 extra field");
          v = get<uint64_t>(field, "zip64 field");
          field += 8;
        };
        take(size);
        take(compressed);
        take(local);
      }
      x += 4 + length;
    }
    check<NotImplementedError>(!(flags & 1U), what_, ": entry '", e.name, "' is encrypted");
    check<NotImplementedError>(method == 0, what_, ": entry '", e.name, "' is compressed (method ", method,
                               "); only stored entries, as torch.save writes, are read");
    check<ValueError>(compressed == size, what_, ": stored entry '", e.name, "' has different sizes");
    check<ValueError>(get<uint32_t>(local, "local header") == 0x04034b50U, what_, ": entry '", e.name,
                      "' has no local header at byte ", local);
    e.data_offset = local + 30 + get<uint16_t>(local + 26, "name length") + get<uint16_t>(local + 28, "extra length");
    e.size = size;
    check<ValueError>(e.data_offset <= bytes_.size() && e.size <= bytes_.size() - e.data_offset, what_, ": entry '",
                      e.name, "' runs past the end of the file (truncated?)");
    entries_.push_back(std::move(e));
    locals_.push_back(local);
    return next;
  }

  std::string_view bytes_;
  std::string what_;
  std::vector<ZipEntry> entries_;
  std::vector<uint64_t> locals_;  // each entry's local header offset
  std::unordered_map<std::string, std::size_t> index_;
};

}  // namespace tensorlib::io
