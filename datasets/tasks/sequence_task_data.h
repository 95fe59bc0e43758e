#pragma once
// A sequence task (sequence_task.h) as a dataset: its splits, their samples,
// and the tokens with per-token targets in the layout config.sequence_layout.
//
// Splits: train (data.train_size, default 10000) with input lengths uniform
// in [data.generated.min_len, max_len], val and test (data.eval_size, default
// 1000 each) over the same lengths, then one "test_<L>" per entry L of
// data.generated.test_lengths (eval_size samples) whose inputs all have
// length exactly L: the papers score each test length on its own (unlike the
// separation tasks' (L/2, L]). A task that rounds a length (modular-arithmetic
// makes an even n odd by dropping one) does so in every split.
//
// Sample j of a split, attempt a = 0, 1, ... is draw d = j * kDrawsPerSample
// + a: its length is draw d of RandomKey{data_seed, stream_id("<task>/<split>/
// length"), 0}, its sample task.draw(RandomKey{data_seed, stream_id("<task>/
// <split>"), d}, length). Training samples are drawn independently and may
// repeat (as in the papers). A held-out sample whose input equals a training
// sample or an earlier held-out one is redrawn, length included; after
// kDrawsPerSample attempts the split is a DataError. So the short lengths whose
// strings all occur in train are in effect left out of val and test, and a
// test_<L> with fewer distinct strings than eval_size cannot be filled.
// With data.generated.index_hints (tasks/index_hints.h) the hints are added
// after that check, so splits are disjoint in their numbers, not their hints;
// training sample j's first hint is draw j of RandomKey{data_seed,
// stream_id("<task>/train/index_hints"), 0}.
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "datasets/data_config.h"
#include "datasets/tasks/generated_tasks.h"
#include "datasets/tasks/sequence_task.h"
#include "datasets/token_cache.h"
#include "datasets/tokenizer.h"

namespace rotor {

bool is_sequence_task(std::string_view task);

// The splits of config.task with config.train_size / eval_size applied.
// Throws DataError naming the data.generated key when a length is out of
// range or below the task's min_length.
std::vector<GeneratedSplit> sequence_splits(const DataConfig& config);

struct SequenceSplit {
  std::string name;
  std::vector<SequenceSample> samples;
};

// Every split's samples, in sequence_splits() order; adds the draws made to
// `attempts`.
std::vector<SequenceSplit> sequence_samples(const DataConfig& config, int64_t& attempts);

// Each split's longest document (tokens of the layout config.sequence_layout),
// by split name, from one generation of every split.
std::map<std::string, int64_t> sequence_splits_max_tokens(const DataConfig& config);

// The tokenized splits, with targets. The tokenizer is `saved` (an earlier
// run's Tokenizer::save()) or else a vocab tokenizer of the layout's symbols
// then every symbol of the samples in byte order (data.vocab_size and
// min_freq do not apply: every symbol is needed). Throws DataError when a
// symbol is not one token of the tokenizer.
CachedTokens sequence_task_tokens(const DataConfig& config, const std::string& saved);

// Throws DataError naming data.max_len (train) or data.eval_max_len (the
// held-out splits) when a document is longer than its windows: a cut
// document would lose the targets at its end.
void check_sequence_windows(const DataConfig& config, const std::vector<TokenizedSplit>& splits);

}  // namespace rotor
