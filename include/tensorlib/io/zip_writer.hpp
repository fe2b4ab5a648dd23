#pragma once
/// \file
/// `ZipWriter`: an uncompressed ZIP archive built in memory, the container
/// `io::pt::save` writes (Note [zip layout]). Like PyTorch's writer it stores
/// entries and pads each local header's extra field (id "FB") so that data
/// starts at a multiple of 64 bytes; unlike it, sizes and CRC-32 go in the
/// local header (no data descriptor). Archives of 4 GiB or more, or of more
/// than 65535 entries, would need ZIP64 records and are refused.

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "tensorlib/core/error.hpp"
#include "tensorlib/io/zip_reader.hpp"

namespace tensorlib::io {

class ZipWriter {
 public:
  static constexpr std::size_t kAlignment = 64;

  /// Appends entry `name` holding `data`.
  void add(const std::string& name, std::string_view data) {
    tensorlib::detail::check<ValueError>(name.size() <= 0xFFFF, "zip: entry name too long");
    tensorlib::detail::check<NotImplementedError>(entries_.size() + 1 < 0xFFFF,
                                                  "zip: 65535 entries or more (ZIP64) are not written yet");
    Entry e{name, static_cast<uint64_t>(out_.size()), static_cast<uint64_t>(data.size()), crc32(data)};
    // Local header (30 bytes), name, then an "FB" extra field of padding;
    // the sizes are checked before anything is appended.
    const std::size_t unpadded = out_.size() + 30 + name.size() + 4;
    const std::size_t padding = (kAlignment - unpadded % kAlignment) % kAlignment;
    checked32(unpadded + padding + data.size());
    put32(0x04034b50U);
    put16(20);    // version needed
    put16(0);     // flags
    put16(0);     // stored
    put16(0);     // time
    put16(0x21);  // date: 1980-01-01
    put32(e.crc);
    put32(checked32(e.size));
    put32(checked32(e.size));
    put16(static_cast<uint16_t>(name.size()));
    put16(static_cast<uint16_t>(4 + padding));
    out_ += name;
    put16(0x4246);  // "FB"
    put16(static_cast<uint16_t>(padding));
    out_.append(padding, 'Z');
    out_.append(data);
    entries_.push_back(std::move(e));
  }

  /// The archive: the entries, the central directory and its end record.
  std::string finish() {
    const uint64_t directory = out_.size();
    for (const Entry& e : entries_) {
      put32(0x02014b50U);
      put16(20);  // version made by
      put16(20);  // version needed
      put16(0);
      put16(0);
      put16(0);
      put16(0x21);
      put32(e.crc);
      put32(checked32(e.size));
      put32(checked32(e.size));
      put16(static_cast<uint16_t>(e.name.size()));
      put16(0);  // extra
      put16(0);  // comment
      put16(0);  // disk
      put16(0);  // internal attributes
      put32(0);  // external attributes
      put32(checked32(e.offset));
      out_ += e.name;
    }
    const uint64_t size = out_.size() - directory;
    put32(0x06054b50U);
    put16(0);
    put16(0);
    put16(static_cast<uint16_t>(entries_.size()));
    put16(static_cast<uint16_t>(entries_.size()));
    put32(checked32(size));
    put32(checked32(directory));
    put16(0);  // comment
    return std::move(out_);
  }

 private:
  struct Entry {
    std::string name;
    uint64_t offset, size;
    uint32_t crc;
  };

  static uint32_t checked32(uint64_t v) {
    tensorlib::detail::check<NotImplementedError>(v < 0xFFFFFFFFU,
                                                  "zip: archives of 4 GiB or more (ZIP64) are not written yet");
    return static_cast<uint32_t>(v);
  }
  void put16(uint16_t v) {
    const char b[2] = {static_cast<char>(v & 0xFF), static_cast<char>(v >> 8)};
    out_.append(b, 2);
  }
  void put32(uint32_t v) {
    put16(static_cast<uint16_t>(v & 0xFFFF));
    put16(static_cast<uint16_t>(v >> 16));
  }

  std::string out_;
  std::vector<Entry> entries_;
};

}  // namespace tensorlib::io
