#pragma once
// Groups windows into batches. Training batches are length-bucketed: the
// shuffled windows are cut into pools, each pool is sorted by length and cut
// into batches, and the batches are shuffled, so a batch holds windows of
// similar length (little padding) while the order stays random.
#include <cstdint>
#include <vector>

#include "datasets/batch.h"
#include "datasets/tokenized_split.h"
#include "datasets/windowing.h"
#include "engine/random.h"

namespace rotor {

struct BatchConfig {
  int64_t batch_size = 32;   // windows per batch (used when batch_tokens is 0)
  int64_t batch_tokens = 0;  // > 0: at most this many padded tokens (B * N) per batch
  // Windows sorted together by length (rounded up to whole batches); 0 or 1: no bucketing.
  int64_t bucket_pool = 1024;
};

// 0..n-1 in a Fisher-Yates order driven by `key` (element i swaps with
// key.below(i, i + 1)): a pure function of the key.
std::vector<int64_t> shuffled_indices(int64_t n, const RandomKey& key);

// Permutes the `length` tokens of one window in place (data.shuffle_tokens):
// a Fisher-Yates order that is a pure function of (seed, epoch, document,
// window), so training re-draws it each epoch, evaluation (epoch 0) always
// sees the same one, and a resumed run the same as an uninterrupted one.
// The window holds no CLS or padding (the model adds those), so they stay put.
void shuffle_window(int32_t* tokens, int64_t length, uint64_t seed, int64_t epoch, const Window& window);

// Batches for one training epoch, as lists of indices into `lengths` (the
// window lengths). A pure function of (lengths, config, seed, epoch).
std::vector<std::vector<int64_t>> plan_train_batches(const std::vector<int64_t>& lengths, const BatchConfig& config,
                                                     uint64_t seed, int64_t epoch);

// Evaluation batches: windows sorted by decreasing length, no randomness.
std::vector<std::vector<int64_t>> plan_eval_batches(const std::vector<int64_t>& lengths, const BatchConfig& config);

// Pads the chosen windows into a Batch, with their targets and positions when the split has them.
Batch make_batch(const TokenizedSplit& split, const std::vector<Window>& windows, const std::vector<int64_t>& members);

}  // namespace rotor
