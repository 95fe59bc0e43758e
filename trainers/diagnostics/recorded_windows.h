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

// visit(recorder, windows) after each batch's forward, with the number of windows in it. Returns the windows
// seen; throws ConfigError when no document of the split has 2 tokens.
using RecordedBatchVisitor = std::function<void(const AttentionRecorder& recorder, int64_t windows)>;
int64_t for_each_recorded_batch(const Model& model, const TokenizedSplit& split, int64_t max_len, int64_t max_windows,
                                const RecordedBatchVisitor& visit);

}  // namespace rotor
