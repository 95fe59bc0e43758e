#include "trainers/cli/command.h"

#include <fmt/core.h>

namespace rotor {

const CLI::Validator& positive_number() {
  static const CLI::Validator positive(
      [](std::string& v) {
        const bool ok =
            !v.empty() && v.size() < 19 && v.find_first_not_of("0123456789") == std::string::npos && std::stoll(v) > 0;
        return ok ? std::string() : "expected a positive whole number, got " + v;
      },
      "N > 0");
  return positive;
}

void print_warning(const std::string& w) { fmt::print(stderr, "warning: {}\n", w); }

}  // namespace rotor
