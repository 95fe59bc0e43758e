#pragma once
// What a training run will need, estimated before anything large is allocated,
// so a config too big for the machine is refused with the numbers instead of a
// std::bad_alloc somewhere in the first step.
#include <cstdint>

#include "trainers/config/config.h"

namespace rotor {

struct MemoryEstimate {
  double parameter_bytes = 0;   // values, gradients and optimizer moments
  double activation_bytes = 0;  // what one batch's forward keeps for the backward
  int64_t batch_tokens = 0;     // padded positions per batch
  double total() const { return parameter_bytes + activation_bytes; }
};

// `parameter_count`: the model's declared parameters (before allocation).
// Activations count the float buffers each layer keeps per position (fused
// attention: O(N); composed attention adds its B x H x N x N scores). Within
// about 20% of the measured peak RSS of the benchmark configs.
MemoryEstimate estimate_training_memory(const Config& config, int64_t parameter_count);

// Throws ConfigError naming the keys to lower when the estimate exceeds the
// machine's physical memory.
void check_fits_in_memory(const MemoryEstimate& estimate);

}  // namespace rotor
