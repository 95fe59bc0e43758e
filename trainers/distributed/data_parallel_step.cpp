#include "trainers/distributed/data_parallel_step.h"

#include <algorithm>
#include <cstdio>

#include <fmt/format.h>

#include "engine/argmax.h"
#include "engine/ops.h"

namespace rotor {

DataParallelStep::DataParallelStep(EncoderClassifier& model, Communicator& comm, int64_t gradient_groups,
                                   const ReducerOptions& options, uint64_t seed, double label_smoothing)
    : model_(model),
      comm_(comm),
      groups_(gradient_groups, comm.rank(), comm.size()),
      reducer_(model.parameters(), comm, groups_.local(), options.bucket_bytes, options.overlap),
      seed_(seed),
      label_smoothing_(label_smoothing) {}

void DataParallelStep::begin(int64_t micro_batches) {
  micro_batches_ = micro_batches;
  tally_.emplace(micro_batches, groups_);
}

void DataParallelStep::add(const Batch& batch, int64_t i, uint64_t first_draw) {
  for (int64_t j = 0; j < groups_.local(); ++j) {
    const int64_t g = groups_.first() + j;
    const bool last = i + 1 == micro_batches_ && j + 1 == groups_.local();
    reducer_.begin_group(j, i == 0);
    const Batch part = groups_.slice(batch, g);
    if (part.batch_size > 0) {
      ForwardContext ctx{true, seed_, first_draw * static_cast<uint64_t>(groups_.groups()) + static_cast<uint64_t>(g),
                         0};
      Var logits = model_.logits({part.tokens, part.lengths, part.batch_size, part.seq_len}, ctx);
      Var loss = model_.loss(logits, part.labels, label_smoothing_);
      // The group's share of the batch mean, averaged over the micro-batches.
      const double share = static_cast<double>(part.batch_size) / static_cast<double>(batch.batch_size);
      backward(mul_scalar(loss, share / static_cast<double>(micro_batches_)), reducer_.on_leaf_final(last));
      const std::vector<double> l = logits.value().to_doubles();
      const int64_t C = logits.size(1);
      int64_t correct = 0, tokens = 0;
      for (int64_t b = 0; b < part.batch_size; ++b) {
        correct += argmax(l.data() + b * C, static_cast<size_t>(C)) == part.labels[b];
        tokens += part.lengths[b];
      }
      tally_->add(i, g, loss.value().item(), part.batch_size, correct, tokens);
    }
    reducer_.end_group(j, last);
  }
}

StepTotals DataParallelStep::finish() {
  reducer_.finish();
  return tally_->combine(comm_);
}

std::string DataParallelStep::communication_report(int64_t steps) const {
  const double n = static_cast<double>(std::max<int64_t>(1, steps));
  return fmt::format(
      "communication: {} gradient bytes sent per step by each rank, {:.1f} ms per step waiting for the gradient "
      "sums after the backward pass; {:.1f} of {} buckets started during it",
      static_cast<long long>(static_cast<double>(comm_.bytes_sent()) / n), 1e3 * reducer_.wait_seconds() / n,
      static_cast<double>(reducer_.early_starts()) / n, reducer_.buckets());
}

}  // namespace rotor
