#pragma once
// One model.position.* option as the encoding that reads it declares it: key,
// type (the default's), allowed values or range, and help. The config schema,
// `rotor config --reference`, the check that rejects another encoding's key
// and the defaults a PositionConfig falls back to are all built from these
// rows (PositionEncodingSpec::options), so an encoding's keys live in its file.
#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "models/model_options.h"
#include "models/value_range.h"

namespace rotor {

// A list of numbers: one per rotary pair (LongRoPE's rescale factors).
using PositionValue = std::variant<bool, int64_t, double, std::string, std::vector<double>>;

struct PositionOption {
  std::string key;  // under model.position: "base"
  PositionValue default_value;
  std::string help;
  std::vector<std::string> choices;  // a string option's allowed values
  ValueRange range;                  // a number's bounds
  // Unset in a config file: the config loader gives it the run's data.max_len (rope's original_max_len).
  bool defaults_to_train_length = false;

  static PositionOption flag(std::string key, bool value, std::string help);
  static PositionOption integer(std::string key, int64_t value, std::string help);
  static PositionOption number(std::string key, double value, std::string help);
  static PositionOption numbers(std::string key, std::vector<double> value, std::string help);
  // A string whose values are an enum's name table (models/model_options.h).
  template <class E>
  static PositionOption choice(std::string key, E value, std::string help) {
    PositionOption o = make(std::move(key), std::string(option_name(value)), std::move(help));
    o.choices = option_names<E>();
    return o;
  }

  PositionOption& at_least(double bound) {
    range.at_least(bound);
    return *this;
  }
  PositionOption& above(double bound) {
    range.above(bound);
    return *this;
  }
  PositionOption& at_most(double bound) {
    range.at_most(bound);
    return *this;
  }
  PositionOption& train_length_default();

  // boolean | integer | number | string | list of numbers
  std::string type_name() const;

 private:
  static PositionOption make(std::string key, PositionValue value, std::string help);
};

// model.position.original_max_len: the training length, which RoPE's scalings and
// logn_scaling measure from (default: the run's data.max_len); declared alike by every encoding reading it.
PositionOption training_length_option();

// `value` as the option's type; throws ModelConfigError naming model.position.<key> when it is not one.
PositionValue coerce_position_value(const PositionOption& option, PositionValue value);
// 10000, true, "half", [1, 1.5]: a value as a config file writes it.
std::string position_value_text(const PositionValue& value);

}  // namespace rotor
