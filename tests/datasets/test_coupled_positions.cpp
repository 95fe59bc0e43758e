// Coupled positions (data.generated.positions: coupled, datasets/tasks/coupled_positions.h):
// the rule on hand cases in both layouts, every generated sample's digits at their
// significance, the positions through the token cache and into batches, and the
// tasks and settings that refuse them.
#include <set>

#include "datasets/batcher.h"
#include "datasets/dataset.h"
#include "datasets/tasks/coupled_positions.h"
#include "datasets/tasks/sequence_task_data.h"
#include "datasets/token_options.h"
#include "helpers.h"

using namespace rotor;
using Catch::Matchers::Contains;

namespace {

DataConfig coupled(const std::string& task, SequenceLayout layout) {
  DataConfig c = test::small_sequence_task(task, layout, 200, 64);
  c.generated.positions = TokenPositions::coupled;
  return c;
}

}  // namespace

TEST_CASE("coupled positions: digits of one significance share a position, in both layouts",
          "[datasets][sequence][positions]") {
  // 5 + 3 = 8, little-endian: 1 0 1 + 1 1 -> 0 0 0 1 (then the end mark and padding)
  SequenceSample sum{{"1", "0", "1", "+", "1", "1"}, {"0", "0", "0", "1", "#", "0", "0"}, 2};
  CHECK(coupled_positions(sum, "+", SequenceLayout::queries) ==
        std::vector<int32_t>{1, 2, 3, 0, 1, 2, /* queries */ 1, 2, 3, 4, 5, 6, 7});
  CHECK(render(sum, SequenceLayout::queries).tokens.size() == 13);
  // prompt and answer: "=" at 0, the answer's symbols (not its padding) at their significance
  CHECK(coupled_positions(sum, "+", SequenceLayout::prompt_answer) ==
        std::vector<int32_t>{1, 2, 3, 0, 1, 2, /* = */ 0, 1, 2, 3, 4, 5});
  CHECK(render(sum, SequenceLayout::prompt_answer).tokens.size() == 12);
  SECTION("one number (no operator) counts on; two operators are refused") {
    const SequenceSample one{{"1", "1"}, {"1", "1", "0", "#"}, 0};
    CHECK(coupled_positions(one, "+", SequenceLayout::queries) == std::vector<int32_t>{1, 2, 1, 2, 3, 4});
    const SequenceSample two{{"1", "+", "1", "+", "1"}, {"1"}, 0};
    CHECK_THROWS_AS(coupled_positions(two, "+", SequenceLayout::queries), DataError);
  }
}

TEST_CASE("coupled positions: every sample's operand digits and answer line up by significance",
          "[datasets][sequence][positions]") {
  const std::string task = GENERATE("binary-addition", "addition");
  const SequenceLayout layout = GENERATE(SequenceLayout::queries, SequenceLayout::prompt_answer);
  CAPTURE(task, static_cast<int>(layout));
  const Dataset data = load_dataset(coupled(task, layout));
  for (const TokenizedSplit& s : data.splits) {
    REQUIRE(s.positions.size() == s.tokens.size());
    for (int64_t d = 0; d < s.num_docs(); ++d) {
      const int32_t* p = s.doc_positions(d);
      const int32_t* tokens = s.doc_tokens(d);
      int32_t next = 1;
      for (int64_t t = 0; t < s.doc_length(d); ++t) {
        const std::string symbol = data.tokenizer->decode({tokens[t]});
        if (symbol == "+" || symbol == kAnswerSymbol) {  // the operator and the answer mark
          CHECK(p[t] == 0);
          next = 1;
          continue;
        }
        if (symbol == kQuerySymbol && data.tokenizer->decode({tokens[t - 1]}) != kQuerySymbol) next = 1;
        CHECK(p[t] == next++);
      }
    }
  }
}

