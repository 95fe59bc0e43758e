#include "trainers/run/json_text.h"

#include <cmath>
#include <limits>
#include <string>

#include <fmt/core.h>

namespace rotor {

std::string compact_json(const JsonFields& fields) {
  return fields.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

double round_to_significant(double value, int digits) {
  if (!std::isfinite(value)) return value;
  return std::stod(fmt::format("{:.{}g}", value, digits));
}

double number_or_nan(const JsonFields& fields, const char* key) {
  const JsonFields& value = fields.at(key);
  return value.is_null() ? std::numeric_limits<double>::quiet_NaN() : value.get<double>();
}

}  // namespace rotor
