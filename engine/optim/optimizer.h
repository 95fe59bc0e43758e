#pragma once
// The interface every optimizer implements, and the state it hands to
// checkpoints. An optimizer updates the flat value buffer of a ParameterStore
// from its flat gradient buffer; the learning rate is an argument of step()
// because it comes from the schedule, which is a pure function of the step.
#include <cmath>
#include <map>
#include <string>

#include "engine/error.h"
#include "engine/tensor.h"

namespace rotor {

// Everything an optimizer needs to continue bit-identically after a restore.
struct OptimizerState {
  // Per-parameter buffers keyed "<slot>/<parameter name>", e.g. "m/fc1.weight".
  std::map<std::string, Tensor> tensors;
  // Counters, e.g. "step" (stored as double: exact up to 2^53).
  std::map<std::string, double> scalars;
};

class Optimizer {
 public:
  virtual ~Optimizer() = default;

  // One update of every parameter from the store's gradients at learning rate `lr`.
  virtual void step(double lr) = 0;

  // A deep copy of the state (later steps do not change it).
  virtual OptimizerState export_state() const = 0;
  // Replaces the state. Throws ValueError naming the first missing, unexpected
  // or mismatched (shape, dtype, value) entry, and then changes nothing.
  virtual void import_state(const OptimizerState& state) = 0;
};

// Throws ValueError unless `lr` is finite and non-negative.
inline void check_learning_rate(double lr, const std::string& owner) {
  if (!std::isfinite(lr) || lr < 0)
    throw ValueError(owner + ".step: lr must be finite and >= 0, got " + std::to_string(lr));
}

}  // namespace rotor
