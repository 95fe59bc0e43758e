#include "trainers/distributed/step_tally.h"

namespace rotor {
namespace {
constexpr int64_t kFields = 4;  // loss sum, examples, correct, tokens
}

StepTally::StepTally(int64_t micro_batches, const GradientGroups& groups)
    : micro_batches_(micro_batches),
      groups_(groups),
      local_(static_cast<size_t>(micro_batches * groups.local() * kFields), 0.0) {}

void StepTally::add(int64_t micro, int64_t group, double mean_loss, int64_t examples, int64_t correct, int64_t tokens) {
  double* slot = &local_[static_cast<size_t>((micro * groups_.local() + group - groups_.first()) * kFields)];
  slot[0] = mean_loss * static_cast<double>(examples);
  slot[1] = static_cast<double>(examples);
  slot[2] = static_cast<double>(correct);
  slot[3] = static_cast<double>(tokens);
}

StepTotals StepTally::combine(Communicator& comm) const {
  const std::vector<std::vector<double>> all = comm.allgather(local_);
  StepTotals totals;
  const int64_t local = groups_.local();
  for (int64_t i = 0; i < micro_batches_; ++i)
    for (int64_t g = 0; g < groups_.groups(); ++g) {
      const double* slot = &all[static_cast<size_t>(g / local)][static_cast<size_t>((i * local + g % local) * kFields)];
      if (slot[1] == 0) continue;  // an empty group (a batch smaller than the number of groups)
      totals.loss_sums.push_back(slot[0]);
      totals.examples += static_cast<int64_t>(slot[1]);
      totals.correct += static_cast<int64_t>(slot[2]);
      totals.tokens += static_cast<int64_t>(slot[3]);
    }
  return totals;
}

}  // namespace rotor
