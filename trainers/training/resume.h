#pragma once
// Resuming a run: which checkpoint it continues from, and whether its config
// may differ from the checkpoint's.
#include <optional>
#include <string>
#include <vector>

#include "datasets/source_fingerprint.h"
#include "storage/checkpoint_directory.h"
#include "trainers/config/config.h"
#include "trainers/training/training_state.h"

namespace rotor {

// `resume`: "" (a new run; refused when the run directory has checkpoints),
// "auto" (the newest valid checkpoint of `run_dir`, or none) or a checkpoint
// path. Warnings about damaged checkpoints are printed; throws CheckpointError
// when every checkpoint of the run directory is damaged.
std::optional<std::string> checkpoint_to_resume(const std::string& resume, const std::string& run_dir);

// A kill inside a save can leave `latest` or `best` naming older files, step
// files beyond keep_last and temporaries: when a run resumes its own checkpoint
// `resumed`, finishes that save from the checkpoint's records
// (CheckpointDirectory::point_at) and prints a note for each pointer it moved.
void repair_checkpoint_pointers(CheckpointDirectory& dir, const std::string& resumed, const TrainingState& state,
                                int keep_last);

// Whether a resumed run reads the data files its checkpoint was trained on
// (`recorded`): a file changed, added or removed since is a DataError naming
// it, unless `allow_change` (train --allow-data-change), which returns a
// warning instead. A checkpoint from before rotor recorded its data (nullopt)
// returns a note; "" when all is the same.
std::string check_resumed_data(const std::optional<std::vector<SourceFingerprint>>& recorded,
                               const std::vector<SourceFingerprint>& current, const std::string& checkpoint,
                               bool allow_change);

// Only run-length and logging keys may change on resume: throws ConfigError
// listing the other keys of `config` that differ from the checkpoint's
// (`stored`). Checked before the data is read, so another run's checkpoint is
// named as such.
void require_resumable_config(const Config& stored, const Config& config, const std::string& checkpoint);

}  // namespace rotor
