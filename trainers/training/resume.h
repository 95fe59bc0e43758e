#pragma once
// Resuming a run: which checkpoint it continues from, and whether its config
// may differ from the checkpoint's.
#include <optional>
#include <string>

#include "trainers/config/config.h"

namespace rotor {

// `resume`: "" (a new run; refused when the run directory has checkpoints),
// "auto" (the newest valid checkpoint of `run_dir`, or none) or a checkpoint
// path. Warnings about damaged checkpoints are printed; throws CheckpointError
// when every checkpoint of the run directory is damaged.
std::optional<std::string> checkpoint_to_resume(const std::string& resume, const std::string& run_dir);

// Only run-length and logging keys may change on resume: throws ConfigError
// listing the other keys of `config` that differ from the checkpoint's
// (`stored`). Checked before the data is read, so another run's checkpoint is
// named as such.
void require_resumable_config(const Config& stored, const Config& config, const std::string& checkpoint);

}  // namespace rotor
