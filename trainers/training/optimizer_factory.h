#pragma once
// Builds the optimizer and learning-rate schedule a TrainConfig describes.
#include <memory>

#include "engine/optim/lr_schedule.h"
#include "engine/optim/optimizer.h"
#include "engine/parameters.h"
#include "trainers/config/config.h"

namespace rotor {

std::unique_ptr<Optimizer> make_optimizer(const TrainConfig& config, ParameterStore& params);
// total_steps: the run's length in updates (the decay's end).
LrSchedule make_schedule(const TrainConfig& config, int64_t total_steps);

}  // namespace rotor
