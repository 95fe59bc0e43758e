#include "models/position_option.h"

#include <fmt/format.h>

#include "models/model_config.h"

namespace rotor {

PositionOption PositionOption::make(std::string key, PositionValue value, std::string help) {
  PositionOption o;
  o.key = std::move(key);
  o.default_value = std::move(value);
  o.help = std::move(help);
  return o;
}

PositionOption PositionOption::flag(std::string key, bool value, std::string help) {
  return make(std::move(key), value, std::move(help));
}
PositionOption PositionOption::integer(std::string key, int64_t value, std::string help) {
  return make(std::move(key), value, std::move(help));
}
PositionOption PositionOption::number(std::string key, double value, std::string help) {
  return make(std::move(key), value, std::move(help));
}
PositionOption PositionOption::numbers(std::string key, std::vector<double> value, std::string help) {
  return make(std::move(key), std::move(value), std::move(help));
}

PositionOption& PositionOption::train_length_default() {
  defaults_to_train_length = true;
  return *this;
}

PositionOption training_length_option() {
  return PositionOption::integer("original_max_len", 512,
                                 "training length: where RoPE's scalings and logn_scaling start (yarn's correction "
                                 "range, llama3's wavelengths; default data.max_len)")
      .train_length_default();
}

std::string PositionOption::type_name() const {
  static const char* const names[] = {"boolean", "integer", "number", "string", "list of numbers"};
  static_assert(std::variant_size_v<PositionValue> == 5);
  return names[default_value.index()];
}

PositionValue coerce_position_value(const PositionOption& option, PositionValue value) {
  const size_t want = option.default_value.index();
  if (value.index() == want) return value;
  // A whole number where a number is declared (base: 500) is that number.
  if (std::holds_alternative<int64_t>(value) && std::holds_alternative<double>(option.default_value))
    return static_cast<double>(std::get<int64_t>(value));
  throw ModelConfigError("model.position." + option.key + ": expected " + option.type_name() + ", got " +
                         position_value_text(value));
}

std::string position_value_text(const PositionValue& value) {
  if (const bool* b = std::get_if<bool>(&value)) return *b ? "true" : "false";
  if (const int64_t* i = std::get_if<int64_t>(&value)) return std::to_string(*i);
  if (const double* d = std::get_if<double>(&value)) return fmt::format("{}", *d);
  if (const auto* list = std::get_if<std::vector<double>>(&value)) return fmt::format("[{}]", fmt::join(*list, ", "));
  return std::get<std::string>(value);
}

}  // namespace rotor
