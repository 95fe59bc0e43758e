#include "datasets/tasks/symbol_strings.h"

#include "datasets/data_error.h"
#include "datasets/tasks/draws.h"

namespace rotor {

std::string digit(int64_t value) { return std::to_string(value); }

int64_t digit_value(const std::string& s, int64_t base) {
  for (int64_t v = 0; v < base; ++v)
    if (s == digit(v)) return v;
  throw DataError("'" + s + "' is not a digit 0.." + digit(base - 1));
}

std::vector<int64_t> bit_values(const std::vector<std::string>& symbols) {
  std::vector<int64_t> out;
  for (const std::string& s : symbols) out.push_back(digit_value(s, 2));
  return out;
}

std::vector<std::string> draw_bits(const RandomKey& key, int64_t n) {
  Draws draws(key);
  std::vector<std::string> out;
  for (int64_t i = 0; i < n; ++i) out.push_back(digit(draws.below(2)));
  return out;
}

int64_t modulo(int64_t a, int64_t m) { return (a % m + m) % m; }

}  // namespace rotor
