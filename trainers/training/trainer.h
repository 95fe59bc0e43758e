#pragma once
// `rotor train`: one training run, from a config to a run directory (its
// config, metrics log, checkpoints and summary; run/run_directory.h).
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "datasets/dataset.h"
#include "trainers/run/metrics_events.h"

namespace rotor {

// Scores a held-out split of a finished run in the trainer's stead, from its best checkpoint and the run's data;
// nullopt: the trainer evaluates the split itself. A study's length sweep evaluates each held-out split at its own
// length anyway: handing the trainer that score computes it once.
using HeldOutScores = std::function<std::optional<SplitScores>(
    const std::string& split, const std::string& best_checkpoint, const Dataset& data)>;

struct TrainRequest {
  std::string config_path;
  std::vector<std::string> overrides;  // --set key=value
  std::string resume;                  // "", "auto" or a checkpoint path
  std::string out_dir;                 // --out: the run directory itself (default <run.out_dir>/<run.name>)
  int64_t stop_after = 0;              // > 0: checkpoint and stop once this many steps are done (resumable)
  bool allow_data_change = false;      // resume even when the data files differ from the checkpoint's record
};

// Returns the exit code: 0 when training finished (or reached stop_after),
// 130 (SIGINT) or 143 (SIGTERM) when it stopped early after writing a checkpoint. `held_out_scores`, in a
// single process only: where it gives a held-out split's score, the trainer does not evaluate that split.
int train(const TrainRequest& request, const HeldOutScores& held_out_scores = {});

}  // namespace rotor
