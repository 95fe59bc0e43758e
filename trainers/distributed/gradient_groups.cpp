#include "trainers/distributed/gradient_groups.h"

#include "engine/error.h"
#include "trainers/config/config.h"
#include "trainers/distributed/ordered_sum.h"

namespace rotor {

GradientGroups::GradientGroups(int64_t groups, int rank, int ranks) : groups_(groups), rank_(rank), ranks_(ranks) {
  if (groups_ % ranks_ != 0 || !tree_has_blocks(groups_, ranks_))
    throw ConfigError("train.gradient_groups is " + std::to_string(groups_) + ", which " + std::to_string(ranks_) +
                      " ranks cannot share exactly: use a number of ranks that divides it (a power of two when it is "
                      "a power of two), or set train.gradient_groups to a multiple of the number of ranks");
}

Batch GradientGroups::slice(const Batch& batch, int64_t g) const {
  const int64_t lo = begin(g, batch.batch_size), hi = end(g, batch.batch_size);
  Batch part;
  part.batch_size = hi - lo;
  part.seq_len = batch.seq_len;
  part.tokens.assign(batch.tokens.begin() + lo * batch.seq_len, batch.tokens.begin() + hi * batch.seq_len);
  part.lengths.assign(batch.lengths.begin() + lo, batch.lengths.begin() + hi);
  part.labels.assign(batch.labels.begin() + lo, batch.labels.begin() + hi);
  part.doc_ids.assign(batch.doc_ids.begin() + lo, batch.doc_ids.begin() + hi);
  part.window_ids.assign(batch.window_ids.begin() + lo, batch.window_ids.begin() + hi);
  // A sequence task's per-token fields, present or absent alike in every group.
  for (auto field : {&Batch::targets, &Batch::positions})
    if (!(batch.*field).empty())
      (part.*field).assign((batch.*field).begin() + lo * batch.seq_len, (batch.*field).begin() + hi * batch.seq_len);
  part.epoch = batch.epoch;
  return part;
}

int64_t resolve_gradient_groups(int64_t configured, int64_t* checkpoint_groups, int ranks,
                                const std::optional<std::string>& checkpoint) {
  if (checkpoint_groups && *checkpoint_groups == 0) *checkpoint_groups = 1;
  const int64_t groups = configured > 0 ? configured : checkpoint_groups ? *checkpoint_groups : ranks;
  if (checkpoint && groups % ranks != 0)
    throw ConfigError("cannot resume " + *checkpoint + " on " + std::to_string(ranks) + " ranks: it was trained " +
                      "with train.gradient_groups = " + std::to_string(groups) + " (each batch split in " +
                      std::to_string(groups) + " groups summed in a fixed order), which only a number of ranks " +
                      "dividing " + std::to_string(groups) + " reproduces exactly; resume with mpirun -np " +
                      std::to_string(groups) + " (or a divisor of it)");
  return groups;
}

}  // namespace rotor
