#pragma once
// The file `rotor eval` writes for one evaluation. It records what produced
// the numbers (checkpoint, split or data file, window length and mode, every
// `--set` override) and is named after them, so that a sweep of lengths or
// scalings leaves one file per evaluation instead of overwriting one.
#include <cstdint>
#include <string>
#include <vector>

#include "trainers/training/classification_metrics.h"
#include "trainers/training/json_output.h"

namespace rotor {

struct EvalSetting {
  std::string checkpoint;
  std::string split;                   // a split of the run's task, or the stem of the --data file
  std::string data;                    // the --data file; empty for a split of the task
  int64_t eval_max_len = 0;            // tokens per window, as evaluated
  std::string eval_windows;            // first | all
  std::vector<std::string> overrides;  // --set key=value, as given
};

// "eval-<split>[-L<length>][-<override values>].json". L<length> appears
// when the length is not the checkpoint's own evaluation length
// (`default_len`). Override values are joined by '-', except that a key
// extending the previous key's name joins its value directly
// (scaling=ntk, scaling_factor=4 -> "ntk4"); characters other than letters,
// digits, '.' and '_' become '_'.
std::string eval_file_name(const EvalSetting& setting, int64_t default_len);

// {"evaluation": {checkpoint, split, [data], eval_max_len, eval_windows,
// overrides}, "step", "documents", "accuracy", "macro_f1", "loss"}.
JsonFields eval_record(const EvalSetting& setting, int64_t step, const ClassificationMetrics& metrics);

// Where to write the setting's record in `dir`: eval_file_name(), or, if a
// file of that name records a different evaluation (or is unreadable), the
// first of its "-2", "-3", ... variants that is free or records this one.
std::string eval_output_path(const std::string& dir, const EvalSetting& setting, int64_t default_len);

}  // namespace rotor
