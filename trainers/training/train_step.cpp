#include "trainers/training/train_step.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "engine/argmax.h"
#include "engine/ops.h"
#include "engine/optim/clip.h"

namespace rotor {
namespace {

struct Counts {
  int64_t correct = 0, tokens = 0;
};

// Correct predictions (the first largest logit) and real tokens of a batch.
Counts count_correct(const Var& logits, const Batch& batch) {
  const std::vector<double> l = logits.value().to_doubles();
  const int64_t C = logits.size(1);
  Counts n;
  for (int64_t b = 0; b < batch.batch_size; ++b) {
    n.correct += argmax(l.data() + b * C, static_cast<size_t>(C)) == batch.labels[b];
    n.tokens += batch.lengths[b];
  }
  return n;
}

}  // namespace

TrainStep::TrainStep(EncoderClassifier& model, Optimizer& optimizer, Communicator& comm, const Config& config,
                     const ReducerOptions& reducer_options, std::string checkpoints_dir)
    : model_(model),
      optimizer_(optimizer),
      comm_(comm),
      groups_(config.train.gradient_groups, comm.rank(), comm.size()),
      reducer_(model.parameters(), comm, groups_.local(), reducer_options.bucket_bytes, reducer_options.overlap),
      seed_(config.run.seed),
      label_smoothing_(config.train.label_smoothing),
      clip_norm_(config.train.clip_norm),
      checkpoints_dir_(std::move(checkpoints_dir)) {}

StepResult TrainStep::run(const std::vector<Batch>& micro_batches, uint64_t first_draw, int64_t step, double lr) {
  StepResult result;
  result.totals = forward_backward(micro_batches, first_draw);
  for (const double loss_sum : result.totals.loss_sums)
    require_finite("the training loss", loss_sum, step, ". Try a lower train.lr or train.clip_norm.");
  ParameterStore& params = model_.parameters();
  result.grad_norm = clip_grad_norm(params, clip_norm_ > 0 ? clip_norm_ : std::numeric_limits<double>::max());
  require_finite("the gradient norm", result.grad_norm, step, "");
  optimizer_.step(lr);
  model_.constrain_parameters();
  return result;
}

StepTotals TrainStep::forward_backward(const std::vector<Batch>& micro_batches, uint64_t first_draw) {
  const int64_t micro = static_cast<int64_t>(micro_batches.size());
  StepTally tally(micro, groups_);
  for (int64_t i = 0; i < micro; ++i) {
    const Batch& batch = micro_batches[i];
    for (int64_t j = 0; j < groups_.local(); ++j) {  // this rank's gradient groups
      const int64_t g = groups_.first() + j;
      const bool last = i + 1 == micro && j + 1 == groups_.local();
      reducer_.begin_group(j, i == 0);
      const Batch part = groups_.slice(batch, g);
      if (part.batch_size > 0) {
        const uint64_t draw = (first_draw + i) * static_cast<uint64_t>(groups_.groups()) + static_cast<uint64_t>(g);
        ForwardContext ctx{true, seed_, draw, 0};
        Var logits = model_.logits({part.tokens, part.lengths, part.batch_size, part.seq_len}, ctx);
        Var loss = model_.loss(logits, part.labels, label_smoothing_);
        // The group's share of the batch mean, averaged over the micro-batches.
        const double share = static_cast<double>(part.batch_size) / static_cast<double>(batch.batch_size);
        backward(mul_scalar(loss, share / static_cast<double>(micro)), reducer_.on_leaf_final(last));
        const Counts n = count_correct(logits, part);
        tally.add(i, g, loss.value().item(), part.batch_size, n.correct, n.tokens);
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
