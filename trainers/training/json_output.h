#pragma once
// JSON written by rotor (metrics.jsonl, summary.json, eval metrics,
// predictions) is built with nlohmann::ordered_json, so fields keep the order
// they were added in.
#include <string>

#include <nlohmann/json.hpp>

namespace rotor {

using JsonFields = nlohmann::ordered_json;

// One compact line: numbers in their shortest round-trip form (logged values
// compare bit for bit), NaN and infinities as null (JSON has neither), invalid
// UTF-8 in strings replaced by U+FFFD.
std::string json_line(const JsonFields& fields);

// `value` rounded to `digits` significant digits, for numbers read by people.
double round_to_significant(double value, int digits);

}  // namespace rotor
