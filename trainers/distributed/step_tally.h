#pragma once
// A training step's loss and accuracy counts, kept per (micro-batch, group)
// and combined over the ranks as (sum, count) pairs. Loss sums are added in
// (micro-batch, group) order, so the logged loss has the same bits on any
// number of ranks; counts are integers and exact anyway.
#include <cstdint>
#include <vector>

#include "trainers/distributed/communicator.h"
#include "trainers/distributed/gradient_groups.h"

namespace rotor {

struct StepTotals {
  std::vector<double> loss_sums;  // per (micro-batch, group): mean loss x examples, in order
  int64_t examples = 0, correct = 0, tokens = 0;
};

class StepTally {
 public:
  StepTally(int64_t micro_batches, const GradientGroups& groups);
  // Group g of micro-batch i (this rank's): its mean loss over `examples`.
  void add(int64_t micro, int64_t group, double mean_loss, int64_t examples, int64_t correct, int64_t tokens);
  // Every rank's tallies, combined (a collective: all ranks call it).
  StepTotals combine(Communicator& comm) const;

 private:
  int64_t micro_batches_;
  GradientGroups groups_;
  std::vector<double> local_;  // per (micro, local group): loss sum, examples, correct, tokens
};

}  // namespace rotor
