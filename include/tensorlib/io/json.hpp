#pragma once
/// \file
/// The little JSON that file headers need (safetensors): a value type, a
/// strict parser that reports where the text is malformed, and string
/// quoting for writers. Nesting deeper than 64 levels is refused, so a
/// hostile header cannot exhaust the stack.

#include <charconv>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tensorlib/core/error.hpp"

namespace tensorlib::io::detail {

/// A JSON value; object members keep their order.
struct Json {
  enum class Kind { Null, Bool, Number, String, Array, Object };
  Kind kind = Kind::Null;
  bool boolean = false;
  double number = 0;
  /// For a number written as an integer that fits in int64.
  bool is_integer = false;
  int64_t integer = 0;
  std::string string;
  std::vector<Json> array;
  /// An object's member names and values, in order (two vectors: a vector
  /// of pairs would need Json complete here).
  std::vector<std::string> keys;
  std::vector<Json> values;

  /// The member named `key` of an object; null when absent.
  const Json* find(std::string_view key) const {
    for (std::size_t i = 0; i < keys.size(); ++i) {
      if (keys[i] == key) return &values[i];
    }
    return nullptr;
  }
};

/// Parses one JSON document; errors are `ValueError`s naming `what` (the
/// file) and the byte offset.
class JsonParser {
 public:
  JsonParser(std::string_view text, std::string what) : text_(text), what_(std::move(what)) {}

  Json parse_document() {
    Json value = parse_value(0);
    skip_space();
    if (at_ != text_.size()) fail("unexpected text after the value");
    return value;
  }

 private:
  static constexpr int kMaxDepth = 64;
  /// At about 130 bytes a value, a header of many tiny values ("0,") would
  /// take gigabytes; 2 million values allow some 200000 tensors.
  static constexpr std::size_t kMaxValues = 2'000'000;

  [[noreturn]] void fail(std::string_view message) const {
    throw ValueError(what_ + ": invalid JSON header at byte " + std::to_string(at_) + ": " + std::string(message));
  }
  void skip_space() {
    while (at_ < text_.size() && (text_[at_] == ' ' || text_[at_] == '\t' || text_[at_] == '\n' || text_[at_] == '\r'))
      ++at_;
  }
  bool consume(char c) {
    skip_space();
    if (at_ < text_.size() && text_[at_] == c) {
      ++at_;
      return true;
    }
    return false;
  }
  void expect(char c) {
    if (!consume(c)) fail(std::string("expected '") + c + "'");
  }
  bool literal(std::string_view word) {
    if (text_.substr(at_, word.size()) != word) return false;
    at_ += word.size();
    return true;
  }

  Json parse_value(int depth) {
    if (depth > kMaxDepth) fail("nested too deeply");
    if (++values_ > kMaxValues) fail("more than 2000000 values");
    skip_space();
    if (at_ >= text_.size()) fail("unexpected end");
    Json v;
    const char c = text_[at_];
    if (c == '{') {
      ++at_;
      v.kind = Json::Kind::Object;
      if (consume('}')) return v;
      do {
        skip_space();
        if (at_ >= text_.size() || text_[at_] != '"') fail("expected a member name");
        v.keys.push_back(parse_string());
        expect(':');
        v.values.push_back(parse_value(depth + 1));
      } while (consume(','));
      expect('}');
    } else if (c == '[') {
      ++at_;
      v.kind = Json::Kind::Array;
      if (consume(']')) return v;
      do {
        v.array.push_back(parse_value(depth + 1));
      } while (consume(','));
      expect(']');
    } else if (c == '"') {
      v.kind = Json::Kind::String;
      v.string = parse_string();
    } else if (literal("true") || literal("false")) {
      v.kind = Json::Kind::Bool;
      v.boolean = c == 't';
    } else if (literal("null")) {
      v.kind = Json::Kind::Null;
    } else {
      parse_number(v);
    }
    return v;
  }

