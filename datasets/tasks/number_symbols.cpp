#include "datasets/tasks/number_symbols.h"

#include <algorithm>

#include "datasets/data_error.h"

namespace rotor {

std::string number_symbol(int64_t k) { return std::to_string(k); }

int64_t symbol_number(const std::string& symbol, int64_t count, const char* task) {
  const bool digits_only = !symbol.empty() && symbol.size() <= 18 &&
                           std::all_of(symbol.begin(), symbol.end(), [](char c) { return c >= '0' && c <= '9'; });
  const bool canonical = digits_only && (symbol.size() == 1 || symbol[0] != '0');
  const int64_t k = canonical ? std::stoll(symbol) : -1;
  if (k < 0 || k >= count) {
    throw DataError(std::string("task '") + task + "': symbol '" + symbol + "' is not one of 0.." +
                    std::to_string(count - 1));
  }
  return k;
}

void require_input(bool ok, const char* task, const std::string& what) {
  if (!ok) throw DataError(std::string("task '") + task + "': " + what);
}

void check_symbols(const Symbols& input, int64_t count, const char* task) {
  require_input(!input.empty(), task, "the input is empty");
  for (const std::string& symbol : input) symbol_number(symbol, count, task);
}

Symbols sorted_numbers(const Symbols& input, int64_t count, const char* task) {
  check_symbols(input, count, task);
  std::vector<int64_t> values;
  for (const std::string& symbol : input) values.push_back(symbol_number(symbol, count, task));
  std::sort(values.begin(), values.end());
  Symbols out;
  for (int64_t value : values) out.push_back(number_symbol(value));
  return out;
}

Digits digits_of(const Symbols& symbols, int base, const char* task) {
  Digits digits;
  for (const std::string& symbol : symbols) digits.push_back(static_cast<int>(symbol_number(symbol, base, task)));
  return trimmed(digits);
}

std::pair<Digits, Digits> operands_of(const Symbols& input, const std::string& op, int base, const char* task) {
  const auto at = std::find(input.begin(), input.end(), op);
  require_input(
      at != input.begin() && at != input.end() && at + 1 != input.end() && std::count(at + 1, input.end(), op) == 0,
      task, "expected digits '" + op + "' digits");
  return {digits_of(Symbols(input.begin(), at), base, task), digits_of(Symbols(at + 1, input.end()), base, task)};
}

Symbols written(const Digits& digits, size_t width) {
  Symbols out;
  for (int digit : digits) out.push_back(number_symbol(digit));
  out.resize(std::max({width, digits.size(), size_t{1}}), "0");
  return out;
}

}  // namespace rotor
