#pragma once
// What a training run will need, estimated from its config before the model
// is built or anything large is allocated, so a config too big for the
// machine is refused in seconds with the numbers instead of a std::bad_alloc
// after minutes of allocating (a billion layers took a minute to declare).
#include <cstdint>

#include "trainers/config/config.h"

namespace rotor {

struct MemoryEstimate {
  double parameter_bytes = 0;       // values, gradients and optimizer moments
  double activation_bytes = 0;      // what one batch's forward keeps for the backward
  double group_gradient_bytes = 0;  // a gradient copy per gradient group this rank computes, when more than one
  int64_t batch_tokens = 0;         // padded positions per batch
  int64_t local_groups = 1;         // gradient groups this rank computes
  double total() const { return parameter_bytes + activation_bytes + group_gradient_bytes; }
};

// The model's weight matrices and embeddings, from its config alone (a double:
// absurd configs overflow integers). Biases, norms and position tables are
// left out: an underestimate by a few percent at most for the benchmark configs.
double weight_count(const ModelConfig& model);

// `parameter_count`: the model's parameters (weight_count() before it is
// built). Activations count the float buffers each layer keeps per position
// (fused attention: O(N); composed attention adds its B x H x N x N scores).
// Within about 20% of the measured peak RSS of the benchmark configs. `ranks`
// share train.gradient_groups (resolved: > 0).
MemoryEstimate estimate_training_memory(const Config& config, double parameter_count, int ranks = 1);

// Throws ConfigError naming the keys to lower when the estimate exceeds the
// machine's physical memory.
void check_fits_in_memory(const MemoryEstimate& estimate);

}  // namespace rotor
