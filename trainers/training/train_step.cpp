#include "trainers/training/train_step.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "engine/ops.h"
#include "engine/optim/clip.h"

namespace rotor {
TrainStep::TrainStep(Objective& objective, Optimizer& optimizer, Communicator& comm, const Config& config,
                     const ReducerOptions& reducer_options, std::string checkpoints_dir)
    : objective_(objective),
      optimizer_(optimizer),
      comm_(comm),
      groups_(config.train.gradient_groups, comm.rank(), comm.size()),
      reducer_(objective.model().parameters(), comm, groups_.local(), reducer_options.bucket_bytes,
               reducer_options.overlap),
      seed_(config.run.seed),
      clip_norm_(config.train.clip_norm),
      checkpoints_dir_(std::move(checkpoints_dir)) {}

StepResult TrainStep::run(const std::vector<Batch>& micro_batches, uint64_t first_draw, int64_t step, double lr) {
  StepResult result;
  result.totals = forward_backward(micro_batches, first_draw, result.unscored_batches);
  for (const double loss_sum : result.totals.loss_sums)
    require_finite("the training loss", loss_sum, step, ". Try a lower train.lr or train.clip_norm.");
  ParameterStore& params = objective_.model().parameters();
  result.grad_norm = clip_grad_norm(params, clip_norm_ > 0 ? clip_norm_ : std::numeric_limits<double>::max());
  require_finite("the gradient norm", result.grad_norm, step, "");
  optimizer_.step(lr);
  objective_.model().constrain_parameters();
  return result;
}

StepTotals TrainStep::forward_backward(const std::vector<Batch>& micro_batches, uint64_t first_draw,
                                       int64_t& unscored) {
  const int64_t micro = static_cast<int64_t>(micro_batches.size());
  StepTally tally(micro, groups_);
  for (int64_t i = 0; i < micro; ++i) {
    const Batch& batch = micro_batches[i];
    const int64_t batch_terms = objective_.loss_terms(batch);  // once: every group's share divides by it
    unscored += batch_terms == 0;
    for (int64_t j = 0; j < groups_.local(); ++j) {  // this rank's gradient groups
      const int64_t g = groups_.first() + j;
      const bool last = i + 1 == micro && j + 1 == groups_.local();
      reducer_.begin_group(j, i == 0);
      const Batch part = groups_.slice(batch, g);
      if (part.batch_size > 0) {
        const uint64_t draw = (first_draw + i) * static_cast<uint64_t>(groups_.groups()) + static_cast<uint64_t>(g);
        ForwardContext ctx{true, seed_, draw, 0};
        const BatchLoss out = objective_.forward(part, ctx);
        // The group's share of the batch mean, averaged over the micro-batches.
        const double share = batch_terms > 0 ? static_cast<double>(out.terms) / static_cast<double>(batch_terms) : 0.0;
        backward(mul_scalar(out.loss, share / static_cast<double>(micro)), reducer_.on_leaf_final(last));
        tally.add(i, g, out.loss.value().item(), out.terms, out.correct, out.tokens);
      }
      reducer_.end_group(j, last);
    }
  }
  reducer_.finish();  // the gradient sums over groups and ranks
  return tally.combine(comm_);
}

void TrainStep::require_finite(const std::string& what, double value, int64_t step, const std::string& advice) const {
  if (std::isfinite(value)) return;
  throw TrainingError("step " + std::to_string(step) + ": " + what + " is " + std::to_string(value) +
                      "; stopping (the last good checkpoint is kept in " + checkpoints_dir_ + ")" + advice);
}

std::string TrainStep::communication_report(int64_t steps) const {
  const double n = static_cast<double>(std::max<int64_t>(1, steps));
  return fmt::format(
      "communication: {} gradient bytes sent per step by each rank, {:.1f} ms per step waiting for the gradient "
      "sums after the backward pass; {:.1f} of {} buckets started during it",
      static_cast<long long>(static_cast<double>(comm_.bytes_sent()) / n), 1e3 * reducer_.wait_seconds() / n,
      static_cast<double>(reducer_.early_starts()) / n, reducer_.buckets());
}

}  // namespace rotor