TEST_CASE("coupled positions: kept by the token cache, keyed on the option, copied into batches",
          "[datasets][sequence][positions][cache]") {
  test::TempDir dir;
  DataConfig c = coupled("binary-addition", SequenceLayout::queries);
  c.cache = true;
  c.cache_dir = dir.path("cache");
  const Dataset built = load_dataset(c);
  const Dataset cached = load_dataset(c);
  CHECK(cached.stats.from_cache);
  for (size_t s = 0; s < built.splits.size(); ++s) CHECK(cached.splits[s].positions == built.splits[s].positions);
  const std::string key = token_cache_key(c, "", {});
  c.generated.positions = TokenPositions::index;
  CHECK(token_cache_key(c, "", {}) != key);
  const Dataset index = load_dataset(c);
  CHECK_FALSE(index.stats.from_cache);
  CHECK(index.split("train").positions.empty());
  CHECK(index.split("train").tokens == built.split("train").tokens);  // the same samples, at 0..N-1

  const TokenizedSplit& train = built.split("train");
  WindowConfig w;
  w.max_len = 64;
  const std::vector<Window> windows = eval_windows(train, w);
  const Batch b = make_batch(train, windows, {3, 0, 7});
  REQUIRE(b.positions.size() == b.tokens.size());
  for (int64_t row = 0; row < b.batch_size; ++row) {
    const int64_t doc = b.doc_ids[row];
    for (int64_t t = 0; t < b.seq_len; ++t)
      CHECK(b.positions[row * b.seq_len + t] == (t < train.doc_length(doc) ? train.doc_positions(doc)[t] : 0));
  }
  CHECK(make_batch(index.split("train"), windows, {3, 0, 7}).positions.empty());
}

TEST_CASE("coupled positions: a task without operands to couple refuses them, naming the key",
          "[datasets][sequence][positions]") {
  DataConfig c = coupled("reverse-string", SequenceLayout::queries);
  const std::string why = test::data_error_of([&] { c.validate(); });
  CHECK_THAT(why, Contains("data.generated.positions"));
  CHECK_THAT(why, Contains("binary-addition, addition"));
  c.task = "order";  // a separation task
  CHECK_THAT(test::data_error_of([&] { c.validate(); }), Contains("data.generated.positions"));
  c = coupled("addition", SequenceLayout::prompt_answer);
  CHECK_NOTHROW(c.validate());
}

TEST_CASE("coupled positions: a training sample's count starts at its own random offset",
          "[datasets][sequence][positions]") {
  DataConfig c = coupled("binary-addition", SequenceLayout::queries);
  const Dataset plain = load_dataset(c);
  c.generated.position_offset = 5;
  const Dataset moved = load_dataset(c);
  const TokenizedSplit &before = plain.split("train"), &after = moved.split("train");
  REQUIRE(after.tokens == before.tokens);
  std::set<int32_t> offsets;
  for (int64_t d = 0; d < after.num_docs(); ++d) {
    const int32_t* p0 = before.doc_positions(d);
    const int32_t* p1 = after.doc_positions(d);
    const int32_t offset = p1[0] - p0[0];  // a sample starts with an operand digit, at position 1
    CHECK(offset >= 0);
    CHECK(offset <= 5);
    offsets.insert(offset);
    for (int64_t t = 0; t < after.doc_length(d); ++t)
      CHECK(p1[t] == (p0[t] == 0 ? 0 : p0[t] + offset));  // the operator and the answer mark stay at 0
  }
  CHECK(offsets.size() == 6);                                 // every offset in [0, 5] drawn among 200 samples
  for (const std::string split : {"val", "test", "test_20"})  // held-out samples count from 1, as at test time
    CHECK(moved.split(split).positions == plain.split(split).positions);
  CHECK(load_dataset(c).split("train").positions == after.positions);  // a pure function of data_seed
  c.generated.positions = TokenPositions::index;
  CHECK_THAT(test::data_error_of([&] { c.validate(); }),
             Contains("generated.position_offset: moves coupled positions: set data.generated.positions: coupled"));
}
