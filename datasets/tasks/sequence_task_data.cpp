#include "datasets/tasks/sequence_task_data.h"

#include <algorithm>
#include <map>
#include <set>
#include <unordered_set>

#include "datasets/data_error.h"
#include "datasets/dataset.h"
#include "datasets/tasks/coupled_positions.h"
#include "datasets/tasks/index_hints.h"
#include "datasets/tasks/sequence_layout.h"
#include "datasets/vocab_tokenizer.h"

namespace rotor {
namespace {

const SequenceTask& sequence_task_of(const DataConfig& config) {
  const SequenceTask* task = find_sequence_task(config.task);
  if (task == nullptr) throw DataError("task: '" + config.task + "' is not a sequence task");
  return *task;
}

// Fills `split`: training samples as drawn, held-out ones redrawn until new to `seen`.
SequenceSplit fill_split(const SequenceTask& task, const DataConfig& config, const GeneratedSplit& split,
                         std::unordered_set<std::string>& seen, int64_t& attempts) {
  const std::string stream = std::string(task.name) + "/" + split.name;
  const RandomKey length_key{config.data_seed, stream_id(stream + "/length"), 0};
  const uint64_t sample_stream = stream_id(stream);
  const auto lengths = static_cast<uint64_t>(split.max_len - split.min_len + 1);
  const bool held_out = split.name != "train";
  SequenceSplit out{split.name, {}};
  for (int64_t j = 0; j < split.size; ++j) {
    for (int64_t a = 0;; ++a) {
      if (a == kDrawsPerSample) {
        throw DataError("task '" + std::string(task.name) + "' split '" + split.name + "': sample " +
                        std::to_string(j) + " still repeats a training or earlier sample after " + std::to_string(a) +
                        " draws; lengths " + std::to_string(split.min_len) + ".." + std::to_string(split.max_len) +
                        " hold too few distinct inputs: use longer lengths (data.generated.min_len, max_len, "
                        "test_lengths) or fewer samples (data.train_size, data.eval_size)");
      }
      const auto draw = static_cast<uint64_t>(j * kDrawsPerSample + a);
      const int64_t n = split.min_len + static_cast<int64_t>(length_key.below(draw, lengths));
      SequenceSample sample = task.draw(RandomKey{config.data_seed, sample_stream, draw}, n);
      ++attempts;
      if (!seen.insert(joined_symbols(sample.input)).second && held_out) continue;
      out.samples.push_back(std::move(sample));
      break;
    }
  }
  return out;
}

// `split`'s samples with index hints from a set of `hints`: a training sample's first hint is draw j of `key`,
// uniform over the starts that fit; a held-out sample's is h0.
void add_index_hints(SequenceSplit& split, const SequenceTask& task, int64_t hints, const RandomKey& key) {
  const bool train = split.name == "train";
  for (size_t j = 0; j < split.samples.size(); ++j) {
    SequenceSample& sample = split.samples[j];
    const int64_t needed = index_hints_needed(sample, task.coupled_operator);
    if (needed > hints)
      throw DataError("data.generated.index_hints: task '" + std::string(task.name) + "' split '" + split.name +
                      "' has a sample whose longest number has " + std::to_string(needed) + " digits, more than the " +
                      std::to_string(hints) + " hints; raise data.generated.index_hints to at least " +
                      std::to_string(needed));
    const auto starts = static_cast<uint64_t>(hints - needed + 1);
    const int64_t first = train ? static_cast<int64_t>(key.below(j, starts)) : 0;
    sample = with_index_hints(sample, task.coupled_operator, first);
  }
}

std::vector<std::string> layout_symbols(SequenceLayout layout) {
  if (layout == SequenceLayout::queries) return {kQuerySymbol};
  return {kAnswerSymbol, kEndSymbol};
}

std::unique_ptr<Tokenizer> symbol_tokenizer(const DataConfig& config, const std::vector<SequenceSplit>& splits) {
  std::set<std::string> symbols;
  for (const SequenceSplit& s : splits)
    for (const SequenceSample& sample : s.samples) {
      symbols.insert(sample.input.begin(), sample.input.end());
      symbols.insert(sample.output.begin(), sample.output.end());
    }
  std::vector<std::string> vocab = layout_symbols(config.sequence_layout);
  for (const std::string& s : symbols)
    if (std::find(vocab.begin(), vocab.end(), s) == vocab.end()) vocab.push_back(s);
  return std::make_unique<VocabTokenizer>(std::move(vocab));
}

// Each symbol's one token id; a DataError when the tokenizer does not know it.
class SymbolIds {
 public:
  explicit SymbolIds(const Tokenizer& tokenizer) : tokenizer_(tokenizer) {}
  int32_t operator()(const std::string& symbol) {
    const auto found = ids_.find(symbol);
    if (found != ids_.end()) return found->second;
    const std::vector<int32_t> ids = tokenizer_.encode(symbol);
    if (ids.size() != 1 || ids[0] == tokenizer_.unk_id())
      throw DataError("tokenizer: the symbol '" + symbol + "' is not one token of the tokenizer");
    return ids_[symbol] = ids[0];
  }

