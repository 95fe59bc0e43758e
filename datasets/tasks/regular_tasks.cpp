// The regular tasks of Deletang et al. 2023 (neural_networks_chomsky_hierarchy
// tasks/regular/*.py; the same in randomized_positional_encodings): each a
// drawn input and its output (regular_tasks.h). One output symbol each.
#include "datasets/tasks/regular_tasks.h"

#include <algorithm>
#include <numeric>

#include "datasets/data_error.h"
#include "datasets/tasks/draws.h"
#include "datasets/tasks/symbol_strings.h"
#include "datasets/tasks/task_families.h"

namespace rotor {
namespace {

using Symbols = std::vector<std::string>;

constexpr int64_t kModulus = 5;      // modular_arithmetic.py: "We use 5 in the paper"
constexpr int64_t kCycleLength = 5;  // cycle_navigation.py: _cycle_length
const Symbols kMoves = {"-1", "0", "+1"};
const Symbols kModularOperators = {"+", "*", "-"};  // modular_arithmetic.py's default order

// A term's value: the product of its factors, negated when a "-" precedes it.
struct Term {
  int64_t sign = 1;
  int64_t product = 1;
};

SequenceSample draw_bits_sample(const RandomKey& key, int64_t n, Symbols (*output)(const Symbols&)) {
  Symbols input = draw_bits(key, n);
  Symbols out = output(input);
  return {std::move(input), std::move(out)};
}

SequenceSample draw_even_pairs(const RandomKey& key, int64_t n) { return draw_bits_sample(key, n, even_pairs_output); }

SequenceSample draw_parity_check(const RandomKey& key, int64_t n) {
  return draw_bits_sample(key, n, parity_check_output);
}

// modular_arithmetic.py forces an odd length by dropping one from an even n;
// digits and operators alternate, each uniform.
SequenceSample draw_modular_arithmetic(const RandomKey& key, int64_t n) {
  Draws draws(key);
  const int64_t length = n % 2 == 1 ? n : n - 1;
  Symbols input;
  for (int64_t i = 0; i < length; ++i)
    input.push_back(i % 2 == 0 ? number_symbol(draws.below(kModulus)) : kModularOperators[draws.below(3)]);
  Symbols out = modular_arithmetic_output(input);
  return {std::move(input), std::move(out)};
}

SequenceSample draw_cycle_navigation(const RandomKey& key, int64_t n) {
  Draws draws(key);
  Symbols input;
  for (int64_t i = 0; i < n; ++i) input.push_back(kMoves[draws.below(3)]);
  Symbols out = cycle_navigation_output(input);
  return {std::move(input), std::move(out)};
}

}  // namespace

std::vector<std::string> even_pairs_output(const std::vector<std::string>& input) {
  const std::vector<int64_t> bits = bit_values(input);
  int64_t unequal = 0;
  for (size_t i = 0; i + 1 < bits.size(); ++i) unequal += bits[i] != bits[i + 1];
  return {number_symbol(unequal % 2)};
}

std::vector<std::string> parity_check_output(const std::vector<std::string>& input) {
  const std::vector<int64_t> bits = bit_values(input);
  return {number_symbol(std::accumulate(bits.begin(), bits.end(), int64_t{0}) % 2)};
}

std::vector<std::string> modular_arithmetic_output(const std::vector<std::string>& input) {
  if (input.size() % 2 == 0) throw DataError("modular-arithmetic: an expression has odd length");
  std::vector<Term> terms{{1, digit_value(input[0], kModulus)}};
  for (size_t i = 1; i < input.size(); i += 2) {
    const int64_t value = digit_value(input[i + 1], kModulus);
    if (input[i] == "*") {
      terms.back().product = terms.back().product * value % kModulus;
    } else if (input[i] == "+" || input[i] == "-") {
      terms.push_back({input[i] == "-" ? -1 : 1, value});
    } else {
      throw DataError("modular-arithmetic: '" + input[i] + "' is not an operator (+, -, *)");
    }
  }
  int64_t sum = 0;
  for (const Term& t : terms) sum += t.sign * t.product;
  return {number_symbol(modulo(sum, kModulus))};
}

std::vector<std::string> cycle_navigation_output(const std::vector<std::string>& input) {
  int64_t position = 0;
  for (const std::string& s : input) {
    const auto move = std::find(kMoves.begin(), kMoves.end(), s);
    if (move == kMoves.end()) throw DataError("cycle-navigation: '" + s + "' is not a move (-1, 0, +1)");
    position += (move - kMoves.begin()) - 1;
  }
  return {number_symbol(modulo(position, kCycleLength))};
}

std::vector<SequenceTask> regular_tasks() {
  return {
      {"even-pairs", "Deletang et al. 2023; neural_networks_chomsky_hierarchy tasks/regular/even_pairs.py",
       TaskLevel::regular, 1, draw_even_pairs},
      {"modular-arithmetic",
       "Deletang et al. 2023; neural_networks_chomsky_hierarchy tasks/regular/modular_arithmetic.py",
       TaskLevel::regular, 1, draw_modular_arithmetic},
      {"parity-check", "Deletang et al. 2023; neural_networks_chomsky_hierarchy tasks/regular/parity_check.py",
       TaskLevel::regular, 1, draw_parity_check},
      {"cycle-navigation", "Deletang et al. 2023; neural_networks_chomsky_hierarchy tasks/regular/cycle_navigation.py",
       TaskLevel::regular, 1, draw_cycle_navigation},
  };
}

}  // namespace rotor
