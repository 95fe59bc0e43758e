#pragma once
// JSON Lines records: each line is one object, parsed by nlohmann::json's SAX
// parser. Scalar fields are kept, and so are arrays of scalars (a record's
// per-token positions); deeper values are validated and skipped, since a
// classification record only needs a text, a label, maybe a key and positions.
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace rotor {

struct JsonValue {
  enum class Kind { string, number, boolean, null, array, nested };
  Kind kind = Kind::null;
  // string: the unescaped UTF-8 text; number: the literal as written;
  // boolean: "true" or "false"; null, array and nested: empty.
  std::string text;
  std::vector<JsonValue> items;  // array (of scalars only): its elements; an array holding more is nested
};

// Fields in the order they appear; duplicate names are an error.
using JsonObject = std::vector<std::pair<std::string, JsonValue>>;

// Parses `line` as one JSON object (RFC 8259). Errors throw DataError
// "<where>:<column>: <what was expected>", where `where` is "file:line";
// a field name that appears twice at the top level is an error. Invalid UTF-8
// and lone surrogate escapes in strings become U+FFFD and are added to
// `replaced` (the column of a syntax error counts the repaired text).
JsonObject parse_json_object(std::string_view line, const std::string& where, int64_t& replaced);

// The field called `name`, or nullptr.
const JsonValue* find_field(const JsonObject& object, std::string_view name);

// Name of a value's kind for messages ("a string", "a number"...).
const char* describe(JsonValue::Kind kind);

}  // namespace rotor
