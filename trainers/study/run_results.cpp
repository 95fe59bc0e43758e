#include "trainers/study/run_results.h"

#include <cmath>
#include <filesystem>

#include "trainers/run/run_directory.h"

namespace rotor {
namespace fs = std::filesystem;

std::string run_directory(const std::string& study_dir, const StudyRun& run) {
  return (fs::path(study_dir) / "runs" / run.id).string();
}

RunResult read_run_result(const StudyRun& run, const std::string& run_dir, const ObjectiveSpec& objective) {
  const RunDirectory files(run_dir);
  RunResult r;
  r.run = run;
  r.dir = run_dir;
  r.finished = files.finished();
  if (!r.finished) return r;
  const RunSummary s = files.read_summary();
  r.parameters = s.parameters;
  r.steps = s.steps;
  r.best_step = s.best_step;
  r.elapsed_s = s.elapsed_s;
  r.tokens_per_s = s.tokens_per_s;
  r.build = s.build;
  for (const auto& [split, scores] : s.splits)
    for (const std::string& metric : objective.study_metrics)
      if (scores.has(metric) && !std::isnan(scores.get(metric)))  // a null (NaN) metric is left out, as a missing one
        r.metrics[split + "_" + metric] = scores.get(metric);
  r.val_curve = files.validation_curve(objective.default_best_metric);
  r.sweep = files.read_length_sweep().cells;
  r.attention = files.read_attention_usage();
  r.offsets = files.read_offset_profiles();
  r.frequencies = files.read_frequency_use();
  return r;
}

}  // namespace rotor
