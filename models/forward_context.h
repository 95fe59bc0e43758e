#pragma once
// Per-forward state: train/eval mode and the dropout randomness. Each dropout
// call site gets the next site number, so a mask is a pure function of
// (seed, training step, site, element): resuming at step s reproduces it.
#include <cstdint>

#include "engine/ops.h"

namespace rotor {

struct ForwardContext {
  bool training = false;
  uint64_t seed = 0;
  uint64_t step = 0;
  uint64_t next_site = 0;

  Var dropout(const Var& x, double p) {
    const uint64_t site = next_site++;
    if (!training || p == 0.0) return x;
    return rotor::dropout(x, p, RandomKey{seed, stream_id("dropout") + site, step}, true);
  }
};

}  // namespace rotor
