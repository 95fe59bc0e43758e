#pragma once
// Everything about a run's progress that a checkpoint must carry besides the
// weights and optimizer moments. Randomness needs no state of its own: dropout
// masks are keyed by (run.seed, step) and the data order by (data.seed, epoch).
#include <cstdint>
#include <limits>

#include "datasets/dataset.h"

namespace rotor {

struct TrainingState {
  int64_t step = 0;                                               // optimizer updates taken
  SamplerState sampler;                                           // epoch and batches of it already served
  double best_metric = std::numeric_limits<double>::quiet_NaN();  // NaN: no evaluation yet
  int64_t best_step = -1;
  int64_t stale_evals = 0;  // evaluations since the best one (early stopping)
  // Running sums since the last training log event.
  double loss_sum = 0.0;
  int64_t seen = 0, correct = 0, tokens = 0;
  double elapsed_s = 0.0;  // training wall time before this session
};

}  // namespace rotor
