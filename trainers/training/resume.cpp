#include "trainers/training/resume.h"

#include <filesystem>
#include <vector>

#include <fmt/core.h>

#include "datasets/data_error.h"
#include "trainers/config/config_loader.h"
#include "trainers/config/config_schema.h"
#include "trainers/run/run_directory.h"

namespace rotor {

std::optional<std::string> checkpoint_to_resume(const std::string& resume, const std::string& run_dir) {
  const CheckpointDirectory dir = RunDirectory(run_dir).checkpoints();
  std::optional<std::string> resume_from;
  if (resume == "auto") {
    std::vector<std::string> warnings;
    resume_from = dir.newest_valid(&warnings);
    for (const std::string& w : warnings) fmt::print(stderr, "warning: {}\n", w);
    if (!resume_from && !dir.list().empty()) {
      std::string list;
      for (const std::string& w : warnings) list += "\n  " + w;
      throw CheckpointError("every checkpoint in " + dir.dir() + " is damaged; nothing was changed:" + list +
                            "\nremove the damaged files to start over, or resume from one with --resume PATH");
    }
    if (!resume_from) fmt::print(stderr, "no checkpoint in {}: starting a new run\n", run_dir);
  } else if (!resume.empty()) {
    resume_from = resume;
  } else if (!dir.list().empty()) {
    throw ConfigError("run directory " + run_dir +
                      " already has checkpoints: resume with --resume auto, or pick another run.name or --out");
  }
  return resume_from;
}

void repair_checkpoint_pointers(CheckpointDirectory& dir, const std::string& resumed, const TrainingState& state,
                                int keep_last) {
  std::error_code ec;
  if (!std::filesystem::equivalent(resumed, dir.path_for_step(state.step), ec)) return;  // another run's file
  for (const std::string& moved : dir.point_at(state.step, state.best_step, keep_last))
    fmt::print(stderr, "note: {} (a save was interrupted)\n", moved);
}

std::string check_resumed_data(const std::optional<std::vector<SourceFingerprint>>& recorded,
                               const std::vector<SourceFingerprint>& current, const std::string& checkpoint,
                               bool allow_change) {
  if (!recorded)
    return "note: " + checkpoint + " does not record its data files (written by an older rotor), so a change to them " +
           "since cannot be noticed";
  const std::string change = describe_data_change(*recorded, current);
  if (change.empty()) return "";
  if (allow_change)
    return "warning: the data changed since " + checkpoint + " was written: " + change +
           "; training the rest on the new data, as --allow-data-change asks";
  throw DataError("cannot resume " + checkpoint + ": the data changed since it was written: " + change +
                  "; the rest of the run would train on other data. Restore the file, or resume with " +
                  "--allow-data-change to train the rest on the new data");
}

void require_resumable_config(const Config& stored, const Config& config, const std::string& checkpoint) {
  std::vector<std::string> changed;
  for (const std::string& key : differing_keys(stored, config))
    if (!resumable_change(key)) changed.push_back(key);
  if (changed.empty()) return;
  std::string list;
  for (const std::string& k : changed) list += "\n  " + k;
  throw ConfigError("cannot resume " + checkpoint + " with a different config; these keys differ from the " +
                    "checkpoint's:" + list + "\n(only run length, evaluation/checkpoint frequency, keep_last and " +
                    "logging may change)");
}

}  // namespace rotor
