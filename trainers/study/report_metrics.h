#pragma once
// Which of its objective's metrics each part of a study report shows, read from
// the objective's row (config/objective_table.h) so that a new objective's
// report names its own scores (a sequence task's token and sequence accuracy)
// instead of a classifier's. A language model's report.csv keeps the rows it
// has always had; its row's study_metrics lead with an accuracy whose rows
// never carried a split.
#include <string>
#include <vector>

#include "trainers/config/objective_table.h"

namespace rotor {

// A per-split column of the results and per-seed tables: a RunResult metrics
// key ("test_token_accuracy") and its header ("Test token accuracy", "Test
// loss (nats/token)"), for each of the row's table metrics per split.
struct ReportColumn {
  std::string key;
  std::string header;
};
std::vector<ReportColumn> split_columns(const ObjectiveSpec& objective);

// The row's study metrics as report.md's sentence of them: "Accuracy and
// macro-F1 in percent", "Token accuracy and sequence accuracy in percent".
std::string percent_metrics_sentence(const ObjectiveSpec& objective);

// The metric report.md's length-extrapolation tables show per cell: the first
// of the row's table metrics (a language model's perplexity, a classifier's
// accuracy).
std::string sweep_metric(const ObjectiveSpec& objective);

// The sweep metrics report.csv gives per cell, in order: the row's study
// metrics; a language model's accuracy with its loss (per run) or its
// perplexity (per variant), as its reports always have.
std::vector<std::string> csv_sweep_metrics(const ObjectiveSpec& objective, bool per_run);

// The metrics whose "<split>_<metric>" keys report.csv splits into split and
// metric: the row's study metrics; a language model's accuracy alone, its loss
// and perplexity rows keeping the split in their name as they always have.
std::vector<std::string> csv_split_metrics(const ObjectiveSpec& objective);

}  // namespace rotor
