#pragma once
// Per-variant statistics over the seeds of a study: mean, sample standard
// deviation (n - 1 in the denominator; 0 for a single seed), min and max of
// every metric, of the validation curve at each evaluated step, and of every
// length-sweep cell. Which differences are real: study_evidence.h.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "trainers/study/run_results.h"

namespace rotor {

struct SeedStats {
  int64_t n = 0;  // seeds with a value; the rest are NaN when n == 0
  double mean = 0.0, std = 0.0, min = 0.0, max = 0.0;
};
SeedStats seed_stats(const std::vector<double>& values);

struct CurvePoint {
  int64_t step = 0;
  SeedStats accuracy;  // over the seeds that evaluated at this step (a language model's: its loss)
};

struct SweepStats {
  SweepCell point;        // split, length, scaling
  bool available = true;  // false: n/a for this variant (point.reason says why)
  // Each metric the cells carry (their objective's, metrics_events.h) over the seeds; none when not available.
  std::map<std::string, SeedStats> metrics;

  // The statistics of `metric`; no seeds when the cells do not carry it.
  SeedStats metric(const std::string& name) const;
};

struct VariantSummary {
  std::string name;
  int64_t runs = 0, finished = 0;
  int64_t parameters = 0;
  // "<split>_accuracy", "<split>_macro_f1", "tokens_per_s", "elapsed_s".
  std::map<std::string, SeedStats> metrics{};
  std::vector<CurvePoint> val_curve{};
  std::vector<SweepStats> sweep{};  // in plan order
};

// `plan`: the sweep points of this variant (sweep_plan() of study_spec.h).
VariantSummary summarize_variant(const std::string& name, const std::vector<RunResult>& runs,
                                 const std::vector<SweepCell>& plan);

}  // namespace rotor
