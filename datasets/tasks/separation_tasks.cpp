#include "datasets/tasks/separation_tasks.h"

#include <algorithm>
#include <numeric>

#include "datasets/data_error.h"
#include "datasets/tasks/draws.h"

namespace rotor {
namespace {

using Symbols = std::vector<std::string>;

Symbols letters(int64_t count) {
  Symbols out;
  for (int64_t i = 0; i < count; ++i) out.push_back(letter(i));
  return out;
}

Symbols filler(const GeneratedTaskConfig& config, Draws& draws, int64_t n) {
  Symbols out;
  for (int64_t i = 0; i < n; ++i) out.push_back(letter(draws.below(config.alphabet)));
  return out;
}

Symbols yes_no(const GeneratedTaskConfig&) { return {"no", "yes"}; }
Symbols a_or_b(const GeneratedTaskConfig&) { return letters(2); }
Symbols alphabet(const GeneratedTaskConfig& config) { return letters(config.alphabet); }

LengthRule at_least_two(const GeneratedTaskConfig&) { return {2, 1}; }
LengthRule offset_lengths(const GeneratedTaskConfig& config) { return {config.offset + 2, 1}; }
LengthRule recall_lengths(const GeneratedTaskConfig&) { return {4, 2}; }
LengthRule missing_duplicate_lengths(const GeneratedTaskConfig&) { return {3, 2}; }

void no_check(const GeneratedTaskConfig&, int64_t) {}

void recall_check(const GeneratedTaskConfig& config, int64_t longest) {
  const int64_t pairs = (longest - 2) / 2;
  if (pairs > config.keys) {
    throw DataError("data.generated.keys: task 'recall' with samples of up to " + std::to_string(longest) +
                    " tokens needs " + std::to_string(pairs) + " distinct keys, but keys is " +
                    std::to_string(config.keys) + " (raise keys or lower the lengths)");
  }
}

Symbols draw_order(const GeneratedTaskConfig& config, const RandomKey& key, int64_t n, int32_t label) {
  Draws draws(key);
  Symbols s = filler(config, draws, n);
  const int64_t i = draws.below(n);
  int64_t j = draws.below(n - 1);
  if (j >= i) ++j;  // distinct from i
  const bool a_first = label == 1;
  s[static_cast<size_t>(std::min(i, j))] = a_first ? "A" : "B";
  s[static_cast<size_t>(std::max(i, j))] = a_first ? "B" : "A";
  return s;
}

Symbols draw_first_last(const GeneratedTaskConfig&, const RandomKey& key, int64_t n, int32_t label) {
  Draws draws(key);
  Symbols s;
  for (int64_t i = 0; i < n; ++i) s.push_back(letter(draws.below(2)));
  const bool same = label == 1;
  s.back() = same ? s.front() : letter(s.front() == "a" ? 1 : 0);
  return s;
}

Symbols draw_offset(const GeneratedTaskConfig& config, const RandomKey& key, int64_t n, int32_t label) {
  Draws draws(key);
  Symbols s = filler(config, draws, n);
  const int64_t p = draws.below(n - config.offset);  // p + k < n
  s[static_cast<size_t>(p)] = std::string(kOffsetMarker);
  s[static_cast<size_t>(p + config.offset)] = letter(label);
  return s;
}

Symbols draw_recall(const GeneratedTaskConfig& config, const RandomKey& key, int64_t n, int32_t label) {
  Draws draws(key);
  const int64_t pairs = (n - 2) / 2;
  // The first `pairs` entries of a partial Fisher-Yates shuffle: distinct keys.
  std::vector<int64_t> keys(static_cast<size_t>(config.keys));
  std::iota(keys.begin(), keys.end(), int64_t{0});
  for (int64_t i = 0; i < pairs; ++i) std::swap(keys[i], keys[i + draws.below(config.keys - i)]);
  const int64_t asked = draws.below(pairs);
  Symbols s;
  for (int64_t i = 0; i < pairs; ++i) {
    s.push_back("k" + std::to_string(keys[i]));
    s.push_back(i == asked ? letter(label) : letter(draws.below(config.alphabet)));
  }
  s.push_back("?");
  s.push_back("k" + std::to_string(keys[asked]));
  return s;
}

Symbols draw_missing_duplicate(const GeneratedTaskConfig&, const RandomKey& key, int64_t n, int32_t label) {
  Draws draws(key);
  const int64_t m = (n - 1) / 2;
  Symbols s;
  for (int64_t i = 0; i < m; ++i) s.push_back(letter(draws.below(2)));
  const int64_t masked = draws.below(m);
  s[static_cast<size_t>(masked)] = letter(label);
  s.push_back("|");
  for (int64_t i = 0; i < m; ++i) s.push_back(i == masked ? "_" : s[static_cast<size_t>(i)]);
  return s;
}

Symbols draw_bigram(const GeneratedTaskConfig& config, const RandomKey& key, int64_t n, int32_t label) {
  Draws draws(key);
  Symbols s;
  for (int64_t i = 0; i < n; ++i) {
    int64_t c = draws.below(config.alphabet);
    if (c == 1 && i > 0 && s.back() == "a") {  // a "b" after an "a": redraw among the other V - 1 symbols
      c = draws.below(config.alphabet - 1);
      if (c >= 1) ++c;
    }
    s.push_back(letter(c));
  }
  if (label == 1) {
    // Overwriting positions i, i + 1 with "a b" makes no other "a b".
    const int64_t i = draws.below(n - 1);
    s[static_cast<size_t>(i)] = "a";
    s[static_cast<size_t>(i + 1)] = "b";
  }
  return s;
}

}  // namespace

std::string letter(int64_t i) { return std::string(1, static_cast<char>('a' + i)); }

const std::vector<SeparationTask>& separation_tasks() {
  static const std::vector<SeparationTask> tasks = {
      {"order", yes_no, at_least_two, no_check, draw_order},
      {"first-last", yes_no, at_least_two, no_check, draw_first_last},
      {"offset", alphabet, offset_lengths, no_check, draw_offset},
      {"recall", alphabet, recall_lengths, recall_check, draw_recall},
      {"missing-duplicate", a_or_b, missing_duplicate_lengths, no_check, draw_missing_duplicate},
      {"bigram", yes_no, at_least_two, no_check, draw_bigram},
  };
  return tasks;
}

const SeparationTask* find_separation_task(std::string_view name) {
  for (const SeparationTask& t : separation_tasks())
    if (name == t.name) return &t;
  return nullptr;
}

}  // namespace rotor
