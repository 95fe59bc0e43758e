#pragma once
// Sharded evaluation: batch k of an evaluation pass is scored by rank
// k mod N, and the scored batches are gathered back in batch order, so the
// per-document sums that follow are the single process's, bit for bit.
#include <cstdint>
#include <vector>

#include "trainers/distributed/communicator.h"

namespace rotor {

struct ScoredBatch {
  int64_t index = 0;  // position in the evaluation pass
  std::vector<int64_t> doc_ids;
  std::vector<int32_t> labels;
  std::vector<double> logits;  // [batch x classes]
};

inline bool scores_batch(const Communicator& comm, int64_t index) { return index % comm.size() == comm.rank(); }

// Every rank's batches, in pass order (a collective: all ranks call it).
std::vector<ScoredBatch> gather_in_order(Communicator& comm, std::vector<ScoredBatch> mine);

}  // namespace rotor
