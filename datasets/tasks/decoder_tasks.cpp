// The decoder tasks of Kazemnejad et al. 2023 that fit a small vocabulary, as
// the authors' dataset builders draw them (McGill-NLP/length-generalization
// scripts/dataset_builders/make_*_dataset.py), without the English prompt and
// answer templates of their instance processors (src/data/
// data_instance_processor/): the input is the symbols the prompt lists, the
// output the symbols the answer states. A task's length n is its number of
// input symbols, which is the authors' length ("cat") for all but addition.
#include <algorithm>

#include "datasets/tasks/cs_decoder_tasks.h"
#include "datasets/tasks/sample_draws.h"

namespace rotor {
namespace {

// Copy and reverse draw from the authors' first 100 single-token T5 symbols,
// sort from their first 50; token i of that list is the symbol "i" here, and
// sorting is by i, as the authors sort token ids.
constexpr int64_t kCopySymbols = 100;
constexpr int64_t kSortSymbols = 50;

Symbols copy_string(Draws& draws, int64_t n) { return draw_numbers(draws, n, 0, kCopySymbols); }

Symbols sort_string(Draws& draws, int64_t n) { return draw_numbers(draws, n, 0, kSortSymbols); }

Symbols summands(Draws& draws, int64_t n) { return draw_numbers(draws, n, 1, 9); }  // the authors draw 1..9

Symbols bits(Draws& draws, int64_t n) { return draw_numbers(draws, n, 0, 2); }

// A decimal number of exactly `count` digits, uniform as the authors draw it
// (in [10^(count - 1), 10^count), or [0, 10) for one digit), least significant
// digit first.
Symbols decimal_operand(Draws& draws, int64_t count) {
  Symbols digits = draw_numbers(draws, count - 1, 0, 10);
  digits.push_back(number_symbol(count == 1 ? draws.below(10) : 1 + draws.below(9)));
  return digits;
}

// a + b with a of l digits, l uniform in [1, n - 2], and b of the other
// n - 1 - l: the authors' "l-by-(n-1-l)" bin at total length n.
Symbols decimal_sum(Draws& draws, int64_t n) {
  const int64_t first = 1 + draws.below(n - 2);
  Symbols input = decimal_operand(draws, first);
  input.push_back("+");
  for (std::string& digit : decimal_operand(draws, n - 1 - first)) input.push_back(std::move(digit));
  return input;
}

}  // namespace

namespace sequence_answers {

Symbols copy(const Symbols& input) {
  check_symbols(input, kCopySymbols, "copy");
  return input;
}

Symbols reverse(const Symbols& input) {
  check_symbols(input, kCopySymbols, "reverse");
  return Symbols(input.rbegin(), input.rend());
}

Symbols sort(const Symbols& input) { return sorted_numbers(input, kSortSymbols, "sort"); }

Symbols addition(const Symbols& input) {
  // Digits least significant first, in the operands and the sum (the authors
  // write them most significant first; see docs/guide/tasks-sequence.md).
  const auto [a, b] = operands_of(input, "+", 10, "addition");
  return written(add(a, b, 10), 1);
}

Symbols summation(const Symbols& input) {
  check_symbols(input, 10, "summation");
  int64_t sum = 0;
  for (const std::string& digit : input) sum += symbol_number(digit, 10, "summation");
  return {number_symbol(sum % 10)};
}

Symbols parity(const Symbols& input) {
  // The authors ask "Is the number of 1's even in the sequence?" and answer
  // Yes or No.
  check_symbols(input, 2, "parity");
  return {std::count(input.begin(), input.end(), "1") % 2 == 0 ? "yes" : "no"};
}

}  // namespace sequence_answers

std::vector<SequenceTask> decoder_tasks() {
  using namespace sequence_answers;
  constexpr TaskLevel decoder = TaskLevel::decoder;
  return {
      task_row<1, copy_string, copy>("copy",
                                     "Kazemnejad et al. 2023 (The Impact of Positional Encoding on Length "
                                     "Generalization in Transformers), McGill-NLP/length-generalization "
                                     "scripts/dataset_builders/make_copy_dataset.py (copy_multi_char)",
                                     decoder),
      task_row<1, copy_string, reverse>("reverse",
                                        "Kazemnejad et al. 2023 (The Impact of Positional Encoding on Length "
                                        "Generalization in Transformers), McGill-NLP/length-generalization "
                                        "scripts/dataset_builders/make_reverse_dataset.py (multi_char)",
                                        decoder),
      task_row<1, sort_string, sort>("sort",
                                     "Kazemnejad et al. 2023 (The Impact of Positional Encoding on Length "
                                     "Generalization in Transformers), McGill-NLP/length-generalization "
                                     "scripts/dataset_builders/make_sort_dataset.py (single_digit)",
                                     decoder),
      coupled_at(task_row<3, decimal_sum, addition>("addition",
                                                    "Kazemnejad et al. 2023 (The Impact of Positional Encoding on "
                                                    "Length Generalization in Transformers), McGill-NLP/"
                                                    "length-generalization scripts/dataset_builders/"
                                                    "make_addition_dataset.py",
                                                    decoder),
                 "+"),
      task_row<1, summands, summation>("summation",
                                       "Kazemnejad et al. 2023 (The Impact of Positional Encoding on Length "
                                       "Generalization in Transformers), McGill-NLP/length-generalization "
                                       "scripts/dataset_builders/make_sum_dataset.py (s2s_sum, modulo 10)",
                                       decoder),
      task_row<1, bits, parity>("parity",
                                "Kazemnejad et al. 2023 (The Impact of Positional Encoding on Length "
                                "Generalization in Transformers), McGill-NLP/length-generalization "
                                "scripts/dataset_builders/make_parity_dataset.py",
                                decoder),
  };
}

}  // namespace rotor
