#pragma once
// A run's checkpoint folder, RUN/checkpoints/:
//   step-00001234.h5 ...   one checkpoint per saved step (8 digits, more if needed)
//   latest                 the newest committed file's name and a newline,
//                          replaced atomically after each save
//   best                   the same for the best-on-validation checkpoint;
//                          absent until an evaluation has run
//   *.tmp-<pid>            an interrupted write; never read, removed by save()
// One writer per run directory (hold a RunLock) and one thread at a time.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "storage/checkpoint.h"

namespace rotor {

class CheckpointDirectory {
 public:
  explicit CheckpointDirectory(std::string run_dir);

  const std::string& dir() const { return dir_; }  // RUN/checkpoints
  std::string path_for_step(int64_t step) const;   // RUN/checkpoints/step-00001234.h5

  // Writes the step's checkpoint atomically (creating the folder if needed),
  // points `latest` at it and `best` at `best_step`'s file (the best on
  // validation so far; -1: none yet, `best` is left alone), then deletes step
  // files beyond the `keep_last` highest steps, never the new one nor
  // `best_step`'s; keep_last <= 0 keeps every file. Also removes temporaries
  // left by dead processes. Returns the new file's path.
  std::string save(int64_t step, const CheckpointContents& contents, int keep_last, int64_t best_step);

  // The newest valid checkpoint: the file named by `latest` if it validates,
  // else the step files from the highest step down. Every file or pointer that
  // is skipped adds "skipping <path>: <why>" to *warnings (when given).
  std::optional<std::string> newest_valid(std::vector<std::string>* warnings) const;

  // Committed step files as (step, path), ascending by step.
  std::vector<std::pair<int64_t, std::string>> list() const;

 private:
  void remove_stale_temporaries() const;

  std::string dir_;
};

// A checkpoint a user named, and how it was found from what they gave.
struct ResolvedCheckpoint {
  std::string path;
  std::string how;  // "" for a file named directly; else e.g. "best on validation"
};

// What a user may name as a checkpoint: a checkpoint file; RUN/checkpoints/latest
// or RUN/checkpoints/best (the file the pointer names); a run directory or its
// checkpoints/ folder: the file `best` names, or, when no evaluation ran (no
// `best`), the newest valid checkpoint, each skipped file added to *warnings.
// Throws CheckpointError when a pointer or folder leads to no checkpoint.
ResolvedCheckpoint resolve_checkpoint(const std::string& path, std::vector<std::string>* warnings);

}  // namespace rotor
