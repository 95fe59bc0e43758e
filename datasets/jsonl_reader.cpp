#include "datasets/jsonl_reader.h"

#include <fstream>

#include "datasets/data_error.h"
#include "datasets/json_line.h"

namespace rotor {
namespace {

bool is_integer_literal(const std::string& number) { return number.find_first_of(".eE") == std::string::npos; }

const JsonValue& required_field(const JsonObject& object, const std::string& name, const std::string& where) {
  const JsonValue* value = find_field(object, name);
  if (value == nullptr) throw DataError(where + ": missing field '" + name + "'");
  return *value;
}

// The positions field: a list of integers in [0, kMaxTokenPosition].
std::vector<int32_t> read_positions(const JsonObject& object, const std::string& name, const std::string& where) {
  const JsonValue* found = find_field(object, name);
  if (found == nullptr)
    throw DataError(where + ": missing field '" + name + "' (data.positions_field: the run reads each token's " +
                    "position from it)");
  const JsonValue& value = *found;
  const std::string expected = where + ": field '" + name + "' (data.positions_field) must be a list of " +
                               "integers in [0, " + std::to_string(kMaxTokenPosition) + "], one per token";
  if (value.kind != JsonValue::Kind::array) throw DataError(expected + ", found " + describe(value.kind));
  std::vector<int32_t> positions;
  for (const JsonValue& item : value.items) {
    const bool digits = item.kind == JsonValue::Kind::number && is_integer_literal(item.text) &&
                        item.text.size() <= 10 && item.text[0] != '-';  // <= 10 digits: std::stoll cannot overflow
    const int64_t p = digits ? std::stoll(item.text) : -1;
    if (p < 0 || p > kMaxTokenPosition)
      throw DataError(expected + ", found " + (item.kind == JsonValue::Kind::number ? item.text : describe(item.kind)) +
                      " at index " + std::to_string(positions.size()));
    positions.push_back(static_cast<int32_t>(p));
  }
  if (positions.empty()) throw DataError(expected + ", found an empty list");
  return positions;
}

}  // namespace

std::vector<Document> read_jsonl(const std::string& path, const FieldNames& fields, Utf8Repairs& repairs) {
  require_file(path);
  std::ifstream in(path, std::ios::binary);
  std::vector<Document> docs;
  std::string line;
  for (int64_t line_number = 1; std::getline(in, line); ++line_number) {
    if (is_blank(line)) continue;
    const std::string where = path + ":" + std::to_string(line_number);
    int64_t replaced = 0;
    const JsonObject object = parse_json_object(line, where, replaced);
    repairs.add(replaced, where);

    const JsonValue& text = required_field(object, fields.text, where);
    if (text.kind != JsonValue::Kind::string) {
      throw DataError(where + ": field '" + fields.text + "' must be a string, found " + describe(text.kind));
    }
    std::string label;
    if (!fields.label.empty()) {
      const JsonValue& l = required_field(object, fields.label, where);
      const bool integer = l.kind == JsonValue::Kind::number && is_integer_literal(l.text);
      if (l.kind != JsonValue::Kind::string && !integer) {
        throw DataError(where + ": field '" + fields.label + "' must be a string or an integer, found " +
                        (l.kind == JsonValue::Kind::number ? l.text : describe(l.kind)));
      }
      label = l.text;
    }
    std::string key;
    const JsonValue* k = nullptr;
    if (!fields.key.empty()) {
      k = fields.key_optional ? find_field(object, fields.key) : &required_field(object, fields.key, where);
    }
    if (k != nullptr) {
      if (k->kind != JsonValue::Kind::string && k->kind != JsonValue::Kind::number) {
        throw DataError(where + ": field '" + fields.key + "' must be a string or a number, found " +
                        describe(k->kind));
      }
      key = k->text;
    }
    docs.push_back(make_document(text.text, std::move(label), std::move(key), where, fields));
    if (!fields.positions.empty()) docs.back().positions = read_positions(object, fields.positions, where);
  }
  if (in.bad()) throw DataError("error while reading '" + path + "'");
  if (docs.empty()) throw DataError(path + ": no documents (expected one JSON object per line)");
  return docs;
}

}  // namespace rotor
