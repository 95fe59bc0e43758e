#pragma once
// One optimizer update, top to bottom: for every micro-batch the forward pass,
// the loss (the objective's, trainers/training/objective.h) and the backward pass; then the gradient sums, clipping and
// the optimizer's step.
//
// Data parallelism (trainers/distributed/) enters at three points: each batch
// is cut into gradient groups and this rank runs the forward and backward of
// its own groups (gradient_groups.h); the reducer's hooks sum the groups'
// gradients over groups and ranks in one fixed order (gradient_reducer.h); the
// loss and accuracy tallies are combined over the ranks (step_tally.h). In a
// plain single-process run (one group) this is exactly one forward and
// backward per micro-batch.
#include <cstdint>
#include <string>
#include <vector>

#include "datasets/batch.h"
#include "engine/error.h"
#include "engine/optim/optimizer.h"
#include "trainers/config/config.h"
#include "trainers/distributed/communicator.h"
#include "trainers/distributed/gradient_groups.h"
#include "trainers/distributed/gradient_reducer.h"
#include "trainers/distributed/reducer_options.h"
#include "trainers/distributed/step_tally.h"
#include "trainers/training/objective.h"

namespace rotor {

// Training cannot go on (a non-finite loss or gradient); the last good
// checkpoint is kept.
struct TrainingError : Error {
  using Error::Error;
};

struct StepResult {
  StepTotals totals;             // every rank's loss and accuracy tallies
  double grad_norm = 0.0;        // before clipping
  int64_t unscored_batches = 0;  // micro-batches with no loss term (masks that selected nothing): no gradient
};

class TrainStep {
 public:
  // checkpoints_dir: named in the errors, where the last good checkpoint is.
  TrainStep(Objective& objective, Optimizer& optimizer, Communicator& comm, const Config& config,
            const ReducerOptions& reducer_options, std::string checkpoints_dir);

  // Update number `step` (counting from 1) at learning rate `lr`. Micro-batch
  // i's dropout streams start at draw first_draw + i (group g of G draws
  // (first_draw + i) * G + g, so G = 1 keeps the plain numbering). Throws
  // TrainingError naming the step, before the update, when the loss or the
  // gradient norm is not finite.
  StepResult run(const std::vector<Batch>& micro_batches, uint64_t first_draw, int64_t step, double lr);

  // Bytes sent, exposed wait and early bucket starts per step, over the last `steps` steps.
  std::string communication_report(int64_t steps) const;

 private:
  StepTotals forward_backward(const std::vector<Batch>& micro_batches, uint64_t first_draw, int64_t& unscored);
  void require_finite(const std::string& what, double value, int64_t step, const std::string& advice) const;

  Objective& objective_;
  Optimizer& optimizer_;
  Communicator& comm_;
  GradientGroups groups_;
  GradientReducer reducer_;
  uint64_t seed_;
  double clip_norm_;
  std::string checkpoints_dir_;
};

}  // namespace rotor
