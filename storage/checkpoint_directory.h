#pragma once
// A run's checkpoint folder, RUN/checkpoints/:
//   step-00001234.h5 ...   one checkpoint per saved step (8 digits, more if needed)
//   latest                 the newest committed file's name and a newline,
//                          replaced atomically after each save
//   best                   the same for the best-on-validation checkpoint;
//                          absent until an evaluation has run
//   *.tmp-<pid>            an interrupted write; never read, removed by point_at()
// One writer per run directory (hold a RunLock) and one thread at a time.
#include <cstdint>
#include <functional>
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
  // then point_at(step, best_step, keep_last). Returns the new file's path.
  std::string save(int64_t step, const CheckpointContents& contents, int keep_last, int64_t best_step);

  // What a save does once its step file is committed: points `latest` at
  // `step`'s file and `best` at `best_step`'s (the best on validation so far;
  // -1: none yet, `best` is left alone), each only where it names another
  // file, deletes step files beyond the `keep_last` highest steps, never
  // `step`'s nor `best_step`'s (keep_last <= 0 keeps every file), and removes
  // temporaries left by dead processes. A kill inside a save leaves some of
  // this undone; a resumed run calls it with its checkpoint's own records to
  // finish it. Returns "<pointer> named <old>; now <new>" for each pointer it
  // changed from another file.
  std::vector<std::string> point_at(int64_t step, int64_t best_step, int keep_last);

  // The newest valid checkpoint: the file named by `latest` if it validates,
  // else the step files from the highest step down. Every file or pointer that
  // is skipped adds "skipping <path>: <why>" to *warnings (when given).
  std::optional<std::string> newest_valid(std::vector<std::string>* warnings) const;

  // Committed step files as (step, path), ascending by step.
  std::vector<std::pair<int64_t, std::string>> list() const;

 private:
  void remove_stale_temporaries() const;
  // Writes `pointer` to name `step`'s file unless it does; a change from another file is added to `changed`.
  void repoint(const char* pointer, int64_t step, std::vector<std::string>& changed) const;

  std::string dir_;
};

// The step a checkpoint file records as its run's best on validation so far
// (-1: no evaluation yet). Storage knows no keys: the trainer reads it.
using RecordedBestStep = std::function<int64_t(const std::string& checkpoint)>;

// A checkpoint a user named, and how it was found from what they gave.
struct ResolvedCheckpoint {
  std::string path;
  std::string how;  // "" for a file named directly; else e.g. "best on validation"
};

// What a user may name as a checkpoint: a checkpoint file; RUN/checkpoints/latest
// (the file it names); a run directory, its checkpoints/ folder or
// RUN/checkpoints/best: the best checkpoint as the newest valid checkpoint
// records it (`best_step_of`), or that newest one when no evaluation ran. The
// records decide, not the `best` pointer, which a kill inside a save can leave
// behind; a pointer that disagrees adds a warning, as does each skipped file.
// Throws CheckpointError when a pointer or folder leads to no checkpoint.
ResolvedCheckpoint resolve_checkpoint(const std::string& path, std::vector<std::string>* warnings,
                                      const RecordedBestStep& best_step_of);

}  // namespace rotor
