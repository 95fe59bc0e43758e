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

  // The key of the next dropout site; every site takes a number, dropping or not.
  RandomKey next_dropout_key() { return RandomKey{seed, stream_id("dropout") + next_site++, step}; }
  // The dropout rate a site applies: p in training, 0 in evaluation.
  double dropout_rate(double p) const { return training ? p : 0.0; }

  Var dropout(const Var& x, double p) {
    const RandomKey key = next_dropout_key();
    if (dropout_rate(p) == 0.0) return x;
    return rotor::dropout(x, p, key, true);
  }
};

}  // namespace rotor
