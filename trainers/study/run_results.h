#pragma once
// What one finished run of a study produced, read back from its run
// directory (run/run_directory.h): the summary (parameters, final metrics of
// the best checkpoint, speed), the validation curve from the metrics log, the
// length sweep, the attention usage and (first seed) the offset profiles and
// a rotary variant's frequency use.
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "trainers/config/objective_table.h"
#include "trainers/run/frequency_use_record.h"
#include "trainers/run/offset_profile_record.h"
#include "trainers/study/attention_usage.h"
#include "trainers/study/length_sweep.h"
#include "trainers/study/study_spec.h"

namespace rotor {

struct RunResult {
  StudyRun run;
  std::string dir;
  bool finished = false;  // the summary exists; nothing below is set otherwise
  int64_t parameters = 0, steps = 0, best_step = -1;
  double elapsed_s = 0.0, tokens_per_s = 0.0;
  std::string build;  // the build that finished the run (its summary's); empty: not recorded
  // "<split>_<metric>" of the best checkpoint for each metric the objective's
  // row lists in study_metrics, for every held-out split (val, test, ...).
  std::map<std::string, double> metrics;
  // (step, validation value of the objective's default best metric)
  std::vector<std::pair<int64_t, double>> val_curve;
  std::vector<SweepCell> sweep;
  AttentionUsage attention;
  OffsetProfileRecord offsets;     // measured for a variant's first seed only
  FrequencyUseRecord frequencies;  // measured for a rotary variant's first seed only
};

// STUDY/runs/<run id>: where the trainer writes the run.
std::string run_directory(const std::string& study_dir, const StudyRun& run);

// `objective`: the row of the runs' train.objective, which says which metrics
// a study reports and which one its validation curve follows.
RunResult read_run_result(const StudyRun& run, const std::string& run_dir, const ObjectiveSpec& objective);

}  // namespace rotor
