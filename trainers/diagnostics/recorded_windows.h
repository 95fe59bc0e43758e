#pragma once
// The forwards the split-wide attention diagnostics (analyze offsets,
// analyze frequencies) measure over: the first window (max_len tokens) of
// each document with 2 tokens or more, up to max_windows of them, run in
// batches through the model with an AttentionRecorder watching.
#include <cstdint>
#include <functional>

#include "datasets/tokenized_split.h"
#include "models/model.h"
#include "trainers/diagnostics/attention_probabilities.h"

namespace rotor {

// One batch's forward as a visitor sees it: the recorded layers and the batch's tokens, row b's token t at
// tokens[b * seq_len + t] (padding after each window's length).
struct RecordedBatch {
  const AttentionRecorder& recorder;
  const std::vector<int32_t>& tokens;
  int64_t seq_len = 0;
  int64_t windows = 0;
};

// visit(batch) after each batch's forward. Returns the windows seen; throws ConfigError when no document of
// the split has 2 tokens.
using RecordedBatchVisitor = std::function<void(const RecordedBatch& batch)>;
int64_t for_each_recorded_batch(const Model& model, const TokenizedSplit& split, int64_t max_len, int64_t max_windows,
                                const RecordedBatchVisitor& visit);

}  // namespace rotor
