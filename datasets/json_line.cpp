#include "datasets/json_line.h"

#include "datasets/data_error.h"
#include "datasets/utf8.h"

namespace rotor {
namespace {

// Deep nesting can only come from broken or hostile input; the cap keeps the
// recursion of skip_value bounded.
constexpr int kMaxNesting = 64;

class Parser {
 public:
  Parser(std::string_view text, const std::string& where, int64_t& replaced)
      : s_(text), where_(where), replaced_(replaced) {}

  JsonObject parse_object_line() {
    skip_space();
    expect('{', "'{' at the start of a JSON object");
    JsonObject object;
    skip_space();
    if (peek() == '}') {
      ++pos_;
    } else {
      while (true) {
        skip_space();
        if (peek() != '"') fail("expected a field name in double quotes");
        const size_t name_pos = pos_;
        std::string name = parse_string();
        if (find_field(object, name) != nullptr) {
          pos_ = name_pos;
          fail("duplicate field '" + name + "'");
        }
        skip_space();
        expect(':', "':' after the field name");
        skip_space();
        JsonValue value = parse_value(1);
        object.emplace_back(std::move(name), std::move(value));
        skip_space();
        if (peek() == ',') {
          ++pos_;
        } else if (peek() == '}') {
          ++pos_;
          break;
        } else {
          fail("expected ',' or '}' after a field value");
        }
      }
    }
    skip_space();
    if (pos_ < s_.size()) fail("expected end of line after the JSON object");
    return object;
  }

 private:
  [[noreturn]] void fail(const std::string& message) const {
    throw DataError(where_ + ":" + std::to_string(pos_ + 1) + ": " + message);
  }

  char peek() const { return pos_ < s_.size() ? s_[pos_] : '\0'; }
  bool at_end() const { return pos_ >= s_.size(); }

  void expect(char c, const char* what) {
    if (at_end() || s_[pos_] != c) fail(std::string("expected ") + what);
    ++pos_;
  }

  void skip_space() {
    while (!at_end() && (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\r' || s_[pos_] == '\n')) {
      ++pos_;
    }
  }

  JsonValue parse_value(int depth) {
    JsonValue v;
    const char c = peek();
    if (c == '"') {
      v.kind = JsonValue::Kind::string;
      v.text = parse_string();
    } else if (c == '-' || (c >= '0' && c <= '9')) {
      v.kind = JsonValue::Kind::number;
      v.text = parse_number();
    } else if (c == 't' || c == 'f') {
      v.kind = JsonValue::Kind::boolean;
      v.text = c == 't' ? "true" : "false";
      parse_literal(v.text);
    } else if (c == 'n') {
      v.kind = JsonValue::Kind::null;
      parse_literal("null");
    } else if (c == '[' || c == '{') {
      v.kind = JsonValue::Kind::nested;
      skip_nested(depth);
    } else {
      fail("expected a JSON value");
    }
    return v;
  }

  void parse_literal(std::string_view word) {
    if (s_.substr(pos_, word.size()) != word) fail("expected a JSON value");
    pos_ += word.size();
  }

  // Validates an array or object and discards it.
  void skip_nested(int depth) {
    if (depth > kMaxNesting) fail("JSON nested deeper than " + std::to_string(kMaxNesting) + " levels");
    const char close = s_[pos_] == '[' ? ']' : '}';
    ++pos_;
    skip_space();
    if (peek() == close) {
      ++pos_;
      return;
    }
    while (true) {
      skip_space();
      if (close == '}') {
        if (peek() != '"') fail("expected a field name in double quotes");
        parse_string();
        skip_space();
        expect(':', "':' after the field name");
        skip_space();
      }
      parse_value(depth + 1);
      skip_space();
      if (peek() == ',') {
        ++pos_;
      } else if (peek() == close) {
        ++pos_;
        return;
      } else {
        fail(close == ']' ? "expected ',' or ']' in array" : "expected ',' or '}' in object");
      }
    }
  }

  std::string parse_number() {
    const size_t start = pos_;
    if (peek() == '-') ++pos_;
    if (peek() == '0') {
      ++pos_;
    } else if (peek() >= '1' && peek() <= '9') {
      skip_digits();
    } else {
      fail("expected a digit in number");
    }
    if (peek() == '.') {
      ++pos_;
      if (!is_digit(peek())) fail("expected a digit after '.' in number");
      skip_digits();
    }
    if (peek() == 'e' || peek() == 'E') {
      ++pos_;
      if (peek() == '+' || peek() == '-') ++pos_;
      if (!is_digit(peek())) fail("expected a digit in the exponent of number");
      skip_digits();
    }
    return std::string(s_.substr(start, pos_ - start));
  }

  static bool is_digit(char c) { return c >= '0' && c <= '9'; }
  void skip_digits() {
    while (is_digit(peek())) ++pos_;
  }

  uint32_t parse_hex4() {
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i, ++pos_) {
      const char c = peek();
      v <<= 4;
      if (c >= '0' && c <= '9') {
        v |= static_cast<uint32_t>(c - '0');
      } else if (c >= 'a' && c <= 'f') {
        v |= static_cast<uint32_t>(c - 'a' + 10);
      } else if (c >= 'A' && c <= 'F') {
        v |= static_cast<uint32_t>(c - 'A' + 10);
      } else {
        fail("expected four hex digits after \\u");
      }
    }
    return v;
  }

