#pragma once
// Serves the batches of one split in order. The order of an epoch is a pure
// function of (seed, epoch), so the sampler's whole state is {epoch, cursor}:
// restoring it makes a resumed run see exactly the batches an uninterrupted
// run would have seen.
#include <cstdint>
#include <vector>

#include "datasets/batch.h"
#include "datasets/batcher.h"
#include "datasets/tokenized_split.h"
#include "datasets/windowing.h"

namespace rotor {

struct SamplerState {
  int64_t epoch = 0;
  int64_t cursor = 0;  // batches of `epoch` already served
};

enum class SamplerMode {
  train,  // random windows and bucketed, shuffled batches, re-drawn each epoch
  eval,   // eval windows in a fixed order; every epoch is the same
};

class Sampler {
 public:
  // Keeps a reference to `split`, which must outlive the sampler.
  Sampler(const TokenizedSplit& split, const WindowConfig& windows, const BatchConfig& batching, uint64_t seed,
          SamplerMode mode);

  // Fills `out` with the next batch of the current epoch and returns true; at
  // the end of the epoch returns false and moves to the start of the next one.
  bool next(Batch& out);

  // Batches in the current epoch.
  int64_t batches_in_epoch();

  SamplerState state() const { return state_; }
  // Throws DataError if the cursor lies beyond the end of that epoch.
  void restore(const SamplerState& state);

 private:
  void plan();

  const TokenizedSplit* split_;  // a pointer, so that samplers can be assigned
  WindowConfig window_config_;
  BatchConfig batch_config_;
  uint64_t seed_;
  SamplerMode mode_;
  SamplerState state_;
  int64_t planned_epoch_ = -1;  // epoch that windows_ and batches_ belong to
  std::vector<Window> windows_;
  std::vector<std::vector<int64_t>> batches_;
};

}  // namespace rotor
