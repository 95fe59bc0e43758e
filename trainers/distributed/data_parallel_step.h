#pragma once
// One optimizer step's gradient on this rank: the forward and backward passes
// of its gradient groups of every micro-batch, then the fixed-order sum over
// groups and ranks into the store's gradient buffer, and the step's loss and
// accuracy tallies combined over the ranks. In a plain single-process run
// (one group) this is exactly one forward and backward per micro-batch.
#include <cstdint>
#include <optional>
#include <string>

#include "datasets/batch.h"
#include "models/encoder_classifier.h"
#include "trainers/distributed/communicator.h"
#include "trainers/distributed/gradient_groups.h"
#include "trainers/distributed/gradient_reducer.h"
#include "trainers/distributed/reducer_options.h"
#include "trainers/distributed/step_tally.h"

namespace rotor {

class DataParallelStep {
 public:
  DataParallelStep(EncoderClassifier& model, Communicator& comm, int64_t gradient_groups, const ReducerOptions& options,
                   uint64_t seed, double label_smoothing);

  // Starts a step of `micro_batches` micro-batches.
  void begin(int64_t micro_batches);
  // Micro-batch i of the step, whose dropout streams start at draw `first_draw`
  // (group g draws first_draw * G + g, so G = 1 keeps the plain numbering).
  void add(const Batch& batch, int64_t i, uint64_t first_draw);
  // Waits for the gradient sums; returns the tallies of every rank (a collective).
  StepTotals finish();

  const GradientGroups& groups() const { return groups_; }
  const GradientReducer& reducer() const { return reducer_; }
  // Bytes sent, exposed wait and early bucket starts per step, over the last `steps` steps.
  std::string communication_report(int64_t steps) const;

 private:
  EncoderClassifier& model_;
  Communicator& comm_;
  GradientGroups groups_;
  GradientReducer reducer_;
  uint64_t seed_;
  double label_smoothing_;
  int64_t micro_batches_ = 0;
  std::optional<StepTally> tally_;
};

}  // namespace rotor
