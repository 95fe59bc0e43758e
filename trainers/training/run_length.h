#pragma once
// How many optimizer steps a run takes, written once for the trainer and the
// dry run's estimate (step_probe.h).
#include <cstdint>

#include "trainers/config/config.h"

namespace rotor {

// train.max_steps, or max_epochs epochs of `batches_in_epoch` batches taken
// train.grad_accumulation at a time (an update never straddles epochs, so an
// epoch's last update may take fewer), whichever ends first. Throws ConfigError
// when an update would need more batches than an epoch has, or the warm-up
// does not fit the run.
int64_t planned_steps(const TrainConfig& train, int64_t batches_in_epoch);

}  // namespace rotor
