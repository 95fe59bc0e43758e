#pragma once
// The statistics a study report shows beyond its fixed tables, one row each:
// the evidence (verdicts, bootstrap intervals and paired tests, the order
// control, position usage), the papers' score, steps to threshold, attention
// against distance and RoPE's decay. report.json, report.csv and report.md
// walk this one list, so a new statistic is its own file (its computation and
// its three renderings, `ReportStatistic <name>_statistic()`) plus its row in
// report_statistics.cpp; tools/plot_study.py draws from its report.json keys.
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "trainers/study/report_csv.h"
#include "trainers/study/study_report.h"

namespace rotor {

// Where a statistic's section goes in report.md: after the results table (the
// evidence, then the per-seed table) or after the length-extrapolation tables.
enum class ReportPlace { after_results, after_sweeps };

struct ReportStatistic {
  std::string name;  // what it is, for errors and tests: "convergence"
  ReportPlace place = ReportPlace::after_results;
  // Its keys in report.json (an object merged into the report; empty: none).
  std::function<nlohmann::json(const StudyReport&)> json;
  // Its rows of report.csv; unset: none.
  std::function<std::vector<CsvRow>(const StudyReport&)> csv;
  // Its section of report.md ("" when it has nothing to say); unset: none.
  std::function<std::string(const StudyReport&, const PlotOutcome&)> markdown;
};

// In report order.
const std::vector<ReportStatistic>& report_statistics();

// What the rows at `place` write into report.md, in order.
std::string statistics_markdown(const StudyReport& report, const PlotOutcome& plots, ReportPlace place);

}  // namespace rotor
