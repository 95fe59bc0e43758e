#pragma once
// The `rotor` subcommands other than train (see trainer.h). Each returns the
// process exit code; errors are thrown as rotor::Error and printed by main.
#include <cstdint>
#include <string>
#include <vector>

namespace rotor {

// A checkpoint may be named as a file, as RUN/checkpoints/latest or
// RUN/checkpoints/best, or as a run directory (its best checkpoint on
// validation; its newest when no evaluation ran).
struct EvalRequest {
  std::string checkpoint;
  std::string split = "test";     // val | test | any extra split of the task
  std::string data;               // a JSONL/CSV/TSV file to evaluate instead of a split
  std::vector<int64_t> max_lens;  // evaluation window lengths, one evaluation each; empty: the run's own
  std::vector<std::string> overrides;
  std::string output;  // metrics JSON file (one length only); empty: RUN/<eval_file_name()>
};
int eval_command(const EvalRequest& request);

struct PredictRequest {
  std::string checkpoint;
  std::string input;   // JSONL/CSV/TSV (data.format) with the text field of the run's config
  std::string output;  // JSONL; empty: stdout
  int64_t max_len = 0;
  std::vector<std::string> overrides;  // --set, as for eval (e.g. rope scaling at longer lengths)
};
int predict_command(const PredictRequest& request);

int inspect_command(const std::string& checkpoint);

int config_command(const std::string& config_path, const std::vector<std::string>& overrides, bool reference,
                   bool markdown);

}  // namespace rotor
