#pragma once
// The report of a study, built from its manifest and run directories:
//   report.json  every number, per run and per variant (report_data.cpp)
//   report.csv   the same as a tidy table, one number per row
//   report.md    tables for people, plots or how to get them (report_markdown.cpp)
//   plots/       PNG and SVG drawn by tools/plot_study.py (plots.cpp)
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "trainers/study/aggregation.h"
#include "trainers/study/convergence.h"
#include "trainers/study/rope_decay.h"
#include "trainers/study/study_evidence.h"
#include "trainers/study/study_manifest.h"

namespace rotor {

struct StudyReport {
  std::string dir;
  StudyManifest manifest;
  std::vector<RunResult> runs;                    // in spec order
  std::vector<VariantSummary> variants;           // in spec order
  const ObjectiveSpec* objective = nullptr;       // the studied objective's row
  StudyEvidence evidence;                         // intervals, paired tests, verdicts, controls
  std::vector<ThresholdConvergence> convergence;  // per evaluation.thresholds, in spec order
  // The decay curve for the first rope variant's head dimension and base,
  // out to the longest evaluation length; empty without a rope variant.
  int64_t decay_head_dim = 0;
  double decay_base = 0.0;
  std::vector<RopeDecayPoint> decay;
};

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
// report.md's attention-against-distance section (with a rotary variant's frequency use) and report.json's
// offset_profiles and frequency_use (report_offsets.cpp).
std::string offsets_markdown(const StudyReport& report, const PlotOutcome& plots);
nlohmann::json offsets_json(const StudyReport& report);
nlohmann::json frequencies_json(const StudyReport& report);
// report.md's steps-to-threshold section; empty without evaluation.thresholds (report_convergence.cpp).
std::string convergence_markdown(const StudyReport& report);

// Writes report.json, report.csv, the plots and report.md into the study
// directory; returns what happened to the plots.
PlotOutcome write_study_report(const StudyReport& report);

}  // namespace rotor
