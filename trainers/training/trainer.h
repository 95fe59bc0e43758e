#pragma once
// `rotor train`: one training run, from a config to a run directory (its
// config, metrics log, checkpoints and summary; run/run_directory.h).
#include <cstdint>
#include <string>
#include <vector>

namespace rotor {

struct TrainRequest {
  std::string config_path;
  std::vector<std::string> overrides;  // --set key=value
  std::string resume;                  // "", "auto" or a checkpoint path
  std::string out_dir;                 // --out: the run directory itself (default <run.out_dir>/<run.name>)
  int64_t stop_after = 0;              // > 0: checkpoint and stop once this many steps are done (resumable)
  bool allow_data_change = false;      // resume even when the data files differ from the checkpoint's record
};

// Returns the exit code: 0 when training finished (or reached stop_after),
// 130 (SIGINT) or 143 (SIGTERM) when it stopped early after writing a checkpoint.
int train(const TrainRequest& request);

}  // namespace rotor
