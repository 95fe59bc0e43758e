#pragma once
// `rotor compare` and `rotor analyze rope-decay`. Each returns the process
// exit code; errors are thrown as rotor::Error and printed by main.
#include <cstdint>
#include <string>

namespace rotor {

struct CompareRequest {
  std::string spec;        // SPEC.yaml; empty with report_dir
  std::string out_dir;     // --out
  int64_t jobs = 1;        // --jobs
  std::string only;        // --only RUN_ID
  std::string task;        // --task NAME: one task of a suite spec, as a study of its own
  std::string report_dir;  // --report DIR: rebuild the report without training
  std::string command;     // the command line, quoted, for the report
};
int compare_command(const CompareRequest& request);

struct RopeDecayRequest {
  int64_t head_dim = 128;
  double base = 10000.0;
  int64_t max_distance = 256;
  int64_t query_index = 0;
  std::string out;  // FILE(.png|.svg): the curve's data as FILE.json and the plot as FILE.png and FILE.svg
};
int rope_decay_command(const RopeDecayRequest& request);

}  // namespace rotor
