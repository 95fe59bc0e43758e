#include "datasets/data_config.h"

#include <fmt/format.h>

#include <filesystem>

#include "datasets/data_error.h"
#include "datasets/document.h"
#include "datasets/tasks/builtin_tasks.h"
#include "datasets/tasks/generated_tasks.h"
#include "datasets/tasks/index_hints.h"
#include "datasets/tasks/sequence_task_data.h"

namespace rotor {
namespace {

void require(bool ok, const std::string& key, const std::string& what) {
  if (!ok) throw DataError("data." + key + ": " + what);
}

// A separation or sequence task's splits, sized before any sample is drawn: at most 2^30 tokens in all (4 GiB of
// token ids; a sequence task's outputs come on top of its inputs counted here).
void require_generated_tokens_fit(const DataConfig& c) {
  double tokens = 0;
  for (const GeneratedSplit& s : is_sequence_task(c.task) ? sequence_splits(c) : separation_splits(c))
    tokens += static_cast<double>(s.size) * s.max_len;
  require(tokens <= kMaxGeneratedTokens, "train_size",
          fmt::format("the generated splits would hold up to {:.3g} tokens (data.train_size and data.eval_size "
                      "samples of up to data.generated.max_len or data.generated.test_lengths tokens), more than "
                      "{:.3g}; lower them",
                      tokens, kMaxGeneratedTokens));
}

}  // namespace

void DataConfig::validate() const {
  require(max_len >= 1, "max_len", "expected at least 1, got " + std::to_string(max_len));
  require(eval_max_len >= 0, "eval_max_len", "expected 0 (= max_len) or a positive length");
  require(batch_tokens >= 0, "batch_tokens", "expected 0 (off) or a positive budget");
  require(batch_tokens > 0 || batch_size >= 1, "batch_size", "expected at least 1");
  require(vocab_size >= 0, "vocab_size", "expected 0 (vocab: no limit) or a positive size");
  require(min_freq >= 1, "min_freq", "expected at least 1");
  require(val_fraction + test_fraction < 1, "val_fraction", "val_fraction + test_fraction must be in [0, 1)");
  require(labelled || include_labels.empty(), "include_labels",
          "applies to labelled data only (this run reads unlabelled text)");
  for (const int64_t length : generated.test_lengths)
    require(length >= 1 && static_cast<double>(length) <= kMaxGeneratedSampleLen, "generated.test_lengths",
            fmt::format("{} is not a sample length in [1, {}] tokens", length, kMaxGeneratedSampleLen));
  if (is_separation_task(task) || is_sequence_task(task)) require_generated_tokens_fit(*this);
  const TokenizerKind kind = resolved_tokenizer(*this);
  if (is_sequence_task(task)) {
    require(!labelled, "task",
            "'" + task + "' is a sequence task, with a target per token and no document labels: train it with an " +
                "objective that reads per-token targets, not a classifier");
    require(kind == TokenizerKind::vocab && !lowercase && !split_punctuation, "tokenizer",
            "sequence task '" + task + "' reads one token a symbol: tokenizer vocab (or empty), without lowercase " +
                "and split_punctuation");
  }
  require(positions_field.empty() || task.empty(), "positions_field",
          "reads per-token positions from a JSONL file's field; task '" + task + "' brings its own data (leave " +
              "data.task empty and name the files)");
  require(generated.position_offset >= 0 && generated.position_offset <= kMaxTokenPosition, "generated.position_offset",
          "expected an offset in [0, " + std::to_string(kMaxTokenPosition) + "]");
  require(generated.position_offset == 0 || generated.positions == TokenPositions::coupled, "generated.position_offset",
          "moves coupled positions: set data.generated.positions: coupled");
  if (generated.index_hints > 0) {
    const SequenceTask* t = find_sequence_task(task);
    require(t != nullptr && takes_index_hints(*t), "generated.index_hints",
            "index hints mark the digits of an addition's operands and answer in a decoder task; task '" + task +
                "' has none (index hints: " + task_names(takes_index_hints) + ")");
    require(generated.positions == TokenPositions::index, "generated.index_hints",
            "hints and coupled positions both line digits up by significance, and coupled positions would count the "
            "hints as digits: set data.generated.positions: index");
  }
  if (generated.positions == TokenPositions::coupled) {
    const SequenceTask* t = find_sequence_task(task);
    require(t != nullptr && takes_coupled_positions(*t), "generated.positions",
            "coupled lines up the digits of an addition's operands and answer; task '" + task +
                "' has none (coupled: " + task_names(takes_coupled_positions) + "; every other task: index)");
  }
  if (kind != TokenizerKind::vocab && (lowercase || split_punctuation)) {
    require(false, lowercase ? "lowercase" : "split_punctuation",
            std::string("applies to the vocab tokenizer only (tokenizer is ") + option_name(kind) + ")");
  }
}

TokenizerKind resolved_tokenizer(const DataConfig& config) {
  if (config.tokenizer != TokenizerKind::automatic) return config.tokenizer;
  return is_generated_task(config.task) ? TokenizerKind::vocab : TokenizerKind::byte;
}

DataFormat resolved_format(const std::string& path, const DataConfig& config) {
  if (config.format != DataFormat::automatic) return config.format;
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::is_directory(path, ec)) return config.labelled ? DataFormat::folder : DataFormat::text;
  const std::string ext = fs::path(path).extension().string();
  if (ext == ".jsonl" || ext == ".json") return DataFormat::jsonl;
  if (ext == ".csv") return DataFormat::csv;
  if (ext == ".tsv") return DataFormat::tsv;
  if (ext == ".txt") return DataFormat::text;
  throw DataError("format: cannot tell the format of '" + path +
                  "' from its extension (set format to jsonl, csv, tsv, folder or text)");
}

}  // namespace rotor
