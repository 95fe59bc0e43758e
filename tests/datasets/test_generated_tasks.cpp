// Separation tasks: every label is recomputed from the text by an independent
// reading of the task's definition; then class balance, lengths per split,
// disjoint splits, determinism and the checks of data.generated.*.
#include "datasets/dataset.h"
#include "datasets/tasks/generated_tasks.h"
#include "helpers.h"

#include <algorithm>
#include <map>
#include <set>
#include <sstream>

using namespace rotor;
using Catch::Matchers::Contains;

namespace {

using Words = std::vector<std::string>;

Words words(const std::string& text) {
  std::istringstream in(text);
  Words out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

bool is_letter(const std::string& w, int64_t alphabet) { return w.size() == 1 && w[0] >= 'a' && w[0] < 'a' + alphabet; }

std::string yes_no(bool yes) { return yes ? "yes" : "no"; }

std::string order_label(const Words& t, const GeneratedTaskConfig& g) {
  REQUIRE(std::count(t.begin(), t.end(), "A") == 1);
  REQUIRE(std::count(t.begin(), t.end(), "B") == 1);
  for (const std::string& w : t) CHECK((w == "A" || w == "B" || is_letter(w, g.alphabet)));
  return yes_no(std::find(t.begin(), t.end(), "A") < std::find(t.begin(), t.end(), "B"));
}

std::string first_last_label(const Words& t, const GeneratedTaskConfig&) {
  for (const std::string& w : t) CHECK(is_letter(w, 2));
  return yes_no(t.front() == t.back());
}

std::string offset_label(const Words& t, const GeneratedTaskConfig& g) {
  REQUIRE(std::count(t.begin(), t.end(), "M") == 1);
  const auto p = static_cast<int64_t>(std::find(t.begin(), t.end(), "M") - t.begin());
  REQUIRE(p + g.offset < static_cast<int64_t>(t.size()));
  for (const std::string& w : t) CHECK((w == "M" || is_letter(w, g.alphabet)));
  return t[static_cast<size_t>(p + g.offset)];
}

std::string recall_label(const Words& t, const GeneratedTaskConfig& g) {
  REQUIRE(t.size() % 2 == 0);
  REQUIRE(t[t.size() - 2] == "?");
  std::map<std::string, std::string> value_of;
  for (size_t i = 0; i + 2 < t.size(); i += 2) {
    const std::string& key = t[i];
    CHECK(key[0] == 'k');
    CHECK(std::stoll(key.substr(1)) < g.keys);
    CHECK(is_letter(t[i + 1], g.alphabet));
    CHECK(value_of.emplace(key, t[i + 1]).second);  // keys distinct
  }
  REQUIRE(value_of.count(t.back()) == 1);
  return value_of[t.back()];
}

std::string missing_duplicate_label(const Words& t, const GeneratedTaskConfig&) {
  REQUIRE(t.size() % 2 == 1);
  const size_t m = t.size() / 2;
  REQUIRE(t[m] == "|");
  std::string masked;
  for (size_t i = 0; i < m; ++i) {
    CHECK(is_letter(t[i], 2));
    if (t[m + 1 + i] == "_") {
      CHECK(masked.empty());
      masked = t[i];
    } else {
      CHECK(t[m + 1 + i] == t[i]);
    }
  }
  REQUIRE_FALSE(masked.empty());
  return masked;
}

std::string bigram_label(const Words& t, const GeneratedTaskConfig& g) {
  int64_t pairs = 0;
  for (size_t i = 0; i < t.size(); ++i) {
    CHECK(is_letter(t[i], g.alphabet));
    if (i + 1 < t.size() && t[i] == "a" && t[i + 1] == "b") ++pairs;
  }
  CHECK(pairs <= 1);  // a positive gets exactly one "a b"
  return yes_no(pairs > 0);
}

std::string label_of(const std::string& task, const std::string& text, const GeneratedTaskConfig& g) {
  const Words t = words(text);
  if (task == "order") return order_label(t, g);
  if (task == "first-last") return first_last_label(t, g);
  if (task == "offset") return offset_label(t, g);
  if (task == "recall") return recall_label(t, g);
  if (task == "missing-duplicate") return missing_duplicate_label(t, g);
  REQUIRE(task == "bigram");
  return bigram_label(t, g);
}

DataConfig small(const std::string& task) {
  DataConfig c;
  c.task = task;
  c.train_size = 240;  // multiples of 2 and 8 classes
  c.eval_size = 48;
  c.cache = false;
  return c;
}

// The lengths split `name` may have, from the options alone.
std::pair<int64_t, int64_t> length_range(const std::string& name, const GeneratedTaskConfig& g) {
  if (name.rfind("test_", 0) != 0) return {g.min_len, g.max_len};
  const int64_t l = std::stoll(name.substr(5));
  return {l / 2 + 1, l};
}

size_t class_count(const std::string& task, const GeneratedTaskConfig& g) {
  return task == "offset" || task == "recall" ? static_cast<size_t>(g.alphabet) : 2;
}

void check_task(const DataConfig& c) {
  INFO("task " << c.task);
  int64_t attempts = 0;
  const std::vector<DocumentSplit> splits = separation_documents(c, attempts);
  Words names;
  for (const DocumentSplit& s : splits) names.push_back(s.name);
  CHECK(names == Words{"train", "val", "test", "test_128", "test_256"});
  std::set<std::string> texts;
  int64_t total = 0;
  for (const DocumentSplit& s : splits) {
    INFO("split " << s.name);
    CHECK(static_cast<int64_t>(s.docs.size()) == (s.name == "train" ? c.train_size : c.eval_size));
    const auto [lo, hi] = length_range(s.name, c.generated);
    std::map<std::string, int64_t> per_class;
    for (const Document& d : s.docs) {
      INFO(d.text);
      CHECK(label_of(c.task, d.text, c.generated) == d.label);
      const auto n = static_cast<int64_t>(words(d.text).size());
      CHECK(n >= lo);
      CHECK(n <= hi);
      ++per_class[d.label];
      texts.insert(d.text);
      ++total;
    }
    CHECK(per_class.size() == class_count(c.task, c.generated));
    for (const auto& [label, count] : per_class)
      CHECK(count * static_cast<int64_t>(per_class.size()) == static_cast<int64_t>(s.docs.size()));
  }
  CHECK(static_cast<int64_t>(texts.size()) == total);  // disjoint splits, no repeats
  CHECK(attempts >= total);
}

}  // namespace

TEST_CASE("separation samples have the labels their definitions give, balanced, in range, disjoint",
          "[datasets][generated]") {
  for (const std::string& task : separation_task_names()) check_task(small(task));
  DataConfig c = small("offset");
  c.generated.offset = 12;
  check_task(c);
  c.generated.alphabet = 3;
  c.train_size = 243;
  c.eval_size = 48;
  check_task(c);
}

TEST_CASE("every class occurs in a balanced split: 8 values for offset and recall", "[datasets][generated]") {
  for (const char* task : {"offset", "recall"}) {
    int64_t attempts = 0;
    const auto splits = separation_documents(small(task), attempts);
    std::set<std::string> labels;
    for (const Document& d : splits[0].docs) labels.insert(d.label);
    CHECK(labels == std::set<std::string>{"a", "b", "c", "d", "e", "f", "g", "h"});
  }
}

TEST_CASE("lengths are rounded inside the range to those a task allows", "[datasets][generated]") {
  DataConfig c = small("recall");
  c.generated.min_len = 17;
  c.generated.max_len = 21;
  c.generated.test_lengths = {9};  // (4, 9]: 6 and 8
  auto splits = separation_splits(c);
  CHECK(splits[0].min_len == 18);
  CHECK(splits[0].max_len == 20);
  CHECK(splits[3].name == "test_9");
  CHECK(splits[3].min_len == 6);
  CHECK(splits[3].max_len == 8);
  c.task = "missing-duplicate";
  splits = separation_splits(c);
  CHECK(splits[0].min_len == 17);
  CHECK(splits[0].max_len == 21);
  CHECK(splits[3].min_len == 5);
  CHECK(splits[3].max_len == 9);
  c.task = "offset";
  c.generated.offset = 40;
  c.generated.min_len = 16;
  c.generated.max_len = 64;
  c.generated.test_lengths = {128};
  splits = separation_splits(c);
  CHECK(splits[0].min_len == 42);  // n > k + 1
  int64_t attempts = 0;
  const std::vector<DocumentSplit> docs = separation_documents(c, attempts);
  for (const Document& d : docs[0].docs) CHECK(words(d.text).size() >= 42);
}

TEST_CASE("separation data is a pure function of the options and data_seed", "[datasets][generated]") {
  for (const std::string& task : separation_task_names()) {
    INFO(task);
    DataConfig c = small(task);
    c.data_seed = 7;
    int64_t a1 = 0, a2 = 0, a3 = 0;
    const auto a = separation_documents(c, a1);
    const auto b = separation_documents(c, a2);
    c.data_seed = 8;
    const auto other = separation_documents(c, a3);
    CHECK(a1 == a2);
    for (size_t s = 0; s < a.size(); ++s) {
      REQUIRE(a[s].docs.size() == b[s].docs.size());
      int64_t same = 0;
      for (size_t i = 0; i < a[s].docs.size(); ++i) {
        CHECK(a[s].docs[i].text == b[s].docs[i].text);
        CHECK(a[s].docs[i].label == b[s].docs[i].label);
        same += a[s].docs[i].text == other[s].docs[i].text;
      }
      CHECK(same < static_cast<int64_t>(a[s].docs.size()) / 2);
    }
  }
}

TEST_CASE("bad data.generated options are DataErrors naming the key", "[datasets][generated]") {
  const auto error_of = [](const std::string& task, auto&& change) {
    DataConfig c = small(task);
    change(c.generated);
    return test::data_error_of([&] { separation_splits(c); });
  };
  using G = GeneratedTaskConfig;
  CHECK_THAT(error_of("order", [](G& g) { g.min_len = 0; }), Contains("data.generated.min_len"));
  CHECK_THAT(error_of("order", [](G& g) { g.max_len = 10; }), Contains("data.generated.max_len"));
  CHECK_THAT(error_of("order", [](G& g) { g.alphabet = 1; }), Contains("data.generated.alphabet"));
  CHECK_THAT(error_of("order", [](G& g) { g.alphabet = 27; }), Contains("data.generated.alphabet"));
  CHECK_THAT(error_of("recall", [](G& g) { g.keys = 0; }), Contains("data.generated.keys"));
  CHECK_THAT(error_of("offset", [](G& g) { g.offset = 0; }), Contains("data.generated.offset"));
  CHECK_THAT(error_of("order", [](G& g) { g.test_lengths = {1}; }), Contains("data.generated.test_lengths"));
  CHECK_THAT(error_of("order", [](G& g) { g.test_lengths = {128, 128}; }), Contains("listed twice"));
  // Recall needs a distinct key per pair: 256 tokens hold 127 pairs.
  const std::string keys = error_of("recall", [](G& g) { g.keys = 100; });
  CHECK_THAT(keys, Contains("data.generated.keys"));
  CHECK_THAT(keys, Contains("127 distinct keys"));
  DataConfig fewer = small("recall");
  fewer.generated.keys = 100;
  fewer.generated.test_lengths = {128};
  CHECK_NOTHROW(separation_splits(fewer));
  // Ranges without an allowed length.
  const std::string none = error_of("offset", [](G& g) { g.offset = 70; });
  CHECK_THAT(none, Contains("data.generated.min_len"));
  CHECK_THAT(none, Contains("lengths >= 72"));
  CHECK_THAT(error_of("recall", [](G& g) { g.min_len = g.max_len = 17; }), Contains("even lengths >= 4"));
  CHECK_THAT(error_of("offset", [](G& g) { g.offset = 40, g.min_len = 48, g.max_len = 96, g.test_lengths = {40}; }),
             Contains("data.generated.test_lengths: task 'offset' split 'test_40'"));
}

TEST_CASE("splits too large for their lengths are a DataError naming task and split", "[datasets][generated]") {
  DataConfig c = small("first-last");
  c.generated.min_len = 2;
  c.generated.max_len = 3;  // 4 + 8 distinct strings
  int64_t attempts = 0;
  const std::string msg = test::data_error_of([&] { separation_documents(c, attempts); });
  CHECK_THAT(msg, Contains("task 'first-last' split 'train'"));
  CHECK_THAT(msg, Contains("larger lengths"));
  CHECK_THAT(msg, Contains("smaller sizes"));
}

TEST_CASE("a separation task loads with the vocab tokenizer, reports majority rates and caches by its options",
          "[datasets][generated]") {
  test::TempDir dir;
  DataConfig c = small("offset");
  c.cache = true;
  c.cache_dir = dir.path("cache");
  const Dataset d = load_dataset(c);
  CHECK(d.stats.tokenizer == "vocab");
  CHECK(d.stats.vocab_size == 4 + 8 + 1);  // specials, a..h, M
  CHECK(d.labels.size() == 8);
  CHECK(d.split("test_256").num_docs() == 48);
  for (const SplitStats& s : d.stats.splits) CHECK(s.majority_rate() == 0.125);
  CHECK_THAT(d.stats.report(), Contains("majority"));
  CHECK_THAT(d.stats.report(), Contains("12.5%"));
  CHECK(load_dataset(c).stats.from_cache);
  for (auto change : {+[](DataConfig& x) { x.generated.offset = 5; }, +[](DataConfig& x) { x.generated.alphabet = 4; },
                      +[](DataConfig& x) { x.generated.max_len = 60; }, +[](DataConfig& x) { x.data_seed = 1; },
                      +[](DataConfig& x) { x.generated.test_lengths = {100}; }}) {
    DataConfig changed = c;
    change(changed);
    CHECK_FALSE(load_dataset(changed).stats.from_cache);
  }
  c.generated.keys = 7;  // recall only, but part of the key: a miss, not a stale hit
  CHECK_FALSE(load_dataset(c).stats.from_cache);
}
