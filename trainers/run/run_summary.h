#pragma once
// RUN/summary.json, written last by a run that finished (so its presence marks
// a finished run), one compact line:
//   {"run","steps","epochs","best_step","best_metric","best_value",
//    "parameters","position","elapsed_s","tokens_per_s",
//    "build" (the build that finished the run: run/build_id.h),
//    "init_from","init_from_checksum" (a fine-tune's source, model.init_from),
//    "scores": {"<split>": {NAME: value, ...}} for each held-out split}
// (a summary written before "scores" has "<split>_accuracy", "<split>_loss", ...
// fields, and reads the same).
// best_value is null (NaN) when no evaluation ran.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "trainers/config/config.h"
#include "trainers/run/build_id.h"
#include "trainers/run/metrics_events.h"

namespace rotor {

struct RunSummary {
  std::string run;
  int64_t steps = 0, epochs = 0, best_step = -1;
  std::string best_metric;
  double best_value = 0.0;
  int64_t parameters = 0;
  std::string position;
  double elapsed_s = 0.0, tokens_per_s = 0.0;
  // The best checkpoint's scores on each held-out split, in the data's order.
  std::vector<std::pair<std::string, SplitScores>> splits;
  InitFromConfig init_from;        // a fine-tune's source checkpoint and its checksum; empty: trained from scratch
  std::string build = build_id();  // the binary that wrote the summary; read back: "" in older summaries
};

// Reading requires steps, best_step, parameters, elapsed_s and tokens_per_s;
// the other fields default when absent.
void to_json(JsonFields& j, const RunSummary& s);
void from_json(const JsonFields& j, RunSummary& s);

// Throws RunFileError naming the file when it is missing or not a summary.
RunSummary read_run_summary(const std::string& path);
// Atomically, as one line.
void write_run_summary(const std::string& path, const RunSummary& summary);

// The "steps" of the summary at `path`; nullopt when there is none or it is
// not a complete summary (an interrupted final evaluation).
std::optional<int64_t> summarized_steps(const std::string& path);

}  // namespace rotor
