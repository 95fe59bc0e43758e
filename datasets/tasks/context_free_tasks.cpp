// The deterministic context-free tasks of Deletang et al. 2023
// (neural_networks_chomsky_hierarchy tasks/dcf/*.py; the same in
// randomized_positional_encodings): each a drawn input and its output
// (context_free_tasks.h).
#include "datasets/tasks/context_free_tasks.h"

#include <algorithm>

#include "datasets/data_error.h"
#include "datasets/tasks/bracket_expressions.h"
#include "datasets/tasks/symbol_strings.h"
#include "datasets/tasks/task_families.h"

namespace rotor {
namespace {

using Symbols = std::vector<std::string>;

const Symbols kActions = {kPop, kPushZero, kPushOne};  // the authors' actions 2, 3, 4

SequenceSample sample_of(Symbols input, Symbols (*output)(const Symbols&)) {
  Symbols out = output(input);
  return {std::move(input), std::move(out)};
}

// _sample_expression_and_result: n = 1 is one stack value; otherwise a stack
// of 1..n-1 uniform values, then uniform actions up to n symbols.
SequenceSample draw_stack_manipulation(const RandomKey& key, int64_t n) {
  Draws draws(key);
  const int64_t stack = n == 1 ? 1 : draws.between(1, n - 1);
  Symbols input;
  for (int64_t i = 0; i < stack; ++i) input.push_back(number_symbol(draws.below(2)));
  for (int64_t i = stack; i < n; ++i) input.push_back(kActions[draws.below(3)]);
  SequenceSample sample = sample_of(std::move(input), stack_manipulation_output);
  sample.padding = padding_after(sample.output, kStackEnd);  // the authors score up to END
  return sample;
}

SequenceSample draw_reverse_string(const RandomKey& key, int64_t n) {
  return sample_of(draw_bits(key, n), reverse_string_output);
}

// modular_arithmetic_brackets.py with mult=True, as both papers' constants.py.
SequenceSample draw_modular_arithmetic_brackets(const RandomKey& key, int64_t n) {
  Draws draws(key);
  return sample_of(draw_bracket_expression(draws, n, true), modular_arithmetic_brackets_output);
}

// generate_equation_and_solution: an expression of n - 2 symbols without "*";
// "x" replaces the first digit at or after a uniform position (cyclically);
// then "==" and the expression's value.
SequenceSample draw_solve_equation(const RandomKey& key, int64_t n) {
  Draws draws(key);
  Symbols input = draw_bracket_expression(draws, n - 2, false);
  const int64_t value = bracket_expression_value(input, 0, input.size());
  auto at = static_cast<size_t>(draws.below(n - 2));
  while (input[at] == "(" || input[at] == ")" || input[at] == "+" || input[at] == "-") at = (at + 1) % input.size();
  input[at] = "x";
  input.emplace_back(kEquals);
  input.push_back(number_symbol(value));
  return sample_of(std::move(input), solve_equation_output);
}

}  // namespace

std::vector<std::string> stack_manipulation_output(const std::vector<std::string>& input) {
  Symbols stack;
  size_t i = 0;
  for (; i < input.size() && (input[i] == "0" || input[i] == "1"); ++i) stack.push_back(input[i]);
  for (; i < input.size(); ++i) {
    if (input[i] == kPop) {
      if (!stack.empty()) stack.pop_back();
    } else if (input[i] == kPushZero || input[i] == kPushOne) {
      stack.emplace_back(input[i] == kPushZero ? "0" : "1");
    } else {
      throw DataError("stack-manipulation: '" + input[i] + "' is not an action (POP, PUSH0, PUSH1) after the stack");
    }
  }
  Symbols out(stack.rbegin(), stack.rend());
  out.emplace_back(kStackEnd);
  out.resize(input.size() + 1, "0");
  return out;
}

std::vector<std::string> reverse_string_output(const std::vector<std::string>& input) {
  bit_values(input);  // the alphabet is {0, 1}
  return Symbols(input.rbegin(), input.rend());
}

std::vector<std::string> modular_arithmetic_brackets_output(const std::vector<std::string>& input) {
  return {number_symbol(bracket_expression_value(input, 0, input.size()))};
}

std::vector<std::string> solve_equation_output(const std::vector<std::string>& input) {
  const auto equals = std::find(input.begin(), input.end(), kEquals);
  if (equals == input.end() || equals + 2 != input.end())
    throw DataError("solve-equation: an equation ends with '==' and a digit");
  const auto lhs_end = static_cast<size_t>(equals - input.begin());
  const int64_t value = digit_value(input.back(), kBracketModulus);
  if (std::count(input.begin(), equals, "x") != 1) throw DataError("solve-equation: an equation has one 'x'");
  for (int64_t x = 0; x < kBracketModulus; ++x)
    if (bracket_expression_value(input, 0, lhs_end, x) == value) return {number_symbol(x)};
  throw DataError("solve-equation: no x in 0..4 solves the equation");
}

std::vector<SequenceTask> context_free_tasks() {
  return {
      {"stack-manipulation", "Deletang et al. 2023; neural_networks_chomsky_hierarchy tasks/dcf/stack_manipulation.py",
       TaskLevel::context_free, 1, draw_stack_manipulation},
      {"reverse-string", "Deletang et al. 2023; neural_networks_chomsky_hierarchy tasks/dcf/reverse_string.py",
       TaskLevel::context_free, 1, draw_reverse_string},
      {"modular-arithmetic-brackets",
       "Deletang et al. 2023; neural_networks_chomsky_hierarchy tasks/dcf/modular_arithmetic_brackets.py "
       "(mult=True, as experiments/constants.py)",
       TaskLevel::context_free, 1, draw_modular_arithmetic_brackets},
      {"solve-equation", "Deletang et al. 2023; neural_networks_chomsky_hierarchy tasks/dcf/solve_equation.py",
       TaskLevel::context_free, 3, draw_solve_equation},
  };
}

}  // namespace rotor