  // \uXXXX, possibly the first half of a surrogate pair; pos_ is after "\u".
  void parse_unicode_escape(std::string& out) {
    const uint32_t unit = parse_hex4();
    if (unit >= 0xD800 && unit <= 0xDBFF && s_.substr(pos_, 2) == "\\u") {
      const size_t second_pos = pos_;
      pos_ += 2;
      const uint32_t low = parse_hex4();
      if (low >= 0xDC00 && low <= 0xDFFF) {
        append_utf8(out, 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00));
        return;
      }
      pos_ = second_pos;  // not a pair: the second escape stands on its own
    }
    if (unit >= 0xD800 && unit <= 0xDFFF) {
      append_utf8(out, 0xFFFD);
      ++replaced_;
      return;
    }
    append_utf8(out, unit);
  }

  std::string parse_string() {
    ++pos_;  // opening quote
    std::string out;
    while (true) {
      if (at_end()) fail("unterminated string (expected a closing '\"')");
      const char c = s_[pos_];
      if (c == '"') {
        ++pos_;
        break;
      }
      if (static_cast<unsigned char>(c) < 0x20) fail("control character in string (must be escaped)");
      if (c != '\\') {
        out += c;
        ++pos_;
        continue;
      }
      ++pos_;
      const char e = peek();
      ++pos_;
      if (e == 'u') {
        parse_unicode_escape(out);
        continue;
      }
      constexpr std::string_view kEscaped = "\"\\/bfnrt", kMeaning = "\"\\/\b\f\n\r\t";
      const size_t k = kEscaped.find(e);
      if (k == std::string_view::npos) {
        --pos_;
        fail("invalid escape in string");
      }
      out += kMeaning[k];
    }
    // Escapes only produce valid UTF-8, so this repairs the raw bytes alone.
    return repair_utf8(out, replaced_);
  }

  std::string_view s_;
  const std::string& where_;
  int64_t& replaced_;
  size_t pos_ = 0;
};

}  // namespace

JsonObject parse_json_object(std::string_view line, const std::string& where, int64_t& replaced) {
  return Parser(line, where, replaced).parse_object_line();
}

const JsonValue* find_field(const JsonObject& object, std::string_view name) {
  for (const auto& [field, value] : object) {
    if (field == name) return &value;
  }
  return nullptr;
}

const char* describe(JsonValue::Kind kind) {
  switch (kind) {
    case JsonValue::Kind::string:
      return "a string";
    case JsonValue::Kind::number:
      return "a number";
    case JsonValue::Kind::boolean:
      return "a boolean";
    case JsonValue::Kind::null:
      return "null";
    case JsonValue::Kind::nested:
      return "an array or object";
  }
  return "a value";
}

}  // namespace rotor
