#include "trainers/training/run_length.h"

#include <algorithm>

#include <fmt/core.h>

#include "trainers/config/config_loader.h"

namespace rotor {
namespace {

// More batches per update than an epoch has would silently make every update
// one whole, smaller epoch.
void check_accumulation_fits(const TrainConfig& t, int64_t batches_in_epoch) {
  if (t.grad_accumulation <= batches_in_epoch) return;
  throw ConfigError(fmt::format(
      "train.grad_accumulation: {} batches per update are more than the {} batches of an epoch, so every update "
      "would be one epoch of {} batches; set train.grad_accumulation to {} or less, or lower data.batch_size",
      t.grad_accumulation, batches_in_epoch, batches_in_epoch, batches_in_epoch));
}

}  // namespace

int64_t planned_steps(const TrainConfig& t, int64_t batches_in_epoch) {
  check_accumulation_fits(t, batches_in_epoch);
  const int64_t per_epoch = (batches_in_epoch + t.grad_accumulation - 1) / t.grad_accumulation;
  int64_t steps = t.max_steps > 0 ? t.max_steps : per_epoch * t.max_epochs;
  if (t.max_steps > 0 && t.max_epochs > 0) steps = std::min(steps, per_epoch * t.max_epochs);
  check_warmup_fits(t, steps, per_epoch);  // with epochs, the run's length is known only now
  return steps;
}

}  // namespace rotor
