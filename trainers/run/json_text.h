#pragma once
// JSON lines written by rotor (metrics.jsonl, summary.json, eval records,
// predictions) are built with nlohmann::ordered_json, so fields keep the order
// they were added in.
#include <string>

#include <nlohmann/json.hpp>

namespace rotor {

using JsonFields = nlohmann::ordered_json;

// One compact line: numbers in their shortest round-trip form (logged values
// compare bit for bit), NaN and infinities as null (JSON has neither), invalid
// UTF-8 in strings replaced by U+FFFD.
std::string compact_json(const JsonFields& fields);

// `value` rounded to `digits` significant digits, for numbers read by people.
double round_to_significant(double value, int digits);

// A number field that may be null (NaN or infinity when written): NaN then.
double number_or_nan(const JsonFields& fields, const char* key);

}  // namespace rotor
