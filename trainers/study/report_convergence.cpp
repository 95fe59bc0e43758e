// Steps to each of the spec's evaluation.thresholds (convergence.h): report.json's
// "convergence", report.csv's steps_to_threshold rows and report.md's "Steps to
// threshold" section (per threshold, a table of each variant's steps with its
// interval, and one of every pair).
#include <cmath>
#include <sstream>

#include <fmt/format.h>

#include "trainers/study/convergence.h"
#include "trainers/study/report_statistics.h"
#include "trainers/study/student_t.h"

namespace rotor {
namespace {

std::string steps(double v) { return std::isnan(v) ? "–" : fmt::format("{:.0f}", v); }
std::string steps_interval(double low, double high) {
  return std::isnan(low) ? "–" : fmt::format("{:.0f} to {:.0f}", low, high);
}

std::string variants_table(const ThresholdConvergence& c) {
  std::ostringstream o;
  o << "| Variant | Reached | Steps (mean) | 95% interval | Per seed (seed: step) |\n|---|--:|--:|--:|---|\n";
  for (const VariantConvergence& v : c.variants) {
    std::string per_seed;
    for (const auto& [seed, step] : v.steps)
      per_seed += (per_seed.empty() ? "" : ", ") + fmt::format("{}: {:.0f}", seed, step);
    o << "| " << v.name << " | " << v.steps.size() << "/" << v.runs() << " | " << steps(v.mean) << " | "
      << steps_interval(v.ci_low, v.ci_high) << " | " << per_seed << " |\n";
  }
  return o.str();
}

// "tied", "a sooner", or with seeds only one of the two reached (censored: no number to test, but it says
// who got there first) "too few shared seeds; only a reached it in 3 seeds".
std::string pair_reading(const ConvergencePair& p) {
  std::string reading = p.n_seeds < 2 ? "too few shared seeds" : !p.different ? "tied" : "";
  if (p.different) reading = (p.difference < 0 ? p.a : p.b) + " sooner";
  const auto censored = [](const std::string& who, int64_t seeds) {
    return fmt::format("only {} reached it in {} seed{}", who, seeds, seeds == 1 ? "" : "s");
  };
  if (p.only_a > 0) reading += "; " + censored(p.a, p.only_a);
  if (p.only_b > 0) reading += "; " + censored(p.b, p.only_b);
  return reading;
}

std::string pairs_table(const ThresholdConvergence& c) {
  std::ostringstream o;
  o << "| Pair (a − b) | Seeds | Difference (steps) | 95% interval | p | p (Holm) | Reading |\n"
       "|---|--:|--:|--:|--:|--:|---|\n";
  for (const ConvergencePair& p : c.pairs) {
    o << "| " << p.a << " − " << p.b << " | " << p.n_seeds << " | " << steps(p.difference) << " | "
      << steps_interval(p.ci_low, p.ci_high) << " | " << (p.n_seeds < 2 ? "–" : fmt::format("{:.3g}", p.p)) << " | "
      << (p.n_seeds < 2 ? "–" : fmt::format("{:.3g}", p.p_holm)) << " | " << pair_reading(p) << " |\n";
  }
  return o.str();
}

// Per evaluation.thresholds, in spec order.
std::vector<ThresholdConvergence> study_convergence(const StudyReport& r) {
  std::vector<std::string> names;
  for (const StudyVariant& v : r.manifest.spec.variants) names.push_back(v.name);
  const bool falling = r.objective->find_metric(r.objective->default_best_metric)->lower_is_better;
  std::vector<ThresholdConvergence> out;
  for (double threshold : r.manifest.spec.evaluation.thresholds)
    out.push_back(threshold_convergence(names, r.runs, threshold, falling, r.evidence.options.alpha));
  return out;
}

nlohmann::json convergence_json(const StudyReport& r) {
  nlohmann::json list = nlohmann::json::array();
  for (const ThresholdConvergence& c : study_convergence(r)) list.push_back(to_json(c));
  return {{"convergence", list}};
}

// A row per run that reached a threshold and one per variant (n: the seeds that
// reached it); the threshold is in the note.
std::vector<CsvRow> convergence_rows(const StudyReport& r) {
  std::vector<CsvRow> rows;
  for (const ThresholdConvergence& c : study_convergence(r)) {
    const std::string note = fmt::format("threshold {:g}", c.threshold);
    for (const VariantConvergence& v : c.variants) {
      std::vector<double> steps;
      for (const auto& seed_step : v.steps) steps.push_back(seed_step.second);
      rows.push_back(aggregate_row(v.name, "steps_to_threshold", seed_stats(steps)));
      rows.back().note = note;
      for (const auto& [seed, step] : v.steps) {
        rows.push_back(run_row(v.name, std::to_string(seed), "steps_to_threshold", step));
        rows.back().note = note;
      }
    }
  }
  return rows;
}

std::string convergence_markdown(const StudyReport& r, const PlotOutcome&) {
  const std::vector<ThresholdConvergence> convergence = study_convergence(r);
  if (convergence.empty()) return "";
  const bool falling = r.objective->find_metric(r.objective->default_best_metric)->lower_is_better;
  std::ostringstream o;
  o << "\n## Steps to threshold\n\nThe first step at which a run's validation "
    << (falling ? "loss falls to" : "accuracy rises to")
    << " the threshold, linearly interpolated between the two evaluations around the crossing (a run that never "
       "reaches it is counted in Reached, not averaged). Variants: mean over the seeds that reached it with a "
       "Student t interval. Pairs: the paired difference over the seeds both reached, a paired t test, and "
       "Holm's correction across the pairs of a threshold; \"tied\" when the corrected test cannot tell them "
       "apart. A run already past the threshold at its first evaluation counts that step (an upper bound).";
  const auto seeds = static_cast<int64_t>(r.manifest.spec.seeds.size());
  const double alpha = r.evidence.options.alpha;
  if (seeds >= 2)
    o << fmt::format(" With {} seeds the {:g}% interval is the mean ± {:.2f} standard errors ({} degrees of freedom)",
                     seeds, 100 * (1 - alpha), student_t_critical(alpha, seeds - 1), seeds - 1)
      << (seeds <= 5 ? ": wide, so a resolved difference is a large one." : ".");
  o << "\n";
  for (const ThresholdConvergence& c : convergence) {
    o << "\n**Validation " << (falling ? "loss ≤ " : "accuracy ≥ ")
      << (falling ? fmt::format("{:g}", c.threshold) : fmt::format("{:g}%", 100 * c.threshold)) << "**\n\n"
      << variants_table(c) << "\n"
      << pairs_table(c);
  }
  return o.str();
}

}  // namespace

ReportStatistic convergence_statistic() {
  return {"convergence", ReportPlace::after_results, convergence_json, convergence_rows, convergence_markdown};
}

}  // namespace rotor
