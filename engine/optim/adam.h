#pragma once
// Adam and AdamW with bias correction, matching torch.optim.Adam / AdamW
// (amsgrad off). With t the step count after incrementing, per element:
//   Adam (L2):        g = g + wd * p
//   AdamW (decoupled): p = p * (1 - lr * wd)
//   m = beta1 * m + (1 - beta1) * g
//   v = beta2 * v + (1 - beta2) * g * g
//   p = p - (lr / (1 - beta1^t)) * m / (sqrt(v) / sqrt(1 - beta2^t) + eps)
// eps is added after the bias-corrected square root, as PyTorch does. Weight
// decay (either kind) applies only to parameters flagged weight_decay; the
// others behave as a PyTorch parameter group with weight_decay 0.
#include <cstdint>

#include "engine/optim/optimizer.h"
#include "engine/optim/slot_buffers.h"
#include "engine/parameters.h"

namespace rotor {

// Defaults are torch.optim.Adam's; torch.optim.AdamW defaults weight_decay to 0.01.
struct AdamOptions {
  double beta1 = 0.9;
  double beta2 = 0.999;
  double eps = 1e-8;
  double weight_decay = 0.0;
};

class Adam : public Optimizer {
 public:
  enum class Decay { l2, decoupled };

  // `params` must be allocated and outlive the optimizer. Throws ValueError
  // naming an invalid option.
  explicit Adam(ParameterStore& params, AdamOptions options = {}, Decay decay = Decay::l2);

  void step(double lr) override;
  // Tensors "m/<name>" and "v/<name>", scalar "step".
  OptimizerState export_state() const override;
  void import_state(const OptimizerState& state) override;

  int64_t steps_taken() const { return step_; }
  const AdamOptions& options() const { return options_; }
  Decay decay() const { return decay_; }

 private:
  ParameterStore& params_;
  AdamOptions options_;
  Decay decay_;
  SlotBuffers slots_;  // m, v
  int64_t step_ = 0;
};

// Adam with decoupled weight decay (Loshchilov & Hutter, 2019).
class AdamW final : public Adam {
 public:
  explicit AdamW(ParameterStore& params, AdamOptions options = {}) : Adam(params, options, Decay::decoupled) {}
};

}  // namespace rotor
