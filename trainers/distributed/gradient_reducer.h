#pragma once
// Sums a step's gradients over this rank's groups and over the ranks, in the
// fixed order of ordered_sum.h, into the store's flat gradient buffer.
//
// The buffer is cut into buckets of whole parameters (about `bucket_bytes`).
// With overlap on, a bucket's sum starts (non-blocking) during the step's last
// backward pass as soon as every gradient in it is final, so communication
// runs while the remaining layers are differentiated. Buckets start in one
// fixed sequence on every rank (MPI requires collectives in the same order),
// last parameters first, since backward reaches them first.
//
// Per step: for each micro-batch i and local group j: begin_group(j, i == 0),
// backward with on_leaf_final(last), end_group(j, last); then finish().
#include <functional>
#include <memory>
#include <unordered_map>
#include <vector>

#include "engine/parameters.h"
#include "engine/var.h"
#include "trainers/distributed/communicator.h"

namespace rotor {

class GradientReducer {
 public:
  GradientReducer(ParameterStore& params, Communicator& comm, int64_t local_groups, int64_t bucket_bytes, bool overlap);

  // Puts group j's gradient so far in the store's buffer (zero on the first micro-batch).
  void begin_group(int64_t j, bool first_micro_batch);
  // The backward pass's callback: empty unless `last` (the step's last backward) and overlapping.
  std::function<void(const Node&)> on_leaf_final(bool last);
  // Keeps group j's gradient unless this was the step's last backward.
  void end_group(int64_t j, bool last);
  // Starts the buckets still waiting and waits for every sum.
  void finish();

  int64_t buckets() const { return static_cast<int64_t>(buckets_.size()); }
  // Wall time spent in finish() so far: communication the backward pass did not hide.
  double wait_seconds() const { return wait_seconds_; }
  // Bucket sums started so far while a backward pass was still running.
  int64_t early_starts() const { return early_starts_; }

 private:
  struct Bucket {
    int64_t begin = 0, end = 0;  // elements of the flat buffers
    int64_t waiting = 0;         // parameters whose gradient is not final yet
  };
  void reset_waiting();
  void leaf_final(const Node& leaf);
  void start_ready_buckets(bool during_backward);
  void start(Bucket& bucket);

  ParameterStore& params_;
  Communicator& comm_;
  int64_t local_groups_;
  bool overlap_;
  std::vector<Tensor> group_grads_;  // local_groups > 1: each group's gradient across micro-batches
  std::vector<Bucket> buckets_;      // in start order: last parameters first
  std::unordered_map<const Node*, size_t> bucket_of_leaf_;
  size_t next_start_ = 0;
  std::vector<std::unique_ptr<PendingSum>> pending_;
  double wait_seconds_ = 0.0;
  int64_t early_starts_ = 0;
};

}  // namespace rotor
