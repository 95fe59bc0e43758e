#include "trainers/training/optimizer_factory.h"

#include "engine/optim/adam.h"
#include "engine/optim/sgd.h"

namespace rotor {

std::unique_ptr<Optimizer> make_optimizer(const TrainConfig& c, ParameterStore& params) {
  if (c.optimizer == OptimizerKind::sgd) {
    SgdOptions o;
    o.momentum = c.momentum;
    o.weight_decay = c.weight_decay;
    return std::make_unique<Sgd>(params, o);
  }
  AdamOptions o;
  o.beta1 = c.beta1;
  o.beta2 = c.beta2;
  o.eps = c.eps;
  o.weight_decay = c.weight_decay;
  if (c.optimizer == OptimizerKind::adam) return std::make_unique<Adam>(params, o);
  return std::make_unique<AdamW>(params, o);  // the enum admits no other value
}

LrSchedule make_schedule(const TrainConfig& c, int64_t total_steps) {
  LrScheduleConfig s;
  s.kind = c.schedule;
  s.lr = c.lr;
  s.warmup_steps = c.warmup_steps;  // at most total_steps: check_warmup_fits() (config_loader.h)
  s.total_steps = total_steps;
  s.min_lr = c.min_lr;
  return LrSchedule(s);
}

}  // namespace rotor
