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

  // Builders: the one place that says which bound is inclusive.
  ValueRange& at_least(double bound) { return set_min(bound, false); }
  ValueRange& above(double bound) { return set_min(bound, true); }
  ValueRange& at_most(double bound) { return set_max(bound, false); }
  ValueRange& below(double bound) { return set_max(bound, true); }

  bool bounded() const { return min.has_value() || max.has_value(); }
  // ">= 0", "in [0, 1)", ...; "" when unbounded.
  std::string text() const;
  // "" when `value` is within the range, else "must be >= 0" and the like (NaN is never within a bound).
  std::string violation(double value) const;

 private:
  ValueRange& set_min(double bound, bool exclusive) {
    min = bound;
    min_exclusive = exclusive;
    return *this;
  }
  ValueRange& set_max(double bound, bool exclusive) {
    max = bound;
    max_exclusive = exclusive;
    return *this;
  }
};

}  // namespace rotor
