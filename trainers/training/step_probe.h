#pragma once
// How long one optimizer step of a config takes on this machine now, for
// `rotor compare --dry-run`'s estimate: the data loaded as a run loads it
// (through the token cache), the model built and initialised, one step to
// warm up, then the mean of a few more, in this process. Nothing is written
// but the token cache; no run directory, no checkpoint.
#include <cstdint>

#include "trainers/config/config.h"

namespace rotor {

struct StepProbe {
  double seconds_per_step = 0.0;
  int64_t planned_steps = 0;  // of a whole run of this config (train.max_steps, or epochs of its data)
  int threads = 0;            // run.threads, as the trainer sets it, else the process's count
};

// Times `steps` (>= 1) optimizer steps of `config` after one warm-up step.
// Throws what a run of this config would throw at its start. Sets run.threads as
// the trainer does.
StepProbe probe_training_step(const Config& config, int64_t steps);

}  // namespace rotor
