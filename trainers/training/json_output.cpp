#include "trainers/training/json_output.h"

#include <cmath>
#include <string>

#include <fmt/core.h>

namespace rotor {

std::string json_line(const JsonFields& fields) {
  return fields.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

double round_to_significant(double value, int digits) {
  if (!std::isfinite(value)) return value;
  return std::stod(fmt::format("{:.{}g}", value, digits));
}

}  // namespace rotor
