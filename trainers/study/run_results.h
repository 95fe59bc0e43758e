#pragma once
// What one finished run of a study produced, read back from its run
// directory (run/run_directory.h): the summary (parameters, final metrics of
// the best checkpoint, speed), the validation curve from the metrics log, the
// length sweep, the attention usage and (first seed) the offset profiles.
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

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
  // "<split>_accuracy" and "<split>_macro_f1" of the best checkpoint, for
  // every held-out split (val, test, ...).
  std::map<std::string, double> metrics;
  // (step, validation accuracy), or a language model's (step, validation loss)
  std::vector<std::pair<int64_t, double>> val_curve;
  std::vector<SweepCell> sweep;
  AttentionUsage attention;
  OffsetProfileRecord offsets;  // measured for a variant's first seed only
};

// STUDY/runs/<run id>: where the trainer writes the run.
std::string run_directory(const std::string& study_dir, const StudyRun& run);

RunResult read_run_result(const StudyRun& run, const std::string& run_dir);

}  // namespace rotor
