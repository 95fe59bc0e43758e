#pragma once
// The report of a study, built from its manifest and run directories:
//   report.json  every number, per run and per variant (report_data.cpp)
//   report.csv   the same as a tidy table, one number per row (report_csv.cpp)
//   report.md    tables for people, plots or how to get them (report_markdown.cpp)
//   plots/       PNG and SVG drawn by tools/plot_study.py (plots.cpp)
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "trainers/study/aggregation.h"
#include "trainers/study/study_evidence.h"
#include "trainers/study/study_manifest.h"

namespace rotor {

struct StudyReport {
  std::string dir;
  StudyManifest manifest;
  std::vector<RunResult> runs;               // in spec order
  std::vector<VariantSummary> variants;      // in spec order
  const ObjectiveSpec* objective = nullptr;  // the studied objective's row
  StudyEvidence evidence;                    // intervals, paired tests, verdicts, controls
};

// The statistics beyond the fixed tables (steps to threshold, offset
// profiles, RoPE's decay, ...) are rows of report_statistics.h, which every
// rendering walks; each computes what it shows from the report.

// Reads every run directory of the study (DIR/runs/<run id>) and aggregates.
StudyReport build_study_report(const std::string& study_dir, const StudyManifest& manifest);

nlohmann::json report_json(const StudyReport& report);
std::string report_csv(const StudyReport& report);

struct PlotOutcome {
  std::vector<std::string> files;  // relative to the study directory; PNGs then SVGs
  std::string problem;             // empty when the plots were drawn
};
std::string report_markdown(const StudyReport& report, const PlotOutcome& plots);
// report.md's verdict, statistics, order-control and position-usage sections (report_evidence.cpp).
std::string evidence_markdown(const StudyReport& report);

// Writes report.json, report.csv, the plots and report.md into the study
// directory; returns what happened to the plots.
PlotOutcome write_study_report(const StudyReport& report);

}  // namespace rotor
