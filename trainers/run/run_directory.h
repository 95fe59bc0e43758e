#pragma once
// The one owner of a run directory's layout; every reader and writer of a
// run's files asks it for the path or the record:
//   RUN/config.yaml          the resolved config (config/config_loader.h)
//   RUN/metrics.jsonl        training-log and evaluation events (metrics_events.h)
//   RUN/checkpoints/         step files and the latest/best pointers (CheckpointDirectory)
//   RUN/summary.json         written last by a finished run (run_summary.h)
//   RUN/eval-*.json          `rotor eval` records (eval_record.h)
//   RUN/length_sweep.json    a study's length sweep (length_sweep_record.h)
//   RUN/attention.json       a study's attention usage (attention_record.h)
//   RUN/offsets.json         a study's attention against distance, first seed (offset_profile_record.h)
//   RUN/frequencies.json     a study's frequency use of a rotary run, first seed (frequency_use_record.h)
//   RUN/.lock                held by the one process writing the run (run_lock.h)
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "storage/checkpoint_directory.h"
#include "trainers/run/attention_record.h"
#include "trainers/run/eval_record.h"
#include "trainers/run/frequency_use_record.h"
#include "trainers/run/length_sweep_record.h"
#include "trainers/run/offset_profile_record.h"
#include "trainers/run/run_summary.h"

namespace rotor {

class RunDirectory {
 public:
  explicit RunDirectory(std::string root) : root_(std::move(root)) {}

  // The run directory of RUN/checkpoints/step-N.h5; for a checkpoint kept
  // anywhere else, the directory it is in. Relative to the working directory
  // where it can be, as a user would write it.
  static RunDirectory of_checkpoint(const std::string& checkpoint);

  const std::string& root() const { return root_; }
  std::string config_path() const;
  std::string metrics_path() const;
  std::string summary_path() const;
  std::string length_sweep_path() const;
  std::string attention_path() const;
  std::string offsets_path() const;
  std::string frequencies_path() const;
  CheckpointDirectory checkpoints() const { return CheckpointDirectory(root_); }

  // The trainer writes summary.json last: its presence marks a finished run.
  bool finished() const;
  RunSummary read_summary() const;
  void write_summary(const RunSummary& summary) const;
  // The summary's "steps"; nullopt without a complete summary.
  std::optional<int64_t> summarized_steps() const;
  // RUN/checkpoints/step-<best>.h5, by the summary's best_step.
  std::string best_checkpoint_path() const;

  // (step, validation `metric`) of every validation in metrics.jsonl.
  std::vector<std::pair<int64_t, double>> validation_curve(const std::string& metric) const;

  // Where `rotor eval` writes the record of `setting` (eval_output_path()).
  std::string eval_record_path(const EvalSetting& setting, int64_t default_len) const;

  LengthSweep read_length_sweep() const;
  void write_length_sweep(const LengthSweep& sweep) const;
  bool has_attention_usage() const;
  AttentionUsage read_attention_usage() const;
  void write_attention_usage(const AttentionUsage& usage) const;
  bool has_offset_profiles() const;
  OffsetProfileRecord read_offset_profiles() const;
  void write_offset_profiles(const OffsetProfileRecord& record) const;
  bool has_frequency_use() const;
  FrequencyUseRecord read_frequency_use() const;
  void write_frequency_use(const FrequencyUseRecord& record) const;

  // Writes config.yaml atomically.
  void write_config(const std::string& yaml) const;

 private:
  std::string file(const char* name) const;

  std::string root_;
};

}  // namespace rotor
