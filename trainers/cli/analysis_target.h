#pragma once
// What `rotor analyze attention`, `analyze offsets` and `analyze frequencies` share: a checkpoint
// restored with --set, the window length (--max-len, else the run's
// evaluation length), a split of its task, and a folder (--out) that gets the
// numbers as JSON and the plots (tools/plot_study.py) as PNG and SVG.
#include <CLI/CLI.hpp>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "datasets/dataset.h"
#include "trainers/training/restored_model.h"

namespace rotor {

struct AnalysisRequest {
  std::string checkpoint;
  std::string split;
  int64_t max_len = 0;  // 0: the run's evaluation length
  std::vector<std::string> overrides;
  std::string out;  // empty: RUN/analysis
};

// Declares CKPT, --split (default `split`), --max-len, --set and --out.
void add_analysis_options(CLI::App* command, AnalysisRequest& request, const std::string& split);

struct AnalysisTarget {
  std::string checkpoint;  // the file
  RestoredModel restored;
  int64_t max_len = 0;
  std::string out;  // the folder for the files
  std::optional<Dataset> data;

  // The requested split of the task, loaded on first use (an unknown name is a ConfigError listing the splits).
  const TokenizedSplit& split(const std::string& name);
};

AnalysisTarget open_analysis_target(const AnalysisRequest& request);

// Writes OUT/name.json, `data` with what it was measured on (checkpoint, precision, position encoding), and
// asks the plot script for `mode`'s plots from it (a missing plotter is a warning: the numbers stay).
void write_analysis(const AnalysisTarget& target, const std::string& name, const std::string& mode,
                    nlohmann::json data);

}  // namespace rotor
