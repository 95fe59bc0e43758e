// Sequence tasks as datasets (datasets/tasks/sequence_task_data.h): the
// layouts on a hand case, splits and their lengths, held-out samples unseen in
// training, determinism, the token cache, and the checks of the options.
#include "datasets/dataset.h"
#include "datasets/tasks/sequence_layout.h"
#include "datasets/tasks/sequence_task_data.h"
#include "datasets/token_options.h"
#include "helpers.h"

#include <set>

using namespace rotor;
using Catch::Matchers::Contains;

namespace {

using Symbols = std::vector<std::string>;

DataConfig small_config(const std::string& task) {
  DataConfig c;
  c.task = task;
  c.labelled = false;  // a target per token, no document labels
  c.cache = false;
  c.train_size = 400;
  c.eval_size = 50;
  c.generated.min_len = 1;
  c.generated.max_len = 12;
  c.generated.test_lengths = {20, 30};
  c.max_len = 64;
  return c;
}

// Document d of a split as its symbols.
Symbols doc_symbols(const Dataset& data, const TokenizedSplit& s, int64_t d) {
  const std::vector<int32_t> ids(s.doc_tokens(d), s.doc_tokens(d) + s.doc_length(d));
  Symbols out;
  for (int32_t id : ids) out.push_back(data.tokenizer->decode({id}));
  return out;
}

// The input of a queries-layout document: its symbols before the first "?".
std::string input_of(const Dataset& data, const TokenizedSplit& s, int64_t d) {
  std::string out;
  for (const std::string& symbol : doc_symbols(data, s, d)) {
    if (symbol == kQuerySymbol) break;
    out += symbol + " ";
  }
  return out;
}

}  // namespace

TEST_CASE("render lays a hand case out as queries and as prompt and answer", "[datasets][sequence]") {
  const SequenceSample sample{{"a", "b", "c"}, {"c", "b", "a"}};
  const RenderedSample q = render(sample, SequenceLayout::queries);
  CHECK(q.tokens == Symbols{"a", "b", "c", "?", "?", "?"});
  CHECK(q.targets == Symbols{"", "", "", "c", "b", "a"});
  const RenderedSample p = render(sample, SequenceLayout::prompt_answer);
  CHECK(p.tokens == Symbols{"a", "b", "c", "=", "c", "b", "a"});
  CHECK(p.targets == Symbols{"", "", "", "c", "b", "a", "."});
}

TEST_CASE("a sequence task's splits hold inputs of their lengths with per-token targets", "[datasets][sequence]") {
  for (const SequenceLayout layout : {SequenceLayout::queries, SequenceLayout::prompt_answer}) {
    DataConfig c = small_config("reverse-string");
    c.sequence_layout = layout;
    const Dataset data = load_dataset(c);
    std::vector<std::string> names;
    for (const TokenizedSplit& s : data.splits) names.push_back(s.name);
    CHECK(names == std::vector<std::string>{"train", "val", "test", "test_20", "test_30"});
    CHECK(data.labels.size() == 0);
    for (const TokenizedSplit& s : data.splits) {
      INFO(s.name);
      REQUIRE(s.has_targets());
      CHECK(s.num_docs() == (s.name == "train" ? 400 : 50));
      for (int64_t d = 0; d < s.num_docs(); ++d) {
        const Symbols symbols = doc_symbols(data, s, d);
        // reverse-string: n inputs, then n + 1 (answer) or n (queries) tokens.
        const int64_t n = layout == SequenceLayout::queries ? s.doc_length(d) / 2 : (s.doc_length(d) - 1) / 2;
        if (s.name == "test_20" || s.name == "test_30") CHECK(n == std::stoll(s.name.substr(5)));
        if (s.name == "train" || s.name == "val") CHECK((n >= 1 && n <= 12));
        for (int64_t i = 0; i < s.doc_length(d); ++i) {
          const int32_t target = s.doc_targets(d)[i];
          const size_t at = static_cast<size_t>(i);
          if (i < n) {
            CHECK(target == kNoTarget);
          } else if (layout == SequenceLayout::queries) {
            CHECK(symbols[at] == "?");
            CHECK(data.tokenizer->decode({target}) == symbols[static_cast<size_t>(2 * n - 1 - i)]);
          } else if (i + 1 < s.doc_length(d)) {  // the answer's next symbol: input reversed
            CHECK(data.tokenizer->decode({target}) == symbols[static_cast<size_t>(2 * n - 1 - i)]);
          } else {
            CHECK(data.tokenizer->decode({target}) == ".");
          }
        }
      }
    }
  }
}

TEST_CASE("a sequence task's held-out splits and their longest documents are known before training",
          "[datasets][sequence]") {
  DataConfig c = small_config("reverse-string");
  CHECK(held_out_split_names(c) == std::vector<std::string>{"val", "test", "test_20", "test_30"});
  CHECK(generated_splits_max_tokens(c).at("test_30") == 60);  // 30 symbols, 30 queries
  c.sequence_layout = SequenceLayout::prompt_answer;
  CHECK(generated_splits_max_tokens(c).at("test_30") == 61);  // 30 symbols, "=", 30 answer symbols
  c.task = "parity-check";
  const std::map<std::string, int64_t> longest = generated_splits_max_tokens(c);
  CHECK(longest.at("test_20") == 22);
  CHECK(longest.count("test_99") == 0);
  CHECK(longest.at("train") == 14);  // the training split too: up to 12 symbols, "=", answer
}

