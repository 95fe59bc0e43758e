// Index hints (data.generated.index_hints, datasets/tasks/index_hints.h): the format on a hand case,
// every generated sample's hints at its digits' significance, training samples from a random first hint and
// held-out ones from h0, and the settings that refuse them.
#include <set>

#include "datasets/dataset.h"
#include "datasets/tasks/index_hints.h"
#include "datasets/tasks/sequence_task_data.h"
#include "helpers.h"

using namespace rotor;
using Catch::Matchers::Contains;

namespace {

DataConfig hinted_addition(int64_t hints) {
  DataConfig c = test::small_sequence_task("addition", SequenceLayout::prompt_answer, 300, 80);
  c.generated.index_hints = hints;
  return c;
}

// The symbols at even places of `hinted` are hints; the odd ones (and a lone operator) the digits.
std::vector<std::string> digits_of(const std::vector<std::string>& hinted) {
  std::vector<std::string> out;
  for (const std::string& s : hinted)
    if (s[0] != 'h') out.push_back(s);
  return out;
}

}  // namespace

TEST_CASE("index hints: each digit follows the hint of its significance, in the operands and the answer",
          "[datasets][sequence][hints]") {
  // 23 + 95 = 118, little-endian, hints from h4
  const SequenceSample sum{{"3", "2", "+", "5", "9"}, {"8", "1", "1"}, 0};
  const SequenceSample hinted = with_index_hints(sum, "+", 4);
  CHECK(hinted.input == std::vector<std::string>{"h4", "3", "h5", "2", "+", "h4", "5", "h5", "9"});
  CHECK(hinted.output == std::vector<std::string>{"h4", "8", "h5", "1", "h6", "1"});
  CHECK(hinted.padding == 0);
  CHECK(index_hints_needed(sum, "+") == 3);  // the answer's 3 digits
  const SequenceSample longer_operand{{"1", "2", "3", "+", "4"}, {"5", "2", "3"}, 0};
  CHECK(index_hints_needed(longer_operand, "+") == 3);
  CHECK(with_index_hints(longer_operand, "+", 0).input ==
        std::vector<std::string>{"h0", "1", "h1", "2", "h2", "3", "+", "h0", "4"});
  CHECK_THROWS_AS(with_index_hints(SequenceSample{{"1", "+", "1"}, {"0", "1", "#", "0"}, 1}, "+", 0), DataError);
  CHECK(task_names(takes_index_hints) == "addition");
}

TEST_CASE("index hints: every generated sample keeps its sum, hints count up from one first hint",
          "[datasets][sequence][hints]") {
  DataConfig plain_config = hinted_addition(0);
  int64_t attempts = 0;
  const std::vector<SequenceSplit> plain = sequence_samples(plain_config, attempts);
  const std::vector<SequenceSplit> hinted = sequence_samples(hinted_addition(30), attempts);
  REQUIRE(plain.size() == hinted.size());
  std::set<int64_t> train_firsts;
  for (size_t s = 0; s < plain.size(); ++s) {
    CAPTURE(plain[s].name);
    REQUIRE(plain[s].samples.size() == hinted[s].samples.size());
    for (size_t j = 0; j < plain[s].samples.size(); ++j) {
      const SequenceSample &p = plain[s].samples[j], &h = hinted[s].samples[j];
      CHECK(digits_of(h.input) == p.input);  // the same numbers and operator, in order
      CHECK(digits_of(h.output) == p.output);
      const int64_t first = std::stoll(h.output[0].substr(1));
      for (size_t i = 0; i < h.output.size(); i += 2) CHECK(h.output[i] == index_hint(first + int64_t(i / 2)));
      CHECK(h.input[0] == index_hint(first));  // both operands count from the same first hint
      const auto op = std::find(h.input.begin(), h.input.end(), "+");
      REQUIRE(op != h.input.end());
      CHECK(*(op + 1) == index_hint(first));
      CHECK(first + index_hints_needed(p, "+") <= 30);
      if (plain[s].name == "train")
        train_firsts.insert(first);
      else
        CHECK(first == 0);  // held-out samples start at h0
    }
  }
  CHECK(train_firsts.size() > 15);  // training draws spread over the starts (at most 28 with 3-symbol sums)
  CHECK(sequence_samples(hinted_addition(30), attempts)[0].samples[7].input == hinted[0].samples[7].input);
}

TEST_CASE("index hints: too few hints, other tasks and coupled positions are refused by name",
          "[datasets][sequence][hints]") {
  // Inputs of up to 12 symbols have answers of up to 11 digits; test_20's up to 19 (18 + 1 digits + a carry).
  DataConfig c = hinted_addition(12);
  CHECK_NOTHROW(c.validate());
  const std::string why = test::data_error_of([&] { load_dataset(c); });
  CHECK_THAT(why, Contains("data.generated.index_hints: task 'addition' split 'test_20'"));
  CHECK_THAT(why, Contains("raise data.generated.index_hints to at least"));
  c.generated.index_hints = 19;
  CHECK(load_dataset(c).split("test_20").num_docs() == 40);
  c.task = "binary-addition";  // an encoder task with padding after its end mark
  CHECK_THAT(test::data_error_of([&] { c.validate(); }), Contains("index hints: addition"));
  c.task = "addition";
  c.generated.positions = TokenPositions::coupled;
  CHECK_THAT(test::data_error_of([&] { c.validate(); }),
             Contains("generated.index_hints: hints and coupled positions"));
}
