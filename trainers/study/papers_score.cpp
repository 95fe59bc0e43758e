#include "trainers/study/papers_score.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "trainers/study/report_statistics.h"

namespace rotor {
namespace {

bool beyond_training(const SweepCell& c) {
  return c.available && c.scaling == unscaled() && c.split.rfind("test_", 0) == 0;
}

// The run's `metric` averaged over its test_<L> cells; NaN when one is missing or unscored.
double run_score(const RunResult& run, const std::string& metric, int64_t& lengths) {
  double sum = 0.0;
  lengths = 0;
  for (const SweepCell& c : run.sweep) {
    if (!beyond_training(c)) continue;
    sum += c.metric(metric);
    ++lengths;
  }
  return lengths > 0 ? sum / static_cast<double>(lengths) : std::nan("");
}

// One value per seed of a variant: their best, their mean, and the one the rule reports.
struct SeedValues {
  double best = 0.0, total = 0.0;
  int64_t seeds = 0;
  void add(double v) {
    best = seeds == 0 ? v : std::max(best, v);
    total += v;
    ++seeds;
  }
  double mean() const { return seeds > 0 ? total / static_cast<double>(seeds) : std::nan(""); }
  double reported(const PapersScoreRule& rule) const { return rule.best_of_seeds && seeds > 0 ? best : mean(); }
};

// The rule's metric on the test split (the training lengths) over the variant's seeds; NaN when no finished run
// has it.
double in_distribution(const StudyReport& report, const std::string& variant, const PapersScoreRule& rule) {
  SeedValues values;
  for (const RunResult& run : report.runs) {
    if (!run.finished || run.run.variant != variant) continue;
    const auto it = run.metrics.find("test_" + rule.metric);
    if (it != run.metrics.end()) values.add(it->second);
  }
  return values.reported(rule);
}

}  // namespace

std::vector<PapersScore> papers_scores(const StudyReport& report) {
  std::vector<PapersScore> out;
  if (report.objective == nullptr || !report.objective->papers_score) return out;
  const PapersScoreRule& rule = *report.objective->papers_score;
  for (const VariantSummary& v : report.variants) {
    PapersScore p{v.name};
    SeedValues values;
    for (const RunResult& run : report.runs) {
      int64_t lengths = 0;
      const double score =
          run.finished && run.run.variant == v.name ? run_score(run, rule.metric, lengths) : std::nan("");
      if (std::isnan(score)) continue;
      values.add(score);
      p.lengths = lengths;
    }
    if (values.seeds == 0) continue;
    p.best = values.best;
    p.mean = values.mean();
    p.reported = values.reported(rule);
    p.seeds = values.seeds;
    p.in_distribution = in_distribution(report, v.name, rule);
    out.push_back(p);
  }
  return out;
}

std::string papers_score_markdown(const StudyReport& report) {
  const std::vector<PapersScore> scores = papers_scores(report);
  if (scores.empty()) return "";
  std::string o = "\n## The papers' score\n\n" + report.objective->papers_score->protocol +
                  " In percent, the best and the mean of the seeds.\n\n| Variant | Best of seeds | Mean of seeds | "
                  "Seeds | Lengths |\n|---|--:|--:|--:|--:|\n";
  for (const PapersScore& p : scores)
    o += fmt::format("| {} | {:.2f} | {:.2f} | {} | {} |\n", p.variant, 100.0 * p.best, 100.0 * p.mean, p.seeds,
                     p.lengths);
  return o;
}

// report.md's section alone: report.json and report.csv hold every per-length score it is made of.
ReportStatistic papers_score_statistic() {
  return {"papers_score", ReportPlace::after_results, nullptr, nullptr,
          [](const StudyReport& r, const PlotOutcome&) { return papers_score_markdown(r); }};
}

}  // namespace rotor
