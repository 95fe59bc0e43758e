#pragma once
// Bounds of a numeric option, written once beside the option and used by
// every check and listing of it (the config loader, the model's validate(),
// `rotor config --reference`).
#include <optional>
#include <string>

namespace rotor {

struct ValueRange {
  std::optional<double> min, max;
  bool min_exclusive = false, max_exclusive = false;

  bool bounded() const { return min.has_value() || max.has_value(); }
  // ">= 0", "in [0, 1)", ...; "" when unbounded.
  std::string text() const;
  // "" when `value` is within the range, else "must be >= 0" and the like (NaN is never within a bound).
  std::string violation(double value) const;
};

}  // namespace rotor
