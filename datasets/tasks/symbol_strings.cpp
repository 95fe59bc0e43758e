#include "datasets/tasks/symbol_strings.h"

#include "datasets/data_error.h"
#include "datasets/tasks/sample_draws.h"

namespace rotor {

int64_t digit_value(const std::string& s, int64_t base) {
  for (int64_t v = 0; v < base; ++v)
    if (s == number_symbol(v)) return v;
  throw DataError("'" + s + "' is not a digit 0.." + number_symbol(base - 1));
}

std::vector<int64_t> bit_values(const std::vector<std::string>& symbols) {
  std::vector<int64_t> out;
  for (const std::string& s : symbols) out.push_back(digit_value(s, 2));
  return out;
}

std::vector<std::string> draw_bits(const RandomKey& key, int64_t n) {
  Draws draws(key);
  return draw_numbers(draws, n, 0, 2);
}

int64_t modulo(int64_t a, int64_t m) { return (a % m + m) % m; }

}  // namespace rotor
