#include "trainers/run/run_directory.h"

#include <filesystem>

#include "storage/checkpoint_fs.h"
#include "trainers/run/metrics_history.h"

namespace rotor {
namespace fs = std::filesystem;

RunDirectory RunDirectory::of_checkpoint(const std::string& checkpoint) {
  const fs::path dir = fs::absolute(checkpoint).parent_path();
  const fs::path checkpoints_folder = fs::path(CheckpointDirectory(".").dir()).filename();
  const bool in_checkpoints = dir.filename() == checkpoints_folder;
  return RunDirectory(fs::proximate(in_checkpoints ? dir.parent_path() : dir).string());
}

std::string RunDirectory::file(const char* name) const { return (fs::path(root_) / name).string(); }
std::string RunDirectory::config_path() const { return file("config.yaml"); }
std::string RunDirectory::metrics_path() const { return file("metrics.jsonl"); }
std::string RunDirectory::summary_path() const { return file("summary.json"); }
std::string RunDirectory::length_sweep_path() const { return file("length_sweep.json"); }
std::string RunDirectory::attention_path() const { return file("attention.json"); }
std::string RunDirectory::offsets_path() const { return file("offsets.json"); }
std::string RunDirectory::frequencies_path() const { return file("frequencies.json"); }

bool RunDirectory::finished() const { return fs::exists(summary_path()); }
RunSummary RunDirectory::read_summary() const { return read_run_summary(summary_path()); }
void RunDirectory::write_summary(const RunSummary& summary) const { write_run_summary(summary_path(), summary); }
std::optional<int64_t> RunDirectory::summarized_steps() const { return rotor::summarized_steps(summary_path()); }

std::string RunDirectory::best_checkpoint_path() const { return checkpoints().path_for_step(read_summary().best_step); }

std::vector<std::pair<int64_t, double>> RunDirectory::validation_curve(const std::string& metric) const {
  return read_validation_curve(metrics_path(), metric);
}

std::string RunDirectory::eval_record_path(const EvalSetting& setting, int64_t default_len) const {
  return eval_output_path(root_, setting, default_len);
}

LengthSweep RunDirectory::read_length_sweep() const { return read_length_sweep_file(length_sweep_path()); }
void RunDirectory::write_length_sweep(const LengthSweep& sweep) const {
  write_length_sweep_file(length_sweep_path(), sweep);
}

bool RunDirectory::has_attention_usage() const { return fs::exists(attention_path()); }
AttentionUsage RunDirectory::read_attention_usage() const { return read_attention_file(attention_path()); }
void RunDirectory::write_attention_usage(const AttentionUsage& usage) const {
  write_attention_file(attention_path(), usage);
}

bool RunDirectory::has_offset_profiles() const { return fs::exists(offsets_path()); }
OffsetProfileRecord RunDirectory::read_offset_profiles() const { return read_offset_profile_file(offsets_path()); }
void RunDirectory::write_offset_profiles(const OffsetProfileRecord& record) const {
  write_offset_profile_file(offsets_path(), record);
}

bool RunDirectory::has_frequency_use() const { return fs::exists(frequencies_path()); }
FrequencyUseRecord RunDirectory::read_frequency_use() const { return read_frequency_use_file(frequencies_path()); }
void RunDirectory::write_frequency_use(const FrequencyUseRecord& record) const {
  write_frequency_use_file(frequencies_path(), record);
}

void RunDirectory::write_config(const std::string& yaml) const {
  checkpoint_fs::write_file_atomically(config_path(), yaml);
}

}  // namespace rotor
