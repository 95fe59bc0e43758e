#pragma once
// Stochastic gradient descent with optional (Nesterov) momentum and L2 weight
// decay, following torch.optim.SGD with dampening 0:
//   d = g + wd * p                    (wd only for parameters flagged weight_decay)
//   buf = momentum * buf + d          (buf starts at 0, so the first buf is d)
//   d = nesterov ? d + momentum * buf : buf
//   p -= lr * d
#include "engine/optim/optimizer.h"
#include "engine/optim/slot_buffers.h"
#include "engine/parameters.h"

namespace rotor {

struct SgdOptions {
  double momentum = 0.0;
  bool nesterov = false;  // needs momentum > 0
  double weight_decay = 0.0;
};

class Sgd final : public Optimizer {
 public:
  // `params` must be allocated and outlive the optimizer. Throws ValueError
  // naming an invalid option.
  explicit Sgd(ParameterStore& params, SgdOptions options = {});

  void step(double lr) override;
  // Tensors "momentum/<name>" when momentum > 0; no scalars.
  OptimizerState export_state() const override;
  void import_state(const OptimizerState& state) override;

  const SgdOptions& options() const { return options_; }

 private:
  ParameterStore& params_;
  SgdOptions options_;
  SlotBuffers slots_;
};

}  // namespace rotor
