#pragma once
// The file `rotor eval` writes for one evaluation, RUN/eval-*.json. It records
// what produced the numbers (checkpoint, split or data file, window length and
// mode, every `--set` override) and is named after them, so that a sweep of
// lengths or scalings leaves one file per evaluation instead of overwriting one.
#include <cstdint>
#include <string>
#include <vector>

#include "trainers/run/json_text.h"
#include "trainers/run/metrics_events.h"

namespace rotor {

struct EvalSetting {
  std::string checkpoint;
  std::string split;                   // a split of the run's task, or the stem of the --data file
  std::string data;                    // the --data file; empty for a split of the task
  int64_t eval_max_len = 0;            // tokens per window, as evaluated
  std::string eval_windows;            // first | all; a language model: windows | stride<S> (sliding)
  std::vector<std::string> overrides;  // --set key=value, as given
};

// One line: {"evaluation": {checkpoint, split, [data], eval_max_len,
// eval_windows, overrides}, "step", "documents", "metrics": {NAME: value, ...}}:
// the metrics its objective declares (metrics_events.h); a record written before
// "metrics" has them as fields of its own, and reads the same.
struct EvalRecord {
  EvalSetting evaluation;
  int64_t step = 0;
  int64_t documents = 0;
  SplitScores scores;
};

void to_json(JsonFields& j, const EvalSetting& s);
void from_json(const JsonFields& j, EvalSetting& s);
void to_json(JsonFields& j, const EvalRecord& r);
void from_json(const JsonFields& j, EvalRecord& r);

// "eval-<split>[-L<length>][-<override values>].json". L<length> appears
// when the length is not the checkpoint's own evaluation length
// (`default_len`). Override values are joined by '-', except that a key
// extending the previous key's name joins its value directly
// (scaling=ntk, scaling_factor=4 -> "ntk4"); characters other than letters,
// digits, '.' and '_' become '_'. A sliding evaluation adds "-stride<S>" after the length.
std::string eval_file_name(const EvalSetting& setting, int64_t default_len);

// Where to write the setting's record in `dir`: eval_file_name(), or, if a
// file of that name records a different evaluation (or is unreadable), the
// first of its "-2", "-3", ... variants that is free or records this one.
std::string eval_output_path(const std::string& dir, const EvalSetting& setting, int64_t default_len);

// Writes the record as one line with write_output_file() (complete or not at
// all; a device or pipe is written in place).
void write_eval_record(const std::string& path, const EvalRecord& record);

}  // namespace rotor
