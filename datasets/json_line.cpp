#include "datasets/json_line.h"

#include <nlohmann/json.hpp>

#include "datasets/data_error.h"
#include "datasets/utf8.h"

namespace rotor {
namespace {

using nlohmann::json;

// Deep nesting can only come from broken or hostile input.
constexpr size_t kMaxNesting = 64;

bool is_hex(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

// The code unit of the \uXXXX escape at text[i] ('\\'), or -1 if there is none.
long escape_at(std::string_view text, size_t i) {
  if (i + 6 > text.size() || text[i] != '\\' || text[i + 1] != 'u') return -1;
  for (size_t k = i + 2; k < i + 6; ++k)
    if (!is_hex(text[k])) return -1;
  return std::stol(std::string(text.substr(i + 2, 4)), nullptr, 16);
}

// nlohmann rejects lone UTF-16 surrogate escapes; users' files have them, so
// each becomes \ufffd (U+FFFD) and is counted, like invalid UTF-8 bytes.
std::string replace_lone_surrogates(std::string_view text, int64_t& replaced) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    if (text[i] != '\\' || i + 1 >= text.size()) {
      out += text[i++];
      continue;
    }
    const long unit = escape_at(text, i);
    if (unit < 0xD800 || unit > 0xDFFF) {  // not a surrogate (or not \u): copy the escape as it is
      out.append(text.substr(i, 2));
      i += 2;
      continue;
    }
    const long low = unit < 0xDC00 ? escape_at(text, i + 6) : -1;
    if (low >= 0xDC00 && low <= 0xDFFF) {
      out.append(text.substr(i, 12));
      i += 12;
    } else {
      out += "\\ufffd";
      ++replaced;
      i += 6;
    }
  }
  return out;
}

// Collects the top-level scalar fields of one object, and its arrays of
// scalars; deeper values are checked by the parser and kept as Kind::nested.
class ObjectReader : public json::json_sax_t {
 public:
  ObjectReader(std::string_view line, const std::string& where) : line_(line), where_(where) {}

  bool null() override { return scalar(JsonValue::Kind::null, ""); }
  bool boolean(bool v) override { return scalar(JsonValue::Kind::boolean, v ? "true" : "false"); }
  bool number_integer(number_integer_t v) override { return scalar(JsonValue::Kind::number, std::to_string(v)); }
  bool number_unsigned(number_unsigned_t v) override { return scalar(JsonValue::Kind::number, std::to_string(v)); }
  bool number_float(number_float_t, const string_t& literal) override {
    return scalar(JsonValue::Kind::number, literal);
  }
  bool string(string_t& v) override { return scalar(JsonValue::Kind::string, v); }
  bool binary(binary_t&) override { return scalar(JsonValue::Kind::nested, ""); }
  bool start_object(std::size_t) override { return open(JsonValue::Kind::nested); }
  bool start_array(std::size_t) override {
    if (depth_ == 0) fail(line_.find_first_not_of(" \t\r") + 1, "expected '{' (one JSON object per line)");
    return open(JsonValue::Kind::array);
  }
  bool end_object() override { return close(); }
  bool end_array() override { return close(); }
  bool key(string_t& name) override {
    if (depth_ == 1) {
      if (find_field(object_, name) != nullptr) fail(column_of_second_key(name), "duplicate field '" + name + "'");
      object_.emplace_back(name, JsonValue{});
    }
    return true;
  }
  bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception& e) override {
    // e.what(): "[json.exception.parse_error.101] parse error at line 1, column 6: syntax error ..."
    std::string what = e.what();
    const size_t at = what.find(": ", what.find("column "));
    fail(position, at == std::string::npos ? what : what.substr(at + 2));
  }

  JsonObject take() { return std::move(object_); }

 private:
  [[noreturn]] void fail(size_t column, const std::string& message) const {
    throw DataError(where_ + ":" + std::to_string(column) + ": " + message);
  }
  bool scalar(JsonValue::Kind kind, std::string text) {
    if (depth_ == 0) fail(line_.find_first_not_of(" \t\r") + 1, "expected '{' (one JSON object per line)");
    if (depth_ == 1) object_.back().second = JsonValue{kind, std::move(text), {}};
    if (depth_ == 2 && object_.back().second.kind == JsonValue::Kind::array)
      object_.back().second.items.push_back(JsonValue{kind, std::move(text), {}});
    return true;
  }
  bool open(JsonValue::Kind kind) {
    if (depth_ == 1) object_.back().second.kind = kind;
    if (depth_ == 2) object_.back().second = JsonValue{JsonValue::Kind::nested, "", {}};  // an array of arrays
    if (++depth_ > kMaxNesting) fail(1, "values nested deeper than " + std::to_string(kMaxNesting) + " levels");
    return true;
  }
  bool close() {
    --depth_;
    return true;
  }
  // 1-based column of the second `"name":` in the line (the parser does not
  // report positions of keys).
  size_t column_of_second_key(const std::string& name) const {
    const std::string quoted = json(name).dump();
    size_t seen = 0;
    for (size_t at = line_.find(quoted); at != std::string::npos; at = line_.find(quoted, at + 1)) {
      const size_t next = line_.find_first_not_of(" \t", at + quoted.size());
      if (next != std::string::npos && line_[next] == ':' && ++seen == 2) return at + 1;
    }
    return 1;
  }

  std::string_view line_;
  const std::string& where_;
  size_t depth_ = 0;
  JsonObject object_;
};

}  // namespace

JsonObject parse_json_object(std::string_view line, const std::string& where, int64_t& replaced) {
  const std::string text = replace_lone_surrogates(repair_utf8(line, replaced), replaced);
  ObjectReader reader(text, where);
  json::sax_parse(text, &reader);
  return reader.take();
}

const JsonValue* find_field(const JsonObject& object, std::string_view name) {
  for (const auto& [key, value] : object)
    if (key == name) return &value;
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
    case JsonValue::Kind::array:
      return "an array";
    case JsonValue::Kind::nested:
      return "an object or nested array";
  }
  return "a value";
}
}  // namespace rotor
