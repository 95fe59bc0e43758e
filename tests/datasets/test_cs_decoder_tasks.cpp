// The context-sensitive tasks of Deletang et al. 2023 and the decoder tasks of
// Kazemnejad et al. 2023: each answer on hand-written inputs (the authors'
// docstring examples where they hold), then over draws: lengths, the balance
// of one-symbol outputs, determinism, symbols, and draws at length 500.
#include "datasets/tasks/cs_decoder_tasks.h"
#include "helpers.h"

#include <algorithm>
#include <chrono>
#include <functional>
#include <map>
#include <sstream>

using namespace rotor;
namespace answer = rotor::sequence_answers;

namespace {

Symbols s(const std::string& text) {
  std::istringstream in(text);
  Symbols out;
  for (std::string symbol; in >> symbol;) out.push_back(symbol);
  return out;
}

Symbols repeated(const std::string& symbol, size_t count) { return Symbols(count, symbol); }

Symbols joined(Symbols a, const Symbols& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

std::vector<SequenceTask> all_tasks() {
  std::vector<SequenceTask> tasks = context_sensitive_tasks();
  for (const SequenceTask& task : decoder_tasks()) tasks.push_back(task);
  return tasks;
}

const SequenceTask& task_named(const std::string& name) {
  static const std::vector<SequenceTask> tasks = all_tasks();
  for (const SequenceTask& task : tasks)
    if (task.name == name) return task;
  FAIL("no task " << name);
  throw;
}

RandomKey key(uint64_t step) { return RandomKey{2023, stream_id("cs-decoder-tasks"), step}; }

// How often each output of a one-symbol task comes out of `draws` samples.
std::map<std::string, double> decoder_output_shares(const std::string& name, int64_t n, int draws) {
  std::map<std::string, double> shares;
  for (int i = 0; i < draws; ++i) {
    const SequenceSample sample = task_named(name).draw(key(static_cast<uint64_t>(i)), n);
    REQUIRE(sample.output.size() == 1);
    shares[sample.output[0]] += 1.0 / draws;
  }
  return shares;
}

constexpr uint64_t kPrime = 1000000007;

// The residue modulo kPrime of the number that [first, last) write least
// significant digit first, computed independently of the tasks' arithmetic.
uint64_t residue(Symbols::const_iterator first, Symbols::const_iterator last, uint64_t base) {
  uint64_t r = 0;
  for (; last != first; --last) r = (r * base + std::stoull(*(last - 1))) % kPrime;
  return r;
}

// The output of `a op b` (up to `end`, if any) has the residue of a op b.
void check_residues(const SequenceSample& sample, const std::string& op, const std::string& end, uint64_t base) {
  const auto at = std::find(sample.input.begin(), sample.input.end(), op);
  const uint64_t a = residue(sample.input.begin(), at, base);
  const uint64_t b = residue(at + 1, sample.input.end(), base);
  const uint64_t result =
      residue(sample.output.begin(), std::find(sample.output.begin(), sample.output.end(), end), base);
  CHECK(result == (op == "*" ? a * b % kPrime : (a + b) % kPrime));
}

}  // namespace

TEST_CASE("cs tasks: duplicate-string, odds-first and bucket-sort answers", "[cs-decoder-tasks]") {
  CHECK(answer::duplicate_string(s("1 0 1")) == s("1 0 1 1 0 1"));
  CHECK(answer::duplicate_string(s("1 1 1 1 1 1")) == s("1 1 1 1 1 1 1 1 1 1 1 1"));
  // The authors' code: the symbols at 0-based odd indices, then the even ones.
  CHECK(answer::odds_first(s("0 0 1 1 0 1 0 1")) == s("0 1 1 1 0 1 0 0"));
  CHECK(answer::odds_first(s("1 0 0")) == s("0 1 0"));
  CHECK(answer::odds_first(s("1")) == s("1"));
  CHECK(answer::bucket_sort(s("1 0 2 0 4 1 1 2")) == s("0 0 1 1 1 2 2 4"));
  CHECK_THROWS_AS(answer::duplicate_string(s("1 2")), DataError);
  CHECK_THROWS_AS(answer::bucket_sort(s("0 5")), DataError);
  CHECK_THROWS_AS(answer::odds_first({}), DataError);
}

TEST_CASE("cs tasks: missing-duplicate answers the symbol under the placeholder", "[cs-decoder-tasks]") {
  CHECK(answer::missing_duplicate(s("0 1 1 0 0 _ 1 0")) == s("1"));  // the authors' 01100210 -> 1
  CHECK(answer::missing_duplicate(s("1 0 1 1 _ 1 #")) == s("0"));    // the authors' 1011213 -> 0
  CHECK(answer::missing_duplicate(s("_ 1 0 1")) == s("0"));
  CHECK(answer::missing_duplicate(s("1 _")) == s("1"));
  CHECK(answer::missing_duplicate(s("1")) == s("1"));  // the authors' fixed length-1 sample
  CHECK_THROWS_AS(answer::missing_duplicate(s("_ 1 _ 1")), DataError);
  CHECK_THROWS_AS(answer::missing_duplicate(s("0 1 1 0")), DataError);
  CHECK_THROWS_AS(answer::missing_duplicate(s("0 _ 1")), DataError);  // odd length without '#'
  CHECK_THROWS_AS(answer::missing_duplicate(s("0")), DataError);
}

TEST_CASE("cs tasks: binary-addition in little-endian bits, terminated and padded to n + 1", "[cs-decoder-tasks]") {
  // The authors' 4 + 22 = 26 and 9 + 32 = 41 (their docstring pads one symbol
  // short of their code's n + 1).
  CHECK(answer::binary_addition(s("0 0 1 + 0 1 1 0 1")) == s("0 1 0 1 1 # 0 0 0 0"));
  CHECK(answer::binary_addition(s("1 0 0 1 + 0 0 0 0 0 1")) == s("1 0 0 1 0 1 # 0 0 0 0 0"));
  CHECK(answer::binary_addition(s("1 + 1")) == s("0 1 # 0"));
  // Below three symbols the input is one number and the output that number.
  CHECK(answer::binary_addition(s("0")) == s("0 #"));
  CHECK(answer::binary_addition(s("1")) == s("1 #"));
  CHECK(answer::binary_addition(s("0 1")) == s("0 1 #"));
  CHECK(answer::binary_addition(s("1 0")) == s("1 # 0"));
  // (2^70 - 1) + 1 = 2^70, beyond 64 bits.
  CHECK(answer::binary_addition(joined(repeated("1", 70), s("+ 1"))) == joined(repeated("0", 70), s("1 # 0")));
  CHECK_THROWS_AS(answer::binary_addition(s("1 0 1")), DataError);
  CHECK_THROWS_AS(answer::binary_addition(s("1 + 1 + 1")), DataError);
  CHECK_THROWS_AS(answer::binary_addition(s("+ 1 1")), DataError);
}

TEST_CASE("cs tasks: binary-multiplication in little-endian bits, terminated and padded to n", "[cs-decoder-tasks]") {
  CHECK(answer::binary_multiplication(s("0 0 1 * 0 1 1 0 1")) == s("0 0 0 1 1 0 1 # 0"));          // 4 * 22
  CHECK(answer::binary_multiplication(s("1 0 0 1 * 0 0 0 0 0 1")) == s("0 0 0 0 0 1 0 0 1 # 0"));  // 9 * 32
  CHECK(answer::binary_multiplication(s("1 * 1")) == s("1 # 0"));
  // Below three symbols the authors answer a fixed n - 1 zeros and the mark.
  CHECK(answer::binary_multiplication(s("1")) == s("#"));
  CHECK(answer::binary_multiplication(s("1 1")) == s("0 #"));
  // (2^64 - 1)^2 = 2^128 - 2^65 + 1.
  const Symbols ones64 = repeated("1", 64);
  CHECK(answer::binary_multiplication(joined(joined(ones64, s("*")), ones64)) ==
        joined(joined(joined(s("1"), repeated("0", 64)), repeated("1", 63)), s("#")));
  CHECK_THROWS_AS(answer::binary_multiplication(s("1 0 1")), DataError);
  CHECK_THROWS_AS(answer::binary_multiplication(s("1 + 1")), DataError);
}

TEST_CASE("cs tasks: compute-sqrt in big-endian bits, ceil(n / 2) of them", "[cs-decoder-tasks]") {
  CHECK(answer::compute_sqrt(s("1 0 0 1 0 1")) == s("1 1 0"));  // isqrt(37) = 6
  CHECK(answer::compute_sqrt(s("1 1 1")) == s("1 0"));          // isqrt(7) = 2
  CHECK(answer::compute_sqrt(s("0 0 0 1")) == s("0 1"));
  CHECK(answer::compute_sqrt(s("1")) == s("1"));
  CHECK(answer::compute_sqrt(repeated("1", 128)) == repeated("1", 64));  // isqrt(2^128 - 1) = 2^64 - 1
  CHECK(answer::compute_sqrt(joined(s("1"), repeated("0", 128))) == joined(s("1"), repeated("0", 64)));
  CHECK_THROWS_AS(answer::compute_sqrt(s("1 2")), DataError);
}

TEST_CASE("decoder tasks: copy, reverse, sort, summation and parity answers", "[cs-decoder-tasks]") {
  CHECK(answer::copy(s("42 7 99 0")) == s("42 7 99 0"));
  CHECK(answer::reverse(s("42 7 99 0")) == s("0 99 7 42"));
  CHECK(answer::sort(s("13 4 49 4 0")) == s("0 4 4 13 49"));  // by value, not as text
  CHECK(answer::summation(s("3 4 5")) == s("2"));
  CHECK(answer::summation(s("9 1")) == s("0"));
  CHECK(answer::parity(s("0 0 0 0 0 1 1 1")) == s("no"));  // the authors' example: three 1s, "No"
  CHECK(answer::parity(s("1 0 1")) == s("yes"));
  CHECK(answer::parity(s("0")) == s("yes"));
  CHECK_THROWS_AS(answer::copy(s("100")), DataError);
  CHECK_THROWS_AS(answer::sort(s("50")), DataError);
  CHECK_THROWS_AS(answer::sort(s("07")), DataError);
  CHECK_THROWS_AS(answer::parity(s("a")), DataError);
}

TEST_CASE("decoder tasks: addition with digits least significant first", "[cs-decoder-tasks]") {
  CHECK(answer::addition(s("6 2 7 3 5 + 6 2 7 3 5")) == s("2 5 4 7 0 1"));  // 53726 + 53726 = 107452
  CHECK(answer::addition(s("0 + 0")) == s("0"));
  CHECK(answer::addition(s("5 + 5 1")) == s("0 2"));  // 5 + 15
  // 10^20 - 1 + 1, beyond 64 bits.
  CHECK(answer::addition(joined(repeated("9", 20), s("+ 1"))) == joined(repeated("0", 20), s("1")));
  CHECK_THROWS_AS(answer::addition(s("1 2")), DataError);
  CHECK_THROWS_AS(answer::addition(s("1 +")), DataError);
  CHECK_THROWS_AS(answer::addition(s("1 0 + 1 2 + 3")), DataError);
}

TEST_CASE("cs and decoder tasks: the rows", "[cs-decoder-tasks]") {
  std::vector<std::string> cs, decoder;
  for (const SequenceTask& task : context_sensitive_tasks()) {
    cs.push_back(task.name);
    CHECK(task.level == TaskLevel::context_sensitive);
    CHECK_THAT(task.source, Catch::Matchers::Contains("neural_networks_chomsky_hierarchy tasks/cs/"));
  }
  for (const SequenceTask& task : decoder_tasks()) {
    decoder.push_back(task.name);
    CHECK(task.level == TaskLevel::decoder);
    CHECK_THAT(task.source, Catch::Matchers::Contains("McGill-NLP/length-generalization"));
  }
  CHECK(cs == std::vector<std::string>{"duplicate-string", "missing-duplicate-string", "odds-first", "binary-addition",
                                       "binary-multiplication", "compute-sqrt", "bucket-sort"});
  CHECK(decoder == std::vector<std::string>{"copy", "reverse", "sort", "addition", "summation", "parity"});
  for (const SequenceTask& task : all_tasks()) CHECK(task.min_length == (task.name == std::string("addition") ? 3 : 1));
  CHECK_THROWS_AS(task_named("addition").draw(key(0), 2), DataError);
  CHECK_THROWS_AS(task_named("copy").draw(key(0), 0), DataError);
}

TEST_CASE("cs and decoder tasks: input of n symbols, output of the defined length", "[cs-decoder-tasks]") {
  const std::map<std::string, std::function<size_t(size_t)>> output_length = {
      {"duplicate-string", [](size_t n) { return 2 * n; }},
      {"missing-duplicate-string", [](size_t) { return 1; }},
      {"odds-first", [](size_t n) { return n; }},
      {"binary-addition", [](size_t n) { return n + 1; }},
      {"binary-multiplication", [](size_t n) { return n; }},
      {"compute-sqrt", [](size_t n) { return (n + 1) / 2; }},
      {"bucket-sort", [](size_t n) { return n; }},
      {"copy", [](size_t n) { return n; }},
      {"reverse", [](size_t n) { return n; }},
      {"sort", [](size_t n) { return n; }},
      {"summation", [](size_t) { return 1; }},
      {"parity", [](size_t) { return 1; }},
  };
  for (const SequenceTask& task : all_tasks()) {
    for (int64_t n : {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 40, 41, 100}) {
      if (n < task.min_length) continue;
      for (uint64_t step = 0; step < 20; ++step) {
        const SequenceSample sample = task.draw(key(step), n);
        INFO(task.name << " at n = " << n);
        REQUIRE(sample.input.size() == static_cast<size_t>(n));
        if (task.name == std::string("addition")) {
          // The sum has as many digits as the longer operand, or one more.
          const auto plus =
              static_cast<size_t>(std::find(sample.input.begin(), sample.input.end(), "+") - sample.input.begin());
          const size_t longer = std::max(plus, sample.input.size() - 1 - plus);
          CHECK((sample.output.size() == longer || sample.output.size() == longer + 1));
        } else {
          CHECK(sample.output.size() == output_length.at(task.name)(static_cast<size_t>(n)));
        }
      }
    }
  }
}

TEST_CASE("cs and decoder tasks: symbols are whitespace-free and never the layouts' reserved ones",
          "[cs-decoder-tasks]") {
  for (const SequenceTask& task : all_tasks()) {
    for (int64_t n : {3, 8, 33}) {
      for (uint64_t step = 0; step < 50; ++step) {
        const SequenceSample sample = task.draw(key(step), n);
        for (const std::string& symbol : joined(sample.input, sample.output)) {
          INFO(task.name << ": '" << symbol << "'");
          CHECK(!symbol.empty());
          CHECK(symbol.find_first_of(" \t\n\r") == std::string::npos);
          CHECK(symbol != "?");
          CHECK(symbol != "=");
          CHECK(symbol != ".");
        }
      }
    }
  }
}

TEST_CASE("cs and decoder tasks: the same key gives the same sample, other keys other samples", "[cs-decoder-tasks]") {
  for (const SequenceTask& task : all_tasks()) {
    const SequenceSample a = task.draw(key(5), 24);
    const SequenceSample b = task.draw(key(5), 24);
    CHECK(a.input == b.input);
    CHECK(a.output == b.output);
    int differing = 0;
    for (uint64_t step = 6; step < 16; ++step) differing += task.draw(key(step), 24).input != a.input ? 1 : 0;
    INFO(task.name);
    CHECK(differing == 10);
  }
}

TEST_CASE("cs and decoder tasks: the balance of one-symbol outputs", "[cs-decoder-tasks]") {
  // Uniform bits make the missing symbol and the parity fair coins at every n.
  for (int64_t n : {2, 7, 40}) {
    auto missing = decoder_output_shares("missing-duplicate-string", n, 4000);
    CHECK(missing["1"] == Approx(0.5).margin(0.03));
    auto parity = decoder_output_shares("parity", n, 4000);
    CHECK(parity["yes"] == Approx(0.5).margin(0.03));
  }
  CHECK(decoder_output_shares("missing-duplicate-string", 1, 100)["1"] ==
        Approx(1.0));  // the authors' fixed length-1 sample
  // A sum of n digits uniform in 1..9, mod 10, ends in r with probability
  // 1/10 + (10 [r = 0] - 1) / 10 * (-1/9)^n: never 0 at n = 1, 0 at 1/9 and
  // the rest at 8/81 each at n = 2, within 1e-19 of 1/10 at n = 20.
  auto one = decoder_output_shares("summation", 1, 4000);
  CHECK(one.count("0") == 0);
  for (int r = 1; r <= 9; ++r) CHECK(one[std::to_string(r)] == Approx(1.0 / 9).margin(0.02));
  auto two = decoder_output_shares("summation", 2, 8000);
  CHECK(two["0"] == Approx(1.0 / 9).margin(0.015));
  for (int r = 1; r <= 9; ++r) CHECK(two[std::to_string(r)] == Approx(8.0 / 81).margin(0.015));
  auto twenty = decoder_output_shares("summation", 20, 8000);
  for (int r = 0; r <= 9; ++r) CHECK(twenty[std::to_string(r)] == Approx(0.1).margin(0.015));
}

TEST_CASE("cs and decoder tasks: the first operand's length is uniform in 1..n-2", "[cs-decoder-tasks]") {
  for (const char* name : {"binary-addition", "binary-multiplication", "addition"}) {
    const char* op = name == std::string("binary-multiplication") ? "*" : "+";
    std::map<int64_t, double> share;
    for (uint64_t step = 0; step < 4000; ++step) {
      const Symbols input = task_named(name).draw(key(step), 10).input;
      share[std::find(input.begin(), input.end(), op) - input.begin()] += 1.0 / 4000;
    }
    INFO(name);
    CHECK(share.size() == 8);
    for (int64_t length = 1; length <= 8; ++length) CHECK(share[length] == Approx(1.0 / 8).margin(0.025));
  }
}

TEST_CASE("cs and decoder tasks: operands and square roots are drawn nonzero as the authors draw them",
          "[cs-decoder-tasks]") {
  for (uint64_t step = 0; step < 500; ++step) {
    const Symbols root_input = task_named("compute-sqrt").draw(key(step), 3).input;
    CHECK(std::count(root_input.begin(), root_input.end(), "1") > 0);
    for (const char* name : {"binary-addition", "binary-multiplication"}) {
      const Symbols input = task_named(name).draw(key(step), 4).input;
      const auto op =
          std::find_if(input.begin(), input.end(), [](const std::string& x) { return x == "+" || x == "*"; });
      CHECK(std::count(input.begin(), op, "1") > 0);
      CHECK(std::count(op, input.end(), "1") > 0);
    }
    // Decimal operands have no leading zero (written last), except one digit.
    const Symbols sum = task_named("addition").draw(key(step), 6).input;
    const auto plus = std::find(sum.begin(), sum.end(), "+");
    if (plus - sum.begin() > 1) CHECK(*(plus - 1) != "0");
    if (sum.end() - plus > 2) CHECK(sum.back() != "0");
  }
  for (uint64_t step = 0; step < 50; ++step) {
    CHECK(task_named("compute-sqrt").draw(key(step), 1).input == s("1"));
    CHECK(task_named("binary-addition").draw(key(step), 1).input == s("0"));    // [0, 2^1 - 2]
    CHECK(task_named("binary-addition").draw(key(step), 2).input != s("1 1"));  // [0, 2^2 - 2]
  }
}

TEST_CASE("cs and decoder tasks: draws at n = 500 are quick and right", "[cs-decoder-tasks]") {
  const auto start = std::chrono::steady_clock::now();
  for (const SequenceTask& task : all_tasks()) {
    for (uint64_t step = 0; step < 10; ++step) {
      for (int64_t n : {499, 500}) {
        const SequenceSample sample = task.draw(key(step), n);
        REQUIRE(sample.input.size() == static_cast<size_t>(n));
        if (task.name == std::string("binary-multiplication")) check_residues(sample, "*", "#", 2);
        if (task.name == std::string("binary-addition")) check_residues(sample, "+", "#", 2);
        if (task.name == std::string("addition")) check_residues(sample, "+", "", 10);
      }
    }
  }
  // 260 samples, the longest products of 250-bit numbers among them: well
  // under a second when the arithmetic is quadratic, even unoptimised.
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(10));
}
