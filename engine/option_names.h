#pragma once
// Options with a fixed set of values, as enums with one name table each. An
// enum E declares its names once, beside E, as a specialisation
//   template <> struct OptionNames<E> { static constexpr std::array<std::pair<E, const char*>, N> table{...}; };
// and the config layer parses strings with parse_option() and lists the allowed
// values with option_names(), so nothing past the config boundary compares
// strings. Generic: every layer (datasets, models, trainers) declares its own.
#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace rotor {

template <class E>
struct OptionNames;

template <class E>
const char* option_name(E value) {
  for (const auto& [e, name] : OptionNames<E>::table)
    if (e == value) return name;
  return "?";  // unreachable: every enumerator has a row
}

template <class E>
std::optional<E> parse_option(std::string_view name) {
  for (const auto& [e, n] : OptionNames<E>::table)
    if (name == n) return e;
  return std::nullopt;
}

template <class E>
std::vector<std::string> option_names() {
  std::vector<std::string> names;
  for (const auto& row : OptionNames<E>::table) names.emplace_back(row.second);
  return names;
}

}  // namespace rotor
