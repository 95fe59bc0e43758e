// The context-sensitive tasks of Deletang et al. 2023, as the authors' code
// (google-deepmind/neural_networks_chomsky_hierarchy tasks/cs/*.py, copied
// unchanged into google-deepmind/randomized_positional_encodings) draws them,
// the authors' integer tokens k written as the symbols "k". Where the authors
// special-case the shortest lengths, so does this file.
#include <algorithm>

#include "datasets/tasks/cs_decoder_tasks.h"
#include "datasets/tasks/sample_draws.h"

namespace rotor {
namespace {

constexpr const char* kMissing = "_";  // the authors' placeholder token 2 (missing-duplicate)
constexpr const char* kEmpty = "#";    // the authors' empty token 3, after an odd length's halves
constexpr const char* kEnd = "#";      // the authors' termination token 2 after a binary result

Symbols binary_string(Draws& draws, int64_t n) { return draw_numbers(draws, n, 0, 2); }

Symbols quinary_string(Draws& draws, int64_t n) { return draw_numbers(draws, n, 0, 5); }  // bucket sort's 5 symbols

// Uniform in [1, 2^width - 1] written in `width` bits: a uniform bit string,
// redrawn while it is all zeros.
Symbols nonzero_binary(Draws& draws, int64_t width) {
  for (;;) {
    Symbols bits = binary_string(draws, width);
    if (std::count(bits.begin(), bits.end(), "1") > 0) return bits;
  }
}

// The input of binary addition and multiplication: two nonzero numbers in
// little-endian binary of lengths l and n - 1 - l, l uniform in [1, n - 2],
// joined by `op`. Below three symbols there is no room for two numbers; the
// authors then draw one number uniform in [0, 2^n - 2], written in n bits.
Symbols binary_expression(Draws& draws, int64_t n, const char* op) {
  if (n <= 2) {
    const int64_t value = draws.below((int64_t{1} << n) - 1);
    return written(trimmed({static_cast<int>(value & 1), static_cast<int>(value >> 1)}), static_cast<size_t>(n));
  }
  const int64_t first = 1 + draws.below(n - 2);
  Symbols input = nonzero_binary(draws, first);
  input.push_back(op);
  for (std::string& bit : nonzero_binary(draws, n - 1 - first)) input.push_back(std::move(bit));
  return input;
}

Symbols addition_expression(Draws& draws, int64_t n) { return binary_expression(draws, n, "+"); }

Symbols multiplication_expression(Draws& draws, int64_t n) { return binary_expression(draws, n, "*"); }

// m = n / 2 random bits, twice over, one of the 2m positions replaced by the
// placeholder, then the empty token when n is odd. The authors' input of length
// 1 is the fixed "1".
Symbols masked_duplicate(Draws& draws, int64_t n) {
  if (n == 1) return {"1"};
  Symbols input = binary_string(draws, n / 2);
  const Symbols half = input;
  input.insert(input.end(), half.begin(), half.end());
  input[static_cast<size_t>(draws.below(n / 2 * 2))] = kMissing;
  if (n % 2 == 1) input.push_back(kEmpty);
  return input;
}

// A binary result least significant bit first, the termination token, then
// zeros up to `length` symbols.
Symbols binary_result(const Digits& value, int64_t length) {
  Symbols out = written(value, 0);
  out.push_back(kEnd);
  out.resize(static_cast<size_t>(length), "0");
  return out;
}

// True when `input` has no `op`: then it is one of the authors' inputs below
// three symbols, which hold one number (checked here).
bool one_number(const Symbols& input, const char* op, const char* task) {
  if (std::find(input.begin(), input.end(), op) != input.end()) return false;
  require_input(input.size() <= 2, task, std::string("expected bits '") + op + "' bits");
  check_symbols(input, 2, task);
  return true;
}

}  // namespace

namespace sequence_answers {

Symbols duplicate_string(const Symbols& input) {
  check_symbols(input, 2, "duplicate-string");
  Symbols out = input;
  out.insert(out.end(), input.begin(), input.end());
  return out;
}

Symbols missing_duplicate(const Symbols& input) {
  constexpr const char* task = "missing-duplicate-string";
  if (input == Symbols{"1"}) return {"1"};  // the authors' answer at length 1
  const size_t length = input.size() / 2 * 2;
  require_input(length > 0 && (input.size() == length || input.back() == kEmpty), task,
                "expected two halves of bits, then '#' when the length is odd");
  const Symbols halves(input.begin(), input.begin() + static_cast<std::ptrdiff_t>(length));
  require_input(std::count(halves.begin(), halves.end(), kMissing) == 1, task, "expected one '_' in the halves");
  const size_t missing = static_cast<size_t>(std::find(halves.begin(), halves.end(), kMissing) - halves.begin());
  for (size_t i = 0; i < length; ++i)
    if (i != missing) symbol_number(halves[i], 2, task);
  return {halves[(missing + length / 2) % length]};
}

Symbols odds_first(const Symbols& input) {
  // The authors' code puts the symbols at 0-based odd indices first,
  // concatenate([s[1::2], s[::2]]); their docstring's example has it the other
  // way round. The code is what their numbers measure.
  check_symbols(input, 2, "odds-first");
  Symbols out;
  for (size_t i = 1; i < input.size(); i += 2) out.push_back(input[i]);
  for (size_t i = 0; i < input.size(); i += 2) out.push_back(input[i]);
  return out;
}

Symbols binary_addition(const Symbols& input) {
  constexpr const char* task = "binary-addition";
  const auto n = static_cast<int64_t>(input.size());
  if (one_number(input, "+", task)) return binary_result(digits_of(input, 2, task), n + 1);
  const auto [a, b] = operands_of(input, "+", 2, task);
  return binary_result(add(a, b, 2), n + 1);
}

Symbols binary_multiplication(const Symbols& input) {
  constexpr const char* task = "binary-multiplication";
  const auto n = static_cast<int64_t>(input.size());
  if (one_number(input, "*", task)) {
    Symbols out(input.size() - 1, "0");  // the authors' fixed result below three symbols
    out.push_back(kEnd);
    return out;
  }
  const auto [a, b] = operands_of(input, "*", 2, task);
  return binary_result(multiply(a, b, 2), n);
}

Symbols compute_sqrt(const Symbols& input) {
  // Input and output are big-endian; the output has ceil(n / 2) bits.
  constexpr const char* task = "compute-sqrt";
  check_symbols(input, 2, task);
  const Digits value = digits_of(Symbols(input.rbegin(), input.rend()), 2, task);
  Symbols root = written(binary_isqrt(value), (input.size() + 1) / 2);
  std::reverse(root.begin(), root.end());
  return root;
}

Symbols bucket_sort(const Symbols& input) { return sorted_numbers(input, 5, "bucket-sort"); }

}  // namespace sequence_answers

std::vector<SequenceTask> context_sensitive_tasks() {
  using namespace sequence_answers;
  constexpr TaskLevel cs = TaskLevel::context_sensitive;
  return {
      task_row<1, binary_string, duplicate_string>(
          "duplicate-string",
          "Deletang et al. 2023 (Neural Networks and the Chomsky Hierarchy), "
          "google-deepmind/neural_networks_chomsky_hierarchy tasks/cs/duplicate_string.py",
          cs),
      task_row<1, masked_duplicate, missing_duplicate>(
          "missing-duplicate-string",
          "Deletang et al. 2023 (Neural Networks and the Chomsky Hierarchy), "
          "google-deepmind/neural_networks_chomsky_hierarchy tasks/cs/missing_duplicate_string.py",
          cs),
      task_row<1, binary_string, odds_first>("odds-first",
                                             "Deletang et al. 2023 (Neural Networks and the Chomsky Hierarchy), "
                                             "google-deepmind/neural_networks_chomsky_hierarchy tasks/cs/odds_first.py",
                                             cs),
      coupled_at(task_row<1, addition_expression, binary_addition, true>(
                     "binary-addition",
                     "Deletang et al. 2023 (Neural Networks and the Chomsky Hierarchy), "
                     "google-deepmind/neural_networks_chomsky_hierarchy tasks/cs/binary_addition.py",
                     cs),
                 "+"),
      task_row<1, multiplication_expression, binary_multiplication, true>(
          "binary-multiplication",
          "Deletang et al. 2023 (Neural Networks and the Chomsky Hierarchy), "
          "google-deepmind/neural_networks_chomsky_hierarchy tasks/cs/binary_multiplication.py",
          cs),
      task_row<1, nonzero_binary, compute_sqrt>(
          "compute-sqrt",
          "Deletang et al. 2023 (Neural Networks and the Chomsky Hierarchy), "
          "google-deepmind/neural_networks_chomsky_hierarchy tasks/cs/compute_sqrt.py",
          cs),
      task_row<1, quinary_string, bucket_sort>(
          "bucket-sort",
          "Deletang et al. 2023 (Neural Networks and the Chomsky Hierarchy), "
          "google-deepmind/neural_networks_chomsky_hierarchy tasks/cs/bucket_sort.py",
          cs),
  };
}

}  // namespace rotor