  void parse_number(Json& v) {
    const std::size_t start = at_;
    if (at_ < text_.size() && text_[at_] == '-') ++at_;
    bool integral = true;
    while (at_ < text_.size()) {
      const char c = text_[at_];
      if (c >= '0' && c <= '9') {
        ++at_;
      } else if (c == '.' || c == 'e' || c == 'E' || c == '+' || (c == '-' && at_ > start)) {
        integral = false;
        ++at_;
      } else {
        break;
      }
    }
    const std::string_view digits = text_.substr(start, at_ - start);
    if (digits.empty() || digits == "-") fail("expected a value");
    v.kind = Json::Kind::Number;
    const char* first = digits.data();
    const char* last = digits.data() + digits.size();
    if (integral) {
      const auto r = std::from_chars(first, last, v.integer);
      v.is_integer = r.ec == std::errc() && r.ptr == last;
      v.number = static_cast<double>(v.integer);
      if (v.is_integer) return;
    }
    const auto r = std::from_chars(first, last, v.number);
    if (r.ec != std::errc() || r.ptr != last) fail("malformed number");
  }

  static void append_utf8(std::string& out, uint32_t code) {
    if (code < 0x80) {
      out += static_cast<char>(code);
    } else if (code < 0x800) {
      out += static_cast<char>(0xC0 | (code >> 6));
      out += static_cast<char>(0x80 | (code & 0x3F));
    } else if (code < 0x10000) {
      out += static_cast<char>(0xE0 | (code >> 12));
      out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (code & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (code >> 18));
      out += static_cast<char>(0x80 | ((code >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (code & 0x3F));
    }
  }
  uint32_t hex4() {
    if (at_ + 4 > text_.size()) fail("truncated \\u escape");
    uint32_t code = 0;
    const auto r = std::from_chars(text_.data() + at_, text_.data() + at_ + 4, code, 16);
    if (r.ec != std::errc() || r.ptr != text_.data() + at_ + 4) fail("malformed \\u escape");
    at_ += 4;
    return code;
  }

  std::string parse_string() {
    ++at_;  // the opening quote
    std::string out;
    while (true) {
      if (at_ >= text_.size()) fail("unterminated string");
      const char c = text_[at_++];
      if (c == '"') return out;
      if (static_cast<unsigned char>(c) < 0x20) fail("control character in a string");
      if (c != '\\') {
        out += c;
        continue;
      }
      if (at_ >= text_.size()) fail("unterminated string");
      switch (text_[at_++]) {
        case '"':
          out += '"';
          break;
        case '\\':
          out += '\\';
          break;
        case '/':
          out += '/';
          break;
        case 'b':
          out += '\b';
          break;
        case 'f':
          out += '\f';
          break;
        case 'n':
          out += '\n';
          break;
        case 'r':
          out += '\r';
          break;
        case 't':
          out += '\t';
          break;
        case 'u': {
          uint32_t code = hex4();
          if (code >= 0xD800 && code < 0xDC00) {  // a surrogate pair
            if (!literal("\\u")) fail("unpaired surrogate");
            const uint32_t low = hex4();
            if (low < 0xDC00 || low >= 0xE000) fail("unpaired surrogate");
            code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
          } else if (code >= 0xDC00 && code < 0xE000) {
            fail("unpaired surrogate");
          }
          append_utf8(out, code);
          break;
        }
        default:
          fail("unknown escape");
      }
    }
  }

  std::string_view text_;
  std::string what_;
  std::size_t at_ = 0;
  std::size_t values_ = 0;
};

/// `s` as a JSON string literal, escaped as the reference safetensors
/// writer (serde_json) escapes: the short escapes, other control characters
/// as \u00xx, everything else as it is.
inline std::string json_quote(std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out = "\"";
  for (const char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (c == '\b' || c == '\f' || c == '\n' || c == '\r' || c == '\t') {
      out += '\\';
      out += c == '\b' ? 'b' : c == '\f' ? 'f' : c == '\n' ? 'n' : c == '\r' ? 'r' : 't';
    } else if (u < 0x20) {
      out += "\\u00";
      out += kHex[u >> 4];
      out += kHex[u & 0xF];
    } else {
      out += c;
    }
  }
  return out + "\"";
}

}  // namespace tensorlib::io::detail
