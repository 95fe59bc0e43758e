// The regular and context-free sequence tasks (Deletang et al. 2023): exact
// outputs on hand-made inputs, worked out from the authors' definitions and
// examples; drawn samples of the asked length whose output is the function of
// their input; and the class proportions the definitions give.
#include "datasets/tasks/context_free_tasks.h"
#include "datasets/tasks/regular_tasks.h"
#include "datasets/tasks/sequence_task.h"
#include "helpers.h"

#include <map>
#include <sstream>

using namespace rotor;

namespace {

using Symbols = std::vector<std::string>;

Symbols symbols(const std::string& text) {
  std::istringstream in(text);
  Symbols out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

// The output of `task` for the hand-made input `text`, joined by spaces.
std::string output_of(Symbols (*output)(const Symbols&), const std::string& text) {
  std::string out;
  for (const std::string& s : output(symbols(text))) out += (out.empty() ? "" : " ") + s;
  return out;
}

const SequenceTask& task(const std::string& name) {
  const SequenceTask* t = find_sequence_task(name);
  REQUIRE(t != nullptr);
  return *t;
}

// The share of each output (a one-symbol output) over `draws` samples of length n.
std::map<std::string, double> output_shares(const std::string& name, int64_t n, int64_t draws) {
  std::map<std::string, double> shares;
  for (int64_t i = 0; i < draws; ++i) {
    const SequenceSample s = task(name).draw(RandomKey{3, stream_id("shares"), static_cast<uint64_t>(i)}, n);
    REQUIRE(s.output.size() == 1);
    shares[s.output[0]] += 1.0 / static_cast<double>(draws);
  }
  return shares;
}

void check_shares(const std::map<std::string, double>& got, const std::map<std::string, double>& expected) {
  CHECK(got.size() == expected.size());
  for (const auto& [symbol, share] : expected) {
    INFO(symbol);
    CHECK(got.count(symbol) == 1);
    if (got.count(symbol) == 1) CHECK(std::abs(got.at(symbol) - share) < 0.025);  // > 4 sd at 4000 draws
  }
}

}  // namespace

TEST_CASE("regular tasks give the outputs of the authors' examples", "[datasets][sequence]") {
  // even_pairs.py: 001110 has one 01 and one 10 (even: 0), 0101001 two 10s and three 01s (odd: 1).
  CHECK(output_of(even_pairs_output, "0 0 1 1 1 0") == "0");
  CHECK(output_of(even_pairs_output, "0 1 0 1 0 0 1") == "1");
  CHECK(output_of(even_pairs_output, "1") == "0");
  // parity_check.py: 1010100 has three 1s (1), 01111 four (0).
  CHECK(output_of(parity_check_output, "1 0 1 0 1 0 0") == "1");
  CHECK(output_of(parity_check_output, "0 1 1 1 1") == "0");
  // modular_arithmetic.py (mod 5): 1 + 2 * 3 = 2, 1 - 1 - 1 = 4, 0 * 1 + 4 * 3 - 2 = 0.
  CHECK(output_of(modular_arithmetic_output, "1 + 2 * 3") == "2");
  CHECK(output_of(modular_arithmetic_output, "1 - 1 - 1") == "4");
  CHECK(output_of(modular_arithmetic_output, "0 * 1 + 4 * 3 - 2") == "0");
  CHECK(output_of(modular_arithmetic_output, "2 - 3 * 4") == "0");  // 2 - 12 = -10
  CHECK(output_of(modular_arithmetic_output, "3") == "3");
  // cycle_navigation.py: moves -1 0 +1 from state 0 on a cycle of 5.
  CHECK(output_of(cycle_navigation_output, "+1 -1 0 -1 -1") == "3");
  CHECK(output_of(cycle_navigation_output, "+1 +1 +1 -1") == "2");
  CHECK(output_of(cycle_navigation_output, "+1 +1 +1 +1 +1 +1") == "1");
}

TEST_CASE("context-free tasks give the outputs of the authors' examples", "[datasets][sequence]") {
  // stack_manipulation.py: 0 1 1 0 PUSH 1 POP POP -> 1 1 0 END, padded with 0s to n + 1 = 8.
  CHECK(output_of(stack_manipulation_output, "0 1 1 0 PUSH1 POP POP") == "1 1 0 END 0 0 0 0");
  CHECK(output_of(stack_manipulation_output, "1 1 0 POP POP POP") == "END 0 0 0 0 0 0");
  CHECK(output_of(stack_manipulation_output, "1 POP POP PUSH0") == "0 END 0 0 0");  // a POP on empty: nothing
  CHECK(output_of(stack_manipulation_output, "1") == "1 END");
  CHECK(output_of(reverse_string_output, "0 1 1 0 1 0") == "0 1 0 1 1 0");
  // modular_arithmetic_brackets.py: d, -d, (d), (-d), (E op E), mod 5.
  CHECK(output_of(modular_arithmetic_brackets_output, "3") == "3");
  CHECK(output_of(modular_arithmetic_brackets_output, "- 3") == "2");
  CHECK(output_of(modular_arithmetic_brackets_output, "( - 4 )") == "1");
  CHECK(output_of(modular_arithmetic_brackets_output, "( ( 4 * 3 ) - - 2 )") == "4");      // 12 + 2
  CHECK(output_of(modular_arithmetic_brackets_output, "( - 1 + ( 2 * ( 4 ) ) )") == "2");  // -1 + 8
  // solve_equation.py: the x in 0..4 that makes the left side equal the right.
  CHECK(output_of(solve_equation_output, "( x + 3 ) == 1") == "3");
  CHECK(output_of(solve_equation_output, "( 2 - ( - x - 4 ) ) == 0") == "4");  // 2 + x + 4 = 0 mod 5
  CHECK(output_of(solve_equation_output, "x == 2") == "2");
}

TEST_CASE("inputs outside a task's language are DataErrors", "[datasets][sequence]") {
  CHECK_THROWS_AS(parity_check_output({"0", "2"}), DataError);
  CHECK_THROWS_AS(modular_arithmetic_output({"1", "+"}), DataError);
  CHECK_THROWS_AS(modular_arithmetic_output({"1", "/", "2"}), DataError);
  CHECK_THROWS_AS(stack_manipulation_output({"1", "POP", "0"}), DataError);  // values only before the actions
  CHECK_THROWS_AS(modular_arithmetic_brackets_output({"(", "1", "+", "2"}), DataError);
  CHECK_THROWS_AS(solve_equation_output({"(", "1", "+", "2", ")", "==", "3"}), DataError);  // no x
}

TEST_CASE("drawn samples have the asked length, the task's symbols and their output", "[datasets][sequence]") {
  const std::map<std::string, Symbols (*)(const Symbols&)> outputs{
      {"even-pairs", even_pairs_output},
      {"modular-arithmetic", modular_arithmetic_output},
      {"parity-check", parity_check_output},
      {"cycle-navigation", cycle_navigation_output},
      {"stack-manipulation", stack_manipulation_output},
      {"reverse-string", reverse_string_output},
      {"modular-arithmetic-brackets", modular_arithmetic_brackets_output},
      {"solve-equation", solve_equation_output}};
  for (const auto& [name, output] : outputs) {
    const SequenceTask& t = task(name);
    for (int64_t n = t.min_length; n <= 41; ++n) {
      for (uint64_t i = 0; i < 20; ++i) {
        const SequenceSample s = t.draw(RandomKey{1, stream_id(name), i}, n);
        INFO(name << " n " << n);
        // modular_arithmetic.py makes an even length odd by dropping one.
        const int64_t length = name == "modular-arithmetic" && n % 2 == 0 ? n - 1 : n;
        CHECK(static_cast<int64_t>(s.input.size()) == length);
        CHECK(s.output == output(s.input));
        for (const std::string& symbol : s.input) CHECK((symbol != "?" && symbol != "=" && symbol != "."));
      }
    }
  }
  CHECK(task("stack-manipulation").draw(RandomKey{1, 2, 3}, 9).output.size() == 10);
  CHECK(task("reverse-string").draw(RandomKey{1, 2, 3}, 9).output.size() == 9);
}

TEST_CASE("one-output tasks have the class proportions their definitions give", "[datasets][sequence]") {
  // Uniform bits: parity is 1/2 each at any length; even pairs too from n = 2 (even iff the first bit equals
  // the last), and always even at n = 1.
  check_shares(output_shares("parity-check", 7, 4000), {{"0", 0.5}, {"1", 0.5}});
  check_shares(output_shares("even-pairs", 12, 4000), {{"0", 0.5}, {"1", 0.5}});
  check_shares(output_shares("even-pairs", 1, 100), {{"0", 1.0}});
  // One move of -1, 0, +1: states 4, 0, 1 a third each; a long walk is near uniform over the 5 states.
  check_shares(output_shares("cycle-navigation", 1, 4000), {{"4", 1 / 3.0}, {"0", 1 / 3.0}, {"1", 1 / 3.0}});
  check_shares(output_shares("cycle-navigation", 40, 4000),
               {{"0", 0.2}, {"1", 0.2}, {"2", 0.2}, {"3", 0.2}, {"4", 0.2}});
  // a op b with op uniform over + - *: + and - give a uniform value, * gives 0 with 9/25 and each other value
  // with 4/25, so 0 has (1/5 + 1/5 + 9/25) / 3 = 19/75 and the others 14/75 each.
  check_shares(output_shares("modular-arithmetic", 3, 4000),
               {{"0", 19 / 75.0}, {"1", 14 / 75.0}, {"2", 14 / 75.0}, {"3", 14 / 75.0}, {"4", 14 / 75.0}});
  // One digit, or its negation: uniform.
  check_shares(output_shares("modular-arithmetic-brackets", 2, 4000),
               {{"0", 0.2}, {"1", 0.2}, {"2", 0.2}, {"3", 0.2}, {"4", 0.2}});
  // x replaces a uniform digit chosen by the expression's shape alone: uniform.
  check_shares(output_shares("solve-equation", 20, 4000), {{"0", 0.2}, {"1", 0.2}, {"2", 0.2}, {"3", 0.2}, {"4", 0.2}});
}

TEST_CASE("the sequence task table names each task once, with its level and source", "[datasets][sequence]") {
  std::map<std::string, std::string> level;
  for (const SequenceTask& t : sequence_tasks()) {
    CHECK(level.emplace(t.name, level_name(t.level)).second);
    const char* paper = t.level == TaskLevel::decoder ? "Kazemnejad et al. 2023" : "Deletang et al. 2023";
    CHECK(std::string(t.source).find(paper) == 0);
    CHECK(find_sequence_task(t.name) == &t);
  }
  CHECK(level.at("parity-check") == "regular");
  CHECK(level.at("solve-equation") == "context-free");
  CHECK(task("solve-equation").min_length == 3);
  CHECK(level.at("binary-addition") == "context-sensitive");
  CHECK(level.at("parity") == "decoder");
  CHECK(level.size() == 21);  // Deletang et al.'s 15 and Kazemnejad et al.'s 6
  CHECK(find_sequence_task("parity-checks") == nullptr);
}
