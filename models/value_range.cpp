#include "models/value_range.h"

#include <fmt/core.h>

namespace rotor {

std::string ValueRange::text() const {
  if (min && max) return fmt::format("in {}{}, {}{}", min_exclusive ? "(" : "[", *min, *max, max_exclusive ? ")" : "]");
  if (min) return fmt::format("{} {}", min_exclusive ? ">" : ">=", *min);
  if (max) return fmt::format("{} {}", max_exclusive ? "<" : "<=", *max);
  return "";
}

std::string ValueRange::violation(double v) const {
  const bool low_ok = !min || (min_exclusive ? v > *min : v >= *min);
  const bool high_ok = !max || (max_exclusive ? v < *max : v <= *max);
  return low_ok && high_ok ? "" : "must be " + text();
}

}  // namespace rotor