 private:
  const Tokenizer& tokenizer_;
  std::map<std::string, int32_t> ids_;
};

// Sample j's coupled positions from 1 on moved by its offset, uniform in [0, max_offset]: draw j of `key`.
std::vector<int32_t> offset_positions(std::vector<int32_t> positions, const RandomKey& key, int64_t j,
                                      int64_t max_offset) {
  const auto offset = static_cast<int32_t>(key.below(static_cast<uint64_t>(j), static_cast<uint64_t>(max_offset) + 1));
  for (int32_t& p : positions)
    if (p > 0) p += offset;
  return positions;
}

// `coupled_operator`: non-null, the tokens get coupled positions (tasks/coupled_positions.h), a training
// split's each from its own offset in [0, max_offset] (drawn from `offset_key`).
TokenizedSplit tokenize(const SequenceSplit& split, SequenceLayout layout, const char* coupled_operator,
                        SymbolIds& id_of, const RandomKey& offset_key, int64_t max_offset) {
  TokenizedSplit out;
  out.name = split.name;
  const int64_t offsets = split.name == "train" ? max_offset : 0;
  for (const SequenceSample& sample : split.samples) {
    const RenderedSample r = render(sample, layout);
    std::vector<int32_t> tokens, targets;
    for (const std::string& t : r.tokens) tokens.push_back(id_of(t));
    for (const std::string& t : r.targets) targets.push_back(t.empty() ? kNoTarget : id_of(t));
    std::vector<int32_t> positions;
    if (coupled_operator) positions = coupled_positions(sample, coupled_operator, layout);
    if (offsets > 0) positions = offset_positions(std::move(positions), offset_key, out.num_docs(), offsets);
    out.add_with_targets(tokens, targets, positions);
  }
  return out;
}

}  // namespace

bool is_sequence_task(std::string_view task) { return find_sequence_task(task) != nullptr; }

std::vector<GeneratedSplit> sequence_splits(const DataConfig& config) {
  const SequenceTask& task = sequence_task_of(config);
  const GeneratedTaskConfig& g = config.generated;
  check_generated_options(g);
  const auto at_least_task_min = [&](const std::string& key, int64_t length) {
    if (length < task.min_length)
      throw DataError("data.generated." + key + ": task '" + task.name + "' is defined for inputs of at least " +
                      std::to_string(task.min_length) + " symbols, got " + std::to_string(length));
  };
  at_least_task_min("min_len", g.min_len);
  const int64_t train_size = config.train_size > 0 ? config.train_size : kDefaultTrainSize;
  const int64_t eval_size = config.eval_size > 0 ? config.eval_size : kDefaultEvalSize;
  std::vector<GeneratedSplit> splits{{"train", train_size, g.min_len, g.max_len},
                                     {"val", eval_size, g.min_len, g.max_len},
                                     {"test", eval_size, g.min_len, g.max_len}};
  for (int64_t l : g.test_lengths) {
    at_least_task_min("test_lengths", l);
    splits.push_back({"test_" + std::to_string(l), eval_size, l, l});
  }
  return splits;
}

std::vector<SequenceSplit> sequence_samples(const DataConfig& config, int64_t& attempts) {
  const SequenceTask& task = sequence_task_of(config);
  std::unordered_set<std::string> seen;
  std::vector<SequenceSplit> out;
  const RandomKey hint_key{config.data_seed, stream_id(std::string(task.name) + "/train/index_hints"), 0};
  for (const GeneratedSplit& s : sequence_splits(config)) {
    out.push_back(fill_split(task, config, s, seen, attempts));
    if (config.generated.index_hints > 0) add_index_hints(out.back(), task, config.generated.index_hints, hint_key);
  }
  return out;
}

std::map<std::string, int64_t> sequence_splits_max_tokens(const DataConfig& config) {
  int64_t attempts = 0;
  std::map<std::string, int64_t> longest;
  for (const SequenceSplit& s : sequence_samples(config, attempts)) {
    int64_t& most = longest[s.name];
    for (const SequenceSample& sample : s.samples)
      most = std::max(most, static_cast<int64_t>(render(sample, config.sequence_layout).tokens.size()));
  }
  return longest;
}

CachedTokens sequence_task_tokens(const DataConfig& config, const std::string& saved) {
  CachedTokens out;
  const std::vector<SequenceSplit> splits = sequence_samples(config, out.generated_attempts);
  const std::unique_ptr<Tokenizer> tokenizer = saved.empty() ? symbol_tokenizer(config, splits) : load_tokenizer(saved);
  SymbolIds id_of(*tokenizer);
  const char* coupled =
      config.generated.positions == TokenPositions::coupled ? sequence_task_of(config).coupled_operator : nullptr;
  const RandomKey offset_key{config.data_seed, stream_id(config.task + "/train/position_offset"), 0};
  for (const SequenceSplit& s : splits)
    out.splits.push_back(
        tokenize(s, config.sequence_layout, coupled, id_of, offset_key, config.generated.position_offset));
  out.tokenizer = tokenizer->save();
  return out;
}

void check_sequence_windows(const DataConfig& config, const std::vector<TokenizedSplit>& splits) {
  for (const TokenizedSplit& s : splits) {
    const bool train = s.name == "train";
    const int64_t window = train ? config.max_len : eval_max_len(config);
    for (int64_t d = 0; d < s.num_docs(); ++d) {
      if (s.doc_length(d) <= window) continue;
      const std::string key = train || config.eval_max_len == 0 ? "data.max_len" : "data.eval_max_len";
      throw DataError(key + ": task '" + config.task + "' split '" + s.name + "' has a document of " +
                      std::to_string(s.doc_length(d)) +
                      " tokens (the input, then the layout's tokens for its "
                      "output), longer than its windows of " +
                      std::to_string(window) + " tokens; raise " + key + " to cover the longest input plus its output" +
                      (train ? "" : " (data.eval_max_len 0 means data.max_len)"));
    }
  }
}

}  // namespace rotor