TEST_CASE("held-out samples differ from every training sample and from each other", "[datasets][sequence]") {
  // Parity at lengths 1..8 has 510 strings for 400 training draws: the short ones are all in train, and the
  // held-out splits take what is left.
  DataConfig c = small_config("parity-check");
  c.generated.max_len = 8;
  c.generated.test_lengths = {9};
  const Dataset data = load_dataset(c);
  std::set<std::string> train, held_out;
  for (int64_t d = 0; d < data.split("train").num_docs(); ++d) train.insert(input_of(data, data.split("train"), d));
  CHECK(train.size() < 400);  // training samples are drawn independently and repeat
  int64_t count = 0;
  for (const TokenizedSplit& s : data.splits) {
    if (s.name == "train") continue;
    for (int64_t d = 0; d < s.num_docs(); ++d, ++count) {
      const std::string input = input_of(data, s, d);
      INFO(s.name << ": " << input);
      CHECK(train.count(input) == 0);
      held_out.insert(input);
    }
  }
  CHECK(static_cast<int64_t>(held_out.size()) == count);
  // 4 strings of length 2, all in train: a DataError naming the keys.
  c.generated.test_lengths = {2};
  CHECK_THAT(test::data_error_of([&] { load_dataset(c); }), Contains("data.generated.min_len, max_len"));
}

TEST_CASE("sequence task data is a pure function of the options and data_seed", "[datasets][sequence]") {
  DataConfig c = small_config("stack-manipulation");
  c.data_seed = 5;
  const Dataset a = load_dataset(c), b = load_dataset(c);
  c.data_seed = 6;
  const Dataset other = load_dataset(c);
  for (size_t s = 0; s < a.splits.size(); ++s) {
    CHECK(a.splits[s].tokens == b.splits[s].tokens);
    CHECK(a.splits[s].targets == b.splits[s].targets);
    CHECK(a.splits[s].offsets == b.splits[s].offsets);
    CHECK(a.splits[s].tokens != other.splits[s].tokens);
  }
  CHECK(a.tokenizer->save() == b.tokenizer->save());
}

TEST_CASE("the token cache keeps a sequence task's targets, keyed on the layout", "[datasets][sequence][cache]") {
  test::TempDir dir;
  DataConfig c = small_config("solve-equation");
  c.generated.min_len = 3;
  c.cache = true;
  c.cache_dir = dir.path("cache");
  const Dataset built = load_dataset(c);
  const Dataset cached = load_dataset(c);
  CHECK_FALSE(built.stats.from_cache);
  CHECK(cached.stats.from_cache);
  for (size_t s = 0; s < built.splits.size(); ++s) CHECK(cached.splits[s].targets == built.splits[s].targets);
  const std::string key = token_cache_key(c, "", {});
  c.sequence_layout = SequenceLayout::prompt_answer;
  CHECK(token_cache_key(c, "", {}) != key);
  const Dataset answers = load_dataset(c);
  CHECK_FALSE(answers.stats.from_cache);
  CHECK(answers.split("train").tokens.size() > built.split("train").tokens.size());  // "=" then the answer
}

TEST_CASE("bad sequence task settings are DataErrors naming the key", "[datasets][sequence]") {
  DataConfig c = small_config("solve-equation");  // defined from 3 symbols on
  CHECK_THAT(test::data_error_of([&] { load_dataset(c); }), Contains("data.generated.min_len"));
  c.generated.min_len = 3;
  c.generated.test_lengths = {2};
  CHECK_THAT(test::data_error_of([&] { c.validate(); }), Contains("data.generated.test_lengths"));
  c = small_config("reverse-string");
  c.max_len = 20;  // train inputs up to 12 and as many queries: 24 tokens
  c.generated.test_lengths = {};
  const std::string too_long = test::data_error_of([&] { load_dataset(c); });
  CHECK_THAT(too_long, Contains("data.max_len"));
  CHECK_THAT(too_long, Contains("split 'train'"));
  c.max_len = 24;
  CHECK_NOTHROW(load_dataset(c));
  c.generated.test_lengths = {30};
  CHECK_THAT(test::data_error_of([&] { load_dataset(c); }), Contains("split 'test_30'"));
  c.eval_max_len = 60;
  CHECK_NOTHROW(load_dataset(c));
  c.tokenizer = TokenizerKind::byte;
  CHECK_THAT(test::data_error_of([&] { c.validate(); }), Contains("data.tokenizer"));
  c.tokenizer = TokenizerKind::automatic;
  c.labelled = true;  // a classifier's data
  CHECK_THAT(test::data_error_of([&] { c.validate(); }), Contains("data.task: 'reverse-string' is a sequence task"));
}
