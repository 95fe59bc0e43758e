#include "datasets/tasks/generated_tasks.h"

#include <algorithm>
#include <unordered_set>

#include "datasets/data_error.h"
#include "datasets/tasks/separation_tasks.h"
#include "engine/random.h"

namespace rotor {
namespace {

const SeparationTask& separation_task_of(const DataConfig& config) {
  const SeparationTask* task = find_separation_task(config.task);
  if (task == nullptr) throw DataError("task: '" + config.task + "' is not a separation task");
  return *task;
}

std::string describe(const LengthRule& rule) {
  if (rule.step == 1) return "lengths >= " + std::to_string(rule.min);
  return std::string(rule.min % 2 ? "odd" : "even") + " lengths >= " + std::to_string(rule.min);
}

// [lo, hi] narrowed to the lengths `rule` allows; a DataError naming `key` if there are none.
GeneratedSplit allowed_range(const std::string& task, const std::string& key, GeneratedSplit split,
                             const LengthRule& rule) {
  const int64_t lo = split.min_len, hi = split.max_len;
  int64_t first = std::max(lo, rule.min);
  first += (rule.step - (first - rule.min) % rule.step) % rule.step;
  if (first > hi) {
    throw DataError(key + ": task '" + task + "' split '" + split.name + "' has lengths " + std::to_string(lo) + ".." +
                    std::to_string(hi) + ", which hold none of the task's " + describe(rule));
  }
  split.min_len = first;
  split.max_len = hi - (hi - rule.min) % rule.step;
  return split;
}

// Fills `split` with distinct samples (none in `seen`), labels round-robin.
DocumentSplit fill_separation_split(const SeparationTask& task, const DataConfig& config, const GeneratedSplit& split,
                                    std::unordered_set<std::string>& seen, int64_t& attempts) {
  const std::string stream = std::string(task.name) + "/" + split.name;
  const RandomKey length_key{config.data_seed, stream_id(stream + "/length"), 0};
  const uint64_t sample_stream = stream_id(stream);
  const int64_t step = task.lengths(config.generated).step;
  const auto lengths = static_cast<uint64_t>((split.max_len - split.min_len) / step + 1);
  const std::vector<std::string> classes = task.classes(config.generated);
  DocumentSplit out{split.name, {}};
  for (int64_t j = 0; j < split.size; ++j) {
    const auto label = static_cast<int32_t>(j % static_cast<int64_t>(classes.size()));
    for (int64_t a = 0;; ++a) {
      if (a == kDrawsPerSample) {
        throw DataError("task '" + std::string(task.name) + "' split '" + split.name + "': sample " +
                        std::to_string(j) + " still repeats an earlier one after " + std::to_string(a) +
                        " draws; lengths " + std::to_string(split.min_len) + ".." + std::to_string(split.max_len) +
                        " allow too few distinct samples: use larger lengths (data.generated.min_len, max_len, "
                        "test_lengths) or smaller sizes (data.train_size, data.eval_size)");
      }
      const uint64_t draw = static_cast<uint64_t>(j * kDrawsPerSample + a);
      const int64_t n = split.min_len + step * static_cast<int64_t>(length_key.below(draw, lengths));
      std::string text =
          joined_symbols(task.draw(config.generated, RandomKey{config.data_seed, sample_stream, draw}, n, label));
      ++attempts;
      if (!seen.insert(text).second) continue;
      const std::string where = stream + " sample " + std::to_string(j);
      out.docs.push_back(Document{text, classes[static_cast<size_t>(label)], std::move(text), where});
      break;
    }
  }
  return out;
}

}  // namespace

std::string joined_symbols(const std::vector<std::string>& symbols) {
  std::string out;
  for (const std::string& s : symbols) out += (out.empty() ? "" : " ") + s;
  return out;
}

void check_generated_options(const GeneratedTaskConfig& g) {
  const auto expect = [](bool ok, const std::string& key, const std::string& what, int64_t got) {
    if (!ok) throw DataError("data.generated." + key + ": expected " + what + ", got " + std::to_string(got));
  };
  expect(g.min_len >= 1, "min_len", "at least 1", g.min_len);
  expect(g.max_len >= g.min_len, "max_len", "at least data.generated.min_len (" + std::to_string(g.min_len) + ")",
         g.max_len);
  expect(g.alphabet >= 2 && g.alphabet <= 26, "alphabet", "2..26 symbols", g.alphabet);
  expect(g.keys >= 1, "keys", "at least 1", g.keys);
  expect(g.offset >= 1, "offset", "at least 1", g.offset);
  for (size_t i = 0; i < g.test_lengths.size(); ++i) {
    const int64_t l = g.test_lengths[i];
    expect(l >= 2, "test_lengths", "lengths of at least 2", l);
    expect(std::find(g.test_lengths.begin(), g.test_lengths.begin() + static_cast<std::ptrdiff_t>(i), l) ==
               g.test_lengths.begin() + static_cast<std::ptrdiff_t>(i),
           "test_lengths", "distinct lengths, but this one is listed twice", l);
  }
}

std::vector<std::string> separation_task_names() {
  std::vector<std::string> names;
  for (const SeparationTask& t : separation_tasks()) names.emplace_back(t.name);
  return names;
}

bool is_separation_task(std::string_view task) { return find_separation_task(task) != nullptr; }

std::vector<GeneratedSplit> separation_splits(const DataConfig& config) {
  const SeparationTask& task = separation_task_of(config);
  const GeneratedTaskConfig& g = config.generated;
  check_generated_options(g);
  const LengthRule rule = task.lengths(g);
  const int64_t train_size = config.train_size > 0 ? config.train_size : kDefaultTrainSize;
  const int64_t eval_size = config.eval_size > 0 ? config.eval_size : kDefaultEvalSize;
  std::vector<GeneratedSplit> splits;
  for (const char* name : {"train", "val", "test"}) {
    const GeneratedSplit s{name, name == std::string("train") ? train_size : eval_size, g.min_len, g.max_len};
    splits.push_back(allowed_range(task.name, "data.generated.min_len", s, rule));
  }
  for (int64_t l : g.test_lengths) {
    const GeneratedSplit s{"test_" + std::to_string(l), eval_size, l / 2 + 1, l};
    splits.push_back(allowed_range(task.name, "data.generated.test_lengths", s, rule));
  }
  int64_t longest = 0;
  for (const GeneratedSplit& s : splits) longest = std::max(longest, s.max_len);
  task.check(g, longest);
  return splits;
}

std::vector<DocumentSplit> separation_documents(const DataConfig& config, int64_t& attempts) {
  const SeparationTask& task = separation_task_of(config);
  std::unordered_set<std::string> seen;
  std::vector<DocumentSplit> out;
  for (const GeneratedSplit& s : separation_splits(config))
    out.push_back(fill_separation_split(task, config, s, seen, attempts));
  return out;
}

}  // namespace rotor
